/* The topology parser over any text: an error or a topology, never a crash. */
#include "fuzz.h"
#include "model/topology.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology topo;
	struct topo_error err;

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
	return 0;
}
