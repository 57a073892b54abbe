/* The matrix parser over any text: an error or a matrix whose cells expand and shard sanely. */
#include "fuzz.h"
#include "model/matrix.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this many combinations expansion is a memory test, not a parser test. */
#define FUZZ_MAX_COMBINATIONS 100000L

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct matrix m;
	struct matrix_cell *cells;
	struct error err;
	int n, kept;

	memset(&err, 0, sizeof(err));
	if (matrix_parse("fuzz.matrix", (const char *)data, size, &m, &err)) {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
		return 0;
	}
	FUZZ_CHECK(m.nr_topos > 0 && m.nr_kernels > 0 && m.nr_suites > 0);
	if ((long)m.nr_topos * m.nr_kernels * m.nr_suites <= FUZZ_MAX_COMBINATIONS / 100) {
		matrix_expand(&m, &cells, &n);
		for (int i = 0; i < n; i++) {
			FUZZ_CHECK(memchr(cells[i].id, '\0', sizeof(cells[i].id)) != NULL);
			FUZZ_CHECK(cells[i].rep >= 1 && cells[i].timeout_s >= 0);
		}
		kept = matrix_shard(cells, n, 1, 3);
		FUZZ_CHECK(kept >= 0 && kept <= n);
		free(cells);
	}
	matrix_free(&m);
	return 0;
}
