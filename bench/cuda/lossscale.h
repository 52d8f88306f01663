/*
 * bench/cuda/lossscale.h: the dynamic loss scale of mixed-precision (fp16)
 * training, as a host-side state machine. Pure C; the CUDA backend feeds it
 * one overflow flag per step (read back from the device) and multiplies the
 * loss gradient by ls->scale; the CPU tests drive it with scripted flags.
 *
 * Dynamic (the default for amp): start at 2^16; a step whose gradients hold an
 * inf or NaN is skipped and the scale halves; after 2000 clean steps in a row
 * the scale doubles. Static (--loss-scale N): the scale never changes, an
 * overflowing step is still skipped. bf16 and fp32 train with scale 1, off.
 */
#ifndef BENCH_CUDA_LOSSSCALE_H
#define BENCH_CUDA_LOSSSCALE_H

#ifdef __cplusplus
extern "C" {
#endif

#define LOSSSCALE_INIT     65536.0f    /* 2^16 */
#define LOSSSCALE_INTERVAL 2000        /* clean steps before the scale doubles */
#define LOSSSCALE_MIN      1.0f        /* halving stops here */
#define LOSSSCALE_MAX      16777216.0f /* 2^24: doubling stops here */

struct lossscale {
	float scale;  /* multiplies the loss before backward; gradients / scale */
	int dynamic;  /* 1: halve on overflow, double after interval clean steps */
	int interval; /* clean steps needed to double */
	int clean;    /* clean steps since the last change of scale */
	long steps;   /* steps seen */
	long skipped; /* steps skipped for overflow */
};

/* static_scale 0: dynamic from LOSSSCALE_INIT; > 0: fixed at that value. */
void lossscale_init(struct lossscale *ls, float static_scale);

/* No scaling at all (fp32, tf32, bf16): scale 1, never skips. */
void lossscale_off(struct lossscale *ls);

/*
 * Record one step's overflow check; returns 1 if the update must be applied,
 * 0 if the step is skipped. Changes ls->scale for the next step.
 */
int lossscale_update(struct lossscale *ls, int overflow);

/* 1 / scale: what the update multiplies the gradients by (0 never). */
float lossscale_inv(const struct lossscale *ls);

#ifdef __cplusplus
}
#endif

#endif
