/*
 * grep-iters — iteration records from training logs.
 *
 * Reads training logs (the named files in order, else stdin; "-" is stdin)
 * of the formats in filters/formats.c, each detected by its first iteration
 * line (spec §2.13) unless -f names it. Writes one tab-separated record per
 * iteration (or per printed interval): framework, format, key, run, iter,
 * timestamp_s, step_s, samples_per_s, loss; "-" where the log gives nothing
 * (doc/CONTRACT.md). The configuration comes from the path
 * (…/<framework>/<key>/<run>.log or DLPerf's …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log),
 * from -k, or from the log body where the format prints it (bench's "# bench"
 * header, OneFlow's "name = value" lines); body and path must agree.
 *
 * Logs holding several ranks (pytorch, ngc-mxnet, mindspore) are grouped by
 * iteration (spec §1.4) and written sorted by iteration; with -c dlperf every
 * matching line is one record, in file order, numbered as printed.
 */
#include "formats.h"
#include "lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A piece of text: p == NULL when the log gave nothing. */
struct txt {
	const char *p;
	size_t n;
};

/* One iteration line as a parser read it. */
struct it {
	long epoch;      /* 0-based epoch or pass; 0 when the format has none */
	long long iter;  /* 1-based, within the epoch for NUM_EPOCHS formats */
	struct txt itxt; /* iter's text when the log printed exactly it (bench) */
	struct txt ts, step, rate, loss;
	long long ts_ns; /* calendar stamps: for "latest over ranks" */
	char tsbuf[48], stepbuf[48];
};

/* How a format numbers iterations across epochs. */
enum numbering {
	NUM_GLOBAL, /* the printed number counts from the start of training */
	NUM_EPOCHS, /* restarts each epoch: later epochs continue the count */
	NUM_FIRST,  /* restarts each epoch, epoch length unknown: only epoch 0 */
};

/* How step_s is derived when the log prints a rate but no time. */
enum derive {
	DERIVE_NONE,
	DERIVE_RATE,     /* TB ÷ rate: one iteration */
	DERIVE_INTERVAL, /* (iter − previous iter) × TB ÷ rate */
};

struct log;

struct parser {
	const char *name;
	int (*detect)(const char *s);
	/* 1: s is an iteration line, filled into *it; 0: some other line. */
	int (*parse)(struct log *lg, char *s, struct it *it);
	/* 1: s is a configuration line (checked); NULL: the body has none. */
	int (*config)(struct log *lg, const char *s);
	enum numbering numbering;
	enum derive derive;
	int grouped;       /* several ranks may share one log */
	int dlperf_epoch0; /* -c dlperf: DLPerf's matcher takes epoch 0 only */
};

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
	const struct parser *ps;
	int nonempty;
	/* configuration */
	int have_key;
	struct key key;
	const char *keysrc; /* "the path", "-k" or "the header" */
	long run;
	const char *framework;
	double tb;
	char prefix[512];
	size_t plen;
	int ready;
	/* numbering */
	long epoch;
	long long ep_max, ep_off, prev_iter;
	long nrec;
	/* configuration lines seen before the format was known */
	struct {
		long lineno;
		char *text;
	} pending[PENDING_MAX];
	int npending;
	/* mindspore: the latest "epoch: e step: s, loss is v" line */
	int ms_have;
	long long ms_iter;
	char ms_loss[64];
	size_t ms_lossn;
	/* grouped logs */
	struct grec *g;
	size_t ng, gcap;
	char *arena;
	size_t alen, acap;
};

static int dlperf;
static const struct parser *opt_parser;
static const char *opt_framework;
static int have_opt_key;
static struct key opt_key;

#define ALIAS_MAX 8
static struct {
	const char *from, *to;
} aliases[ALIAS_MAX];
static int naliases;

/* ---- output ------------------------------------------------------------ */

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

static void oc(char c)
{
	if (olen == sizeof obuf)
		oflush();
	obuf[olen++] = c;
}

static void otxt(struct txt t)
{
	if (t.p)
		oput(t.p, t.n);
	else
		oc('-');
}

static size_t fmt_ll(char *buf, long long v)
{
	char tmp[24];
	size_t n = 0, k = 0;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		buf[k++] = '-';
	while (n)
		buf[k++] = tmp[--n];
	return k;
}

/* ---- scanning ---------------------------------------------------------- */

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skipb(const char *p)
{
	while (blank(*p))
		p++;
	return p;
}

/* A character that may be part of a name: labels must not start inside one. */
static int namechar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_' ||
	       c == '.' || c == '/';
}

/* The first occurrence of label in s that does not start inside a name and,
 * when the label ends in a letter or digit, is followed by a blank. Returns
 * the text after the label and the blanks that follow; NULL when absent. */
static const char *label(const char *s, const char *lab)
{
	size_t n = strlen(lab);
	int need_blank = namechar(lab[n - 1]) && lab[n - 1] != '.';

	for (const char *p = s; (p = strstr(p, lab)) != NULL; p++) {
		if (p > s && namechar(p[-1]) && namechar(lab[0]))
			continue;
		if (need_blank && !blank(p[n]))
			continue;
		return skipb(p + n);
	}
	return NULL;
}

/* The last occurrence, as label(). */
static const char *label_last(const char *s, const char *lab)
{
	const char *r = NULL, *q;

	while ((q = label(s, lab)) != NULL) {
		r = q;
		s = q;
	}
	return r;
}

enum { N_BAD, N_NEG, N_ZERO, N_POS };

/* Scan the plain decimal number at s ([+-]digits[.digits][e[+-]digits]):
 * its length in *n (0 when there is none) and its sign class. */
static inline int numscan(const char *s, size_t *n)
{
	const char *p = s;
	int d = 0, nonzero = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; digit(*p); p++, d++)
		nonzero |= *p != '0';
	if (*p == '.')
		for (p++; digit(*p); p++, d++)
			nonzero |= *p != '0';
	*n = 0;
	if (!d)
		return N_BAD;
	if ((*p == 'e' || *p == 'E') &&
	    (digit(p[1]) || ((p[1] == '+' || p[1] == '-') && digit(p[2])))) {
		char buf[64];
		for (p += 2; digit(*p); p++)
			;
		*n = (size_t)(p - s);
		if (*n >= sizeof buf)
			return N_BAD;
		memcpy(buf, s, *n);
		buf[*n] = '\0';
		double v = strtod(buf, NULL);
		return !isfinite(v) ? N_BAD : v < 0 ? N_NEG : v == 0 ? N_ZERO : N_POS;
	}
	*n = (size_t)(p - s);
	return !nonzero ? N_ZERO : s[0] == '-' ? N_NEG : N_POS;
}

/* The token at p for a message: up to a blank or the end. */
static int toklen(const char *p)
{
	int n = 0;

	while (p[n] && !blank(p[n]) && n < 40)
		n++;
	return n;
}

static int ends_token(char c, const char *stops)
{
	return c == '\0' || blank(c) || (stops && strchr(stops, c));
}

enum { ANY, POSITIVE, NONNEG };

/* getnum's error path: dies saying why p is not the number wanted. */
__attribute__((cold)) static LIB_NORETURN void badnum(struct log *lg, const char *p, int c, size_t n,
						  const char *what, int sign)
{
	if (!p)
		record_die(&lg->in, "no %s", what);
	if (n == 0 || c == N_BAD)
		record_die(&lg->in, "%s '%.*s' is not a number", what, toklen(p), p);
	if (sign == NONNEG)
		record_die(&lg->in, "%s '%.*s' is negative", what, (int)n, p);
	record_die(&lg->in, "%s '%.*s' is not positive", what, (int)n, p);
}

