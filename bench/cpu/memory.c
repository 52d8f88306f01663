/*
 * bench/cpu/memory.c: device memory of the oneDNN backend, which is host
 * memory (backend.h's bk_malloc, bk_free), the shared temporaries' growth
 * (temp_grow) and the peak resident memory (bk_peak_mem_mb). Calls no other
 * file of the backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "internal.h"

/* Said in words that make's outcome reads as out of memory (its "out of
 * device memory": the host's memory is this backend's device's). */
LIB_NORETURN static void out_of_memory(size_t bytes, int err)
{
	die("out of device memory: %.0f MiB more of this host's memory (%s); a smaller --batch "
	    "may fit",
	    (double)bytes / 1048576.0, strerror(err));
}

/* Large buffers are fresh anonymous mappings: zero without being touched,
 * so resident memory grows only with what a step really uses. */
enum { BIG = 1 << 16, MAX_MAPS = 512 };
static struct {
	void *p;
	size_t n;
} maps[MAX_MAPS];

void *bk_malloc(size_t bytes)
{
	if (bytes >= BIG) {
		for (int i = 0; i < MAX_MAPS; i++) {
			if (maps[i].p)
				continue;
			void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				out_of_memory(bytes, errno);
			maps[i].p = p;
			maps[i].n = bytes;
			return p;
		}
	}
	void *p = NULL;
	int err = posix_memalign(&p, 64, bytes ? (bytes + 63) & ~(size_t)63 : 64);
	if (err != 0)
		out_of_memory(bytes, err);
	memset(p, 0, bytes);
	return p;
}

void bk_free(void *p)
{
	if (!p)
		return;
	for (int i = 0; i < MAX_MAPS; i++) {
		if (maps[i].p == p) {
			munmap(p, maps[i].n);
			maps[i].p = NULL;
			return;
		}
	}
	free(p);
}

/* A shared temporary: at least need bytes, 64-byte aligned for the vector
 * kernels, its old contents dropped (nothing is kept across plans), no
 * more than the largest need (xgrow would copy and double). */
void *temp_grow(void *p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return p;
	free(p);
	p = NULL;
	int err = posix_memalign(&p, 64, (need + 63) & ~(size_t)63);
	if (err != 0)
		out_of_memory(need, err);
	*cap = need;
	return p;
}
double bk_peak_mem_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)((ru.ru_maxrss + 1023) / 1024); /* ru_maxrss is in KiB on Linux */
}
