/*
 * scan.h — what the parsers of filters/formats/ share to read a line
 * (scan.c): blanks and labels, numbers checked where they are read (an
 * error names file:line and the text), NGC's DLLogger metrics.
 */
#ifndef DLBENCH_SCAN_H
#define DLBENCH_SCAN_H

#include "formats.h"

#include <stddef.h>
#include <string.h>

static inline int blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline int digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *skipb(const char *p)
{
	while (blank(*p))
		p++;
	return p;
}

/* The first occurrence of label in s that does not start inside a name and,
 * when the label ends in a letter or digit, is followed by a blank. Returns
 * the text after the label and the blanks that follow; NULL when absent. */
const char *label(const char *s, const char *lab);
/* The last occurrence, as label(). */
const char *label_last(const char *s, const char *lab);
/* The token at p for a message: its length, up to a blank or 40. */
int toklen(const char *p);

enum sign { ANY, POSITIVE, NONNEG };

static inline int ends_token(char c, const char *stops)
{
	return c == '\0' || blank(c) || (stops && strchr(stops, c));
}

/* N_RANGE: a number whose value is no double, or a subnormal one. */
enum { N_BAD, N_NEG, N_ZERO, N_POS, N_RANGE };

/* A plain number ([+-]digits[.digits]) of at most this many characters is
 * a normal double whatever its digits (from 1e-298 to below 1e300) or 0:
 * only longer ones and exponent forms are converted to be classified. */
#define NUM_PLAIN_MAX 300

/* The value of the number s[0, n) numscan accepted, exactly as strtod reads
 * the whole text (of any length). */
double num_value(const char *s, size_t n);
/* The class of a number that needs converting: N_RANGE when its value
 * overflows, or underflows below DBL_MIN though its digits are not all 0. */
int num_class(const char *s, size_t n, int nonzero);

/* Scan the plain decimal number at s ([+-]digits[.digits][e[+-]digits]):
 * its length in *n (0 when there is none) and its class. */
static inline int numscan(const char *s, size_t *n)
{
	const char *p = s;
	int d = 0, nonzero = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; digit(*p); p++, d++)
		nonzero |= *p != '0';
	if (*p == '.')
		for (p++; digit(*p); p++, d++)
			nonzero |= *p != '0';
	*n = 0;
	if (!d)
		return N_BAD;
	if ((*p == 'e' || *p == 'E') &&
	    (digit(p[1]) || ((p[1] == '+' || p[1] == '-') && digit(p[2])))) {
		for (p += 2; digit(*p); p++)
			;
		*n = (size_t)(p - s);
		return num_class(s, *n, nonzero);
	}
	*n = (size_t)(p - s);
	if (*n > NUM_PLAIN_MAX)
		return num_class(s, *n, nonzero);
	return !nonzero ? N_ZERO : s[0] == '-' ? N_NEG : N_POS;
}

/* getnum's error path: dies saying why p is not the number wanted. */
__attribute__((cold)) LIB_NORETURN void badnum(struct scan *sc, const char *p, int c, size_t n,
					       const char *what, enum sign sign);

/* The number at *pp, which must end at a blank, the end or a character of
 * stops; dies naming what when it is not a number or breaks the sign rule.
 * *pp moves past it. Inline: parsers read every number of a log with it. */
static inline struct txt getnum(struct scan *sc, const char **pp, const char *what,
				const char *stops, enum sign sign)
{
	const char *p = *pp;
	size_t n = 0;
	int c = p ? numscan(p, &n) : N_BAD;

	if (n == 0 || !ends_token(p[n], stops))
		badnum(sc, p, N_BAD, 0, what, sign);
	if (c == N_BAD || c == N_RANGE || (sign == POSITIVE && c != N_POS) ||
	    (sign == NONNEG && c == N_NEG))
		badnum(sc, p, c, n, what, sign);
	*pp = p + n;
	return (struct txt){p, n};
}

/* A loss: a number, or nan / inf as frameworks print a diverged loss. */
struct txt getloss(struct scan *sc, const char **pp, const char *what, const char *stops);
/* A non-negative integer (at most 15 digits) ending as getnum's numbers. */
long long getint(struct scan *sc, const char **pp, const char *what, const char *stops);
/* Expect the literal lit at *pp after blanks; skip the blanks after it. */
void expect(struct scan *sc, const char **pp, const char *lit, const char *what);

/* A DLLogger metric "name : value": the value, or NULL when absent. */
const char *dll_metric(const char *s, const char *name);
/* Decimal text of v; its length. */
size_t fmt_ll(char *buf, long long v);
/* The number a checked text holds (getnum's), read whole. */
double txt_num(struct txt t);
/* v, a positive quantity the parsers or grep-iters computed (a derived
 * step_s, a median), in shortest form in buf; dies "file:line: what is out
 * of range" unless it is finite and at least DBL_MIN. */
struct txt pos_txt(const char *file, long line, const char *what, double v, char *buf, size_t size);

#endif
