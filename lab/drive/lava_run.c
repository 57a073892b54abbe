#include "drive/lava_run.h"
#include "base/interrupt.h"
#include "base/proc.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Between two looks at the job: LAVA's own workers ping every few seconds. */
#define POLL_S 2
/* One request: LAVA answers in milliseconds; a log of a long job takes longer. */
#define REQUEST_TIMEOUT_S 120
/* A cancelled job: how long LAVA may take to stop it before we stop waiting. */
#define CANCEL_WAIT_S 60

/* Decode the JSON string starting after its opening quote at s into out; the end (after the closing quote). */
static const char *json_string(const char *s, struct buf *out)
{
	while (*s && *s != '"') {
		if (*s != '\\') {
			buf_add(out, s++, 1);
			continue;
		}
		s++;
		switch (*s) {
		case 'n': buf_addstr(out, "\n"); break;
		case 't': buf_addstr(out, "\t"); break;
		case 'r': buf_addstr(out, "\r"); break;
		case 'b': buf_addstr(out, "\b"); break;
		case 'f': buf_addstr(out, "\f"); break;
		case 'u': {
			unsigned v = 0;
			int k;

			for (k = 1; k <= 4 && s[k]; k++)
				v = v * 16 + (unsigned)(s[k] >= 'a' ? s[k] - 'a' + 10 : s[k] >= 'A' ? s[k] - 'A' + 10 : s[k] - '0');
			if (v < 0x80)
				buf_add(out, (char[]){ (char)v }, 1);
			else if (v < 0x800)
				buf_add(out, (char[]){ (char)(0xc0 | v >> 6), (char)(0x80 | (v & 0x3f)) }, 2);
			else
				buf_add(out, (char[]){ (char)(0xe0 | v >> 12), (char)(0x80 | ((v >> 6) & 0x3f)),
						       (char)(0x80 | (v & 0x3f)) }, 3);
			s += k - 1;
			break;
		}
		case '\0':
			return s;
		default:
			buf_add(out, s, 1);   /* \" \\ \/ */
		}
		s++;
	}
	return *s ? s + 1 : s;
}

void lava_json_get(const char *json, const char *key, char *out, size_t cap)
{
	char *pat = xprintf("\"%s\":", key);
	const char *p = strstr(json, pat);

	out[0] = '\0';
	if (p) {
		p += strlen(pat);
		while (*p == ' ')
			p++;
		if (*p == '"') {
			struct buf v = BUF_INIT;

			json_string(p + 1, &v);
			snprintf(out, cap, "%s", buf_str(&v));
			buf_free(&v);
		} else if (strncmp(p, "null", 4)) {
			snprintf(out, cap, "%.*s", (int)strcspn(p, ",}]"), p);
		}
	}
	free(pat);
}

void lava_log_console(const char *log, size_t len, struct buf *console)
{
	static const char target[] = "\"lvl\": \"target\", \"msg\": \"";
	struct buf copy = BUF_INIT;

	buf_add(&copy, log, len);   /* NUL-terminated for strstr */
	for (const char *l = buf_str(&copy); *l; l = next_line(l)) {
		const char *m = strstr(l, target), *nl = strchr(l, '\n');

		if (m && (!nl || m < nl)) {
			json_string(m + sizeof(target) - 1, console);
			buf_addstr(console, "\n");
		}
	}
	buf_free(&copy);
}

/* The last "error_msg" of a job log: LAVA's reason for an Incomplete job. */
static void log_error(const char *log, char *out, size_t cap)
{
	const char *p = log, *last = NULL;

	while ((p = strstr(p, "\"error_msg\": ")))
		last = p++;
	out[0] = '\0';
	if (last)
		lava_json_get(last, "error_msg", out, cap);
}

struct client {
	const struct lava_server *srv;
	char base[512];          /* the server's root, no trailing '/' */
	char header[4200], body[4200], resp[4200];
};

/* One request: method, path under the root, an optional JSON body; the answer into resp. */
static int request(struct client *c, const char *method, const char *path, const char *body,
		   struct buf *resp, struct error *err)
{
	const char *argv[24];
	char code[16], url[1024], max[16];
	int n = 0, rc;

