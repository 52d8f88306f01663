/*
 * median.c — fuzz target: median over per-run records, both modes.
 */
#include "harness.h"

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
	{{"-c", "dlperf", "@1"}, NULL, NULL},
	{{"@1", "@2"}, NULL, NULL},
};

/* framework key median mean min max n [more]: the four rates and n above
 * 0, every other number finite. */
static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {2, 3, 4, 5, 6, -1};

	(void)config;
	return fuzz_check_records(out, n, 7, 2, positive);
}

const struct fuzz_target fuzz_target = {
	"median", configs, sizeof configs / sizeof *configs, check, "tests/fixtures/median/*.tsv",
	0,
};
