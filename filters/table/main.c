/*
 * table — speedup records as markdown tables or DLPerf's result JSON.
 *
 * Reads speedup records (framework, key, median, mean, min, max, n, speedup;
 * or with our columns, 14: stats.c adds ± columns, efficiency, cv, noisy);
 * meta lines ('#') are ignored. Numbers are printed as read, %.2f (median
 * and speedup already rounded them to two decimals), integers bare, cells
 * not padded; rows in ladder order (devices, then nodes); tables in the order
 * their first record was met, separated by one empty line.
 *
 * -s scaling (default): per (framework, batch, precision)
 *
 *     ## <framework display name> b<batch> <precision>
 *
 *     | node_num | gpu_num_per_node | batch_size_per_device | samples/s | speedup | n | spread |
 *     | --- | --- | --- | --- | --- | --- | --- |
 *     | 1 | 1 | 128 | 354.44 | 1.00 | 5 | 0.3% |
 *
 *   samples/s = median; spread = (max - min) / median as a percent, %.1f.
 *   -p published.tsv adds a last column `published`: the samples/s of that
 *   framework and key in the file (framework, key, samples_per_s, speedup;
 *   lines starting with # skipped), %.2f, or - when it has none.
 *
 * -s compare: per (batch, precision), `## b<batch> <precision>`, then
 *   | node num | device num | <framework> ... | with one column per framework
 *   in the order of DLPerf's cross-framework table (OneFlow, TensorFlow,
 *   PyTorch, MXNet, Paddle, then the others; framework_rank), the median in
 *   each cell, - where a framework lacks the row (doc/dlperf.md).
 *
 * -s json: DLPerf's result JSON (doc/dlperf.md) on one line without newline,
 *   model "r50", cases in ladder order (DLPerf's was listing order), floats
 *   in shortest round-trip form; the input must hold one framework, batch
 *   and precision.
 *
 * Every number printed is finite, and the positive ones stay positive: a
 * median, speedup or published samples/s that %.2f shows as 0.00, or a
 * spread that overflows, is an error naming the record's file and line.
 *
 * Groups, frameworks, published figures and memory peaks are found in hash
 * tables (lib/hash.c): the time is linear in the input (and n log n in a
 * table's rows, sorted into ladder order).
 */
#include "../formats/formats.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What table computes or reads beyond the median record; extras[i] goes
 * with rows[i]. */
struct extra {
	double speedup, spread;
	struct rowstats st; /* our columns (stats.c) */
};

static struct medrec *rows;
static struct extra *extras;
static size_t nrows, caprows, capextras;
static void *seen; /* medrec_unique's tree */
static struct published *pubs;
static size_t npubs;
static struct hash pubindex; /* published_key → pubs[i] */
static struct hkey hk;

/* Every file-scope variable to its start value: main may run again in one
 * process (the fuzz harnesses, tests/fuzz/), after a die() left through the
 * exit hook; the harness frees what the previous call allocated. */
static void reset(void)
{
	rows = NULL;
	extras = NULL;
	nrows = caprows = capextras = 0;
	seen = NULL;
	pubs = NULL;
	npubs = 0;
	pubindex = (struct hash){0};
	hk = (struct hkey){0};
	env_reset();
}

static double speedup_of(const struct medrec *r)
{
	return extras[r - rows].speedup;
}

static double spread_of(const struct medrec *r)
{
	return extras[r - rows].spread;
}

/* Field i, positive, must not print as 0.00 with %.2f. */
static double printed_positive(struct input *in, int i, const char *what)
{
	double v = record_num(in, i, what, 1);

	if (!(r2p(v, 2) > 0))
		record_die(in, "%s '%s' rounds to 0.00", what, in->f[i]);
	return v;
}

static void read_row(struct input *in)
{
	struct medrec r;
	struct extra x;

	int mnf = medrec_fields(in, 3);

	medrec_parse(in, mnf == MEDREC_NF ? MEDREC_NF + 1 : MEDREC_STATS_NF + 3, &r);
	medrec_stats(in, mnf, &r);
	printed_positive(in, 2, "median");
	x.speedup = rowstats_read(in, mnf, &r, &x.st);
	x.spread = (r.max - r.min) / r.median * 100;
	if (!isfinite(x.spread))
		record_die(in, "spread ('%s' - '%s') / '%s' overflows", in->f[5], in->f[4],
			   in->f[2]);
	medrec_unique(in, &r, &seen);
	rows = xgrow(rows, &caprows, nrows + 1, sizeof *rows);
	extras = xgrow(extras, &capextras, nrows + 1, sizeof *extras);
	rows[nrows] = r;
	extras[nrows++] = x;
}

static const struct published *published_of(const struct medrec *r)
{
	published_key(&hk, r->framework, r->keytext);
	size_t i = hash_find(&pubindex, &hk);
	return i == HASH_NONE ? NULL : &pubs[i];
}

/* ---- grouping --------------------------------------------------------- */

