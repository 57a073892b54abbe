/* numalab kcidb: a run, a matrix or a try as KCIDB JSON, written and/or submitted. */
#include "cli/command.h"
#include "cli/options.h"
#include "analysis/kcidb.h"
#include "drive/kcidb_submit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: numalab kcidb DIR [--output FILE] [--origin NAME] [--submit URL]\n"
	"\n"
	"Write the results under DIR (a run: results/RUN-ID; a matrix's or a try's\n"
	"--out) as KCIDB v5.3 JSON, KernelCI's results schema: one checkout per\n"
	"kernel source and patch set, one build per kernel, one test per result\n"
	"(path numalab.SUITE.CASE) and per metric (docs/kcidb.md).  Ids are stable:\n"
	"the same DIR gives the same ids.  With --submit the JSON is POSTed to\n"
	"URL/submit (kcidb-ng) with the token from $" KCIDB_TOKEN_ENV ".\n"
	"\n";

static const char tail[] =
	"\n"
	"Exit: 0 written (and submitted), whatever the results; 2 bad input, DIR\n"
	"not a result directory, or the service refused the submission (4xx);\n"
	"3 a file could not be read or written, curl failed, or the service\n"
	"failed (5xx).\n";

/* doc to file, "-" (or NULL): stdout. */
static int write_doc(const char *file, const struct buf *doc, struct error *err)
{
	if (file && strcmp(file, "-"))
		return write_file_atomic(file, buf_str((struct buf *)doc), doc->len, err);
	if (fwrite(buf_str((struct buf *)doc), 1, doc->len, stdout) != doc->len || fflush(stdout))
		return error_set(err, "stdout: %s", strerror(errno));
	return 0;
}

int command_kcidb_write(const char *cmd, const char *dir, const char *file)
{
	struct buf doc = BUF_INIT;
	struct error err;
	int rc = kcidb_export(dir, NULL, &doc, &err) || write_doc(file, &doc, &err) ? command_fail(cmd, &err)
										       : EXIT_PASS;

	buf_free(&doc);
	return rc;
}

int cmd_kcidb(int argc, char **argv)
{
	const char *output = NULL, *origin = KCIDB_ORIGIN_DEFAULT, *url = NULL, *token;
	struct buf doc = BUF_INIT;
	struct error err;
	int rc, first;
	const struct opt table[] = {
		OPT_STRING("output", &output, "FILE", "write the JSON to FILE (default: stdout, unless\n--submit)"),
		OPT_STRING("origin", &origin, "NAME",
			   "the CI system's name in KCIDB, [a-z0-9_]+ (default:\n" KCIDB_ORIGIN_DEFAULT ")"),
		OPT_STRING("submit", &url, "URL",
			   "POST the JSON to URL/submit with the token in\n$" KCIDB_TOKEN_ENV " (curl)"),
		OPT_END,
	};
	const struct opt_spec spec = { .name = "kcidb", .usage = usage, .opts = table, .tail = tail };

	if ((rc = command_options(&spec, argc, argv, &first)) >= 0)
		return rc;
	if (argc - first != 1)
		return command_usage_error("kcidb", "give one directory: a run, a matrix or a try output");
	token = getenv(KCIDB_TOKEN_ENV);
	if (url && (!token || !*token))
		return command_usage_error("kcidb", "--submit needs the service's token in $%s", KCIDB_TOKEN_ENV);
	if (kcidb_export(argv[first], origin, &doc, &err)) {
		buf_free(&doc);
		return command_fail("kcidb", &err);
	}
	rc = EXIT_PASS;
	/* With --submit alone, stdout stays quiet. */
	if ((output || !url) && write_doc(output, &doc, &err))
		rc = command_fail("kcidb", &err);
	if (rc == EXIT_PASS && url) {
		char reply[256];

		if (kcidb_submit(url, token, buf_str(&doc), doc.len, reply, sizeof(reply), &err))
			rc = command_fail("kcidb", &err);
		else
			fprintf(stderr, "numalab kcidb: submitted to %s: %s\n", url, reply);
	}
	buf_free(&doc);
	return rc;
}
