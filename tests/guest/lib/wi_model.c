#include "wi_model.h"

#include <string.h>

void wi_model_init(struct wi_model *m, const unsigned weights[WI_MAX_NODES])
{
	memcpy(m->weights, weights, sizeof(m->weights));
	m->node = -1;
	m->remaining = 0;
}

/* next_node_in(): the next node of the mask after node, wrapping; -1 if none. */
static int next_node(const struct wi_model *m, int node)
{
	for (int i = 1; i <= WI_MAX_NODES; i++) {
		int n = (node + i + WI_MAX_NODES) % WI_MAX_NODES;

		if (node < 0)
			n = i - 1;
		if (m->weights[n])
			return n;
	}
	return -1;
}

void wi_model_next(const struct wi_model *m, int *node, unsigned *remaining)
{
	if (m->remaining && m->node >= 0 && m->weights[m->node]) {
		*node = m->node;
		*remaining = m->remaining;
		return;
	}
	*node = next_node(m, m->node);
	*remaining = *node >= 0 ? m->weights[*node] : 0;
}

int wi_model_page(struct wi_model *m)
{
	int node;
	unsigned remaining;

	wi_model_next(m, &node, &remaining);
	if (node < 0)
		return -1;
	m->node = node;
	m->remaining = remaining - 1;
	return node;
}

unsigned long wi_model_round(const struct wi_model *m)
{
	unsigned long sum = 0;

	for (int i = 0; i < WI_MAX_NODES; i++)
		sum += m->weights[i];
	return sum;
}

void wi_model_bulk(struct wi_model *m, unsigned long n, unsigned long count[WI_MAX_NODES])
{
	unsigned long round = wi_model_round(m);

	if (!round)
		return;
	/* Whole rounds leave the state as it was: take them at once, then page by page. */
	for (int i = 0; i < WI_MAX_NODES; i++)
		count[i] += (n / round) * m->weights[i];
	for (n %= round; n; n--) {
		int node = wi_model_page(m);

		count[node]++;
	}
}
