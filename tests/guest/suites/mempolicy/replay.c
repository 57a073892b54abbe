/* replay (replay.h): a step trace against the reference model. */
#include <stdio.h>
#include <string.h>

#include "replay.h"

void replay_init(struct replay *r, const unsigned weights[WI_MAX_NODES])
{
	memset(r, 0, sizeof(*r));
	wi_model_init(&r->m, weights);
	r->last_node = -1;
}

unsigned replay_position(const struct wi_model *m)
{
	unsigned remaining, pos = 0;
	int node;

	wi_model_next(m, &node, &remaining);
	if (node < 0)
		return 0;
	for (int i = 0; i < node; i++)
		pos += m->weights[i];
	return pos + m->weights[node] - remaining;
}

void replay_format_counts(const unsigned long *count, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < WI_MAX_NODES && len < size; i++)
		if (count[i])
			len += (size_t)snprintf(buf + len, size - len, "%sN%d=%lu", len ? " " : "", i, count[i]);
}

int replay_event(struct replay *r, const struct step_event *e)
{
	char w[96], g[96];
	int want;

	switch (e->kind) {
	case STEP_PAGE:
		if (r->in_batch) {
			r->inner_steps++;
			return 0;
		}
		want = wi_model_page(&r->m);
		r->steps++;
		r->last_node = e->node;
		if (want != e->node) {
			snprintf(r->why, sizeof(r->why), "single-page step %ld went to node %d, model: node %d",
				 r->steps, e->node, want);
			return -1;
		}
		return 0;
	case STEP_BULK:
		if (r->in_batch) {
			snprintf(r->why, sizeof(r->why), "batch %ld asked for %ld pages too few", r->batches,
				 r->batch_left);
			return -1;
		}
		r->batches++;
		r->in_batch = e->nr > 0;
		r->batch_left = e->nr;
		memset(r->want, 0, sizeof(r->want));
		memset(r->got, 0, sizeof(r->got));
		wi_model_bulk(&r->m, (unsigned long)e->nr, r->want);
		return 0;
	case STEP_NODE_RUN:
		if (!r->in_batch)
			return 0;           /* a bulk allocation of some other path */
		if (e->node < 0 || e->node >= WI_MAX_NODES || e->nr < 0) {
			snprintf(r->why, sizeof(r->why), "a run of %ld pages on node %d", e->nr, e->node);
			return -1;
		}
		r->got[e->node] += (unsigned long)e->nr;
		r->batch_left -= e->nr;
		if (r->batch_left > 0)
			return 0;
		r->in_batch = 0;
		for (int i = 0; i < WI_MAX_NODES; i++)
			r->placed[i] += r->want[i];
		if (!memcmp(r->want, r->got, sizeof(r->want)))
			return 0;
		replay_format_counts(r->want, w, sizeof(w));
		replay_format_counts(r->got, g, sizeof(g));
		snprintf(r->why, sizeof(r->why), "batch %ld: kernel asked %s, model %s", r->batches, g, w);
		return -1;
	case STEP_FILE:
		return 0;
	}
	return 0;
}
