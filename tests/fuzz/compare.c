/*
 * compare.c — fuzz target: compare of two files of window records, with the
 * default and an explicit threshold. Exit 3 ("a configuration is slower")
 * is a success like 0.
 */
#include "harness.h"

static const struct fuzz_config configs[] = {
	{{"@1", "@2"}, NULL, NULL},
	{{"-t", "0.5", "@1", "@2"}, NULL, NULL},
};

/* framework key baseline_mean baseline_n new_mean new_n change_pct p_value
 * verdict: the means and counts above 0, every number finite. */
static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {2, 3, 4, 5, -1};

	(void)config;
	return fuzz_check_records(out, n, 9, 2, positive);
}

const struct fuzz_target fuzz_target = {
	"compare",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/median/*.tsv tests/fixtures/window/*.tsv",
	3,
};
