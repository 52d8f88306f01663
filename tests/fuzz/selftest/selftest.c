/*
 * selftest.c — a "filter" that breaks the contract on request, with the
 * oracle of the record filters: tests/fuzz.bats runs it to show that the
 * harness reports each kind of violation (a harness that cannot fail would
 * prove nothing). Not a fuzz target: fuzz.mk builds it apart.
 *
 * Its input's first line says what to do: good, warnings (then the
 * error: no finding), inf, zero, partial, unprefixed, noname, status3, overflow (a heap overflow), leakfile (die with
 * the input still open and memory held: must not be a finding).
 */
#include "../../../filters/filter.h"
#include "../harness.h"
#include "lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int filter_run(int argc, char **argv)
{
	struct input in;
	char *held;
	FILE *probe = fopen(argv[argc - 1], "r");

	/* Files left open by earlier runs and not closed by the harness would
	 * end here, after about a thousand runs: exit 3, a finding. */
	if (!probe)
		return 3;
	fclose(probe);
	input_open(&in, argv[argc - 1]);
	if (!input_line(&in))
		die("%s: empty", in.name);
	held = xmalloc(100000);
	held[0] = 'x';
	if (strcmp(in.line, "good") == 0) {
		printf("fw\t1n1g_b8_fp32\t1\t12.50\n");
	} else if (strcmp(in.line, "inf") == 0) {
		printf("fw\t1n1g_b8_fp32\t1\tinf\n");
	} else if (strcmp(in.line, "zero") == 0) {
		printf("fw\t1n1g_b8_fp32\t1\t0.00\n");
	} else if (strcmp(in.line, "partial") == 0) {
		printf("fw\t1n1g_b8_fp32\t1\t12.50");
	} else if (strcmp(in.line, "warnings") == 0) {
		fprintf(stderr, "selftest: %s: a warning\n", in.name);
		record_die(&in, "and the error");
	} else if (strcmp(in.line, "unprefixed") == 0) {
		fprintf(stderr, "a warning without the name\n");
		record_die(&in, "and the error");
	} else if (strcmp(in.line, "noname") == 0) {
		die("something is wrong");
	} else if (strcmp(in.line, "status3") == 0) {
		return 3;
	} else if (strcmp(in.line, "overflow") == 0) {
		held[100000] = 'y';
	} else if (strcmp(in.line, "leakfile") == 0) {
		die("%s: left with the file open", in.name);
	}
	free(held);
	input_close(&in);
	return 0;
}

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
};

static const char *check(int config, char *out, size_t n)
{
	static const int positive[] = {3, -1};

	(void)config;
	return fuzz_check_records(out, n, 4, 3, positive);
}

const struct fuzz_target fuzz_target = {
	"selftest", configs, 1, check, "", 0,
};
