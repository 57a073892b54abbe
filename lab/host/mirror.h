/*
 * mirror: the Debian archive this host's apt is configured with, for every
 * download the lab makes (pinned kernels, the LoongArch toolchain root,
 * disk images), so a local mirror or proxy serves the lab too.  No archive
 * name is fixed in the lab.
 *
 * Contract:
 *  - $NUMALAB_MIRROR wins when set (a URL).
 *  - Else the first archive in the *.sources of /etc/apt/sources.list.d (deb822,
 *    files in name order), then in /etc/apt/sources.list, that serves the
 *    host's release (VERSION_CODENAME of /etc/os-release) and is not its
 *    security archive (SUITE-security): third-party repositories and the
 *    security archive carry no kernels or toolchains.
 *  - -1 with err naming the files read and the variable to set when none is
 *    found.
 */
#ifndef LAB_MIRROR_H
#define LAB_MIRROR_H

#include <stddef.h>

#include "base/util.h"

int host_debian_mirror(char *out, size_t cap, struct error *err) LAB_MUST_CHECK;

/*
 * The parser underneath: the archive URL in the text of one sources file
 * (deb822 when deb822 is set, else one-line `deb` format) serving codename;
 * 0 with out filled, -1 when the text names none.
 */
int mirror_from_sources(const char *text, int deb822, const char *codename, char *out, size_t cap);

/*
 * The snapshot archive (every package version Debian ever published, by
 * hash; pin.h falls back to it when the mirror has dropped a pinned
 * version): $NUMALAB_SNAPSHOT when set (a URL serving snapshot.debian.org's
 * /mr/ and /file/ paths: a proxy, a local copy, a test's server), else
 * HOST_SNAPSHOT_DEFAULT.  Any trailing '/' is dropped.
 */
#define HOST_SNAPSHOT_DEFAULT "https://snapshot.debian.org"
void host_snapshot_base(char *out, size_t cap);

#endif
