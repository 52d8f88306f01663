/*
 * bench/cuda/kernels.cu: the kernels of our own and the ops made of them
 * alone. Layouts and casts (fp32 NCHW <-> the activations' type and
 * layout, KRSC weight copies), batch norm's unfused add and ReLU, max and
 * global average pooling (backend.h), the classifier's bias, softmax
 * cross-entropy and the SGD update (the math of elementwise.h, shared with
 * the CPU backend), and the loss-scale overflow check. Each op runs on
 * gpu.stream; every launch is checked.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include <math.h>

#include "elementwise.h"
#include "internal.h"

static unsigned blocks(size_t n)
{
	size_t b = (n + THREADS - 1) / THREADS;

	return (unsigned)(b < 65535 * 16 ? (b ? b : 1) : 65535 * 16);
}

/* ---- element types ---------------------------------------------------------- */

/* to_f: an element as fp32; from_f: fp32 to an element, rounded to nearest. */
template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v)
{
	return v;
}
template <> __device__ __forceinline__ float to_f<__half>(__half v)
{
	return __half2float(v);
}
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v)
{
	return v;
}
template <> __device__ __forceinline__ __half from_f<__half>(float v)
{
	return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v)
{
	return __float2bfloat16_rn(v);
}

/* Run f<T>(args) for the element type of BK_ACT tensors. */
#define ACT_DISPATCH(dt, call)                        \
	do {                                          \
		if ((dt) == CUDNN_DATA_FLOAT) {       \
			typedef float T;              \
			call;                         \
		} else if ((dt) == CUDNN_DATA_HALF) { \
			typedef __half T;             \
			call;                         \
		} else {                              \
			typedef __nv_bfloat16 T;      \
			call;                         \
		}                                     \
	} while (0)

/* ---- kernels ---------------------------------------------------------------- */

/* Indices are 32-bit (plan.h): no tensor reaches 2^31 elements. */
#define GRID_STRIDE(i, n)                                                           \
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (uint32_t)(n); \
	     i += gridDim.x * blockDim.x)

/* V elements moved as one 16-byte (or smaller, V = 1) load or store. */
template <typename T, int V> struct alignas(sizeof(T) * V) vec {
	T v[V];
};

/* fp32 NCHW -> T in NCHW or NHWC (nhwc = 1); i walks the destination.
 * Start-up and export only. */
template <typename T>
static __global__ void k_from_nchw(const float *src, T *dst, int n, int c, int h, int w, int nhwc)
{
	size_t total = (size_t)n * c * h * w;

	GRID_STRIDE(i, total)
	{
		dst[i] = from_f<T>(src[nhwc ? gpu_nhwc_to_nchw(i, c, h, w) : i]);
	}
}

/* T in NCHW or NHWC -> fp32 NCHW; i walks the destination. */
template <typename T>
static __global__ void k_to_nchw(const T *src, float *dst, int n, int c, int h, int w, int nhwc)
{
	size_t total = (size_t)n * c * h * w;

	GRID_STRIDE(i, total)
	{
		dst[i] = to_f<T>(src[nhwc ? gpu_nchw_to_nhwc(i, c, h, w) : i]);
	}
}

/* fp32 weights OIHW -> KRSC (to_krsc 1) or back, out of place: the layout
 * the NHWC convolutions read their master weights in (start-up, export). */
static __global__ void k_permute_weights(const float *src, float *dst, int k, int c, int r, int s,
					 int to_krsc)
{
	size_t total = (size_t)k * c * r * s;

	GRID_STRIDE(i, total)
	{
		dst[i] = src[to_krsc ? gpu_krsc_to_oihw(i, c, r, s) : gpu_oihw_to_krsc(i, c, r, s)];
	}
}

/* The stem's weights fp32 OIHW -> T in KRSC, input channels padded with
 * zeros from c to cpad (the one convolution whose copy is a transpose). */
