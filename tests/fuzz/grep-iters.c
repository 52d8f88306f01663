/*
 * grep-iters.c — fuzz target: grep-iters on one or two logs, with the
 * configuration from the path (ours and DLPerf's layout) or from -k, in both
 * modes, detected and forced formats: one command line "-f <format>" for
 * each format of the registry (FORMATS, filters/formats/formats.h), so a
 * format added there is fuzzed with no edit here.
 */
#include "../../filters/formats/formats.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define OURS "logs/fw/1n1g_b128_fp32/1.log"

static const struct fuzz_config base[] = {
	{{"@1"}, OURS, NULL},
	{{"-c", "dlperf", "@1"}, OURS, NULL},
	{{"-k", "2n8g_b64_amp", "-F", "fw", "@1"}, "x.log", NULL},
	{{"-c", "dlperf", "@1"}, "dlperf/4n8g/r50_b128_fp32_1.log", NULL},
	{{"-a", "fp16=amp", "@1", "@2"},
	 "logs/fw/1n2g_b16_fp16/1.log",
	 "logs/fw/1n2g_b16_fp16/2.log"},
};
#define NBASE (sizeof base / sizeof *base)

/* base, then "-f <format>" for each format; made before libFuzzer starts. */
static struct fuzz_config configs[NBASE + FORMATS_COUNT];

__attribute__((constructor)) static void make_configs(void)
{
	memcpy(configs, base, sizeof base);
	for (size_t i = 0; i < FORMATS_COUNT; i++)
		configs[NBASE + i] =
			(struct fuzz_config){{"-f", formats[i]->name, "@1"}, OURS, NULL};
}

/* framework format key run iter timestamp_s step_s samples_per_s loss:
 * nine fields; iter, timestamp, step time and rate numbers or "-", the
 * iteration, step time and rate above 0; the loss a finite number, "-", or
 * the words a diverged loss is printed with, as the log printed them
 * (grep-iters passes them on by design: scan.h, getloss). */
static const char *check(int config, char *out, size_t n)
{
	static const char *const diverged[] = {"nan", "-nan", "inf", "-inf", "NaN", "Inf", "-Inf"};
	char *f[16];

	(void)config;
	if (n && out[n - 1] != '\n')
		return "stdout ends inside a line";
	for (char *line = out, *next; *line; line = next) {
		double v;
		next = strchr(line, '\n');
		*next++ = '\0';
		if (*line == '#')
			continue;
		if (fuzz_fields(line, f, 16) != 9)
			return "an iteration record without 9 fields";
		for (int i = 4; i < 8; i++) {
			if (strcmp(f[i], "-") == 0)
				continue;
			if (!fuzz_number(f[i], &v))
				return "an iteration, timestamp, step time or rate that is not a finite number";
			if (i != 5 && !(v > 0))
				return "an iteration, step time or rate that is not above 0";
		}
		int word = 0;
		for (size_t w = 0; w < sizeof diverged / sizeof *diverged; w++)
			word |= strcmp(f[8], diverged[w]) == 0;
		if (!word && strcmp(f[8], "-") != 0 && !fuzz_number(f[8], &v))
			return "a loss that is neither a finite number, -, nor a diverged loss's word";
	}
	return NULL;
}

const struct fuzz_target fuzz_target = {
	"grep-iters",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/grep-iters/*/*/*.log",
	0,
};