/* The number at *pp, which must end at a blank, the end or a character of
 * stops; dies naming what when it is not a number or breaks the sign rule. */
static inline struct txt getnum(struct log *lg, const char **pp, const char *what,
				const char *stops, int sign)
{
	const char *p = *pp;
	size_t n = 0;
	int c = p ? numscan(p, &n) : N_BAD;

	if (n == 0 || !ends_token(p[n], stops))
		badnum(lg, p, N_BAD, 0, what, sign);
	if (c == N_BAD || (sign == POSITIVE && c != N_POS) || (sign == NONNEG && c == N_NEG))
		badnum(lg, p, c, n, what, sign);
	*pp = p + n;
	return (struct txt){p, n};
}

/* A loss: a number, or nan / inf as frameworks print a diverged loss. */
static struct txt getloss(struct log *lg, const char **pp, const char *what, const char *stops)
{
	const char *p = *pp;
	static const char *const words[] = {"nan", "-nan", "inf", "-inf", "NaN", "Inf", "-Inf"};

	if (p && !digit(*p) && *p != '.' && !digit(p[1]))
		for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
			size_t n = strlen(words[i]);
			if (strncmp(p, words[i], n) == 0 && ends_token(p[n], stops)) {
				*pp = p + n;
				return (struct txt){p, n};
			}
		}
	return getnum(lg, pp, what, stops, ANY);
}

/* A non-negative integer (at most 15 digits) ending as getnum's numbers. */
static long long getint(struct log *lg, const char **pp, const char *what, const char *stops)
{
	const char *p = *pp;
	long long v = 0;
	int n = 0;

	if (!p)
		record_die(&lg->in, "no %s", what);
	while (digit(p[n]) && n < 16)
		v = v * 10 + (p[n++] - '0');
	if (n == 0 || n > 15 || !ends_token(p[n], stops))
		record_die(&lg->in, "%s '%.*s' is not an integer", what, toklen(p), p);
	*pp = p + n;
	return v;
}

/* Expect the literal lit at *pp after blanks; skip the blanks after it. */
static void expect(struct log *lg, const char **pp, const char *lit, const char *what)
{
	const char *p = skipb(*pp);
	size_t n = strlen(lit);

	if (strncmp(p, lit, n) != 0)
		record_die(&lg->in, "%s: expected '%s' at '%.*s'", what, lit, toklen(p), p);
	*pp = skipb(p + n);
}

/* ---- calendar time ----------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long long days_from_civil(long long y, int m, int d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int dig2(const char *p)
{
	return (p[0] - '0') * 10 + (p[1] - '0');
}

/* Does s start with "YYYY-MM-DD HH:MM:SS" (or a T between date and time)? */
static int stamp_at(const char *s)
{
	static const char pat[] = "dddd-dd-dd dd:dd:dd";

	for (int i = 0; pat[i]; i++) {
		if (pat[i] == 'd' ? !digit(s[i])
		    : i == 10     ? s[i] != ' ' && s[i] != 'T'
				  : s[i] != pat[i])
			return 0;
	}
	return 1;
}

/* Convert the calendar stamp at *pp (stamp_at) as UTC into Unix seconds
 * with the fraction digits the log gave (".000000" when it gave none). */
static void stamp_read(struct log *lg, const char **pp, struct it *it)
{
	const char *s = *pp;
	int y = dig2(s) * 100 + dig2(s + 2), mo = dig2(s + 5), d = dig2(s + 8);
	int h = dig2(s + 11), mi = dig2(s + 14), se = dig2(s + 17);
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || se > 59)
		record_die(&lg->in, "timestamp '%.19s' is not a valid date and time", s);
	long long sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	const char *f = s + 19;
	char frac[10];
	int nf = 0;
	if ((*f == '.' || *f == ',') && digit(f[1])) {
		for (f++; digit(*f); f++) {
			if (nf == 9)
				record_die(&lg->in,
					   "timestamp '%.30s' has more than 9 fraction digits", s);
			frac[nf++] = *f;
		}
	} else {
		memcpy(frac, "000000", 6);
		nf = 6;
	}
	size_t k = fmt_ll(it->tsbuf, sec);
	it->tsbuf[k++] = '.';
	memcpy(it->tsbuf + k, frac, (size_t)nf);
	k += (size_t)nf;
	long long ns = 0;
	for (int i = 0; i < 9; i++)
		ns = ns * 10 + (i < nf ? frac[i] - '0' : 0);
	it->ts = (struct txt){it->tsbuf, k};
	it->ts_ns = sec * 1000000000LL + ns;
	*pp = f;
}

/* A logging stamp anywhere in s[0, end) (e.g. "2020-08-20 15:33:35,123 - INFO"). */
static void stamp_find(struct log *lg, const char *s, const char *end, struct it *it)
{
	for (const char *p = s; p + 19 <= end; p++)
		if (digit(*p) && stamp_at(p)) {
			stamp_read(lg, &p, it);
			return;
		}
}

/* ---- configuration ----------------------------------------------------- */

static const char *alias(const char *prec, size_t n)
{
	for (int i = 0; i < naliases; i++)
		if (strlen(aliases[i].from) == n && strncmp(aliases[i].from, prec, n) == 0)
			return aliases[i].to;
	return NULL;
}