template <typename T>
static __global__ void k_weight_cast(const float *w, T *w16, int k, int c, int cpad, int r, int s)
{
	size_t total = (size_t)k * cpad * r * s;

	GRID_STRIDE(i, total)
	{
		size_t j = gpu_krsc_to_oihw_pad(i, c, cpad, r, s);
		w16[i] = from_f<T>(j == GPU_PAD ? 0.0f : w[j]);
	}
}

/* The fp32 NCHW image -> T NHWC with its channels padded with zeros to cpad. */
template <typename T>
static __global__ void k_image_cast(const float *x, T *xs, int n, int c, int cpad, int h, int w)
{
	size_t total = (size_t)n * cpad * h * w;

	GRID_STRIDE(i, total)
	{
		size_t j = gpu_nhwc_pad_to_nchw(i, c, cpad, h, w);
		xs[i] = from_f<T>(j == GPU_PAD ? 0.0f : x[j]);
	}
}

/* The stem's weight gradient T KRSC (padded) -> fp32 OIHW. */
template <typename T>
static __global__ void k_wgrad_cast(const T *dw16, float *dw, int k, int c, int cpad, int r, int s)
{
	size_t total = (size_t)k * c * r * s;

	GRID_STRIDE(i, total)
	{
		dw[i] = to_f<T>(dw16[gpu_oihw_to_krsc_pad(i, c, cpad, r, s)]);
	}
}

/* Plain casts, V elements a thread: the master weights (already KRSC) to
 * their T copy in one launch a step, and a convolution's T weight gradient
 * to fp32. n counts groups of V. */
template <typename T, int V>
static __global__ void k_cast_to(const vec<float, V> *src, vec<T, V> *dst, uint32_t n)
{
	GRID_STRIDE(i, n)
	{
		vec<float, V> a = src[i];
		vec<T, V> b;
#pragma unroll
		for (int j = 0; j < V; j++)
			b.v[j] = from_f<T>(a.v[j]);
		dst[i] = b;
	}
}

template <typename T, int V>
static __global__ void k_cast_from(const vec<T, V> *src, vec<float, V> *dst, uint32_t n)
{
	GRID_STRIDE(i, n)
	{
		vec<T, V> a = src[i];
		vec<float, V> b;
#pragma unroll
		for (int j = 0; j < V; j++)
			b.v[j] = to_f<T>(a.v[j]);
		dst[i] = b;
	}
}

/* *flag = 1 if any of p[0 .. n) is not finite: the whole gradient buffer,
 * once a step, four floats a thread, one store per block at most. */
static __global__ void k_check_finite(const float *p, uint32_t n, int *flag)
{
	const float4 *p4 = (const float4 *)p;
	uint32_t n4 = n / 4;
	int bad = 0;

	GRID_STRIDE(i, n4)
	{
		float4 v = p4[i];
		bad |= !isfinite(v.x) | !isfinite(v.y) | !isfinite(v.z) | !isfinite(v.w);
	}
	GRID_STRIDE(i, n - n4 * 4)
	{
		bad |= !isfinite(p[n4 * 4 + i]);
	}
	if (__syncthreads_or(bad) && threadIdx.x == 0)
		*flag = 1;
}

/* y = relu(y [+ z]) in place, after an unfused batch norm (z NULL: no add). */
template <typename T, int V>
static __global__ void k_add_relu(vec<T, V> *y, const vec<T, V> *z, uint32_t n)
{
	GRID_STRIDE(i, n)
	{
		vec<T, V> a = y[i], b;
		if (z)
			b = z[i];
#pragma unroll
		for (int j = 0; j < V; j++) {
			float v = to_f<T>(a.v[j]) + (z ? to_f<T>(b.v[j]) : 0.0f);
			a.v[j] = from_f<T>(v < 0.0f ? 0.0f : v); /* a NaN stays NaN, as in torch */
		}
		y[i] = a;
	}
}

