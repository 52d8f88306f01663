/*
 * backend_cuda.cu: bench's backend (backend.h) on one NVIDIA GPU.
 *
 * cuDNN's legacy API (cuDNN 8 and 9) for convolutions and batch norm; cuBLAS
 * for the classifier; kernels of our own for the rest: softmax cross-entropy
 * and the SGD update (the math of mathk.h, shared with the CPU backend),
 * add + ReLU, max pooling (with an argmax so backward needs neither x nor
 * y: model.c frees both before then), global average pooling, casts and the
 * loss-scale overflow check.
 *
 * Precisions (bk_config.precision):
 *   fp32  activations fp32 NCHW, no TF32 anywhere (cuDNN FMA math, cuBLAS pedantic)
 *   tf32  fp32 storage, TF32 tensor cores allowed
 *   amp   activations fp16 NHWC, fp16 weight copies per convolution, fp32
 *         master weights, gradients and BN statistics; dynamic loss scale
 *         (lossscale.h): the loss gradient is multiplied by the scale, the
 *         update divides by it and is skipped on the device when a gradient
 *         is not finite
 *   bf16  as amp with bf16 and no scaling
 *
 * Every op runs on one stream; nothing synchronises with the host within
 * a step: the loss is copied behind the softmax and read after bk_sync.
 * Every library call is checked (cuda_check.h): one line on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cudnn.h>
#include <cublas_v2.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "backend.h"
#include "comm.h"
#include "gpuplan.h"
#include "lossscale.h"
}
#include "cuda_check.h"
#include "mathk.h"

enum { MAX_SHAPES = 128, MAX_ALGOS = 16, THREADS = 256 };

/* ---- state ------------------------------------------------------------------ */

/* Algorithms chosen for one distinct convolution shape. */
struct conv_algos {
	int have_fwd, have_bwd_data, have_bwd_filter;
	cudnnConvolutionFwdAlgo_t fwd;
	cudnnConvolutionBwdDataAlgo_t bwd_data;
	cudnnConvolutionBwdFilterAlgo_t bwd_filter;
	cudnnMathType_t fwd_math, bwd_data_math, bwd_filter_math;
	size_t fwd_ws, bwd_data_ws, bwd_filter_ws;
};

static struct {
	int precision;              /* enum bk_precision */
	int device;
	cudaStream_t stream;
	cudnnHandle_t dnn;
	cublasHandle_t blas;
	cudnnDataType_t act_dt;     /* element type of BK_ACT tensors */
	cudnnTensorFormat_t act_fmt;
	size_t act_size;            /* bytes per BK_ACT element */
	int *flag;                  /* device: 1 when this step's gradients overflowed */
	int *flag_host;             /* pinned */
	int *check, *check_host;    /* bk_all_finite's flag, device and pinned */
	float *loss_rows;           /* device [loss_cap]: loss per row of softmax_ce */
	float *loss_host;           /* pinned [loss_cap] */
	int loss_cap;
	struct lossscale ls;
	float static_scale;         /* --loss-scale; 0 = dynamic */
	int scaling;                /* amp: loss scaling on */
	size_t ws_flag;             /* workspace limit from the integrator, 0 = default */
	size_t ws_limit;            /* the limit in force, set at the first conv plan */
	void *ws;                   /* one workspace for every op: they run in order */
	size_t ws_size, ws_need;
	int ws_final;               /* 1 once ws has been cut to ws_need */
	cudaEvent_t step_start, step_stop;
	size_t peak;                /* bytes in use on the device, high-water */
	struct gpu_conv_shape shapes[MAX_SHAPES];
	struct conv_algos algos[MAX_SHAPES];
	int nshapes;
	int pending;                /* a step's overflow verdict not yet read */
	int updated;                /* and its update queued */
	int loss_n;                 /* rows of loss_host the last softmax_ce copies */
	int local_rank;             /* 0 prints the node's one-off notes */
	int verbose;
	int ready;
} G;

static void settle(void);

/* ---- errors ----------------------------------------------------------------- */

/* comm_abort: under MPI every rank goes, not only this one (srun does not
 * end the job when one task fails, and the others would wait in NCCL). */
extern "C" void
bk_cuda_fail(const char *lib, const char *file, int line, const char *what)
{
	fprintf(stderr, "bench: %s error at %s:%d: %s\n", lib, file, line, what);
	comm_abort(1);
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	comm_abort(1);
	exit(1);
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of host memory");
	return p;
}

static void
note_mem(void)
{
	size_t freeb, total;

	CUDA_CHECK(cudaMemGetInfo(&freeb, &total));
	if (total - freeb > G.peak)
		G.peak = total - freeb;
}

static unsigned
blocks(size_t n)
{
	size_t b = (n + THREADS - 1) / THREADS;

	return (unsigned)(b < 65535 * 16 ? (b ? b : 1) : 65535 * 16);
}

/* ---- element types ---------------------------------------------------------- */

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v)
{
	return __float2bfloat16_rn(v);
}

/* Run f<T>(args) for the element type of BK_ACT tensors. */
#define ACT_DISPATCH(dt, call)                                                             \
	do {                                                                               \
		if ((dt) == CUDNN_DATA_FLOAT) {                                            \
			typedef float T;                                                   \
			call;                                                              \
		} else if ((dt) == CUDNN_DATA_HALF) {                                      \
			typedef __half T;                                                  \
			call;                                                              \
		} else {                                                                   \
			typedef __nv_bfloat16 T;                                           \
			call;                                                              \
		}                                                                          \
	} while (0)

/* ---- kernels ---------------------------------------------------------------- */

#define GRID_STRIDE(i, n)                                                                  \
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);            \
	     i += (size_t)gridDim.x * blockDim.x)

/* fp32 NCHW -> T in NCHW or NHWC (nhwc = 1); i walks the destination. */
template <typename T>
static __global__ void
k_from_nchw(const float *src, T *dst, int n, int c, int h, int w, int nhwc)
{
	size_t total = (size_t)n * c * h * w;

	GRID_STRIDE(i, total) {
		dst[i] = from_f<T>(src[nhwc ? gpu_nhwc_to_nchw(i, c, h, w) : i]);
	}
}

/* T in NCHW or NHWC -> fp32 NCHW; i walks the destination. */
template <typename T>
static __global__ void
k_to_nchw(const T *src, float *dst, int n, int c, int h, int w, int nhwc)
{
	size_t total = (size_t)n * c * h * w;

	GRID_STRIDE(i, total) {
		dst[i] = to_f<T>(src[nhwc ? gpu_nchw_to_nhwc(i, c, h, w) : i]);
	}
}

/* Weights fp32 OIHW -> T in KRSC (cuDNN's NHWC filter layout), input
 * channels padded with zeros from c to cpad. */
template <typename T>
static __global__ void
k_weight_cast(const float *w, T *w16, int k, int c, int cpad, int r, int s)
{
	size_t total = (size_t)k * cpad * r * s;

	GRID_STRIDE(i, total) {
		size_t j = gpu_krsc_to_oihw_pad(i, c, cpad, r, s);
		w16[i] = from_f<T>(j == GPU_PAD ? 0.0f : w[j]);
	}
}

/* The fp32 NCHW image -> T NHWC with its channels padded with zeros to cpad. */
template <typename T>
static __global__ void
k_image_cast(const float *x, T *xs, int n, int c, int cpad, int h, int w)
{
	size_t total = (size_t)n * cpad * h * w;

	GRID_STRIDE(i, total) {
		size_t j = gpu_nhwc_pad_to_nchw(i, c, cpad, h, w);
		xs[i] = from_f<T>(j == GPU_PAD ? 0.0f : x[j]);
	}
}

/* Weight gradient T KRSC -> fp32 OIHW; a value that is not finite sets *flag
 * (flag NULL: no loss scaling, nothing to check). */
