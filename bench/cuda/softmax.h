/*
 * bench/cuda/softmax.h: softmax cross-entropy, a warp per row (loss.cu).
 * The lanes of a warp each take the logits j = lane, lane + lanes, ...: a
 * running maximum and sum of exp (online softmax), merged across lanes by a
 * butterfly, then each lane writes its dz and adds its share of the loss.
 * In float; the CPU tests (bin/test-gpu-host) compare a 32-lane emulation
 * with ew_softmax_ce_row (double) at 1000 classes. Plain C, no CUDA types.
 */
#ifndef BENCH_CUDA_SOFTMAX_H
#define BENCH_CUDA_SOFTMAX_H

#include <math.h>

#include "hd.h"

static inline GPU_HD void gpu_sm_merge(float *m, float *s, float m2, float s2)
{
	float mx = *m > m2 ? *m : m2;

	if (mx == -INFINITY)
		return; /* both empty */
	*s = *s * expf(*m - mx) + s2 * expf(m2 - mx);
	*m = mx;
}

static inline GPU_HD void gpu_sm_lane_stats(const float *z, int k, int lane, int lanes, float *m,
					    float *s)
{
	*m = -INFINITY;
	*s = 0.0f;
	for (int j = lane; j < k; j += lanes)
		gpu_sm_merge(m, s, z[j], 1.0f);
}

/* dz of the lane's logits; returns the lane's share of the row's loss. */
static inline GPU_HD float gpu_sm_lane_out(const float *z, int k, int lane, int lanes, int label,
					   float smoothing, float scale, float lse, float *dz)
{
	float loss = 0.0f;

	for (int j = lane; j < k; j += lanes) {
		float logp = z[j] - lse;
		float t = (j == label ? 1.0f - smoothing : 0.0f) + smoothing / (float)k;
		loss -= t * logp;
		dz[j] = scale * (expf(logp) - t);
	}
	return loss;
}

#endif
