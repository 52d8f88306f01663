/*
 * bench/cpu/dnnl_check.h: DNNL_CHECK(call), for every oneDNN call of the CPU
 * backend (bench/cpu/) and of the convolution roof (tests/perf/roof.c). A failed call dies through lib's die:
 * "prog: dnnl error at FILE:LINE: <status>", exit 1 (every rank of bench).
 */
#ifndef BENCH_DNNL_CHECK_H
#define BENCH_DNNL_CHECK_H

#include <dnnl.h>
#include <dnnl_debug.h>

#include "lib.h"

static inline void dnnl_check(dnnl_status_t s, const char *file, int line)
{
	if (s != dnnl_success)
		die("dnnl error at %s:%d: %s", file, line, dnnl_status2str(s));
}

#define DNNL_CHECK(call) dnnl_check((call), __FILE__, __LINE__)

#endif
