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
 */
#include "formats/formats.h"
#include "lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A line of a grouped log, kept until the end of the file. */
struct grec {
	long long iter;
	long epoch, order;
	size_t ts, step, rate, loss; /* offsets into the arena; NONE = absent */
	size_t tsn, stepn, raten, lossn;
	long long ts_ns;
	double stepv, ratev;
};

#define NONE ((size_t)-1)
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
	struct grec *g; /* grouped logs */
	size_t ng, gcap;
	char *arena;
	size_t alen, acap;
};

static int dlperf;
static const struct format *opt_format;
static const char *opt_framework;
static int have_opt_key;
static struct key opt_key;

/* ---- output: our own buffer, one memcpy a field (stdio's per-call locking
 * and checks cost more than the parsing of bench's lines) ------------------ */

static char obuf[1 << 16];
static size_t olen;

static void oflush(void)
{
	if (olen && fwrite(obuf, 1, olen, stdout) != olen)
		die("<stdout>: write error:");
	olen = 0;
}

static void oput(const char *p, size_t n)
{
	if (olen + n > sizeof obuf) {
		oflush();
		if (n > sizeof obuf) {
			if (fwrite(p, 1, n, stdout) != n)
				die("<stdout>: write error:");
			return;
		}
	}
	memcpy(obuf + olen, p, n);
	olen += n;
}

static void otxt(struct txt t, char end)
{
	if (t.p)
		oput(t.p, t.n);
	else
		oput("-", 1);
	oput(&end, 1);
}

/* ---- records ----------------------------------------------------------- */

static void make_prefix(struct log *lg)
{
	if (!lg->sc.have_key)
		record_die(&lg->in,
			   "no configuration before the first iteration line; give -k key");
	const char *fw = opt_framework ? opt_framework
			 : lg->framework ? lg->framework
					 : lg->fmt->name;
	char key[KEY_MAX];
	key_format(&lg->sc.key, key, sizeof key);
	int n = snprintf(lg->prefix, sizeof lg->prefix, "%s\t%s\t%s\t%ld\t", fw, lg->fmt->name,
			 key, lg->run);
	if (n < 0 || (size_t)n >= sizeof lg->prefix)
		die("%s: framework name too long", lg->in.name);
	lg->plen = (size_t)n;
	lg->tb = (double)key_total_batch(&lg->sc.key);
}

static void emit(struct log *lg, long long iter, struct txt itxt, struct txt ts, struct txt step,
		 struct txt rate, struct txt loss)
{
	char num[24];

	oput(lg->prefix, lg->plen);
	otxt(itxt.p ? itxt : (struct txt){num, fmt_ll(num, iter)}, '\t');
	otxt(ts, '\t');
	otxt(step, '\t');
	otxt(rate, '\t');
	otxt(loss, '\n');
}

/* step_s derived from the rate: TB × iterations ÷ rate. */
static struct txt derived_step(struct log *lg, long long iters, double rate, char *buf, size_t size)
{
	fmt_shortest(buf, size, lg->tb * (double)iters / rate);
	return (struct txt){buf, strlen(buf)};
}

static double txt_num(struct txt t)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.*s", (int)(t.n < 63 ? t.n : 63), t.p);
	return strtod(buf, NULL);
}

/* ---- several ranks in one log: kept, one record per iteration ---------- */

static size_t arena_put(struct log *lg, struct txt t, size_t *n)
{
	*n = t.p ? t.n : 0;
	if (!t.p)
		return NONE;
	lg->arena = xgrow(lg->arena, &lg->acap, lg->alen + t.n, 1);
	memcpy(lg->arena + lg->alen, t.p, t.n);
	lg->alen += t.n;
	return lg->alen - t.n;
}

static struct txt arena_txt(struct log *lg, size_t off, size_t n)
{
	return off == NONE ? (struct txt){NULL, 0} : (struct txt){lg->arena + off, n};
}

static void keep(struct log *lg, const struct it *it)
{
	lg->g = xgrow(lg->g, &lg->gcap, lg->ng + 1, sizeof *lg->g);
	struct grec *r = &lg->g[lg->ng];
	r->iter = it->iter;
	r->epoch = it->epoch;
	r->order = (long)lg->ng++;
	r->ts = arena_put(lg, it->ts, &r->tsn);
	r->step = arena_put(lg, it->step, &r->stepn);
	r->rate = arena_put(lg, it->rate, &r->raten);
	r->loss = arena_put(lg, it->loss, &r->lossn);
	r->ts_ns = it->ts_ns;
	r->stepv = it->step.p ? txt_num(it->step) : NAN;
	r->ratev = it->rate.p ? txt_num(it->rate) : NAN;
}

