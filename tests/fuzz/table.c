/*
 * table.c — fuzz target: table in each style, with a published file, and
 * with a CPU roof file and a peak for the MFU column.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct fuzz_config configs[] = {
	{{"-s", "scaling", "@1"}, NULL, NULL},
	{{"-s", "compare", "@1"}, NULL, NULL},
	{{"-s", "json", "@1"}, NULL, NULL},
	{{"-s", "scaling", "-p", "@2", "@1"}, NULL, NULL},
	{{"-s", "compare", "@1", "@2"}, NULL, NULL},
	{{"-s", "scaling", "-r", "@2", "-P", "900", "@1"}, NULL, NULL},
	{{"-s", "json", "-r", "@2", "@1"}, NULL, NULL},
};

/* ---- JSON, as RFC 8259 has it (no inf, no nan) ---- */

static const char *js;

static void ws(void)
{
	while (*js == ' ' || *js == '\t' || *js == '\n' || *js == '\r')
		js++;
}

static int value(int depth);

static int string(void)
{
	if (*js++ != '"')
		return 0;
	while (*js != '"') {
		if ((unsigned char)*js < 0x20)
			return 0;
		if (*js++ == '\\') {
			if (*js == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", js[i]) || !js[i])
						return 0;
				js += 5;
			} else if (*js && strchr("\"\\/bfnrt", *js)) {
				js++;
			} else {
				return 0;
			}
		}
	}
	js++;
	return 1;
}

static int number(double *v)
{
	const char *s = js;
	char *end;

	if (*js == '-')
		js++;
	if (*js == '0')
		js++;
	else if (*js >= '1' && *js <= '9')
		while (*js >= '0' && *js <= '9')
			js++;
	else
		return 0;
	if (*js == '.') {
		if (!(*++js >= '0' && *js <= '9'))
			return 0;
		while (*js >= '0' && *js <= '9')
			js++;
	}
	if (*js == 'e' || *js == 'E') {
		js++;
		if (*js == '+' || *js == '-')
			js++;
		if (!(*js >= '0' && *js <= '9'))
			return 0;
		while (*js >= '0' && *js <= '9')
			js++;
	}
	*v = strtod(s, &end);
	return end == js;
}

static const char *json_why;

static int members(int depth, char close, int object)
{
	js++;
	ws();
	if (*js == close) {
		js++;
		return 1;
	}
	for (;;) {
		ws();
		if (object) {
			const char *key = js;
			if (!string())
				return 0;
			ws();
			if (*js++ != ':')
				return 0;
			ws();
			if (strncmp(key, "\"average_speed\"", 15) == 0) {
				double v;
				if (strncmp(js, "null", 4) == 0) { /* every run failed */
					js += 4;
					goto next;
				}
				if (!number(&v))
					return 0;
				if (!(v > 0))
					json_why = "an average_speed that is not above 0";
				goto next;
			}
		}
		if (!value(depth + 1))
			return 0;
	next:
		ws();
		if (*js == ',') {
			js++;
			continue;
		}
		if (*js++ != close)
			return 0;
		return 1;
	}
}

static int value(int depth)
{
	double v;

	if (depth > 64)
		return 0;
	ws();
	switch (*js) {
	case '{':
		return members(depth, '}', 1);
	case '[':
		return members(depth, ']', 0);
	case '"':
		return string();
	case 't':
		return strncmp(js, "true", 4) == 0 ? (js += 4, 1) : 0;
	case 'f':
		return strncmp(js, "false", 5) == 0 ? (js += 5, 1) : 0;
	case 'n':
		return strncmp(js, "null", 4) == 0 ? (js += 4, 1) : 0;
	default:
		return number(&v);
	}
}

static const char *check_json(char *out, size_t n)
{
	js = out;
	json_why = NULL;
	if (n == 0)
		return NULL;
	if (!value(0))
		return "output that is not JSON";
	ws();
	if (*js)
		return "text after the JSON value";
	return json_why;
}

/* ---- markdown: every number in a cell finite; samples/s, speedup and the
 * framework columns of -s compare above 0, or the outcome of runs that all
 * failed (OOM, failed, timeout); the failed runs column as "runs 1,2: OOM;
 * run 3: timeout" ---- */

static int outcome_word(const char *s)
{
	return !strcmp(s, "OOM") || !strcmp(s, "failed") || !strcmp(s, "timeout");
}

