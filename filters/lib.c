/*
 * lib.c — shared helpers of the filters (see lib.h). Reads and writes only
 * what the caller hands it; stderr for diagnostics.
 */
#include "lib.h"

#include <errno.h>
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *progname = "dlbench";
const char *usage_text = "";

static void vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t len = strlen(fmt);

	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (len > 0 && fmt[len - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(2);
}

void usage(void)
{
	fprintf(stderr, "usage: %s\n", usage_text);
	exit(2);
}

void finish_output(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		die("<stdout>: write error:");
}

/* ---- numbers --------------------------------------------------------- */

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '+')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long long flag_int(const char *flag, const char *s, long long min, long long max)
{
	char *end;
	long long v;

	if (*s == '\0' || *s == ' ' || *s == '+')
		die_usage("%s: '%s' is not an integer", flag, s);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE || *end != '\0') {
		if (*end != '\0')
			die_usage("%s: '%s' is not an integer", flag, s);
	}
	if (errno == ERANGE || v < min || v > max)
		die_usage("%s: '%s' is out of range %lld..%lld", flag, s, min, max);
	return v;
}

int compat_flag(const char *s)
{
	if (strcmp(s, "dlperf") != 0)
		die_usage("-c: '%s' is not dlperf", s);
	return 1;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (*s == '\0' || *s == ' ' || *s == '\t')
		return -1;
	/* Only plain decimal text: strtod would also take "inf", "nan", hex. */
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

double r2n(double x)
{
	/* volatile keeps the product a single rounded double (no FMA, no
	 * extended precision), as numpy computed it. */
	volatile double y = x * 100.0;
	return nearbyint(y) / 100.0;
}

double r2p(double x, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.*f", decimals, x);
	return strtod(buf, NULL);
}

void fmt_shortest(char *buf, size_t size, double x)
{
	char e[40], digits[24];
	int prec, exp10, nd = 0;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof e, "%.*e", prec - 1, x);
		if (strtod(e, NULL) == x)
			break;
	}
	/* e = [-]d[.ddd]e[+-]XX : collect the digits and the exponent. */
	const char *p = e;
	int neg = 0;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	digits[nd] = '\0';
	exp10 = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = '\0';

	char *o = buf, *end = buf + size - 1;
#define PUT(c) do { if (o < end) *o++ = (c); } while (0)
	if (neg)
		PUT('-');
	if (exp10 < -4 || exp10 >= 16) {
		PUT(digits[0]);
		if (nd > 1) {
			PUT('.');
			for (int i = 1; i < nd; i++)
				PUT(digits[i]);
		}
		o += snprintf(o, (size_t)(end - o) + 1, "e%c%02d", exp10 < 0 ? '-' : '+',
			      abs(exp10));
	} else if (exp10 < 0) {
		PUT('0');
		PUT('.');
		for (int i = 0; i < -exp10 - 1; i++)
			PUT('0');
		for (int i = 0; i < nd; i++)
			PUT(digits[i]);
	} else {
		for (int i = 0; i <= exp10 || i < nd; i++) {
			if (i == exp10 + 1)
				PUT('.');
			PUT(i < nd ? digits[i] : '0');
		}
		if (nd <= exp10 + 1) {
			PUT('.');
			PUT('0');
		}
	}
#undef PUT
	*o = '\0';
}

/* ---- records --------------------------------------------------------- */

void input_open(struct input *in, const char *path)
{
	memset(in, 0, sizeof *in);
	if (strcmp(path, "-") == 0) {
		in->fp = stdin;
		in->name = "<stdin>";
	} else {
		in->fp = fopen(path, "r");
		in->name = path;
		if (!in->fp)
			die("%s:", path);
	}
}

void input_close(struct input *in)
{
	if (in->fp && in->fp != stdin)
		fclose(in->fp);
	free(in->line);
	in->fp = NULL;
	in->line = NULL;
}

int input_line(struct input *in)
{
	ssize_t n;

	errno = 0;
	n = getline(&in->line, &in->cap, in->fp);
	if (n < 0) {
		if (ferror(in->fp))
			die("%s: read error:", in->name);
		return 0;
	}
	in->lineno++;
	if (n > 0 && in->line[n - 1] == '\n')
		in->line[--n] = '\0';
	if (n > 0 && in->line[n - 1] == '\r')
		in->line[--n] = '\0';
	return 1;
}

int input_record(struct input *in)
{
	if (!input_line(in))
		return 0;
	in->nf = 0;
	char *p = in->line;
	for (;;) {
		if (in->nf == REC_MAXF)
			record_die(in, "more than %d fields", REC_MAXF);
		in->f[in->nf++] = p;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return 1;
}

void record_die(const struct input *in, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%ld: ", progname, in->name, in->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void record_expect(struct input *in, int n)
{
	if (in->nf != n)
		record_die(in, "%d field%s, expected %d", in->nf, in->nf == 1 ? "" : "s", n);
}

double record_num(struct input *in, int i, const char *what, int positive)
{
	double v;

	if (parse_double(in->f[i], &v) != 0)
		record_die(in, "%s '%s' is not a number", what, in->f[i]);
	if (positive && !(v > 0))
		record_die(in, "%s '%s' is not positive", what, in->f[i]);
	return v;
}

/* ---- configuration keys ---------------------------------------------- */

static const char *const precisions[] = {"fp32", "tf32", "amp", "bf16", "fp16"};

int prec_valid(const char *s)
{
	for (size_t i = 0; i < sizeof precisions / sizeof *precisions; i++)
		if (strcmp(s, precisions[i]) == 0)
			return 1;
	return 0;
}

/* A positive decimal integer without sign or leading zero, ending at stop. */
static int take_pos(const char **sp, char stop, long *out)
{
	const char *s = *sp;
	long v = 0;

	if (*s < '1' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (LONG_MAX - 9) / 10 || v > 1000000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s != stop)
		return -1;
	*sp = s + (stop != '\0');
	*out = v;
	return 0;
}

int case_parse(const char *s, long *nodes, long *gpus)
{
	return take_pos(&s, 'n', nodes) || take_pos(&s, 'g', gpus) || *s != '\0' ? -1 : 0;
}

int key_parse(const char *s, struct key *k)
{
	if (take_pos(&s, 'n', &k->nodes) || take_pos(&s, 'g', &k->gpus) || *s++ != '_' ||
	    *s++ != 'b' || take_pos(&s, '_', &k->batch) || !prec_valid(s))
		return -1;
	snprintf(k->prec, sizeof k->prec, "%s", s);
	return 0;
}

void key_format(const struct key *k, char *buf, size_t size)
{
	snprintf(buf, size, "%ldn%ldg_b%ld_%s", k->nodes, k->gpus, k->batch, k->prec);
}

long key_total_batch(const struct key *k)
{
	return k->nodes * k->gpus * k->batch;
}

int key_ladder_cmp(const struct key *a, const struct key *b)
{
	long da = a->nodes * a->gpus, db = b->nodes * b->gpus;

	if (da != db)
		return da < db ? -1 : 1;
	if (a->nodes != b->nodes)
		return a->nodes < b->nodes ? -1 : 1;
	return 0;
}
