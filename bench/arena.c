/*
 * bench/arena.c: the memory plan of the model's table (model.h): every
 * activation and gradient placed in one arena by its lifetime, the flat
 * buffers allocated, and every layer's op planned on the backend
 * (backend.h). Reads and writes nothing but memory.
 */
#include <stdlib.h>

#include "head.h"
#include "lib.h"
#include "model.h"

/*
 * Activations and their gradients share one arena, each buffer placed by
 * its lifetime on a timeline of one step: forward of layer i at time i, the
 * loss at L, backward of layer i at 2L - i. A value lives from its producer
 * to its last reader (forward readers, and backward of the layers that need
 * it: convolution and fc weight gradients and batch norm read their input,
 * a batch norm with a ReLU its output, for the mask); a gradient lives from
 * its first writer (backward of its last consumer) to its producer's
 * backward. Buffers whose lifetimes overlap never share bytes; the rest is
 * greedy first fit, largest first.
 * The input image lives throughout: it is written once, at start-up.
 */
typedef struct span {
	size_t size, off;
	int start, end;
} span;

static int span_by_size(const void *a, const void *b)
{
	const span *x = *(span *const *)a, *y = *(span *const *)b;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : (x < y ? -1 : x > y);
}

static int span_by_off(const void *a, const void *b)
{
	const span *x = *(span *const *)a, *y = *(span *const *)b;
	return x->off < y->off ? -1 : x->off > y->off;
}

static size_t place(span *s, int n)
{
	span **order = xmalloc((size_t)n * sizeof *order);
	span **live = xmalloc((size_t)n * sizeof *live);
	for (int i = 0; i < n; i++)
		order[i] = &s[i];
	qsort(order, (size_t)n, sizeof *order, span_by_size);
	size_t top = 0;
	for (int i = 0; i < n; i++) {
		span *x = order[i];
		int nl = 0;
		for (int j = 0; j < i; j++)
			if (order[j]->start <= x->end && x->start <= order[j]->end)
				live[nl++] = order[j];
		qsort(live, (size_t)nl, sizeof *live, span_by_off);
		size_t off = 0;
		for (int j = 0; j < nl; j++) {
			if (live[j]->off >= off + x->size)
				break;
			if (live[j]->off + live[j]->size > off)
				off = live[j]->off + live[j]->size;
		}
		x->off = off;
		if (off + x->size > top)
			top = off + x->size;
	}
	free(order);
	free(live);
	return top;
}

static int is_bn(int kind)
{
	return kind == L_BN || kind == L_BN_RELU || kind == L_BN_ADD_RELU || kind == L_BN_ADD;
}

/* Does the layer's backward read its input? Not pooling's, flattening's,
 * dropout's (a redrawn mask) or the ArcFace head's (it keeps the
 * normalised embeddings). */
static int reads_x_backward(int kind)
{
	return kind != L_MAXPOOL && kind != L_AVGPOOL && kind != L_FLATTEN && kind != L_DROPOUT &&
	       kind != L_ARCFACE;
}

static size_t tbytes(const tensor *t)
{
	return (bk_tensor_bytes(t->kind, t->n, t->c, t->h, t->w) + 4095) & ~(size_t)4095;
}