/* g = y > 0 ? dy : 0, the ReLU mask from the output (g may be dy). */
template <typename T, int V>
static __global__ void k_relu_back(const vec<T, V> *y, const vec<T, V> *dy, vec<T, V> *g,
				   uint32_t n)
{
	GRID_STRIDE(i, n)
	{
		vec<T, V> a = y[i], d = dy[i];
#pragma unroll
		for (int j = 0; j < V; j++)
			d.v[j] = to_f<T>(a.v[j]) > 0.0f ? d.v[j] : from_f<T>(0.0f);
		g[i] = d;
	}
}

/* The ReLU mask where y is gone (the stem's bn1: the model does not keep
 * its output through the step): dy = 0 where the pre-activation
 * gamma (x - mean) inv + beta, recomputed from x, was not positive. */
template <typename T, int V>
static __global__ void k_bn_relu_back(const vec<T, V> *x, vec<T, V> *dy, const float *mean,
				      const float *inv, const float *gamma, const float *beta,
				      uint32_t n, int nhwc, gpu_div cg, gpu_div hwg, gpu_div c)
{
	GRID_STRIDE(i, n)
	{
		uint32_t c0 = gpu_group_channel(i, nhwc, cg, hwg, c, V);
		vec<T, V> a = x[i], d = dy[i];
#pragma unroll
		for (int j = 0; j < V; j++) {
			uint32_t ci = nhwc ? c0 + j : c0;
			float pre = gamma[ci] * (to_f<T>(a.v[j]) - mean[ci]) * inv[ci] + beta[ci];
			if (!(pre > 0.0f))
				d.v[j] = from_f<T>(0.0f);
		}
		dy[i] = d;
	}
}

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

/* y[n][out] += b[out] */
static __global__ void k_bias(float *y, const float *b, uint32_t total, gpu_div out)
{
	GRID_STRIDE(i, total)
	{
		y[i] += b[i - gpu_div_q(out, i) * out.d];
	}
}

/* db[o] = sum over rows of dy[.][o] */
static __global__ void k_bias_back(const float *dy, float *db, int n, int out)
{
	GRID_STRIDE(o, out)
	{
		float s = 0.0f;
		for (int r = 0; r < n; r++)
			s += dy[(size_t)r * out + o];
		db[o] = s;
	}
}

/* A warp per row, in float (plan.h's lane functions, tested on the CPU):
 * the lanes' running maxima and sums merged by a butterfly, lane 0's result
 * given to all, then dz and the row's loss. The loss gradient is scaled by
 * the loss scale the device holds (knobs), so a captured step replays with
 * the scale of the day. */
static __global__ void k_softmax_ce(const float *z, const int32_t *labels, int n, int k, float s,
				    float scale, const struct step_knobs *knobs, float *dz,
				    float *loss)
{
	const unsigned all = 0xffffffffu;
	int row = (int)(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32), lane = threadIdx.x % 32;
	float m, sum, l;

	if (row >= n)
		return; /* the whole warp: row is the same in all its lanes */
	z += (size_t)row * k;
	dz += (size_t)row * k;
	gpu_sm_lane_stats(z, k, lane, 32, &m, &sum);
	for (int o = 16; o > 0; o /= 2) {
		float m2 = __shfl_xor_sync(all, m, o), s2 = __shfl_xor_sync(all, sum, o);
		gpu_sm_merge(&m, &sum, m2, s2);
	}
	m = __shfl_sync(all, m, 0);
	sum = __shfl_sync(all, sum, 0);
	l = gpu_sm_lane_out(z, k, lane, 32, labels[row], s, scale * knobs->loss_scale,
			    m + logf(sum), dz);
	for (int o = 16; o > 0; o /= 2)
		l += __shfl_xor_sync(all, l, o);
	if (lane == 0)
		loss[row] = l;
}

/* ew_sgd over the flat buffers, weight decay on the elements in the
 * ranges [lo[k], hi[k]); the whole step is skipped while *flag is set. The
 * step's scalars come from the device (knobs), as for softmax. */
