/*
 * bench/synthetic.h: bench's synthetic data, the input when --data is not
 * given. Sample i of an endless sequence comes from --seed and i alone
 * (rng.h), so any rank can make any sample: an image [3][px][px] of
 * normal(0, 1) values and a label uniform in [0, classes).
 */
#ifndef BENCH_SYNTHETIC_H
#define BENCH_SYNTHETIC_H

#include <stdint.h>

/* Samples [shard * batch, (shard + 1) * batch) of the sequence: input
 * [batch][3][px][px], labels [batch]. A rank trains on one such batch, its
 * rank's unless --shard picks another. */
void synthetic_batch(uint64_t seed, int shard, int batch, int px, int classes, float *input,
		     int32_t *labels);

#endif
