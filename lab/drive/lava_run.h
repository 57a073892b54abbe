/*
 * lava_run: one cell as a LAVA job (docs/lava.md), through LAVA's REST API
 * (v0.2, LAVA 2023.01) with curl: the job submitted with the user's token,
 * polled until it ends, its console (the log's `target` lines) written to
 * the cell's console.log, where run.c reads the framed TAP back
 * (serialtap.h); cancelled when the runner is interrupted.
 *
 * The token reaches curl in a header file of mode 0600 beside the job,
 * removed at once: never on a command line.  Nothing is printed: each
 * change of the job (queued, running on DEVICE of WORKER, done) goes to
 * the caller's phase().
 */
#ifndef LAB_LAVA_RUN_H
#define LAB_LAVA_RUN_H

#include "base/util.h"

struct lava_server {
	const char *url;          /* http(s)://HOST[:PORT][/], the server's root */
	const char *token;        /* an API token of the submitting user */
};

struct lava_job_state {
	long id;
	char url[512 + 64];       /* the job's page: URL (< 512) + /scheduler/job/ID */
	char state[32];           /* Submitted, Scheduling, Scheduled, Running, Canceling, Finished */
	char health[32];          /* Unknown, Complete, Incomplete, Canceled */
	char device[128], worker[128];
	char failure[512];        /* LAVA's failure_comment, else its last error line; "" none */
	double queued_s, running_s;   /* submitted → started, started → ended (or now) */
	int canceled_by_us;       /* interrupted: we asked LAVA to cancel it */
};

/*
 * Submit yaml and follow the job until it is Finished (or deadline_s after
 * it started running: then it is cancelled; the queue's wait is the
 * server's to bound); its console to console_path.  work_dir holds the
 * request files.  0 with *st filled whatever the job's health, or -1 with
 * err (ERROR_HARNESS: the server refused the job, did not answer, or the
 * console could not be written; ERROR_INPUT: it refused the token).
 */
int lava_run_job(const struct lava_server *srv, const char *yaml, const char *work_dir,
		 const char *console_path, int deadline_s,
		 void (*phase)(void *ctx, const char *phase), void *ctx,
		 struct lava_job_state *st, struct error *err) LAB_MUST_CHECK;

/*
 * The `target` lines of a LAVA job log (its YAML: one `- {"dt": ..., "lvl":
 * ..., "msg": ...}` per line) appended to console, each with "\n".
 */
void lava_log_console(const char *log, size_t len, struct buf *console);

/* The value of "key" in JSON text: a string (unescaped), number, true/false; "" for null or absent. */
void lava_json_get(const char *json, const char *key, char *out, size_t cap);

#endif
