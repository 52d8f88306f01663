/*
 * bench/cuda/plan.c: the host-side planning of plan.h. Reads and writes
 * nothing but its arguments.
 */
#include <stdio.h>
#include <string.h>

#include "lib.h"
#include "plan.h"

int gpu_conv_out(int in, int filt, int stride, int pad)
{
	return (in + 2 * pad - filt) / stride + 1;
}

static int conv_equal(const struct gpu_conv_shape *a, const struct gpu_conv_shape *b)
{
	return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k &&
	       a->r == b->r && a->s == b->s && a->stride == b->stride && a->pad == b->pad &&
	       a->dtype == b->dtype;
}

int gpu_conv_lookup(const struct gpu_conv_shape *tab, int n, const struct gpu_conv_shape *s)
{
	for (int i = 0; i < n; i++)
		if (conv_equal(&tab[i], s))
			return i;
	return -1;
}

/* What the backend does at plan time, one shape after the other. */
int gpu_conv_dedup(const struct gpu_conv_shape *shape, int n, int *idx)
{
	int distinct = 0;

	for (int i = 0; i < n; i++) {
		idx[i] = gpu_conv_lookup(shape, i, &shape[i]);
		if (idx[i] < 0) {
			idx[i] = i;
			distinct++;
		}
	}
	return distinct;
}

size_t gpu_workspace_limit(size_t cap, size_t free_bytes, double frac)
{
	size_t limit = (size_t)((double)free_bytes * frac);

	if (cap != 0 && cap < limit)
		return cap;
	return limit;
}

/* A decimal integer in [0, INT32_MAX] from get(name), else -1. */
static int env_num(const char *(*get)(const char *), const char *name)
{
	const char *s = get(name);
	long v;

	return s && parse_long(s, 0, INT32_MAX, &v) == 0 ? (int)v : -1;
}

int gpu_env_local_rank(const char *(*get)(const char *name))
{
	int l, procid;

	if ((l = env_num(get, "OMPI_COMM_WORLD_LOCAL_RANK")) >= 0)
		return l;
	if ((l = env_num(get, "MPI_LOCALRANKID")) >= 0)
		return l;
	l = env_num(get, "SLURM_LOCALID");
	procid = env_num(get, "SLURM_PROCID");
	if (l >= 0 && procid >= 0 &&
	    (env_num(get, "PMIX_RANK") == procid || env_num(get, "PMI_RANK") == procid))
		return l;
	return -1;
}

void gpu_bn_summary(const struct gpu_bn_count *c, const char *precision, char *buf, size_t n)
{
	char part[3][64];
	int np = 0, unfused = c->stem + c->refused + c->unfusable;

	if (c->stem == 1)
		snprintf(part[np++], sizeof part[0], "stem");
	else if (c->stem > 1)
		snprintf(part[np++], sizeof part[0], "%d without their output kept", c->stem);
	if (c->refused)
		snprintf(part[np++], sizeof part[0], "%d refused by cuDNN", c->refused);
	if (c->unfusable)
		snprintf(part[np++], sizeof part[0], "%d: no fused form in %s", c->unfusable,
			 precision);
	snprintf(buf, n, "batch norm: %d fused, %d unfused%s%s%s%s%s%s%s, %d plain", c->fused,
		 unfused, np ? " (" : "", np > 0 ? part[0] : "", np > 1 ? ", " : "",
		 np > 1 ? part[1] : "", np > 2 ? ", " : "", np > 2 ? part[2] : "", np ? ")" : "",
		 c->plain);
}
