/*
 * grep-iters — iteration records from training logs.
 *
 * Reads training logs (the named files in order, else stdin; "-" is stdin)
 * of the formats of filters/formats/, each detected by its first iteration
 * line unless -f names it. Writes one tab-separated record per iteration
 * (or per printed interval): framework, format, key, run, iter, timestamp_s,
 * step_s, samples_per_s, loss; "-" where the log gives nothing. The
 * configuration comes from the path (…/<framework>/<key>/<run>.log or
 * DLPerf's …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log), from -k, or from the
 * log body where the format prints it; body and path must agree.
 *
 * Logs holding several ranks are grouped by iteration (one record per
 * iteration: the median time or rate) and written sorted by iteration.
 * With -c dlperf the first line is the meta line "# mode=dlperf" and every
 * matching line is one record, in file order, numbered as printed.
 * launch's "# env ...", "# mem ..." and "# energy ..." lines follow the
 * log's records, with "framework=<fw> key=<key> run=<run>" before node=
 * (meta.c), then "# env" lines of what NCCL chose, read from the log's
 * other lines (nccl.c).
 */
#include "../filter.h"
#include "../formats/alias.h"
#include "grep-iters.h"
#include "lib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PENDING_MAX 32

struct log {
	struct input in;
	struct scan sc;
	const struct format *fmt;
	int nonempty;
	long run;
	char *framework; /* from the path, ours; NULL: the format's name */
	double tb;
	char prefix[512]; /* framework, format, key, run and their tabs */
	size_t plen;
	long epoch; /* NUM_EPOCHS: the epoch, the longest so far, the offset */
	long long ep_max, ep_off;
	long nrec;
	struct {
		long lineno;
		char *text;
	} pending[PENDING_MAX]; /* configuration lines before the format was known */
	int npending;
	struct ranks *ranks;   /* a grouped format's lines */
	struct metalines meta; /* launch's "# env", "# mem" and "# energy" lines */
	struct nccl nccl;      /* what NCCL chose, from the other lines */
	const char *fw;        /* the framework and key of the records */
	char key[KEY_MAX];
	struct grep *g; /* the call's state */
};

/* The output buffer (below). */
struct out {
	char *buf;
	size_t len, cap;
};

/* One call's state (filter.h): the command line, the reader of a log's
 * lines (its buffer kept from log to log), the output. */
struct grep {
	int dlperf;
	const struct format *opt_format; /* -f */
	const char *opt_framework;       /* -F */
	int have_opt_key;
	struct key opt_key;     /* -k */
	struct aliases aliases; /* -a */
	struct lines rd;
	struct out out;
};

/* ---- output: our own buffer, a memcpy a field (stdio's fwrite a field was
 * grep-iters' main cost on large logs). Written out only at the end of a
 * record (orec) once it holds OFLUSH bytes, and grown to hold a longer one:
 * when a later line or file fails, stdout holds whole records only. */

#define OFLUSH (1 << 16)

static void oflush(struct out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, stdout) != o->len)
		die("<stdout>: write error:");
	o->len = 0;
}

static void ogrow(struct out *o, size_t n)
{
	o->buf = xgrow(o->buf, &o->cap, o->len + n, 1);
}

