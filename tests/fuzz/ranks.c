/*
 * ranks.c — fuzz target: ranks over bench logs of --rank-times, one or two.
 */
#include "harness.h"

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
	{{"-s", "0", "-t", "1", "@1", "@2"}, NULL, NULL},
};

/* file rank median_compute_s ratio slow_steps steps verdict: the time, the
 * ratio and the steps above 0, every number finite. */
static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {2, 3, 5, -1};

	(void)config;
	return fuzz_check_records(out, n, 7, 1, positive);
}

const struct fuzz_target fuzz_target = {
	"ranks", configs, sizeof configs / sizeof *configs, check, "tests/fixtures/ranks/*", 0,
};