template <typename T>
static __global__ void
k_wgrad_cast(const T *dw16, float *dw, int k, int c, int cpad, int r, int s, int *flag)
{
	size_t total = (size_t)k * c * r * s;

	GRID_STRIDE(i, total) {
		float v = to_f<T>(dw16[gpu_oihw_to_krsc_pad(i, c, cpad, r, s)]);
		dw[i] = v;
		if (flag && !isfinite(v))
			*flag = 1;
	}
}

static __global__ void
k_check_finite(const float *p, size_t n, int *flag)
{
	GRID_STRIDE(i, n) {
		if (!isfinite(p[i])) {
			*flag = 1;
			return;
		}
	}
}

/* y = relu(y [+ z]) in place, after an unfused batch norm (z NULL: no add). */
template <typename T>
static __global__ void
k_add_relu(T *y, const T *z, size_t n)
{
	GRID_STRIDE(i, n) {
		float v = to_f<T>(y[i]) + (z ? to_f<T>(z[i]) : 0.0f);
		y[i] = from_f<T>(v < 0.0f ? 0.0f : v); /* a NaN stays NaN, as in torch */
	}
}

/* g = y > 0 ? dy : 0, the ReLU mask from the output (g may be dy). */
template <typename T>
static __global__ void
k_relu_back(const T *y, const T *dy, T *g, size_t n)
{
	GRID_STRIDE(i, n) {
		g[i] = to_f<T>(y[i]) > 0.0f ? dy[i] : from_f<T>(0.0f);
	}
}

/* The same mask where y is gone (the stem's bn1: the model does not keep
 * its output through the step): dy = 0 where the pre-activation
 * gamma (x - mean) inv + beta, recomputed from x, was not positive. */
template <typename T>
static __global__ void
k_bn_relu_back(const T *x, T *dy, const float *mean, const float *inv, const float *gamma,
	       const float *beta, size_t n, int c, size_t hw, int nhwc)
{
	GRID_STRIDE(i, n) {
		size_t ci = nhwc ? i % c : (i / hw) % c;
		float pre = gamma[ci] * (to_f<T>(x[i]) - mean[ci]) * inv[ci] + beta[ci];
		if (!(pre > 0.0f))
			dy[i] = from_f<T>(0.0f);
	}
}

/* y[n][c] = mean over h*w of x (NCHW or NHWC), fp32 out; one thread per (n, c). */
template <typename T>
static __global__ void
k_avgpool(const T *x, float *y, int n, int c, int hw, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c) {
		size_t ni = i / c, ci = i % c;
		float sum = 0.0f;
		for (int p = 0; p < hw; p++)
			sum += to_f<T>(nhwc ? x[(ni * hw + p) * c + ci] : x[i * hw + p]);
		y[i] = sum / (float)hw;
	}
}