static __global__ void k_sgd(float *w, const float *g, float *buf, uint32_t n, const size_t *lo,
			     const size_t *hi, int nseg, const struct step_knobs *kn,
			     const int *flag)
{
	if (*flag)
		return;
	float gs = kn->grad_scale * kn->inv_scale, lr = kn->lr, mom = kn->momentum, wd = kn->wd;
	GRID_STRIDE(i, n)
	{
		int k = ew_range_after(i, hi, nseg);
		ew_sgd(&w[i], &buf[i], g[i], gs, lr, mom, k < nseg && lo[k] <= i ? wd : 0.0f);
	}
}

/* ---- launchers ------------------------------------------------------------- */

cudaError_t kernels_loadable(void)
{
	cudaFuncAttributes fa;

	return cudaFuncGetAttributes(&fa, k_check_finite);
}

/* Run call with V = the vector width (16 bytes of T) when ok, else V = 1. */
#define VEC_DISPATCH(ok, call)                       \
	do {                                         \
		if ((ok) && sizeof(T) == 2) {        \
			enum { V = 8 };              \
			call;                        \
		} else if ((ok) && sizeof(T) == 4) { \
			enum { V = 4 };              \
			call;                        \
		} else {                             \
			enum { V = 1 };              \
			call;                        \
		}                                    \
	} while (0)

/* A divisor for the kernels (0, a dimension the path does not use: 1). */
static gpu_div div_of(size_t d)
{
	return gpu_div_make(d ? (uint32_t)d : 1u);
}

void launch_from_nchw(const float *src, const bk_tensor *t)
{
	size_t n = elems(t);

	ACT_DISPATCH(t->dt, (k_from_nchw<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    src, (T *)t->p, t->n, t->c, t->h, t->w, is_nhwc(t))));
	CUDA_LAUNCH_CHECK();
}

void launch_to_nchw(const bk_tensor *t, float *dst)
{
	size_t n = elems(t);

	ACT_DISPATCH(t->dt, (k_to_nchw<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (const T *)t->p, dst, t->n, t->c, t->h, t->w, is_nhwc(t))));
	CUDA_LAUNCH_CHECK();
}

void launch_permute_weights(const float *src, float *dst, int k, int c, int r, int s, int to_krsc)
{
	size_t n = (size_t)k * c * r * s;

	k_permute_weights<<<blocks(n), THREADS, 0, gpu.stream>>>(src, dst, k, c, r, s, to_krsc);
	CUDA_LAUNCH_CHECK();
}

void launch_image_cast(const float *x, void *xs, int n, int c, int cpad, int h, int w)
{
	size_t total = (size_t)n * cpad * h * w;

	ACT_DISPATCH(gpu.act_dt, (k_image_cast<T><<<blocks(total), THREADS, 0, gpu.stream>>>(
					 x, (T *)xs, n, c, cpad, h, w)));
	CUDA_LAUNCH_CHECK();
}

void launch_weight_cast(const float *w, void *w16, int k, int c, int cpad, int r, int s)
{
	size_t total = (size_t)k * cpad * r * s;

	ACT_DISPATCH(gpu.act_dt, (k_weight_cast<T><<<blocks(total), THREADS, 0, gpu.stream>>>(
					 w, (T *)w16, k, c, cpad, r, s)));
	CUDA_LAUNCH_CHECK();
}

void launch_wgrad_cast(const void *dw16, float *dw, int k, int c, int cpad, int r, int s)
{
	size_t total = (size_t)k * c * r * s;

	ACT_DISPATCH(gpu.act_dt, (k_wgrad_cast<T><<<blocks(total), THREADS, 0, gpu.stream>>>(
					 (const T *)dw16, dw, k, c, cpad, r, s)));
	CUDA_LAUNCH_CHECK();
}

/* Both buffers 32-byte aligned (a vector of 8 floats) and n a multiple of
 * the width: the vector path. */
static int vec_ok(const void *a, const void *b, size_t n, size_t width)
{
	return (uintptr_t)a % 32 == 0 && (uintptr_t)b % 32 == 0 && n % width == 0;
}

void launch_cast(const float *src, void *dst, size_t n)
{
	ACT_DISPATCH(gpu.act_dt,
		     VEC_DISPATCH(vec_ok(src, dst, n, 16 / sizeof(T)),
				  (k_cast_to<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
					  (const vec<float, V> *)src, (vec<T, V> *)dst,
					  (uint32_t)(n / V)))));
	CUDA_LAUNCH_CHECK();
}

