/*
 * bench/env.c: bench's environment and its test hooks (env.h). Reads the
 * environment; writes nothing but the struct it is given, or one line on
 * stderr when the job must end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "env.h"
#include "lib.h"

/* DLBENCH_SLOW_RANK=R:MS: the milliseconds this rank sleeps in each step
 * (0 unless R is this rank). */
static long slow_rank_ms(int rank)
{
	const char *v = getenv("DLBENCH_SLOW_RANK");
	long r, ms;
	if (!v || !*v)
		return 0;
	const char *colon = strchr(v, ':');
	char rs[32];
	if (!colon || (size_t)(colon - v) >= sizeof rs)
		die("DLBENCH_SLOW_RANK=%s: want RANK:MILLISECONDS", v);
	memcpy(rs, v, (size_t)(colon - v));
	rs[colon - v] = '\0';
	if (parse_long(rs, 0, 1L << 30, &r) != 0 || parse_long(colon + 1, 0, 3600000, &ms) != 0)
		die("DLBENCH_SLOW_RANK=%s: want RANK:MILLISECONDS (0..3600000)", v);
	return r == rank ? ms : 0;
}

void env_read(bench_env *e, int rank, int size)
{
	e->slow_ms = slow_rank_ms(rank);

	const char *want = getenv("DLBENCH_WORLD");
	long wanted;
	if (want && (parse_long(want, 1, 1L << 30, &wanted) != 0 || wanted != size)) {
		if (rank == 0)
			warnf("DLBENCH_WORLD=%s but the job has %d rank%s", want, size,
			      size == 1 ? "" : "s");
		comm_abort(1);
	}

	const char *tp = getenv("DLBENCH_DATA_TRACE");
	e->trace[0] = '\0';
	if (tp && *tp &&
	    snprintf(e->trace, sizeof e->trace, "%s.%d", tp, rank) >= (int)sizeof e->trace)
		die("DLBENCH_DATA_TRACE=%s: too long", tp);
}
