/*
 * bench/margin.h: ArcFace's additive angular margin (Deng et al., 2019) on
 * the target's cosine, in insightface's form, and its derivative; and the
 * dropout's keep mask. Element math shared by both backends (as
 * elementwise.h), tested on the CPU through the PyTorch check.
 */
#ifndef BENCH_MARGIN_H
#define BENCH_MARGIN_H

#include <math.h>
#include <stdint.h>

#include "elementwise.h"

/* cos m, sin m, and insightface's threshold cos(pi - m) and fallback
 * slope sin(pi - m) m, for margin m. */
struct margin {
	float cos_m, sin_m, th, mm;
};

static inline struct margin margin_make(float m)
{
	struct margin k;
	k.cos_m = (float)cos((double)m);
	k.sin_m = (float)sin((double)m);
	k.th = (float)cos(M_PI - (double)m);
	k.mm = (float)(sin(M_PI - (double)m) * (double)m);
	return k;
}

/* A cosine, rounded into [-1, 1] (a normalised dot product may miss by an
 * ulp): insightface clamps the logits the same way. Its gradient is taken
 * as 1: it clamps only rounding. */
static inline BENCH_HD float margin_clamp(float c)
{
	return c > 1.0f ? 1.0f : c < -1.0f ? -1.0f : c;
}

/*
 * The target's margined cosine phi(c) = cos(theta + m) = c cos m - sin(theta)
 * sin m while c > cos(pi - m), else c - sin(pi - m) m (insightface's ArcFace:
 * keeps phi falling past theta = pi - m); *dphi = d phi / d c: cos m + sin m
 * c / sin(theta), else 1. At sin(theta) = 0 (c = 1) the derivative's
 * second term is left out rather than infinite.
 */
static inline BENCH_HD float margin_phi(float c, struct margin k, float *dphi)
{
	if (c > k.th) {
		float s = sqrtf(fmaxf(0.0f, 1.0f - c * c));
		*dphi = k.cos_m + (s > 0.0f ? k.sin_m * c / s : 0.0f);
		return c * k.cos_m - s * k.sin_m;
	}
	*dphi = 1.0f;
	return c - k.mm;
}

/*
 * Dropout's mask: element j of sample 'sample' (its index in the global
 * batch sequence, so R ranks x B keep what 1 rank x R B keeps) at step
 * 'step' is kept with probability 1 - p, from a hash of (seed, step,
 * sample, j): both backends draw the same mask, and backward redraws it
 * instead of storing it.
 */
static inline BENCH_HD uint64_t dropout_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The step's key, once a step; then each element's draw from it. */
static inline BENCH_HD uint64_t dropout_key(uint64_t seed, uint64_t step)
{
	return dropout_mix(seed * 0x9e3779b97f4a7c15ULL + step);
}

static inline BENCH_HD int dropout_keep_at(uint64_t key, uint64_t sample, uint32_t j, float p)
{
	uint64_t h = dropout_mix(key ^ (sample * 0xd1b54a32d192ed03ULL + j));
	/* the top 24 bits as a float in [0, 1): exact */
	return (float)(h >> 40) * (1.0f / 16777216.0f) >= p;
}

static inline BENCH_HD int dropout_keep(uint64_t seed, uint64_t step, uint64_t sample, uint32_t j,
					float p)
{
	return dropout_keep_at(dropout_key(seed, step), sample, j, p);
}

#endif
