#include "drive/kcidb_submit.h"
#include "base/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The reply's first line, printable ASCII, into out. */
static void first_line(const struct buf *b, char *out, size_t cap)
{
	const char *s = buf_str((struct buf *)b);
	size_t n = 0;

	s += strspn(s, " \t\r\n");
	for (; *s && *s != '\n' && n + 1 < cap; s++)
		out[n++] = (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?';
	out[n] = '\0';
}

/* The token as a curl config line: the header, '"' and '\' escaped as curl's config quoting wants. */
static void config_line(struct buf *cfg, const char *token)
{
	buf_addstr(cfg, "header = \"Authorization: Bearer ");
	for (const char *c = token; *c; c++) {
		if (*c == '"' || *c == '\\')
			buf_addstr(cfg, "\\");
		buf_add(cfg, c, 1);
	}
	buf_addstr(cfg, "\"\n");
}

static int open_out(const char *path, struct error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		error_set(err, "%s: %s", path, strerror(errno));
	return fd;
}

/* curl with the config on its stdin; its stdout (the HTTP status) and stderr into files. */
static int run_curl(const char **argv, const struct buf *cfg, const char *code_path, const char *err_path,
		    int *exit_code, struct error *err)
{
	int in[2], out = -1, errfd = -1, rc = -1;
	struct proc p;

	if (pipe2(in, O_CLOEXEC))
		return error_set(err, "pipe: %s", strerror(errno));
	/* A config line is far below a pipe's buffer: written whole before curl starts. */
	if (write_all(in[1], cfg->data, cfg->len)) {
		error_set(err, "pipe: %s", strerror(errno));
		goto done;
	}
	close(in[1]);
	in[1] = -1;
	if ((out = open_out(code_path, err)) < 0 || (errfd = open_out(err_path, err)) < 0)
		goto done;
	proc_init(&p, argv);
	p.in = in[0];
	p.out = out;
	p.err = errfd;
	if (proc_start(&p, err)) {
		error_prefix(err, "install curl (numalab setup does)");
		goto done;
	}
	*exit_code = proc_wait(&p, err);
	rc = *exit_code < 0 ? -1 : 0;
done:
	for (int i = 0; i < 2; i++)
		if (in[i] >= 0)
			close(in[i]);
	if (out >= 0)
		close(out);
	if (errfd >= 0)
		close(errfd);
	return rc;
}

int kcidb_submit(const char *url, const char *token, const char *json, size_t len, char *reply, size_t cap,
		 struct error *err)
{
	char dir[] = "/tmp/numalab-kcidb.XXXXXX", *body, *code_path, *err_path, *reply_path, *endpoint, timeout[16];
	struct buf cfg = BUF_INIT, code = BUF_INIT, stderr_text = BUF_INIT, answer = BUF_INIT;
	size_t ulen = strlen(url);
	int rc = -1, exit_code = 0, status;
	char line[256];

	reply[0] = '\0';
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return error_input(err, "--submit %s: give the service's http:// or https:// URL", url);
	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return error_input(err, "--submit: the URL has a blank or control byte; give the service's URL");
	for (const char *c = token; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return error_input(err, "the token has a control byte (a newline?); set KCIDB_TOKEN to the token alone");
	if (!*token)
		return error_input(err, "the token is empty; set KCIDB_TOKEN");
	while (ulen > 8 && url[ulen - 1] == '/')
		ulen--;
	endpoint = ulen >= 7 && !strncmp(url + ulen - 7, "/submit", 7) ? xprintf("%.*s", (int)ulen, url)
									 : xprintf("%.*s/submit", (int)ulen, url);
	if (!mkdtemp(dir)) {
		free(endpoint);
		return error_set(err, "mkdtemp %s: %s", dir, strerror(errno));
	}
	body = xprintf("%s/body.json", dir);
	code_path = xprintf("%s/status", dir);
	err_path = xprintf("%s/stderr", dir);
	reply_path = xprintf("%s/reply", dir);
	config_line(&cfg, token);
	snprintf(timeout, sizeof(timeout), "%d", KCIDB_SUBMIT_TIMEOUT_S);
	{
		const char *argv[] = { "curl", "--silent", "--show-error", "--config", "-", "--request", "POST",
				       "--header", "Content-Type: application/json", "--data-binary", NULL,
				       "--output", reply_path, "--write-out", "%{http_code}", "--max-time", timeout,
				       "--proto", "=http,https", "--", endpoint, NULL };
		char *at_body = xprintf("@%s", body);

		argv[10] = at_body;
		if (!write_file_atomic(body, json, len, err) &&
		    !run_curl(argv, &cfg, code_path, err_path, &exit_code, err))
			rc = 0;
		free(at_body);
	}
	if (!rc) {
		struct error ignored;

		(void)!read_file(code_path, &code, &ignored);
		(void)!read_file(err_path, &stderr_text, &ignored);
		(void)!read_file(reply_path, &answer, &ignored);
		status = atoi(buf_str(&code));
		first_line(&answer, line, sizeof(line));
		if (exit_code) {
			first_line(&stderr_text, line, sizeof(line));
			rc = error_set(err, "POST %s: curl exited %d: %s", endpoint, exit_code, line);
		} else if (status >= 200 && status < 300) {
			snprintf(reply, cap, "%s", line);
		} else if (status == 401 || status == 403) {
			rc = error_input(err, "POST %s: HTTP %d (%s): the service refused the token; check KCIDB_TOKEN",
					 endpoint, status, line);
		} else if (status >= 400 && status < 500) {
			rc = error_input(err, "POST %s: HTTP %d: %s", endpoint, status, line);
		} else {
			rc = error_set(err, "POST %s: HTTP %d: %s", endpoint, status, line);
		}
	}
	remove_tree(dir);
	free(body);
	free(code_path);
	free(err_path);
	free(reply_path);
	free(endpoint);
	if (cfg.data)   /* the token: not left in freed memory */
		memset(cfg.data, 0, cfg.alloc);
	buf_free(&cfg);
	buf_free(&code);
	buf_free(&stderr_text);
	buf_free(&answer);
	return rc;
}
