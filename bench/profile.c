/*
 * bench/profile.c: bench --profile (profile.h). Keeps the marks of each
 * step, the milliseconds between them once the step is done, and prints
 * after the run, as "# profile" meta lines of bench's log: one row per
 * layer and kind (the median over the timed steps, its share of the step,
 * its achieved GFLOP/s or GB/s by cost.h, its lower bound from a roof file
 * of bin/perf-roof -s and how near it came), then the sums per kind. Reads
 * the roof file given; writes only the stream it is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cost.h"
#include "lib.h"
#include "profile.h"

int prof_on;

enum { CAP = 8192, MAX_ROOF = 2 * MODEL_MAX_LAYERS + 8 };

static struct {
	const model *m;
	int elsize;
	int n, cur;                /* marks in this step; the current layer */
	int layer[CAP], kind[CAP]; /* this step's marks */
	int nref;                  /* marks of the first kept step (0: none yet) */
	int ref_layer[CAP], ref_kind[CAP], row_of[CAP];
	int nrows, row_layer[CAP], row_kind[CAP];
	double *vals, *total; /* [step][row] ms; [step] ms */
	int nsteps, maxsteps;
	const char *roof; /* its path, or NULL */
	int nroof, roof_layer[MAX_ROOF], roof_kind[MAX_ROOF];
	double roof_ms[MAX_ROOF];
} P;

static int kind_by_name(const char *s)
{
	for (int k = 0; k < PK_COUNT; k++)
		if (!strcmp(s, prof_kind_name(k)))
			return k;
	return -1;
}

static int layer_by_name(const model *m, const char *s)
{
	if (!strcmp(s, "-"))
		return PROF_NONE;
	for (int i = 0; i < m->nlayers; i++)
		if (!strcmp(s, m->layers[i].name))
			return i;
	return -3;
}

/* The roof file: "# roof ... image=PX batch=B precision=P ..." then
 * "op LAYER KIND BOUND_MS ..." lines; must be this run's configuration. */
static void roof_read(const char *path, const char *precision)
{
	struct input in;
	input_open(&in, path);
	int header = 0;
	while (input_line(&in)) {
		const char *s = in.line;
		char name[64], kind[32], want[96];
		double ms;
		if (!strncmp(s, "# roof ", 7)) {
			snprintf(want, sizeof want, " image=%d batch=%d precision=%s ", P.m->image,
				 P.m->batch, precision);
			char line[512];
			snprintf(line, sizeof line, "%s ", s);
			if (!strstr(line, want))
				die("%s:%ld: a roof of another configuration (want%.*s)", in.name,
				    in.lineno, (int)strlen(want) - 1, want);
			header = 1;
		} else if (!strncmp(s, "op ", 3)) {
			if (!header)
				die("%s:%ld: an op before the '# roof' line", in.name, in.lineno);
			if (sscanf(s, "op %63s %31s %lf", name, kind, &ms) != 3 || !isfinite(ms) ||
			    ms < 0)
				die("%s:%ld: want 'op LAYER KIND BOUND_MS ...'", in.name,
				    in.lineno);
			int l = layer_by_name(P.m, name), k = kind_by_name(kind);
			if (l == -3 || k < 0)
				die("%s:%ld: no op '%s %s' in this model", in.name, in.lineno, name,
				    kind);
			if (P.nroof == MAX_ROOF)
				die("%s:%ld: more ops than a step has", in.name, in.lineno);
			P.roof_layer[P.nroof] = l;
			P.roof_kind[P.nroof] = k;
			P.roof_ms[P.nroof++] = ms;
		}
	}
	if (!header)
		die("%s: no '# roof' line: not a roof of bin/perf-roof -s", path);
	input_close(&in);
}

void prof_start(const model *m, int elsize, const char *precision, int steps, const char *roof)
{
	P.m = m;
	P.elsize = elsize;
	P.maxsteps = steps;
	P.roof = roof;
	if (roof)
		roof_read(roof, precision);
	P.total = xcalloc((size_t)(steps > 0 ? steps : 1), sizeof(double));
	bk_prof_init(CAP);
	prof_on = 1;
}

void prof_mark_(int layer, int kind)
{
	if (layer == PROF_SAME)
		layer = P.cur;
	P.cur = layer;
	if (P.n + 1 >= CAP)
		die("%s:%d: more than %d profile marks in a step", __FILE__, __LINE__, CAP);
	P.layer[P.n] = layer;
	P.kind[P.n] = kind;
	bk_prof_mark(P.n++);
}

void prof_step_begin(void)
{
	if (!prof_on)
		return;
	P.n = 0;
	prof_mark_(PROF_NONE, PK_OTHER);
}

static void rows_make(void)
{
	P.nref = P.n;
	for (int i = 0; i < P.n; i++) {
		int r = 0;
		while (r < P.nrows && (P.row_layer[r] != P.layer[i] || P.row_kind[r] != P.kind[i]))
			r++;
		if (r == P.nrows) {
			P.row_layer[r] = P.layer[i];
			P.row_kind[r] = P.kind[i];
			P.nrows++;
		}
		P.ref_layer[i] = P.layer[i];
		P.ref_kind[i] = P.kind[i];
		P.row_of[i] = r;
	}
	P.vals = xcalloc((size_t)P.maxsteps * (size_t)P.nrows, sizeof(double));
}

