/*
 * bench/cpu/host.c: input batches on the CPU backend (backend.h): host
 * memory is device memory, so the copy is a memcpy, done when it returns;
 * and --profile's clock: the host's, as every op is done when it returns.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "lib.h"

void *bk_host_alloc(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0)
		die("out of memory (%zu bytes)", bytes);
	return p;
}

void bk_host_free(void *p)
{
	free(p);
}

void bk_to_device_async(void *dev, const void *host, size_t bytes)
{
	memcpy(dev, host, bytes);
}

static double *marks;
static int nmarks;

void bk_prof_init(int n)
{
	free(marks);
	marks = xcalloc((size_t)n, sizeof *marks);
	nmarks = n;
}

void bk_prof_mark(int i)
{
	struct timespec t;
	if (i < 0 || i >= nmarks)
		die("%s:%d: profile mark %d of %d", __FILE__, __LINE__, i, nmarks);
	clock_gettime(CLOCK_MONOTONIC, &t);
	marks[i] = 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

double bk_prof_ms(int i, int j)
{
	return marks[j] - marks[i];
}