/* A positive decimal integer without sign or leading zero, ending at stop. */
static int take_pos(const char **sp, char stop, long *out)
{
	const char *s = *sp;
	long v = 0;

	if (*s < '1' || *s > '9')
		return -1;
	for (; digit(*s); s++) {
		if (v > 100000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s != stop)
		return -1;
	*sp = s + (stop != '\0');
	*out = v;
	return 0;
}

/* A non-negative integer filling s[0, n). */
static int take_run(const char *s, size_t n, long *out)
{
	long v = 0;

	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Set k->prec from prec[0, n) after the aliases; 0, or -1 when invalid. */
static int set_prec(struct key *k, const char *prec, size_t n)
{
	const char *a = alias(prec, n);

	if (a) {
		prec = a;
		n = strlen(a);
	}
	if (n == 0 || n >= sizeof k->prec)
		return -1;
	memcpy(k->prec, prec, n);
	k->prec[n] = '\0';
	return prec_valid(k->prec) ? 0 : -1;
}

enum { KS_NOT, KS_OK, KS_BATCH, KS_PREC };

/* "<N>n<G>g_b<rest>": KS_NOT when s does not start that way, else whether
 * the batch and precision are valid. */
static int key_shape(const char *s, struct key *k, const char **prec)
{
	if (take_pos(&s, 'n', &k->nodes) || take_pos(&s, 'g', &k->gpus) || s[0] != '_' ||
	    s[1] != 'b')
		return KS_NOT;
	s += 2;
	if (take_pos(&s, '_', &k->batch))
		return KS_BATCH;
	*prec = s;
	return set_prec(k, s, strlen(s)) ? KS_PREC : KS_OK;
}

static const char precisions_text[] = "fp32, tf32, amp, bf16 or fp16";

/* The configuration a path carries (spec §1.6, strict). */
static void path_config(struct log *lg, const char *path)
{
	if (strcmp(path, "-") == 0) {
		if (have_opt_key) {
			lg->key = opt_key;
			lg->have_key = 1;
			lg->keysrc = "-k";
		}
		lg->run = 1;
		return;
	}
	char *copy = strdup(path);
	if (!copy)
		die("out of memory");
	char *base = strrchr(copy, '/'), *dir = NULL, *fw = NULL;
	if (base) {
		*base++ = '\0';
		dir = strrchr(copy, '/');
		if (dir) {
			*dir++ = '\0';
			fw = strrchr(copy, '/');
			fw = fw ? fw + 1 : copy;
		} else {
			dir = copy;
		}
	} else {
		base = copy;
	}
	size_t bn = strlen(base);
	int dotlog = bn > 4 && strcmp(base + bn - 4, ".log") == 0;
	struct key k;
	const char *prec = NULL;
	int ks = dir ? key_shape(dir, &k, &prec) : KS_NOT;
	long nodes, gpus;

	if (ks != KS_NOT) {
		/* ours: …/<framework>/<key>/<run>.log */
		if (ks == KS_BATCH)
			die("%s: directory '%s': batch is not b<B> with B a positive integer", path,
			    dir);
		if (ks == KS_PREC)
			die("%s: precision '%s' is not %s", path, prec, precisions_text);
		if (!dotlog || take_run(base, bn - 4, &lg->run))
			die("%s: file name '%s' is not <run>.log", path, base);
		lg->key = k;
		lg->have_key = 1;
		lg->keysrc = "the path";
		if (fw && *fw && strcmp(fw, ".") != 0 && strcmp(fw, "..") != 0)
			lg->framework = strdup(fw);
	} else if (dir && case_parse(dir, &nodes, &gpus) == 0) {
		/* DLPerf: …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log */
		char *f[4];
		int nf = 1;
		if (!dotlog)
			die("%s: file name '%s' does not end in .log", path, base);
		base[bn - 4] = '\0';
		for (const char *p = base; (p = strchr(p, '_')) != NULL; p++)
			nf++;
		if (nf != 4)
			die("%s: file name has %d '_'-separated field%s, expected 4: "
			    "<model>_b<B>_<prec>_<run>.log",
			    path, nf, nf == 1 ? "" : "s");
		f[0] = base;
		for (int i = 1; i < 4; i++) {
			f[i] = strchr(f[i - 1], '_');
			*f[i]++ = '\0';
		}
		const char *b = f[1];
		k.nodes = nodes;
		k.gpus = gpus;
		if (!*f[0])
			die("%s: empty model name", path);
		if (*b++ != 'b' || take_pos(&b, '\0', &k.batch))
			die("%s: batch '%s' is not b<B> with B a positive integer", path, f[1]);
		if (set_prec(&k, f[2], strlen(f[2])))
			die("%s: precision '%s' is not %s", path, f[2], precisions_text);
		if (take_run(f[3], strlen(f[3]), &lg->run))
			die("%s: run '%s' is not a non-negative integer", path, f[3]);
		lg->key = k;
		lg->have_key = 1;
		lg->keysrc = "the path";
	} else if (have_opt_key) {
		if (!dotlog || take_run(base, bn - 4, &lg->run))
			lg->run = 1;
	} else {
		if (dir)
			die("%s: directory '%s' is neither <N>n<G>g nor <N>n<G>g_b<B>_<prec>; "
			    "give -k key",
			    path, dir);
		die("%s: no directory <N>n<G>g or <N>n<G>g_b<B>_<prec> in the path; give -k key",
		    path);
	}
	free(copy);
	if (have_opt_key) {
		if (lg->have_key &&
		    (k.nodes != opt_key.nodes || k.gpus != opt_key.gpus ||
		     k.batch != opt_key.batch || strcmp(k.prec, opt_key.prec) != 0)) {
			char a[KEY_MAX], b[KEY_MAX];
			key_format(&lg->key, a, sizeof a);
			key_format(&opt_key, b, sizeof b);
			die("%s: the path says %s, -k says %s", path, a, b);
		}
		lg->key = opt_key;
		lg->have_key = 1;
		if (!lg->keysrc)
			lg->keysrc = "-k";
	}
}

/* OneFlow's "name = value" lines at column 0 (spec §2.10). */
static int config_oneflow(struct log *lg, const char *s)
{
	static const struct {
		const char *name;
		int what;
	} names[] = {{"num_nodes", 0}, {"gpu_num_per_node", 1}, {"batch_size_per_device", 2}};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i].name);
		if (strncmp(s, names[i].name, n) != 0 || !blank(s[n]))
			continue;
		const char *p = skipb(s + n);
		if (*p != '=')
			return 0;
		p = skipb(p + 1);
		size_t vn = 0;
		while (p[vn] && !blank(p[vn]))
			vn++;
		if (*skipb(p + vn))
			record_die(&lg->in, "%s: value '%s' is not one token", names[i].name, p);
		if (!lg->have_key)
			return 1;
		char v[32];
		long x;
		const char *q = v;
		snprintf(v, sizeof v, "%.*s", (int)(vn < 31 ? vn : 31), p);
		if (vn > 30 || take_pos(&q, '\0', &x))
			record_die(&lg->in, "%s = '%.*s' is not a positive integer", names[i].name,
				   (int)vn, p);
		long want = names[i].what == 0   ? lg->key.nodes
			    : names[i].what == 1 ? lg->key.gpus
						 : lg->key.batch;
		if (x != want)
			record_die(&lg->in, "the log says %s = %ld, %s says %ld", names[i].name, x,
				   lg->keysrc, want);
		return 1;
	}
	return 0;
}

/* bench's "# bench key=value …" header (DESIGN.md): states the whole key. */
static int config_bench(struct log *lg, const char *s)
{
	if (s[0] != '#')
		return 0;
	if (strncmp(s, "# bench", 7) != 0 || !blank(s[7]))
		return 1;
	static const char *const names[] = {"nodes", "gpus_per_node", "batch_per_device",
					    "precision"};
	struct txt v[4] = {{0}};
	for (const char *p = skipb(s + 7); *p; p = skipb(p)) {
		const char *t = p;
		while (*p && !blank(*p))
			p++;
		const char *eq = memchr(t, '=', (size_t)(p - t));
		if (!eq)
			continue;
		for (int i = 0; i < 4; i++)
			if ((size_t)(eq - t) == strlen(names[i]) &&
			    strncmp(t, names[i], eq - t) == 0)
				v[i] = (struct txt){eq + 1, (size_t)(p - eq - 1)};
	}
	struct key k;
	long *nums[3] = {&k.nodes, &k.gpus, &k.batch};
	int have[4];
	for (int i = 0; i < 4; i++) {
		have[i] = v[i].p != NULL;
		if (!have[i])
			continue;
		if (i < 3) {
			char buf[32];
			const char *q = buf;
			snprintf(buf, sizeof buf, "%.*s", (int)(v[i].n < 31 ? v[i].n : 31), v[i].p);
			if (v[i].n > 30 || take_pos(&q, '\0', nums[i]))
				record_die(&lg->in, "header: %s=%.*s is not a positive integer",
					   names[i], (int)v[i].n, v[i].p);
		} else if (set_prec(&k, v[i].p, v[i].n)) {
			record_die(&lg->in, "header: precision=%.*s is not %s", (int)v[i].n, v[i].p,
				   precisions_text);
		}
	}
	if (!lg->have_key) {
		for (int i = 0; i < 4; i++)
			if (!have[i])
				record_die(&lg->in, "header: no %s=", names[i]);
		lg->key = k;
		lg->have_key = 1;
		lg->keysrc = "the header";
		return 1;
	}
	long want[3] = {lg->key.nodes, lg->key.gpus, lg->key.batch};
	for (int i = 0; i < 3; i++)
		if (have[i] && *nums[i] != want[i])
			record_die(&lg->in, "the log says %s=%ld, %s says %ld", names[i], *nums[i],
				   lg->keysrc, want[i]);
	if (have[3] && strcmp(k.prec, lg->key.prec) != 0)
		record_die(&lg->in, "the log says precision=%s, %s says %s", k.prec, lg->keysrc,
			   lg->key.prec);
	return 1;
}

