/*
 * Patches from the list (lab/model/patch.h): the two seed mails (an mm-commits
 * mail with akpm's "a/FILE~name" diff, a reply quoting a patch at depth 2
 * with review comments between its hunks), the recipes' format-patch files
 * alone and as one mbox series with a cover letter, a quote trimmed mid-hunk,
 * and a quoted patch really applied with `patch` after unquoting.
 */
#include "model/patch.h"
#include "base/proc.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WI "kernels/patches/wi-carryover/"
#define WI1 WI "0001-mm-mempolicy-simplify-weighted-interleave-bulk-alloc-calculations.patch"
#define WI2 WI "0002-mm-mempolicy-skip-extra-call-to-__alloc_pages_bulk-in-weighted-interleave.patch"
#define KHP "kernels/patches/khugepaged-numa/0001-mm-khugepaged-sched-to-numa-node-when-collapse-huge-page.patch"

static int parse_file(const char *path, struct patch_set *set, struct error *err)
{
	struct buf text = BUF_INIT;
	int rc = read_file(path, &text, err);

	if (!rc)
		rc = patch_parse(path, buf_str(&text), text.len, set, err);
	buf_free(&text);
	return rc;
}

static int count_lines(const struct buf *b, char first)
{
	int n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == first && (i == 0 || b->data[i - 1] == '\n');
	return n;
}

UNIT_TEST(seed001_quoted_reply_gives_the_depth_2_patch_without_the_review)
{
	struct patch_set set;
	struct error err;

	CHECK_INT(parse_file("tests/host/unit/patches/seed001-quoted-reply.mail", &set, &err), 0);
	CHECK_INT(set.nr, 1);
	if (set.nr != 1)
		return;
	CHECK_STR(set.items[0].subject, "mm/khugepaged: sched to numa node when collapse huge page");
	CHECK_INT(set.items[0].quote_depth, 2);
	CHECK_INT(set.items[0].nr_files, 1);
	CHECK_STR(set.items[0].files[0].path, "mm/khugepaged.c");
	CHECK_INT(set.items[0].files[0].nr_hunks, 4);
	CHECK_STR(set.items[0].files[0].hunks[1].header,
		  "@@ -1066,6 +1067,7 @@ static void collapse_huge_page(struct mm_struct *mm,");
	CHECK_INT(set.items[0].files[0].hunks[3].old_start, 2380);
	/* No quote marks and none of David's comments survive; 10 insertions as its diffstat says. */
	CHECK(!strchr(buf_str(&set.items[0].diff), '>'));
	CHECK(!strstr(buf_str(&set.items[0].diff), "Christmas"));
	CHECK_INT(count_lines(&set.items[0].diff, '+'), 10 + 1);   /* + the "+++" line */
	CHECK_INT(strlen(set.items[0].sha256), 64);
	patch_set_free(&set);
}

UNIT_TEST(seed000_mm_commits_mail_takes_the_in_body_subject_and_stops_at_akpms_underscore)
{
	struct patch_set set;
	struct error err;

	CHECK_INT(parse_file("tests/host/unit/patches/seed000-mm-commits.mail", &set, &err), 0);
	CHECK_INT(set.nr, 1);
	if (set.nr != 1)
		return;
	CHECK_STR(set.items[0].subject,
		  "mm/mempolicy: skip extra call to __alloc_pages_bulk in weighted interleave");
	CHECK_INT(set.items[0].quote_depth, 0);
	CHECK_STR(set.items[0].files[0].path, "mm/mempolicy.c");
	CHECK_INT(set.items[0].files[0].nr_hunks, 6);
	CHECK(!strstr(buf_str(&set.items[0].diff), "Patches currently in -mm"));
	CHECK(!strstr(buf_str(&set.items[0].diff), "\n_\n"));
	patch_set_free(&set);
}

