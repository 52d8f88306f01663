/*
 * bench/cuda/arcface.cu: the ArcFace head's ops on the CUDA backend
 * (backend.h's bk_arcface_*): its three products on cuBLAS (fp32; TF32
 * math where the precision allows it, as the classifier's), the rest a
 * warp per row with the margin of margin.h, as the CPU backend does them
 * (bench/cpu/arcface.c: the weights never normalised into a copy, their
 * norms carried in the gradient G). The loss gradient is scaled by the
 * loss scale the device holds (knobs), as softmax's. Each op runs on
 * gpu.stream; every launch is checked.
 *
 * cuBLAS is column-major: a row-major [m][k] is a k x m column-major matrix,
 * so z [rows][cr] = xall w^T is z^T (cr x rows) = w^T xall^T with w read
 * transposed, as the classifier's forward; dxall = G w and H = G^T xall as
 * its dx and dw (gemm.cu).
 */
#include "kernels.h"
#include "margin.h"
#include "shard.h"

static const unsigned ALL = 0xffffffffu;

static __device__ __forceinline__ float warp_sum(float v)
{
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(ALL, v, o);
	return v;
}

static __device__ __forceinline__ float warp_max(float v)
{
	for (int o = 16; o > 0; o /= 2)
		v = fmaxf(v, __shfl_xor_sync(ALL, v, o));
	return v;
}

/* The warp's row: eight warps a block of THREADS. */
#define WARP_ROW(r, n)                                                                             \
	int r = (int)(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32), lane = threadIdx.x % 32; \
	if (r >= (n))                                                                              \
	return

static unsigned warp_blocks(int rows)
{
	return (unsigned)((rows + THREADS / 32 - 1) / (THREADS / 32));
}

/* inv[r] = 1 / |v_r| of rows of e; out (may be NULL) = v_r inv[r]. */
static __global__ void k_rows_normalise(const float *v, float *out, float *inv, int rows, int e)
{
	WARP_ROW(r, rows);
	const float *vr = v + (size_t)r * e;
	float s = 0.0f;
	for (int j = lane; j < e; j += 32)
		s += vr[j] * vr[j];
	s = warp_sum(s);
	float k = s > 0.0f ? rsqrtf(s) : 0.0f;
	if (lane == 0)
		inv[r] = k;
	if (out)
		for (int j = lane; j < e; j += 32)
			out[(size_t)r * e + j] = vr[j] * k;
}

/* z[r][j] = s phi_or_cos(z[r][j] inv_w[j]), the margin on the target's
 * column; mx[r] = the row's maximum, dphi[r] the margin's slope. */
static __global__ void k_margin(float *z, const float *inv_w, const int32_t *labels, float *mx,
				float *dphi, int rows, int cr, long c0, struct margin k, float s)
{
	WARP_ROW(r, rows);
	float *zr = z + (size_t)r * cr, m = -INFINITY;
	int t = shard_column(labels[r], c0, cr);
	for (int j = lane; j < cr; j += 32) {
		float c = margin_clamp(zr[j] * inv_w[j]);
		if (j == t) {
			float d;
			c = margin_phi(c, k, &d);
			dphi[r] = d;
		}
		zr[j] = s * c;
		m = fmaxf(m, zr[j]);
	}
	m = warp_max(m);
	if (lane == 0)
		mx[r] = m;
}

/* sum[r] = the sum over the shard of exp(z[r][j] - mx[r]) */
static __global__ void k_expsum(const float *z, const float *mx, float *sum, int rows, int cr)
{
	WARP_ROW(r, rows);
	const float *zr = z + (size_t)r * cr;
	float a = 0.0f;
	for (int j = lane; j < cr; j += 32)
		a += expf(zr[j] - mx[r]);
	a = warp_sum(a);
	if (lane == 0)
		sum[r] = a;
}

/* G = scale (softmax - onehot) s (dphi at the target) / |w_j|, times the
 * loss scale; loss[r] = the target's -log p where this shard holds it. */
static __global__ void k_arcface_grad(const float *z, const float *st, const float *inv_w,
				      const float *dphi, const int32_t *labels, float *g,
				      float *loss, int rows, int cr, long c0, float s, float scale,
				      const struct step_knobs *knobs)
{
	WARP_ROW(r, rows);
	const float *zr = z + (size_t)r * cr;
	float *gr = g + (size_t)r * cr, lse = st[r] + logf(st[rows + r]), l = 0.0f;
	float sc = scale * knobs->loss_scale;
	int t = shard_column(labels[r], c0, cr);
	for (int j = lane; j < cr; j += 32) {
		float logp = zr[j] - lse, d = sc * (expf(logp) - (j == t ? 1.0f : 0.0f));
		gr[j] = d * s * (j == t ? dphi[r] : 1.0f) * inv_w[j];
		if (j == t)
			l = -logp;
	}
	l = warp_sum(l);
	if (lane == 0)
		loss[r] = l;
}

/* dw_j = H_j - (w_j . H_j) w_j inv_w[j]^2, H in dw */
static __global__ void k_dw(const float *w, float *dw, const float *inv_w, int cr, int e)
{
	WARP_ROW(j, cr);
	const float *wj = w + (size_t)j * e;
	float *hj = dw + (size_t)j * e, dot = 0.0f;
	for (int k = lane; k < e; k += 32)
		dot += wj[k] * hj[k];
	dot = warp_sum(dot) * inv_w[j] * inv_w[j];
	for (int k = lane; k < e; k += 32)
		hj[k] -= dot * wj[k];
}

