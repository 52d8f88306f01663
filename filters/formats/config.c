/*
 * config.c — where a log's configuration comes from: its path (ours,
 * …/<framework>/<key>/<run>.log, or DLPerf's,
 * …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log, read strictly), -k, and the
 * precision aliases of -a; and the checked numbers and precisions that the
 * formats' own configuration lines (bench's header, OneFlow's values) read.
 */
#include "formats.h"

#include <stdlib.h>
#include <string.h>

const char precisions_text[] = "fp32, tf32, amp, bf16 or fp16";

#define ALIAS_MAX 8
static struct {
	const char *from, *to;
} aliases[ALIAS_MAX];
static int naliases;

void alias_add(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (naliases == ALIAS_MAX)
		die_usage("-a: more than %d aliases", ALIAS_MAX);
	if (!eq || eq == arg || strcspn(arg, "_/\t") < (size_t)(eq - arg) || !prec_valid(eq + 1))
		die_usage("-a: '%s' is not from=to with to one of %s", arg, precisions_text);
	char *from = xstrdup(arg);
	from[eq - arg] = '\0';
	aliases[naliases].from = from;
	aliases[naliases].to = eq + 1;
	naliases++;
}

int take_pos(const char **sp, char stop, long *out)
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

int take_pos_n(const char *s, size_t n, long *out)
{
	char buf[32];
	const char *p = buf;

	snprintf(buf, sizeof buf, "%.*s", (int)(n < 31 ? n : 31), s);
	return n > 30 || take_pos(&p, '\0', out) ? -1 : 0;
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

int set_prec(struct key *k, const char *prec, size_t n)
{
	for (int i = 0; i < naliases; i++)
		if (strlen(aliases[i].from) == n && strncmp(aliases[i].from, prec, n) == 0) {
			prec = aliases[i].to;
			n = strlen(prec);
			break;
		}
	if (n == 0 || n >= sizeof k->prec)
		return -1;
	memcpy(k->prec, prec, n);
	k->prec[n] = '\0';
	return prec_valid(k->prec) ? 0 : -1;
}

int key_shape(const char *s, struct key *k, const char **prec)
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

/* DLPerf's file name <model>_b<B>_<prec>_<run>.log in a <N>n<G>g directory. */
static void dlperf_name(const char *path, char *base, size_t bn, struct key *k, long *run)
{
	char *f[4];
	int nf = 1;

	if (bn <= 4 || strcmp(base + bn - 4, ".log") != 0)
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
	if (!*f[0])
		die("%s: empty model name", path);
	if (*b++ != 'b' || take_pos(&b, '\0', &k->batch))
		die("%s: batch '%s' is not b<B> with B a positive integer", path, f[1]);
	if (set_prec(k, f[2], strlen(f[2])))
		die("%s: precision '%s' is not %s", path, f[2], precisions_text);
	if (take_run(f[3], strlen(f[3]), run))
		die("%s: run '%s' is not a non-negative integer", path, f[3]);
}

void path_config(struct scan *sc, const char *path, const struct key *opt_key, long *run,
		 char **framework)
{
	*framework = NULL;
	*run = 1;
	if (strcmp(path, "-") == 0) {
		if (opt_key) {
			sc->key = *opt_key;
			sc->have_key = 1;
			sc->keysrc = "-k";
		}
		return;
	}
	char *copy = xstrdup(path), *base = strrchr(copy, '/'), *dir = NULL, *fw = NULL;
	if (base) {
		*base++ = '\0';
		if ((dir = strrchr(copy, '/')) != NULL) {
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
	int ks = dir ? key_shape(dir, &k, &prec) : KS_NOT, from_path = 1;

	if (ks != KS_NOT) {
		/* ours: …/<framework>/<key>/<run>.log */
		if (ks == KS_BATCH)
			die("%s: directory '%s': batch is not b<B> with B a positive integer", path,
			    dir);
		if (ks == KS_PREC)
			die("%s: precision '%s' is not %s", path, prec, precisions_text);
		if (!dotlog || take_run(base, bn - 4, run))
			die("%s: file name '%s' is not <run>.log", path, base);
		if (fw && *fw && strcmp(fw, ".") != 0 && strcmp(fw, "..") != 0)
			*framework = xstrdup(fw);
	} else if (dir && case_parse(dir, &k.nodes, &k.gpus) == 0) {
		/* DLPerf: …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log */
		dlperf_name(path, base, bn, &k, run);
	} else if (opt_key) {
		from_path = 0;
		if (!dotlog || take_run(base, bn - 4, run))
			*run = 1;
	} else if (dir) {
		die("%s: directory '%s' is neither <N>n<G>g nor <N>n<G>g_b<B>_<prec>; give -k key",
		    path, dir);
	} else {
		die("%s: no directory <N>n<G>g or <N>n<G>g_b<B>_<prec> in the path; give -k key",
		    path);
	}
	if (from_path) {
		sc->key = k;
		sc->have_key = 1;
		sc->keysrc = "the path";
	}
	free(copy);
	if (opt_key) {
		if (sc->have_key &&
		    (k.nodes != opt_key->nodes || k.gpus != opt_key->gpus ||
		     k.batch != opt_key->batch || strcmp(k.prec, opt_key->prec) != 0)) {
			char a[KEY_MAX], b[KEY_MAX];
			key_format(&sc->key, a, sizeof a);
			key_format(opt_key, b, sizeof b);
			die("%s: the path says %s, -k says %s", path, a, b);
		}
		sc->key = *opt_key;
		sc->have_key = 1;
		if (!sc->keysrc)
			sc->keysrc = "-k";
	}
}
