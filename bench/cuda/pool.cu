/*
 * bench/cuda/pool.cu: max pooling (k x k, the window's argmax kept as a
 * byte for backward) and global average pooling (to the classifier's fp32
 * [n][c]), their kernels and their ops (backend.h). NHWC tensors move V
 * channels a thread where c allows. Each op runs on gpu.stream; every launch
 * is checked.
 */
#include "kernels.h"
#include "layout.h"
#include "search.h"

/* y[n][c] = mean over h*w of x, fp32 out. NHWC: a thread per (n, group of
 * V channels), reading V channels at once; NCHW (V = 1): a thread per (n, c). */
template <typename T, int V>
static __global__ void k_avgpool(const vec<T, V> *x, float *y, uint32_t groups, uint32_t hw,
				 int nhwc, gpu_div cg)
{
	GRID_STRIDE(i, groups)
	{
		float sum[V];
#pragma unroll
		for (int j = 0; j < V; j++)
			sum[j] = 0.0f;
		uint32_t ni = gpu_div_q(cg, i), gi = i - ni * cg.d;
		for (uint32_t p = 0; p < hw; p++) {
			vec<T, V> a = x[nhwc ? (ni * hw + p) * cg.d + gi : i * hw + p];
#pragma unroll
			for (int j = 0; j < V; j++)
				sum[j] += to_f<T>(a.v[j]);
		}
#pragma unroll
		for (int j = 0; j < V; j++)
			y[i * V + j] = sum[j] / (float)hw;
	}
}

/* dx = dy / (h*w) broadcast: NHWC, group i is position p = i / cg of the
 * n*h*w, channel group i % cg; NCHW (V = 1), element i is row i / hw. */
template <typename T, int V>
static __global__ void k_avgpool_back(const float *dy, vec<T, V> *dx, uint32_t n, int nhwc,
				      gpu_div cg, gpu_div hw)
{
	GRID_STRIDE(i, n)
	{
		vec<T, V> d;
		uint32_t row;
		if (nhwc) {
			uint32_t p = gpu_div_q(cg, i), gi = i - p * cg.d;
			row = gpu_div_q(hw, p) * cg.d * V + gi * V;
		} else {
			row = gpu_div_q(hw, i);
		}
#pragma unroll
		for (int j = 0; j < V; j++)
			d.v[j] = from_f<T>(dy[row + j] / (float)hw.d);
		dx[i] = d;
	}
}

/* Position of group i of an n x c x h x w tensor, c counting groups of V
 * channels in NHWC (V = 1 in NCHW). */
static __device__ __forceinline__ gpu_pos pos_of(uint32_t i, int nhwc, gpu_div c, gpu_div h,
						 gpu_div w)
{
	return nhwc ? gpu_nhwc_pos(i, c, w, h) : gpu_nchw_pos(i, w, h, c);
}

static __device__ __forceinline__ uint32_t at_of(gpu_pos p, int nhwc, uint32_t c, uint32_t h,
						 uint32_t w)
{
	return nhwc ? gpu_nhwc_at(p, c, h, w) : gpu_nchw_at(p, c, h, w);
}

/* Max pooling k x k, stride s, padding pad (never wins): y and the window
 * position of the maximum (r * k + q) per output, so backward needs neither
 * x nor y (the model keeps neither alive until then). The first NaN wins.
 * NHWC: V channels a thread (c counts groups). */
template <typename T, int V>
static __global__ void k_maxpool(const vec<T, V> *x, vec<T, V> *y, uint8_t *arg, uint32_t total,
				 gpu_div c, int h, int w, gpu_div oh, gpu_div ow, int k, int s,
				 int pad, int nhwc)
{
	GRID_STRIDE(i, total)
	{
		gpu_pos o = pos_of(i, nhwc, c, oh, ow);
		float best[V];
		int at[V];
#pragma unroll
		for (int j = 0; j < V; j++) {
			best[j] = -INFINITY;
			at[j] = 0;
		}
		for (int r = 0; r < k; r++) {
			int hi = (int)o.h * s - pad + r;
			if (hi < 0 || hi >= h)
				continue;
			for (int q = 0; q < k; q++) {
				int wi = (int)o.w * s - pad + q;
				if (wi < 0 || wi >= w)
					continue;
				gpu_pos p = {o.n, o.c, (uint32_t)hi, (uint32_t)wi};
				vec<T, V> a = x[at_of(p, nhwc, c.d, h, w)];
#pragma unroll
				for (int j = 0; j < V; j++) {
					float v = to_f<T>(a.v[j]);
					if (!isnan(best[j]) && (v > best[j] || isnan(v))) {
						best[j] = v;
						at[j] = r * k + q;
					}
				}
			}
		}
		vec<T, V> b;
#pragma unroll
		for (int j = 0; j < V; j++) {
			b.v[j] = from_f<T>(best[j]);
			arg[(size_t)i * V + j] = (uint8_t)at[j];
		}
		y[i] = b;
	}
}

/* dx at each input position: the sum of dy over the windows covering it
 * whose maximum it was (a gather: no atomics, every dx written). */