/* ---- the formats: detection and one parser each ------------------------ */

/* bench: "iter=1 loss=6.9310 step_s=0.4821 samples_per_s=66.37 ts=1763781234.123456" */
static const char *bench_start(const char *s)
{
	if (s[0] == 'i' && strncmp(s, "iter=", 5) == 0)
		return s;
	for (const char *p = s; (p = strstr(p, "iter=")) != NULL; p++)
		if (blank(p[-1]) || p[-1] == ':' || p[-1] == ']' || p[-1] == '>')
			return p;
	return NULL;
}

static int detect_bench(const char *s)
{
	return s[0] != '#' && bench_start(s) &&
	       (strstr(s, " step_s=") || strstr(s, " samples_per_s="));
}

/* An unsigned decimal "digits[.digits]" at p, ending at a blank or the end:
 * its end, or NULL. *nz is set when a digit is not 0. */
static inline const char *plain(const char *p, int *nz)
{
	const char *q = p;
	int z = 0;

	while (digit(*q))
		z |= *q++ != '0';
	if (q == p)
		return NULL;
	if (*q == '.')
		for (q++; digit(*q); q++)
			z |= *q != '0';
	*nz = z;
	return *q == ' ' || *q == '\0' ? q : NULL;
}

/* bench's own layout, exactly as bench prints it: 1 when it matched and
 * every value is valid; 0 leaves the line to the general parser, which
 * also names what is wrong. */
static int bench_fast(const char *s, struct it *it)
{
	const char *p = s + 5, *q;
	long long iter = 0;
	int nz;

	if (*p < '1' || *p > '9')
		return 0;
	for (q = p; digit(*q) && q - p < 15; q++)
		iter = iter * 10 + (*q - '0');
	if (memcmp(q, " loss=", 6) != 0)
		return 0;
	it->iter = iter;
	it->itxt = (struct txt){p, (size_t)(q - p)};
	p = q + 6;
	if (*p == '-')
		q = plain(p + 1, &nz);
	else
		q = plain(p, &nz);
	if (!q || memcmp(q, " step_s=", 8) != 0)
		return 0;
	it->loss = (struct txt){p, (size_t)(q - p)};
	p = q + 8;
	if (!(q = plain(p, &nz)) || !nz || memcmp(q, " samples_per_s=", 15) != 0)
		return 0;
	it->step = (struct txt){p, (size_t)(q - p)};
	p = q + 15;
	if (!(q = plain(p, &nz)) || !nz || memcmp(q, " ts=", 4) != 0)
		return 0;
	it->rate = (struct txt){p, (size_t)(q - p)};
	p = q + 4;
	if (!(q = plain(p, &nz)) || *q != '\0')
		return 0;
	it->ts = (struct txt){p, (size_t)(q - p)};
	return 1;
}

static int parse_bench(struct log *lg, char *s, struct it *it)
{
	if (s[0] == 'i' && s[1] == 't' && s[2] == 'e' && s[3] == 'r' && s[4] == '=' &&
	    bench_fast(s, it))
		return 1;
	it->itxt.p = it->ts.p = it->step.p = it->rate.p = it->loss.p = NULL;

	const char *p = bench_start(s);
	int have_iter = 0;

	if (!p)
		return 0;
	while (*p) {
		const char *k = p, *v;
		while (*p && *p != '=' && !blank(*p))
			p++;
		if (*p != '=') {
			p = skipb(p);
			continue;
		}
		size_t kn = (size_t)(p - k);
		v = ++p;
		switch (kn) {
		case 4:
			if (memcmp(k, "iter", 4) == 0) {
				it->iter = getint(lg, &p, "iter", NULL);
				if (*v != '0')
					it->itxt = (struct txt){v, (size_t)(p - v)};
				if (it->iter < 1)
					record_die(&lg->in, "iter '0' is not positive");
				have_iter = 1;
			} else if (memcmp(k, "loss", 4) == 0) {
				it->loss = getloss(lg, &p, "loss", NULL);
			}
			break;
		case 2:
			if (memcmp(k, "ts", 2) == 0)
				it->ts = getnum(lg, &p, "ts", NULL, NONNEG);
			break;
		case 6:
			if (memcmp(k, "step_s", 6) == 0)
				it->step = getnum(lg, &p, "step_s", NULL, POSITIVE);
			break;
		case 13:
			if (memcmp(k, "samples_per_s", 13) == 0)
				it->rate = getnum(lg, &p, "samples_per_s", NULL, POSITIVE);
			break;
		}
		if (p == v)
			while (*p && !blank(*p))
				p++;
		p = skipb(p);
	}
	return have_iter;
}

/* OneFlow cnns: "train: epoch 0, iter 20, loss: 7.087004, …, samples/s: 3988.891 1597933942.98" */
static int detect_oneflow(const char *s)
{
	const char *p = strstr(s, "train: epoch");
	return p && strstr(p, ", iter ");
}

/* The Unix time as the last token of a OneFlow line. */
static struct txt unix_last(struct log *lg, const char **pp)
{
	struct txt t = getnum(lg, pp, "timestamp", NULL, POSITIVE);
	if (*skipb(*pp))
		record_die(&lg->in, "text after the timestamp: '%.*s'", toklen(skipb(*pp)),
			   skipb(*pp));
	return t;
}

static int parse_oneflow(struct log *lg, char *s, struct it *it)
{
	const char *p = label(s, "train: epoch");

	if (!p || !strstr(p, ", iter "))
		return 0;
	it->epoch = (long)getint(lg, &p, "epoch", ",");
	expect(lg, &p, ",", "epoch");
	expect(lg, &p, "iter", "iter");
	it->iter = getint(lg, &p, "iter", ",");
	const char *q = label(p, "loss:");
	it->loss = getloss(lg, &q, "loss", ",");
	q = label(p, "samples/s:");
	it->rate = getnum(lg, &q, "samples/s", NULL, POSITIVE);
	q = skipb(q);
	it->ts = unix_last(lg, &q);
	return 1;
}

/* OneFlow BERT: "step: 19, total_loss: 9.725, …, throughput: 54.982 1598056519.8844702" */
static const char *bert_start(const char *s)
{
	if (strncmp(s, "step: ", 6) == 0)
		return s;
	const char *p = strstr(s, " step: ");
	return p ? p + 1 : NULL;
}

static int detect_bert(const char *s)
{
	return bert_start(s) && strstr(s, "throughput:");
}

static int parse_bert(struct log *lg, char *s, struct it *it)
{
	const char *p = bert_start(s);

	if (!p || !strstr(p, "throughput:"))
		return 0;
	p = skipb(p + 5);
	it->iter = getint(lg, &p, "step", ",") + 1;
	const char *q = label(p, "total_loss:");
	if (q)
		it->loss = getloss(lg, &q, "total_loss", ",");
	q = label(p, "throughput:");
	it->rate = getnum(lg, &q, "throughput", NULL, POSITIVE);
	q = skipb(q);
	it->ts = unix_last(lg, &q);
	return 1;
}