/* After the step's last op; keep: a timed step. */
void prof_step_end(int keep)
{
	if (!prof_on)
		return;
	bk_prof_mark(P.n);
	bk_sync();
	if (!keep || P.nsteps == P.maxsteps)
		return;
	if (P.nref == 0)
		rows_make();
	if (P.n != P.nref || memcmp(P.layer, P.ref_layer, (size_t)P.n * sizeof(int)) ||
	    memcmp(P.kind, P.ref_kind, (size_t)P.n * sizeof(int)))
		die("%s:%d: a step ran other ops than the first timed one", __FILE__, __LINE__);
	double *v = P.vals + (size_t)P.nsteps * (size_t)P.nrows;
	for (int i = 0; i < P.n; i++)
		v[P.row_of[i]] += bk_prof_ms(i, i + 1);
	P.total[P.nsteps++] = bk_prof_ms(0, P.n);
}

static double roof_of(int layer, int kind)
{
	for (int i = 0; i < P.nroof; i++)
		if (P.roof_layer[i] == layer && P.roof_kind[i] == kind)
			return P.roof_ms[i];
	return -1.0;
}

/* "245.1 GFLOP/s" or "12.3 GB/s" or "-" */
static void rate(char *buf, size_t n, double flop, double bytes, int compute, double ms)
{
	if (ms <= 0 || (compute ? flop : bytes) <= 0)
		snprintf(buf, n, "-");
	else if (compute)
		snprintf(buf, n, "%.1f GFLOP/s", flop / ms * 1e-6);
	else
		snprintf(buf, n, "%.1f GB/s", bytes / ms * 1e-6);
}

static void bound(char *buf, size_t n, double b, double ms)
{
	if (b < 0)
		snprintf(buf, n, "%9s %8s", "-", "-");
	else
		snprintf(buf, n, "%9.3f %7.0f%%", b, ms > 0 ? 100.0 * b / ms : 0.0);
}

void prof_report(FILE *f)
{
	if (!prof_on)
		return;
	if (P.nsteps == 0) {
		fprintf(f, "# profile steps=0: no timed step to profile\n");
		return;
	}
	double *col = xmalloc((size_t)P.nsteps * sizeof(double)), sum = 0.0;
	double *med = xmalloc((size_t)P.nrows * sizeof(double));
	for (int r = 0; r < P.nrows; r++) {
		for (int s = 0; s < P.nsteps; s++)
			col[s] = P.vals[(size_t)s * (size_t)P.nrows + (size_t)r];
		sum += med[r] = median_of(col, (size_t)P.nsteps);
	}
	double step = median_of(P.total, (size_t)P.nsteps);
	fprintf(f, "# profile steps=%d step_ms=%.3f rows_ms=%.3f roof=%s\n", P.nsteps, step, sum,
		P.roof ? P.roof : "none");
	fprintf(f, "# profile %-24s %-16s %10s %6s %15s %9s %8s\n", "layer", "op", "ms", "share",
		"rate", "bound_ms", "of_bound");
	double kms[PK_COUNT] = {0}, kflop[PK_COUNT] = {0}, kbytes[PK_COUNT] = {0};
	double kb[PK_COUNT] = {0}, tb = 0.0;
	int kc[PK_COUNT] = {0}, kseen[PK_COUNT] = {0}, kall[PK_COUNT];
	for (int k = 0; k < PK_COUNT; k++)
		kall[k] = 1; /* every row of the kind has a bound */
	for (int r = 0; r < P.nrows; r++) {
		int l = P.row_layer[r], k = P.row_kind[r];
		op_cost c = cost_of(P.m, l, k, P.elsize);
		double b = roof_of(l, k);
		char rt[32], bd[32];
		rate(rt, sizeof rt, c.flop, c.bytes, c.compute || (c.bytes == 0), med[r]);
		bound(bd, sizeof bd, b, med[r]);
		fprintf(f, "# profile %-24s %-16s %10.3f %5.1f%% %15s %s\n",
			l >= 0 ? P.m->layers[l].name : "-", prof_kind_name(k), med[r],
			100.0 * med[r] / sum, rt, bd);
		kms[k] += med[r];
		kflop[k] += c.flop;
		kbytes[k] += c.bytes;
		kc[k] |= c.compute;
		kseen[k] = 1;
		if (b >= 0) {
			kb[k] += b;
			tb += b;
		} else {
			kall[k] = 0;
		}
	}
	fprintf(f, "# profile %-24s %-16s %10s %6s %15s %9s %8s\n", "kind", "op", "ms", "share",
		"rate", "bound_ms", "of_bound");
	for (int k = 0; k < PK_COUNT; k++) {
		if (!kseen[k])
			continue;
		char rt[32], bd[32];
		rate(rt, sizeof rt, kflop[k], kbytes[k], kc[k] || kbytes[k] == 0, kms[k]);
		bound(bd, sizeof bd, P.roof && (kall[k] || kb[k] > 0) ? kb[k] : -1.0, kms[k]);
		fprintf(f, "# profile %-24s %-16s %10.3f %5.1f%% %15s %s\n", "kind",
			prof_kind_name(k), kms[k], 100.0 * kms[k] / sum, rt, bd);
	}
	char bd[32];
	bound(bd, sizeof bd, P.roof ? tb : -1.0, sum);
	fprintf(f, "# profile %-24s %-16s %10.3f %5.1f%% %15s %s\n", "total", "step", sum, 100.0,
		"-", bd);
	free(col);
	free(med);
}
