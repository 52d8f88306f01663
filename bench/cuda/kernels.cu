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

#define GRID_STRIDE(i, n)                                                       \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
	     i += (size_t)gridDim.x * blockDim.x)

/* fp32 NCHW -> T in NCHW or NHWC (nhwc = 1); i walks the destination. */
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

/* Weights fp32 OIHW -> T in KRSC (cuDNN's NHWC filter layout), input
 * channels padded with zeros from c to cpad. */
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

/* Weight gradient T KRSC -> fp32 OIHW; a value that is not finite sets *flag
 * (flag NULL: no loss scaling, nothing to check). */
template <typename T>
static __global__ void k_wgrad_cast(const T *dw16, float *dw, int k, int c, int cpad, int r, int s,
				    int *flag)
{
	size_t total = (size_t)k * c * r * s;

	GRID_STRIDE(i, total)
	{
		float v = to_f<T>(dw16[gpu_oihw_to_krsc_pad(i, c, cpad, r, s)]);
		dw[i] = v;
		if (flag && !isfinite(v))
			*flag = 1;
	}
}

static __global__ void k_check_finite(const float *p, size_t n, int *flag)
{
	GRID_STRIDE(i, n)
	{
		if (!isfinite(p[i])) {
			*flag = 1;
			return;
		}
	}
}

/* y = relu(y [+ z]) in place, after an unfused batch norm (z NULL: no add). */
template <typename T> static __global__ void k_add_relu(T *y, const T *z, size_t n)
{
	GRID_STRIDE(i, n)
	{
		float v = to_f<T>(y[i]) + (z ? to_f<T>(z[i]) : 0.0f);
		y[i] = from_f<T>(v < 0.0f ? 0.0f : v); /* a NaN stays NaN, as in torch */
	}
}

/* g = y > 0 ? dy : 0, the ReLU mask from the output (g may be dy). */
template <typename T> static __global__ void k_relu_back(const T *y, const T *dy, T *g, size_t n)
{
	GRID_STRIDE(i, n)
	{
		g[i] = to_f<T>(y[i]) > 0.0f ? dy[i] : from_f<T>(0.0f);
	}
}

/* The same mask where y is gone (the stem's bn1: the model does not keep
 * its output through the step): dy = 0 where the pre-activation
 * gamma (x - mean) inv + beta, recomputed from x, was not positive. */
template <typename T>
static __global__ void k_bn_relu_back(const T *x, T *dy, const float *mean, const float *inv,
				      const float *gamma, const float *beta, size_t n, int c,
				      size_t hw, int nhwc)
{
	GRID_STRIDE(i, n)
	{
		size_t ci = nhwc ? i % c : (i / hw) % c;
		float pre = gamma[ci] * (to_f<T>(x[i]) - mean[ci]) * inv[ci] + beta[ci];
		if (!(pre > 0.0f))
			dy[i] = from_f<T>(0.0f);
	}
}

/* y[n][c] = mean over h*w of x (NCHW or NHWC), fp32 out; one thread per (n, c). */
template <typename T>
static __global__ void k_avgpool(const T *x, float *y, int n, int c, int hw, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c)
	{
		size_t ni = i / c, ci = i % c;
		float sum = 0.0f;
		for (int p = 0; p < hw; p++)
			sum += to_f<T>(nhwc ? x[(ni * hw + p) * c + ci] : x[i * hw + p]);
		y[i] = sum / (float)hw;
	}
}

template <typename T>
static __global__ void k_avgpool_back(const float *dy, T *dx, int n, int c, int hw, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c * hw)
	{
		size_t ni, ci;
		if (nhwc) {
			ci = i % c;
			ni = i / ((size_t)c * hw);
		} else {
			ci = (i / hw) % c;
			ni = i / ((size_t)c * hw);
		}
		dx[i] = from_f<T>(dy[ni * c + ci] / (float)hw);
	}
}

/* Coordinates of element i of an n x c x h x w tensor in NCHW or NHWC. */
struct coord {
	size_t n, c, h, w;
};

static __device__ __forceinline__ coord coord_of(size_t i, int c, int h, int w, int nhwc)
{
	coord q;

	if (nhwc) {
		q.c = i % c;
		q.w = (i / c) % w;
		q.h = (i / ((size_t)c * w)) % h;
		q.n = i / ((size_t)c * w * h);
	} else {
		q.w = i % w;
		q.h = (i / w) % h;
		q.c = (i / ((size_t)w * h)) % c;
		q.n = i / ((size_t)w * h * c);
	}
	return q;
}

