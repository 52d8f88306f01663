/*
 * scan.c — the scanning every parser of filters/formats/ shares: labels,
 * numbers checked where they are read (an error names file:line and the
 * text) and NGC's DLLogger metrics (scan.h). Reads a line's text, writes
 * into struct it. Time stamps are stamp.c's.
 */
#include "formats.h"
#include "scan.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A character that may be part of a name: labels must not start inside one. */
static int namechar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_' ||
	       c == '.' || c == '/';
}

const char *label(const char *s, const char *lab)
{
	size_t n = strlen(lab);
	int need_blank = namechar(lab[n - 1]) && lab[n - 1] != '.';

	for (const char *p = s; (p = strstr(p, lab)) != NULL; p++) {
		if (p > s && namechar(p[-1]) && namechar(lab[0]))
			continue;
		if (need_blank && !blank(p[n]))
			continue;
		return skipb(p + n);
	}
	return NULL;
}

const char *label_last(const char *s, const char *lab)
{
	const char *r = NULL, *q;

	while ((q = label(s, lab)) != NULL) {
		r = q;
		s = q;
	}
	return r;
}

int toklen(const char *p)
{
	int n = 0;

	while (p[n] && !blank(p[n]) && n < 40)
		n++;
	return n;
}

void badnum(struct scan *sc, const char *p, int c, size_t n, const char *what, enum sign sign)
{
	if (!p)
		record_die(sc->in, "no %s", what);
	if (n == 0 || c == N_BAD)
		record_die(sc->in, "%s '%.*s' is not a number", what, toklen(p), p);
	if (c == N_RANGE)
		record_die(sc->in, "%s '%.*s%s' is out of range", what, n > 40 ? 40 : (int)n, p,
			   n > 40 ? "..." : "");
	if (sign == NONNEG)
		record_die(sc->in, "%s '%.*s' is negative", what, (int)n, p);
	record_die(sc->in, "%s '%.*s' is not positive", what, (int)n, p);
}

struct txt getloss(struct scan *sc, const char **pp, const char *what, const char *stops)
{
	const char *p = *pp;
	static const char *const words[] = {"nan", "-nan", "inf", "-inf", "NaN", "Inf", "-Inf"};

	if (p && !digit(*p) && *p != '.' && !digit(p[1]))
		for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
			size_t n = strlen(words[i]);
			if (strncmp(p, words[i], n) == 0 && ends_token(p[n], stops)) {
				*pp = p + n;
				return (struct txt){p, n};
			}
		}
	return getnum(sc, pp, what, stops, ANY);
}

long long getint(struct scan *sc, const char **pp, const char *what, const char *stops)
{
	const char *p = *pp;
	long long v = 0;
	int n = 0;

	if (!p)
		record_die(sc->in, "no %s", what);
	while (digit(p[n]) && n < 16)
		v = v * 10 + (p[n++] - '0');
	if (n == 0 || n > 15 || !ends_token(p[n], stops))
		record_die(sc->in, "%s '%.*s' is not an integer", what, toklen(p), p);
	*pp = p + n;
	return v;
}

void expect(struct scan *sc, const char **pp, const char *lit, const char *what)
{
	const char *p = skipb(*pp);
	size_t n = strlen(lit);

	if (strncmp(p, lit, n) != 0)
		record_die(sc->in, "%s: expected '%s' at '%.*s'", what, lit, toklen(p), p);
	*pp = skipb(p + n);
}

size_t fmt_ll(char *buf, long long v)
{
	char tmp[24];
	size_t n = 0, k = 0;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		buf[k++] = '-';
	while (n)
		buf[k++] = tmp[--n];
	return k;
}

double num_value(const char *s, size_t n)
{
	char buf[64], *b = n < sizeof buf ? buf : xmalloc(n + 1);

	memcpy(b, s, n);
	b[n] = '\0';
	double v = strtod(b, NULL);
	if (b != buf)
		free(b);
	return v;
}

int num_class(const char *s, size_t n, int nonzero)
{
	double v = num_value(s, n);

	if (!isfinite(v) || (v == 0 && nonzero) || (v != 0 && fabs(v) < DBL_MIN))
		return N_RANGE;
	return v < 0 ? N_NEG : v == 0 ? N_ZERO : N_POS;
}

double txt_num(struct txt t)
{
	return num_value(t.p, t.n);
}

struct txt pos_txt(const char *file, long line, const char *what, double v, char *buf, size_t size)
{
	if (!isfinite(v) || !(v >= DBL_MIN))
		die_at(file, line, "%s is out of range", what);
	fmt_shortest(buf, size, v);
	return (struct txt){buf, strlen(buf)};
}

/* ---- NGC's DLLogger lines ---------------------------------------------- */

const char *dll_metric(const char *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s; (p = strstr(p, name)) != NULL; p++) {
		if (p > s && !blank(p[-1]))
			continue;
		const char *q = skipb(p + n);
		if (*q == ':')
			return skipb(q + 1);
	}
	return NULL;
}
