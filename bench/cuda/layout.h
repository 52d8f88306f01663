/*
 * bench/cuda/layout.h: the index maps of the CUDA backend's layout kernels
 * (kernels.cu) and of max pooling's backward (pool.cu), written once for
 * the kernels and the CPU tests (bin/test-gpu-host). Activations: NCHW
 * (fp32) and NHWC (fp16, bf16); weights: OIHW (the flat parameter buffer,
 * PyTorch's) and KRSC (cuDNN's NHWC filters). Plain C, no CUDA types.
 */
#ifndef BENCH_CUDA_LAYOUT_H
#define BENCH_CUDA_LAYOUT_H

#include <stddef.h>

#include "hd.h"

/* NCHW index of the element at NHWC index i. */
static inline GPU_HD size_t gpu_nhwc_to_nchw(size_t i, size_t c, size_t h, size_t w)
{
	size_t ci = i % c, p = i / c, wi = p % w, hi = (p / w) % h, ni = p / (w * h);

	return ((ni * c + ci) * h + hi) * w + wi;
}

/* NHWC index of the element at NCHW index i. */
static inline GPU_HD size_t gpu_nchw_to_nhwc(size_t i, size_t c, size_t h, size_t w)
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
static inline GPU_HD size_t gpu_krsc_to_oihw_pad(size_t i, size_t c, size_t cpad, size_t r,
						 size_t s)
{
	size_t ci = i % cpad, si = (i / cpad) % s, ri = (i / (cpad * s)) % r;
	size_t ki = i / (cpad * s * r);

	return ci >= c ? GPU_PAD : ((ki * c + ci) * r + ri) * s + si;
}

/* Padded-KRSC index of the weight at OIHW index i. */
static inline GPU_HD size_t gpu_oihw_to_krsc_pad(size_t i, size_t c, size_t cpad, size_t r,
						 size_t s)
{
	size_t si = i % s, ri = (i / s) % r, ci = (i / (s * r)) % c, ki = i / (s * r * c);

	return ((ki * r + ri) * s + si) * cpad + ci;
}

/* Unpadded (cpad = c): OIHW index of the weight at KRSC index i. */
static inline GPU_HD size_t gpu_krsc_to_oihw(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_krsc_to_oihw_pad(i, c, c, r, s);
}

/* KRSC index of the weight at OIHW index i. */
static inline GPU_HD size_t gpu_oihw_to_krsc(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_oihw_to_krsc_pad(i, c, c, r, s);
}

/* The fp32 NCHW image at NHWC index i of its cpad-channel copy, or GPU_PAD. */
static inline GPU_HD size_t gpu_nhwc_pad_to_nchw(size_t i, size_t c, size_t cpad, size_t h,
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
static inline GPU_HD void gpu_pool_range(int i, int k, int s, int pad, int out, int *lo, int *hi)
{
	int first = i + pad - k + 1; /* o * s >= first */

	*lo = first <= 0 ? 0 : (first + s - 1) / s;
	*hi = (i + pad) / s;
	if (*hi > out - 1)
		*hi = out - 1;
}

#endif