static __device__ __forceinline__ size_t index_of(size_t n, size_t ci, size_t hi, size_t wi, int c,
						  int h, int w, int nhwc)
{
	return nhwc ? ((n * h + hi) * w + wi) * c + ci : ((n * c + ci) * h + hi) * w + wi;
}

/* Max pooling k x k, stride s, padding pad (never wins): y and the window
 * position of the maximum (r * k + s) per output, so backward needs neither
 * x nor y (the model keeps neither alive until then). A NaN wins. */
template <typename T>
static __global__ void k_maxpool(const T *x, T *y, uint8_t *arg, int n, int c, int h, int w, int oh,
				 int ow, int k, int s, int pad, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c * oh * ow)
	{
		coord o = coord_of(i, c, oh, ow, nhwc);
		float best = -INFINITY;
		int at = 0;
		for (int r = 0; r < k; r++) {
			long hi = (long)o.h * s - pad + r;
			if (hi < 0 || hi >= h)
				continue;
			for (int q = 0; q < k; q++) {
				long wi = (long)o.w * s - pad + q;
				if (wi < 0 || wi >= w)
					continue;
				float v = to_f<T>(x[index_of(o.n, o.c, hi, wi, c, h, w, nhwc)]);
				if (v > best || isnan(v)) {
					best = v;
					at = r * k + q;
					if (isnan(v))
						r = q = k; /* stop: nothing beats a NaN */
				}
			}
		}
		y[i] = from_f<T>(best);
		arg[i] = (uint8_t)at;
	}
}

/* dx at each input position: the sum of dy over the windows covering it
 * whose maximum it was (a gather: no atomics, every dx written). */
template <typename T>
static __global__ void k_maxpool_back(const T *dy, const uint8_t *arg, T *dx, int n, int c, int h,
				      int w, int oh, int ow, int k, int s, int pad, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c * h * w)
	{
		coord p = coord_of(i, c, h, w, nhwc);
		int hlo, hhi, wlo, whi;
		float sum = 0.0f;
		gpu_pool_range((int)p.h, k, s, pad, oh, &hlo, &hhi);
		gpu_pool_range((int)p.w, k, s, pad, ow, &wlo, &whi);
		for (int a = hlo; a <= hhi; a++) {
			for (int b = wlo; b <= whi; b++) {
				size_t o = index_of(p.n, p.c, a, b, c, oh, ow, nhwc);
				int at =
					((int)p.h - (a * s - pad)) * k + ((int)p.w - (b * s - pad));
				if (arg[o] == at)
					sum += to_f<T>(dy[o]);
			}
		}
		dx[i] = from_f<T>(sum);
	}
}

/* y[n][out] += b[out] */
static __global__ void k_bias(float *y, const float *b, int n, int out)
{
	GRID_STRIDE(i, (size_t)n * out)
	{
		y[i] += b[i % out];
	}
}

/* db[o] = sum over rows of dy[.][o] */
static __global__ void k_bias_back(const float *dy, float *db, int n, int out)
{
	GRID_STRIDE(o, (size_t)out)
	{
		float s = 0.0f;
		for (int r = 0; r < n; r++)
			s += dy[(size_t)r * out + o];
		db[o] = s;
	}
}

/* One thread per row: elementwise.h's softmax cross-entropy, as on the CPU. */
static __global__ void k_softmax_ce(const float *z, const int32_t *labels, int n, int k, float s,
				    float scale, float *dz, float *loss)
{
	GRID_STRIDE(i, (size_t)n)
	{
		loss[i] = ew_softmax_ce_row(z + i * k, k, labels[i], s, scale, dz + i * k);
	}
}

/* ew_sgd over the flat buffers, weight decay on the elements in the
 * ranges [lo[k], hi[k]); the whole step is skipped while *flag is set. */
