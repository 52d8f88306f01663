/*
 * bench/cost.c: FLOPs and bytes of each op of a step (cost.h), and the
 * names of the kinds of op (profile.h). Reads and writes nothing but memory.
 */
#include "cost.h"
#include "profile.h"

static const char *kind_names[PK_COUNT] = {"conv-fwd", "conv-bwd-data",  "conv-bwd-weights",
					   "bn-fwd",   "bn-bwd",         "pool-fwd",
					   "pool-bwd", "fc-fwd",         "fc-bwd",
					   "loss",     "update",         "reorder",
					   "dx-add",   "allreduce-wait", "other",
					   "act-fwd",  "act-bwd",        "head",
					   "head-comm"};

const char *prof_kind_name(int kind)
{
	return kind >= 0 && kind < PK_COUNT ? kind_names[kind] : "?";
}

static double elems(const tensor *t)
{
	return (double)t->n * t->c * t->h * t->w;
}

op_cost cost_of(const model *m, int li, int kind, int elsize)
{
	op_cost c = {0.0, 0.0, 0};
	double B = m->batch;
	if (li == PROF_NONE) {
		if (kind == PK_LOSS) /* logits in, their gradient out, fp32 */
			c.bytes = 4.0 * 2 * B * m->classes;
		else if (kind == PK_UPDATE) /* w, g, momentum in; w, momentum out */
			c.bytes = 4.0 * 5 * (double)m->nparams;
		return c;
	}
	const layer *l = &m->layers[li];
	const tensor *x = &m->tensors[l->x], *y = &m->tensors[l->y];
	double nx = elems(x), ny = elems(y), e = elsize;
	if (l->kind == L_ARCFACE && kind == PK_LOSS) { /* logits in, their gradient out */
		c.bytes = 4.0 * 2 * ny;
		return c;
	}
	switch (kind) {
	case PK_CONV_FWD:
	case PK_CONV_BWD_DATA:
	case PK_CONV_BWD_WEIGHTS:
		c.flop = 2.0 * (double)l->nw * y->h * y->w * B;
		c.bytes = e * (nx + ny) + 4.0 * (double)l->nw;
		c.compute = 1;
		break;
	case PK_ACT_FWD: /* x in, y out */
		c.bytes = (x->kind == BK_MATRIX ? 4.0 : e) * (nx + ny);
		break;
	case PK_ACT_BWD: /* x (PReLU) and dy in, dx out */
		c.bytes = (x->kind == BK_MATRIX ? 4.0 * 2 : e * 3) * nx;
		break;
	case PK_BN_FWD: /* x (and the residual) in, y out */
		c.bytes = e * (nx * (l->x2 >= 0 ? 2 : 1) + ny);
		break;
	case PK_BN_BWD: /* x and dy in, dx (and the residual's dz) out */
		c.bytes = e * (2 * nx + ny * (l->x2 >= 0 ? 2 : 1));
		break;
	case PK_POOL_FWD:
	case PK_POOL_BWD:
		c.bytes = e * nx + (y->kind == BK_MATRIX ? 4.0 : e) * ny;
		break;
	case PK_FC_FWD:                     /* w, b, x in; y out; fp32 */
		if (l->kind == L_ARCFACE) { /* every rank's rows against the shard */
			c.flop = 2.0 * y->n * l->cin * l->cout;
			c.bytes = 4.0 * ((double)l->nw + (double)y->n * l->cin + ny);
			break;
		}
		c.flop = 2.0 * B * l->cin * l->cout;
		c.bytes = 4.0 * ((double)l->nw + (double)l->nb + nx + ny);
		break;
	case PK_FC_BWD: /* w, x, dy in; dw, db, dx out */
		if (l->kind == L_ARCFACE) {
			c.flop = 4.0 * y->n * l->cin * l->cout;
			c.bytes = 4.0 * (2.0 * (double)l->nw + 2.0 * y->n * l->cin + ny);
			break;
		}
		c.flop = 4.0 * B * l->cin * l->cout;
		c.bytes = 4.0 * (2.0 * (double)l->nw + (double)l->nb + 2 * nx + ny);
		break;
	}
	return c;
}

static void put(int *ls, int *kind, int *n, int max, int l, int k)
{
	if (*n < max) {
		ls[*n] = l;
		kind[*n] = k;
	}
	(*n)++;
}

int step_ops(const model *m, int *ls, int *kind, int max)
{
	int n = 0;
	static const int fwd[L_KINDS] = {PK_CONV_FWD, PK_BN_FWD,   PK_BN_FWD,  PK_BN_FWD,
					 PK_POOL_FWD, PK_POOL_FWD, PK_FC_FWD,  PK_ACT_FWD,
					 PK_BN_FWD,   PK_REORDER,  PK_ACT_FWD, PK_FC_FWD};
	static const int bwd[L_KINDS] = {PK_CONV_BWD_WEIGHTS, PK_BN_BWD,   PK_BN_BWD,  PK_BN_BWD,
					 PK_POOL_BWD,         PK_POOL_BWD, PK_FC_BWD,  PK_ACT_BWD,
					 PK_BN_BWD,           PK_REORDER,  PK_ACT_BWD, PK_FC_BWD};
	for (int i = 0; i < m->nlayers; i++) {
		put(ls, kind, &n, max, i, fwd[m->layers[i].kind]);
		if (m->layers[i].kind == L_ARCFACE) /* the loss is the head's */
			put(ls, kind, &n, max, i, PK_LOSS);
	}
	if (m->cfg.head != HEAD_ARCFACE)
		put(ls, kind, &n, max, PROF_NONE, PK_LOSS);
	for (int i = m->nlayers - 1; i >= 0; i--) {
		const layer *l = &m->layers[i];
		put(ls, kind, &n, max, i, bwd[l->kind]);
		if (l->kind == L_CONV && l->x != m->input)
			put(ls, kind, &n, max, i, PK_CONV_BWD_DATA);
	}
	put(ls, kind, &n, max, PROF_NONE, PK_UPDATE);
	return n < max ? n : max;
}
