/*
 * bench/cpu/layers.c: the other ops of the oneDNN backend: batch norm
 * (with the fused add and ReLU), max and average pooling, the classifier
 * (sgemm), softmax cross-entropy and the SGD update (plain C, OpenMP).
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "internal.h"
#include "profile.h"

/* BN+add+ReLU's two steps after the batch norm: y = relu(y + z) in place
 * (op->add), and dz = y > 0 ? dy : 0 (op->mask). */
static void add_relu_make(bk_op *op, bk_tensor *y, bk_tensor *z, bk_tensor *dy, bk_tensor *dz)
{
	add_make(&op->add, y->mem, z->mem, &y->md, 1, "add+relu fwd");

	/* relu backward from y; a forward hint is required, any relu will do */
	dnnl_eltwise_desc_t ed;
	DNNL_CHECK(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_training,
						  dnnl_eltwise_relu_use_dst_for_bwd, &y->md, 0, 0));
	dnnl_primitive_desc_t hpd = pd_create(&ed, NULL, NULL, "relu hint");
	DNNL_CHECK(dnnl_eltwise_backward_desc_init(&ed, dnnl_eltwise_relu_use_dst_for_bwd, &dy->md,
						   &y->md, 0, 0));
	dnnl_primitive_desc_t bpd = pd_create(&ed, NULL, hpd, "add+relu bwd");
	prim_make(&op->mask, bpd);
	prim_arg(&op->mask, DNNL_ARG_DST, y->mem);
	prim_arg(&op->mask, DNNL_ARG_DIFF_DST, dy->mem);
	prim_arg(&op->mask, DNNL_ARG_DIFF_SRC, dz->mem);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(hpd));
}

/* BN+add (no ReLU): y += z in place (op->add), and backward's dz = dy, a
 * copy (op->mask). */
static void add_make_plain(bk_op *op, bk_tensor *y, bk_tensor *z, bk_tensor *dy, bk_tensor *dz)
{
	add_make(&op->add, y->mem, z->mem, &y->md, 0, "add fwd");
	reorder_make(&op->mask, dy->mem, &dy->md, dz->mem, &dz->md);
}

/*
 * Batch norm. BN+ReLU: oneDNN's fused ReLU (its workspace holds the mask).
 * BN+add+ReLU: oneDNN 2.6 fuses no add into batch norm, so BN writes y, a
 * binary add with a ReLU post-op makes y = relu(y + z) in place, and
 * backward masks dy from y into dz, which BN's backward then reads; BN+add
 * alike without the ReLU, dz a copy of dy. Accumulating: no sum on
 * backward's diff_src either, so BN writes it to the shared temporary and a
 * binary add makes dx += it (as a convolution's backward data).
 */