template <typename T, int V>
static __global__ void k_maxpool_back(const vec<T, V> *dy, const uint8_t *arg, vec<T, V> *dx,
				      uint32_t total, gpu_div c, gpu_div h, gpu_div w, int oh,
				      int ow, int k, int s, int pad, int nhwc)
{
	GRID_STRIDE(i, total)
	{
		gpu_pos p = pos_of(i, nhwc, c, h, w);
		int hlo, hhi, wlo, whi;
		float sum[V];
#pragma unroll
		for (int j = 0; j < V; j++)
			sum[j] = 0.0f;
		gpu_pool_range((int)p.h, k, s, pad, oh, &hlo, &hhi);
		gpu_pool_range((int)p.w, k, s, pad, ow, &wlo, &whi);
		for (int a = hlo; a <= hhi; a++) {
			for (int b = wlo; b <= whi; b++) {
				gpu_pos q = {p.n, p.c, (uint32_t)a, (uint32_t)b};
				uint32_t o = at_of(q, nhwc, c.d, oh, ow);
				int at =
					((int)p.h - (a * s - pad)) * k + ((int)p.w - (b * s - pad));
				vec<T, V> g = dy[o];
#pragma unroll
				for (int j = 0; j < V; j++)
					if (arg[(size_t)o * V + j] == at)
						sum[j] += to_f<T>(g.v[j]);
			}
		}
		vec<T, V> d;
#pragma unroll
		for (int j = 0; j < V; j++)
			d.v[j] = from_f<T>(sum[j]);
		dx[i] = d;
	}
}

/* ---- pooling ---------------------------------------------------------------- */

extern "C" bk_op *bk_maxpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k,
				  int stride, int pad)
{
	bk_op *op = op_new();

	if (k * k > 256 || pad >= k || gpu_conv_out(x->h, k, stride, pad) != y->h ||
	    gpu_conv_out(x->w, k, stride, pad) != y->w || x->c != y->c || x->n != y->n ||
	    x->dt != y->dt || x->fmt != y->fmt)
		die("maxpool plan: %dx%d kernel %d stride %d pad %d does not give %dx%d", x->h,
		    x->w, k, stride, pad, y->h, y->w);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->k = k;
	op->stride = stride;
	op->pad = pad;
	op->arg = (uint8_t *)dev_alloc(elems(y));
	return op;
}

/* NHWC with c a multiple of the vector width: V channels a thread. */
extern "C" void bk_maxpool_forward(bk_op *op)
{
	const bk_tensor *x = op->x, *y = op->y;
	int nhwc = is_nhwc(x);

	ACT_DISPATCH(
		x->dt,
		VEC_DISPATCH(
			nhwc && x->c % (16 / sizeof(T)) == 0,
			(k_maxpool<T, V><<<blocks(elems(y) / V), THREADS, 0, gpu.stream>>>(
				(const vec<T, V> *)x->p, (vec<T, V> *)y->p, op->arg,
				(uint32_t)(elems(y) / V), div_of(x->c / V), x->h, x->w,
				div_of(y->h), div_of(y->w), op->k, op->stride, op->pad, nhwc))));
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_maxpool_backward(bk_op *op)
{
	const bk_tensor *dx = op->dx, *dy = op->dy;

	if (!dx)
		return;
	int nhwc = is_nhwc(dx);
	ACT_DISPATCH(
		dx->dt,
		VEC_DISPATCH(
			nhwc && dx->c % (16 / sizeof(T)) == 0,
			(k_maxpool_back<T, V><<<blocks(elems(dx) / V), THREADS, 0, gpu.stream>>>(
				(const vec<T, V> *)dy->p, op->arg, (vec<T, V> *)dx->p,
				(uint32_t)(elems(dx) / V), div_of(dx->c / V), div_of(dx->h),
				div_of(dx->w), dy->h, dy->w, op->k, op->stride, op->pad, nhwc))));
	CUDA_LAUNCH_CHECK();
}

extern "C" bk_op *bk_avgpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	bk_op *op = op_new();

	if (y->kind != BK_MATRIX || y->n != x->n || y->c != x->c)
		die("avgpool plan: output must be a [%d][%d] matrix", x->n, x->c);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	return op;
}

extern "C" void bk_avgpool_forward(bk_op *op)
{
	const bk_tensor *x = op->x;
	int nhwc = is_nhwc(x);
	size_t n = (size_t)x->n * x->c;

	ACT_DISPATCH(
		x->dt,
		VEC_DISPATCH(nhwc && x->c % (16 / sizeof(T)) == 0,
			     (k_avgpool<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
				     (const vec<T, V> *)x->p, (float *)op->y->p, (uint32_t)(n / V),
				     (uint32_t)(x->h * x->w), nhwc, div_of(x->c / V)))));
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_avgpool_backward(bk_op *op)
{
	const bk_tensor *dx = op->dx;

	if (!dx)
		return;
	int nhwc = is_nhwc(dx);
	ACT_DISPATCH(dx->dt,
		     VEC_DISPATCH(nhwc && dx->c % (16 / sizeof(T)) == 0,
				  (k_avgpool_back<T, V>
				   <<<blocks(elems(dx) / V), THREADS, 0, gpu.stream>>>(
					   (const float *)op->dy->p, (vec<T, V> *)dx->p,
					   (uint32_t)(elems(dx) / V), nhwc, div_of(dx->c / V),
					   div_of((size_t)dx->h * dx->w)))));
	CUDA_LAUNCH_CHECK();
}