/* OneFlow InsightFace: "train: iter 25, loss: 43.861, throughput: 1925.433" */
static int detect_insightface(const char *s)
{
	return strstr(s, "train: iter") != NULL;
}

static int parse_insightface(struct log *lg, char *s, struct it *it)
{
	const char *p = strstr(s, "train: iter");

	if (!p)
		return 0;
	p = skipb(p + 11);
	it->iter = getint(lg, &p, "iter", ",");
	if (it->iter < 1)
		record_die(&lg->in, "iter '0' is not positive");
	const char *q = label(p, "loss:");
	if (q)
		it->loss = getloss(lg, &q, "loss", ",");
	q = label(p, "throughput:");
	it->rate = getnum(lg, &q, "throughput", NULL, POSITIVE);
	if (*skipb(q))
		record_die(&lg->in, "text after the throughput: '%.*s'", toklen(skipb(q)),
			   skipb(q));
	return 1;
}

/* DLL lines: "DLL 2020-09-15 14:29:13.473765 - …" — the stamp after "DLL ". */
static const char *dll_stamp(struct log *lg, const char *s, struct it *it)
{
	const char *p = strstr(s, "DLL ");

	p = skipb(p + 4);
	if (!stamp_at(p))
		record_die(&lg->in, "DLL line without a timestamp: '%.*s'", toklen(p), p);
	stamp_read(lg, &p, it);
	return p;
}

/* A DLL metric "name : value"; NULL when absent. */
static const char *dll_metric(const char *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s; (p = strstr(p, name)) != NULL; p++) {
		if (p > s && !blank(p[-1]))
			continue;
		const char *q = skipb(p + n);
		if (*q == ':')
			return skipb(q + 1);
	}
	return NULL;
}

/* NGC PyTorch:
 * "DLL <stamp> - Epoch: 0 Iteration: 1  train.loss : 7.09  train.total_ips : 267.44 img/s" */
static int detect_ngc_pytorch(const char *s)
{
	const char *p = strstr(s, "DLL ");
	return p && strstr(p, "Iteration: ");
}

static int parse_ngc_pytorch(struct log *lg, char *s, struct it *it)
{
	const char *d = strstr(s, "DLL ");

	if (!d || !strstr(d, "Iteration: "))
		return 0;
	const char *lossp = dll_metric(d, "train.loss"), *ratep = dll_metric(d, "train.total_ips");
	if (!lossp && !ratep)
		return 0; /* validation: val.* metrics only */
	const char *p = dll_stamp(lg, d, it);
	const char *q = label(p, "Epoch:");
	if (q)
		it->epoch = (long)getint(lg, &q, "Epoch", NULL);
	q = label(p, "Iteration:");
	it->iter = getint(lg, &q, "Iteration", NULL);
	if (it->iter < 1)
		record_die(&lg->in, "Iteration '0' is not positive");
	if (lossp)
		it->loss = getloss(lg, &lossp, "train.loss", NULL);
	if (ratep)
		it->rate = getnum(lg, &ratep, "train.total_ips", NULL, POSITIVE);
	return 1;
}

/* NGC TensorFlow 1.x: "DLL <stamp> - (0, 20) imgs_per_sec : 362.71 … total_loss : 7.28 …" */
static int detect_ngc_tf(const char *s)
{
	const char *p = strstr(s, "DLL ");
	return p && strstr(p, "imgs_per_sec");
}

static int parse_ngc_tf(struct log *lg, char *s, struct it *it)
{
	const char *d = strstr(s, "DLL ");

	if (!d || !strstr(d, "imgs_per_sec"))
		return 0;
	const char *p = dll_stamp(lg, d, it);
	expect(lg, &p, "-", "DLL line");
	expect(lg, &p, "(", "step");
	if (*p == ')')
		return 0; /* a summary: no step */
	it->epoch = (long)getint(lg, &p, "epoch", ",");
	expect(lg, &p, ",", "step");
	it->iter = getint(lg, &p, "step", ")") + 1;
	expect(lg, &p, ")", "step");
	const char *q = dll_metric(p, "imgs_per_sec");
	it->rate = getnum(lg, &q, "imgs_per_sec", NULL, POSITIVE);
	if ((q = dll_metric(p, "total_loss")) != NULL)
		it->loss = getloss(lg, &q, "total_loss", NULL);
	return 1;
}

/* TensorFlow 2.x: "… TimeHistory: 39.55 seconds, 323.64 examples/second between steps 0 and 100" */
static int detect_tf2(const char *s)
{
	return strstr(s, "TimeHistory:") != NULL;
}

static int parse_tf2(struct log *lg, char *s, struct it *it)
{
	const char *p = strstr(s, "TimeHistory:");

	if (!p)
		return 0;
	p = skipb(p + 12);
	it->step = getnum(lg, &p, "seconds", NULL, POSITIVE);
	expect(lg, &p, "seconds,", "TimeHistory");
	it->rate = getnum(lg, &p, "examples/second", NULL, POSITIVE);
	expect(lg, &p, "examples/second", "TimeHistory");
	expect(lg, &p, "between", "TimeHistory");
	expect(lg, &p, "steps", "TimeHistory");
	long long a = getint(lg, &p, "first step", NULL);
	expect(lg, &p, "and", "TimeHistory");
	it->iter = getint(lg, &p, "last step", NULL);
	if (it->iter <= a)
		record_die(&lg->in, "steps %lld and %lld: not an interval", a, it->iter);
	if (!dlperf && a != lg->prev_iter)
		record_die(&lg->in, "interval starts at step %lld, the previous one ended at %lld",
			   a, lg->prev_iter);
	return 1;
}

/* PaddleCV: "[Pass 0, train batch 19] \tloss 6.93145, acc1 …, lr 0.001, elapse 0.3612 sec" */
static int detect_paddle(const char *s)
{
	const char *p = strstr(s, "train batch");
	return p && strstr(p, "elapse");
}

static int parse_paddle(struct log *lg, char *s, struct it *it)
{
	const char *b = strstr(s, "train batch"), *p;

	if (!b || !strstr(b, "elapse"))
		return 0;
	const char *pass = strstr(s, "[Pass");
	if (!pass || pass > b)
		record_die(&lg->in, "no '[Pass <p>,' before 'train batch'");
	stamp_find(lg, s, pass, it);
	p = skipb(pass + 5);
	it->epoch = (long)getint(lg, &p, "Pass", ",");
	p = skipb(b + 11);
	it->iter = getint(lg, &p, "train batch", "]") + 1;
	expect(lg, &p, "]", "train batch");
	const char *q = label(p, "loss");
	if (q)
		it->loss = getloss(lg, &q, "loss", ",");
	q = label_last(p, "elapse");
	it->step = getnum(lg, &q, "elapse", NULL, POSITIVE);
	expect(lg, &q, "sec", "elapse");
	return 1;
}

/* PLSC:
 * "INFO 2021-03-12 10:15:02,331 entry.py:1032] Pass:0 batch:50 lr:0.1 loss:42.71 qps:397.81" */
static int detect_plsc(const char *s)
{
	const char *p = strstr(s, "Pass:");
	return p && strstr(p, "qps:");
}

