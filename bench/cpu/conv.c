/*
 * bench/cpu/conv.c: the op record of the oneDNN backend and its
 * convolutions (forward, backward data, backward weights).
 *
 * Each convolution's master weights, and its gradient, are kept in the flat
 * fp32 buffers in the layout its backward-weights kernel writes (with
 * AVX-512 OIhw16i16o, Ohwi16o for the stem), not PyTorch's OIHW: the
 * gradient is written in place, fp32's forward reads the weights as they
 * are, and what is left is one reorder a step into backward data's layout
 * (and amp's cast to bf16 for forward). A layout with padding is not kept
 * (the slot holds exactly the weights): such a convolution stays OIHW and
 * reorders as before. The host sees OIHW: bk_to_device and bk_to_host turn
 * the weights on the way (conv_after_upload, conv_to_host), as the CUDA
 * backend does for its KRSC weights.
 *
 * Each direction runs the algorithm conv_algo.c chooses for it (direct, or
 * oneDNN's Winograd, whose kernels read and write the weights in the same
 * blocked layout); a backward descriptor's hint is the forward descriptor
 * of its own algorithm.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "internal.h"
#include "profile.h"

/* ---- ops ---- */

enum { MAX_CONVS = 256 };
/* The convolutions whose master weights are not OIHW (op->wmd). */
static bk_op *native_ops[MAX_CONVS];
static int nnative;

static size_t weights_of(const bk_op *op)
{
	return dnnl_memory_desc_get_size(&op->wmd) / sizeof(float);
}

bk_op *op_new(int kind)
{
	bk_op *op = xcalloc(1, sizeof *op);
	op->kind = kind;
	return op;
}

static void mem_free(dnnl_memory_t *m)
{
	if (*m)
		DNNL_CHECK(dnnl_memory_destroy(*m));
	*m = NULL;
}

void bk_op_destroy(bk_op *op)
{
	if (!op)
		return;
	prim *ps[] = {&op->fwd,  &op->bwd,   &op->bwdw, &op->r_wf,  &op->r_wb,
		      &op->r_dw, &op->r_img, &op->r_wx, &op->r_wdy, &op->add,
		      &op->mask, &op->r_out, &op->r_in, &op->dxadd};
	for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
		prim_free(ps[i]);
	buf *bs[] = {&op->img, &op->wx, &op->wdy,    &op->mean,
		     &op->var, &op->ws, &op->pooled, &op->dpooled};
	for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++)
		buf_free(bs[i]);
	dnnl_memory_t *ms[] = {&op->m_w,   &op->m_dw,    &op->m_tmp,  &op->m_wf,     &op->m_wb,
			       &op->m_dwb, &op->m_gamma, &op->m_beta, &op->m_dgamma, &op->m_dbeta};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		mem_free(ms[i]);
	for (int i = 0; i < 4; i++)
		mem_free(&op->view[i]);
	free(op->seg_lo);
	free(op->seg_hi);
	free(op->fc_t);
	free(op->aux);
	for (int i = 0; i < nnative; i++)
		if (native_ops[i] == op)
			native_ops[i] = native_ops[--nnative];
	free(op);
}

/* 1 when op's weights (j 0, in the parameter buffer) or their gradient (j 1,
 * in the gradient buffer) lie whole in [a, a + bytes); their offset in *off. */
static int weight_slot(const bk_op *op, int j, const char *a, size_t bytes, size_t *off)
{
	const char *p = (const char *)(j ? (const float *)op->dw : op->w);
	if (p < a || p + dnnl_memory_desc_get_size(&op->wmd) > a + bytes)
		return 0;
	*off = (size_t)(p - a);
	return 1;
}

