/*
 * probe.c: the allreduce probe of probe.h. Uses only comm.h and backend.h,
 * so one source serves the CPU (MPI) and CUDA (NCCL) builds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "comm.h"
#include "allreduce.h"

void
probe_defaults(struct probe_config *pc)
{
	pc->min_bytes = 1024;
	pc->max_bytes = (size_t)256 << 20;
	pc->factor = 4;
	pc->iters = 20;
	pc->warmup = 5;
}

/* A whole-string decimal integer in [min, max]; -1 after a message. */
static int
number(const char *flag, const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = s ? strtoll(s, &end, 10) : 0;
	if (!s || errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "bench: %s: '%s' is not an integer in [%lld, %lld]\n", flag,
		    s ? s : "", min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int
probe_flag(struct probe_config *pc, const char *flag, const char *value)
{
	long long v;
	const long long gib = 1LL << 30;

	if (strcmp(flag, "--min-bytes") == 0) {
		if (number(flag, value, 4, 16 * gib, &v) < 0)
			return -1;
		pc->min_bytes = (size_t)v;
	} else if (strcmp(flag, "--max-bytes") == 0) {
		if (number(flag, value, 4, 16 * gib, &v) < 0)
			return -1;
		pc->max_bytes = (size_t)v;
	} else if (strcmp(flag, "--factor") == 0) {
		if (number(flag, value, 2, 4, &v) < 0)
			return -1;
		if (v == 3) {
			fprintf(stderr, "bench: --factor: '%s' is not 2 or 4\n", value);
			return -1;
		}
		pc->factor = (int)v;
	} else if (strcmp(flag, "--iters") == 0) {
		if (number(flag, value, 1, 1000000, &v) < 0)
			return -1;
		pc->iters = (int)v;
	} else if (strcmp(flag, "--warmup") == 0) {
		if (number(flag, value, 0, 1000000, &v) < 0)
			return -1;
		pc->warmup = (int)v;
	} else {
		return 0;
	}
	return 1;
}

int
probe_check(const struct probe_config *pc)
{
	if (pc->min_bytes % 4 || pc->max_bytes % 4) {
		fprintf(stderr, "bench: --min-bytes, --max-bytes: must be multiples of 4 (float32)\n");
		return -1;
	}
	if (pc->min_bytes > pc->max_bytes) {
		fprintf(stderr, "bench: --min-bytes %zu is more than --max-bytes %zu\n",
		    pc->min_bytes, pc->max_bytes);
		return -1;
	}
	return 0;
}

void
probe_header(FILE *out, const char *backend, int ranks, int nodes, const struct probe_config *pc)
{
	fprintf(out, "# bench allreduce backend=%s ranks=%d nodes=%d iters=%d warmup=%d type=float "
	    "op=sum\n", backend, ranks, nodes, pc->iters, pc->warmup);
	fprintf(out, "# %10s %12s %12s %10s %10s\n", "bytes", "count", "time_us", "algbw_GBs",
	    "busbw_GBs");
}

void
probe_row(FILE *out, size_t bytes, double seconds, int ranks)
{
	double alg = seconds > 0 ? (double)bytes / seconds / 1e9 : 0.0;
	double bus = alg * 2.0 * (ranks - 1) / ranks;

	/* One rank moves nothing: a bandwidth would be a division by ~0. */
	if (ranks < 2 || seconds <= 0)
		fprintf(out, "%12zu %12zu %12.2f %10s %10s\n", bytes, bytes / sizeof(float),
		    seconds * 1e6, "-", "-");
	else
		fprintf(out, "%12zu %12zu %12.2f %10.3f %10.3f\n", bytes, bytes / sizeof(float),
		    seconds * 1e6, alg, bus);
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every rank contributes rank + 1: the sum must be n (n + 1) / 2 everywhere.
 * Exactly representable for any rank count a probe will see. */
static int
check_sum(float *dev, size_t count, int rank, int ranks)
{
	float *h = malloc(count * sizeof *h);
	float want = (float)ranks * (float)(ranks + 1) / 2.0f;
	int bad = 0;

	if (!h) {
		fprintf(stderr, "bench: --allreduce: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < count; i++)
		h[i] = (float)(rank + 1);
	bk_to_device(dev, h, count * sizeof *h);
	comm_allreduce_start(dev, count);
	comm_allreduce_wait_all();
	bk_to_host(h, dev, count * sizeof *h);
	for (size_t i = 0; i < count && !bad; i++)
		bad = h[i] != want;
	free(h);
	if (bad)
		fprintf(stderr, "bench: --allreduce: rank %d: wrong sum (want %g)\n", rank,
		    (double)want);
	return (int)comm_max(bad);
}

int
probe_allreduce(const struct probe_config *pc, FILE *out)
{
	int rank = comm_rank(), ranks = comm_size();
	float *buf = bk_malloc(pc->max_bytes);

	if (ranks > 1 && check_sum(buf, pc->min_bytes / sizeof(float), rank, ranks) != 0) {
		bk_free(buf);
		return 1;
	}
	if (rank == 0)
		probe_header(out, bk_name(), ranks, comm_nodes(), pc);
	for (size_t bytes = pc->min_bytes; bytes <= pc->max_bytes; bytes *= (size_t)pc->factor) {
		size_t count = bytes / sizeof(float);

		for (int i = 0; i < pc->warmup; i++) {
			comm_allreduce_start(buf, count);
			comm_allreduce_wait_all();
		}
		bk_sync();
		comm_barrier();
		double t0 = now();
		for (int i = 0; i < pc->iters; i++) {
			comm_allreduce_start(buf, count);
			comm_allreduce_wait_all();
		}
		bk_sync();
		double t = comm_max((now() - t0) / pc->iters);
		if (rank == 0) {
			probe_row(out, bytes, t, ranks);
			fflush(out);
		}
		if (bytes > pc->max_bytes / (size_t)pc->factor)
			break;
	}
	bk_free(buf);
	return 0;
}
