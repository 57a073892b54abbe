#include "model/recipe.h"
#include "base/lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Bumped when the build procedure changes what a key means, per arch so a
 * change to one arch's images leaves the other's built kernels valid.
 * 2: every mm selftest, vmtests.plan; 3: x86 kernels are the PVH vmlinux,
 * not bzImage; 4 (x86_64): that vmlinux without its symbol table.
 */
static const char *key_format(const char *arch)
{
	return strcmp(arch, "x86_64") ? "numalab-kbuild 3" : "numalab-kbuild 4";
}
/*
 * The work tree's key (with_patches 0) has its own: a change to what a
 * finished kernel holds (the selftests) leaves src/ and obj/ reusable.
 */
#define RECIPE_WORK_FORMAT "numalab-kbuild 1"

static int valid_name(const char *s)
{
	if (!*s || strlen(s) >= 64)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-' && *s != '_')
			return 0;
	return 1;
}

int recipe_spec_parse(const char *spec, char *name, size_t cap,
		      char extras[][64], int max_extras, int *nr_extras, struct error *err)
{
	const char *plus = strchr(spec, '+');
	size_t len = plus ? (size_t)(plus - spec) : strlen(spec);

	*nr_extras = 0;
	if (len == 0 || len >= cap)
		return error_input(err, "kernel '%s': give a recipe name before any '+'", spec);
	memcpy(name, spec, len);
	name[len] = '\0';
	while (plus) {
		const char *next = strchr(plus + 1, '+');
		size_t n = next ? (size_t)(next - plus - 1) : strlen(plus + 1);

		if (*nr_extras == max_extras || n == 0 || n >= 64)
			return error_input(err, "kernel '%s': '+NAME' adds kernels/config/NAME.config; "
					   "at most %d, names of 1..63 characters", spec, max_extras);
		memcpy(extras[*nr_extras], plus + 1, n);
		extras[*nr_extras][n] = '\0';
		if (!valid_name(extras[(*nr_extras)++]))
			return error_input(err, "kernel '%s': fragment name '%s' must be [a-z0-9_-]",
					   spec, extras[*nr_extras - 1]);
		plus = next;
	}
	return 0;
}

/* dir of path + "/" + rel, or rel when absolute. */
static void relative_to(const char *path, const char *rel, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');

	if (rel[0] == '/' || !slash)
		snprintf(out, cap, "%s", rel);
	else
		snprintf(out, cap, "%.*s/%s", (int)(slash - path), path, rel);
}

struct parse_ctx {
	const char *path, *root;
	int line;
	struct recipe *r;
	struct error *err;
};

static int parse_source(struct parse_ctx *c, char **tok, int n)
{
	struct recipe *r = c->r;

	if (r->source_line)
		return error_input(c->err, "%s:%d: a second source (the first is on line %d); keep one",
				   c->path, c->line, r->source_line);
	r->source_line = c->line;
	if (n == 3 && !strcmp(tok[1], "pinned") && strlen(tok[2]) < 64) {
		r->source = RECIPE_SOURCE_PINNED;
		snprintf(r->source_ref, sizeof(r->source_ref), "%s", tok[2]);
	} else if (n == 4 && !strcmp(tok[1], "git")) {
		r->source = RECIPE_SOURCE_GIT;
		relative_to(c->path, tok[2], r->source_ref, sizeof(r->source_ref));
		snprintf(r->rev, sizeof(r->rev), "%s", tok[3]);
	} else if (n == 3 && !strcmp(tok[1], "tarball")) {
		r->source = RECIPE_SOURCE_TARBALL;
		relative_to(c->path, tok[2], r->source_ref, sizeof(r->source_ref));
	} else {
		return error_input(c->err, "%s:%d: source takes `pinned NAME`, `git DIR REV` or "
				   "`tarball FILE`", c->path, c->line);
	}
	return 0;
}

