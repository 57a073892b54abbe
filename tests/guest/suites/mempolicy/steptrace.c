/*
 * steptrace (steptrace.h): kprobe events filtered to this process, read
 * from trace_pipe without blocking.  trace_pipe consumes what it returns,
 * so nothing is ever cleared while the policy is in force: clearing would
 * drop the steps the clearing itself took (opening a file may refill a
 * slab under the policy).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "steptrace.h"

#define TRACING "/sys/kernel/tracing"

static const struct probe {
	const char *name;
	const char *def;
	enum step_kind kind;
} probes[] = {
	{ "numalab_st_wi", "r:numalab_st_wi weighted_interleave_nodes node=$retval:u32", STEP_PAGE },
	{ "numalab_st_il", "r:numalab_st_il interleave_nodes node=$retval:u32", STEP_PAGE },
	{ "numalab_st_bulk", "p:numalab_st_bulk alloc_pages_bulk_mempolicy_noprof nr=$arg2:u64", STEP_BULK },
	{ "numalab_st_run", "p:numalab_st_run alloc_pages_bulk_noprof nid=$arg2:s32 nr=$arg4:s32",
	  STEP_NODE_RUN },
	{ "numalab_st_file", "p:numalab_st_file filemap_add_folio", STEP_FILE },
};
#define NR_PROBES (int)(sizeof(probes) / sizeof(probes[0]))

static int pipe_fd = -1;
static char pending[65536];
static size_t pending_len;

/*
 * Knobs that make the kernel patch its own text when events go on and off,
 * turned off while armed: under QEMU's multi-threaded TCG a vCPU can still
 * run a breakpoint text_poke_bp() has already taken out, and the kernel
 * dies with "Oops: int3" (seen once in __schedule, whose sched_switch
 * tracepoint record-cmd switches on with the first enabled event).
 * record-cmd records comm names for the trace (this reader needs none);
 * kprobes-optimization turns int3 probes into jumps, by text_poke_bp() too.
 */
static const char *const quiet_knobs[] = {
	TRACING "/options/record-cmd", "/proc/sys/debug/kprobes-optimization",
};
#define NR_QUIET (int)(sizeof(quiet_knobs) / sizeof(quiet_knobs[0]))
static char quiet_saved[NR_QUIET][8];

static int kprobe_events(const char *line)
{
	int fd = open(TRACING "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line);
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
	return ok ? 0 : -1;
}

static int event_knob(const char *name, const char *knob, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), TRACING "/events/kprobes/%s/%s", name, knob);
	return sys_write(path, val);
}

const char *steptrace_arm(void)
{
	static char why[192];
	char filter[48];

	if (!sys_exists(TRACING "/kprobe_events"))
		return "no " TRACING "/kprobe_events (CONFIG_KPROBE_EVENTS)";
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	pending_len = 0;
	for (int i = 0; i < NR_QUIET; i++)
		if (sys_read(quiet_knobs[i], quiet_saved[i], sizeof(quiet_saved[i])) ||
		    sys_write(quiet_knobs[i], "0"))
			quiet_saved[i][0] = '\0';
	for (int i = 0; i < NR_PROBES; i++) {
		char del[64];

		/* A leftover of a case killed while armed: disabled first, or it cannot go. */
		event_knob(probes[i].name, "enable", "0");
		snprintf(del, sizeof(del), "-:%s", probes[i].name);
		kprobe_events(del);
		if (kprobe_events(probes[i].def) || event_knob(probes[i].name, "filter", filter) ||
		    event_knob(probes[i].name, "enable", "1")) {
			int e = errno;

			snprintf(why, sizeof(why), "cannot place the kprobe \"%s\": %s%s", probes[i].def,
				 strerror(e), e == ENOENT || e == EINVAL ? " (no such symbol: inlined?)" : "");
			steptrace_disarm();
			return why;
		}
	}
	sys_write(TRACING "/tracing_on", "1");
	pipe_fd = open(TRACING "/trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (pipe_fd < 0) {
		snprintf(why, sizeof(why), "cannot open " TRACING "/trace_pipe: %s", strerror(errno));
		steptrace_disarm();
		return why;
	}
	/* Whatever an earlier user left in the buffer is not ours. */
	steptrace_take(NULL, 0);
	return NULL;
}

/* One trace line -> ev; 0 if it is one of ours. */
static int parse_line(const char *line, struct step_event *ev)
{
	for (int i = 0; i < NR_PROBES; i++) {
		char tag[40];
		const char *p, *f;

		snprintf(tag, sizeof(tag), " %s:", probes[i].name);
		if (!(p = strstr(line, tag)))
			continue;
		ev->kind = probes[i].kind;
		ev->node = -1;
		ev->nr = 0;
		if ((f = strstr(p, " node=")))
			ev->node = atoi(f + 6);
		if ((f = strstr(p, " nid=")))
			ev->node = atoi(f + 5);
		if ((f = strstr(p, " nr=")))
			ev->nr = atol(f + 4);
		return 0;
	}
	return -1;
}

int steptrace_take(struct step_event *ev, int max)
{
	int n = 0;

	if (pipe_fd < 0)
		return -1;
	for (;;) {
		ssize_t got = read(pipe_fd, pending + pending_len, sizeof(pending) - 1 - pending_len);
		char *line, *end;

		if (got < 0 && errno != EAGAIN) {
			ktap_diag("read trace_pipe: %s", strerror(errno));
			return -1;
		}
		if (got > 0)
			pending_len += (size_t)got;
		pending[pending_len] = '\0';
		for (line = pending; (end = strchr(line, '\n')); line = end + 1) {
			*end = '\0';
			if (ev && n < max && !parse_line(line, &ev[n]))
				n++;
			else if (ev && n >= max) {
				ktap_diag("more than %d trace events at once", max);
				return -1;
			}
		}
		pending_len -= (size_t)(line - pending);
		memmove(pending, line, pending_len);
		if (got <= 0)
			return n;
	}
}

long steptrace_disarm(void)
{
	char buf[4096], *line;
	long missed = 0;

	if (sys_read(TRACING "/kprobe_profile", buf, sizeof(buf)))
		missed = -1;
	for (line = strtok(buf, "\n"); missed >= 0 && line; line = strtok(NULL, "\n")) {
		char name[64];
		long hits, miss;

		if (sscanf(line, " %63s %ld %ld", name, &hits, &miss) == 3 && !strncmp(name, "numalab_st_", 11))
			missed += miss;
	}
	if (pipe_fd >= 0)
		close(pipe_fd);
	pipe_fd = -1;
	for (int i = NR_PROBES - 1; i >= 0; i--) {
		char del[64];

		event_knob(probes[i].name, "enable", "0");
		snprintf(del, sizeof(del), "-:%s", probes[i].name);
		kprobe_events(del);
	}
	/* With no event enabled any more, putting these back patches nothing. */
	for (int i = 0; i < NR_QUIET; i++)
		if (quiet_saved[i][0])
			sys_write(quiet_knobs[i], quiet_saved[i]);
	return missed;
}