template <typename T>
static __global__ void
k_avgpool_back(const float *dy, T *dx, int n, int c, int hw, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c * hw) {
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

static __device__ __forceinline__ coord
coord_of(size_t i, int c, int h, int w, int nhwc)
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

static __device__ __forceinline__ size_t
index_of(size_t n, size_t ci, size_t hi, size_t wi, int c, int h, int w, int nhwc)
{
	return nhwc ? ((n * h + hi) * w + wi) * c + ci : ((n * c + ci) * h + hi) * w + wi;
}

/* Max pooling k x k, stride s, padding pad (never wins): y and the window
 * position of the maximum (r * k + s) per output, so backward needs neither
 * x nor y (the model keeps neither alive until then). A NaN wins. */
template <typename T>
static __global__ void
k_maxpool(const T *x, T *y, uint8_t *arg, int n, int c, int h, int w, int oh, int ow, int k,
	  int s, int pad, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c * oh * ow) {
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
static __global__ void
k_maxpool_back(const T *dy, const uint8_t *arg, T *dx, int n, int c, int h, int w, int oh,
	       int ow, int k, int s, int pad, int nhwc)
{
	GRID_STRIDE(i, (size_t)n * c * h * w) {
		coord p = coord_of(i, c, h, w, nhwc);
		int hlo, hhi, wlo, whi;
		float sum = 0.0f;
		gpu_pool_range((int)p.h, k, s, pad, oh, &hlo, &hhi);
		gpu_pool_range((int)p.w, k, s, pad, ow, &wlo, &whi);
		for (int a = hlo; a <= hhi; a++) {
			for (int b = wlo; b <= whi; b++) {
				size_t o = index_of(p.n, p.c, a, b, c, oh, ow, nhwc);
				int at = ((int)p.h - (a * s - pad)) * k + ((int)p.w - (b * s - pad));
				if (arg[o] == at)
					sum += to_f<T>(dy[o]);
			}
		}
		dx[i] = from_f<T>(sum);
	}
}

/* y[n][out] += b[out] */
static __global__ void
k_bias(float *y, const float *b, int n, int out)
{
	GRID_STRIDE(i, (size_t)n * out) {
		y[i] += b[i % out];
	}
}

/* db[o] = sum over rows of dy[.][o] */
static __global__ void
k_bias_back(const float *dy, float *db, int n, int out)
{
	GRID_STRIDE(o, (size_t)out) {
		float s = 0.0f;
		for (int r = 0; r < n; r++)
			s += dy[(size_t)r * out + o];
		db[o] = s;
	}
}

/* One thread per row: mathk.h's softmax cross-entropy, as on the CPU. */
static __global__ void
k_softmax_ce(const float *z, const int32_t *labels, int n, int k, float s, float scale,
	     float *dz, float *loss)
{
	GRID_STRIDE(i, (size_t)n) {
		loss[i] = mathk_softmax_ce_row(z + i * k, k, labels[i], s, scale, dz + i * k);
	}
}

/* mathk_sgd over the flat buffers, weight decay on the elements in the
 * ranges [lo[k], hi[k]); the whole step is skipped while *flag is set. */
static __global__ void
k_sgd(float *w, const float *g, float *buf, size_t n, const size_t *lo, const size_t *hi,
      int nseg, float gs, float lr, float mom, float wd, const int *flag)
{
	if (*flag)
		return;
	GRID_STRIDE(i, n) {
		int k = mathk_range_after(i, hi, nseg);
		mathk_sgd(&w[i], &buf[i], g[i], gs, lr, mom, k < nseg && lo[k] <= i ? wd : 0.0f);
	}
}

/* ---- start-up ----------------------------------------------------------------- */

extern "C" int
bk_cuda_device_count(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0) {
		fprintf(stderr, "bench: no CUDA device (%s)\n",
			e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		comm_abort(1);
	}
	return n;
}

extern "C" void
bk_cuda_set_loss_scale(float scale)
{
	G.static_scale = scale;
}

extern "C" void
bk_cuda_set_workspace_limit(size_t bytes)
{
	G.ws_flag = bytes;
}

static const char *
precision_name(int p)
{
	static const char *names[] = {"fp32", "tf32", "amp", "bf16"};

	return p >= 0 && p <= BK_BF16 ? names[p] : "?";
}

extern "C" void
bk_init(const bk_config *cfg)
{
	int ndev = bk_cuda_device_count();
	cudaDeviceProp prop;

	G.precision = cfg->precision;
	G.verbose = cfg->verbose;
	G.local_rank = cfg->local_rank;
	int major = 0;
	CUDNN_CHECK(cudnnGetProperty(MAJOR_VERSION, &major));
	if (major != CUDNN_MAJOR) {
		fprintf(stderr, "bench: built with cuDNN %d, but the cuDNN loaded is %d (%zu)\n",
			CUDNN_MAJOR, major, cudnnGetVersion());
		comm_abort(1);
	}
	G.device = (cfg->local_rank > 0 ? cfg->local_rank : 0) % ndev;
	CUDA_CHECK(cudaSetDevice(G.device));
	CUDA_CHECK(cudaGetDeviceProperties(&prop, G.device));
	/* A GPU the build has no code for (a V100 with CUDA 13's default
	 * architectures) fails here, clearly, not at the first kernel. */
	cudaFuncAttributes fa;
	cudaError_t e = cudaFuncGetAttributes(&fa, k_check_finite);
	if (e == cudaErrorUnsupportedPtxVersion) {
		fprintf(stderr,
			"bench: the CUDA driver is older than the toolkit this bench-cuda was "
			"built with, and cannot compile its PTX for %s (compute capability "
			"%d.%d): update the driver, or build with make CUDA_ARCH=%d%d\n",
			prop.name, prop.major, prop.minor, prop.major, prop.minor);
		comm_abort(2);
	}
	if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
		fprintf(stderr,
			"bench: %s is compute capability %d.%d, which this bench-cuda has no "
			"code for: rebuild with make CUDA_ARCH=%d%d (and a toolkit that has it)\n",
			prop.name, prop.major, prop.minor, prop.major, prop.minor);
		comm_abort(2);
	}
	CUDA_CHECK(e);
	if ((G.precision == BK_TF32 || G.precision == BK_BF16) && prop.major < 8) {
		fprintf(stderr,
			"bench: --precision %s: needs compute capability 8.0 or newer; "
			"%s is %d.%d\n",
			precision_name(G.precision), prop.name, prop.major, prop.minor);
		comm_abort(2);
	}
	if (G.precision < BK_FP32 || G.precision > BK_BF16) {
		fprintf(stderr, "bench: precision %d: not supported by the CUDA backend\n",
			G.precision);
		comm_abort(2);
	}
	if (cfg->layout == BK_LAYOUT_BLOCKED) {
		fprintf(stderr, "bench: --layout blocked: the CUDA backend has NCHW and NHWC only\n");
		comm_abort(2);
	}
	/* Default: NHWC for fp16 and bf16 (tensor cores), NCHW for fp32 and
	 * tf32; --layout nhwc asks for NHWC everywhere. */
	switch (G.precision) {
	case BK_AMP:
		G.act_dt = CUDNN_DATA_HALF;
		G.act_fmt = CUDNN_TENSOR_NHWC;
		G.act_size = 2;
		break;
	case BK_BF16:
		G.act_dt = CUDNN_DATA_BFLOAT16;
		G.act_fmt = CUDNN_TENSOR_NHWC;
		G.act_size = 2;
		break;
	default:
		G.act_dt = CUDNN_DATA_FLOAT;
		G.act_fmt = cfg->layout == BK_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
		G.act_size = 4;
	}
	CUDA_CHECK(cudaStreamCreateWithFlags(&G.stream, cudaStreamNonBlocking));
	CUDNN_CHECK(cudnnCreate(&G.dnn));
	CUDNN_CHECK(cudnnSetStream(G.dnn, G.stream));
	CUBLAS_CHECK(cublasCreate(&G.blas));
	CUBLAS_CHECK(cublasSetStream(G.blas, G.stream));
	/* The classifier is fp32 in every precision (backend.h); TF32 only
	 * where the precision allows reduced math. */
	CUBLAS_CHECK(cublasSetMathMode(G.blas, G.precision == BK_FP32 ? CUBLAS_PEDANTIC_MATH
								      : CUBLAS_TF32_TENSOR_OP_MATH));
	CUDA_CHECK(cudaMalloc((void **)&G.flag, sizeof(int)));
	CUDA_CHECK(cudaMemsetAsync(G.flag, 0, sizeof(int), G.stream));
	CUDA_CHECK(cudaMallocHost((void **)&G.flag_host, sizeof(int)));
	CUDA_CHECK(cudaMalloc((void **)&G.check, sizeof(int)));
	CUDA_CHECK(cudaMallocHost((void **)&G.check_host, sizeof(int)));
	CUDA_CHECK(cudaEventCreate(&G.step_start));
	CUDA_CHECK(cudaEventCreate(&G.step_stop));
	G.scaling = G.precision == BK_AMP;
	if (G.scaling)
		lossscale_init(&G.ls, G.static_scale);
	else
		lossscale_off(&G.ls);
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	note_mem();
	G.ready = 1;
	if (G.verbose)
		fprintf(stderr,
			"bench: cuda device %d of %d: %s, compute capability %d.%d, %.0f MB; "
			"cuDNN %zu, cuBLAS, precision %s\n",
			G.device, ndev, prop.name, prop.major, prop.minor,
			(double)prop.totalGlobalMem / 1048576.0, cudnnGetVersion(),
			precision_name(G.precision));
}

extern "C" void
bk_finalize(void)
{
	if (!G.ready)
		return;
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	if (G.ws)
		CUDA_CHECK(cudaFree(G.ws));
	if (G.loss_rows)
		CUDA_CHECK(cudaFree(G.loss_rows));
	if (G.loss_host)
		CUDA_CHECK(cudaFreeHost(G.loss_host));
	CUDA_CHECK(cudaFree(G.flag));
	CUDA_CHECK(cudaFreeHost(G.flag_host));
	CUDA_CHECK(cudaFree(G.check));
	CUDA_CHECK(cudaFreeHost(G.check_host));
	CUDA_CHECK(cudaEventDestroy(G.step_start));
	CUDA_CHECK(cudaEventDestroy(G.step_stop));
	CUBLAS_CHECK(cublasDestroy(G.blas));
	CUDNN_CHECK(cudnnDestroy(G.dnn));
	CUDA_CHECK(cudaStreamDestroy(G.stream));
	G.ws = NULL;
	G.loss_rows = NULL;
	G.loss_host = NULL;
	G.ready = 0;
}

extern "C" const char *
bk_name(void)
{
	return "cuda-cudnn";
}

extern "C" cudaStream_t
bk_cuda_stream(void)
{
	return G.stream;
}

extern "C" void
bk_cuda_check_finite(const float *buf, size_t n)
{
	if (!G.scaling || n == 0)
		return;
	k_check_finite<<<blocks(n), THREADS, 0, G.stream>>>(buf, n, G.flag);
	CUDA_LAUNCH_CHECK();
}

extern "C" void
bk_cuda_step_begin(void)
{
	CUDA_CHECK(cudaEventRecord(G.step_start, G.stream));
}

extern "C" double
bk_cuda_step_end(void)
{
	float ms = 0.0f;

	CUDA_CHECK(cudaEventRecord(G.step_stop, G.stream));
	CUDA_CHECK(cudaEventSynchronize(G.step_stop));
	CUDA_CHECK(cudaEventElapsedTime(&ms, G.step_start, G.step_stop));
	note_mem();
	return (double)ms / 1000.0;
}

extern "C" double
bk_cuda_peak_mem_mb(void)
{
	if (G.ready)
		note_mem();
	return (double)G.peak / 1048576.0;
}

/* Both settle the last step: call them after it, not between its backward
 * and its update. */
extern "C" float
bk_cuda_loss_scale(void)
{
	if (G.ready)
		settle();
	return G.ls.scale;
}

extern "C" long
bk_cuda_skipped_steps(void)
{
	if (G.ready)
		settle();
	return G.ls.skipped;
}

/* ---- memory ------------------------------------------------------------------- */

extern "C" void *
bk_malloc(size_t bytes)
{
	void *p = NULL;

	CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
	CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, G.stream));
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	note_mem();
	return p;
}

extern "C" void
bk_free(void *p)
{
	if (!p)
		return;
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	CUDA_CHECK(cudaFree(p));
}

extern "C" void
bk_memset0(void *dev, size_t bytes)
{
	CUDA_CHECK(cudaMemsetAsync(dev, 0, bytes, G.stream));
}

/* Copies go through the compute stream: it does not synchronise with the
 * legacy default stream that plain cudaMemcpy uses. */
extern "C" void
bk_to_device(void *dev, const void *host, size_t bytes)
{
	CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, G.stream));
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
}

extern "C" void
bk_to_host(void *host, const void *dev, size_t bytes)
{
	CUDA_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, G.stream));
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
}

/* With the step's update done, its overflow verdict is final: settle it
 * here, while the stream is idle anyway, and not in the next step. */
extern "C" void
bk_sync(void)
{
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	if (G.pending && G.updated)
		settle();
}

