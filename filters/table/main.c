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
 *   framework and key in the file (lib/published.c) with the decimals the
 *   file gives them, OOM, or - when it has none; and `published memory`
 *   when the file has a memory column (pubcols.c).
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
 * Energy and utilisation: a `J/sample` column (energy.c: the median over
 * runs of the joules of each run's timed window ÷ its samples, from
 * window's "# energy" lines) when any energy line was read, and an `MFU %`
 * column (mfu.c: samples/s × FLOP a sample ÷ (devices × peak); -P a
 * device's peak in TFLOP/s, -r bin/perf-roof's output for runs on CPUs)
 * when a row has one; "-" where a row has none, the footer says why
 * (-s scaling and compare after the failed runs column; -s json
 * "energy_j_per_sample", "mfu_percent" and their reasons).
 *
 * Runs that failed (outcome lines, failed.c): a configuration whose runs
 * all failed gets its row all the same, OOM, failed or timeout in its
 * samples/s cell (-s compare: in its framework's cell) and - in the
 * others, n 0; a speedup of "-" (the 1n1g base failed) is shown as -; a
 * "failed runs" column (-s scaling) says which runs failed and how, the
 * footer why, and -s json gives such a case null figures, "outcome" and
 * "failed_runs".
 *
 * Every number printed is finite, and the positive ones stay positive: a
 * median, speedup or published samples/s that %.2f shows as 0.00, or a
 * spread that overflows, is an error naming the record's file and line.
 *
 * Groups, frameworks, published figures and memory peaks are found in hash
 * tables (lib/hash.c): the time is linear in the input (and n log n in a
 * table's rows, sorted into ladder order).
 */
#include "../filter.h"
#include "../formats/formats.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double speedup_of(const struct table *st, const struct medrec *r)
{
	return st->extras[r - st->rows].speedup;
}

static double spread_of(const struct table *st, const struct medrec *r)
{
	return st->extras[r - st->rows].spread;
}

/* Field i, positive, must not print as 0.00 with %.2f. */
static double printed_positive(struct input *in, int i, const char *what)
{
	double v = record_num(in, i, what, 1);

	if (!(r2p(v, 2) > 0))
		record_die(in, "%s '%s' rounds to 0.00", what, in->f[i]);
	return v;
}

static void read_row(struct table *st, struct input *in)
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
	medrec_unique(in, &r, &st->seen);
	hkey_start(&st->hk);
	hkey_str(&st->hk, r.framework);
	hkey_str(&st->hk, r.keytext);
	hash_intern(&st->rowindex, &st->hk, st->nrows);
	x.fail = NULL;
	x.all_failed = 0;
	st->rows = xgrow(st->rows, &st->caprows, st->nrows + 1, sizeof *st->rows);
	st->extras = xgrow(st->extras, &st->capextras, st->nrows + 1, sizeof *st->extras);
	st->rows[st->nrows] = r;
	st->extras[st->nrows++] = x;
}

/* " failed runs |" (rule 0) or " --- |" (1) when an outcome line was read. */
static const char *failed_tail(const struct table *st, int rule)
{
	return !st->fails.n ? "" : rule ? " --- |" : " failed runs |";
}

/* %.2f, or - for NAN, as one cell. */
static void num_cell(double v)
{
	if (isnan(v))
		printf(" - |");
	else
		printf(" %.2f |", v);
}

/* ---- grouping --------------------------------------------------------- */

/* The rows grouped by batch and precision (and framework when
 * by_framework), groups in the order of their first row: a hash table,
 * linear in the rows. */
static void group_rows(struct table *st, int by_framework, struct groups *gs)
{
	*gs = (struct groups){0};
	for (size_t i = 0; i < st->nrows; i++) {
		hkey_start(&st->hk);
		if (by_framework)
			hkey_str(&st->hk, st->rows[i].framework);
		hkey_long(&st->hk, st->rows[i].key.batch);
		hkey_str(&st->hk, st->rows[i].key.prec);
		groups_add(gs, &st->hk, i);
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
static size_t group(const struct table *st, const struct groups *gs, size_t id,
		    const struct medrec **out)
{
	size_t n = 0;

	for (size_t i = gs->first[id]; i != HASH_NONE; i = gs->next[i])
		out[n++] = &st->rows[i];
	qsort(out, n, sizeof *out, cmp_ladder);
	return n;
}

/* ---- outputs ---------------------------------------------------------- */

static void scaling(struct table *st)
{
	const struct medrec **g = xmalloc(st->nrows * sizeof *g);
	struct groups gs;
	int published = st->pub.ncols; /* the published columns (pubcols.c) */
	char tail[128], rule[128];

	group_rows(st, 1, &gs);
	for (size_t id = 0; id < gs.n; id++) {
		size_t n = group(st, &gs, id, g);
		printf("%s## %s b%ld %s\n\n", id ? "\n" : "", framework_display(g[0]->framework),
		       g[0]->key.batch, g[0]->key.prec);
		int decimals = published ? pubcols_decimals(&st->pub, g[0]->framework) : 2;
		/* our columns when a row of the group has them (stats.c), or
		 * when none has a record, unless the mode is DLPerf's */
		int with_stats = 0, records = 0;
		for (size_t j = 0; j < n; j++) {
			with_stats |= st->extras[g[j] - st->rows].st.has;
			records |= !st->extras[g[j] - st->rows].all_failed;
		}
		with_stats |= !records && !st->dlperf;
		columns_tail(st, failed_tail(st, 0), 0, tail, sizeof tail);
		columns_tail(st, failed_tail(st, 1), 1, rule, sizeof rule);
		if (with_stats) {
			rowstats_header(&st->env, tail, rule, published);
		} else {
			printf("| node_num | gpu_num_per_node | batch_size_per_device | samples/s "
			       "| speedup | n | spread |%s%s\n",
			       tail, env_tail(&st->env, published, 0));
			printf("| --- | --- | --- | --- | --- | --- | --- |%s%s\n", rule,
			       env_tail(&st->env, published, 1));
		}
		for (size_t j = 0; j < n; j++) {
			const struct medrec *r = g[j];
			const struct extra *x = &st->extras[r - st->rows];
			printf("| %ld | %ld | %ld |", r->key.nodes, r->key.gpus, r->key.batch);
			if (x->all_failed) {
				failed_row_cells(x->fail, with_stats);
			} else if (with_stats) {
				rowstats_cells(r, &x->st, speedup_of(st, r), spread_of(st, r));
			} else {
				printf(" %.2f |", r->median);
				num_cell(speedup_of(st, r));
				printf(" %ld | %.1f%% |", r->n, spread_of(st, r));
			}
			failed_cell(&st->fails, r->framework, r->keytext);
			columns_cells(st, r);
			env_memory_cell(&st->env, r->framework, r->keytext);
			env_nccl_cell(&st->env, r->framework, r->keytext);
			if (published)
				pubcols_cells(&st->pub, r->framework, r->keytext, decimals);
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

static void compare(struct table *st)
{
	const struct medrec **g = xmalloc(st->nrows * sizeof *g);
	const char **fw = xmalloc(st->nrows * sizeof *fw);
	size_t *fid = xmalloc(st->nrows * sizeof *fid), *cell = xmalloc(st->nrows * sizeof *cell),
	       *col;
	struct groups gs;
	struct hash frameworks = {0};
	size_t nframeworks = 0;

	group_rows(st, 0, &gs);
	/* Each framework's id; col[id]: its column in the current table. */
	for (size_t i = 0; i < st->nrows; i++) {
		hkey_start(&st->hk);
		hkey_str(&st->hk, st->rows[i].framework);
		fid[i] = hash_intern(&frameworks, &st->hk, nframeworks);
		nframeworks += fid[i] == nframeworks;
	}
	col = xmalloc((nframeworks ? nframeworks : 1) * sizeof *col);
	for (size_t f = 0; f < nframeworks; f++)
		col[f] = HASH_NONE;
	for (size_t id = 0; id < gs.n; id++) {
		size_t n = group(st, &gs, id, g), nfw = 0;
		for (size_t j = 0; j < n; j++)
			if (col[fid[g[j] - st->rows]] == HASH_NONE) {
				col[fid[g[j] - st->rows]] = 0;
				fw[nfw++] = g[j]->framework;
			}
		qsort(fw, nfw, sizeof *fw, cmp_framework);
		for (size_t k = 0; k < nfw; k++) {
			hkey_start(&st->hk);
			hkey_str(&st->hk, fw[k]);
			col[hash_find(&frameworks, &st->hk)] = k;
		}

		printf("%s## b%ld %s\n\n", id ? "\n" : "", g[0]->key.batch, g[0]->key.prec);
		printf("| node num | device num |");
		for (size_t k = 0; k < nfw; k++)
			printf(" %s |", framework_display(fw[k]));
		for (size_t k = 0; k < nfw && env_has_memory(&st->env); k++)
			printf(" %s memory |", framework_display(fw[k]));
		columns_compare_header(st, fw, nfw, 0);
		printf("\n| --- | --- |");
		for (size_t k = 0; k < nfw * (1 + (env_has_memory(&st->env) != 0)); k++)
			printf(" --- |");
		columns_compare_header(st, fw, nfw, 1);
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
				cell[col[fid[g[m] - st->rows]]] = m;
			printf("| %ld | %ld |", g[j]->key.nodes, g[j]->key.nodes * g[j]->key.gpus);
			for (size_t k = 0; k < nfw; k++)
				if (cell[k] == HASH_NONE)
					printf(" - |");
				else if (st->extras[g[cell[k]] - st->rows].all_failed)
					printf(" %s |",
					       outcome_cells[failed_status(
						       st->extras[g[cell[k]] - st->rows].fail)]);
				else
					printf(" %.2f |", g[cell[k]]->median);
			for (size_t k = 0; k < nfw; k++)
				env_memory_cell(&st->env, fw[k], g[j]->keytext);
			columns_compare_cells(st, g, cell, nfw);
			putchar('\n');
			j = end;
		}
		for (size_t j = 0; j < n; j++)
			col[fid[g[j] - st->rows]] = HASH_NONE;
	}
	groups_free(&gs);
	hash_free(&frameworks);
	free(g);
	free(fw);
	free(fid);
	free(cell);
	free(col);
}

static void json(struct table *st)
{
	const struct medrec **g = xmalloc(st->nrows * sizeof *g);
	char a[40], m[40], s[40];
	size_t n;
	struct groups gs;

	group_rows(st, 1, &gs);
	if (gs.n > 1) {
		const struct medrec *r = &st->rows[gs.first[1]]; /* the first row of another */
		die_at(r->file, r->line,
		       "-s json takes one framework, batch and precision: %s %s and %s %s",
		       st->rows[0].framework, st->rows[0].keytext, r->framework, r->keytext);
	}
	n = st->nrows ? group(st, &gs, 0, g) : 0;
	groups_free(&gs);
	printf("{\"r50\": {");
	for (size_t j = 0; j < n; j++) {
		const struct extra *x = &st->extras[g[j] - st->rows];
		/* null: no figure (every run failed, or the speedup's base did) */
		strcpy(a, "null");
		strcpy(m, "null");
		strcpy(s, "null");
		if (!x->all_failed) {
			fmt_shortest(a, sizeof a, g[j]->mean);
			fmt_shortest(m, sizeof m, g[j]->median);
		}
		if (!isnan(x->speedup))
			fmt_shortest(s, sizeof s, x->speedup);
		printf("%s\"%ldn%ldg\": {\"average_speed\": %s, \"batch_size_per_device\": %ld, "
		       "\"median_speed\": %s, \"speedup\": %s",
		       j ? ", " : "", g[j]->key.nodes, g[j]->key.gpus, a, g[j]->key.batch, m, s);
		rowstats_json(g[j], &x->st);
		failed_json(&st->fails, g[j]->framework, g[j]->keytext, x->all_failed);
		columns_json(st, g[j]);
		env_json_case(&st->env, g[j]->framework, g[j]->keytext);
		putchar('}');
	}
	putchar('}');
	env_json(&st->env);
	putchar('}');
	free(g);
}

/* Every row, in the order the tables show them: groups of framework,
 * batch and precision as first met, each in ladder order. */
static const struct medrec **ordered_rows(const struct table *st)
{
	const struct medrec **all = xmalloc((st->nrows ? st->nrows : 1) * sizeof *all);
	struct groups gs;
	size_t n = 0;

	group_rows((struct table *)st, 1, &gs);
	for (size_t id = 0; id < gs.n; id++)
		n += group(st, &gs, id, all + n);
	groups_free(&gs);
	return all;
}

int filter_run(int argc, char **argv)
{
	struct table st = {.mfu = {.peak_tflops = NAN, .roof_fp32 = NAN, .roof_bf16 = NAN}};
	struct input in;
	const char *style = "scaling", *published = NULL, *roof = NULL;
	const struct medrec **ordered;
	int ch;

	usage_text =
		"table [-s scaling|compare|json] [-p published.tsv] [-P peak_tflops] [-r roof]\n"
		"      [file ...]\n"
		"  in: framework key median mean min max n [ci_lo ci_hi cv_pct outliers]\n"
		"      speedup [speedup_pm efficiency]  (speedup's output; # env, # mem, # energy)\n"
		"  scaling: per framework, batch, precision; rows in ladder order:\n"
		"    | node_num | gpu_num_per_node | batch_size_per_device | samples/s "
		"| speedup | n | spread |[ memory |][ nccl |][ published |]\n"
		"    with the interval fields: samples/s | ± | speedup | ± | efficiency | n\n"
		"    | spread | cv | noisy |; a failed runs column and OOM, failed or timeout\n"
		"    rows with # outcome lines; then a footer of machine, versions, settings,\n"
		"    interconnect (nccl: NCCL's transports, † over sockets between nodes)\n"
		"  compare: per batch, precision: | node num | device num | <framework> ... |\n"
		"  json: {\"r50\": {\"<N>n<G>g\": {...}, ...}}, cases in ladder order, one line\n"
		"  J/sample (# energy lines) and MFU % (-P a device's peak, -r bin/perf-roof's\n"
		"  output) after the failed runs column where known";
	opterr = 0;
	while ((ch = getopt(argc, argv, "s:p:P:r:")) != -1) {
		switch (ch) {
		case 's':
			style = optarg;
			break;
		case 'p':
			published = optarg;
			break;
		case 'P':
			if (parse_double(optarg, &st.mfu.peak_tflops) != 0 ||
			    !(st.mfu.peak_tflops > 0))
				die_usage("-P: '%s' is not a peak in TFLOP/s > 0", optarg);
			break;
		case 'r':
			roof = optarg;
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
		pubcols_read(&st.pub, published);
	if (roof)
		mfu_roof_read(&st.mfu, roof);
	FOREACH_INPUT(in, argc, argv)
		while (input_record(&in))
			if (!in.meta)
				read_row(&st, &in);
			else if (meta_mode(&in, 0))
				st.dlperf = 1;
			else if (!failures_read(&st.fails, &in) && !energies_read(&st.energy, &in))
				env_read(&st.env, &in);
	failed_rows(&st);
	ordered = ordered_rows(&st);
	mfu_prepare(&st.mfu, &st.env, ordered, st.nrows);
	if (strcmp(style, "scaling") == 0)
		scaling(&st);
	else if (strcmp(style, "compare") == 0)
		compare(&st);
	else
		json(&st);
	if (strcmp(style, "json") != 0) {
		env_footer(&st.env);
		failed_footer(&st.fails, st.env.nitems == 0);
		if ((st.energy.n || st.mfu.said) && !st.env.nitems && !st.fails.n)
			putchar('\n');
		energy_footer(&st.energy, ordered, st.nrows);
		mfu_footer(&st.mfu, &st.env, ordered, st.nrows);
	}
	free(ordered);
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "table";
	return filter_run(argc, argv);
}
