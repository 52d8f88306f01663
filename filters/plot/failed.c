/*
 * failed.c — plot's outcome lines (runs that left no log, doc/formats.md),
 * as series.c hands them over once parsed by lib/meta.c: kept, sorted, a
 * run met twice an error, then told per configuration: the status its runs
 * share and which runs failed how, for its point and the page.
 */
#include "plot.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void faillist_add(struct faillist *l, const struct metaline *m, const struct input *in)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
	struct failrun *f = &l->v[l->n++];
	f->framework = xstrdup(m->framework);
	f->key = m->runkey;
	key_format(&m->runkey, f->keytext, sizeof f->keytext);
	f->run = m->run;
	f->status = m->status;
	f->file = in->name;
	f->line = in->lineno;
}

static int same_config(const struct failrun *x, const struct failrun *y)
{
	return !strcmp(x->framework, y->framework) && !strcmp(x->keytext, y->keytext);
}

/* By configuration (framework, key), then run. */
static int cmp_run(const void *a, const void *b)
{
	const struct failrun *x = a, *y = b;
	int c = strcmp(x->framework, y->framework);

	if (!c)
		c = strcmp(x->keytext, y->keytext);
	return c ? c : (x->run > y->run) - (x->run < y->run);
}

/* ... then status before run. */
static int cmp_status(const void *a, const void *b)
{
	const struct failrun *x = a, *y = b;
	int c = strcmp(x->framework, y->framework);

	if (!c)
		c = strcmp(x->keytext, y->keytext);
	if (!c)
		c = (x->status > y->status) - (x->status < y->status);
	return c ? c : (x->run > y->run) - (x->run < y->run);
}

void faillist_sort(struct faillist *l)
{
	struct failrun *v = l->v;

	if (!l->n)
		return;
	qsort(v, l->n, sizeof *v, cmp_run);
	for (size_t i = 1; i < l->n; i++)
		if (!cmp_run(&v[i - 1], &v[i]))
			die_at(v[i].file, v[i].line, "a second outcome of run %ld of %s %s",
			       v[i].run, v[i].framework, v[i].keytext);
	qsort(v, l->n, sizeof *v, cmp_status);
}

/* Append to buf (size, *len so far), cut at its end. */
static void LIB_PRINTF(4, 5) append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	*len += strlen(buf + *len);
}

size_t faillist_config(const struct faillist *l, size_t i, enum outcome_status *status, char *buf,
		       size_t size)
{
	const struct failrun *v = l->v;
	size_t len = 0, e;

	buf[0] = '\0';
	*status = v[i].status;
	for (; i < l->n; i = e) {
		for (e = i; e < l->n && same_config(&v[e], &v[i]) && v[e].status == v[i].status;
		     e++)
			;
		if (v[i].status != *status)
			*status = OUTCOME_FAILED;
		append(buf, size, &len, "%srun%s ", len ? "; " : "", e - i > 1 ? "s" : "");
		for (size_t q = i; q < e; q++)
			append(buf, size, &len, "%s%ld", q > i ? "," : "", v[q].run);
		append(buf, size, &len, ": %s", outcome_cells[v[i].status]);
		if (e == l->n || !same_config(&v[e], &v[i]))
			return e;
	}
	return i;
}

void faillist_free(struct faillist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].framework);
	free(l->v);
	memset(l, 0, sizeof *l);
}