bk_op *bk_bn_plan(bk_tensor *x, bk_tensor *z, bk_tensor *y, bk_tensor *dx, bk_tensor *dz,
		  bk_tensor *dy, int relu, int y_kept, int accumulate, const float *gamma,
		  const float *beta, float *dgamma, float *dbeta, float *running_mean,
		  float *running_var, float eps, float momentum)
{
	if (z && (!dz || (relu && !y_kept))) {
		die("%s:%d: bn plan: an add needs dz, and with the ReLU y kept", __FILE__,
		    __LINE__);
	}
	bk_op *op = op_new(OP_BN);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->rmean = running_mean;
	op->rvar = running_var;
	op->momentum = momentum;
	op->count = (double)x->n * x->h * x->w;
	int fuse = relu && !z;
	unsigned flags = dnnl_use_scale | dnnl_use_shift | (fuse ? dnnl_fuse_norm_relu : 0);
	/* A matrix [n][c] is n x c x 1 x 1 channels-last, the same bytes: oneDNN
	 * runs its 2D batch norm on a generic kernel many times slower. */
	const dnnl_memory_desc_t *xmd = &x->md, *dymd = &dy->md;
	dnnl_memory_t xm = x->mem, ym = y->mem, dxm = dx->mem, dym = dy->mem;
	dnnl_memory_desc_t vmd;
	if (x->kind == BK_MATRIX) {
		if (z || relu)
			die("%s:%d: bn plan: a matrix's batch norm is plain", __FILE__, __LINE__);
		vmd = md4(x->n, x->c, 1, 1, dnnl_f32, dnnl_nhwc);
		xmd = dymd = &vmd;
		const bk_tensor *t[4] = {x, y, dx, dy};
		for (int i = 0; i < 4; i++)
			op->view[i] = mem_over(&vmd, t[i]->data);
		xm = op->view[0], ym = op->view[1], dxm = op->view[2], dym = op->view[3];
	}
	dnnl_batch_normalization_desc_t bd;
	DNNL_CHECK(dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_training, xmd, eps,
							      flags));
	dnnl_primitive_desc_t fpd = pd_create(&bd, NULL, NULL, fuse ? "bn+relu fwd" : "bn fwd");
	buf_make(&op->mean,
		 dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, DNNL_ARG_MEAN));
	buf_make(&op->var,
		 dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, DNNL_ARG_VARIANCE));
	if (fuse)
		buf_make(&op->ws, query_md(fpd, dnnl_query_workspace_md));
	const dnnl_memory_desc_t *smd =
		dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, DNNL_ARG_SCALE);
	op->m_gamma = mem_over(smd, gamma);
	op->m_beta = mem_over(smd, beta);
	op->m_dgamma = mem_over(smd, dgamma);
	op->m_dbeta = mem_over(smd, dbeta);
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, xm);
	prim_arg(&op->fwd, DNNL_ARG_DST, ym);
	prim_arg(&op->fwd, DNNL_ARG_SCALE, op->m_gamma);
	prim_arg(&op->fwd, DNNL_ARG_SHIFT, op->m_beta);
	prim_arg(&op->fwd, DNNL_ARG_MEAN, op->mean.m);
	prim_arg(&op->fwd, DNNL_ARG_VARIANCE, op->var.m);
	if (fuse)
		prim_arg(&op->fwd, DNNL_ARG_WORKSPACE, op->ws.m);
	if (z && relu)
		add_relu_make(op, y, z, dy, dz);
	else if (z)
		add_make_plain(op, y, z, dy, dz);

	if (accumulate) {
		size_t need = dnnl_memory_desc_get_size(xmd);
		cpu.acc_tmp = temp_grow(cpu.acc_tmp, &cpu.acc_tmp_size, need);
		op->m_tmp = mem_over(xmd, cpu.acc_tmp);
		add_make(&op->dxadd, dxm, op->m_tmp, xmd, 0, "bn dx add");
		dxm = op->m_tmp;
	}
	DNNL_CHECK(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, dymd, xmd, eps,
							       flags));
	dnnl_primitive_desc_t bpd = pd_create(&bd, NULL, fpd, fuse ? "bn+relu bwd" : "bn bwd");
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_SRC, xm);
	prim_arg(&op->bwd, DNNL_ARG_MEAN, op->mean.m);
	prim_arg(&op->bwd, DNNL_ARG_VARIANCE, op->var.m);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, z ? dz->mem : dym);
	prim_arg(&op->bwd, DNNL_ARG_SCALE, op->m_gamma);
	prim_arg(&op->bwd, DNNL_ARG_SHIFT, op->m_beta);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dxm);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SCALE, op->m_dgamma);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SHIFT, op->m_dbeta);
	if (fuse)
		prim_arg(&op->bwd, DNNL_ARG_WORKSPACE, op->ws.m);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_bn_forward(bk_op *op)
{
	prim_run(&op->fwd);
	if (op->add.p)
		prim_run(&op->add);
	const float *mean = op->mean.p, *var = op->var.p;
	for (int c = 0; c < op->x->c; c++)
		ew_bn_running(&op->rmean[c], &op->rvar[c], mean[c], var[c], op->momentum,
			      op->count);
}

