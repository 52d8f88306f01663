/*
 * bench/cuda/plan.h: host-side planning for the CUDA backend, plain C so the
 * CPU tests cover it (bin/test-gpu-host): the index maps of the layout
 * kernels, max pooling's windows, which convolution shapes are distinct
 * (cudnnFind runs once per shape) and how much workspace a search may use.
 * No CUDA types here.
 */
#ifndef BENCH_CUDA_PLAN_H
#define BENCH_CUDA_PLAN_H

#include <stddef.h>

#ifdef __CUDACC__
#define PLAN_HD __host__ __device__
#else
#define PLAN_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- layouts --------------------------------------------------------- */
/*
 * Index maps of the layout kernels, written once for the kernels and the
 * CPU tests. Activations: NCHW (fp32) and NHWC (fp16, bf16); weights: OIHW
 * (the flat parameter buffer, PyTorch's) and KRSC (cuDNN's NHWC filters).
 */

/* NCHW index of the element at NHWC index i. */
static inline PLAN_HD size_t gpu_nhwc_to_nchw(size_t i, size_t c, size_t h, size_t w)
{
	size_t ci = i % c, p = i / c, wi = p % w, hi = (p / w) % h, ni = p / (w * h);

	return ((ni * c + ci) * h + hi) * w + wi;
}

/* NHWC index of the element at NCHW index i. */
static inline PLAN_HD size_t gpu_nchw_to_nhwc(size_t i, size_t c, size_t h, size_t w)
{
	size_t wi = i % w, hi = (i / w) % h, ci = (i / (w * h)) % c, ni = i / (w * h * c);

	return ((ni * h + hi) * w + wi) * c + ci;
}

/*
 * Weights. cpad >= c: KRSC with its input channels padded to cpad (cuDNN's
 * NHWC fp16 kernels want the 3 channels of the image padded to 4; PyTorch
 * and NVIDIA's examples do the same). GPU_PAD: a padding position.
 */
#define GPU_PAD ((size_t)-1)

/* OIHW index of the weight at padded-KRSC index i, or GPU_PAD. */
static inline PLAN_HD size_t gpu_krsc_to_oihw_pad(size_t i, size_t c, size_t cpad, size_t r,
						  size_t s)
{
	size_t ci = i % cpad, si = (i / cpad) % s, ri = (i / (cpad * s)) % r;
	size_t ki = i / (cpad * s * r);

	return ci >= c ? GPU_PAD : ((ki * c + ci) * r + ri) * s + si;
}

/* Padded-KRSC index of the weight at OIHW index i. */
static inline PLAN_HD size_t gpu_oihw_to_krsc_pad(size_t i, size_t c, size_t cpad, size_t r,
						  size_t s)
{
	size_t si = i % s, ri = (i / s) % r, ci = (i / (s * r)) % c, ki = i / (s * r * c);

	return ((ki * r + ri) * s + si) * cpad + ci;
}

/* Unpadded (cpad = c): OIHW index of the weight at KRSC index i. */
static inline PLAN_HD size_t gpu_krsc_to_oihw(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_krsc_to_oihw_pad(i, c, c, r, s);
}

/* KRSC index of the weight at OIHW index i. */
static inline PLAN_HD size_t gpu_oihw_to_krsc(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_oihw_to_krsc_pad(i, c, c, r, s);
}

/* The fp32 NCHW image at NHWC index i of its cpad-channel copy, or GPU_PAD. */
static inline PLAN_HD size_t gpu_nhwc_pad_to_nchw(size_t i, size_t c, size_t cpad, size_t h,
						  size_t w)
{
	size_t ci = i % cpad, p = i / cpad, wi = p % w, hi = (p / w) % h, ni = p / (w * h);

	return ci >= c ? GPU_PAD : ((ni * c + ci) * h + hi) * w + wi;
}

/*
 * Max pooling's backward as a gather: the outputs whose k-wide window
 * (stride s, padding pad) covers input position i are lo .. hi inclusive
 * (lo > hi: none), clipped to [0, out).
 */
static inline PLAN_HD void gpu_pool_range(int i, int k, int s, int pad, int out, int *lo, int *hi)
{
	int first = i + pad - k + 1; /* o * s >= first */

	*lo = first <= 0 ? 0 : (first + s - 1) / s;
	*hi = (i + pad) / s;
	if (*hi > out - 1)
		*hi = out - 1;
}

/* ---- convolution shapes ---------------------------------------------- */

/* One convolution as cuDNN sees it (batch included). */
struct gpu_conv_shape {
	int n, c, h, w; /* input */
	int k, r, s;    /* output channels, filter height, width */
	int stride, pad;
	int dtype; /* the precision (enum bk_precision): the algorithms depend on it */
};

/* Output height and width of a convolution (floor, as cuDNN and PyTorch). */
int gpu_conv_out(int in, int filt, int stride, int pad);

/*
 * Give each of n shapes the index of its first equal shape: idx[i] == i for
 * the shapes cudnnFind must search, idx[i] < i for repeats. Returns the
 * number of distinct shapes.
 */
int gpu_conv_dedup(const struct gpu_conv_shape *shape, int n, int *idx);

/* Index of the shape equal to s among tab[0 .. n), or -1. */
int gpu_conv_lookup(const struct gpu_conv_shape *tab, int n, const struct gpu_conv_shape *s);

/*
 * The workspace a cudnnFind search may use: at most cap bytes (0 = no cap of
 * our own) and at most a fraction 'frac' of the free device memory left
 * after parameters and activations are allocated.
 */
size_t gpu_workspace_limit(size_t cap, size_t free_bytes, double frac);

#ifdef __cplusplus
}
#endif

#endif