/* The rows grouped by batch and precision (and framework when
 * by_framework), groups in the order of their first row: a hash table,
 * linear in the rows. */
static void group_rows(int by_framework, struct groups *gs)
{
	*gs = (struct groups){0};
	for (size_t i = 0; i < nrows; i++) {
		hkey_start(&hk);
		if (by_framework)
			hkey_str(&hk, rows[i].framework);
		hkey_long(&hk, rows[i].key.batch);
		hkey_str(&hk, rows[i].key.prec);
		groups_add(gs, &hk, i);
	}
}

/* Ladder order, then input order (a stable sort). */
static int cmp_ladder(const void *a, const void *b)
{
	const struct medrec *x = *(const struct medrec *const *)a,
			    *y = *(const struct medrec *const *)b;
	int c = key_ladder_cmp(&x->key, &y->key);

	return c ? c : (x > y) - (x < y);
}

/* The rows of group id, in ladder order; returns the count. */
static size_t group(const struct groups *gs, size_t id, const struct medrec **out)
{
	size_t n = 0;

	for (size_t i = gs->first[id]; i != HASH_NONE; i = gs->next[i])
		out[n++] = &rows[i];
	qsort(out, n, sizeof *out, cmp_ladder);
	return n;
}

/* ---- outputs ---------------------------------------------------------- */

static void scaling(int with_published)
{
	const struct medrec **g = xmalloc(nrows * sizeof *g);
	struct groups gs;

	group_rows(1, &gs);
	for (size_t id = 0; id < gs.n; id++) {
		size_t n = group(&gs, id, g);
		printf("%s## %s b%ld %s\n\n", id ? "\n" : "", framework_display(g[0]->framework),
		       g[0]->key.batch, g[0]->key.prec);
		/* our columns when a row of the group has them (stats.c) */
		int with_stats = 0;
		for (size_t j = 0; j < n; j++)
			with_stats |= extras[g[j] - rows].st.has;
		if (with_stats) {
			rowstats_header(with_published);
		} else {
			printf("| node_num | gpu_num_per_node | batch_size_per_device | samples/s "
			       "| speedup | n | spread |%s\n",
			       env_tail(with_published, 0));
			printf("| --- | --- | --- | --- | --- | --- | --- |%s\n",
			       env_tail(with_published, 1));
		}
		for (size_t j = 0; j < n; j++) {
			const struct medrec *r = g[j];
			if (with_stats) {
				printf("| %ld | %ld | %ld |", r->key.nodes, r->key.gpus,
				       r->key.batch);
				rowstats_cells(r, &extras[r - rows].st, speedup_of(r),
					       spread_of(r));
			} else {
				printf("| %ld | %ld | %ld | %.2f | %.2f | %ld | %.1f%% |",
				       r->key.nodes, r->key.gpus, r->key.batch, r->median,
				       speedup_of(r), r->n, spread_of(r));
			}
			env_memory_cell(r->framework, r->keytext);
			if (with_published) {
				const struct published *p = published_of(r);
				if (p)
					printf(" %.2f |", p->speed);
				else
					printf(" - |");
			}
			putchar('\n');
		}
	}
	groups_free(&gs);
	free(g);
}

static int cmp_framework(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = framework_rank(x), ry = framework_rank(y);

	return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x, y);
}

static void compare(void)
{
	const struct medrec **g = xmalloc(nrows * sizeof *g);
	const char **fw = xmalloc(nrows * sizeof *fw);
	size_t *fid = xmalloc(nrows * sizeof *fid), *cell = xmalloc(nrows * sizeof *cell), *col;
	struct groups gs;
	struct hash frameworks = {0};
	size_t nframeworks = 0;

	group_rows(0, &gs);
	/* Each framework's id; col[id]: its column in the current table. */
	for (size_t i = 0; i < nrows; i++) {
		hkey_start(&hk);
		hkey_str(&hk, rows[i].framework);
		fid[i] = hash_intern(&frameworks, &hk, nframeworks);
		nframeworks += fid[i] == nframeworks;
	}
	col = xmalloc((nframeworks ? nframeworks : 1) * sizeof *col);
	for (size_t f = 0; f < nframeworks; f++)
		col[f] = HASH_NONE;
	for (size_t id = 0; id < gs.n; id++) {
		size_t n = group(&gs, id, g), nfw = 0;
		for (size_t j = 0; j < n; j++)
			if (col[fid[g[j] - rows]] == HASH_NONE) {
				col[fid[g[j] - rows]] = 0;
				fw[nfw++] = g[j]->framework;
			}
		qsort(fw, nfw, sizeof *fw, cmp_framework);
		for (size_t k = 0; k < nfw; k++) {
			hkey_start(&hk);
			hkey_str(&hk, fw[k]);
			col[hash_find(&frameworks, &hk)] = k;
		}

		printf("%s## b%ld %s\n\n", id ? "\n" : "", g[0]->key.batch, g[0]->key.prec);
		printf("| node num | device num |");
		for (size_t k = 0; k < nfw; k++)
			printf(" %s |", framework_display(fw[k]));
		for (size_t k = 0; k < nfw && env_has_memory(); k++)
			printf(" %s memory |", framework_display(fw[k]));
		printf("\n| --- | --- |");
		for (size_t k = 0; k < nfw * (env_has_memory() ? 2 : 1); k++)
			printf(" --- |");
		putchar('\n');
		/* g is in ladder order: one table row per run of equal (N, G), each
		 * framework at most once in it (one key). */
		for (size_t j = 0; j < n;) {
			size_t end = j;
			while (end < n && key_ladder_cmp(&g[end]->key, &g[j]->key) == 0 &&
			       g[end]->key.gpus == g[j]->key.gpus)
				end++;
			for (size_t k = 0; k < nfw; k++)
				cell[k] = HASH_NONE;
			for (size_t m = j; m < end; m++)
				cell[col[fid[g[m] - rows]]] = m;
			printf("| %ld | %ld |", g[j]->key.nodes, g[j]->key.nodes * g[j]->key.gpus);
			for (size_t k = 0; k < nfw; k++)
				if (cell[k] != HASH_NONE)
					printf(" %.2f |", g[cell[k]]->median);
				else
					printf(" - |");
			for (size_t k = 0; k < nfw; k++)
				env_memory_cell(fw[k], g[j]->keytext);
			putchar('\n');
			j = end;
		}
		for (size_t j = 0; j < n; j++)
			col[fid[g[j] - rows]] = HASH_NONE;
	}
	groups_free(&gs);
	hash_free(&frameworks);
	free(g);
	free(fw);
	free(fid);
	free(cell);
	free(col);
}

