/*
 * test_cread: the C reader (model/cread.h) on the kernel-style fixture of
 * the mutant tests (tests/host/unit/mutate/sample.c) and small snippets:
 * tokens, brackets, function definitions, the variables a function declares.
 */
#include "unit.h"
#include "base/util.h"
#include "model/cread.h"

#include <stdlib.h>
#include <string.h>

#define SAMPLE "tests/host/unit/mutate/sample.c"

UNIT_TEST(functions_found)
{
	size_t len = 0;
	char *text = unit_slurp(SAMPLE, &len);
	struct c_function *f;
	struct buf got = BUF_INIT;
	int nr;

	CHECK(text != NULL);
	if (!text)
		return;
	c_functions(text, len, &f, &nr);
	for (int i = 0; i < nr; i++)
		buf_addf(&got, "%s %d %d %d\n", f[i].name, f[i].name_line, f[i].open_line, f[i].close_line);
	/* The initializers at file scope are no functions; __must_hold() is skipped; #else's twin is read. */
	CHECK_STR(buf_str(&got), "pick_node 11 12 30\nfind_target 33 35 45\nfind_target 47 48 50\n");
	buf_free(&got);
	free(f);
	free(text);
}

/* The tokens of s as "KIND:TEXT@LINE " (I N S P). */
static void tokens(const char *s, size_t len, struct buf *out)
{
	struct ctoks v = { 0 };

	ctoks_read(s, len, &v);
	for (int i = 0; i < v.nr; i++)
		buf_addf(out, "%c:%.*s@%d ", "INSP"[v.t[i].kind], (int)v.t[i].len, s + v.t[i].off, v.t[i].line);
	ctoks_free(&v);
}

UNIT_TEST(tokens_skip_comments_strings_and_preprocessor)
{
	static const char s[] = "#define A(x) \\\n  (x)\n/* a < b */ x <<= 'c';// y\ns = \"q\\\"\" && p->n++;";
	struct buf got = BUF_INIT;

	tokens(s, sizeof(s) - 1, &got);
	CHECK_STR(buf_str(&got), "I:x@3 P:<<=@3 S:'c'@3 P:;@3 I:s@4 P:=@4 S:\"q\\\"\"@4 P:&&@4 I:p@4 "
		  "P:->@4 I:n@4 P:++@4 P:;@4 ");
	buf_free(&got);
	/* Unterminated comment and string at the very end: nothing read past len. */
	char *exact = xmalloc(6);
	memcpy(exact, "a /* b", 6);
	tokens(exact, 6, &got);
	CHECK_STR(buf_str(&got), "I:a@1 ");
	buf_free(&got);
	memcpy(exact, "b \"xyz", 6);
	tokens(exact, 6, &got);
	CHECK_STR(buf_str(&got), "I:b@1 S:\"xyz@1 ");
	buf_free(&got);
	free(exact);
}

UNIT_TEST(brackets_match_both_ways)
{
	static const char s[] = "f(a[1], (b)) { }";
	struct ctoks v = { 0 };

	ctoks_read(s, sizeof(s) - 1, &v);
	CHECK(ctok_is(s, &v.t[1], "("));
	CHECK_INT(ctok_match_forward(s, &v, 1), 10);
	CHECK_INT(ctok_match_backward(s, &v, 10), 1);
	CHECK_INT(ctok_match_forward(s, &v, 3), 5);
	CHECK_INT(ctok_match_forward(s, &v, 11), 12);
	ctoks_free(&v);
	ctoks_read("g((", 3, &v);
	CHECK_INT(ctok_match_forward("g((", &v, 1), -1);
	ctoks_free(&v);
}

UNIT_TEST(variables_of_a_function)
{
	static const char s[] = "static int f(struct page *page, int n, void (*cb)(void))\n{\n"
				"\tunsigned long a = 1, *b, c[4];\n\tu64 x;\n\tx = a * n;\n}\n";
	struct ctoks v = { 0 };
	struct c_extent *e;
	struct c_vars *sv = xcalloc(1, sizeof(*sv));
	struct buf got = BUF_INIT;
	int nr;

	ctoks_read(s, sizeof(s) - 1, &v);
	c_extents(s, &v, &e, &nr);
	CHECK_INT(nr, 1);
	CHECK_STR(e[0].f.name, "f");
	c_read_params(s, &v, &e[0], sv);
	/* Statements of the body, each up to its ';'. */
	for (int k = e[0].body_open + 1, a = k; k < e[0].body_close; k++)
		if (ctok_is(s, &v.t[k], ";")) {
			if (c_looks_like_declaration(s, &v, a, k))
				c_read_declaration(s, &v, a, k, 2, sv);
			a = k + 1;
		}
	for (int i = 0; i < sv->nr; i++)
		buf_addf(&got, "%s:%s:%d ", sv->v[i].name, sv->v[i].type, sv->v[i].depth);
	/* The function pointer and the array are not understood: left out; "x = a * n" is no declaration. */
	CHECK_STR(buf_str(&got), "page:struct page *:1 n:int:1 a:unsigned long:2 b:unsigned long *:2 x:u64:2 ");
	buf_free(&got);
	free(e);
	free(sv);
	ctoks_free(&v);
}

UNIT_MAIN(UNIT_CASE(functions_found),
	  UNIT_CASE(tokens_skip_comments_strings_and_preprocessor),
	  UNIT_CASE(brackets_match_both_ways),
	  UNIT_CASE(variables_of_a_function))