	snprintf(url, sizeof(url), "%s%s", c->base, path);
	snprintf(max, sizeof(max), "%d", REQUEST_TIMEOUT_S);
	argv[n++] = "curl";
	argv[n++] = "-sS";
	argv[n++] = "--max-time";
	argv[n++] = max;
	argv[n++] = "-o";
	argv[n++] = c->resp;
	argv[n++] = "-w";
	argv[n++] = "%{http_code}";
	argv[n++] = "-H";
	argv[n++] = xprintf("@%s", c->header);
	argv[n++] = "-X";
	argv[n++] = method;
	if (body) {
		if (write_file_atomic(c->body, body, strlen(body), err))
			return free((char *)argv[9]), -1;
		argv[n++] = "-H";
		argv[n++] = "Content-Type: application/json";
		argv[n++] = "--data-binary";
		argv[n++] = xprintf("@%s", c->body);
	}
	argv[n++] = url;
	argv[n] = NULL;
	rc = proc_capture(argv, code, sizeof(code), err);
	free((char *)argv[9]);
	if (body)
		free((char *)argv[n - 2]);
	if (rc < 0)
		return error_prefix(err, "cannot run curl (install it: apt-get install curl)");
	if (rc)
		return error_set(err, "LAVA server %s did not answer %s %s (curl exit %d)", c->base, method, path, rc);
	resp->len = 0;
	if (read_file(c->resp, resp, err))
		return -1;
	unlink(c->resp);
	if (!strcmp(code, "401") || !strcmp(code, "403"))
		return error_input(err, "LAVA server %s refused the token ($NUMALAB_LAVA_TOKEN: HTTP %s on %s): "
				   "create one with `lava-server manage tokens add --user USER`", c->base, code, path);
	if (code[0] != '2')
		return error_set(err, "LAVA server %s: HTTP %s on %s %s: %.300s", c->base, code, method, path,
				 buf_str(resp));
	return 0;
}

static void json_quote(const char *s, struct buf *out)
{
	buf_addstr(out, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addf(out, "\\%c", *s);
		else if (*s == '\n')
			buf_addstr(out, "\\n");
		else if ((unsigned char)*s < 0x20)
			buf_addf(out, "\\u%04x", (unsigned char)*s);
		else
			buf_add(out, s, 1);
	}
	buf_addstr(out, "\"");
}

