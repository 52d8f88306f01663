/*
 * meta.c — launch's "# env", "# mem" and "# energy" lines of a log
 * (doc/cluster.md), kept while the log is read; main.c writes them after
 * the log's records.
 *
 * Reads a log line: keeps it when it is one of them, checked in launch's
 * form by the grammar's owner (lib/meta.c: any other shape is an error
 * naming file and line). Writes each kept line in the form the filters
 * after grep-iters read: the run's framework, key and run before node=.
 */
#include "grep-iters.h"

#include <stdlib.h>

int meta_keep(struct metalines *ml, const struct input *in, const char *s)
{
	if (metaline_parse(in, s, META_LOG, &ml->m) == META_OTHER)
		return 0;
	ml->v = xgrow(ml->v, &ml->cap, ml->n + 1, sizeof *ml->v);
	ml->v[ml->n++] = xstrdup(s);
	return 1;
}

const char *meta_line(struct metalines *ml, size_t i, const struct input *in, const char *fw,
		      const char *key, long run, size_t *len)
{
	metaline_parse(in, ml->v[i], META_LOG, &ml->m); /* checked when kept */
	ml->m.framework = fw;
	ml->m.key = key;
	ml->m.run = run;
	*len = metaline_format(&ml->m, &ml->out, &ml->outcap);
	return ml->out;
}

void meta_free(struct metalines *ml)
{
	for (size_t i = 0; i < ml->n; i++)
		free(ml->v[i]);
	free(ml->v);
	free(ml->out);
	metaline_free(&ml->m);
	ml->v = NULL;
	ml->out = NULL;
	ml->n = ml->cap = ml->outcap = 0;
}
