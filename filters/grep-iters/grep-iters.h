/*
 * grep-iters.h — what the parts of grep-iters share: main.c reads the logs
 * and writes the records, paths.c reads a log's configuration from its
 * path, ranks.c groups the lines of several ranks in one log.
 */
#ifndef DLBENCH_GREP_ITERS_H
#define DLBENCH_GREP_ITERS_H

#include "../formats/formats.h"

/* ---- a log's path (paths.c) --------------------------------------------- */

enum { KS_NOT, KS_OK, KS_BATCH, KS_PREC };
/* "<N>n<G>g_b<rest>": KS_NOT when s does not start that way, else whether
 * the batch and precision are valid (*prec: the precision's text). */
int key_shape(const char *s, struct key *k, const char **prec);
/* The configuration a log's path carries: sc's key (ours or DLPerf's layout,
 * or opt_key, which must agree), *run, and *framework (ours: the directory
 * above the key; else NULL). Dies on a path of neither layout without -k. */
void path_config(struct scan *sc, const char *path, const struct key *opt_key, long *run,
		 char **framework);

/* ---- several ranks in one log (ranks.c) --------------------------------- */

struct ranks;
/* Keep a line of a grouped log (*rk is made on the first). */
void ranks_keep(struct ranks **rk, const struct it *it);
/* Write the kept lines as one record per iteration through emit, sorted by
 * iteration, and free them; name (the log's) for errors, tb the total batch. */
void ranks_flush(struct ranks **rk, const struct format *f, const char *name, double tb,
		 void (*emit)(void *ctx, long long iter, struct txt ts, struct txt step,
			      struct txt rate, struct txt loss),
		 void *ctx);

#endif
