/*
 * bench/cpu/conv.c: the op record of the oneDNN backend and its
 * convolutions (forward, backward data, backward weights), with their
 * weights reordered from the flat fp32 buffer and back.
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
		      &op->mask, &op->r_out, &op->r_in};
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
	free(op->seg_lo);
	free(op->seg_hi);
	free(op);
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

bk_op *bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		    int pad, const float *w, float *dw, int accumulate)
{
	bk_op *op = op_new(OP_CONV);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->accumulate = accumulate && dx;
	dnnl_dims_t s = {stride, stride}, p = {pad, pad};
	dnnl_dims_t wd = {y->c, x->c, k, k};
	dnnl_memory_desc_t wany, dwany, wplain = md4(y->c, x->c, k, k, dnnl_f32, dnnl_oihw);
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wany, 4, wd, act_dt, dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dwany, 4, wd, dnnl_f32, dnnl_format_tag_any));
	op->m_w = mem_over(&wplain, w);
	op->m_dw = mem_over(&wplain, dw);

	/* the image is fp32 NCHW; under amp or nhwc it is converted once per step */
	dnnl_memory_desc_t xmd = x->md;
	dnnl_memory_t xmem = x->mem;
	if (x->kind == BK_IMAGE && (act_dt != dnnl_f32 || act_tag == dnnl_nhwc)) {
		/* the stem runs on ref:any for an NCHW source and NHWC output */
		xmd = md4(x->n, x->c, x->h, x->w, act_dt,
			  act_tag == dnnl_nhwc ? dnnl_nhwc : dnnl_nchw);
		buf_make(&op->img, &xmd);
		xmem = op->img.m;
		reorder_make(&op->r_img, x->mem, &x->md, xmem, &xmd);
	}

	dnnl_convolution_desc_t cd;
	DNNL_CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training,
						      dnnl_convolution_direct, &xmd, &wany, NULL,
						      &y->md, s, p, p));
	dnnl_primitive_desc_t fpd = pd_create(&cd, NULL, NULL, "conv fwd");
	const dnnl_memory_desc_t *fw = query_md(fpd, dnnl_query_weights_md);
	wtmp = temp_grow(wtmp, &wtmp_size, dnnl_memory_desc_get_size(fw));
	op->m_wf = mem_over(fw, wtmp);
	reorder_make(&op->r_wf, op->m_w, &wplain, op->m_wf, fw);
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, xmem);
	prim_arg(&op->fwd, DNNL_ARG_WEIGHTS, op->m_wf);
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);

	if (dx) {
		DNNL_CHECK(dnnl_convolution_backward_data_desc_init(
			&cd, dnnl_convolution_direct, &dx->md, &wany, &dy->md, s, p, p));
		dnnl_primitive_desc_t bpd = pd_create(&cd, NULL, fpd, "conv bwd data");
		const dnnl_memory_desc_t *bw = query_md(bpd, dnnl_query_weights_md);
		wtmp = temp_grow(wtmp, &wtmp_size, dnnl_memory_desc_get_size(bw));
		op->m_wb = mem_over(bw, wtmp);
		reorder_make(&op->r_wb, op->m_w, &wplain, op->m_wb, bw);
		dnnl_memory_t wm = op->m_wb;
		dnnl_memory_t dxm = dx->mem;
		if (op->accumulate) {
			/* no sum post-op on backward data: compute into a
			 * shared temporary, then dx += it */
			size_t need = dnnl_memory_desc_get_size(&dx->md);
			acc_tmp = temp_grow(acc_tmp, &acc_tmp_size, need);
			op->m_tmp = mem_over(&dx->md, acc_tmp);
			dxm = op->m_tmp;
			add_make(&op->add, dx->mem, op->m_tmp, &dx->md, 0, "conv dx add");
		}
		prim_make(&op->bwd, bpd);
		prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, dy->mem);
		prim_arg(&op->bwd, DNNL_ARG_WEIGHTS, wm);
		prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dxm);
		DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	}

	/* the weight gradient is fp32 whatever the compute type */
	DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(&cd, dnnl_convolution_direct, &xmd,
							       &dwany, NULL, &dy->md, s, p, p));
	dnnl_primitive_desc_t wpd = pd_create(&cd, NULL, fpd, "conv bwd weights");
	dnnl_memory_t wxm = xmem, wdym = dy->mem;
	if (is_ref(wpd)) {
		/* No optimised kernel for these layouts (AVX2: nChw8c layer4
		 * at small images, 1.3 s a call): let oneDNN pick the source
		 * and gradient layouts, and reorder into them. */
		dnnl_memory_desc_t xany, dyany;
		DNNL_CHECK(dnnl_memory_desc_init_by_tag(&xany, 4, xmd.dims, xmd.data_type,
							dnnl_format_tag_any));
		DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dyany, 4, dy->md.dims, dy->md.data_type,
							dnnl_format_tag_any));
		DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
			&cd, dnnl_convolution_direct, &xany, &dwany, NULL, &dyany, s, p, p));
		dnnl_primitive_desc_t any = pd_create(&cd, NULL, fpd, "conv bwd weights (any)");
		if (is_ref(any)) {
			DNNL_CHECK(dnnl_primitive_desc_destroy(any));
		} else {
			DNNL_CHECK(dnnl_primitive_desc_destroy(wpd));
			wpd = any;
			buf_make(&op->wx, query_md(wpd, dnnl_query_src_md));
			buf_make(&op->wdy, query_md(wpd, dnnl_query_diff_dst_md));
			reorder_make(&op->r_wx, xmem, &xmd, op->wx.m, &op->wx.md);
			reorder_make(&op->r_wdy, dy->mem, &dy->md, op->wdy.m, &op->wdy.md);
			wxm = op->wx.m;
			wdym = op->wdy.m;
		}
	}
	const dnnl_memory_desc_t *dwmd = query_md(wpd, dnnl_query_diff_weights_md);
	dnnl_memory_t dwm = op->m_dw;
	if (!dnnl_memory_desc_equal(dwmd, &wplain)) {
		dwtmp = temp_grow(dwtmp, &dwtmp_size, dnnl_memory_desc_get_size(dwmd));
		op->m_dwb = mem_over(dwmd, dwtmp);
		dwm = op->m_dwb;
		reorder_make(&op->r_dw, op->m_dwb, dwmd, op->m_dw, &wplain);
	}
	prim_make(&op->bwdw, wpd);
	prim_arg(&op->bwdw, DNNL_ARG_SRC, wxm);
	prim_arg(&op->bwdw, DNNL_ARG_DIFF_DST, wdym);
	prim_arg(&op->bwdw, DNNL_ARG_DIFF_WEIGHTS, dwm);
	DNNL_CHECK(dnnl_primitive_desc_destroy(wpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_conv_forward(bk_op *op)
{
	prof_kind(PK_REORDER);
	if (op->r_img.p)
		prim_run(&op->r_img);
	DNNL_CHECK(dnnl_memory_set_data_handle(op->m_wf, wtmp));
	prim_run(&op->r_wf);
	prof_kind(PK_CONV_FWD);
	prim_run(&op->fwd);
}

void bk_conv_backward_data(bk_op *op)
{
	if (!op->bwd.p)
		return;
	prof_kind(PK_REORDER);
	DNNL_CHECK(dnnl_memory_set_data_handle(op->m_wb, wtmp));
	prim_run(&op->r_wb);
	if (op->m_tmp)
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_tmp, acc_tmp));
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
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_dwb, dwtmp));
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
