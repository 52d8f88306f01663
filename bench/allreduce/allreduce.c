/*
 * bench/allreduce/allreduce.c: the allreduce benchmark of allreduce.h. Uses
 * only comm.h and backend.h, so one source serves the CPU (MPI) and CUDA
 * (NCCL) builds. Writes its table on the stream it is given.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allreduce.h"
#include "backend.h"
#include "comm.h"
#include "lib.h"

#define GIB (1L << 30)

const struct allreduce_flag allreduce_flags[] = {
	{"--min-bytes", "N", offsetof(struct allreduce_config, min_bytes), 4, 16 * GIB},
	{"--max-bytes", "N", offsetof(struct allreduce_config, max_bytes), 4, 16 * GIB},
	{"--factor", "2|4", offsetof(struct allreduce_config, factor), 2, 4},
	{"--iters", "N", offsetof(struct allreduce_config, iters), 1, 1000000},
	{"--warmup", "N", offsetof(struct allreduce_config, warmup), 0, 1000000},
	{NULL, NULL, 0, 0, 0},
};

void allreduce_defaults(struct allreduce_config *ac)
{
	*ac = (struct allreduce_config){
		.min_bytes = 1024, .max_bytes = 256L << 20, .factor = 4, .iters = 20, .warmup = 5};
}

int allreduce_flag(struct allreduce_config *ac, const char *flag, const char *value)
{
	const struct allreduce_flag *f = allreduce_flags;
	while (f->name && strcmp(f->name, flag) != 0)
		f++;
	if (!f->name)
		return 0;
	long v;
	if (parse_long(value, f->lo, f->hi, &v) != 0)
		die_usage("%s: '%s' is not an integer in [%ld, %ld]", flag, value, f->lo, f->hi);
	if (f->off == offsetof(struct allreduce_config, factor) && v == 3)
		die_usage("%s: '%s' is not 2 or 4", flag, value);
	*(long *)((char *)ac + f->off) = v;
	return 1;
}

void allreduce_check(const struct allreduce_config *ac)
{
	if (ac->min_bytes % 4 || ac->max_bytes % 4)
		die_usage("--min-bytes, --max-bytes: must be multiples of 4 (float32)");
	if (ac->min_bytes > ac->max_bytes)
		die_usage("--min-bytes %ld is more than --max-bytes %ld", ac->min_bytes,
			  ac->max_bytes);
}

static void print_header(FILE *out, int ranks, const struct allreduce_config *ac)
{
	fprintf(out,
		"# bench allreduce backend=%s ranks=%d nodes=%d iters=%ld warmup=%ld "
		"type=float op=sum\n",
		bk_name(), ranks, comm_nodes(), ac->iters, ac->warmup);
	fprintf(out, "# %10s %12s %12s %10s %10s\n", "bytes", "count", "time_us", "algbw_GBs",
		"busbw_GBs");
}

static void print_row(FILE *out, size_t bytes, double seconds, int ranks)
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

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every rank contributes rank + 1: the sum must be n (n + 1) / 2 everywhere,
 * exactly representable for any rank count a job will have. */
static int check_sum(float *dev, size_t count, int rank, int ranks)
{
	float *h = xmalloc(count * sizeof *h);
	float want = (float)ranks * (float)(ranks + 1) / 2.0f;
	int bad = 0;

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
		warnf("--allreduce: rank %d: wrong sum (want %g)", rank, (double)want);
	return (int)comm_max(bad);
}

int allreduce_run(const struct allreduce_config *ac, FILE *out)
{
	int rank = comm_rank(), ranks = comm_size();
	size_t min = (size_t)ac->min_bytes, max = (size_t)ac->max_bytes;
	size_t factor = (size_t)ac->factor;
	float *buf = bk_malloc(max);

	if (ranks > 1 && check_sum(buf, min / sizeof(float), rank, ranks) != 0) {
		bk_free(buf);
		return 1;
	}
	if (rank == 0)
		print_header(out, ranks, ac);
	for (size_t bytes = min; bytes <= max; bytes *= factor) {
		size_t count = bytes / sizeof(float);

		for (long i = 0; i < ac->warmup; i++) {
			comm_allreduce_start(buf, count);
			comm_allreduce_wait_all();
		}
		bk_sync();
		comm_barrier();
		double t0 = now();
		for (long i = 0; i < ac->iters; i++) {
			comm_allreduce_start(buf, count);
			comm_allreduce_wait_all();
		}
		bk_sync();
		double t = comm_max((now() - t0) / (double)ac->iters);
		if (rank == 0) {
			print_row(out, bytes, t, ranks);
			fflush(out);
		}
		if (bytes > max / factor)
			break;
	}
	bk_free(buf);
	return 0;
}
