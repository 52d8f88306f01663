/*
 * alloc.c — allocation that never returns NULL: a failure is
 * "prog: out of memory", exit 1 (through the exit hook).
 */
#include "lib.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void *xgrow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 16;

	if (n <= *cap)
		return p;
	while (c < n) {
		if (c > SIZE_MAX / 2)
			die("out of memory");
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		die("out of memory");
	*cap = c;
	return xrealloc(p, c * size);
}