/* dx_i = inv_x[i] (dn_i - (xn_i . dn_i) xn_i) */
static __global__ void k_dx(const float *xn, const float *dn, const float *inv_x, float *dx,
			    int batch, int e)
{
	WARP_ROW(i, batch);
	const float *a = xn + (size_t)i * e, *b = dn + (size_t)i * e;
	float dot = 0.0f;
	for (int k = lane; k < e; k += 32)
		dot += a[k] * b[k];
	dot = warp_sum(dot);
	for (int k = lane; k < e; k += 32)
		dx[(size_t)i * e + k] = inv_x[i] * (b[k] - dot * a[k]);
}

extern "C" bk_op *bk_arcface_plan(const bk_arcface_shape *s, bk_tensor *x, bk_tensor *dx,
				  bk_tensor *logits, bk_tensor *dlogits, const float *w, float *dw,
				  float *xall, float *dxall, const float *dxn,
				  const int32_t *labels, float *stats)
{
	bk_op *op = op_new();

	if (x->kind != BK_MATRIX || x->n != s->batch || x->c != s->e || logits->n != s->rows ||
	    logits->c != s->cr || s->row0 + s->batch > s->rows)
		die("arcface plan: shapes disagree");
	op->x = x;
	op->dx = dx;
	op->y = logits;
	op->dy = dlogits;
	op->w = w;
	op->dw = dw;
	op->af = *s;
	op->af_xall = xall;
	op->af_dxall = dxall;
	op->af_dxn = dxn;
	op->af_labels = labels;
	op->af_stats = stats;
	op->af_inv_x = (float *)dev_alloc((size_t)s->batch * sizeof(float));
	op->af_inv_w = (float *)dev_alloc((size_t)s->cr * sizeof(float));
	op->af_dphi = (float *)dev_alloc((size_t)s->rows * sizeof(float));
	loss_rows_reserve(s->rows);
	return op;
}

extern "C" void bk_arcface_embed(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;

	k_rows_normalise<<<warp_blocks(s->batch), THREADS, 0, gpu.stream>>>(
		(const float *)op->x->p, op->af_xall + (size_t)s->row0 * s->e, op->af_inv_x,
		s->batch, s->e);
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_arcface_logits(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	float one = 1.0f, zero = 0.0f, *z = (float *)op->y->p;

	k_rows_normalise<<<warp_blocks(s->cr), THREADS, 0, gpu.stream>>>(op->w, NULL, op->af_inv_w,
									 s->cr, s->e);
	CUDA_LAUNCH_CHECK();
	CUBLAS_CHECK(cublasSgemm(gpu.blas, CUBLAS_OP_T, CUBLAS_OP_N, s->cr, s->rows, s->e, &one,
				 op->w, s->e, op->af_xall, s->e, &zero, z, s->cr));
	k_margin<<<warp_blocks(s->rows), THREADS, 0, gpu.stream>>>(
		z, op->af_inv_w, op->af_labels, op->af_stats, op->af_dphi, s->rows, s->cr, s->c0,
		margin_make(s->margin), s->scale);
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_arcface_expsum(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;

	k_expsum<<<warp_blocks(s->rows), THREADS, 0, gpu.stream>>>(
		(const float *)op->y->p, op->af_stats, op->af_stats + s->rows, s->rows, s->cr);
	CUDA_LAUNCH_CHECK();
}

/* As softmax's: the last step's verdict settled, the knobs (loss scale)
 * pushed, the rows' losses copied behind the kernel; bk_loss sums them
 * over this rank's batch. */
extern "C" void bk_arcface_loss(bk_op *op, float scale)
{
	const bk_arcface_shape *s = &op->af;

	settle();
	push_knobs();
	k_arcface_grad<<<warp_blocks(s->rows), THREADS, 0, gpu.stream>>>(
		(const float *)op->y->p, op->af_stats, op->af_inv_w, op->af_dphi, op->af_labels,
		(float *)op->dy->p, gpu.loss_rows, s->rows, s->cr, s->c0, s->scale, scale,
		gpu.knobs);
	CUDA_LAUNCH_CHECK();
	gpu.pending = gpu.scaling;
	loss_rows_copy(s->rows, s->batch);
}

extern "C" void bk_arcface_backward(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	float one = 1.0f, zero = 0.0f;
	const float *g = (const float *)op->dy->p;

	CUBLAS_CHECK(cublasSgemm(gpu.blas, CUBLAS_OP_N, CUBLAS_OP_N, s->e, s->rows, s->cr, &one,
				 op->w, s->e, g, s->cr, &zero, op->af_dxall, s->e));
	CUBLAS_CHECK(cublasSgemm(gpu.blas, CUBLAS_OP_N, CUBLAS_OP_T, s->e, s->cr, s->rows, &one,
				 op->af_xall, s->e, g, s->cr, &zero, op->dw, s->e));
	k_dw<<<warp_blocks(s->cr), THREADS, 0, gpu.stream>>>(op->w, op->dw, op->af_inv_w, s->cr,
							     s->e);
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_arcface_backward_x(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	const float *dn = op->af_dxn;

	if (dn == op->af_dxall) /* one shard: this rank's rows of dxall */
		dn += (size_t)s->row0 * s->e;
	k_dx<<<warp_blocks(s->batch), THREADS, 0, gpu.stream>>>(
		op->af_xall + (size_t)s->row0 * s->e, dn, op->af_inv_x, (float *)op->dx->p,
		s->batch, s->e);
	CUDA_LAUNCH_CHECK();
}
