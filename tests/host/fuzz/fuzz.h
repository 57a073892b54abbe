/*
 * fuzz.h: shared by the libFuzzer targets (tests/host/fuzz/README.md).
 *
 * Each fuzz_NAME.c defines LLVMFuzzerTestOneInput() over one pure, in-memory
 * parse entry point; FUZZ_CHECK() turns a broken invariant into a crash the
 * fuzzer records, like a sanitizer report.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n",       \
				__FILE__, __LINE__, #cond);                     \
			abort();                                                \
		}                                                               \
	} while (0)

/* Guest text the parsers pass on must be printable: no byte < 0x20 or DEL. */
static inline int fuzz_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Printable text for a terminal or file: also tabs (lab/results/tap.h passes them on). */
static inline int fuzz_text(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 0;
	return 1;
}

/* The first byte picks where the stream is cut into two feed() calls. */
static inline size_t fuzz_split(const uint8_t **data, size_t *size)
{
	size_t at;

	if (!*size)
		return 0;
	at = **data;
	(*data)++;
	(*size)--;
	return at < *size ? at : *size;
}

#endif