static int parse_plsc(struct log *lg, char *s, struct it *it)
{
	const char *pass = strstr(s, "Pass:");

	if (!pass || !strstr(pass, "qps:"))
		return 0;
	stamp_find(lg, s, pass, it);
	const char *p = skipb(pass + 5);
	it->epoch = (long)getint(lg, &p, "Pass", NULL);
	const char *q = label(p, "batch:");
	it->iter = getint(lg, &q, "batch", NULL) + 1;
	if ((q = label(p, "loss:")) != NULL)
		it->loss = getloss(lg, &q, "loss", NULL);
	q = label(p, "qps:");
	it->rate = getnum(lg, &q, "qps", NULL, POSITIVE);
	return 1;
}

/* "Speed: <v> samples/sec" of both MXNet formats. */
static void mxnet_speed(struct log *lg, const char *p, struct it *it)
{
	const char *q = label(p, "Speed:");

	it->rate = getnum(lg, &q, "Speed", NULL, POSITIVE);
}

/* NGC MXNet:
 * "2020-09-10 12:34:56,789:INFO: Epoch[0] Batch [20-20]\tSpeed: 392.66 samples/sec\t…" */
static int detect_ngc_mxnet(const char *s)
{
	const char *p = strstr(s, " Batch [");
	return p && strstr(p, "Speed:");
}

static int parse_ngc_mxnet(struct log *lg, char *s, struct it *it)
{
	const char *b = strstr(s, " Batch [");

	if (!b || !strstr(b, "Speed:"))
		return 0;
	const char *e = b;
	while (e > s && e[-1] != '[')
		e--;
	if (e - s < 6 || strncmp(e - 6, "Epoch[", 6) != 0)
		record_die(&lg->in, "no 'Epoch[<e>]' before 'Batch ['");
	stamp_find(lg, s, e - 6, it);
	it->epoch = (long)getint(lg, &e, "Epoch", "]");
	const char *p = b + 8;
	long long i = getint(lg, &p, "batch", "-");
	expect(lg, &p, "-", "Batch");
	long long j = getint(lg, &p, "batch", "]");
	if (i != j)
		record_die(&lg->in, "Batch [%lld-%lld] covers several batches; log every batch", i,
			   j);
	it->iter = j + 1;
	mxnet_speed(lg, p, it);
	return 1;
}

/* gluon-cv: "INFO:root:Epoch[0] Batch[20]\tSpeed: 384.27 samples/sec\taccuracy=…" */
static int detect_mxnet(const char *s)
{
	const char *p = strstr(s, "Batch[");
	return p && strstr(p, "Speed:");
}

static int parse_mxnet(struct log *lg, char *s, struct it *it)
{
	const char *b = strstr(s, "Batch[");

	if (!b || !strstr(b, "Speed:"))
		return 0;
	const char *e = strstr(s, "Epoch[");
	if (!e || e > b)
		record_die(&lg->in, "no 'Epoch[<e>]' before 'Batch['");
	stamp_find(lg, s, e, it);
	e += 6;
	it->epoch = (long)getint(lg, &e, "Epoch", "]");
	const char *p = skipb(b + 6);
	it->iter = getint(lg, &p, "batch", "]") + 1;
	mxnet_speed(lg, p, it);
	return 1;
}

/* MindSpore: "epoch: 11 step: 10, loss is 6.2012343" then
 * "epoch time: 3461.205 ms, per step time: 346.121 ms"; a record per time line. */
static int detect_mindspore(const char *s)
{
	const char *p = strstr(s, "epoch: ");
	return strstr(s, "epoch time:") || (p && strstr(p, " step: ") && strstr(p, "loss is"));
}

/* Milliseconds text to seconds: the decimal point moved 3 places left. */
static struct txt ms_to_s(struct txt ms, char *buf, size_t size)
{
	const char *p = ms.p, *end = ms.p + ms.n, *dot = memchr(p, '.', ms.n);
	size_t k = 0;

	if (memchr(p, 'e', ms.n) || memchr(p, 'E', ms.n) || *p == '+' || ms.n + 8 > size) {
		char tmp[64];
		snprintf(tmp, sizeof tmp, "%.*s", (int)ms.n, ms.p);
		fmt_shortest(buf, size, strtod(tmp, NULL) / 1000.0);
		return (struct txt){buf, strlen(buf)};
	}
	if (!dot)
		dot = end;
	while (p < dot - 1 && *p == '0')
		p++;
	size_t in = (size_t)(dot - p);
	if (in > 3) {
		memcpy(buf, p, in - 3);
		k = in - 3;
	} else {
		buf[k++] = '0';
	}
	buf[k++] = '.';
	for (size_t z = in; z < 3; z++)
		buf[k++] = '0';
	memcpy(buf + k, in > 3 ? dot - 3 : p, in > 3 ? 3 : in);
	k += in > 3 ? 3 : in;
	if (dot < end) {
		memcpy(buf + k, dot + 1, (size_t)(end - dot - 1));
		k += (size_t)(end - dot - 1);
	}
	return (struct txt){buf, k};
}

static int parse_mindspore(struct log *lg, char *s, struct it *it)
{
	const char *t = strstr(s, "epoch time:");

	if (!t) {
		const char *p = strstr(s, "epoch: ");
		if (!p || !strstr(p, " step: ") || !strstr(p, "loss is"))
			return 0;
		p = skipb(p + 7);
		long long e = getint(lg, &p, "epoch", NULL);
		expect(lg, &p, "step:", "epoch");
		long long st = getint(lg, &p, "step", ",");
		const char *q = label(p, "loss is");
		struct txt l = getloss(lg, &q, "loss", NULL);
		if (e < 1 || st < 1)
			record_die(&lg->in, "epoch %lld step %lld: not positive", e, st);
		if (l.n >= sizeof lg->ms_loss)
			record_die(&lg->in, "loss '%.*s' is too long", toklen(l.p), l.p);
		if (lg->ms_have && lg->ms_iter == e * st)
			return 0; /* another rank: the first line's loss stands (§1.4) */
		memcpy(lg->ms_loss, l.p, l.n);
		lg->ms_lossn = l.n;
		lg->ms_iter = e * st;
		lg->ms_have = 1;
		return 0;
	}
	if (!lg->ms_have)
		record_die(&lg->in,
			   "'epoch time:' without an 'epoch: <e> step: <s>, loss is <v>' line "
			   "before it");
	const char *p = skipb(t + 11);
	struct txt ms = getnum(lg, &p, "epoch time", NULL, POSITIVE);
	expect(lg, &p, "ms", "epoch time");
	it->iter = lg->ms_iter;
	it->loss = (struct txt){lg->ms_loss, lg->ms_lossn};
	it->step = ms_to_s(ms, it->stepbuf, sizeof it->stepbuf);
	return 1;
}

/* PyTorch examples: "Epoch: [0][ 0/53]\tTime 12.054 (12.054)\tData … \tLoss 6.9828e+00 (…)" */
static int detect_pytorch(const char *s)
{
	const char *p = strstr(s, "Epoch: [");
	return p && strstr(p, "Time ");
}

static int parse_pytorch(struct log *lg, char *s, struct it *it)
{
	const char *p = strstr(s, "Epoch: [");

	if (!p || !strstr(p, "Time"))
		return 0;
	p += 8;
	p = skipb(p);
	it->epoch = (long)getint(lg, &p, "epoch", "]");
	expect(lg, &p, "]", "Epoch");
	expect(lg, &p, "[", "Epoch");
	it->iter = getint(lg, &p, "batch index", "/") + 1;
	expect(lg, &p, "/", "Epoch");
	getint(lg, &p, "batch count", "]");
	expect(lg, &p, "]", "Epoch");
	const char *q = label(p, "Time");
	it->step = getnum(lg, &q, "Time", NULL, POSITIVE);
	if ((q = label(p, "Loss")) != NULL)
		it->loss = getloss(lg, &q, "Loss", NULL);
	return 1;
}