/* ---- tensors ---------------------------------------------------------------- */

struct bk_tensor {
	int kind;
	int n, c, h, w;
	cudnnDataType_t dt;
	cudnnTensorFormat_t fmt;
	void *p;
	cudnnTensorDescriptor_t desc;
};

static size_t
elems(const bk_tensor *t)
{
	return (size_t)t->n * t->c * t->h * t->w;
}

extern "C" size_t
bk_tensor_bytes(int kind, int n, int c, int h, int w)
{
	size_t e = (size_t)n * c * h * w * (kind == BK_ACT ? G.act_size : sizeof(float));

	return (e + 255) / 256 * 256; /* keeps the next tensor 256-byte aligned */
}

extern "C" bk_tensor *
bk_tensor_create(int kind, int n, int c, int h, int w, void *storage)
{
	bk_tensor *t = (bk_tensor *)xcalloc(1, sizeof *t);

	if (!G.ready)
		die("bk_tensor_create before bk_init");
	t->kind = kind;
	t->n = n;
	t->c = c;
	t->h = h;
	t->w = w;
	t->p = storage;
	/* cuDNN's tensor descriptors count elements in 32 bits */
	if ((size_t)n * c * h * w > (size_t)INT32_MAX)
		die("a %d x %d x %d x %d tensor has more than 2^31 - 1 elements, cuDNN's limit: "
		    "use a smaller --batch", n, c, h, w);
	t->dt = kind == BK_ACT ? G.act_dt : CUDNN_DATA_FLOAT;
	t->fmt = kind == BK_ACT ? G.act_fmt : CUDNN_TENSOR_NCHW;
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&t->desc));
	CUDNN_CHECK(cudnnSetTensor4dDescriptor(t->desc, t->fmt, t->dt, n, c, h, w));
	return t;
}

extern "C" void
bk_tensor_destroy(bk_tensor *t)
{
	if (!t)
		return;
	CUDNN_CHECK(cudnnDestroyTensorDescriptor(t->desc));
	free(t);
}

static int
is_plain(const bk_tensor *t)
{
	return t->dt == CUDNN_DATA_FLOAT && t->fmt == CUDNN_TENSOR_NCHW;
}

extern "C" void
bk_tensor_write(bk_tensor *t, const float *host)
{
	size_t n = elems(t);
	float *tmp;

	if (is_plain(t)) {
		bk_to_device(t->p, host, n * sizeof(float));
		return;
	}
	CUDA_CHECK(cudaMalloc((void **)&tmp, n * sizeof(float)));
	bk_to_device(tmp, host, n * sizeof(float));
	ACT_DISPATCH(t->dt, (k_from_nchw<T><<<blocks(n), THREADS, 0, G.stream>>>(
				     tmp, (T *)t->p, t->n, t->c, t->h, t->w,
				     t->fmt == CUDNN_TENSOR_NHWC)));
	CUDA_LAUNCH_CHECK();
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	CUDA_CHECK(cudaFree(tmp));
}

extern "C" void
bk_tensor_read(const bk_tensor *t, float *host)
{
	size_t n = elems(t);
	float *tmp;

	if (is_plain(t)) {
		bk_to_host(host, t->p, n * sizeof(float));
		return;
	}
	CUDA_CHECK(cudaMalloc((void **)&tmp, n * sizeof(float)));
	ACT_DISPATCH(t->dt, (k_to_nchw<T><<<blocks(n), THREADS, 0, G.stream>>>(
				     (const T *)t->p, tmp, t->n, t->c, t->h, t->w,
				     t->fmt == CUDNN_TENSOR_NHWC)));
	CUDA_LAUNCH_CHECK();
	bk_to_host(host, tmp, n * sizeof(float));
	CUDA_CHECK(cudaFree(tmp));
}

/* ---- ops ---------------------------------------------------------------------- */

enum op_kind { OP_CONV, OP_BN, OP_MAXPOOL, OP_AVGPOOL, OP_FC, OP_SGD };

struct bk_op {
	int kind;
	bk_tensor *x, *x2, *y, *dx, *dx2, *dy;
	/* conv */
	int k, stride, pad, accumulate, cin, cout;
	int cpad;             /* input channels as cuDNN sees them (the image: 3 -> 4) */
	const float *w;
	float *dw;
	cudnnFilterDescriptor_t wdesc;
	cudnnConvolutionDescriptor_t cdesc;
	int shape;            /* index into G.algos */
	void *w16, *dw16;     /* amp/bf16: KRSC copies of the weights and their gradient */
	void *xs;             /* amp/bf16 first conv: the fp32 NCHW image cast to NHWC */
	cudnnTensorDescriptor_t xsdesc;
	/* bn */
	int relu, y_kept;     /* bk_bn_plan's */
	int fused;            /* cuDNN applies the ReLU and the add (bnops) */
	cudnnBatchNormMode_t mode;
	cudnnBatchNormOps_t bnops;
	cudnnTensorDescriptor_t pdesc;
	cudnnActivationDescriptor_t act;
	const float *gamma, *beta;
	float *dgamma, *dbeta, *rmean, *rvar;
	float *save_mean, *save_inv;
	void *reserve;
	size_t reserve_size, fwd_ws, bwd_ws;
	double eps, momentum;
	/* max pooling: window position of each output's maximum */
	uint8_t *arg;
	/* fc */
	const float *b;
	float *db;
	/* sgd: the flat buffers and the weight-decay ranges (device) */
	float *sgd_w, *sgd_buf;
	const float *sgd_g;
	size_t sgd_n, *seg_lo, *seg_hi;
	int nseg;
};

static bk_op *
op_new(int kind)
{
	bk_op *op = (bk_op *)xcalloc(1, sizeof *op);

	op->kind = kind;
	return op;
}

extern "C" void
bk_op_destroy(bk_op *op)
{
	if (!op)
		return;
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	if (op->wdesc)
		CUDNN_CHECK(cudnnDestroyFilterDescriptor(op->wdesc));
	if (op->cdesc)
		CUDNN_CHECK(cudnnDestroyConvolutionDescriptor(op->cdesc));
	if (op->xsdesc)
		CUDNN_CHECK(cudnnDestroyTensorDescriptor(op->xsdesc));
	if (op->pdesc)
		CUDNN_CHECK(cudnnDestroyTensorDescriptor(op->pdesc));
	if (op->act)
		CUDNN_CHECK(cudnnDestroyActivationDescriptor(op->act));
	void *bufs[] = {op->w16,     op->dw16,	  op->xs,     op->save_mean,
			op->save_inv, op->reserve, op->arg, op->seg_lo, op->seg_hi};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (bufs[i])
			CUDA_CHECK(cudaFree(bufs[i]));
	free(op);
}

static void *
dev_alloc(size_t bytes)
{
	void *p = NULL;

	CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
	note_mem();
	return p;
}

/* The workspace limit is fixed at the first plan that needs it: free memory
 * then holds parameters and activations already (model_plan allocates first). */
static void
ws_limit_init(void)
{
	size_t freeb, total;

	if (G.ws_limit)
		return;
	CUDA_CHECK(cudaMemGetInfo(&freeb, &total));
	G.ws_limit = gpu_workspace_limit(G.ws_flag ? G.ws_flag : (size_t)2 << 30, freeb, 0.5);
}

/* Make the shared workspace at least 'bytes' long (plan time only). */
static void
ws_grow(size_t bytes)
{
	if (bytes <= G.ws_size)
		return;
	if (G.ws) {
		CUDA_CHECK(cudaStreamSynchronize(G.stream));
		CUDA_CHECK(cudaFree(G.ws));
	}
	G.ws = dev_alloc(bytes);
	G.ws_size = bytes;
}

/* What an op will need when it runs: kept after the search is over. */
static void
ws_reserve(size_t bytes)
{
	if (bytes > G.ws_need)
		G.ws_need = bytes;
	ws_grow(bytes);
}

