/*
 * bench/elementwise.h: element math shared by every backend. Included by the C
 * backends and by the CUDA kernels, so the update and the loss are written
 * once and tested on the CPU. Everything is static inline and touches only
 * the arguments it is given.
 */
#ifndef BENCH_ELEMENTWISE_H
#define BENCH_ELEMENTWISE_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define BENCH_HD __host__ __device__
#else
#define BENCH_HD
#endif

/*
 * One SGD element as torch.optim.SGD (dampening 0, no Nesterov): weight
 * decay is added to the gradient, the momentum buffer starts at 0 so the
 * first step stores the gradient itself, then w -= lr * buf. grad_scale
 * multiplies the raw gradient first (1 when the loss gradient is already
 * divided by the global batch).
 */
static inline BENCH_HD void ew_sgd(float *w, float *buf, float g, float grad_scale, float lr,
				   float momentum, float wd)
{
	float d = g * grad_scale + wd * *w;
	float b = momentum * *buf + d;
	*buf = b;
	*w = *w - lr * b;
}

/*
 * Weight decay applies to some ranges of the flat parameter buffer (conv and
 * fc weights), given as nseg ascending, disjoint [lo[k], hi[k]). Returns the
 * first range that ends after element i (nseg if none): i is in range k iff
 * k < nseg and lo[k] <= i. A binary search, for one element (a GPU thread);
 * a loop over ascending i can start from it and step on.
 */
static inline BENCH_HD int ew_range_after(size_t i, const size_t *hi, int nseg)
{
	int a = 0, b = nseg;
	while (a < b) {
		int mid = a + (b - a) / 2;
		if (hi[mid] <= i)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* Label-smoothed target of class j as torch's cross_entropy(label_smoothing=s). */
static inline BENCH_HD float ew_target(int j, int label, int k, float s)
{
	return (j == label ? 1.0f - s : 0.0f) + s / (float)k;
}

/*
 * Softmax cross-entropy of one row of k logits z with integer label and
 * label smoothing s. Returns the row's loss (natural log, not averaged);
 * writes dz[j] = scale * (softmax(z)_j - target_j), scale = 1 / global batch
 * so that a sum over ranks gives the mean gradient. Max-subtracted, sums in
 * double for a loss accurate to fp32 rounding at 1000 classes.
 */
static inline BENCH_HD float ew_softmax_ce_row(const float *z, int k, int label, float s,
					       float scale, float *dz)
{
	float mx = z[0];
	for (int j = 1; j < k; j++)
		mx = z[j] > mx ? z[j] : mx;
	double sum = 0.0;
	for (int j = 0; j < k; j++)
		sum += exp((double)(z[j] - mx));
	double lse = log(sum) + (double)mx;
	double loss = 0.0;
	for (int j = 0; j < k; j++) {
		double logp = (double)z[j] - lse;
		double t = (double)ew_target(j, label, k, s);
		loss -= t * logp;
		dz[j] = scale * (float)(exp(logp) - t);
	}
	return (float)loss;
}

/*
 * BN running statistics as torch (momentum 0.1): the variance stored is the
 * unbiased one, var * m / (m - 1) with m = elements per channel.
 */
static inline BENCH_HD void ew_bn_running(float *rmean, float *rvar, float mean, float var,
					  float momentum, double m)
{
	double unbiased = m > 1.0 ? (double)var * m / (m - 1.0) : (double)var;
	*rmean = (1.0f - momentum) * *rmean + momentum * mean;
	*rvar = (1.0f - momentum) * *rvar + momentum * (float)unbiased;
}

#endif
