/*
 * serial: the TAP stream on the serial console, for a guest without a virtio
 * console (a board, a LAVA job; numalab.tap=serial).  Each TAP line goes out
 * framed (lab/results/serialtap.h) so the host can put the stream back
 * together around the kernel's messages, and each result that stands for
 * itself (tap.h's leaf) also as LAVA's test-case signal, which the job's
 * `monitors` pattern (lab/boot/lava_job.h) turns into one LAVA test case:
 *
 *   <LAVA_SIGNAL_TESTCASE TEST_CASE_ID=mempolicy.bind.basic RESULT=pass>
 *   <LAVA_SIGNAL_TESTCASE TEST_CASE_ID=khugepaged.collapse.node0.collapse_wait_s RESULT=pass MEASUREMENT=1.25 UNITS=s>
 *
 * The last one is a "# metric: NAME NUMBER" line of a test, as a measurement:
 * those are held back and printed after the plan, between SERIALTAP_LEAVES_END
 * and SERIALTAP_MEASUREMENTS, for a monitor of their own (LAVA 2023.01 stores
 * no test case whose pattern has an unmatched measurement group).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init.h"
#include "results/serialtap.h"
#include "results/tap.h"

static unsigned long seq;
static struct tap_walker *walker;

/* name with everything but [A-Za-z0-9_.-] as '_', appended to out. */
static void add_id(char *out, size_t cap, const char *name)
{
	size_t len = strlen(out);

	for (; *name && len + 1 < cap; name++)
		out[len++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *name)
			     ? *name : '_';
	out[len] = '\0';
}

/* "suite.case." for the suites enclosing node n (the unnamed ones left out). */
static void node_path(const struct tap_node *n, int levels, char *out, size_t cap)
{
	out[0] = '\0';
	for (int d = 0; d < levels; d++)
		if (n->suites[d][0]) {
			add_id(out, cap, n->suites[d]);
			add_id(out, cap, ".");
		}
}

/* The measurements held back: their signal lines, one after another. */
static char *measurements;
static size_t measurements_len;

static void signal_line(const char *id, const char *result, const char *measurement, const char *units)
{
	char line[512];
	int n;

	if (measurement)
		n = snprintf(line, sizeof(line), "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s "
			     "MEASUREMENT=%s UNITS=%s>\n", id, result, measurement, units);
	else
		n = snprintf(line, sizeof(line), "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s>\n", id, result);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (!measurement) {
		serial_write(line, (size_t)n);
		return;
	}
	char *more = realloc(measurements, measurements_len + (size_t)n);

	if (more) {   /* out of memory: the measurement is only in the TAP */
		memcpy(more + measurements_len, line, (size_t)n);
		measurements = more;
		measurements_len += (size_t)n;
	}
}

static void on_leaf(void *ctx, const struct tap_node *n)
{
	char id[256];
	const char *result = n->t->status == TAP_OK ? "pass" :
			     n->t->status == TAP_SKIP || n->t->status == TAP_TODO ? "skip" : "fail";

	(void)ctx;
	node_path(n, n->depth, id, sizeof(id));
	add_id(id, sizeof(id), n->t->name);
	signal_line(id, result, NULL, NULL);
}

/* The unit a metric's name ends in ("_s", "_ms", "_bytes"), else "none". */
static const char *metric_units(const char *name)
{
	static const char *const units[] = { "s", "ms", "us", "ns", "bytes", "kb", "mb", "pages", "pct", NULL };
	const char *u = strrchr(name, '_');

	for (int i = 0; u && units[i]; i++)
		if (!strcmp(u + 1, units[i]))
			return units[i];
	return "none";
}

static void on_diag(void *ctx, const struct tap_node *n)
{
	char name[161], value[64], id[256], *end;

	(void)ctx;
	if (sscanf(n->text, "# metric: %160s %63s", name, value) != 2)
		return;
	strtod(value, &end);
	if (*end || end == value)   /* "0-3 -> 0": behaviour, not a measurement */
		return;
	node_path(n, n->depth, id, sizeof(id));
	add_id(id, sizeof(id), name);
	signal_line(id, "pass", value, metric_units(name));
}

static const struct tap_walk_ops lava_ops = { .on_leaf = on_leaf, .on_diag = on_diag };

void serial_tap_start(void)
{
	static const char start[] = SERIALTAP_START "\n";

	serial_write(start, sizeof(start) - 1);
	walker = tap_walker_new(&lava_ops, NULL);
}

void serial_tap_line(const char *text, size_t len)
{
	char frame[LINE_MAX_LEN + 160], copy[LINE_MAX_LEN + 1];
	size_t n = serialtap_frame(seq++, text, len, frame, sizeof(frame));

	if (n)
		serial_write(frame, n);
	if (len > LINE_MAX_LEN)
		len = LINE_MAX_LEN;
	memcpy(copy, text, len);
	copy[len] = '\0';
	tap_walker_line(walker, copy);
}

void serial_tap_end(void)
{
	static const char leaves_end[] = SERIALTAP_LEAVES_END "\n", follow[] = SERIALTAP_MEASUREMENTS "\n";

	if (walker)
		tap_walker_end(walker);
	walker = NULL;
	serial_write(leaves_end, sizeof(leaves_end) - 1);
	serial_write(follow, sizeof(follow) - 1);
	if (measurements)
		serial_write(measurements, measurements_len);
}