/* At the first run: cut the search workspace down to what the chosen
 * algorithms need, and say so once. */
static void
ws_finalize(void)
{
	if (G.ws_final)
		return;
	G.ws_final = 1;
	if (G.ws_size > G.ws_need) {
		CUDA_CHECK(cudaStreamSynchronize(G.stream));
		CUDA_CHECK(cudaFree(G.ws));
		G.ws = G.ws_need ? dev_alloc(G.ws_need) : NULL;
		G.ws_size = G.ws_need;
	}
	/* The search workspace was transient: the peak reported is that of
	 * training, as nvidia-smi would show it during the run. */
	G.peak = 0;
	note_mem();
	if (G.local_rank == 0)
		fprintf(stderr,
			"bench: cudnn: %d convolution shapes searched, workspace limit %.1f MB, "
			"using %.1f MB\n",
			G.nshapes, (double)G.ws_limit / 1048576.0,
			(double)G.ws_need / 1048576.0);
}

/* fp32: no TF32. The math type cudnnFind reports for an algorithm is set on
 * the descriptor before it runs (as PyTorch does), except in fp32 where only
 * FMA math is acceptable. */
static cudnnMathType_t
conv_math(void)
{
	switch (G.precision) {
	case BK_FP32:
		return CUDNN_FMA_MATH;
	case BK_TF32:
		return CUDNN_DEFAULT_MATH;
	default:
		return CUDNN_TENSOR_OP_MATH;
	}
}

/* The math an algorithm was timed with must be one the precision allows:
 * fp32 only FMA (CUDNN_DEFAULT_MATH permits TF32); never the down-conversion
 * of fp32 data to fp16 (CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION). */
static int
math_ok(cudnnMathType_t m)
{
	if (G.precision == BK_FP32)
		return m == CUDNN_FMA_MATH;
	return m != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

static const void *
conv_x(const bk_op *op)
{
	return op->xs ? op->xs : op->x->p;
}

static cudnnTensorDescriptor_t
conv_xdesc(const bk_op *op)
{
	return op->xs ? op->xsdesc : op->x->desc;
}

static const void *
conv_w(const bk_op *op)
{
	return op->w16 ? op->w16 : (const void *)op->w;
}

static void *
conv_dw(const bk_op *op)
{
	return op->dw16 ? op->dw16 : (void *)op->dw;
}

static void
conv_search(bk_op *op, struct conv_algos *a)
{
	int n = 0;

	ws_limit_init();
	ws_grow(G.ws_limit); /* the search's, given back by ws_finalize */
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, conv_math()));
	if (!a->have_fwd) {
		cudnnConvolutionFwdAlgoPerf_t r[MAX_ALGOS];
		CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
			G.dnn, conv_xdesc(op), conv_x(op), op->wdesc, conv_w(op), op->cdesc,
			op->y->desc, op->y->p, MAX_ALGOS, &n, r, G.ws, G.ws_limit));
		for (int i = 0; i < n && !a->have_fwd; i++) {
			if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= G.ws_limit &&
			    math_ok(r[i].mathType)) {
				a->have_fwd = 1;
				a->fwd = r[i].algo;
				a->fwd_math = r[i].mathType;
				a->fwd_ws = r[i].memory;
			}
		}
		if (!a->have_fwd)
			die("cudnn: no forward algorithm for a %dx%d convolution %d->%d within "
			    "%.0f MB of workspace", op->k, op->k, op->cin, op->cout,
			    (double)G.ws_limit / 1048576.0);
	}
	if (op->dx && !a->have_bwd_data) {
		cudnnConvolutionBwdDataAlgoPerf_t r[MAX_ALGOS];
		CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
			G.dnn, op->wdesc, conv_w(op), op->dy->desc, op->dy->p, op->cdesc,
			op->dx->desc, op->dx->p, MAX_ALGOS, &n, r, G.ws, G.ws_limit));
		for (int i = 0; i < n && !a->have_bwd_data; i++) {
			if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= G.ws_limit &&
			    math_ok(r[i].mathType)) {
				a->have_bwd_data = 1;
				a->bwd_data = r[i].algo;
				a->bwd_data_math = r[i].mathType;
				a->bwd_data_ws = r[i].memory;
			}
		}
		if (!a->have_bwd_data)
			die("cudnn: no backward-data algorithm for a %dx%d convolution %d->%d",
			    op->k, op->k, op->cin, op->cout);
	}
	if (!a->have_bwd_filter) {
		cudnnConvolutionBwdFilterAlgoPerf_t r[MAX_ALGOS];
		CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
			G.dnn, conv_xdesc(op), conv_x(op), op->dy->desc, op->dy->p, op->cdesc,
			op->wdesc, conv_dw(op), MAX_ALGOS, &n, r, G.ws, G.ws_limit));
		for (int i = 0; i < n && !a->have_bwd_filter; i++) {
			if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= G.ws_limit &&
			    math_ok(r[i].mathType)) {
				a->have_bwd_filter = 1;
				a->bwd_filter = r[i].algo;
				a->bwd_filter_math = r[i].mathType;
				a->bwd_filter_ws = r[i].memory;
			}
		}
		if (!a->have_bwd_filter)
			die("cudnn: no backward-filter algorithm for a %dx%d convolution %d->%d",
			    op->k, op->k, op->cin, op->cout);
	}
	ws_reserve(a->fwd_ws);
	ws_reserve(a->bwd_data_ws);
	ws_reserve(a->bwd_filter_ws);
	if (G.verbose)
		fprintf(stderr,
			"bench: cudnn: conv n%d %dx%dx%d k%d %dx%d/%d: fwd algo %d (%zu B), "
			"bwd-data algo %d (%zu B), bwd-filter algo %d (%zu B)\n",
			op->x->n, op->cin, op->x->h, op->x->w, op->cout, op->k, op->k, op->stride,
			(int)a->fwd, a->fwd_ws, (int)a->bwd_data, a->bwd_data_ws,
			(int)a->bwd_filter, a->bwd_filter_ws);
}

