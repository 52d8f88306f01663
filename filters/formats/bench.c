/*
 * bench.c — the log format of bench, dlbench's own trainer.
 *
 *   # bench model=resnet50 … nodes=1 gpus_per_node=2 batch_per_device=16 precision=fp32
 *   iter=1 loss=6.9310 step_s=0.4821 samples_per_s=66.37 ts=1763781234.123456
 *
 * One line per iteration, numbered from the start; the header states the
 * whole key, which must agree with the path or -k. Lines may carry a
 * launcher's prefix ("[1,0]<stdout>:") and the keys may come in any order;
 * bench's own layout is read by a fast path. DLPerf never ran bench: it is
 * measured our way in DLPerf's mode too.
 */
#include "alias.h"
#include "formats.h"
#include "scan.h"

#include <string.h>

/* Where "iter=" starts: at the start or after a blank or a prefix's end. */
static const char *bench_start(const char *s)
{
	if (s[0] == 'i' && s[1] == 't' && s[2] == 'e' && s[3] == 'r' && s[4] == '=')
		return s;
	for (const char *p = s; (p = strstr(p, "iter=")) != NULL; p++)
		if (blank(p[-1]) || p[-1] == ':' || p[-1] == ']' || p[-1] == '>')
			return p;
	return NULL;
}

static const char *detect(const char *s)
{
	const char *p = s[0] != '#' ? bench_start(s) : NULL;

	return p && (strstr(s, " step_s=") || strstr(s, " samples_per_s=")) ? p : NULL;
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
 * also names what is wrong. The separators are compared with strncmp,
 * which stops at the line's end: memcmp read past a short last line at the
 * end of grep-iters' buffer (found by the fuzz target). */
static int fast(const char *s, struct it *it)
{
	const char *p = s + 5, *q;
	long long iter = 0;
	int nz;

	if (*p < '1' || *p > '9')
		return 0;
	for (q = p; digit(*q) && q - p < 15; q++)
		iter = iter * 10 + (*q - '0');
	if (strncmp(q, " loss=", 6) != 0)
		return 0;
	it->iter = iter;
	it->itxt = (struct txt){p, (size_t)(q - p)};
	p = q + 6;
	q = plain(*p == '-' ? p + 1 : p, &nz);
	if (!q || strncmp(q, " step_s=", 8) != 0)
		return 0;
	it->loss = (struct txt){p, (size_t)(q - p)};
	p = q + 8;
	if (!(q = plain(p, &nz)) || !nz || strncmp(q, " samples_per_s=", 15) != 0)
		return 0;
	it->step = (struct txt){p, (size_t)(q - p)};
	p = q + 15;
	if (!(q = plain(p, &nz)) || !nz || strncmp(q, " ts=", 4) != 0)
		return 0;
	it->rate = (struct txt){p, (size_t)(q - p)};
	p = q + 4;
	if (!(q = plain(p, &nz)) || *q != '\0' || q - s > NUM_PLAIN_MAX)
		return 0; /* a longer line's numbers need their range checked */
	it->ts = (struct txt){p, (size_t)(q - p)};
	return 1;
}

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	if (at == s && fast(s, it))
		return 1;
	it->itxt.p = it->ts.p = it->step.p = it->rate.p = it->loss.p = NULL;
	for (const char *p = at; *p; p = skipb(p)) {
		const char *k = p, *v;
		while (*p && *p != '=' && !blank(*p))
			p++;
		if (*p != '=')
			continue;
		size_t kn = (size_t)(p - k);
		v = ++p;
		if (kn == 4 && memcmp(k, "iter", 4) == 0) {
			it->iter = getint(sc, &p, "iter", NULL);
			if (*v != '0')
				it->itxt = (struct txt){v, (size_t)(p - v)};
			if (it->iter < 1)
				record_die(sc->in, "iter '0' is not positive");
		} else if (kn == 4 && memcmp(k, "loss", 4) == 0) {
			it->loss = getloss(sc, &p, "loss", NULL);
		} else if (kn == 2 && memcmp(k, "ts", 2) == 0) {
			it->ts = getnum(sc, &p, "ts", NULL, NONNEG);
		} else if (kn == 6 && memcmp(k, "step_s", 6) == 0) {
			it->step = getnum(sc, &p, "step_s", NULL, POSITIVE);
		} else if (kn == 13 && memcmp(k, "samples_per_s", 13) == 0) {
			it->rate = getnum(sc, &p, "samples_per_s", NULL, POSITIVE);
		}
		if (p == v)
			while (*p && !blank(*p))
				p++;
	}
	return 1;
}

/* "# bench key=value …": states the whole key. Other '#' lines are
 * comments, taken as configuration so that no parser sees them. */
static void header(struct scan *sc, const char *s)
{
	static const char *const names[] = {"nodes", "gpus_per_node", "batch_per_device",
					    "precision"};
	struct txt v[4] = {{0}};
	struct key k;
	long *nums[3] = {&k.nodes, &k.gpus, &k.batch};

	for (const char *p = skipb(s + 7); *p; p = skipb(p)) {
		const char *t = p;
		while (*p && !blank(*p))
			p++;
		const char *eq = memchr(t, '=', (size_t)(p - t));
		for (int i = 0; eq && i < 4; i++)
			if ((size_t)(eq - t) == strlen(names[i]) &&
			    strncmp(t, names[i], (size_t)(eq - t)) == 0)
				v[i] = (struct txt){eq + 1, (size_t)(p - eq - 1)};
	}
	for (int i = 0; i < 3; i++) {
		enum key_status r = v[i].p ? key_part(v[i].p, v[i].n, nums[i]) : KEY_OK;
		if (r != KEY_OK)
			record_die(sc->in, "header: %s=%.*s %s", names[i], (int)v[i].n, v[i].p,
				   key_part_why(r));
	}
	if (v[3].p && alias_prec(sc->aliases, &k, v[3].p, v[3].n))
		record_die(sc->in, "header: precision=%.*s is not %s", (int)v[3].n, v[3].p,
			   prec_list());
	for (int i = 0; i < 4 && !sc->have_key; i++)
		if (!v[i].p)
			record_die(sc->in, "header: no %s=", names[i]);
	if (!sc->have_key) {
		sc->key = k;
		sc->have_key = 1;
		sc->keysrc = "the header";
		return;
	}
	long want[3] = {sc->key.nodes, sc->key.gpus, sc->key.batch};
	for (int i = 0; i < 3; i++)
		if (v[i].p && *nums[i] != want[i])
			record_die(sc->in, "the log says %s=%ld, %s says %ld", names[i], *nums[i],
				   sc->keysrc, want[i]);
	if (v[3].p && strcmp(k.prec, sc->key.prec) != 0)
		record_die(sc->in, "the log says precision=%s, %s says %s", k.prec, sc->keysrc,
			   sc->key.prec);
}

static int config(struct scan *sc, const char *s)
{
	if (s[0] != '#')
		return 0;
	if (strncmp(s, "# bench", 7) == 0 && blank(s[7]))
		header(sc, s);
	return 1;
}

static const char *const prefixes[] = {"# bench", NULL};

const struct format bench_format = {
	.name = "bench",
	.display = "bench",
	.rank = 70,
	.detect = detect,
	.parse = parse,
	.config_prefixes = prefixes,
	.config = config,
	.numbering = NUM_GLOBAL,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
};
