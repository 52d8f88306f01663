/*
 * bench/head.c: the ArcFace head's plan and walks (head.h): the backend's
 * ops (backend.h's bk_arcface_*) with the collectives of comm.h between
 * them, each marked for --profile (profile.h). Reads and writes nothing but
 * memory; --describe's lines to the stream it is given.
 */
#include <stdio.h>
#include <stdlib.h>

#include "comm.h"
#include "head.h"
#include "lib.h"
#include "profile.h"
#include "shard.h"

bk_op *head_plan(model *m, int li)
{
	const model_config *c = &m->cfg;
	layer *l = &m->layers[li];
	tensor *x = &m->tensors[l->x], *y = &m->tensors[l->y];
	struct head *h = xcalloc(1, sizeof *h);
	bk_arcface_shape *s = &h->shape;
	s->batch = c->batch;
	s->rows = c->batch * c->shards;
	s->row0 = c->batch * c->shard;
	s->e = l->cin;
	s->cr = l->cout;
	s->c0 = shard_first(c->classes, c->shards, c->shard);
	s->margin = c->margin;
	s->scale = c->scale;
	size_t re = (size_t)s->rows * (size_t)s->e;
	h->xall = bk_malloc(re * sizeof(float));
	h->dxall = bk_malloc(re * sizeof(float));
	h->dxn = c->shards > 1 ? bk_malloc((size_t)s->batch * (size_t)s->e * sizeof(float))
			       : h->dxall;
	h->labels = c->shards > 1 ? bk_malloc((size_t)s->rows * sizeof(int32_t)) : m->labels;
	h->stats = bk_malloc(2 * (size_t)s->rows * sizeof(float));
	m->head = h;
	return bk_arcface_plan(s, x->t, x->d, y->t, y->d, m->params + l->w, m->grads + l->w,
			       h->xall, h->dxall, h->dxn, h->labels, h->stats);
}

void head_release(model *m)
{
	struct head *h = m->head;
	if (!h)
		return;
	bk_free(h->xall);
	bk_free(h->dxall);
	if (h->dxn != h->dxall)
		bk_free(h->dxn);
	if (h->labels != m->labels)
		bk_free(h->labels);
	bk_free(h->stats);
	free(h);
	m->head = NULL;
}

void head_forward(model *m, int li, float scale)
{
	struct head *h = m->head;
	bk_arcface_shape *s = &h->shape;
	int split = m->cfg.shards > 1;
	bk_op *op = m->layers[li].op;
	prof_at(li, PK_HEAD);
	bk_arcface_embed(op);
	if (split) {
		prof_at(li, PK_HEAD_COMM);
		comm_allgather(h->xall, (size_t)s->batch * (size_t)s->e);
		comm_allgather_i32(m->labels, h->labels, (size_t)s->batch);
	}
	prof_at(li, PK_FC_FWD);
	bk_arcface_logits(op);
	if (split) {
		prof_at(li, PK_HEAD_COMM);
		comm_allreduce_max(h->stats, (size_t)s->rows);
	}
	prof_at(li, PK_LOSS);
	bk_arcface_expsum(op);
	if (split) {
		prof_at(li, PK_HEAD_COMM);
		comm_allreduce_sum(h->stats + s->rows, (size_t)s->rows);
		prof_at(li, PK_LOSS);
	}
	bk_arcface_loss(op, scale);
}

void head_backward(model *m, int li)
{
	struct head *h = m->head;
	bk_op *op = m->layers[li].op;
	prof_at(li, PK_FC_BWD);
	bk_arcface_backward(op);
	if (m->cfg.shards > 1) {
		prof_at(li, PK_HEAD_COMM);
		comm_reduce_scatter(h->dxall, h->dxn, (size_t)h->shape.batch * (size_t)h->shape.e);
	}
	prof_at(li, PK_HEAD);
	bk_arcface_backward_x(op);
}