extern "C" bk_op *
bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
	     int pad, const float *w, float *dw, int accumulate)
{
	bk_op *op = op_new(OP_CONV);
	/* NHWC (amp, bf16, --layout nhwc) wants KRSC filters: the OIHW fp32
	 * weights are cast into a copy each forward and the gradient back. */
	int krsc = G.act_fmt == CUDNN_TENSOR_NHWC;

	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->k = k;
	op->stride = stride;
	op->pad = pad;
	op->w = w;
	op->dw = dw;
	op->accumulate = accumulate;
	op->cin = x->c;
	op->cout = y->c;
	if (gpu_conv_out(x->h, k, stride, pad) != y->h || gpu_conv_out(x->w, k, stride, pad) != y->w ||
	    x->n != y->n)
		die("conv plan: %dx%d input, kernel %d stride %d pad %d does not give %dx%d",
		    x->h, x->w, k, stride, pad, y->h, y->w);
	op->cpad = op->cin;
	if (x->dt != y->dt || x->fmt != y->fmt) {
		/* The network input: fp32 NCHW cast once per step into the
		 * activation type and layout, its channels padded to a multiple
		 * of 4 for cuDNN's NHWC kernels. */
		if (x->kind != BK_IMAGE || dx)
			die("conv plan: input type differs from output type");
		op->cpad = (x->c + 3) / 4 * 4;
		op->xs = dev_alloc((size_t)x->n * op->cpad * x->h * x->w * G.act_size);
		CUDNN_CHECK(cudnnCreateTensorDescriptor(&op->xsdesc));
		CUDNN_CHECK(cudnnSetTensor4dDescriptor(op->xsdesc, G.act_fmt, G.act_dt, x->n,
						       op->cpad, x->h, x->w));
	}
	CUDNN_CHECK(cudnnCreateFilterDescriptor(&op->wdesc));
	CUDNN_CHECK(cudnnSetFilter4dDescriptor(op->wdesc, G.act_dt, G.act_fmt, op->cout, op->cpad,
					       k, k));
	CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&op->cdesc));
	CUDNN_CHECK(cudnnSetConvolution2dDescriptor(op->cdesc, pad, pad, stride, stride, 1, 1,
						    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	if (krsc) {
		size_t nw = (size_t)op->cout * op->cpad * k * k;
		op->w16 = dev_alloc(nw * G.act_size);
		op->dw16 = dev_alloc(nw * G.act_size);
	}

	struct gpu_conv_shape s = {x->n, op->cpad, x->h, x->w, y->c, k, k, stride, pad,
				   G.precision};
	int i = gpu_conv_lookup(G.shapes, G.nshapes, &s);
	if (i < 0) {
		if (G.nshapes == MAX_SHAPES)
			die("conv plan: more than %d convolution shapes", MAX_SHAPES);
		i = G.nshapes++;
		G.shapes[i] = s;
		memset(&G.algos[i], 0, sizeof G.algos[i]);
	}
	op->shape = i;
	struct conv_algos *a = &G.algos[i];
	if (!a->have_fwd || !a->have_bwd_filter || (dx && !a->have_bwd_data))
		conv_search(op, a);
	return op;
}

static void
conv_prepare_krsc(bk_op *op)
{
	size_t nw = (size_t)op->cout * op->cpad * op->k * op->k;

	if (op->xs) {
		const bk_tensor *x = op->x;
		size_t n = (size_t)x->n * op->cpad * x->h * x->w;
		ACT_DISPATCH(G.act_dt, (k_image_cast<T><<<blocks(n), THREADS, 0, G.stream>>>(
					       (const float *)x->p, (T *)op->xs, x->n, x->c,
					       op->cpad, x->h, x->w)));
		CUDA_LAUNCH_CHECK();
	}
	ACT_DISPATCH(G.act_dt, (k_weight_cast<T><<<blocks(nw), THREADS, 0, G.stream>>>(
				       op->w, (T *)op->w16, op->cout, op->cin, op->cpad, op->k,
				       op->k)));
	CUDA_LAUNCH_CHECK();
}

extern "C" void
bk_conv_forward(bk_op *op)
{
	const struct conv_algos *a = &G.algos[op->shape];
	float one = 1.0f, zero = 0.0f;

	ws_finalize();
	if (op->w16)
		conv_prepare_krsc(op);
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, a->fwd_math));
	CUDNN_CHECK(cudnnConvolutionForward(G.dnn, &one, conv_xdesc(op), conv_x(op), op->wdesc,
					    conv_w(op), op->cdesc, a->fwd, G.ws, a->fwd_ws, &zero,
					    op->y->desc, op->y->p));
}

extern "C" void
bk_conv_backward_data(bk_op *op)
{
	const struct conv_algos *a = &G.algos[op->shape];
	float one = 1.0f, beta = op->accumulate ? 1.0f : 0.0f;

	if (!op->dx)
		return;
	ws_finalize();
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, a->bwd_data_math));
	CUDNN_CHECK(cudnnConvolutionBackwardData(G.dnn, &one, op->wdesc, conv_w(op), op->dy->desc,
						 op->dy->p, op->cdesc, a->bwd_data, G.ws,
						 a->bwd_data_ws, &beta, op->dx->desc, op->dx->p));
}

extern "C" void
bk_conv_backward_weights(bk_op *op)
{
	const struct conv_algos *a = &G.algos[op->shape];
	float one = 1.0f, zero = 0.0f;

	ws_finalize();
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, a->bwd_filter_math));
	CUDNN_CHECK(cudnnConvolutionBackwardFilter(G.dnn, &one, conv_xdesc(op), conv_x(op),
						   op->dy->desc, op->dy->p, op->cdesc,
						   a->bwd_filter, G.ws, a->bwd_filter_ws, &zero,
						   op->wdesc, conv_dw(op)));
	if (op->dw16) {
		size_t nw = (size_t)op->cout * op->cin * op->k * op->k;
		ACT_DISPATCH(G.act_dt, (k_wgrad_cast<T><<<blocks(nw), THREADS, 0, G.stream>>>(
					       (const T *)op->dw16, op->dw, op->cout, op->cin,
					       op->cpad, op->k, op->k, G.scaling ? G.flag : NULL)));
		CUDA_LAUNCH_CHECK();
	}
}

/*
 * Batch norm: cuDNN's extended API (cudnnBatchNormalization*Ex). In amp
 * (fp16 NHWC, persistent mode, C % 4 == 0) cuDNN fuses the ReLU and the
 * residual add (CUDNN_BATCHNORM_OPS_BN_ACTIVATION, _BN_ADD_ACTIVATION) and its
 * backward reads y, so that needs y_kept. Elsewhere a kernel of ours applies
 * them in place on y after the batch norm, and backward masks dy from y (or,
 * where y is gone, from the pre-activation recomputed from x), into dz when
 * there is an add.
 *
 * Every configuration is tried once at plan time, forward and backward, on
 * the arena (nothing in it is live yet; running statistics kept by an
 * average factor of 0): a fused form cuDNN refuses falls back to the
 * unfused one, and a precision whose plain batch norm it refuses (bf16 on
 * an older GPU or cuDNN) stops the run at start-up with exit 2 instead of
 * at the first step.
 */
static cudnnStatus_t
bn_forward_status(bk_op *op, double momentum, float *rmean, float *rvar)
{
	float one = 1.0f, zero = 0.0f;
	int add = op->bnops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;

	return cudnnBatchNormalizationForwardTrainingEx(
		G.dnn, op->mode, op->bnops, &one, &zero, op->x->desc, op->x->p,
		add ? op->x2->desc : NULL, add ? op->x2->p : NULL, op->y->desc, op->y->p, op->pdesc,
		op->gamma, op->beta, momentum, rmean, rvar, op->eps, op->save_mean, op->save_inv,
		op->fused ? op->act : NULL, op->fwd_ws ? G.ws : NULL, op->fwd_ws, op->reserve,
		op->reserve_size);
}

/* g: the gradient the batch norm itself sees (dy, or dz after an unfused add). */
static cudnnStatus_t
bn_backward_status(bk_op *op, const bk_tensor *g)
{
	float one = 1.0f, zero = 0.0f;
	int add = op->bnops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;

	/* y and the activation only when fused (PyTorch passes none for plain BN) */
	return cudnnBatchNormalizationBackwardEx(
		G.dnn, op->mode, op->bnops, &one, &zero, &one, &zero, op->x->desc, op->x->p,
		op->fused ? op->y->desc : NULL, op->fused ? op->y->p : NULL, g->desc, g->p,
		add ? op->dx2->desc : NULL, add ? op->dx2->p : NULL, op->dx->desc, op->dx->p,
		op->pdesc, op->gamma, op->beta, op->dgamma, op->dbeta, op->eps, op->save_mean,
		op->save_inv, op->fused ? op->act : NULL, op->bwd_ws ? G.ws : NULL, op->bwd_ws,
		op->reserve, op->reserve_size);
}

static const bk_tensor *
bn_grad_in(const bk_op *op)
{
	return op->x2 && !op->fused ? op->dx2 : op->dy;
}