UNIT_TEST(format_patch_files_of_the_recipes)
{
	static const struct { const char *path, *subject, *file; int hunks; } cases[] = {
		{ WI1, "mm/mempolicy: simplify weighted interleave bulk alloc calculations", "mm/mempolicy.c", 1 },
		{ WI2, "mm/mempolicy: skip extra call to __alloc_pages_bulk in weighted interleave", "mm/mempolicy.c", 6 },
		{ KHP, "mm/khugepaged: sched to numa node when collapse huge page", "mm/khugepaged.c", 4 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct patch_set set;
		struct error err;

		CHECK_INT(parse_file(cases[i].path, &set, &err), 0);
		CHECK_INT(set.nr, 1);
		if (set.nr != 1)
			continue;
		CHECK_STR(set.items[0].subject, cases[i].subject);
		CHECK_INT(set.items[0].line, 1);
		CHECK_STR(set.items[0].files[0].path, cases[i].file);
		CHECK_INT(set.items[0].files[0].nr_hunks, cases[i].hunks);
		/* The diff starts at "diff --git" and ends before the signature. */
		CHECK(!strncmp(buf_str(&set.items[0].diff), "diff --git a/mm/", 16));
		CHECK(!strstr(buf_str(&set.items[0].diff), "\n-- \n"));
		patch_set_free(&set);
	}
}

UNIT_TEST(mbox_series_skips_the_cover_letter_keeps_the_order)
{
	struct buf a = BUF_INIT, b = BUF_INIT, mbox = BUF_INIT;
	struct patch_set set;
	struct error err;

	CHECK_INT(read_file(WI1, &a, &err), 0);
	CHECK_INT(read_file(WI2, &b, &err), 0);
	buf_addstr(&mbox, "From git@z Thu Jan  1 00:00:00 1970\nSubject: [PATCH v2 0/2] mm/mempolicy: "
		   "bulk\nFrom: A <a@b>\n\nA cover letter.\n\n");
	buf_add(&mbox, a.data, a.len);
	buf_addstr(&mbox, "\n");
	buf_add(&mbox, b.data, b.len);
	CHECK_INT(patch_parse("series.mbx", buf_str(&mbox), mbox.len, &set, &err), 0);
	CHECK_INT(set.nr, 2);
	if (set.nr == 2) {
		CHECK_STR(set.items[0].subject, "mm/mempolicy: simplify weighted interleave bulk alloc calculations");
		CHECK_STR(set.items[1].subject, "mm/mempolicy: skip extra call to __alloc_pages_bulk in weighted interleave");
		CHECK(set.items[1].line > set.items[0].line);
		CHECK(strcmp(set.items[0].sha256, set.items[1].sha256));
	}
	patch_set_free(&set);
	buf_free(&a);
	buf_free(&b);
	buf_free(&mbox);
}

UNIT_TEST(a_quote_trimmed_mid_hunk_is_an_error_naming_the_hunk)
{
	const char *text = "Re: [PATCH] x: y\n\n> diff --git a/f.c b/f.c\n> --- a/f.c\n> +++ b/f.c\n"
			   "> @@ -1,4 +1,5 @@ int f(void)\n>  a\n> +b\n>  c\n\nThis looks wrong.\n";
	struct patch_set set;
	struct error err;

	CHECK_INT(patch_parse("reply.mail", text, strlen(text), &set, &err), -1);
	CHECK(strstr(err.msg, "reply.mail:1:") != NULL);
	CHECK(strstr(err.msg, "f.c hunk #1 (@@ -1,4 +1,5 @@ int f(void))") != NULL);
	CHECK(strstr(err.msg, "cut short") != NULL);
}

UNIT_TEST(a_mail_without_a_patch_is_an_error)
{
	const char *text = "Subject: Re: [PATCH] x\n\n> looks good\n\nAcked-by: me\n";
	struct patch_set set;
	struct error err;

	CHECK_INT(patch_parse("ack.mail", text, strlen(text), &set, &err), -1);
	CHECK(strstr(err.msg, "ack.mail: no patch in it") != NULL);
}

UNIT_TEST(explain_names_each_failed_hunk_with_its_header)
{
	struct patch_set set;
	struct error err;
	char why[1024];
	const char *out = "checking file mm/khugepaged.c\nHunk #1 succeeded at 130 (offset 14 lines).\n"
			  "Hunk #2 FAILED at 1066.\nHunk #3 FAILED at 1079.\nHunk #4 FAILED at 2380.\n"
			  "3 out of 4 hunks FAILED\n";

	CHECK_INT(parse_file("tests/host/unit/patches/seed001-quoted-reply.mail", &set, &err), 0);
	patch_explain_failure(set.nr ? &set.items[0] : NULL, out, why, sizeof(why));
	CHECK_STR(why, "mm/khugepaged.c hunk #2 (@@ -1066,6 +1067,7 @@ static void collapse_huge_page("
		  "struct mm_struct *mm,) FAILED at line 1066, mm/khugepaged.c hunk #3 (@@ -1079,6 "
		  "+1081,13 @@ static void collapse_huge_page(struct mm_struct *mm,) FAILED at line 1079, "
		  "mm/khugepaged.c hunk #4 (@@ -2380,6 +2389,7 @@ int start_stop_khugepaged(void)) "
		  "FAILED at line 2380");
	patch_explain_failure(NULL, "can't find file to patch at input line 5\nPerhaps you used the "
			      "wrong -p\n--------------------------\n|--- a/mm/x.c\n|+++ b/mm/x.c\n", why,
			      sizeof(why));
	CHECK_STR(why, "mm/x.c: no such file in this source");
	patch_explain_failure(NULL, "patch: **** malformed patch at line 7: @@\n", why, sizeof(why));
	CHECK_STR(why, "patch: **** malformed patch at line 7: @@");
	patch_set_free(&set);
}

/* Unquoting is exact: the patch quoted twice over, with comments between, applies for real. */
UNIT_TEST(a_quoted_patch_applies_after_unquoting)
{
	char *dir = unit_scratch("patch"), out[4096];
	const char *text = "Subject: Re: [PATCH 1/1] f: add b\n\nOn Monday X wrote:\n"
			   "> On Sunday Y wrote:\n>> diff --git a/f.c b/f.c\n>> --- a/f.c\n>> +++ b/f.c\n"
			   ">> @@ -1,3 +1,4 @@\n>>  a\n>\n> Why b?\n>\n>> +b\n>>\n>>  c\n> \n> Thanks\n";
	struct patch_set set;
	struct error err;

	CHECK_INT(patch_parse("reply.mail", text, strlen(text), &set, &err), 0);
	if (set.nr != 1)
		return;
	CHECK_STR(buf_str(&set.items[0].diff), "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n"
		  "@@ -1,3 +1,4 @@\n a\n+b\n \n c\n");
	char *file = xprintf("%s/f.c", dir), *diff = xprintf("%s/p.diff", dir);
	CHECK_INT(write_file_atomic(file, "a\n\nc\n", 5, &err), 0);
	CHECK_INT(write_file_atomic(diff, set.items[0].diff.data, set.items[0].diff.len, &err), 0);
	const char *argv[] = { "patch", "-p1", "--batch", "-d", dir, "-i", diff, NULL };
	CHECK_INT(proc_capture(argv, out, sizeof(out), &err), 0);
	struct buf got = BUF_INIT;
	CHECK_INT(read_file(file, &got, &err), 0);
	CHECK_STR(buf_str(&got), "a\nb\n\nc\n");
	buf_free(&got);
	patch_set_free(&set);
	remove_tree(dir);
	free(dir);
	free(file);
	free(diff);
}

UNIT_MAIN(UNIT_CASE(seed001_quoted_reply_gives_the_depth_2_patch_without_the_review),
	  UNIT_CASE(seed000_mm_commits_mail_takes_the_in_body_subject_and_stops_at_akpms_underscore),
	  UNIT_CASE(format_patch_files_of_the_recipes),
	  UNIT_CASE(mbox_series_skips_the_cover_letter_keeps_the_order),
	  UNIT_CASE(a_quote_trimmed_mid_hunk_is_an_error_naming_the_hunk),
	  UNIT_CASE(a_mail_without_a_patch_is_an_error),
	  UNIT_CASE(explain_names_each_failed_hunk_with_its_header),
	  UNIT_CASE(a_quoted_patch_applies_after_unquoting))
