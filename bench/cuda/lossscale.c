/*
 * bench/cuda/lossscale.c: the loss-scale state machine of lossscale.h. No
 * I/O, no globals; every transition is a function of the state and the flag.
 */
#include "lossscale.h"

void lossscale_init(struct lossscale *ls, float static_scale)
{
	ls->dynamic = static_scale <= 0.0f;
	ls->scale = ls->dynamic ? LOSSSCALE_INIT : static_scale;
	ls->interval = LOSSSCALE_INTERVAL;
	ls->clean = 0;
	ls->steps = 0;
	ls->skipped = 0;
}

void lossscale_off(struct lossscale *ls)
{
	lossscale_init(ls, 1.0f);
}

int lossscale_update(struct lossscale *ls, int overflow)
{
	ls->steps++;
	if (overflow) {
		ls->skipped++;
		ls->clean = 0;
		if (ls->dynamic && ls->scale > LOSSSCALE_MIN)
			ls->scale *= 0.5f;
		return 0;
	}
	if (!ls->dynamic)
		return 1;
	if (++ls->clean >= ls->interval) {
		ls->clean = 0;
		if (ls->scale < LOSSSCALE_MAX)
			ls->scale *= 2.0f;
	}
	return 1;
}

float lossscale_inv(const struct lossscale *ls)
{
	return 1.0f / ls->scale;
}
