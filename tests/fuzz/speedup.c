/*
 * speedup.c — fuzz target: speedup over median records, one or two files.
 */
#include "harness.h"

int filter_main(int argc, char **argv);

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
	{{"@1", "@2"}, NULL, NULL},
};

/* framework key median mean min max n speedup [more]: all above 0. */
static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {2, 3, 4, 5, 6, 7, -1};

	(void)config;
	return fuzz_check_records(out, n, 8, 2, positive);
}

const struct fuzz_target fuzz_target = {
	"speedup", filter_main,
	configs,   sizeof configs / sizeof *configs,
	check,     "tests/fixtures/median/*.expected tests/fixtures/speedup/*.tsv",
	0,
};