static int parse_line(struct parse_ctx *c, char **tok, int n)
{
	struct recipe *r = c->r;

	if (!strcmp(tok[0], "source"))
		return parse_source(c, tok, n);
	if (!strcmp(tok[0], "base")) {
		if (n != 2 || (strcmp(tok[1], "allnoconfig") && strcmp(tok[1], "defconfig")))
			return error_input(c->err, "%s:%d: base is allnoconfig or defconfig", c->path, c->line);
		snprintf(r->base, sizeof(r->base), "%s", tok[1]);
		return 0;
	}
	if (!strcmp(tok[0], "config")) {
		if (n != 2 || !valid_name(tok[1]))
			return error_input(c->err, "%s:%d: config takes one fragment name [a-z0-9_-] "
					   "(kernels/config/NAME.config)", c->path, c->line);
		if (r->nr_configs == RECIPE_MAX_CONFIGS)
			return error_input(c->err, "%s:%d: more than %d config lines", c->path, c->line,
					   RECIPE_MAX_CONFIGS);
		snprintf(r->configs[r->nr_configs++], 64, "%s", tok[1]);
		return 0;
	}
	if (!strcmp(tok[0], "patch")) {
		struct recipe_patch *p;

		if (n != 2)
			return error_input(c->err, "%s:%d: patch takes one file (under %s/ or absolute)",
					   c->path, c->line, RECIPE_PATCH_DIR);
		if (r->nr_patches == RECIPE_MAX_PATCHES)
			return error_input(c->err, "%s:%d: more than %d patches", c->path, c->line,
					   RECIPE_MAX_PATCHES);
		p = &r->patches[r->nr_patches++];
		if (tok[1][0] == '/')
			snprintf(p->path, sizeof(p->path), "%s", tok[1]);
		else
			snprintf(p->path, sizeof(p->path), "%s/%s/%s", c->root, RECIPE_PATCH_DIR, tok[1]);
		p->line = c->line;
		return 0;
	}
	return error_input(c->err, "%s:%d: unknown key '%s'; use source, base, config or patch",
			   c->path, c->line, tok[0]);
}

int recipe_parse(const char *path, const char *text, size_t len, const char *root,
		 struct recipe *r, struct error *err)
{
	struct parse_ctx c = { path, root, 0, r, err };
	struct lines l;
	char *line, *tok[LINES_MAX_WORDS];
	int rc, nt = 0;
	const char *slash = strrchr(path, '/'), *dot;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(r->name, sizeof(r->name), "%s", slash ? slash + 1 : path);
	if ((dot = strrchr(r->name, '.')))
		r->name[dot - r->name] = '\0';
	snprintf(r->base, sizeof(r->base), "allnoconfig");
	lines_init(&l, path, text, len);
	while ((rc = lines_next(&l, &line)) > 0 && (nt = lines_words(&l, line, tok)) > 0) {
		c.line = l.nr;
		if (parse_line(&c, tok, nt))
			return -1;
	}
	if (rc < 0 || nt < 0)
		return error_input(err, "%s", l.msg);
	if (!r->source_line)
		return error_input(err, "%s: no source line; add e.g. `source pinned linux-7.2`", path);
	if (!r->nr_configs)
		return error_input(err, "%s: no config line; add e.g. `config lab`", path);
	return 0;
}

static int check_files(const char *root, struct recipe *r, struct error *err)
{
	for (int i = 0; i < r->nr_configs; i++) {
		char *frag = xprintf("%s/%s/%s.config", root, RECIPE_CONFIG_DIR, r->configs[i]);
		int ok = file_exists(frag);

		free(frag);
		if (!ok)
			return error_input(err, "%s: config fragment %s/%s.config does not exist; "
					   "fragments: ls %s/", r->path, RECIPE_CONFIG_DIR, r->configs[i],
					   RECIPE_CONFIG_DIR);
	}
	for (int i = 0; i < r->nr_patches; i++) {
		struct recipe_patch *p = &r->patches[i];

		if (sha256_file(p->path, p->sha256, err)) {
			error_as_input(err);   /* a file the recipe names: its writer's to fix */
			return error_prefix(err, "%s:%d: patch", r->path, p->line);
		}
	}
	return 0;
}

