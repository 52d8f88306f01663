/*
 * stamp.c — time stamps (stamp.h): a log's calendar stamps and Unix times
 * as the parsers meet them (read as UTC into the record's timestamp_s text
 * and a struct stamp), the timestamp_s text of a record as window reads it
 * back, and the difference and order of two stamps.
 */
#include "stamp.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"
#include "scan.h"

#include <stdlib.h>
#include <string.h>

/* ---- one stamp --------------------------------------------------------- */

int stamp_parse(const char *s, struct stamp *t, int want_d)
{
	const char *p = s;
	long long sec = 0;
	long nsec = 0;
	int fd = 0, id = 0;

	for (; digit(*p); p++, id++)
		if (id < 18)
			sec = sec * 10 + (*p - '0');
	if (id == 0 || id > 18)
		return -1;
	if (*p == '.') {
		for (p++; digit(*p); p++, fd++)
			if (fd < 9)
				nsec = nsec * 10 + (*p - '0');
		if (fd == 0)
			return -1;
	}
	if (*p != '\0')
		return -1;
	for (int i = fd; i < 9; i++)
		nsec *= 10;
	t->present = 1;
	t->exact = fd <= 6;
	t->sec = sec;
	t->nsec = nsec;
	t->d = want_d ? strtod(s, NULL) : 0;
	return 0;
}

double stamp_diff(const struct stamp *a, const struct stamp *b)
{
	/* exact: both nsec are whole microseconds */
	if (a->exact && b->exact)
		return (double)((b->sec - a->sec) * 1000000 + (b->nsec - a->nsec) / 1000) / 1e6;
	return b->d - a->d;
}

int stamp_later(const struct stamp *a, const struct stamp *b)
{
	return a->sec != b->sec ? a->sec > b->sec : a->nsec > b->nsec;
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
	long ns = 0;
	for (int i = 0; i < 9; i++)
		ns = ns * 10 + (i < nf ? frac[i] - '0' : 0);
	it->ts = (struct txt){it->tsbuf, k};
	it->stamp = (struct stamp){1, nf <= 6, sec, ns, 0};
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

void unix_last(struct scan *sc, const char **pp, struct it *it)
{
	it->ts = getnum(sc, pp, "timestamp", NULL, POSITIVE);
	if (*skipb(*pp))
		record_die(sc->in, "text after the timestamp: '%.*s'", toklen(skipb(*pp)),
			   skipb(*pp));
}

const char *dll_stamp(struct scan *sc, const char *d, struct it *it)
{
	const char *p = skipb(d + 4);

	if (!stamp_at(p))
		record_die(sc->in, "DLL line without a timestamp: '%.*s'", toklen(p), p);
	stamp_read(sc, &p, it);
	return p;
}