void conv_after_upload(void *dev, size_t bytes)
{
	float *tmp = NULL;
	size_t cap = 0, off;

	for (int i = 0; i < nnative; i++) {
		const bk_op *op = native_ops[i];
		for (int j = 0; j < 2; j++) {
			if (!weight_slot(op, j, dev, bytes, &off))
				continue;
			size_t n = weights_of(op);
			if (n > cap)
				tmp = xrealloc(tmp, (cap = n) * sizeof *tmp);
			float *w = (float *)((char *)dev + off);
			memcpy(tmp, w, n * sizeof *tmp);
			reorder_now(&op->wplain, tmp, &op->wmd, w);
		}
	}
	free(tmp);
}

void conv_to_host(void *host, const void *dev, size_t bytes)
{
	size_t off;

	for (int i = 0; i < nnative; i++) {
		const bk_op *op = native_ops[i];
		for (int j = 0; j < 2; j++)
			if (weight_slot(op, j, dev, bytes, &off))
				reorder_now(&op->wmd, (const char *)dev + off, &op->wplain,
					    (char *)host + off);
	}
}

/* a += b in place (both of layout md), with a ReLU after it if relu. */
void add_make(prim *p, dnnl_memory_t a, dnnl_memory_t b, const dnnl_memory_desc_t *md, int relu,
	      const char *what)
{
	dnnl_primitive_attr_t attr = user_scratch_attr();
	if (relu) {
		dnnl_post_ops_t po;
		DNNL_CHECK(dnnl_post_ops_create(&po));
		DNNL_CHECK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0));
		DNNL_CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
		DNNL_CHECK(dnnl_post_ops_destroy(po));
	}
	dnnl_binary_desc_t ad;
	DNNL_CHECK(dnnl_binary_desc_init(&ad, dnnl_binary_add, md, md, md));
	dnnl_primitive_desc_t pd = pd_create(&ad, attr, NULL, what);
	DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
	prim_make(p, pd);
	prim_arg(p, DNNL_ARG_SRC_0, a);
	prim_arg(p, DNNL_ARG_SRC_1, b);
	prim_arg(p, DNNL_ARG_DST, a);
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
}

/* The backward-weights primitive of algorithm alg (hint: the forward one of
 * the same algorithm); where oneDNN has no optimised kernel for the
 * activations' layouts (AVX2: nChw8c layer4 at small images, whose
 * reference kernel would take most of the step), one whose source and
 * gradient layouts oneDNN picks, with reorders
 * into them (op->r_wx, op->r_wdy). Sets *wxm, *wdym to what it reads. */
static dnnl_primitive_desc_t bwd_weights_pd(bk_op *op, const conv_shape *cs, dnnl_alg_kind_t alg,
					    dnnl_memory_t xmem, const_dnnl_primitive_desc_t hint,
					    dnnl_memory_t *wxm, dnnl_memory_t *wdym)
{
	bk_tensor *dy = op->dy;

	*wxm = xmem;
	*wdym = dy->mem;
	dnnl_primitive_desc_t wpd = conv_pd(cs, DIR_BWD_WEIGHTS, alg, hint, CONV_PD_MUST);
	if (!is_ref(wpd))
		return wpd;
	conv_shape any = *cs;
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&any.x, 4, cs->x.dims, cs->x.data_type,
						dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&any.dy, 4, dy->md.dims, dy->md.data_type,
						dnnl_format_tag_any));
	dnnl_primitive_desc_t apd = conv_pd(&any, DIR_BWD_WEIGHTS, alg, hint, CONV_PD_MUST);
	if (is_ref(apd)) {
		DNNL_CHECK(dnnl_primitive_desc_destroy(apd));
		return wpd;
	}
	DNNL_CHECK(dnnl_primitive_desc_destroy(wpd));
	buf_make(&op->wx, query_md(apd, dnnl_query_src_md));
	buf_make(&op->wdy, query_md(apd, dnnl_query_diff_dst_md));
	reorder_make(&op->r_wx, xmem, &cs->x, op->wx.m, &op->wx.md);
	reorder_make(&op->r_wdy, dy->mem, &dy->md, op->wdy.m, &op->wdy.md);
	*wxm = op->wx.m;
	*wdym = op->wdy.m;
	return apd;
}

