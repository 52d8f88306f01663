/*
 * bench/cuda/startup.c: the local rank before MPI and the batch norms'
 * start-up line (startup.h). Reads the environment through the function it
 * is given; writes nothing but its arguments.
 */
#include <stdint.h>
#include <stdio.h>

#include "lib.h"
#include "startup.h"

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
