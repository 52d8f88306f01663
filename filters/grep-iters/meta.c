/*
 * meta.c — launch's "# env", "# mem" and "# energy" lines of a log
 * (doc/cluster.md), kept while the log is read; main.c writes them after
 * the log's records.
 *
 * Reads a log line: keeps it when it is one of them, checked in launch's
 * form by the grammar's owner (lib/meta.c: any other shape is an error
 * naming file and line). The header of bench's log format ("# bench
 * model=resnet50 backend=cpu-onednn ... image=224 ...", written by bench
 * and by pipelines/pytorch_synthetic.py) gives three env items of node 0,
 * model, image and backend: what table's MFU column needs to know of the
 * model trained and where. Writes each kept line in the form the filters
 * after grep-iters read: the run's framework, key and run before node=.
 */
#include "grep-iters.h"

#include <stdlib.h>
#include <string.h>

int meta_keep(struct metalines *ml, const struct input *in, const char *s)
{
	if (metaline_parse(in, s, META_LOG, &ml->m) == META_OTHER)
		return 0;
	ml->v = xgrow(ml->v, &ml->cap, ml->n + 1, sizeof *ml->v);
	ml->v[ml->n++] = xstrdup(s);
	return 1;
}

void meta_header(struct metalines *ml, const struct input *in, const char *s)
{
	static const char *const names[] = {"model", "image", "backend"};

	if (strncmp(s, "# bench ", 8) != 0)
		return;
	for (const char *p = s + 8; *p;) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t");
		const char *eq = memchr(p, '=', n);
		for (size_t k = 0; eq && eq + 1 < p + n && k < sizeof names / sizeof *names; k++)
			if ((size_t)(eq - p) == strlen(names[k]) && !strncmp(p, names[k], eq - p)) {
				size_t vn = n - (size_t)(eq + 1 - p);
				char *line = xmalloc(32 + META_ENCODED(vn));
				int len = sprintf(line, "# env node=0 %s=", names[k]);
				meta_encode(line + len, eq + 1, vn);
				meta_keep(ml, in, line);
				free(line);
			}
		p += n;
	}
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
