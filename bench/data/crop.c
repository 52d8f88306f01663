/*
 * bench/data/crop.c: torchvision's RandomResizedCrop box, PIL's antialiased
 * bilinear resize (the filter torchvision's Resize applies to PIL images) one
 * axis at a time, and the per-sample random numbers. Pure computation: no
 * files, no threads.
 */
#include <math.h>
#include <stdlib.h>

#include "data.h"
#include "lib.h"

/* Python's round(): halves to even (the default rounding mode). */
static long round_even(double x)
{
	return (long)nearbyint(x);
}

void rrc_box(int width, int height, const draws *d, int box[4])
{
	double area = (double)width * (double)height;
	/* torch.log(torch.tensor((3/4, 4/3))): float32 */
	float lr0 = logf((float)(3.0 / 4.0)), lr1 = logf((float)(4.0 / 3.0));
	long w, h;
	for (int t = 0; t < 10; t++) {
		double target = area * d->uniform(d->ctx, 0.08, 1.0);
		double ar = (double)expf((float)d->uniform(d->ctx, lr0, lr1));
		w = round_even(sqrt(target * ar));
		h = round_even(sqrt(target / ar));
		if (0 < w && w <= width && 0 < h && h <= height) {
			box[0] = (int)d->randint(d->ctx, height - h + 1);
			box[1] = (int)d->randint(d->ctx, width - w + 1);
			box[2] = (int)h;
			box[3] = (int)w;
			return;
		}
	}
	/* the fallback: the largest centred box within the ratio range */
	double in_ratio = (double)width / (double)height;
	if (in_ratio < 3.0 / 4.0) {
		w = width;
		h = round_even((double)w / (3.0 / 4.0));
	} else if (in_ratio > 4.0 / 3.0) {
		h = height;
		w = round_even((double)h * (4.0 / 3.0));
	} else {
		w = width;
		h = height;
	}
	box[0] = (int)((height - h) / 2);
	box[1] = (int)((width - w) / 2);
	box[2] = (int)h;
	box[3] = (int)w;
}

/* PIL's bilinear filter (Resample.c: bilinear_filter), support 1 */
static double triangle(double x)
{
	if (x < 0.0)
		x = -x;
	return x < 1.0 ? 1.0 - x : 0.0;
}

/* PIL's precompute_coeffs, in coordinates relative to lo as PIL sees a
 * cropped image. */
void axis_plan(axis *a, int n, double b0, double b1, int lo, int hi)
{
	double scale = (b1 - b0) / n;
	double fs = scale > 1.0 ? scale : 1.0;
	double support = fs, ss = 1.0 / fs;
	int taps = (int)ceil(support) * 2 + 1;
	if (n > a->n || taps > a->taps) {
		a->first = xrealloc(a->first, (size_t)n * sizeof *a->first);
		a->len = xrealloc(a->len, (size_t)n * sizeof *a->len);
		a->w = xrealloc(a->w, (size_t)n * (size_t)taps * sizeof *a->w);
	}
	a->n = n;
	a->taps = taps;
	double off = b0 - lo;
	for (int i = 0; i < n; i++) {
		double center = off + (i + 0.5) * scale;
		int xmin = (int)(center - support + 0.5);
		if (xmin < 0)
			xmin = 0;
		int xmax = (int)(center + support + 0.5);
		if (xmax > hi - lo)
			xmax = hi - lo;
		xmax -= xmin;
		float *k = a->w + (size_t)i * taps;
		int m = xmax < taps ? xmax : taps;
		double ww = 0.0;
		for (int x = 0; x < m; x++)
			ww += triangle((x + xmin - center + 0.5) * ss);
		for (int x = 0; x < taps; x++)
			k[x] = x < m && ww != 0.0
				       ? (float)(triangle((x + xmin - center + 0.5) * ss) / ww)
				       : 0.0f;
		a->first[i] = lo + xmin;
		a->len[i] = m;
	}
}

void axis_free(axis *a)
{
	free(a->first);
	free(a->len);
	free(a->w);
	*a = (axis){0};
}

/* ---- random numbers: splitmix64, one stream per sample ---- */

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t next(srng *r)
{
	return mix(r->s += 0x9e3779b97f4a7c15ULL);
}

void srng_seed(srng *r, uint64_t seed, uint64_t stream, uint64_t k)
{
	r->s = mix(mix(seed ^ 0x6a09e667f3bcc909ULL) + stream * 0x9e3779b97f4a7c15ULL) ^ mix(k + 1);
}

/* torch's uniform_ on a float32: 24 random bits, then lo + x (hi - lo) */
double srng_uniform(void *ctx, double lo, double hi)
{
	double x = (double)(next(ctx) >> 40) * (1.0 / 16777216.0);
	float l = (float)lo, h = (float)hi;
	return (double)(float)(x * ((double)h - (double)l) + (double)l);
}

long srng_randint(void *ctx, long hi)
{
	return (long)(((unsigned __int128)next(ctx) * (unsigned __int128)hi) >> 64);
}
