/*
 * A uprobe set and cleared on text a shmem THP holds: uprobes hands the
 * range back to khugepaged (collapse_pte_mapped_thp()).
 *
 * uprobetracer.rst: a probe is "p[:[GRP/]EVENT] PATH:OFFSET", and "-:[GRP/]
 * EVENT" clears it.  Enabling one writes a breakpoint into a private copy of
 * the page in every process mapping the file (uprobes splits a PMD mapping
 * for that: FOLL_SPLIT_PMD); disabling it zaps the copy, so the text reads
 * as the file again, and for a PMD-size folio asks khugepaged to collapse
 * the range's page table (uprobes.c: "try collapse pmd for compound page"),
 * so the next read maps the THP by a PMD as before.
 *
 * The file: /dev/shm (tmpfs) holding one PMD of no-op instructions, made a
 * THP by MADV_COLLAPSE of a shared mapping; then mapped private, readable
 * and executable at a PMD-aligned address (the VMAs uprobes probes), read
 * (PMD-mapped), probed at its middle page, the probe enabled and disabled,
 * the mapping read again: every page reads its no-op again and the mapping
 * is PMD-mapped (ShmemPmdMapped).
 *
 * uprobes zaps its copy only when nothing else holds a reference to it
 * ("there are no unexpected folio references").  Its own lookup of the page
 * marks it accessed, and an inactive page marked accessed twice waits with
 * a reference in this CPU's activation batch: the copy is made active first
 * (two reads through /proc/self/mem, then MADV_WILLNEED of an anonymous page
 * drains this CPU's batches: madvise.c "Push any new pages onto the LRU
 * now"), with the task on one CPU throughout.  Kills mm/khugepaged.c:
 * collapse_pte_mapped_thp's `try_collapse_pte_mapped_thp(mm, addr,
 * install_pmd)` removed (8e984be36a0a: the page table of PTEs stays).
 * x86_64 and LoongArch (a no-op each); SKIP without uprobe events
 * (CONFIG_UPROBE_EVENTS).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "khugepaged.h"
#include "ktap.h"

#define UPROBE_EVENTS "/sys/kernel/tracing/uprobe_events"
#define UPROBE_ENABLE "/sys/kernel/tracing/events/numalab/khugepaged_text/enable"
#define UPROBE_CLEAR "-:numalab/khugepaged_text"
#define TEXT_FILE "/dev/shm/numalab-khugepaged-text"
#define NR_UPROBE_ROWS 1

#if defined(__x86_64__)
static const unsigned char nop[] = { 0x90 };
#elif defined(__loongarch__)
static const unsigned char nop[] = { 0x00, 0x00, 0x40, 0x03 };   /* andi $zero, $zero, 0 */
#else
#define NO_NOP 1
static const unsigned char nop[] = { 0 };
#endif

int uprobe_plan(void)
{
	return NR_UPROBE_ROWS;
}

/* fd's first PMD written with no-ops and collapsed into a THP: 0, or -1 (diag printed). */
static int text_thp(int fd, size_t pmd)
{
	struct thp_knob knob;
	int knob_set = !thp_knob_set(&knob, SHMEM_ENABLED, "never"), rc = -1;
	char *map = NULL, *huge;

	/* Written in base pages (shmem_enabled never), then collapsed: the THP is MADV_COLLAPSE's. */
	if (ftruncate(fd, (off_t)pmd) || !(huge = shmem_range_map(fd, pmd, &map))) {
		ktap_diag(TEXT_FILE ": %s", strerror(errno));
	} else {
		for (size_t off = 0; off < pmd; off += sizeof(nop))
			memcpy(huge + off, nop, sizeof(nop));
		if (knob_set)
			thp_knob_restore(&knob);
		knob_set = 0;
		if (collapse_range(huge, pmd))
			ktap_diag("MADV_COLLAPSE of the text: %s", strerror(errno));
		else
			rc = 0;
	}
	if (knob_set)
		thp_knob_restore(&knob);
	if (map)
		munmap(map, 2 * pmd);
	return rc;
}