void launch_uncast(const void *src, float *dst, size_t n)
{
	ACT_DISPATCH(gpu.act_dt,
		     VEC_DISPATCH(vec_ok(src, dst, n, 16 / sizeof(T)),
				  (k_cast_from<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
					  (const vec<T, V> *)src, (vec<float, V> *)dst,
					  (uint32_t)(n / V)))));
	CUDA_LAUNCH_CHECK();
}

void launch_add_relu(const bk_tensor *y, const bk_tensor *z)
{
	size_t n = elems(y);

	ACT_DISPATCH(y->dt,
		     VEC_DISPATCH(n % (16 / sizeof(T)) == 0,
				  (k_add_relu<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
					  (vec<T, V> *)y->p, z ? (const vec<T, V> *)z->p : NULL,
					  (uint32_t)(n / V)))));
	CUDA_LAUNCH_CHECK();
}

void launch_relu_back(const bk_tensor *y, const bk_tensor *dy, const bk_tensor *g)
{
	size_t n = elems(y);

	ACT_DISPATCH(y->dt,
		     VEC_DISPATCH(n % (16 / sizeof(T)) == 0,
				  (k_relu_back<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
					  (const vec<T, V> *)y->p, (const vec<T, V> *)dy->p,
					  (vec<T, V> *)g->p, (uint32_t)(n / V)))));
	CUDA_LAUNCH_CHECK();
}

void launch_bn_relu_back(const bk_tensor *x, const bk_tensor *dy, const float *mean,
			 const float *inv, const float *gamma, const float *beta)
{
	size_t n = elems(x), hw = (size_t)x->h * x->w;
	int nhwc = is_nhwc(x);

	ACT_DISPATCH(
		x->dt,
		VEC_DISPATCH((nhwc ? (size_t)x->c : hw) % (16 / sizeof(T)) == 0,
			     (k_bn_relu_back<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
				     (const vec<T, V> *)x->p, (vec<T, V> *)dy->p, mean, inv, gamma,
				     beta, (uint32_t)(n / V), nhwc, div_of(nhwc ? x->c / V : 0),
				     div_of(nhwc ? 0 : hw / V), div_of(x->c)))));
	CUDA_LAUNCH_CHECK();
}

void launch_bias(float *y, const float *b, int n, int out)
{
	size_t total = (size_t)n * out;

	k_bias<<<blocks(total), THREADS, 0, gpu.stream>>>(y, b, (uint32_t)total, div_of(out));
	CUDA_LAUNCH_CHECK();
}

void launch_bias_back(const float *dy, float *db, int n, int out)
{
	k_bias_back<<<blocks((size_t)out), THREADS, 0, gpu.stream>>>(dy, db, n, out);
	CUDA_LAUNCH_CHECK();
}

void flag_overflow(const float *buf, size_t n)
{
	if (!gpu.scaling || n == 0)
		return;
	k_check_finite<<<blocks(n / 4 ? n / 4 : 1), THREADS, 0, gpu.stream>>>(buf, (uint32_t)n,
									      gpu.flag);
	CUDA_LAUNCH_CHECK();
}

/* The step's scalars to the device, behind what is queued (the values are
 * the host's, written into pinned memory first: a captured step's copy
 * reads them at each replay). */