void model_plan(model *m)
{
	int L = m->nlayers, T = m->ntensors;
	span v[MODEL_MAX_TENSORS], d[MODEL_MAX_TENSORS];
	for (int i = 0; i < T; i++) {
		tensor *t = &m->tensors[i];
		v[i] = (span){tbytes(t), 0, t->producer < 0 ? 0 : t->producer, t->last_use};
		d[i] = (span){tbytes(t), 0, 2 * L - t->last_use, 2 * L - t->producer};
	}
	v[m->input].end = 2 * L + 1;
	v[m->logits].end = 2 * L + 1; /* read after the step by --export */
	/* the logits' gradient: the loss's, or the ArcFace head's forward's */
	d[m->logits].start = m->cfg.head == HEAD_ARCFACE ? m->tensors[m->logits].producer : L;
	for (int i = 0; i < L; i++) {
		layer *l = &m->layers[i];
		int bwd = 2 * L - i;
		if (reads_x_backward(l->kind))
			v[l->x].end = v[l->x].end > bwd ? v[l->x].end : bwd;
		/* The ReLU mask of a batch norm's backward is best read from y
		 * (cuDNN's fused backward needs it): y is kept when that is
		 * nearly free, because a convolution reads it and keeps it
		 * until its own backward, just before ours; the stem's bn1,
		 * read by max pooling, is not kept through the whole step. */
		if (l->kind == L_BN_ADD_RELU ||
		    (l->kind == L_BN_RELU && m->layers[m->tensors[l->y].last_use].kind == L_CONV)) {
			l->keep_y = 1;
			v[l->y].end = v[l->y].end > bwd ? v[l->y].end : bwd;
		}
		/* Backward reaches a tensor's last reader first: it writes the
		 * gradient, the readers before it add to it (convolutions and
		 * batch norms, of their x). */
		if ((l->kind == L_CONV || is_bn(l->kind)) && l->x != m->input)
			l->accumulate = m->tensors[l->x].last_use != i;
		int in[2] = {l->x, l->x2};
		for (int j = 0; j < 2; j++)
			if (in[j] >= 0 && in[j] != m->input &&
			    !(j == 0 && (l->kind == L_CONV || is_bn(l->kind))) &&
			    m->tensors[in[j]].last_use != i)
				die("model: a gradient is first written by a layer that "
				    "cannot add");
	}
	span all[2 * MODEL_MAX_TENSORS];
	int n = 0, vi[MODEL_MAX_TENSORS], di[MODEL_MAX_TENSORS];
	for (int i = 0; i < T; i++) {
		vi[i] = n;
		all[n++] = v[i];
		di[i] = -1;
		if (i != m->input) {
			di[i] = n;
			all[n++] = d[i];
		}
	}
	m->acts_bytes = place(all, n);
	for (int i = 0; i < T; i++) {
		tensor *t = &m->tensors[i];
		t->off = all[vi[i]].off;
		if (di[i] >= 0)
			t->doff = all[di[i]].off;
	}

	m->params = bk_malloc(m->nparams * sizeof(float));
	m->grads = bk_malloc(m->nparams * sizeof(float));
	m->momentum = bk_malloc(m->nparams * sizeof(float));
	m->stats = bk_malloc(m->nstats * sizeof(float));
	m->labels = bk_malloc((size_t)m->batch * sizeof(int32_t));
	m->acts = bk_malloc(m->acts_bytes);
	for (int i = 0; i < m->ntensors; i++) {
		tensor *t = &m->tensors[i];
		t->t = bk_tensor_create(t->kind, t->n, t->c, t->h, t->w, (char *)m->acts + t->off);
		if (i != m->input)
			t->d = bk_tensor_create(t->kind, t->n, t->c, t->h, t->w,
						(char *)m->acts + t->doff);
	}

	for (int i = 0; i < m->nlayers; i++) {
		layer *l = &m->layers[i];
		tensor *x = &m->tensors[l->x], *y = &m->tensors[l->y];
		float *P = m->params, *G = m->grads;
		switch (l->kind) {
		case L_CONV:
			l->op = bk_conv_plan(x->t, y->t, x->d, y->d, l->k, l->stride, l->pad,
					     P + l->w, G + l->w, l->accumulate);
			break;
		case L_BN:
		case L_BN_RELU:
		case L_BN_ADD_RELU:
		case L_BN_ADD: {
			tensor *z = l->x2 >= 0 ? &m->tensors[l->x2] : NULL;
			int relu = l->kind == L_BN_RELU || l->kind == L_BN_ADD_RELU;
			l->op = bk_bn_plan(x->t, z ? z->t : NULL, y->t, x->d, z ? z->d : NULL, y->d,
					   relu, l->keep_y, l->accumulate, P + l->w, P + l->b,
					   G + l->w, G + l->b, m->stats + l->stats,
					   m->stats + l->stats + l->nw, 1e-5f, 0.1f);
			break;
		}
		case L_PRELU:
			l->op = bk_prelu_plan(x->t, y->t, x->d, y->d, P + l->w, G + l->w);
			break;
		case L_FLATTEN:
			l->op = bk_flatten_plan(x->t, y->t, x->d, y->d);
			break;
		case L_DROPOUT:
			l->op = bk_dropout_plan(x->t, y->t, x->d, y->d, m->cfg.dropout, m->cfg.seed,
						m->cfg.first_sample);
			break;
		case L_ARCFACE:
			l->op = head_plan(m, i);
			break;
		case L_MAXPOOL:
			l->op = bk_maxpool_plan(x->t, y->t, x->d, y->d, l->k, l->stride, l->pad);
			break;
		case L_AVGPOOL:
			l->op = bk_avgpool_plan(x->t, y->t, x->d, y->d);
			break;
		case L_FC:
			l->op = bk_fc_plan(x->t, y->t, x->d, y->d, P + l->w, P + l->b, G + l->w,
					   G + l->b);
			break;
		}
	}
}

void model_release(model *m)
{
	for (int i = 0; i < m->nlayers; i++)
		bk_op_destroy(m->layers[i].op);
	head_release(m);
	for (int i = 0; i < m->ntensors; i++) {
		bk_tensor_destroy(m->tensors[i].t);
		if (m->tensors[i].d)
			bk_tensor_destroy(m->tensors[i].d);
	}
	bk_free(m->params);
	bk_free(m->grads);
	bk_free(m->momentum);
	bk_free(m->stats);
	bk_free(m->labels);
	bk_free(m->acts);
}
