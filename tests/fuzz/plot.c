/*
 * plot.c — fuzz target: plot's gnuplot script (scaling, compare, with a
 * published file) and its page (the second input as table and SVG).
 */
#include "harness.h"

#include <string.h>

static const struct fuzz_config configs[] = {
	{{"@1"}, NULL, NULL},
	{{"-s", "compare", "@1"}, NULL, NULL},
	{{"-p", "@2", "@1"}, NULL, NULL},
	{{"-s", "page", "-t", "@2", "-g", "@2", "@1"}, NULL, NULL},
};

/* The script's data lines (between "<< EOD" and "EOD") hold numbers only
 * (NaN where the published file gives no speedup, or the speedup's base
 * failed), but the last column of a $fN block, the status of runs that all
 * failed; it ends the multiplot; the page is one document with no script
 * in it. */
static const char *check(int config, char *out, size_t n)
{
	int data = 0;

	if (config == 3) {
		if (strncmp(out, "<!DOCTYPE html>\n", 16) != 0 || n < 8 ||
		    strcmp(out + n - 8, "</html>\n") != 0)
			return "the page is not one HTML document";
		if (strstr(out, "<script"))
			return "a script in the page";
		return NULL;
	}
	if (n < 16 || strcmp(out + n - 16, "unset multiplot\n") != 0)
		return "the script does not end its multiplot";
	for (char *line = out, *next; line < out + n; line = next + 1) {
		next = strchr(line, '\n');
		*next = '\0';
		if (line[0] == '$' && strstr(line, " << EOD")) /* a data block's start; a
								 * comment may hold the words */
			data = line[1] == 'f' ? 2 : 1;
		else if (strcmp(line, "EOD") == 0)
			data = 0;
		else if (data) {
			char *f[16];
			int nf = fuzz_fields(line, f, 16);
			for (int i = 0; i < nf; i++) {
				double v;
				if (data == 2 && i == 3) {
					if (nf != 4 ||
					    (strcmp(f[i], "OOM") && strcmp(f[i], "failed") &&
					     strcmp(f[i], "timeout")))
						return "a status of failed runs that is not OOM, failed or timeout";
					continue;
				}
				if (!fuzz_number(f[i], &v) && strcmp(f[i], "NaN") != 0)
					return "a data field that is not a number";
			}
		}
		*next = '\n';
	}
	return NULL;
}

const struct fuzz_target fuzz_target = {
	"plot",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/plot/*.tsv tests/fixtures/median/*.expected",
	0,
};