void bk_bn_backward(bk_op *op)
{
	if (op->mask.p)
		prim_run(&op->mask);
	if (op->m_tmp)
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_tmp, cpu.acc_tmp));
	prim_run(&op->bwd);
	if (op->dxadd.p) {
		prof_kind(PK_DX_ADD);
		prim_run(&op->dxadd);
	}
}

bk_op *bk_maxpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		       int pad)
{
	bk_op *op = op_new(OP_MAXPOOL);
	dnnl_dims_t s = {stride, stride}, kk = {k, k}, p = {pad, pad};
	dnnl_pooling_desc_t pd;
	DNNL_CHECK(dnnl_pooling_forward_desc_init(&pd, dnnl_forward_training, dnnl_pooling_max,
						  &x->md, &y->md, s, kk, p, p));
	dnnl_primitive_desc_t fpd = pd_create(&pd, NULL, NULL, "maxpool fwd");
	buf_make(&op->ws, query_md(fpd, dnnl_query_workspace_md));
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);
	prim_arg(&op->fwd, DNNL_ARG_WORKSPACE, op->ws.m);
	DNNL_CHECK(dnnl_pooling_backward_desc_init(&pd, dnnl_pooling_max, &dx->md, &dy->md, s, kk,
						   p, p));
	dnnl_primitive_desc_t bpd = pd_create(&pd, NULL, fpd, "maxpool bwd");
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, dy->mem);
	prim_arg(&op->bwd, DNNL_ARG_WORKSPACE, op->ws.m);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dx->mem);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_maxpool_forward(bk_op *op)
{
	prim_run(&op->fwd);
}
void bk_maxpool_backward(bk_op *op)
{
	prim_run(&op->bwd);
}

bk_op *bk_avgpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	bk_op *op = op_new(OP_AVGPOOL);
	dnnl_dims_t s = {1, 1}, kk = {x->h, x->w}, p = {0, 0};
	/* pool in the activation layout, then one reorder to the classifier */
	dnnl_memory_desc_t pmd = tensor_md(BK_ACT, x->n, x->c, 1, 1);
	buf_make(&op->pooled, &pmd);
	buf_make(&op->dpooled, &pmd);
	dnnl_pooling_desc_t pd;
	DNNL_CHECK(dnnl_pooling_forward_desc_init(&pd, dnnl_forward_training,
						  dnnl_pooling_avg_exclude_padding, &x->md, &pmd, s,
						  kk, p, p));
	dnnl_primitive_desc_t fpd = pd_create(&pd, NULL, NULL, "avgpool fwd");
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->fwd, DNNL_ARG_DST, op->pooled.m);
	DNNL_CHECK(dnnl_pooling_backward_desc_init(&pd, dnnl_pooling_avg_exclude_padding, &dx->md,
						   &pmd, s, kk, p, p));
	dnnl_primitive_desc_t bpd = pd_create(&pd, NULL, fpd, "avgpool bwd");
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, op->dpooled.m);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dx->mem);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	/* the matrix viewed as n x c x 1 x 1 */
	op->m_tmp = mem_over(&y->md4, y->data);
	op->m_w = mem_over(&dy->md4, dy->data);
	reorder_make(&op->r_out, op->pooled.m, &pmd, op->m_tmp, &y->md4);
	reorder_make(&op->r_in, op->m_w, &dy->md4, op->dpooled.m, &pmd);
	return op;
}

void bk_avgpool_forward(bk_op *op)
{
	prim_run(&op->fwd);
	prof_kind(PK_REORDER);
	prim_run(&op->r_out);
}

void bk_avgpool_backward(bk_op *op)
{
	prof_kind(PK_REORDER);
	prim_run(&op->r_in);
	prof_kind(PK_POOL_BWD);
	prim_run(&op->bwd);
}

