/*
 * stamp.h — time stamps (stamp.c): one representation, struct stamp, for
 * what grep-iters reads from a log (calendar stamps, read as UTC) and what
 * window reads from its records (timestamp_s, Unix seconds as text), and
 * the differences and order of two.
 */
#ifndef DLBENCH_STAMP_H
#define DLBENCH_STAMP_H

#include "lib.h"

/* Unix seconds and the nanoseconds of the first 9 fraction digits. exact:
 * at most 6 fraction digits, so a difference in integer microseconds is
 * exact; else differences take d, the whole text as a double. */
struct stamp {
	int present, exact;
	long long sec;
	long nsec;
	double d; /* stamp_parse's want_d; 0 otherwise */
};

/* timestamp_s's text, digits[.digits] (at most 18 whole digits): t, with
 * the double when want_d. 0, or -1 when it is no such text. */
int stamp_parse(const char *s, struct stamp *t, int want_d);
/* b − a in seconds: integer microseconds when both are exact, else the
 * difference of the doubles. */
double stamp_diff(const struct stamp *a, const struct stamp *b);
/* Is a later than b (seconds, then nanoseconds)? */
int stamp_later(const struct stamp *a, const struct stamp *b);

/* ---- a log's stamps, for the parsers (formats.h) ------------------------ */

struct scan;
struct it;

/* Does s start with "YYYY-MM-DD HH:MM:SS" (or a T between date and time)? */
int stamp_at(const char *s);
/* Read the calendar stamp at *pp (stamp_at) as UTC: it->stamp, and it->ts
 * as Unix seconds with the fraction digits the log gave (".000000" when
 * none); *pp moves past it. An impossible date dies naming file:line. */
void stamp_read(struct scan *sc, const char **pp, struct it *it);
/* A logging stamp anywhere in s[0, end) (e.g. "2020-08-20 15:33:35,123 - INFO"). */
void stamp_find(struct scan *sc, const char *s, const char *end, struct it *it);
/* The Unix time as the last token of a line (OneFlow) into it->ts. */
void unix_last(struct scan *sc, const char **pp, struct it *it);
/* NGC's DLLogger lines "DLL <stamp> - …": the stamp after "DLL " at d into
 * it; returns the text after it. */
const char *dll_stamp(struct scan *sc, const char *d, struct it *it);

#endif
