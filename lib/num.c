/*
 * num.c — numbers from text, checked, and the shortest text of a double.
 */
#include "lib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	/* a digit or '-' first: strtol would skip any white space (\f, \v, \r
	 * too) and take a '+' (found by the fuzz target) */
	if (!((*s >= '0' && *s <= '9') || *s == '-'))
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

	if (!((*s >= '0' && *s <= '9') || *s == '-'))
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

void fmt_shortest(char *buf, size_t size, double x)
{
	char e[40], digits[24];
	int prec, exp10, nd = 0;

	/* "%e" of inf or nan has no digits and no exponent: the parse below
	 * would take letters for digits and read past e. */
	if (!isfinite(x))
		die("fmt_shortest: %g is not finite", x);

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
#define PUT(c)                      \
	do {                        \
		if (o < end)        \
			*o++ = (c); \
	} while (0)
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
