/*
 * paths.c — where a log's configuration comes from when the log does not
 * say it: its path (ours, …/<framework>/<key>/<run>.log, or DLPerf's,
 * …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log, read strictly) or -k.
 */
#include "grep-iters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* <N>n<G>g at *sp, then *sp is past it: KS_NOT; KS_RANGE when a part is
 * above KEY_PART_MAX (*at: the first); else KS_OK. */
static int case_shape(const char **sp, struct key *k, const char **at)
{
	const char *n = *sp, *g;
	int rn = take_pos(sp, 'n', &k->nodes), rg;

	g = *sp;
	if (rn < 0 || (rg = take_pos(sp, 'g', &k->gpus)) < 0)
		return KS_NOT;
	if (rn > 0 || rg > 0) {
		*at = rn > 0 ? n : g;
		return KS_RANGE;
	}
	return KS_OK;
}

int key_shape(const char *s, struct key *k, const char **at)
{
	int r = case_shape(&s, k, at), rb;

	if (r == KS_NOT || s[0] != '_' || s[1] != 'b')
		return KS_NOT;
	s += 2;
	const char *b = s;
	if ((rb = take_pos(&s, '_', &k->batch)) < 0)
		return r == KS_RANGE ? KS_RANGE : KS_BATCH;
	if (rb > 0 && r == KS_OK) {
		*at = b;
		r = KS_RANGE;
	}
	if (r == KS_RANGE)
		return r;
	*at = s;
	return set_prec(k, s, strlen(s)) ? KS_PREC : KS_OK;
}

const char *key_range(const char *at)
{
	static char msg[96];
	int n = (int)strspn(at, "0123456789");
	const char *part = at[n] == 'n' ? "nodes" : at[n] == 'g' ? "devices per node" : "batch";

	snprintf(msg, sizeof msg, "%s %.*s%s %s", part, n > 20 ? 20 : n, at, n > 20 ? "..." : "",
		 take_pos_why(1));
	return msg;
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
	int r = *b++ != 'b' ? -1 : take_pos(&b, '\0', &k->batch);
	if (r > 0)
		die("%s: batch '%s' %s", path, f[1], take_pos_why(r));
	if (r < 0)
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
	const char *at = NULL, *d = dir;
	int ks = dir ? key_shape(dir, &k, &at) : KS_NOT, from_path = 1;

	if (ks == KS_NOT && dir) {
		int cs = case_shape(&d, &k, &at);
		if (cs != KS_NOT && *d == '\0')
			ks = cs == KS_OK ? KS_CASE : KS_RANGE;
	}
	if (ks == KS_RANGE)
		die("%s: directory '%s': %s", path, dir, key_range(at));
	if (ks == KS_CASE) {
		/* DLPerf: …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log */
		dlperf_name(path, base, bn, &k, run);
	} else if (ks != KS_NOT) {
		/* ours: …/<framework>/<key>/<run>.log */
		if (ks == KS_BATCH)
			die("%s: directory '%s': batch is not b<B> with B a positive integer", path,
			    dir);
		if (ks == KS_PREC)
			die("%s: precision '%s' is not %s", path, at, precisions_text);
		if (!dotlog || take_run(base, bn - 4, run))
			die("%s: file name '%s' is not <run>.log", path, base);
		if (fw && *fw && strcmp(fw, ".") != 0 && strcmp(fw, "..") != 0)
			*framework = xstrdup(fw);
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
