/*
 * speedup.c — fuzz target: speedup over median records, one or two files.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
	{{"@1", "@2"}, NULL, NULL},
};

/* framework key median mean min max n [ci_lo ci_hi cv_pct outliers]
 * speedup [speedup_pm efficiency]: the rates, n, the speedup and the
 * efficiency above 0 (an interval's low end may be 0 or below), every
 * number finite. */
static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {2, 3, 4, 5, 6, -1};
	const char *why;
	char *copy = strdup(out), *f[16];
	/* a speedup of "-" needs a base whose runs all failed: outcome lines */
	int outcomes = strncmp(out, "# outcome ", 10) == 0 || strstr(out, "\n# outcome ");

	(void)config;
	if (!copy)
		return "out of memory in the oracle";
	why = fuzz_check_records(copy, n, 8, 2, positive);
	for (char *line = out, *next; !why && *line; line = next) {
		double v;
		next = strchr(line, '\n');
		*next++ = '\0';
		if (*line == '#')
			continue;
		int nf = fuzz_fields(line, f, 16);
		if (nf != 8 && nf != 14)
			why = "a speedup record of neither 8 nor 14 fields";
		else if (!strcmp(f[nf == 8 ? 7 : 11], "-"))
			why = !outcomes ? "a speedup of - without outcome lines"
			      : nf == 14 && (strcmp(f[12], "-") || strcmp(f[13], "-"))
				      ? "a speedup of - with a ± or efficiency"
				      : NULL;
		else if (!fuzz_number(f[nf == 8 ? 7 : 11], &v) || !(v > 0))
			why = "a speedup that is not above 0";
		else if (nf == 14 && (!fuzz_number(f[13], &v) || !(v > 0)))
			why = "an efficiency that is not above 0";
	}
	free(copy);
	return why;
}

const struct fuzz_target fuzz_target = {
	"speedup",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/median/*.expected tests/fixtures/speedup/*.tsv",
	0,
};
