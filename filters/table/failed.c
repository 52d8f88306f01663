/*
 * failed.c — table's failed runs: the outcome lines of runs that left no
 * log (doc/formats.md), as bin/outcome wrote them and median passed them on,
 *
 *   # outcome framework=<fw> key=<key> run=<r> status=oom|failed|timeout exit=<n> [reason=<text>]
 *
 * read by lib/meta.c's grammar (a malformed one is an error naming file
 * and line) and kept per configuration, found in a hash table; adds the
 * rows of the configurations whose runs all failed to the table's. Writes
 * their cells (the samples/s cell says OOM, failed or timeout, as DLPerf's
 * tables say OOM), the "failed runs" column, the footer's lines and the
 * JSON's keys.
 */
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int failures_read(struct failures *fs, const struct input *in)
{
	struct metaline *m = &fs->m;

	if (metaline_parse(in, in->line, META_RUN, m) != META_OUTCOME)
		return 0;
	hkey_start(&fs->hk);
	hkey_str(&fs->hk, m->framework);
	hkey_str(&fs->hk, m->key);
	size_t i = hash_intern(&fs->index, &fs->hk, fs->n);
	if (i == fs->n) {
		fs->v = xgrow(fs->v, &fs->cap, fs->n + 1, sizeof *fs->v);
		struct failed *f = &fs->v[fs->n++];
		memset(f, 0, sizeof *f);
		f->fw = xstrdup(m->framework);
		f->keytext = xstrdup(m->key);
		f->key = m->runkey;
		f->file = in->name;
		f->line = in->lineno;
	}
	struct failed *f = &fs->v[i];
	hkey_start(&fs->hk);
	hkey_long(&fs->hk, (long)i);
	hkey_long(&fs->hk, m->run);
	if (hash_intern(&fs->runs, &fs->hk, fs->nruns) != fs->nruns)
		record_die(in, "a second outcome of run %ld of %s %s", m->run, f->fw, f->keytext);
	fs->nruns++;
	f->runs = xgrow(f->runs, &f->cap, f->n + 1, sizeof *f->runs);
	f->runs[f->n++] =
		(struct failrun){m->run, m->status, m->exit, m->reason ? xstrdup(m->reason) : NULL};
	return 1;
}

static int cmp_run(const void *a, const void *b)
{
	const struct failrun *x = a, *y = b;

	return (x->run > y->run) - (x->run < y->run);
}

void failures_sort(struct failures *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		qsort(fs->v[i].runs, fs->v[i].n, sizeof *fs->v[i].runs, cmp_run);
}

const struct failed *failures_of(struct failures *fs, const char *fw, const char *key)
{
	hkey_start(&fs->hk);
	hkey_str(&fs->hk, fw);
	hkey_str(&fs->hk, key);
	size_t i = hash_find(&fs->index, &fs->hk);
	return i == HASH_NONE ? NULL : &fs->v[i];
}

enum outcome_status failed_status(const struct failed *f)
{
	for (size_t r = 1; r < f->n; r++)
		if (f->runs[r].status != f->runs[0].status)
			return OUTCOME_FAILED;
	return f->runs[0].status;
}

/* "run 3" or "runs 1,2": the runs of f (sorted) that have status s;
 * returns their count. */
static size_t runs_with(const struct failed *f, int s)
{
	size_t count = 0, j = 0;

	for (size_t r = 0; r < f->n; r++)
		count += f->runs[r].status == (enum outcome_status)s;
	if (!count)
		return 0;
	printf("run%s ", count > 1 ? "s" : "");
	for (size_t r = 0; r < f->n; r++)
		if (f->runs[r].status == (enum outcome_status)s)
			printf("%s%ld", j++ ? "," : "", f->runs[r].run);
	return count;
}

static int has_status(const struct failed *f, int s)
{
	for (size_t r = 0; r < f->n; r++)
		if (f->runs[r].status == (enum outcome_status)s)
			return 1;
	return 0;
}

/* "run 3: OOM" or "runs 1,2: OOM; run 4: timeout", by status. */
static void describe(const struct failed *f)
{
	int k = 0;

	for (int s = 0; s < OUTCOME_NSTATUS; s++) {
		if (!has_status(f, s))
			continue;
		fputs(k++ ? "; " : "", stdout);
		runs_with(f, s);
		printf(": %s", outcome_cells[s]);
	}
}

void failed_row_cells(const struct failed *f, int with_stats)
{
	const char *cell = outcome_cells[failed_status(f)];

	if (with_stats)
		printf(" %s | - | - | - | - | 0 | - | - | - |", cell);
	else
		printf(" %s | - | 0 | - |", cell);
}

void failed_cell(struct failures *fs, const char *fw, const char *key)
{
	const struct failed *f = failures_of(fs, fw, key);

	if (!fs->n)
		return;
	if (!f) {
		printf(" - |");
		return;
	}
	putchar(' ');
	describe(f);
	printf(" |");
}

