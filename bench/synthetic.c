/*
 * bench/synthetic.c: the synthetic data (synthetic.h). Reads and writes
 * nothing but the memory it is given.
 */
#include <stddef.h>

#include "rng.h"
#include "synthetic.h"

/* Sample i of the sequence. */
static void sample(uint64_t seed, long i, int px, int classes, float *img, int32_t *label)
{
	rng r;
	rng_seed(&r, seed * 0x2545f4914f6cdd1dULL + (uint64_t)i * 0x9e3779b97f4a7c15ULL + 1);
	*label = (int32_t)(rng_u64(&r) % (uint64_t)classes);
	size_t n = (size_t)3 * px * px;
	for (size_t j = 0; j < n; j++)
		img[j] = (float)rng_normal(&r);
}

void synthetic_batch(uint64_t seed, int shard, int batch, int px, int classes, float *input,
		     int32_t *labels)
{
	size_t img = (size_t)3 * px * px;
	for (int i = 0; i < batch; i++)
		sample(seed, (long)shard * batch + i, px, classes, input + (size_t)i * img,
		       &labels[i]);
}