static int grec_cmp(const void *a, const void *b)
{
	const struct grec *x = a, *y = b;

	if (x->iter != y->iter)
		return x->iter < y->iter ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* A grouped value: the text of a single line, else the median in shortest form. */
static struct txt group_value(struct log *lg, struct grec *g, size_t n, int rate, double *vals,
			      char *buf, size_t size, double *out)
{
	size_t k = 0, first = NONE, firstn = 0;

	for (size_t i = 0; i < n; i++) {
		size_t off = rate ? g[i].rate : g[i].step;
		if (off == NONE)
			continue;
		if (first == NONE) {
			first = off;
			firstn = rate ? g[i].raten : g[i].stepn;
		}
		vals[k++] = rate ? g[i].ratev : g[i].stepv;
	}
	if (k == 0)
		return (struct txt){NULL, 0};
	*out = median_of(vals, k);
	if (k == 1)
		return arena_txt(lg, first, firstn);
	fmt_shortest(buf, size, *out);
	return (struct txt){buf, strlen(buf)};
}

/* Number the epochs of a grouped log: each continues where the previous
 * one's longest rank ended. */
static void number_epochs(struct log *lg, struct grec *g, size_t n)
{
	long maxe = 0;

	for (size_t i = 0; i < n; i++)
		if (g[i].epoch > maxe)
			maxe = g[i].epoch;
	if ((size_t)maxe >= n)
		die("%s: epoch %ld: earlier epochs have no iteration lines", lg->in.name, maxe);
	long long *len = xcalloc((size_t)maxe + 1, sizeof *len);
	for (size_t i = 0; i < n; i++)
		if (g[i].iter > len[g[i].epoch])
			len[g[i].epoch] = g[i].iter;
	for (long e = 0; e <= maxe; e++)
		if (len[e] == 0)
			die("%s: epoch %ld has no iteration lines, later epochs cannot be numbered",
			    lg->in.name, e);
	for (long e = 1; e <= maxe; e++)
		len[e] += len[e - 1];
	for (size_t i = 0; i < n; i++)
		if (g[i].epoch > 0)
			g[i].iter += len[g[i].epoch - 1];
	free(len);
}

static void flush_groups(struct log *lg)
{
	struct grec *g = lg->g;
	size_t n = lg->ng;

	if (lg->fmt->numbering == NUM_EPOCHS)
		number_epochs(lg, g, n);
	qsort(g, n, sizeof *g, grec_cmp);
	double *vals = xmalloc(n * sizeof *vals);
	for (size_t i = 0, j; i < n; i = j) {
		char sbuf[48], rbuf[48];
		double rate = NAN, step = NAN;
		size_t latest = i;
		for (j = i; j < n && g[j].iter == g[i].iter; j++)
			if (g[j].ts != NONE && g[j].ts_ns > g[latest].ts_ns)
				latest = j;
		struct txt st = group_value(lg, g + i, j - i, 0, vals, sbuf, sizeof sbuf, &step);
		struct txt rt = group_value(lg, g + i, j - i, 1, vals, rbuf, sizeof rbuf, &rate);
		if (lg->fmt->derive == DERIVE_RATE && !st.p && rt.p)
			st = derived_step(lg, 1, rate, sbuf, sizeof sbuf);
		emit(lg, g[i].iter, (struct txt){NULL, 0},
		     arena_txt(lg, g[latest].ts, g[latest].tsn), st, rt,
		     arena_txt(lg, g[i].loss, g[i].lossn));
	}
	free(vals);
}

/* ---- one iteration line ------------------------------------------------ */

/* Number it, then write it or keep it for grouping. */
static void add(struct log *lg, struct it *it)
{
	const struct format *f = lg->fmt;

	if (!lg->plen)
		make_prefix(lg);
	if (dlperf) {
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
			lg->ep_off += lg->ep_max;
			lg->ep_max = 0;
			lg->epoch = it->epoch;
		}
		if (it->iter > lg->ep_max)
			lg->ep_max = it->iter;
		if (lg->ep_off) {
			it->iter += lg->ep_off;
			it->itxt.p = NULL;
		}
	}
	lg->nrec++;
	if (f->grouped && !dlperf) {
		keep(lg, it);
		return;
	}
	if (f->derive != DERIVE_NONE && !it->step.p) {
		long long n = f->derive == DERIVE_RATE ? 1 : it->iter - lg->sc.prev_iter;
		if (n < 1)
			record_die(&lg->in, "iteration %lld after %lld", it->iter, lg->sc.prev_iter);
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

/* Lines are read in large blocks and split in place: a log of a gigabyte
 * is one memchr per line, not one getline call (lib's input_line). */
#define CHUNK (1 << 20)

static char *rbuf;
static size_t rcap, rlen, rpos;
static int reof;

/* The next line of in, '\n' (and a '\r' before it) removed; NULL at the end. */
static char *next_line(struct input *in)
{
	if (!rbuf)
		rbuf = xmalloc(rcap = CHUNK + 1);
	for (;;) {
		char *start = rbuf + rpos, *nl = memchr(start, '\n', rlen - rpos);
		if (!nl && reof) {
			if (rpos == rlen)
				return NULL;
			nl = rbuf + rlen; /* the last line has no newline */
		}
		if (nl) {
			*nl = '\0';
			rpos = (size_t)(nl - rbuf) + (nl < rbuf + rlen);
			if (nl > start && nl[-1] == '\r')
				nl[-1] = '\0';
			in->lineno++;
			return start;
		}
		if (rpos > 0) {
			memmove(rbuf, start, rlen - rpos);
			rlen -= rpos;
			rpos = 0;
		}
		rbuf = xgrow(rbuf, &rcap, rlen + CHUNK + 1, 1);
		size_t n = fread(rbuf + rlen, 1, CHUNK, in->fp);
		if (n == 0 && ferror(in->fp))
			die("%s: read error:", in->name);
		reof = n == 0;
		rlen += n;
		rbuf[rlen] = '\0';
	}
}

static void grep_log(const char *path)
{
	static struct log lg;
	struct it it;
	const char *at;

	free(lg.g);
	free(lg.arena);
	memset(&lg, 0, sizeof lg);
	lg.sc.in = &lg.in;
	lg.sc.dlperf = dlperf;
	path_config(&lg.sc, path, have_opt_key ? &opt_key : NULL, &lg.run, &lg.framework);
	input_open(&lg.in, path);
	if ((lg.fmt = opt_format) != NULL)
		lg.sc.state = xcalloc(1, lg.fmt->state_size);
	rlen = rpos = 0;
	reof = 0;
	for (char *s; (s = next_line(&lg.in)) != NULL;) {
		if (!lg.fmt) {
			if (*skipb(s) == '\0')
				continue;
			lg.nonempty = 1;
			if (!(lg.fmt = format_detect(s, &at))) {
				pend(&lg, s);
				continue;
			}
			lg.sc.state = xcalloc(1, lg.fmt->state_size);
			replay(&lg);
		}
		if (lg.fmt->config && lg.fmt->config(&lg.sc, s))
			continue;
		if (!lg.nonempty && *skipb(s))
			lg.nonempty = 1;
		if (!(at = format_match(lg.fmt, s)))
			continue;
		memset(&it, 0, offsetof(struct it, tsbuf));
		if (lg.fmt->parse(&lg.sc, s, at, &it))
			add(&lg, &it);
	}
	if (lg.fmt && lg.fmt->grouped && !dlperf && lg.ng)
		flush_groups(&lg);
	if (lg.nrec == 0) {
		if (!lg.nonempty)
			die("%s: empty log", lg.in.name);
		if (!lg.fmt)
			die("%s: unknown format (no iteration line of any known format)",
			    lg.in.name);
		die("%s: no iteration lines of format %s", lg.in.name, lg.fmt->name);
	}
	for (int i = 0; i < lg.npending; i++)
		free(lg.pending[i].text);
	free(lg.framework);
	free(lg.sc.state);
	input_close(&lg.in);
}

int main(int argc, char *argv[])
{
	const char *key_arg = NULL;
	int ch;

	progname = "grep-iters";
	usage_text = "grep-iters [-c dlperf] [-f format] [-k key] [-F framework] [-a from=to] "
		     "[file ...]";
	opterr = 0;
	while ((ch = getopt(argc, argv, "c:f:k:F:a:")) != -1) {
		switch (ch) {
		case 'c':
			dlperf = compat_flag(optarg);
			break;
		case 'f':
			if (!(opt_format = format_find(optarg)))
				die_usage("-f: unknown format '%s'", optarg);
			break;
		case 'k':
			key_arg = optarg;
			break;
		case 'F':
			if (!*optarg || strpbrk(optarg, "\t\n"))
				die_usage("-F: '%s' is not a framework name", optarg);
			opt_framework = optarg;
			break;
		case 'a':
			alias_add(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (key_arg) {
		const char *prec = NULL;
		int ks = key_shape(key_arg, &opt_key, &prec);
		if (ks == KS_PREC)
			die_usage("-k: precision '%s' is not %s", prec, precisions_text);
		if (ks != KS_OK)
			die_usage("-k: '%s' is not a key <N>n<G>g_b<B>_<prec>", key_arg);
		have_opt_key = 1;
	}
	if (dlperf)
		oput("# mode=dlperf\n", 14);
	for (int i = 0; i < (argc ? argc : 1); i++)
		grep_log(argc ? argv[i] : "-");
	oflush();
	finish_output();
	return 0;
}
