/*
 * bench/cpu/host.c: input batches on the CPU backend (backend.h): host
 * memory is device memory, so the copy is a memcpy, done when it returns.
 */
#include <stdlib.h>
#include <string.h>

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