/* Sizes for the form 'fused' says, then one trial of it: cuDNN's verdict. */
static cudnnStatus_t
bn_configure(bk_op *op, int fused)
{
	int add = fused && op->x2;
	cudnnStatus_t st;

	if (op->reserve) {
		CUDA_CHECK(cudaFree(op->reserve));
		op->reserve = NULL;
	}
	op->fused = fused;
	op->bnops = !fused ? CUDNN_BATCHNORM_OPS_BN
		    : add  ? CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION
			   : CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
	cudnnActivationDescriptor_t act = fused ? op->act : NULL;
	st = cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
		G.dnn, op->mode, op->bnops, op->x->desc, add ? op->x2->desc : NULL, op->y->desc,
		op->pdesc, act, &op->fwd_ws);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnGetBatchNormalizationBackwardExWorkspaceSize(
			G.dnn, op->mode, op->bnops, op->x->desc, fused ? op->y->desc : NULL,
			bn_grad_in(op)->desc, add ? op->dx2->desc : NULL, op->dx->desc, op->pdesc,
			act, &op->bwd_ws);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
			G.dnn, op->mode, op->bnops, act, op->x->desc, &op->reserve_size);
	if (st != CUDNN_STATUS_SUCCESS)
		return st;
	/* Without a workspace cuDNN runs the non-extended function, which has
	 * no activation: a fused form must have one. */
	if (fused && (op->fwd_ws == 0 || op->bwd_ws == 0))
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (op->reserve_size)
		op->reserve = dev_alloc(op->reserve_size);
	size_t ws = op->fwd_ws > op->bwd_ws ? op->fwd_ws : op->bwd_ws;
	ws_grow(ws);
	/* the running statistics as they will be passed, but with a factor of 0
	 * they stay as they are (main uploads them after planning anyway) */
	st = bn_forward_status(op, 0.0, op->rmean, op->rvar);
	if (st == CUDNN_STATUS_SUCCESS)
		st = bn_backward_status(op, bn_grad_in(op));
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	if (st == CUDNN_STATUS_SUCCESS)
		ws_reserve(ws);
	return st;
}

extern "C" bk_op *
bk_bn_plan(bk_tensor *x, bk_tensor *z, bk_tensor *y, bk_tensor *dx, bk_tensor *dz,
	   bk_tensor *dy, int relu, int y_kept, const float *gamma, const float *beta,
	   float *dgamma, float *dbeta, float *running_mean, float *running_var, float eps,
	   float momentum)
{
	bk_op *op = op_new(OP_BN);
	size_t c = (size_t)x->c;

	if (!dx || !dy || elems(x) != elems(y) || x->dt != y->dt || x->fmt != y->fmt)
		die("bn plan: x, y, dx and dy must all be given, of one shape and type");
	if (z && (!relu || !y_kept || !dz || elems(z) != elems(y) || z->dt != y->dt ||
		  z->fmt != y->fmt))
		die("bn plan: an add needs the ReLU, y kept, and z and dz shaped as y");
	op->x = x;
	op->x2 = z;
	op->y = y;
	op->dx = dx;
	op->dx2 = dz;
	op->dy = dy;
	op->relu = relu;
	op->y_kept = y_kept;
	op->gamma = gamma;
	op->beta = beta;
	op->dgamma = dgamma;
	op->dbeta = dbeta;
	op->rmean = running_mean;
	op->rvar = running_var;
	op->eps = eps < CUDNN_BN_MIN_EPSILON ? CUDNN_BN_MIN_EPSILON : eps;
	op->momentum = momentum;
	/* Persistent kernels for fp16 NHWC, where the fused forms need them and
	 * PyTorch and MXNet use them; the plain mode elsewhere (bf16 included). */
	op->mode = G.act_dt == CUDNN_DATA_HALF && G.act_fmt == CUDNN_TENSOR_NHWC
			   ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT
			   : CUDNN_BATCHNORM_SPATIAL;
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&op->pdesc));
	CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(op->pdesc, x->desc, op->mode));
	op->save_mean = (float *)dev_alloc(c * sizeof(float));
	op->save_inv = (float *)dev_alloc(c * sizeof(float));
	CUDNN_CHECK(cudnnCreateActivationDescriptor(&op->act));
	CUDNN_CHECK(cudnnSetActivationDescriptor(op->act, CUDNN_ACTIVATION_RELU,
						 CUDNN_PROPAGATE_NAN, 0.0));
	int fuse = relu && y_kept && op->mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT && c % 4 == 0;
	cudnnStatus_t st = fuse ? bn_configure(op, 1) : CUDNN_STATUS_NOT_SUPPORTED;
	if (st != CUDNN_STATUS_SUCCESS)
		st = bn_configure(op, 0);
	if (st != CUDNN_STATUS_SUCCESS) {
		fprintf(stderr,
			"bench: --precision %s: cuDNN %zu cannot run batch norm on %dx%dx%d %s "
			"activations on this GPU: %s\n",
			precision_name(G.precision), cudnnGetVersion(), x->c, x->h, x->w,
			G.act_fmt == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW", cudnnGetErrorString(st));
		comm_abort(2);
	}
	if (G.verbose && G.local_rank == 0)
		fprintf(stderr, "bench: cudnn: batch norm %dx%dx%d%s%s: %s\n", x->c, x->h, x->w,
			relu ? " +relu" : "", z ? " +add" : "",
			op->fused ? "fused" : relu ? "our ReLU kernels" : "plain");
	return op;
}

extern "C" void
bk_bn_forward(bk_op *op)
{
	ws_finalize();
	CUDNN_CHECK(bn_forward_status(op, op->momentum, op->rmean, op->rvar));
	if (op->relu && !op->fused) {
		size_t n = elems(op->y);
		ACT_DISPATCH(op->y->dt, (k_add_relu<T><<<blocks(n), THREADS, 0, G.stream>>>(
						 (T *)op->y->p, op->x2 ? (const T *)op->x2->p : NULL,
						 n)));
		CUDA_LAUNCH_CHECK();
	}
}

extern "C" void
bk_bn_backward(bk_op *op)
{
	const bk_tensor *x = op->x;

	ws_finalize();
	if (op->relu && !op->fused) {
		size_t n = elems(x);
		if (op->y_kept) {
			/* into dz with an add (both of its inputs get it), else
			 * in place: nothing reads dy after us */
			const bk_tensor *g = bn_grad_in(op);
			ACT_DISPATCH(x->dt, (k_relu_back<T><<<blocks(n), THREADS, 0, G.stream>>>(
						     (const T *)op->y->p, (const T *)op->dy->p,
						     (T *)g->p, n)));
		} else {
			ACT_DISPATCH(x->dt,
				     (k_bn_relu_back<T><<<blocks(n), THREADS, 0, G.stream>>>(
					     (const T *)x->p, (T *)op->dy->p, op->save_mean,
					     op->save_inv, op->gamma, op->beta, n, x->c,
					     (size_t)x->h * x->w, x->fmt == CUDNN_TENSOR_NHWC)));
		}
		CUDA_LAUNCH_CHECK();
	}
	CUDNN_CHECK(bn_backward_status(op, bn_grad_in(op)));
	if (G.scaling) {
		bk_cuda_check_finite(op->dgamma, (size_t)x->c);
		bk_cuda_check_finite(op->dbeta, (size_t)x->c);
	}
}

extern "C" bk_op *
bk_maxpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		int pad)
{
	bk_op *op = op_new(OP_MAXPOOL);

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

extern "C" void
bk_maxpool_forward(bk_op *op)
{
	const bk_tensor *x = op->x, *y = op->y;

	ACT_DISPATCH(x->dt, (k_maxpool<T><<<blocks(elems(y)), THREADS, 0, G.stream>>>(
				     (const T *)x->p, (T *)y->p, op->arg, x->n, x->c, x->h, x->w,
				     y->h, y->w, op->k, op->stride, op->pad,
				     x->fmt == CUDNN_TENSOR_NHWC)));
	CUDA_LAUNCH_CHECK();
}

extern "C" void
bk_maxpool_backward(bk_op *op)
{
	const bk_tensor *dx = op->dx, *dy = op->dy;

	if (!dx)
		return;
	ACT_DISPATCH(dx->dt, (k_maxpool_back<T><<<blocks(elems(dx)), THREADS, 0, G.stream>>>(
				      (const T *)dy->p, op->arg, (T *)dx->p, dx->n, dx->c, dx->h,
				      dx->w, dy->h, dy->w, op->k, op->stride, op->pad,
				      dx->fmt == CUDNN_TENSOR_NHWC)));
	CUDA_LAUNCH_CHECK();
}

extern "C" bk_op *
bk_avgpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	bk_op *op = op_new(OP_AVGPOOL);

	if (y->kind != BK_MATRIX || y->n != x->n || y->c != x->c)
		die("avgpool plan: output must be a [%d][%d] matrix", x->n, x->c);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	return op;
}