static inline void oput(struct out *o, const char *p, size_t n)
{
	if (o->len + n > o->cap)
		ogrow(o, n);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void oc(struct out *o, char c)
{
	if (o->len == o->cap)
		ogrow(o, 1);
	o->buf[o->len++] = c;
}

/* The end of a record. */
static inline void orec(struct out *o)
{
	oc(o, '\n');
	if (o->len >= OFLUSH)
		oflush(o);
}

static void otxt(struct out *o, struct txt t)
{
	if (t.p)
		oput(o, t.p, t.n);
	else
		oc(o, '-');
}

/* ---- records ----------------------------------------------------------- */

static void make_prefix(struct log *lg)
{
	if (!lg->sc.have_key)
		record_die(&lg->in,
			   "no configuration before the first iteration line; give -k key");
	const char *fw = lg->g->opt_framework ? lg->g->opt_framework
			 : lg->framework      ? lg->framework
					      : lg->fmt->name;
	key_format(&lg->sc.key, lg->key, sizeof lg->key);
	int n = snprintf(lg->prefix, sizeof lg->prefix, "%s\t%s\t%s\t%ld\t", fw, lg->fmt->name,
			 lg->key, lg->run);
	if (n < 0 || (size_t)n >= sizeof lg->prefix)
		die("%s: framework name too long", lg->in.name);
	lg->plen = (size_t)n;
	lg->fw = fw;
	lg->tb = (double)key_total_batch(&lg->sc.key);
}

static void emit(struct log *lg, long long iter, struct txt itxt, struct txt ts, struct txt step,
		 struct txt rate, struct txt loss)
{
	struct out *o = &lg->g->out;
	char num[24];

	oput(o, lg->prefix, lg->plen);
	if (itxt.p)
		oput(o, itxt.p, itxt.n);
	else
		oput(o, num, fmt_ll(num, iter));
	oc(o, '\t');
	otxt(o, ts);
	oc(o, '\t');
	otxt(o, step);
	oc(o, '\t');
	otxt(o, rate);
	oc(o, '\t');
	otxt(o, loss);
	orec(o);
}

/* step_s derived from the rate: TB × iterations ÷ rate. */
static struct txt derived_step(struct log *lg, long long iters, double rate, char *buf, size_t size)
{
	return pos_txt(lg->in.name, lg->in.lineno, "step_s derived from samples_per_s",
		       lg->tb * (double)iters / rate, buf, size);
}

/* A record of a grouped log (ranks_flush): its iteration as a number. */
static void emit_group(void *lg, long long iter, struct txt ts, struct txt step, struct txt rate,
		       struct txt loss)
{
	emit(lg, iter, (struct txt){NULL, 0}, ts, step, rate, loss);
}

/* ---- one iteration line ------------------------------------------------ */

/* Number it, then write it or keep it for grouping. */
static void add(struct log *lg, struct it *it)
{
	const struct format *f = lg->fmt;

	if (it->iter < 1) /* 1-based (formats.h): 0 is no iteration */
		record_die(&lg->in, "iteration %lld is not above 0", it->iter);
	if (!lg->plen)
		make_prefix(lg);
	if (lg->sc.dlperf) {
		if (f->dlperf_epoch0 && it->epoch != 0)
			return;
	} else if (f->numbering == NUM_FIRST && it->epoch != 0) {
		record_die(&lg->in,
			   "epoch %ld: iterations of later epochs cannot be numbered "
			   "(this format restarts them and prints only every few)",
			   it->epoch);
	} else if (f->numbering == NUM_EPOCHS && !f->grouped) {
		if (it->epoch != lg->epoch) {
			if (it->epoch != lg->epoch + 1)
				record_die(&lg->in, "epoch %ld after epoch %ld", it->epoch,
					   lg->epoch);
			if (__builtin_add_overflow(lg->ep_off, lg->ep_max, &lg->ep_off))
				record_die(&lg->in, "epoch %ld: the count of iterations overflows",
					   it->epoch);
			lg->ep_max = 0;
			lg->epoch = it->epoch;
		}
		if (it->iter > lg->ep_max)
			lg->ep_max = it->iter;
		if (lg->ep_off) {
			if (__builtin_add_overflow(it->iter, lg->ep_off, &it->iter))
				record_die(&lg->in, "epoch %ld: the count of iterations overflows",
					   it->epoch);
			it->itxt.p = NULL;
		}
	}
	lg->nrec++;
	if (f->grouped && !lg->sc.dlperf) {
		ranks_keep(&lg->ranks, it, lg->in.lineno);
		return;
	}
	/* -c dlperf: another rank's line of the interval just read spans it too */
	if (it->iter != lg->sc.prev_iter || !lg->sc.dlperf)
		lg->sc.from = lg->sc.prev_iter;
	if (f->derive != DERIVE_NONE && !it->step.p) {
		long long n = f->derive == DERIVE_RATE ? 1 : it->iter - lg->sc.from;
		if (n < 1)
			record_die(&lg->in, "iteration %lld after %lld", it->iter,
				   lg->sc.prev_iter);
		it->step = derived_step(lg, n, txt_num(it->rate), it->stepbuf, sizeof it->stepbuf);
	}
	lg->sc.prev_iter = it->iter;
	emit(lg, it->iter, it->itxt, it->ts, it->step, it->rate, it->loss);
}

/* ---- one log ----------------------------------------------------------- */

/* Before the format is known: keep the lines some format reads as its
 * configuration, for the format detected later. */
static void pend(struct log *lg, const char *s)
{
	for (const struct format *const *f = formats; *f; f++)
		for (const char *const *p = (*f)->config_prefixes; p && *p; p++)
			if (strncmp(s, *p, strlen(*p)) == 0) {
				if (lg->npending == PENDING_MAX)
					record_die(&lg->in,
						   "more than %d configuration lines before the "
						   "first iteration line",
						   PENDING_MAX);
				lg->pending[lg->npending].lineno = lg->in.lineno;
				lg->pending[lg->npending++].text = xstrdup(s);
				return;
			}
}

static void replay(struct log *lg)
{
	long lineno = lg->in.lineno;

	for (int i = 0; i < lg->npending; i++) {
		lg->in.lineno = lg->pending[i].lineno;
		if (lg->fmt->config)
			lg->fmt->config(&lg->sc, lg->pending[i].text);
		free(lg->pending[i].text);
	}
	lg->npending = 0;
	lg->in.lineno = lineno;
}

static void grep_log(struct grep *g, const char *path)
{
	struct log lg = {0};
	struct it it;
	const char *at;

	lg.g = g;
	lg.sc.in = &lg.in;
	lg.sc.dlperf = g->dlperf;
	lg.sc.aliases = &g->aliases;
	path_config(&lg.sc, path, g->have_opt_key ? &g->opt_key : NULL, &lg.run, &lg.framework);
	input_open(&lg.in, path);
	if ((lg.fmt = g->opt_format) != NULL)
		lg.sc.state = xcalloc(1, lg.fmt->state_size);
	lines_reset(&g->rd);
	for (char *s; (s = lines_next(&g->rd, &lg.in)) != NULL;) {
		if (s[0] == '#' && meta_keep(&lg.meta, &lg.in, s))
			continue;
		if (!lg.fmt) {
			if (*skipb(s) == '\0')
				continue;
			lg.nonempty = 1;
			if (!(lg.fmt = format_detect(s, &at))) {
				pend(&lg, s);
				nccl_line(&lg.nccl, s);
				continue;
			}
			lg.sc.state = xcalloc(1, lg.fmt->state_size);
			replay(&lg);
		}
		if (lg.fmt->config && lg.fmt->config(&lg.sc, s))
			continue;
		if (!lg.nonempty && *skipb(s))
			lg.nonempty = 1;
		if (!(at = format_match(lg.fmt, s))) {
			nccl_line(&lg.nccl, s);
			continue;
		}
		it.itxt.p = it.ts.p = it.step.p = it.rate.p = it.loss.p = NULL;
		it.epoch = 0;
		it.stamp = (struct stamp){0};
		if (lg.fmt->parse(&lg.sc, s, at, &it))
			add(&lg, &it);
	}
	if (lg.ranks)
		ranks_flush(&lg.ranks, lg.fmt, lg.in.name, lg.tb, emit_group, &lg);
	if (lg.nrec == 0) {
		if (!lg.nonempty)
			die("%s: empty log", lg.in.name);
		if (!lg.fmt)
			die("%s: unknown format (no iteration line of any known format)",
			    lg.in.name);
		die("%s: no iteration lines of format %s", lg.in.name, lg.fmt->name);
	}
	/* launch's lines, "# env ..." → "# env framework=.. key=.. run=.. ...". */
	for (size_t i = 0, n; i < lg.meta.n; i++) {
		const char *l = meta_line(&lg.meta, i, &lg.in, lg.fw, lg.key, lg.run, &n);
		oput(&g->out, l, n);
		orec(&g->out);
	}
	meta_free(&lg.meta);
	/* then what NCCL chose, as env items of the run (nccl.c) */
	const char *l;
	size_t n;
	for (int i = 0; (l = nccl_out(&lg.nccl, i, lg.fw, lg.key, lg.run, &n)) != NULL; i++) {
		oput(&g->out, l, n);
		orec(&g->out);
	}
	nccl_free(&lg.nccl);
	for (int i = 0; i < lg.npending; i++)
		free(lg.pending[i].text);
	free(lg.framework);
	free(lg.sc.state);
	input_close(&lg.in);
}

int filter_run(int argc, char **argv)
{
	struct grep st = {0};
	const char *key_arg = NULL;
	int ch, list = 0;

	usage_text = "grep-iters [-c dlperf] [-f format] [-k key] [-F framework] [-a from=to] "
		     "[file ...]\n       grep-iters -l";
	opterr = 0;
	while ((ch = getopt(argc, argv, "c:f:k:F:a:l")) != -1) {
		switch (ch) {
		case 'l':
			list = 1;
			break;
		case 'c':
			st.dlperf = compat_flag(optarg);
			break;
		case 'f':
			if (!(st.opt_format = format_find(optarg)))
				die_usage("-f: unknown format '%s'", optarg);
			break;
		case 'k':
			key_arg = optarg;
			break;
		case 'F':
			if (!*optarg || strpbrk(optarg, "\t\n"))
				die_usage("-F: '%s' is not a framework name", optarg);
			st.opt_framework = optarg;
			break;
		case 'a':
			alias_add(&st.aliases, optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (list && argc)
		usage();
	if (list)
		return list_formats();
	if (key_arg) {
		opt_key_read(&st.aliases, key_arg, &st.opt_key);
		st.have_opt_key = 1;
	}
	if (st.dlperf) {
		oput(&st.out, "# mode=dlperf", 13);
		orec(&st.out);
	}
	for (int i = 0; i < (argc ? argc : 1); i++)
		grep_log(&st, argc ? argv[i] : "-");
	oflush(&st.out);
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "grep-iters";
	return filter_run(argc, argv);
}
