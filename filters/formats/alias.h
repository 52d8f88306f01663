/*
 * alias.h — the precision aliases of grep-iters -a from=to (alias.c),
 * applied wherever a log names a precision: its path, -k, bench's header.
 */
#ifndef DLBENCH_ALIAS_H
#define DLBENCH_ALIAS_H

#include "lib.h"

#include <stddef.h>

/* -a from=to: one more alias (a usage error when it is none). */
void alias_add(const char *arg);
/* Forget every alias (main of grep-iters starts with it: see its reset). */
void alias_reset(void);
/* k->prec from prec[0, n) after the aliases (lib's prec_set); 0, or -1
 * when it names no precision. */
int alias_prec(struct key *k, const char *prec, size_t n);

#endif