static void json(void)
{
	const struct medrec **g = xmalloc(nrows * sizeof *g);
	char a[40], m[40], s[40];
	size_t n;
	struct groups gs;

	group_rows(1, &gs);
	if (gs.n > 1) {
		const struct medrec *r = &rows[gs.first[1]]; /* the first row of another */
		die_at(r->file, r->line,
		       "-s json takes one framework, batch and precision: %s %s and %s %s",
		       rows[0].framework, rows[0].keytext, r->framework, r->keytext);
	}
	n = nrows ? group(&gs, 0, g) : 0;
	groups_free(&gs);
	printf("{\"r50\": {");
	for (size_t j = 0; j < n; j++) {
		fmt_shortest(a, sizeof a, g[j]->mean);
		fmt_shortest(m, sizeof m, g[j]->median);
		fmt_shortest(s, sizeof s, speedup_of(g[j]));
		printf("%s\"%ldn%ldg\": {\"average_speed\": %s, \"batch_size_per_device\": %ld, "
		       "\"median_speed\": %s, \"speedup\": %s",
		       j ? ", " : "", g[j]->key.nodes, g[j]->key.gpus, a, g[j]->key.batch, m, s);
		rowstats_json(g[j], &extras[g[j] - rows].st);
		env_json_case(g[j]->framework, g[j]->keytext);
		putchar('}');
	}
	putchar('}');
	env_json();
	putchar('}');
	free(g);
}

int main(int argc, char *argv[])
{
	struct input in;
	const char *style = "scaling", *published = NULL;
	int ch;

	reset();
	progname = "table";
	usage_text =
		"table [-s scaling|compare|json] [-p published.tsv] [file ...]\n"
		"  in: framework key median mean min max n [ci_lo ci_hi cv_pct outliers]\n"
		"      speedup [speedup_pm efficiency]  (speedup's output; launch's # env, # mem)\n"
		"  scaling: per framework, batch, precision; rows in ladder order:\n"
		"    | node_num | gpu_num_per_node | batch_size_per_device | samples/s "
		"| speedup | n | spread |[ memory |][ published |]\n"
		"    with the interval fields: samples/s | ± | speedup | ± | efficiency | n\n"
		"    | spread | cv | noisy |; then a footer of machine, versions, settings\n"
		"  compare: per batch, precision: | node num | device num | <framework> ... |\n"
		"  json: {\"r50\": {\"<N>n<G>g\": {...}, ...}}, cases in ladder order, one line";
	opterr = 0;
	while ((ch = getopt(argc, argv, "s:p:")) != -1) {
		switch (ch) {
		case 's':
			style = optarg;
			break;
		case 'p':
			published = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(style, "scaling") && strcmp(style, "compare") && strcmp(style, "json"))
		die_usage("-s: '%s' is not scaling, compare or json", style);
	if (published && strcmp(style, "scaling") != 0)
		die_usage("-p: only with -s scaling");

	if (published)
		npubs = published_read(published, &pubs, &pubindex);
	FOREACH_INPUT(in, argc, argv)
		while (input_record(&in))
			if (!in.meta)
				read_row(&in);
			else
				env_read(&in);
	if (strcmp(style, "scaling") == 0)
		scaling(published != NULL);
	else if (strcmp(style, "compare") == 0)
		compare();
	else
		json();
	if (strcmp(style, "json") != 0)
		env_footer();
	finish_output();
	return 0;
}
