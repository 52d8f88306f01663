/*
 * bench/cuda/index.h: the 32-bit index arithmetic of the CUDA backend's
 * kernels, tested on the CPU (bin/test-gpu-host). Every tensor has fewer
 * than 2^31 elements (bk_tensor_create refuses more), so the kernels index
 * in 32 bits, and divide by a tensor's dimensions with a multiply-high and
 * a shift instead of a division (PyTorch's IntDivider): q = (umulhi(n, m) +
 * n) >> s, exact for n, d < 2^31. Plain C, no CUDA types.
 */
#ifndef BENCH_CUDA_INDEX_H
#define BENCH_CUDA_INDEX_H

#include <stdint.h>

#include "hd.h"

struct gpu_div {
	uint32_t d, m, s;
};

static inline struct gpu_div gpu_div_make(uint32_t d)
{
	struct gpu_div v;
	uint32_t s = 0;

	while (s < 31 && (UINT32_C(1) << s) < d)
		s++;
	v.d = d;
	v.s = s;
	v.m = (uint32_t)(((UINT64_C(1) << 32) * ((UINT64_C(1) << s) - d)) / d + 1);
	return v;
}

static inline GPU_HD uint32_t gpu_div_q(struct gpu_div v, uint32_t n)
{
#ifdef __CUDA_ARCH__
	uint32_t t = __umulhi(n, v.m);
#else
	uint32_t t = (uint32_t)(((uint64_t)n * v.m) >> 32);
#endif
	return (t + n) >> v.s;
}

/* Coordinates of one element (or one group of channels: see below). */
struct gpu_pos {
	uint32_t n, c, h, w;
};

/*
 * The element at index i of an NHWC tensor of c channels, w columns and h
 * rows. The vectorised NHWC kernels handle V channels at once: they call it
 * with c / V "channels" and multiply pos.c by V.
 */
static inline GPU_HD struct gpu_pos gpu_nhwc_pos(uint32_t i, struct gpu_div c, struct gpu_div w,
						 struct gpu_div h)
{
	struct gpu_pos p;
	uint32_t q = gpu_div_q(c, i), r;

	p.c = i - q * c.d;
	r = gpu_div_q(w, q);
	p.w = q - r * w.d;
	p.n = gpu_div_q(h, r);
	p.h = r - p.n * h.d;
	return p;
}

/* The element at index i of an NCHW tensor. */
static inline GPU_HD struct gpu_pos gpu_nchw_pos(uint32_t i, struct gpu_div w, struct gpu_div h,
						 struct gpu_div c)
{
	struct gpu_pos p;
	uint32_t q = gpu_div_q(w, i), r;

	p.w = i - q * w.d;
	r = gpu_div_q(h, q);
	p.h = q - r * h.d;
	p.n = gpu_div_q(c, r);
	p.c = r - p.n * c.d;
	return p;
}

static inline GPU_HD uint32_t gpu_nhwc_at(struct gpu_pos p, uint32_t c, uint32_t h, uint32_t w)
{
	return ((p.n * h + p.h) * w + p.w) * c + p.c;
}

static inline GPU_HD uint32_t gpu_nchw_at(struct gpu_pos p, uint32_t c, uint32_t h, uint32_t w)
{
	return ((p.n * c + p.c) * h + p.h) * w + p.w;
}

/*
 * The channel of group i (V elements) of a tensor: NHWC, cg = c / V groups
 * of channels: the first channel of the group; NCHW (h * w a multiple of
 * V), hwg = h * w / V groups a plane: the channel of all V.
 */
static inline GPU_HD uint32_t gpu_group_channel(uint32_t i, int nhwc, struct gpu_div cg,
						struct gpu_div hwg, struct gpu_div c, uint32_t v)
{
	uint32_t q;

	if (nhwc)
		return (i - gpu_div_q(cg, i) * cg.d) * v;
	q = gpu_div_q(hwg, i);
	return q - gpu_div_q(c, q) * c.d;
}

#endif
