/*
 * scan.c — the scanning every parser of filters/formats/ shares: labels,
 * numbers checked where they are read (an error names file:line and the
 * text), calendar stamps as UTC Unix seconds, OneFlow's trailing Unix time
 * and NGC's DLLogger lines. Reads a line's text, writes into struct it.
 */
#include "formats.h"

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

/* ---- calendar time ----------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long long days_from_civil(long long y, int m, int d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int dig2(const char *p)
{
	return (p[0] - '0') * 10 + (p[1] - '0');
}

int stamp_at(const char *s)
{
	static const char pat[] = "dddd-dd-dd dd:dd:dd";

	for (int i = 0; pat[i]; i++) {
		if (pat[i] == 'd' ? !digit(s[i])
		    : i == 10     ? s[i] != ' ' && s[i] != 'T'
				  : s[i] != pat[i])
			return 0;
	}
	return 1;
}

void stamp_read(struct scan *sc, const char **pp, struct it *it)
{
	const char *s = *pp;
	int y = dig2(s) * 100 + dig2(s + 2), mo = dig2(s + 5), d = dig2(s + 8);
	int h = dig2(s + 11), mi = dig2(s + 14), se = dig2(s + 17);
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || se > 59)
		record_die(sc->in, "timestamp '%.19s' is not a valid date and time", s);
	long long sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	const char *f = s + 19;
	char frac[10];
	int nf = 0;
	if ((*f == '.' || *f == ',') && digit(f[1])) {
		for (f++; digit(*f); f++) {
			if (nf == 9)
				record_die(sc->in,
					   "timestamp '%.30s' has more than 9 fraction digits", s);
			frac[nf++] = *f;
		}
	} else {
		memcpy(frac, "000000", 6);
		nf = 6;
	}
	size_t k = fmt_ll(it->tsbuf, sec);
	it->tsbuf[k++] = '.';
	memcpy(it->tsbuf + k, frac, (size_t)nf);
	k += (size_t)nf;
	long long ns = 0;
	for (int i = 0; i < 9; i++)
		ns = ns * 10 + (i < nf ? frac[i] - '0' : 0);
	it->ts = (struct txt){it->tsbuf, k};
	it->ts_sec = sec;
	it->ts_nsec = (long)ns;
	*pp = f;
}

void stamp_find(struct scan *sc, const char *s, const char *end, struct it *it)
{
	for (const char *p = s; p + 19 <= end; p++)
		if (digit(*p) && stamp_at(p)) {
			stamp_read(sc, &p, it);
			return;
		}
}

struct txt unix_last(struct scan *sc, const char **pp)
{
	struct txt t = getnum(sc, pp, "timestamp", NULL, POSITIVE);

	if (*skipb(*pp))
		record_die(sc->in, "text after the timestamp: '%.*s'", toklen(skipb(*pp)),
			   skipb(*pp));
	return t;
}

/* ---- NGC's DLLogger lines ---------------------------------------------- */

const char *dll_stamp(struct scan *sc, const char *d, struct it *it)
{
	const char *p = skipb(d + 4);

	if (!stamp_at(p))
		record_die(sc->in, "DLL line without a timestamp: '%.*s'", toklen(p), p);
	stamp_read(sc, &p, it);
	return p;
}

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