extern "C" void
bk_avgpool_forward(bk_op *op)
{
	const bk_tensor *x = op->x;
	int nhwc = x->fmt == CUDNN_TENSOR_NHWC;

	ACT_DISPATCH(x->dt, (k_avgpool<T><<<blocks((size_t)x->n * x->c), THREADS, 0, G.stream>>>(
				     (const T *)x->p, (float *)op->y->p, x->n, x->c, x->h * x->w,
				     nhwc)));
	CUDA_LAUNCH_CHECK();
}

extern "C" void
bk_avgpool_backward(bk_op *op)
{
	const bk_tensor *dx = op->dx;

	if (!dx)
		return;
	ACT_DISPATCH(dx->dt, (k_avgpool_back<T><<<blocks(elems(dx)), THREADS, 0, G.stream>>>(
				      (const float *)op->dy->p, (T *)dx->p, dx->n, dx->c,
				      dx->h * dx->w, dx->fmt == CUDNN_TENSOR_NHWC)));
	CUDA_LAUNCH_CHECK();
}

/* Fully connected on cuBLAS (column-major): with x [n][in] and w [out][in]
 * row-major, x is in x n and w is in x out column-major, so
 * y (out x n) = w^T x, dx (in x n) = w dy, dw (in x out) = x dy^T. */
extern "C" bk_op *
bk_fc_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *w,
	   const float *b, float *dw, float *db)
{
	bk_op *op = op_new(OP_FC);

	if (x->kind != BK_MATRIX || y->kind != BK_MATRIX || x->n != y->n)
		die("fc plan: x and y must be matrices of the same batch");
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->w = w;
	op->b = b;
	op->dw = dw;
	op->db = db;
	op->cin = x->c;
	op->cout = y->c;
	return op;
}

extern "C" void
bk_fc_forward(bk_op *op)
{
	float one = 1.0f, zero = 0.0f;
	int n = op->x->n;

	CUBLAS_CHECK(cublasSgemm(G.blas, CUBLAS_OP_T, CUBLAS_OP_N, op->cout, n, op->cin, &one,
				 op->w, op->cin, (const float *)op->x->p, op->cin, &zero,
				 (float *)op->y->p, op->cout));
	k_bias<<<blocks((size_t)n * op->cout), THREADS, 0, G.stream>>>((float *)op->y->p, op->b,
									n, op->cout);
	CUDA_LAUNCH_CHECK();
}

extern "C" void
bk_fc_backward(bk_op *op)
{
	float one = 1.0f, zero = 0.0f;
	int n = op->x->n;

	if (op->dx)
		CUBLAS_CHECK(cublasSgemm(G.blas, CUBLAS_OP_N, CUBLAS_OP_N, op->cin, n, op->cout,
					 &one, op->w, op->cin, (const float *)op->dy->p, op->cout,
					 &zero, (float *)op->dx->p, op->cin));
	CUBLAS_CHECK(cublasSgemm(G.blas, CUBLAS_OP_N, CUBLAS_OP_T, op->cin, op->cout, n, &one,
				 (const float *)op->x->p, op->cin, (const float *)op->dy->p,
				 op->cout, &zero, op->dw, op->cin));
	k_bias_back<<<blocks((size_t)op->cout), THREADS, 0, G.stream>>>(
		(const float *)op->dy->p, op->db, n, op->cout);
	CUDA_LAUNCH_CHECK();
	if (G.scaling) {
		bk_cuda_check_finite(op->dw, (size_t)op->cout * op->cin);
		bk_cuda_check_finite(op->db, (size_t)op->cout);
	}
}

/* ---- loss and update ----------------------------------------------------------- */

/*
 * amp: read the last step's overflow flag (its update is queued before us,
 * so it is final once the stream is idle), advance the loss scale and clear
 * the flag for the next step.
 */
static void
settle(void)
{
	if (!G.pending)
		return;
	CUDA_CHECK(cudaMemcpyAsync(G.flag_host, G.flag, sizeof(int), cudaMemcpyDeviceToHost,
				   G.stream));
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	lossscale_update(&G.ls, *G.flag_host);
	CUDA_CHECK(cudaMemsetAsync(G.flag, 0, sizeof(int), G.stream));
	G.pending = G.updated = 0;
}

/*
 * Queued, never waited on: the loss of each row goes to pinned memory behind
 * the kernel, and the GPU goes on into backward. The loss gradient is scaled
 * by the loss scale the last step settled (bk_sync).
 */
extern "C" void
bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing, float scale,
	      bk_tensor *dlogits)
{
	int n = logits->n, k = logits->c;

	if (logits->kind != BK_MATRIX || dlogits->kind != BK_MATRIX)
		die("softmax_ce: logits must be a matrix");
	if (n > G.loss_cap) {
		if (G.loss_rows) {
			CUDA_CHECK(cudaStreamSynchronize(G.stream));
			CUDA_CHECK(cudaFree(G.loss_rows));
			CUDA_CHECK(cudaFreeHost(G.loss_host));
		}
		G.loss_rows = (float *)dev_alloc((size_t)n * sizeof(float));
		CUDA_CHECK(cudaMallocHost((void **)&G.loss_host, (size_t)n * sizeof(float)));
		G.loss_cap = n;
	}
	settle(); /* a step without an update: its verdict is read here */
	/* A row per thread (mathk.h's serial row, double sums): 32-thread blocks
	 * spread the rows over the SMs. */
	k_softmax_ce<<<(unsigned)((n + 31) / 32), 32, 0, G.stream>>>(
		(const float *)logits->p, labels, n, k, smoothing, scale * G.ls.scale,
		(float *)dlogits->p, G.loss_rows);
	CUDA_LAUNCH_CHECK();
	G.pending = G.scaling;
	CUDA_CHECK(cudaMemcpyAsync(G.loss_host, G.loss_rows, (size_t)n * sizeof(float),
				   cudaMemcpyDeviceToHost, G.stream));
	G.loss_n = n;
}

extern "C" float
bk_loss(void)
{
	double sum = 0.0;

	CUDA_CHECK(cudaStreamSynchronize(G.stream)); /* idle after bk_sync: no wait */
	for (int i = 0; i < G.loss_n; i++)
		sum += G.loss_host[i];
	return G.loss_n ? (float)(sum / G.loss_n) : 0.0f;
}

/* backend.h's overflow check: waits for the answer (the backend's own loss
 * scaling does not need it: its check and skip stay on the device). */
extern "C" int
bk_all_finite(const float *x, size_t n)
{
	if (n == 0)
		return 1;
	CUDA_CHECK(cudaMemsetAsync(G.check, 0, sizeof(int), G.stream));
	k_check_finite<<<blocks(n), THREADS, 0, G.stream>>>(x, n, G.check);
	CUDA_LAUNCH_CHECK();
	CUDA_CHECK(cudaMemcpyAsync(G.check_host, G.check, sizeof(int), cudaMemcpyDeviceToHost,
				   G.stream));
	CUDA_CHECK(cudaStreamSynchronize(G.stream));
	return *G.check_host == 0;
}

extern "C" bk_op *
bk_sgd_plan(float *w, const float *g, float *buf, size_t n, const size_t *lo, const size_t *hi,
	    int nseg)
{
	bk_op *op = op_new(OP_SGD);
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

extern "C" void
bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd)
{
	size_t n = op->sgd_n;

	if (n == 0)
		return;
	k_sgd<<<blocks(n), THREADS, 0, G.stream>>>(op->sgd_w, op->sgd_g, op->sgd_buf, n, op->seg_lo,
						  op->seg_hi, op->nseg,
						  grad_scale * lossscale_inv(&G.ls), lr, momentum,
						  wd, G.flag);
	CUDA_LAUNCH_CHECK();
	G.updated = G.pending;
}