/* The weights as a primitive of layout md reads them: the master weights
 * themselves when md is their layout, else *m over the shared cpu.wtmp, filled
 * by the reorder r each step. */
static dnnl_memory_t weights_for(bk_op *op, const dnnl_memory_desc_t *md, dnnl_memory_t *m, prim *r)
{
	if (dnnl_memory_desc_equal(md, &op->wmd))
		return op->m_w;
	cpu.wtmp = temp_grow(cpu.wtmp, &cpu.wtmp_size, dnnl_memory_desc_get_size(md));
	*m = mem_over(md, cpu.wtmp);
	reorder_make(r, op->m_w, &op->wmd, *m, md);
	return *m;
}

bk_op *bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		    int pad, const float *w, float *dw, int accumulate)
{
	bk_op *op = op_new(OP_CONV);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->w = w;
	op->dw = dw;
	op->accumulate = accumulate && dx;
	conv_shape cs = {.y = y->md, .dy = dy->md, .s = {stride, stride}, .p = {pad, pad}, .k = k};
	dnnl_dims_t wd = {y->c, x->c, k, k};
	op->wplain = md4(y->c, x->c, k, k, dnnl_f32, dnnl_oihw);
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&cs.w, 4, wd, cpu.act_dt, dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&cs.dw, 4, wd, dnnl_f32, dnnl_format_tag_any));
	if (dx) {
		cs.dx = dx->md;
		cs.has_dx = 1;
	}

	/* the image is fp32 NCHW; under amp or nhwc it is converted once per step */
	cs.x = x->md;
	dnnl_memory_t xmem = x->mem;
	if (x->kind == BK_IMAGE && (cpu.act_dt != dnnl_f32 || cpu.act_tag == dnnl_nhwc)) {
		/* the stem runs on ref:any for an NCHW source and NHWC output */
		cs.x = md4(x->n, x->c, x->h, x->w, cpu.act_dt,
			   cpu.act_tag == dnnl_nhwc ? dnnl_nhwc : dnnl_nchw);
		buf_make(&op->img, &cs.x);
		xmem = op->img.m;
		reorder_make(&op->r_img, x->mem, &x->md, xmem, &cs.x);
	}

	/* each direction's algorithm; a backward descriptor's hint is the
	 * forward one of its own algorithm */
	dnnl_alg_kind_t alg[NDIR];
	const dnnl_memory_t mems[4] = {xmem, y->mem, dx ? dx->mem : NULL, dy->mem};
	conv_algo_choose(&cs, mems, alg);
	dnnl_primitive_desc_t fpd = conv_pd(&cs, DIR_FWD, alg[DIR_FWD], NULL, CONV_PD_MUST),
			      other = NULL;
	const_dnnl_primitive_desc_t hint[NDIR];
	for (int i = DIR_BWD_DATA; i < NDIR; i++) {
		if (alg[i] != alg[DIR_FWD] && !other)
			other = conv_pd(&cs, DIR_FWD, alg[i], NULL, CONV_PD_QUIET);
		hint[i] = alg[i] == alg[DIR_FWD] ? fpd : other;
	}
	dnnl_memory_t wxm, wdym;
	dnnl_primitive_desc_t wpd = bwd_weights_pd(op, &cs, alg[DIR_BWD_WEIGHTS], xmem,
						   hint[DIR_BWD_WEIGHTS], &wxm, &wdym);

	/* the master weights in the weight gradient's layout (the weight
	 * gradient is fp32 whatever the compute type), if it has no padding */
	const dnnl_memory_desc_t *dwmd = query_md(wpd, dnnl_query_diff_weights_md);
	op->wmd = op->wplain;
	if (dnnl_memory_desc_get_size(dwmd) == dnnl_memory_desc_get_size(&op->wplain) &&
	    !dnnl_memory_desc_equal(dwmd, &op->wplain)) {
		if (nnative == MAX_CONVS)
			die("conv plan: more than %d convolutions", MAX_CONVS);
		op->wmd = *dwmd;
		native_ops[nnative++] = op;
	}
	op->m_w = mem_over(&op->wmd, w);
	op->m_dw = mem_over(&op->wmd, dw);

	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, xmem);
	prim_arg(&op->fwd, DNNL_ARG_WEIGHTS,
		 weights_for(op, query_md(fpd, dnnl_query_weights_md), &op->m_wf, &op->r_wf));
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);

	if (dx) {
		dnnl_primitive_desc_t bpd = conv_pd(&cs, DIR_BWD_DATA, alg[DIR_BWD_DATA],
						    hint[DIR_BWD_DATA], CONV_PD_MUST);
		dnnl_memory_t dxm = dx->mem;
		if (op->accumulate) {
			/* no sum post-op on backward data: compute into a
			 * shared temporary, then dx += it */
			size_t need = dnnl_memory_desc_get_size(&dx->md);
			cpu.acc_tmp = temp_grow(cpu.acc_tmp, &cpu.acc_tmp_size, need);
			op->m_tmp = mem_over(&dx->md, cpu.acc_tmp);
			dxm = op->m_tmp;
			add_make(&op->add, dx->mem, op->m_tmp, &dx->md, 0, "conv dx add");
		}
		prim_make(&op->bwd, bpd);
		prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, dy->mem);
		prim_arg(&op->bwd, DNNL_ARG_WEIGHTS,
			 weights_for(op, query_md(bpd, dnnl_query_weights_md), &op->m_wb,
				     &op->r_wb));
		prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dxm);
		DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	}

	dnnl_memory_t dwm = op->m_dw;
	if (!dnnl_memory_desc_equal(dwmd, &op->wmd)) {
		cpu.dwtmp = temp_grow(cpu.dwtmp, &cpu.dwtmp_size, dnnl_memory_desc_get_size(dwmd));
		op->m_dwb = mem_over(dwmd, cpu.dwtmp);
		dwm = op->m_dwb;
		reorder_make(&op->r_dw, op->m_dwb, dwmd, op->m_dw, &op->wmd);
	}
	prim_make(&op->bwdw, wpd);
	prim_arg(&op->bwdw, DNNL_ARG_SRC, wxm);
	prim_arg(&op->bwdw, DNNL_ARG_DIFF_DST, wdym);
	prim_arg(&op->bwdw, DNNL_ARG_DIFF_WEIGHTS, dwm);
	DNNL_CHECK(dnnl_primitive_desc_destroy(wpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	if (other)
		DNNL_CHECK(dnnl_primitive_desc_destroy(other));
	return op;
}

void bk_conv_forward(bk_op *op)
{
	prof_kind(PK_REORDER);
	if (op->r_img.p)
		prim_run(&op->r_img);
	if (op->r_wf.p) {
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_wf, cpu.wtmp));
		prim_run(&op->r_wf);
	}
	prof_kind(PK_CONV_FWD);
	prim_run(&op->fwd);
}

void bk_conv_backward_data(bk_op *op)
{
	if (!op->bwd.p)
		return;
	prof_kind(PK_REORDER);
	if (op->r_wb.p) {
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_wb, cpu.wtmp));
		prim_run(&op->r_wb);
	}
	if (op->m_tmp)
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_tmp, cpu.acc_tmp));
	prof_kind(PK_CONV_BWD_DATA);
	prim_run(&op->bwd);
	if (op->add.p) {
		prof_kind(PK_DX_ADD);
		prim_run(&op->add);
	}
}

void bk_conv_backward_weights(bk_op *op)
{
	if (op->m_dwb)
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_dwb, cpu.dwtmp));
	if (op->r_wx.p) {
		prof_kind(PK_REORDER);
		prim_run(&op->r_wx);
		prim_run(&op->r_wdy);
		prof_kind(PK_CONV_BWD_WEIGHTS);
	}
	prim_run(&op->bwdw);
	if (op->r_dw.p) {
		prof_kind(PK_REORDER);
		prim_run(&op->r_dw);
	}
}
