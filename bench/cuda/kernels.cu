/*
 * bench/cuda/kernels.cu: the kernels of our own that move and convert
 * data, and their launchers: layouts and casts (fp32 NCHW <-> the
 * activations' type and layout, KRSC weight copies), batch norm's unfused
 * add and ReLU, the loss-scale overflow check and the step's scalars on the
 * device, and the residual add without a ReLU. Pooling is in pool.cu, the
 * classifier's bias, the loss and the update in loss.cu. Each op runs on gpu.stream; every launch is checked.
 */
#include "kernels.h"
#include "layout.h"

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

/* y += z in place: an IResNet block's residual add. */
template <typename T, int V>
static __global__ void k_add(vec<T, V> *y, const vec<T, V> *z, uint32_t n)
{
	GRID_STRIDE(i, n)
	{
		vec<T, V> a = y[i], b = z[i];
#pragma unroll
		for (int j = 0; j < V; j++)
			a.v[j] = from_f<T>(to_f<T>(a.v[j]) + to_f<T>(b.v[j]));
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

/* ---- launchers ------------------------------------------------------------- */

cudaError_t kernels_loadable(void)
{
	cudaFuncAttributes fa;

	return cudaFuncGetAttributes(&fa, k_check_finite);
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

void launch_add(const bk_tensor *y, const bk_tensor *z)
{
	size_t n = elems(y);

	ACT_DISPATCH(y->dt, VEC_DISPATCH(n % (16 / sizeof(T)) == 0,
					 (k_add<T, V><<<blocks(n / V), THREADS, 0, gpu.stream>>>(
						 (vec<T, V> *)y->p, (const vec<T, V> *)z->p,
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
