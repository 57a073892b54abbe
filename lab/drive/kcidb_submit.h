/*
 * kcidb_submit: a KCIDB JSON document sent to a kcidb-ng submission service
 * (docs/kcidb.md): `POST URL/submit` with `Authorization: Bearer TOKEN`
 * and the document as the body, as kcidb-ng documents it.
 *
 * Contract:
 * - The request is made by curl (make setup installs it), started with an
 *   argv (proc.h), never a shell.  The token reaches curl on its standard
 *   input as a config line, never in its argv (which any user can read in
 *   /proc) nor in a file; the body goes through a file in a private
 *   temporary directory, removed afterwards.
 * - url is the service's base URL (http:// or https://); "/submit" is
 *   added unless it already ends so.  A token with a control byte is
 *   refused (it would end the header).
 * - 0 when the service answered 2xx: its reply (first line, sanitised, cut
 *   to cap) in reply.  -1 with err otherwise: ERROR_INPUT for a bad URL or
 *   token and for 4xx replies (401/403: the token), ERROR_HARNESS when
 *   curl cannot run or connect, or the service answers 5xx; the message
 *   carries the HTTP status and the reply's first line.
 */
#ifndef LAB_KCIDB_SUBMIT_H
#define LAB_KCIDB_SUBMIT_H

#include <stddef.h>

#include "base/util.h"

#define KCIDB_SUBMIT_TIMEOUT_S 300

int kcidb_submit(const char *url, const char *token, const char *json, size_t len, char *reply, size_t cap,
		 struct error *err) LAB_MUST_CHECK;

#endif
