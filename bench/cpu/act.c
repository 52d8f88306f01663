/*
 * bench/cpu/act.c: the oneDNN backend's ops of IResNet-50 that ResNet50
 * has none of: PReLU (oneDNN's prelu primitive, one slope per channel),
 * flatten (a reorder from the activations' layout to NCHW) and dropout
 * (ours: oneDNN 2.6 has none; margin.h's mask, OpenMP).
 */
#include <omp.h>

#include "internal.h"
#include "margin.h"

/* The slopes [c] as oneDNN wants them: dims 1 x c x 1 x 1 in the layout it
 * picks for the activations' (for whole blocks of channels the same bytes
 * as plain [c]; else plain). */
static dnnl_memory_desc_t slopes_md(const_dnnl_primitive_desc_t pd, int arg, int c)
{
	const dnnl_memory_desc_t *md =
		dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
	if (dnnl_memory_desc_get_size(md) != (size_t)c * sizeof(float))
		die("%s:%d: prelu: oneDNN wants %zu bytes of slopes for %d channels", __FILE__,
		    __LINE__, dnnl_memory_desc_get_size(md), c);
	return *md;
}

bk_op *bk_prelu_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *a,
		     float *da)
{
	bk_op *op = op_new(OP_PRELU);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	int c = x->c;
	dnnl_memory_desc_t any = md4(1, c, 1, 1, dnnl_f32, dnnl_format_tag_any);
	dnnl_prelu_desc_t d;
	DNNL_CHECK(dnnl_prelu_forward_desc_init(&d, dnnl_forward_training, &x->md, &any));
	dnnl_primitive_desc_t fpd = pd_create(&d, NULL, NULL, "prelu fwd");
	dnnl_memory_desc_t wmd = slopes_md(fpd, DNNL_ARG_WEIGHTS, c);
	op->m_w = mem_over(&wmd, a);
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->fwd, DNNL_ARG_WEIGHTS, op->m_w);
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);
	DNNL_CHECK(dnnl_prelu_backward_desc_init(&d, &x->md, &wmd, &dx->md, &wmd));
	dnnl_primitive_desc_t bpd = pd_create(&d, NULL, fpd, "prelu bwd");
	dnnl_memory_desc_t dwmd = slopes_md(bpd, DNNL_ARG_DIFF_WEIGHTS, c);
	op->m_dw = mem_over(&dwmd, da);
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->bwd, DNNL_ARG_WEIGHTS, op->m_w);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, dy->mem);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dx->mem);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_WEIGHTS, op->m_dw);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_prelu_forward(bk_op *op)
{
	prim_run(&op->fwd);
}

void bk_prelu_backward(bk_op *op)
{
	prim_run(&op->bwd);
}

/* The matrix y [n][c h w] viewed as n x c x h x w, plain fp32. */
bk_op *bk_flatten_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	if (y->kind != BK_MATRIX || (size_t)y->c != (size_t)x->c * x->h * x->w)
		die("%s:%d: flatten plan: y must be [n][c h w]", __FILE__, __LINE__);
	bk_op *op = op_new(OP_FLATTEN);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	dnnl_memory_desc_t plain = md4(x->n, x->c, x->h, x->w, dnnl_f32, dnnl_nchw);
	op->m_tmp = mem_over(&plain, y->data);
	op->m_w = mem_over(&plain, dy->data);
	reorder_make(&op->r_out, x->mem, &x->md, op->m_tmp, &plain);
	reorder_make(&op->r_in, op->m_w, &plain, dx->mem, &dx->md);
	return op;
}

void bk_flatten_forward(bk_op *op)
{
	prim_run(&op->r_out);
}

void bk_flatten_backward(bk_op *op)
{
	prim_run(&op->r_in);
}

bk_op *bk_dropout_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, float p,
		       uint64_t seed, long first_sample)
{
	if (x->kind != BK_MATRIX || y->kind != BK_MATRIX || x->c != y->c || p < 0 || p >= 1)
		die("%s:%d: dropout plan: x and y matrices of one shape, p in [0, 1)", __FILE__,
		    __LINE__);
	bk_op *op = op_new(OP_DROPOUT);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->drop_p = p;
	op->drop_seed = seed;
	op->drop_first = first_sample;
	return op;
}

/* out = in / (1 - p) where kept, else 0: forward and backward alike. */
static void dropout_apply(const bk_op *op, const float *in, float *out)
{
	int n = op->x->n, c = op->x->c;
	float p = op->drop_p, s = 1.0f / (1.0f - p);
	uint64_t key = dropout_key(op->drop_seed, (uint64_t)op->drop_step);
#pragma omp parallel for
	for (int i = 0; i < n; i++) {
		uint64_t sample = (uint64_t)(op->drop_first + i);
		for (int j = 0; j < c; j++) {
			size_t k = (size_t)i * c + j;
			out[k] = dropout_keep_at(key, sample, (uint32_t)j, p) ? in[k] * s : 0.0f;
		}
	}
}

void bk_dropout_forward(bk_op *op, long step)
{
	op->drop_step = step;
	dropout_apply(op, op->x->data, op->y->data);
}

void bk_dropout_backward(bk_op *op)
{
	dropout_apply(op, op->dy->data, op->dx->data);
}
