/*
 * bench/rng.h: bench's random numbers, deterministic (splitmix64 +
 * Box-Muller) and the same on every rank: the initial parameters
 * (model.c) and the synthetic data (synthetic.c) come from --seed alone.
 */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct rng {
	uint64_t s;
	int has_spare;
	double spare;
} rng;

static inline void rng_seed(rng *r, uint64_t seed)
{
	r->s = seed;
	r->has_spare = 0;
	r->spare = 0.0;
}

static inline uint64_t rng_u64(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* [0, 1) */
static inline double rng_uniform(rng *r)
{
	return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double rng_normal(rng *r)
{
	if (r->has_spare) {
		r->has_spare = 0;
		return r->spare;
	}
	double u1, u2;
	do
		u1 = rng_uniform(r);
	while (u1 <= 0.0);
	u2 = rng_uniform(r);
	double rad = sqrt(-2.0 * log(u1)), th = 2.0 * M_PI * u2;
	r->spare = rad * sin(th);
	r->has_spare = 1;
	return rad * cos(th);
}

#endif