/* A reason as one line of markdown: control bytes as blanks. */
static void put_line(const char *s)
{
	for (; *s; s++)
		putchar((unsigned char)*s < ' ' || *s == 0x7f ? ' ' : *s);
}

/* By framework, then ladder order. */
static int cmp_config(const void *a, const void *b)
{
	const struct failed *x = *(const struct failed *const *)a,
			    *y = *(const struct failed *const *)b;
	int c = strcmp(x->fw, y->fw);

	if (!c)
		c = key_ladder_cmp(&x->key, &y->key);
	if (!c)
		c = strcmp(x->keytext, y->keytext);
	return c;
}

void failed_footer(struct failures *fs, int blank_before)
{
	struct failed **order = xmalloc((fs->n ? fs->n : 1) * sizeof *order);

	for (size_t i = 0; i < fs->n; i++)
		order[i] = &fs->v[i];
	qsort(order, fs->n, sizeof *order, cmp_config);
	for (size_t i = 0; i < fs->n; i++) {
		const struct failed *f = order[i];
		for (int s = 0; s < OUTCOME_NSTATUS; s++) {
			const struct failrun *first = NULL;
			for (size_t r = 0; r < f->n && !first; r++)
				if (f->runs[r].status == (enum outcome_status)s)
					first = &f->runs[r];
			if (!first)
				continue;
			printf("%s- **failed runs**: %s %s ", blank_before ? "\n" : "", f->fw,
			       f->keytext);
			blank_before = 0;
			runs_with(f, s);
			printf(": %s (exit %ld)", outcome_cells[s], first->exit);
			if (first->reason) {
				printf(": ");
				put_line(first->reason);
			}
			putchar('\n');
		}
	}
	free(order);
}

void failed_json(struct failures *fs, const char *fw, const char *key, int all_failed)
{
	const struct failed *f = failures_of(fs, fw, key);

	if (!f)
		return;
	if (all_failed)
		printf(", \"outcome\": \"%s\"", outcome_names[failed_status(f)]);
	printf(", \"failed_runs\": [");
	for (size_t r = 0; r < f->n; r++) {
		printf("%s{\"run\": %ld, \"status\": \"%s\", \"exit\": %ld", r ? ", " : "",
		       f->runs[r].run, outcome_names[f->runs[r].status], f->runs[r].exit);
		if (f->runs[r].reason) {
			printf(", \"reason\": ");
			json_string(f->runs[r].reason);
		}
		putchar('}');
	}
	putchar(']');
}

/* The configurations of the outcome lines: those with a record get their
 * failed runs, the others a row of their own (no figures, n 0). */
static void add_rows(struct table *st)
{
	failures_sort(&st->fails);
	for (size_t i = 0; i < st->fails.n; i++) {
		const struct failed *f = &st->fails.v[i];
		hkey_start(&st->hk);
		hkey_str(&st->hk, f->fw);
		hkey_str(&st->hk, f->keytext);
		size_t j = hash_find(&st->rowindex, &st->hk);
		if (j != HASH_NONE) {
			st->extras[j].fail = f;
			continue;
		}
		size_t a = strlen(f->fw) + 1, b = strlen(f->keytext) + 1;
		char *p = xmalloc(a + b);
		memcpy(p, f->fw, a);
		memcpy(p + a, f->keytext, b);
		struct medrec r = {.field = {p, p + a},
				   .framework = p,
				   .keytext = p + a,
				   .key = f->key,
				   .median = NAN,
				   .mean = NAN,
				   .min = NAN,
				   .max = NAN,
				   .n = 0,
				   .file = f->file,
				   .line = f->line};
		st->rows = xgrow(st->rows, &st->caprows, st->nrows + 1, sizeof *st->rows);
		st->extras = xgrow(st->extras, &st->capextras, st->nrows + 1, sizeof *st->extras);
		st->rows[st->nrows] = r;
		st->extras[st->nrows] =
			(struct extra){.speedup = NAN, .spread = NAN, .fail = f, .all_failed = 1};
		hash_intern(&st->rowindex, &st->hk, st->nrows++);
	}
}

/* A speedup of "-" says that its 1n1g base's runs all failed: that base
 * must be a row of outcome lines alone. */
static void check_dashes(struct table *st)
{
	for (size_t i = 0; i < st->nrows; i++) {
		const struct medrec *r = &st->rows[i];
		char base[KEY_MAX];
		struct key k = r->key;
		if (st->extras[i].all_failed || !isnan(st->extras[i].speedup))
			continue;
		k.nodes = k.gpus = 1;
		key_format(&k, base, sizeof base);
		hkey_start(&st->hk);
		hkey_str(&st->hk, r->framework);
		hkey_str(&st->hk, base);
		size_t j = hash_find(&st->rowindex, &st->hk);
		if (j == HASH_NONE || !st->extras[j].all_failed)
			die_at(r->file, r->line, "speedup '-' is not a number");
	}
}

void failed_rows(struct table *st)
{
	add_rows(st);
	check_dashes(st);
}