void push_knobs(void)
{
	gpu.knobs_host->loss_scale = gpu.ls.scale;
	gpu.knobs_host->inv_scale = lossscale_inv(&gpu.ls);
	if (gpu.graph_state == GRAPH_READY)
		return; /* the graph's own copy does it */
	CUDA_CHECK(cudaMemcpyAsync(gpu.knobs, gpu.knobs_host, sizeof *gpu.knobs,
				   cudaMemcpyHostToDevice, gpu.stream));
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

/* ---- loss and update ---------------------------------------------------------- */

/*
 * Queued, never waited on: the loss of each row goes to pinned memory behind
 * the kernel, and the GPU goes on into backward. The loss gradient is scaled
 * by the loss scale the last step settled (bk_sync).
 */
extern "C" void bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing,
			      float scale, bk_tensor *dlogits)
{
	int n = logits->n, k = logits->c;

	if (logits->kind != BK_MATRIX || dlogits->kind != BK_MATRIX)
		die("softmax_ce: logits must be a matrix");
	if (n > gpu.loss_cap) {
		if (gpu.loss_rows) {
			CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
			CUDA_CHECK(cudaFree(gpu.loss_rows));
			CUDA_CHECK(cudaFreeHost(gpu.loss_host));
		}
		gpu.loss_rows = (float *)dev_alloc((size_t)n * sizeof(float));
		CUDA_CHECK(cudaMallocHost((void **)&gpu.loss_host, (size_t)n * sizeof(float)));
		gpu.loss_cap = n;
	}
	settle(); /* a step without an update: its verdict is read here */
	push_knobs();
	/* a warp per row, eight rows a block */
	k_softmax_ce<<<(unsigned)((n + 7) / 8), THREADS, 0, gpu.stream>>>(
		(const float *)logits->p, labels, n, k, smoothing, scale, gpu.knobs,
		(float *)dlogits->p, gpu.loss_rows);
	CUDA_LAUNCH_CHECK();
	gpu.pending = gpu.scaling;
	CUDA_CHECK(cudaMemcpyAsync(gpu.loss_host, gpu.loss_rows, (size_t)n * sizeof(float),
				   cudaMemcpyDeviceToHost, gpu.stream));
	gpu.loss_n = n;
}

extern "C" float bk_loss(void)
{
	double sum = 0.0;

	CUDA_CHECK(cudaStreamSynchronize(gpu.stream)); /* idle after bk_sync: no wait */
	for (int i = 0; i < gpu.loss_n; i++)
		sum += gpu.loss_host[i];
	return gpu.loss_n ? (float)(sum / gpu.loss_n) : 0.0f;
}

extern "C" bk_op *bk_sgd_plan(float *w, const float *g, float *buf, size_t n, const size_t *lo,
			      const size_t *hi, int nseg)
{
	bk_op *op = op_new();
	size_t bytes = (size_t)(nseg > 0 ? nseg : 1) * sizeof(size_t);

	op->sgd_w = w;
	op->sgd_g = g;
	op->sgd_buf = buf;
	op->sgd_n = n;
	op->nseg = nseg;
	op->seg_lo = (size_t *)dev_alloc(bytes);
	op->seg_hi = (size_t *)dev_alloc(bytes);
	if (nseg > 0) {
		bk_to_device(op->seg_lo, lo, (size_t)nseg * sizeof(size_t));
		bk_to_device(op->seg_hi, hi, (size_t)nseg * sizeof(size_t));
	}
	return op;
}

/*
 * The update, behind one overflow check of the whole gradient buffer (amp;
 * after the sum over GPUs: an inf on any rank is an inf in every rank's
 * sum, so every rank skips). The scalars go through the knobs; a replayed
 * graph (--graph) has this step's copy and kernels already, and only the
 * knobs are written here.
 */
extern "C" void bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd)
{
	size_t n = op->sgd_n;

	gpu.knobs_host->grad_scale = grad_scale;
	gpu.knobs_host->lr = lr;
	gpu.knobs_host->momentum = momentum;
	gpu.knobs_host->wd = wd;
	push_knobs();
	if (gpu.graph_state == GRAPH_READY) {
		graph_launch();
		return;
	}
	if (n == 0)
		return;
	flag_overflow(op->sgd_g, n);
	k_sgd<<<blocks(n), THREADS, 0, gpu.stream>>>(op->sgd_w, op->sgd_g, op->sgd_buf, (uint32_t)n,
						     op->seg_lo, op->seg_hi, op->nseg, gpu.knobs,
						     gpu.flag);
	CUDA_LAUNCH_CHECK();
	gpu.updated = gpu.pending;
}
