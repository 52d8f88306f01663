/*
 * list.c — grep-iters -l: the log formats of the registry (filters/formats/)
 * as one markdown table on stdout, in detection order: the format's name
 * (-f), its framework as tables call it, what one record is, how its
 * iterations are numbered, our window and method, and DLPerf's window (and
 * what else its method depends on).
 * doc/dlperf.md holds this table (`make generate` writes it there).
 */
#include "grep-iters.h"

#include <stdio.h>

int list_formats(void)
{
	static const char *const numbering[] = {
		[NUM_GLOBAL] = "from the start",
		[NUM_EPOCHS] = "per epoch, counted on",
		[NUM_FIRST] = "per epoch: epoch 0 only",
	};

	printf("| format | framework | a record | iterations numbered | ours: skip / count, "
	       "method | DLPerf: warm-up / end |\n"
	       "| --- | --- | --- | --- | --- | --- |\n");
	for (const struct format *const *p = formats; *p; p++) {
		const struct format *f = *p;
		printf("| `%s` | %s | %s%s | %s | %ld / %ld, %s | ", f->name, f->display,
		       f->interval ? "an interval" : "one iteration",
		       f->grouped ? ", ranks grouped" : "", numbering[f->numbering], f->skip,
		       f->count, f->method == METHOD_RATE ? "rate" : "time");
		if (f->dlperf_speed)
			printf("%ld / %ld%s%s%s |\n", f->dlperf_skip,
			       f->dlperf_skip + f->dlperf_count,
			       f->dlperf_epoch0 ? ", epoch 0 only" : "", f->dlperf_note ? "; " : "",
			       f->dlperf_note ? f->dlperf_note : "");
		else
			printf("none: measured ours |\n");
	}
	finish_output();
	return 0;
}
