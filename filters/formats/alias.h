/*
 * alias.h — the precision aliases of grep-iters -a from=to (alias.c),
 * applied wherever a log names a precision: its path, -k, bench's header.
 */
#ifndef DLBENCH_ALIAS_H
#define DLBENCH_ALIAS_H

#include "lib.h"

#include <stddef.h>

#define ALIAS_MAX 8

/* The aliases of one grep-iters call (its state: filter.h), zeroed at
 * first; the to's point into -a's argument. */
struct aliases {
	struct {
		const char *from, *to;
	} v[ALIAS_MAX];
	int n;
};

/* -a from=to: one more alias (a usage error when it is none). */
void alias_add(struct aliases *al, const char *arg);
/* k->prec from prec[0, n) after the aliases (lib's prec_set); 0, or -1
 * when it names no precision. */
int alias_prec(const struct aliases *al, struct key *k, const char *prec, size_t n);

#endif
