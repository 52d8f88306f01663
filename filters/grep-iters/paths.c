/*
 * paths.c — where a log's configuration comes from when the log does not
 * say it: its path (ours, …/<framework>/<key>/<run>.log, DLPerf's,
 * …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log, or the train.sh layout of
 * DLPerf's first PyTorch reports, …/<model>_<N>node_bz<B>/<N>n<G>c_real.log;
 * each read strictly) or -k.
 */
#include "../formats/alias.h"
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

/* key_read, the precision through -a's aliases. */
static enum key_status key_read_aliased(const struct aliases *al, const char *s, struct key *k,
					int flags, struct key_fault *f)
{
	enum key_status ks = key_read(s, k, flags, f);

	if (ks == KEY_OK || ks == KEY_PREC)
		ks = alias_prec(al, k, f->at, f->n) ? KEY_PREC : KEY_OK;
	return ks;
}

/* DLPerf's file name <model>_b<B>_<prec>_<run>.log in a <N>n<G>g directory. */
static void dlperf_name(const struct aliases *al, const char *path, char *base, size_t bn,
			struct key *k, long *run)
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
	if (!*f[0])
		die("%s: empty model name", path);
	enum key_status r =
		f[1][0] != 'b' ? KEY_NOT : key_part(f[1] + 1, strlen(f[1] + 1), &k->batch);
	if (r == KEY_RANGE)
		die("%s: batch '%s' %s", path, f[1], key_part_why(r));
	if (r != KEY_OK)
		die("%s: batch '%s' is not b<B> with B a positive integer", path, f[1]);
	if (alias_prec(al, k, f[2], strlen(f[2])))
		die("%s: precision '%s' is not %s", path, f[2], prec_list());
	if (take_run(f[3], strlen(f[3]), run))
		die("%s: run '%s' is not a non-negative integer", path, f[3]);
}

/* The count filling s[0, n) of a path, named what; dies when it is none. */
static long path_count(const char *path, const char *what, const char *s, size_t n)
{
	long v;
	enum key_status r = key_part(s, n, &v);

	if (r != KEY_OK)
		die("%s: %s '%.*s' %s", path, what, (int)n, s, key_part_why(r));
	return v;
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (digit(s[n]))
		n++;
	return n;
}

/* The layout of train.sh and distributed_train.sh in DLPerf's first PyTorch
 * reports: <model>_<N>node_bz<B>/<N>n<G>c_real.log, one log a configuration
 * (run 1; the script overwrites it), fp32 (pytorch/examples trains in fp32
 * only). 0 when dir is not <model>_<N>node_bz<B>; dies when the file name is
 * not <N>n<G>c_real.log or says other nodes. */
static int trainsh_name(const struct aliases *al, const char *path, const char *dir,
			const char *base, struct key *k)
{
	const char *bz = strrchr(dir, '_'), *nd, *ns;
	size_t nb, a, g;

	if (!bz || strncmp(bz + 1, "bz", 2) != 0 || !(nb = digits(bz + 3)) || bz[3 + nb])
		return 0;
	if (bz - dir < 5 || strncmp(bz - 4, "node", 4) != 0)
		return 0;
	for (ns = nd = bz - 4; ns > dir && digit(ns[-1]); ns--)
		;
	if (ns == nd || ns - dir < 2 || ns[-1] != '_')
		return 0;
	k->nodes = path_count(path, "nodes", ns, (size_t)(nd - ns));
	k->batch = path_count(path, "batch", bz + 3, nb);
	if (!(a = digits(base)) || base[a] != 'n' || !(g = digits(base + a + 1)) ||
	    strcmp(base + a + 1 + g, "c_real.log") != 0)
		die("%s: file name '%s' is not <N>n<G>c_real.log (the layout of '%s')", path, base,
		    dir);
	long n = path_count(path, "nodes", base, a);
	if (n != k->nodes)
		die("%s: the directory says %ld node%s, the file name %ld", path, k->nodes,
		    k->nodes == 1 ? "" : "s", n);
	k->gpus = path_count(path, "devices per node", base + a + 1, g);
	if (alias_prec(al, k, "fp32", 4))
		die("%s: precision 'fp32' is not %s", path, prec_list());
	return 1;
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
	struct key_fault kf;
	enum key_status ks =
		dir ? key_read_aliased(sc->aliases, dir, &k, KEY_READ_CASE, &kf) : KEY_NOT;
	int from_path = 1;

	if (ks == KEY_RANGE || ks == KEY_BATCH)
		die("%s: directory '%s': %s", path, dir, key_fault_text(ks, &kf));
	if (ks == KEY_PREC)
		die("%s: %s", path, key_fault_text(ks, &kf));
	if (ks == KEY_CASE) {
		/* DLPerf: …/<N>n<G>g/<model>_b<B>_<prec>_<run>.log */
		dlperf_name(sc->aliases, path, base, bn, &k, run);
	} else if (ks == KEY_OK) {
		/* ours: …/<framework>/<key>/<run>.log */
		if (!dotlog || take_run(base, bn - 4, run))
			die("%s: file name '%s' is not <run>.log", path, base);
		if (fw && *fw && strcmp(fw, ".") != 0 && strcmp(fw, "..") != 0)
			*framework = xstrdup(fw);
	} else if (dir && trainsh_name(sc->aliases, path, dir, base, &k)) {
		*run = 1;
	} else if (opt_key) {
		from_path = 0;
		if (!dotlog || take_run(base, bn - 4, run))
			*run = 1;
	} else if (dir) {
		die("%s: directory '%s' is none of <N>n<G>g, <N>n<G>g_b<B>_<prec>, "
		    "<model>_<N>node_bz<B>; give -k key",
		    path, dir);
	} else {
		die("%s: no directory <N>n<G>g, <N>n<G>g_b<B>_<prec> or <model>_<N>node_bz<B> in "
		    "the path; give -k key",
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

void opt_key_read(const struct aliases *al, const char *arg, struct key *k)
{
	struct key_fault kf;
	enum key_status ks = key_read_aliased(al, arg, k, 0, &kf);

	if (ks == KEY_PREC || ks == KEY_RANGE)
		die_usage("-k: %s", key_fault_text(ks, &kf));
	if (ks != KEY_OK)
		die_usage("-k: '%s' is not a key <N>n<G>g_b<B>_<prec>", arg);
}
