/* mirror: which archive of the host's apt sources the lab downloads from. */
#include <stdlib.h>

#include "unit.h"
#include "host/mirror.h"

UNIT_TEST(deb822_skips_other_repositories_and_security)
{
	static const char text[] =
		"Types: deb\n"
		"URIs: https://deb.nodesource.com/node_20.x\n"
		"Suites: nodistro\n"
		"Components: main\n"
		"\n"
		"Types: deb\n"
		"URIs: http://security.example/debian-security\n"
		"Suites: bookworm-security\n"
		"\n"
		"Types: deb deb-src\n"
		"URIs: http://mirror.example/debian http://other.example/debian\n"
		"Suites: bookworm bookworm-updates\n"
		"Components: main\n";
	char out[256] = "";

	CHECK_INT(mirror_from_sources(text, 1, "bookworm", out, sizeof(out)), 0);
	CHECK_STR(out, "http://mirror.example/debian");
	CHECK_INT(mirror_from_sources(text, 1, "trixie", out, sizeof(out)), -1);
}

UNIT_TEST(deb822_last_stanza_without_blank_line)
{
	char out[256] = "";

	CHECK_INT(mirror_from_sources("Types: deb\nURIs: file:///srv/debian\nSuites: bookworm", 1,
				      "bookworm", out, sizeof(out)), 0);
	CHECK_STR(out, "file:///srv/debian");
	CHECK_INT(mirror_from_sources("Types: deb-src\nURIs: http://x/debian\nSuites: bookworm\n", 1,
				      "bookworm", out, sizeof(out)), -1);
}

UNIT_TEST(one_line_format_with_options)
{
	static const char text[] =
		"# a comment\n"
		"deb-src http://src.example/debian bookworm main\n"
		"deb http://security.example/debian-security bookworm-security main\n"
		"deb [arch=amd64 signed-by=/k.gpg] http://proxy.example:3142/debian bookworm main contrib\n";
	char out[256] = "";

	CHECK_INT(mirror_from_sources(text, 0, "bookworm", out, sizeof(out)), 0);
	CHECK_STR(out, "http://proxy.example:3142/debian");
	CHECK_INT(mirror_from_sources("", 0, "bookworm", out, sizeof(out)), -1);
}

UNIT_TEST(environment_wins)
{
	char out[256] = "";
	struct error err;

	setenv("NUMALAB_MIRROR", "http://local.example/debian", 1);
	CHECK_INT(host_debian_mirror(out, sizeof(out), &err), 0);
	CHECK_STR(out, "http://local.example/debian");
	unsetenv("NUMALAB_MIRROR");
}


/* The snapshot archive: snapshot.debian.org unless NUMALAB_SNAPSHOT says otherwise. */
UNIT_TEST(snapshot_base)
{
	char out[256];

	unsetenv("NUMALAB_SNAPSHOT");
	host_snapshot_base(out, sizeof(out));
	CHECK_STR(out, "https://snapshot.debian.org");
	setenv("NUMALAB_SNAPSHOT", "", 1);
	host_snapshot_base(out, sizeof(out));
	CHECK_STR(out, "https://snapshot.debian.org");
	setenv("NUMALAB_SNAPSHOT", "http://127.0.0.1:8080//", 1);
	host_snapshot_base(out, sizeof(out));
	CHECK_STR(out, "http://127.0.0.1:8080");
	unsetenv("NUMALAB_SNAPSHOT");
}

UNIT_MAIN(UNIT_CASE(deb822_skips_other_repositories_and_security),
	  UNIT_CASE(deb822_last_stanza_without_blank_line), UNIT_CASE(one_line_format_with_options),
	  UNIT_CASE(environment_wins), UNIT_CASE(snapshot_base))