/* LAVA's ISO time ("2026-12-05T10:49:42.027161Z") as seconds; -1 if not one. */
static double iso_time(const char *s)
{
	struct tm tm = { 0 };
	double frac = 0;
	const char *rest;

	if (!*s || !(rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return -1;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

static int fetch_state(struct client *c, struct lava_job_state *st, struct buf *resp, struct error *err)
{
	char path[64], submit[64], start[64], end[64], device[128];
	double t_submit, t_start, t_end;

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", st->id);
	if (request(c, "GET", path, NULL, resp, err))
		return -1;
	lava_json_get(buf_str(resp), "state", st->state, sizeof(st->state));
	lava_json_get(buf_str(resp), "health", st->health, sizeof(st->health));
	lava_json_get(buf_str(resp), "failure_comment", st->failure, sizeof(st->failure));
	lava_json_get(buf_str(resp), "actual_device", device, sizeof(device));
	lava_json_get(buf_str(resp), "submit_time", submit, sizeof(submit));
	lava_json_get(buf_str(resp), "start_time", start, sizeof(start));
	lava_json_get(buf_str(resp), "end_time", end, sizeof(end));
	t_submit = iso_time(submit);
	t_start = iso_time(start);
	t_end = iso_time(end);
	if (t_submit >= 0)
		st->queued_s = (t_start >= 0 ? t_start : (double)time(NULL)) - t_submit;
	if (t_start >= 0)
		st->running_s = (t_end >= 0 ? t_end : (double)time(NULL)) - t_start;
	if (device[0] && strcmp(device, st->device)) {
		snprintf(st->device, sizeof(st->device), "%s", device);
		snprintf(path, sizeof(path), "/api/v0.2/devices/%.40s/", device);
		if (request(c, "GET", path, NULL, resp, err))
			return -1;
		lava_json_get(buf_str(resp), "worker_host", st->worker, sizeof(st->worker));
	}
	return 0;
}

static void say(void (*phase)(void *, const char *), void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(void (*phase)(void *, const char *), void *ctx, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!phase)
		return;
	va_start(ap, fmt);
	s = xvprintf(fmt, ap);
	va_end(ap);
	phase(ctx, s);
	free(s);
}

static int cancel(struct client *c, struct lava_job_state *st, struct buf *resp, struct error *err)
{
	char path[64];

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/cancel/", st->id);
	st->canceled_by_us = 1;
	return request(c, "GET", path, NULL, resp, err);   /* LAVA 2023.01: GET, POST is refused (405) */
}

static int follow(struct client *c, struct lava_job_state *st, int deadline_s,
		  void (*phase)(void *, const char *), void *ctx, struct buf *resp, struct error *err)
{
	double started = -1, cancel_at = -1;   /* the deadline counts from the job's start: the queue is LAVA's */
	char last[200] = "";

	for (;;) {
		char now[200];

		if (fetch_state(c, st, resp, err)) {
			/* The interrupt also stopped that request's curl: the job is still to be cancelled. */
			if (!interrupt_caught() || st->canceled_by_us)
				return -1;
			say(phase, ctx, "cancelling LAVA job %ld (interrupted)", st->id);
			return cancel(c, st, resp, err);
		}
		if (!strcmp(st->state, "Finished"))
			return 0;
		snprintf(now, sizeof(now), "%s/%s", st->state, st->device);
		if (started < 0 && !strcmp(st->state, "Running"))
			started = now_s();
		if (strcmp(now, last)) {
			if (!strcmp(st->state, "Running"))
				say(phase, ctx, "LAVA job %ld running on %s (worker %s)", st->id, st->device, st->worker);
			else if (!st->canceled_by_us)
				say(phase, ctx, "LAVA job %ld %s", st->id, st->state);
			snprintf(last, sizeof(last), "%s", now);
		}
		if (!st->canceled_by_us && (interrupt_caught() || (started >= 0 && now_s() - started > deadline_s))) {
			say(phase, ctx, "cancelling LAVA job %ld (%s)", st->id,
			    interrupt_caught() ? "interrupted" : "past its deadline");
			if (cancel(c, st, resp, err))
				return -1;
			cancel_at = now_s();
		}
		if (cancel_at >= 0 && now_s() - cancel_at > CANCEL_WAIT_S)
			return 0;   /* LAVA goes on cancelling; the cell is interrupted either way */
		sleep(POLL_S);
	}
}

int lava_run_job(const struct lava_server *srv, const char *yaml, const char *work_dir,
		 const char *console_path, int deadline_s,
		 void (*phase)(void *ctx, const char *phase), void *ctx,
		 struct lava_job_state *st, struct error *err)
{
	struct client c = { .srv = srv };
	struct buf body = BUF_INIT, resp = BUF_INIT, console = BUF_INIT;
	char path[64];
	int fd, rc = -1;

	memset(st, 0, sizeof(*st));
	snprintf(c.base, sizeof(c.base), "%s", srv->url);
	while (strlen(c.base) && c.base[strlen(c.base) - 1] == '/')
		c.base[strlen(c.base) - 1] = '\0';
	snprintf(c.header, sizeof(c.header), "%s/lava.header", work_dir);
	snprintf(c.body, sizeof(c.body), "%s/lava.request", work_dir);
	snprintf(c.resp, sizeof(c.resp), "%s/lava.response", work_dir);
	fd = open(c.header, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return error_set(err, "cannot write %s: %s", c.header, strerror(errno));
	if (dprintf(fd, "Authorization: Token %s\n", srv->token) < 0 || close(fd))
		return unlink(c.header), error_set(err, "cannot write %s: %s", c.header, strerror(errno));
	buf_addstr(&body, "{\"definition\": ");
	json_quote(yaml, &body);
	buf_addstr(&body, "}");
	say(phase, ctx, "submitting to LAVA %s", c.base);
	if (request(&c, "POST", "/api/v0.2/jobs/", buf_str(&body), &resp, err))
		goto done;
	unlink(c.body);
	/* {"message":"job(s) successfully submitted","job_ids":[12]} */
	const char *ids = strstr(buf_str(&resp), "\"job_ids\":[");

	if (!ids || (st->id = strtol(ids + 11, NULL, 10)) <= 0) {
		error_set(err, "LAVA server %s: no job id in its answer: %.300s", c.base, buf_str(&resp));
		goto done;
	}
	snprintf(st->url, sizeof(st->url), "%s/scheduler/job/%ld", c.base, st->id);
	say(phase, ctx, "LAVA job %ld submitted: %s", st->id, st->url);
	if (follow(&c, st, deadline_s, phase, ctx, &resp, err))
		goto done;
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/logs/", st->id);
	if (request(&c, "GET", path, NULL, &resp, err)) {
		/* A job cancelled before it started has no log (404): an empty console. */
		if (!st->canceled_by_us)
			goto done;
		resp.len = 0;
	}
	lava_log_console(buf_str(&resp), resp.len, &console);
	if (!st->failure[0] && strcmp(st->health, "Complete"))
		log_error(buf_str(&resp), st->failure, sizeof(st->failure));
	rc = write_file_atomic(console_path, console.data, console.len, err);
	say(phase, ctx, "LAVA job %ld %s", st->id, st->health);
done:
	unlink(c.header);
	unlink(c.body);
	unlink(c.resp);
	buf_free(&body);
	buf_free(&resp);
	buf_free(&console);
	return rc;
}