/* The page at addr made active (see the header); spare is an anonymous page of this task. */
static void make_active(const char *addr, char *spare)
{
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	char byte;

	for (int i = 0; fd >= 0 && i < 2; i++)
		if (pread(fd, &byte, 1, (off_t)(uintptr_t)addr) != 1)
			ktap_diag("/proc/self/mem: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	spare[0] = 1;
	if (madvise(spare, (size_t)page_size(), MADV_WILLNEED))
		ktap_diag("MADV_WILLNEED: %s", strerror(errno));
}

/* Every page of text read; 1 if each reads the no-op at its start and its middle. */
static int reads_nops(const char *text, size_t pmd)
{
	size_t ps = (size_t)page_size();

	for (size_t off = 0; off < pmd; off += ps / 2)
		if (memcmp(text + off, nop, sizeof(nop))) {
			ktap_diag("the text at %#zx reads %#x, not the no-op", off, (unsigned char)text[off]);
			return 0;
		}
	return 1;
}

void uprobe_run(void)
{
	const char *row = "a uprobe set and cleared on a shmem THP's text: the text as it was, mapped by a PMD again";
	size_t pmd = (size_t)pmd_size();
	int fd = -1, ok = 0, probed = 0;
	char probe[160], *map = MAP_FAILED, *spare = MAP_FAILED, *text;
	volatile char sink = 0;
	cpu_set_t was;

#ifdef NO_NOP
	ktap_skip(row, "no no-op instruction known for this architecture");
	return;
#endif
	if (!sys_exists(UPROBE_EVENTS)) {
		ktap_skip(row, "no " UPROBE_EVENTS " (CONFIG_UPROBE_EVENTS)");
		return;
	}
	if (!cpu_pin_here(&was))
		ktap_diag("cannot pin to one CPU: %s", strerror(errno));
	spare = mmap(NULL, (size_t)page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(TEXT_FILE, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (spare == MAP_FAILED || fd < 0 || text_thp(fd, pmd))
		goto out;
	map = mmap(NULL, 2 * pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		goto out;
	text = (char *)(((uintptr_t)map + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (mmap(text, pmd, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		ktap_diag("mmap of the text: %s", strerror(errno));
		goto out;
	}
	if (!reads_nops(text, pmd))
		goto out;
	ktap_diag("the text before the probe: ShmemPmdMapped %lld", smaps_bytes_at(text, "ShmemPmdMapped"));
	snprintf(probe, sizeof(probe), "p:numalab/khugepaged_text " TEXT_FILE ":%#zx", pmd / 2);
	sys_write(UPROBE_EVENTS, UPROBE_CLEAR);   /* one a killed run left */
	if (sys_write(UPROBE_EVENTS, probe) || !(probed = 1) || sys_write(UPROBE_ENABLE, "1")) {
		ktap_diag("%s: %s", probe, strerror(errno));
		goto out;
	}
	ktap_diag("the text with the probe enabled: ShmemPmdMapped %lld, Anonymous %lld, the probed byte %#x",
		  smaps_bytes_at(text, "ShmemPmdMapped"), smaps_bytes_at(text, "Anonymous"),
		  (unsigned char)text[pmd / 2]);
	/*
	 * Every other page mapped again, by PTEs now: the table the collapse clears has
	 * holes between its entries.  Kills try_collapse_pte_mapped_thp's step-2 check
	 * `folio_page(folio, i)` -> `folio_page(folio, nr_mapped_ptes)` (f7aa03d96bee:
	 * after a hole the count lags the index, the pages seem wrong, no PMD).
	 */
	for (size_t off = 0; off < pmd; off += 2 * (size_t)page_size())
		sink += text[off];
	make_active(text + pmd / 2, spare);
	if (sys_write(UPROBE_ENABLE, "0") || sys_write(UPROBE_EVENTS, UPROBE_CLEAR)) {
		ktap_diag("disabling and clearing the probe: %s", strerror(errno));
		goto out;
	}
	probed = 0;
	ok = reads_nops(text, pmd);
	ktap_diag("the text after the probe: ShmemPmdMapped %lld, Anonymous %lld", smaps_bytes_at(text, "ShmemPmdMapped"),
		  smaps_bytes_at(text, "Anonymous"));
	ok = ok && smaps_bytes_at(text, "ShmemPmdMapped") == (long long)pmd;
out:
	(void)sink;
	if (probed) {
		sys_write(UPROBE_ENABLE, "0");
		sys_write(UPROBE_EVENTS, UPROBE_CLEAR);
	}
	if (map != MAP_FAILED)
		munmap(map, 2 * pmd);
	if (spare != MAP_FAILED)
		munmap(spare, (size_t)page_size());
	if (fd >= 0)
		close(fd);
	unlink(TEXT_FILE);
	ktap_ok(ok, "%s", row);
}
