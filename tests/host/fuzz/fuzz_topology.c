/*
 * The topology parser over any text: an error or a topology, never a
 * crash; and a topology it accepts, written by topo_format(), parses back
 * to the same model (what `topo capture` and `topo show --format topo`
 * rely on).
 */
#include "fuzz.h"
#include "model/topology.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology topo, again;
	static char text[16384];
	struct topo_error err;
	size_t len;

	memset(&err, 0, sizeof(err));
	if (topo_parse("fuzz.topo", (const char *)data, size, &topo, &err)) {
		FUZZ_CHECK(err.msg[0] != '\0');
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		/* One line: the "FILE:LINE: what; fix" contract. */
		FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
		return 0;
	}
	FUZZ_CHECK(topo.nr_nodes > 0 && topo.nr_nodes <= TOPO_MAX_NODES);
	FUZZ_CHECK(topo_nr_cpus(&topo) >= 0);
	len = topo_format(&topo, text, sizeof(text));
	FUZZ_CHECK(len < sizeof(text));
	FUZZ_CHECK(topo_parse("fuzz.topo", text, len, &again, &err) == 0);
	for (int i = 0; i < TOPO_MAX_NODES; i++)
		again.nodes[i].line = topo.nodes[i].line;
	FUZZ_CHECK(memcmp(&topo, &again, sizeof(topo)) == 0);
	return 0;
}