/* In the order of detection (spec §2.13, bench first). */
static const struct parser parsers[] = {
	{"bench", detect_bench, parse_bench, config_bench, NUM_GLOBAL, DERIVE_NONE, 0, 0},
	{"oneflow", detect_oneflow, parse_oneflow, config_oneflow, NUM_FIRST, DERIVE_NONE, 0, 0},
	{"oneflow-bert", detect_bert, parse_bert, config_oneflow, NUM_GLOBAL, DERIVE_NONE, 0, 0},
	{"oneflow-insightface", detect_insightface, parse_insightface, NULL, NUM_GLOBAL,
	 DERIVE_NONE, 0, 0},
	{"ngc-pytorch", detect_ngc_pytorch, parse_ngc_pytorch, NULL, NUM_EPOCHS, DERIVE_NONE, 0, 0},
	{"ngc-tensorflow", detect_ngc_tf, parse_ngc_tf, NULL, NUM_GLOBAL, DERIVE_NONE, 0, 0},
	{"tensorflow", detect_tf2, parse_tf2, NULL, NUM_GLOBAL, DERIVE_NONE, 0, 0},
	{"paddle", detect_paddle, parse_paddle, NULL, NUM_EPOCHS, DERIVE_NONE, 0, 0},
	{"plsc", detect_plsc, parse_plsc, NULL, NUM_FIRST, DERIVE_INTERVAL, 0, 1},
	{"ngc-mxnet", detect_ngc_mxnet, parse_ngc_mxnet, NULL, NUM_EPOCHS, DERIVE_RATE, 1, 1},
	{"mxnet", detect_mxnet, parse_mxnet, NULL, NUM_EPOCHS, DERIVE_RATE, 0, 1},
	{"mindspore", detect_mindspore, parse_mindspore, NULL, NUM_GLOBAL, DERIVE_NONE, 1, 0},
	{"pytorch", detect_pytorch, parse_pytorch, NULL, NUM_EPOCHS, DERIVE_NONE, 1, 0},
};

#define NPARSERS (sizeof parsers / sizeof *parsers)

static const struct parser *parser_find(const char *name)
{
	for (size_t i = 0; i < NPARSERS; i++)
		if (strcmp(parsers[i].name, name) == 0)
			return &parsers[i];
	return NULL;
}

static const struct parser *detect(const char *s)
{
	for (size_t i = 0; i < NPARSERS; i++)
		if (parsers[i].detect(s))
			return &parsers[i];
	return NULL;
}

/* ---- records ----------------------------------------------------------- */

static void make_prefix(struct log *lg)
{
	if (!lg->have_key)
		record_die(&lg->in,
			   "no configuration before the first iteration line; give -k key");
	const char *fw = opt_framework   ? opt_framework
			 : lg->framework ? lg->framework
					 : format_find(lg->ps->name)->framework;
	char key[KEY_MAX];
	key_format(&lg->key, key, sizeof key);
	int n = snprintf(lg->prefix, sizeof lg->prefix, "%s\t%s\t%s\t%ld\t", fw, lg->ps->name, key,
			 lg->run);
	if (n < 0 || (size_t)n >= sizeof lg->prefix)
		die("%s: framework name too long", lg->in.name);
	lg->plen = (size_t)n;
	lg->tb = (double)key_total_batch(&lg->key);
	lg->ready = 1;
}

static void emit(struct log *lg, long long iter, struct txt itxt, struct txt ts, struct txt step,
		 struct txt rate, struct txt loss)
{
	char num[24];

	oput(lg->prefix, lg->plen);
	if (itxt.p)
		oput(itxt.p, itxt.n);
	else
		oput(num, fmt_ll(num, iter));
	oc('\t');
	otxt(ts);
	oc('\t');
	otxt(step);
	oc('\t');
	otxt(rate);
	oc('\t');
	otxt(loss);
	oc('\n');
}

/* step_s derived from the rate (spec §2.6–2.8): TB × iterations ÷ rate. */
static struct txt derived_step(struct log *lg, long long iters, double rate, char *buf, size_t size)
{
	fmt_shortest(buf, size, lg->tb * (double)iters / rate);
	return (struct txt){buf, strlen(buf)};
}

static size_t arena_put(struct log *lg, struct txt t, size_t *n)
{
	if (!t.p) {
		*n = 0;
		return NONE;
	}
	if (lg->alen + t.n > lg->acap) {
		lg->acap = (lg->alen + t.n) * 2 + 4096;
		if (!(lg->arena = realloc(lg->arena, lg->acap)))
			die("out of memory");
	}
	memcpy(lg->arena + lg->alen, t.p, t.n);
	lg->alen += t.n;
	*n = t.n;
	return lg->alen - t.n;
}

static double txt_num(struct txt t)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.*s", (int)(t.n < 63 ? t.n : 63), t.p);
	return strtod(buf, NULL);
}

static void keep(struct log *lg, const struct it *it)
{
	if (lg->ng == lg->gcap) {
		lg->gcap = lg->gcap ? 2 * lg->gcap : 1024;
		if (!(lg->g = realloc(lg->g, lg->gcap * sizeof *lg->g)))
			die("out of memory");
	}
	struct grec *r = &lg->g[lg->ng];
	r->iter = it->iter;
	r->epoch = it->epoch;
	r->order = (long)lg->ng;
	r->ts = arena_put(lg, it->ts, &r->tsn);
	r->step = arena_put(lg, it->step, &r->stepn);
	r->rate = arena_put(lg, it->rate, &r->raten);
	r->loss = arena_put(lg, it->loss, &r->lossn);
	r->ts_ns = it->ts_ns;
	r->stepv = it->step.p ? txt_num(it->step) : NAN;
	r->ratev = it->rate.p ? txt_num(it->rate) : NAN;
	lg->ng++;
}