static __global__ void k_sgd(float *w, const float *g, float *buf, size_t n, const size_t *lo,
			     const size_t *hi, int nseg, float gs, float lr, float mom, float wd,
			     const int *flag)
{
	if (*flag)
		return;
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

void launch_wgrad_cast(const void *dw16, float *dw, int k, int c, int cpad, int r, int s, int *flag)
{
	size_t total = (size_t)k * c * r * s;

	ACT_DISPATCH(gpu.act_dt, (k_wgrad_cast<T><<<blocks(total), THREADS, 0, gpu.stream>>>(
					 (const T *)dw16, dw, k, c, cpad, r, s, flag)));
	CUDA_LAUNCH_CHECK();
}

void launch_add_relu(const bk_tensor *y, const bk_tensor *z)
{
	size_t n = elems(y);

	ACT_DISPATCH(y->dt, (k_add_relu<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (T *)y->p, z ? (const T *)z->p : NULL, n)));
	CUDA_LAUNCH_CHECK();
}

void launch_relu_back(const bk_tensor *y, const bk_tensor *dy, const bk_tensor *g)
{
	size_t n = elems(y);

	ACT_DISPATCH(y->dt, (k_relu_back<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (const T *)y->p, (const T *)dy->p, (T *)g->p, n)));
	CUDA_LAUNCH_CHECK();
}

void launch_bn_relu_back(const bk_tensor *x, const bk_tensor *dy, const float *mean,
			 const float *inv, const float *gamma, const float *beta)
{
	size_t n = elems(x);

	ACT_DISPATCH(x->dt, (k_bn_relu_back<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (const T *)x->p, (T *)dy->p, mean, inv, gamma, beta, n, x->c,
				    (size_t)x->h * x->w, is_nhwc(x))));
	CUDA_LAUNCH_CHECK();
}

void launch_bias(float *y, const float *b, int n, int out)
{
	k_bias<<<blocks((size_t)n * out), THREADS, 0, gpu.stream>>>(y, b, n, out);
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
	k_check_finite<<<blocks(n), THREADS, 0, gpu.stream>>>(buf, n, gpu.flag);
	CUDA_LAUNCH_CHECK();
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

extern "C" void bk_maxpool_forward(bk_op *op)
{
	const bk_tensor *x = op->x, *y = op->y;

	ACT_DISPATCH(x->dt, (k_maxpool<T><<<blocks(elems(y)), THREADS, 0, gpu.stream>>>(
				    (const T *)x->p, (T *)y->p, op->arg, x->n, x->c, x->h, x->w,
				    y->h, y->w, op->k, op->stride, op->pad, is_nhwc(x))));
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_maxpool_backward(bk_op *op)
{
	const bk_tensor *dx = op->dx, *dy = op->dy;

	if (!dx)
		return;
	ACT_DISPATCH(dx->dt,
		     (k_maxpool_back<T><<<blocks(elems(dx)), THREADS, 0, gpu.stream>>>(
			     (const T *)dy->p, op->arg, (T *)dx->p, dx->n, dx->c, dx->h, dx->w,
			     dy->h, dy->w, op->k, op->stride, op->pad, is_nhwc(dx))));
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
	size_t n = (size_t)x->n * x->c;

	ACT_DISPATCH(x->dt, (k_avgpool<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (const T *)x->p, (float *)op->y->p, x->n, x->c, x->h * x->w,
				    is_nhwc(x))));
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_avgpool_backward(bk_op *op)
{
	const bk_tensor *dx = op->dx;

	if (!dx)
		return;
	ACT_DISPATCH(dx->dt, (k_avgpool_back<T><<<blocks(elems(dx)), THREADS, 0, gpu.stream>>>(
				     (const float *)op->dy->p, (T *)dx->p, dx->n, dx->c,
				     dx->h * dx->w, is_nhwc(dx))));
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
	/* A row per thread (elementwise.h's serial row, double sums):
	 * 32-thread blocks spread the rows over the SMs. */
	k_softmax_ce<<<(unsigned)((n + 31) / 32), 32, 0, gpu.stream>>>(
		(const float *)logits->p, labels, n, k, smoothing, scale * gpu.ls.scale,
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

extern "C" void bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd)
{
	size_t n = op->sgd_n;

	if (n == 0)
		return;
	k_sgd<<<blocks(n), THREADS, 0, gpu.stream>>>(
		op->sgd_w, op->sgd_g, op->sgd_buf, n, op->seg_lo, op->seg_hi, op->nseg,
		grad_scale * lossscale_inv(&gpu.ls), lr, momentum, wd, gpu.flag);
	CUDA_LAUNCH_CHECK();
	gpu.updated = gpu.pending;
}
