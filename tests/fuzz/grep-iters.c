/*
 * grep-iters.c — fuzz target: grep-iters on one or two logs, with the
 * configuration from the path (ours and DLPerf's layout) or from -k, in both
 * modes, detected and forced formats.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

int filter_main(int argc, char **argv);

#define OURS "logs/fw/1n1g_b128_fp32/1.log"
#define FORCED(f)                           \
	{                                   \
		{"-f", f, "@1"}, OURS, NULL \
	}

static const struct fuzz_config configs[] = {
	{{"@1"}, OURS, NULL},
	{{"-c", "dlperf", "@1"}, OURS, NULL},
	{{"-k", "2n8g_b64_amp", "-F", "fw", "@1"}, "x.log", NULL},
	{{"-c", "dlperf", "@1"}, "dlperf/4n8g/r50_b128_fp32_1.log", NULL},
	{{"-a", "fp16=amp", "@1", "@2"},
	 "logs/fw/1n2g_b16_fp16/1.log",
	 "logs/fw/1n2g_b16_fp16/2.log"},
	FORCED("bench"),
	FORCED("oneflow"),
	FORCED("oneflow-bert"),
	FORCED("oneflow-insightface"),
	FORCED("ngc-pytorch"),
	FORCED("ngc-tensorflow"),
	FORCED("tensorflow"),
	FORCED("paddle"),
	FORCED("plsc"),
	FORCED("ngc-mxnet"),
	FORCED("mxnet"),
	FORCED("mindspore"),
	FORCED("pytorch"),
};

/* framework format key run iter timestamp_s step_s samples_per_s loss:
 * from iter on numbers or "-", the iteration, step time and rate above 0
 * when present. */
static const char *check(int config, char *out, size_t n)
{
	static const int none[] = {-1};
	char *copy = strdup(out), *f[16];
	const char *why;

	(void)config;
	if (!copy)
		return "out of memory in the oracle";
	why = fuzz_check_records(copy, n, 9, 4, none);
	for (char *line = out, *next; !why && *line; line = next) {
		double v;
		next = strchr(line, '\n');
		*next++ = '\0';
		if (*line == '#')
			continue;
		int nf = fuzz_fields(line, f, 16);
		if (nf != 9)
			why = "an iteration record without 9 fields";
		for (int i = 4; !why && i < 8; i++)
			if (i != 5 && strcmp(f[i], "-") != 0 &&
			    (!fuzz_number(f[i], &v) || !(v > 0)))
				why = "an iteration, step time or rate that is not above 0";
	}
	free(copy);
	return why;
}

const struct fuzz_target fuzz_target = {
	"grep-iters",
	filter_main,
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/grep-iters/*/*/*",
	0,
};
