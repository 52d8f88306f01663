/*
 * window.c — fuzz target: window over iteration records, each method (time,
 * rate, median-step), both modes, the default and explicit windows.
 */
#include "harness.h"

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
	{{"-c", "dlperf", "@1"}, NULL, NULL},
	{{"-m", "rate", "@1"}, NULL, NULL},
	{{"-m", "time", "-s", "1", "-n", "3", "@1"}, NULL, NULL},
	{{"-m", "median-step", "-s", "0", "-n", "2", "@1"}, NULL, NULL},
	{{"-s", "0", "-n", "1", "@1", "@2"}, NULL, NULL},
};

/* framework key run samples_per_s [more columns]: the rate above 0, every
 * other number finite. */
static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {3, -1};

	(void)config;
	return fuzz_check_records(out, n, 4, 3, positive);
}

const struct fuzz_target fuzz_target = {
	"window",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/window/*.tsv tests/fixtures/window/*/*",
	0,
};