/* One iteration line: number it, then write it or keep it for grouping. */
static void add(struct log *lg, struct it *it)
{
	const struct parser *ps = lg->ps;

	if (!lg->ready)
		make_prefix(lg);
	if (dlperf) {
		if (ps->dlperf_epoch0 && it->epoch != 0)
			return;
	} else if (ps->numbering == NUM_FIRST && it->epoch != 0) {
		record_die(&lg->in,
			   "epoch %ld: iterations of later epochs cannot be numbered "
			   "(this format restarts them and prints only every few)",
			   it->epoch);
	} else if (ps->numbering == NUM_EPOCHS && !ps->grouped) {
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
	if (ps->grouped && !dlperf) {
		keep(lg, it);
		return;
	}
	if (ps->derive != DERIVE_NONE && !it->step.p) {
		long long n = ps->derive == DERIVE_RATE ? 1 : it->iter - lg->prev_iter;
		if (n < 1)
			record_die(&lg->in, "iteration %lld after %lld", it->iter, lg->prev_iter);
		it->step = derived_step(lg, n, txt_num(it->rate), it->stepbuf, sizeof it->stepbuf);
	}
	lg->prev_iter = it->iter;
	emit(lg, it->iter, it->itxt, it->ts, it->step, it->rate, it->loss);
}

static int grec_cmp(const void *a, const void *b)
{
	const struct grec *x = a, *y = b;

	if (x->iter != y->iter)
		return x->iter < y->iter ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static struct txt arena_txt(struct log *lg, size_t off, size_t n)
{
	return off == NONE ? (struct txt){NULL, 0} : (struct txt){lg->arena + off, n};
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

/* Several ranks: one record per iteration (spec §1.4), sorted by iteration. */
static void flush_groups(struct log *lg)
{
	const struct parser *ps = lg->ps;
	struct grec *g = lg->g;
	size_t n = lg->ng;

	if (n == 0)
		return;
	if (ps->numbering == NUM_EPOCHS) {
		long maxe = 0;
		for (size_t i = 0; i < n; i++)
			if (g[i].epoch > maxe)
				maxe = g[i].epoch;
		if ((size_t)maxe >= n)
			die("%s: epoch %ld: earlier epochs have no iteration lines", lg->in.name,
			    maxe);
		long long *len = calloc((size_t)maxe + 1, sizeof *len);
		if (!len)
			die("out of memory");
		for (size_t i = 0; i < n; i++)
			if (g[i].iter > len[g[i].epoch])
				len[g[i].epoch] = g[i].iter;
		for (long e = 0; e <= maxe; e++)
			if (len[e] == 0)
				die("%s: epoch %ld has no iteration lines, later epochs cannot be "
				    "numbered",
				    lg->in.name, e);
		for (long e = 1; e <= maxe; e++)
			len[e] += len[e - 1];
		for (size_t i = 0; i < n; i++)
			if (g[i].epoch > 0)
				g[i].iter += len[g[i].epoch - 1];
		free(len);
	}
	qsort(g, n, sizeof *g, grec_cmp);
	double *vals = malloc((n ? n : 1) * sizeof *vals);
	if (!vals)
		die("out of memory");
	for (size_t i = 0, j; i < n; i = j) {
		char sbuf[48], rbuf[48];
		double rate = NAN, step = NAN;
		size_t latest = i;
		for (j = i; j < n && g[j].iter == g[i].iter; j++)
			if (g[j].ts != NONE && g[j].ts_ns > g[latest].ts_ns)
				latest = j;
		struct txt st = group_value(lg, g + i, j - i, 0, vals, sbuf, sizeof sbuf, &step);
		struct txt rt = group_value(lg, g + i, j - i, 1, vals, rbuf, sizeof rbuf, &rate);
		if (ps->derive == DERIVE_RATE && !st.p && rt.p)
			st = derived_step(lg, 1, rate, sbuf, sizeof sbuf);
		emit(lg, g[i].iter, (struct txt){NULL, 0},
		     arena_txt(lg, g[latest].ts, g[latest].tsn), st, rt,
		     arena_txt(lg, g[i].loss, g[i].lossn));
	}
	free(vals);
}

/* ---- one log ----------------------------------------------------------- */

/* Before the format is known: keep the lines some format reads as its
 * configuration (bench's header, OneFlow's three values). */
static void pend(struct log *lg, const char *s)
{
	if (strncmp(s, "# bench", 7) != 0 && strncmp(s, "num_nodes", 9) != 0 &&
	    strncmp(s, "gpu_num_per_node", 16) != 0 && strncmp(s, "batch_size_per_device", 21) != 0)
		return;
	if (lg->npending == PENDING_MAX)
		record_die(&lg->in,
			   "more than %d configuration lines before the first iteration line",
			   PENDING_MAX);
	lg->pending[lg->npending].lineno = lg->in.lineno;
	if (!(lg->pending[lg->npending].text = strdup(s)))
		die("out of memory");
	lg->npending++;
}

static void replay(struct log *lg)
{
	long lineno = lg->in.lineno;

	for (int i = 0; i < lg->npending; i++) {
		lg->in.lineno = lg->pending[i].lineno;
		if (lg->ps->config)
			lg->ps->config(lg, lg->pending[i].text);
		free(lg->pending[i].text);
	}
	lg->npending = 0;
	lg->in.lineno = lineno;
}

/* Lines are read in large blocks and split in place: a log of a gigabyte
 * is one memchr per line, not one getline call. */
#define CHUNK (1 << 20)

static char *rbuf;
static size_t rcap, rlen, rpos;
static int reof;

/* The next line of in, '\n' (and a '\r' before it) removed; NULL at the end. */
static char *next_line(struct input *in)
{
	if (!rbuf && !(rbuf = malloc(rcap = CHUNK + 1)))
		die("out of memory");
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
		if (rlen + CHUNK + 1 > rcap) {
			rcap = rlen + CHUNK + 1 > 2 * rcap ? rlen + CHUNK + 1 : 2 * rcap;
			if (!(rbuf = realloc(rbuf, rcap)))
				die("out of memory");
		}
		size_t n = fread(rbuf + rlen, 1, CHUNK, in->fp);
		if (n == 0) {
			if (ferror(in->fp))
				die("%s: read error:", in->name);
			reof = 1;
		}
		rlen += n;
		rbuf[rlen] = '\0';
	}
}

static void grep_log(const char *path)
{
	static struct log lg;
	struct it it;

	free(lg.g);
	free(lg.arena);
	memset(&lg, 0, sizeof lg);
	path_config(&lg, path);
	input_open(&lg.in, path);
	lg.ps = opt_parser;
	rlen = rpos = 0;
	reof = 0;
	for (char *s; (s = next_line(&lg.in)) != NULL;) {
		if (!lg.ps) {
			if (*skipb(s) == '\0')
				continue;
			lg.nonempty = 1;
			if (!(lg.ps = detect(s))) {
				pend(&lg, s);
				continue;
			}
			replay(&lg);
		}
		if (lg.ps->config && lg.ps->config(&lg, s))
			continue;
		if (*s && !lg.nonempty && *skipb(s))
			lg.nonempty = 1;
		it.epoch = 0;
		it.itxt.p = it.ts.p = it.step.p = it.rate.p = it.loss.p = NULL;
		it.ts_ns = 0;
		if (lg.ps->parse(&lg, s, &it))
			add(&lg, &it);
	}
	if (lg.ps && lg.ps->grouped && !dlperf)
		flush_groups(&lg);
	if (lg.nrec == 0) {
		if (!lg.nonempty)
			die("%s: empty log", lg.in.name);
		if (!lg.ps)
			die("%s: unknown format (no iteration line of any known format)",
			    lg.in.name);
		die("%s: no iteration lines of format %s", lg.in.name, lg.ps->name);
	}
	for (int i = 0; i < lg.npending; i++)
		free(lg.pending[i].text);
	free((char *)lg.framework);
	input_close(&lg.in);
}

/* ---- command line ------------------------------------------------------ */

static void opt_alias(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (naliases == ALIAS_MAX)
		die_usage("-a: more than %d aliases", ALIAS_MAX);
	if (!eq || eq == arg || strcspn(arg, "_/\t") < (size_t)(eq - arg) || !prec_valid(eq + 1))
		die_usage("-a: '%s' is not from=to with to one of %s", arg, precisions_text);
	char *from = strndup(arg, (size_t)(eq - arg));
	if (!from)
		die("out of memory");
	aliases[naliases].from = from;
	aliases[naliases].to = eq + 1;
	naliases++;
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
			if (!(opt_parser = parser_find(optarg)))
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
			opt_alias(optarg);
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
	for (int i = 0; i < (argc ? argc : 1); i++)
		grep_log(argc ? argv[i] : "-");
	oflush();
	finish_output();
	return 0;
}