bk_op *bk_fc_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *w,
		  const float *b, float *dw, float *db)
{
	bk_op *op = op_new(OP_FC);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->w = w;
	op->bias = b;
	op->dw = dw;
	op->db = db;
	op->fc_t = xmalloc((size_t)x->n * y->c * sizeof *op->fc_t);
	return op;
}

void bk_fc_forward(bk_op *op)
{
	int n = op->x->n, in = op->x->c, out = op->y->c;
	float *y = op->y->data, *t = op->fc_t;
	/* y[n][out] = x[n][in] w[out][in]^T + b, as t = y^T = w x^T: sgemm
	 * with the small x transposed, not the large w (the faster way round
	 * by far), then t transposed back with the bias */
	DNNL_CHECK(dnnl_sgemm('N', 'T', out, n, in, 1.0f, op->w, in, op->x->data, in, 0.0f, t, n));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < out; j++)
			y[(size_t)i * out + j] = t[(size_t)j * n + i] + op->bias[j];
}

void bk_fc_backward(bk_op *op)
{
	int n = op->x->n, in = op->x->c, out = op->y->c;
	const float *dy = op->dy->data;
	/* dw[out][in] = dy^T x;  dx[n][in] = dy w;  db = column sums of dy */
	DNNL_CHECK(
		dnnl_sgemm('T', 'N', out, in, n, 1.0f, dy, out, op->x->data, in, 0.0f, op->dw, in));
	if (op->dx)
		DNNL_CHECK(dnnl_sgemm('N', 'N', n, in, out, 1.0f, dy, out, op->w, in, 0.0f,
				      op->dx->data, in));
	for (int j = 0; j < out; j++) {
		float s = 0.0f;
		for (int i = 0; i < n; i++)
			s += dy[(size_t)i * out + j];
		op->db[j] = s;
	}
}

void bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing, float scale,
		   bk_tensor *dlogits)
{
	int n = logits->n, k = logits->c;
	const float *z = logits->data;
	float *dz = dlogits->data;
	double loss = 0.0;
	for (int i = 0; i < n; i++)
		loss += ew_softmax_ce_row(z + (size_t)i * k, k, labels[i], smoothing, scale,
					  dz + (size_t)i * k);
	cpu.loss = (float)(loss / n);
}

float bk_loss(void)
{
	return cpu.loss;
}

bk_op *bk_sgd_plan(float *w, const float *g, float *buf, size_t n, const size_t *lo,
		   const size_t *hi, int nseg)
{
	bk_op *op = op_new(OP_SGD);
	op->sgd_w = w;
	op->sgd_g = g;
	op->sgd_buf = buf;
	op->sgd_n = n;
	op->nseg = nseg;
	op->seg_lo = xmalloc((size_t)(nseg + 1) * sizeof(size_t));
	op->seg_hi = xmalloc((size_t)(nseg + 1) * sizeof(size_t));
	memcpy(op->seg_lo, lo, (size_t)nseg * sizeof(size_t));
	memcpy(op->seg_hi, hi, (size_t)nseg * sizeof(size_t));
	return op;
}

/* Each thread takes its own slice and walks it in runs of one weight decay
 * (a decayed range, or the gap before the next), each run a vector loop. */
void bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd)
{
	float *w = op->sgd_w, *buf = op->sgd_buf;
	const float *g = op->sgd_g;
	const size_t *lo = op->seg_lo, *hi = op->seg_hi;
	size_t n = op->sgd_n;
	int nseg = op->nseg;
#pragma omp parallel
	{
		size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
		size_t i = n * t / nt, b = n * (t + 1) / nt;
		int k = ew_range_after(i, hi, nseg);
		while (i < b) {
			int in = k < nseg && lo[k] <= i;
			size_t end = in ? hi[k++] : k < nseg ? lo[k] : b;
			float d = in ? wd : 0.0f;
			if (end > b)
				end = b;
#pragma omp simd
			for (size_t j = i; j < end; j++)
				ew_sgd(&w[j], &buf[j], g[j], grad_scale, lr, momentum, d);
			i = end;
		}
	}
}
