/*
 * bench/data/run.c: bench --data DIR --data-only, the loader alone (as
 * tf_cnn_benchmarks' trivial model isolates the input pipeline): batches
 * taken and handed back at once, one line per batch and a summary of the
 * timed window, images/s and MB/s of JPEG read over every rank.
 *
 *   iter=K data_s=S images_per_s=R ts=T
 *   # summary warmup=W timed_iters=N images_per_s=R mb_per_s=M cpu_ms_per_image=C
 *
 * cpu_ms_per_image: the process's CPU time (user + system, all threads) over
 * every batch, warm-up included, per image: the cost per core, which a
 * machine shared with other work does not skew as it skews images/s.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "comm.h"
#include "data.h"
#include "lib.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_s(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u) != 0)
		die("getrusage:");
	return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
	       (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

void data_only_run(loader *l, int batch, int iters, int warmup, int rank)
{
	double cpu0 = cpu_s();
	double start = now(), last = start, bytes0 = 0.0;
	long images0 = 0;
	for (int it = 1; it <= iters; it++) {
		const int32_t *labels;
		double waited;
		loader_next(l, &labels, &waited);
		loader_release(l);
		double t = now(), step = t - last;
		last = t;
		if (it == warmup) { /* the window: the batches after the warm-up */
			start = t;
			loader_totals(l, &images0, &bytes0);
		}
		double gstep = comm_max(step);
		if (rank == 0) {
			struct timeval tv;
			gettimeofday(&tv, NULL);
			printf("iter=%d data_s=%.4f images_per_s=%.2f ts=%lld.%06ld\n", it, waited,
			       (double)batch * comm_size() / gstep, (long long)tv.tv_sec,
			       (long)tv.tv_usec);
			fflush(stdout);
		}
	}
	long images;
	double bytes;
	loader_totals(l, &images, &bytes);
	double s = comm_max(now() - start);
	double n = comm_sum((double)(images - images0));
	double b = comm_sum(bytes - bytes0);
	double cpu = comm_sum(cpu_s() - cpu0), all = comm_sum((double)images);
	if (rank == 0)
		printf("# summary warmup=%d timed_iters=%d images_per_s=%.2f mb_per_s=%.2f "
		       "cpu_ms_per_image=%.3f\n",
		       warmup, iters - warmup, n / s, b / s / 1e6, 1e3 * cpu / all);
}