int recipe_load(const char *root, const char *spec, struct recipe *r, struct error *err)
{
	char name[64], extras[4][64], *path;
	struct buf text = BUF_INIT;
	int nr_extras, rc;

	if (recipe_spec_parse(spec, name, sizeof(name), extras, 4, &nr_extras, err))
		return -1;
	path = xprintf("%s/%s/%s.recipe", root, RECIPE_DIR, name);
	if (!file_exists(path)) {
		error_input(err, "no recipe %s", path);
		rc = 1;
	} else {
		rc = read_file(path, &text, err) ? error_as_input(err)
		     : recipe_parse(path, text.data ? text.data : "", text.len, root, r, err) ? -1 : 0;
	}
	for (int i = 0; rc == 0 && i < nr_extras; i++) {
		if (r->nr_configs == RECIPE_MAX_CONFIGS)
			rc = error_input(err, "%s: too many config fragments with '%s'", path, spec);
		else if (strlen(extras[i]) >= sizeof(r->configs[0]))
			rc = error_input(err, "'%s': config fragment name '%s' longer than %zu characters; "
					 "rename it", spec, extras[i], sizeof(r->configs[0]) - 1);
		else
			memcpy(r->configs[r->nr_configs++], extras[i], strlen(extras[i]) + 1);
	}
	if (rc == 0 && check_files(root, r, err))
		rc = -1;
	buf_free(&text);
	free(path);
	return rc;
}

void recipe_fragments(const struct recipe *r, const char *root, const char *arch,
		      struct strvec *out)
{
	for (int i = 0; i < r->nr_configs; i++) {
		char *arch_frag = xprintf("%s/%s/%s-%s.config", root, RECIPE_CONFIG_DIR,
					  r->configs[i], arch);

		strvec_pushf(out, "%s/%s/%s.config", root, RECIPE_CONFIG_DIR, r->configs[i]);
		if (file_exists(arch_frag))
			strvec_push(out, arch_frag);
		free(arch_frag);
	}
}

int recipe_key_text(const struct recipe *r, const char *root, const char *arch,
		    const char *source_id, const char *compiler, int with_patches,
		    struct buf *out, struct error *err)
{
	struct strvec frags = STRVEC_INIT;
	int rc = 0;

	buf_addf(out, "format: %s\nsource: %s\narch: %s\ncompiler: %s\nbase: %s\n",
		 with_patches ? key_format(arch) : RECIPE_WORK_FORMAT, source_id, arch, compiler, r->base);
	recipe_fragments(r, root, arch, &frags);
	for (size_t i = 0; i < frags.nr && !rc; i++) {
		char hex[65];
		const char *slash = strrchr(frags.items[i], '/');

		rc = sha256_file(frags.items[i], hex, err);
		if (!rc)
			buf_addf(out, "config: %s sha256:%s\n", slash + 1, hex);
	}
	for (int i = 0; with_patches && i < r->nr_patches && !rc; i++) {
		const char *slash = strrchr(r->patches[i].path, '/');

		buf_addf(out, "patch: %s sha256:%s\n", r->patches[i].name[0] ? r->patches[i].name :
			 slash ? slash + 1 : r->patches[i].path, r->patches[i].sha256);
	}
	strvec_clear(&frags);
	return rc;
}

int recipe_key(const struct recipe *r, const char *root, const char *arch, const char *source_id,
	       const char *compiler, int with_patches, char hex[17], struct error *err)
{
	struct buf text = BUF_INIT;
	struct sha256 s;
	unsigned char digest[32];
	char full[65];
	int rc = recipe_key_text(r, root, arch, source_id, compiler, with_patches, &text, err);

	if (!rc) {
		sha256_init(&s);
		sha256_update(&s, text.data, text.len);
		sha256_final(&s, digest);
		sha256_hex(digest, full);
		memcpy(hex, full, 16);
		hex[16] = '\0';
	}
	buf_free(&text);
	return rc;
}