/* "run 3: OOM" or "runs 1,2: OOM; run 3: timeout", or "-". */
static const char *check_failed_cell(const char *cell)
{
	char buf[256], *save = NULL;

	if (!strcmp(cell, "-"))
		return NULL;
	snprintf(buf, sizeof buf, "%s", cell);
	for (char *part = strtok_r(buf, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
		char runs[128], what[32];
		while (*part == ' ')
			part++;
		if (sscanf(part, "run%*[s] %127[0-9,]: %31s", runs, what) != 2 &&
		    sscanf(part, "run %127[0-9,]: %31s", runs, what) != 2)
			return "a failed runs cell that is not runs and a status";
		if (!outcome_word(what) || runs[0] == ',' || strstr(runs, ",,") ||
		    runs[strlen(runs) - 1] == ',')
			return "a failed runs cell that is not runs and a status";
	}
	return NULL;
}

static int cells(char *line, char **c, int max)
{
	int n = 0;

	if (*line != '|')
		return 0;
	for (char *s = line + 1; n < max && *s;) {
		char *bar = strchr(s, '|');
		if (!bar)
			break;
		*bar = '\0';
		while (*s == ' ')
			s++;
		for (char *e = bar; e > s && e[-1] == ' ';)
			*--e = '\0';
		c[n++] = s;
		s = bar + 1;
	}
	return n;
}

static const char *check_cell(const char *cell, int positive)
{
	char tok[128];
	const char *s = cell;
	int first = 1, outlier = 0; /* 1 after "outlier", 2 after "outlier run(s)" */

	while (*s) {
		size_t len = strcspn(s, " ");
		if (len >= sizeof tok)
			len = sizeof tok - 1;
		memcpy(tok, s, len);
		tok[len] = '\0';
		s += strcspn(s, " ");
		s += strspn(s, " ");
		char *t = tok;
		if (strncmp(t, "\xc2\xb1", 2) == 0) /* ± */
			t += 2;
		size_t tl = strlen(t);
		/* the noisy mark's "±3.1%, outlier run 2" and "±3.1%; 40 runs" */
		if (tl && (t[tl - 1] == ',' || t[tl - 1] == ';'))
			t[--tl] = '\0';
		if (tl && t[tl - 1] == '%')
			t[--tl] = '\0';
		/* the noisy mark's "outlier run 3" or "outlier runs 1,4" */
		if (outlier == 2) {
			if (!tl || strspn(t, "0123456789,") != tl || t[0] == ',' ||
			    t[tl - 1] == ',' || strstr(t, ",,"))
				return "the outlier runs of a noisy mark are not run numbers";
			outlier = 0;
			continue;
		}
		if (outlier == 1 && (strcmp(t, "run") == 0 || strcmp(t, "runs") == 0))
			outlier = 2;
		else
			outlier = strcmp(t, "outlier") == 0;
		const char *u = *t == '-' || *t == '+' ? t + 1 : t;
		if (strncasecmp(u, "inf", 3) == 0 || strncasecmp(u, "nan", 3) == 0)
			return "a non-finite number in a cell";
		double v;
		if (((*t >= '0' && *t <= '9') || *t == '.' ||
		     (*t == '-' && t[1] >= '0' && t[1] <= '9')) &&
		    !fuzz_number(t, &v))
			return "a cell that starts as a number and is not a finite one";
		if (positive && first && (!fuzz_number(t, &v) || !(v > 0)))
			return "a samples/s, speedup or framework cell that is not above 0";
		first = 0;
	}
	return NULL;
}

static const char *check(int config, char *out, size_t n)
{
	char *c[64];
	int pos[64] = {0}, failed[64] = {0}, text[64] = {0}, ncols = 0, after_header = 0;
	const char *why;
	int compare = strcmp(configs[config].argv[1], "compare") == 0;

	if (strcmp(configs[config].argv[1], "json") == 0)
		return check_json(out, n);
	if (n && out[n - 1] != '\n')
		return "stdout ends inside a line";
	for (char *line = out, *next; *line || line < out + n; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break;
		*next++ = '\0';
		int nc = cells(line, c, 64);
		if (nc == 0) {
			after_header = 0;
			continue;
		}
		if (!after_header) { /* the header: which columns are rates */
			ncols = nc;
			for (int i = 0; i < nc; i++) {
				pos[i] = strcmp(c[i], "samples/s") == 0 ||
					 strcmp(c[i], "speedup") == 0 || (compare && i >= 2);
				failed[i] = strcmp(c[i], "failed runs") == 0;
				text[i] = strcmp(c[i], "nccl") ==
					  0; /* the logs' words, not numbers */
			}
			after_header = 1;
			continue;
		}
		if (strncmp(c[0], "---", 3) == 0)
			continue;
		for (int i = 0; i < nc; i++) {
			if (i < ncols && text[i])
				continue;
			if (i < ncols && failed[i])
				why = check_failed_cell(c[i]);
			else
				why = check_cell(c[i], i < ncols && pos[i] &&
							       strcmp(c[i], "-") != 0 &&
							       !outcome_word(c[i]));
			if (why)
				return why;
		}
	}
	return NULL;
}

const struct fuzz_target fuzz_target = {
	"table",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/speedup/*.expected tests/fixtures/table/*",
	0,
};
