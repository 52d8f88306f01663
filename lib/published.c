/*
 * published.c — a published table (data/dlperf/<table>.tsv: framework, key,
 * samples_per_s or OOM, speedup or "-", and a memory column where the table
 * has one; lines starting with '#' skipped), read and checked once for table
 * and plot; the duplicates found in a hash table.
 */
#include "lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The digits after the point of a number's text, at most PUB_DECIMALS_MAX
 * (a figure is printed with them: no table prints more). */
#define PUB_DECIMALS_MAX 9
static int decimals_of(const char *s)
{
	const char *p = strchr(s, '.');
	int n = 0;

	if (p)
		while (n < PUB_DECIMALS_MAX && p[1 + n] >= '0' && p[1 + n] <= '9')
			n++;
	return n;
}

size_t published_read(const char *path, struct published **out, struct hash *index)
{
	struct input in;
	struct published *v = NULL, p;
	size_t n = 0, cap = 0;
	struct hash own = {0};
	struct hkey k = {0};

	if (!index)
		index = &own;

	input_open(&in, path);
	while (input_record(&in)) {
		if (in.meta)
			continue;
		if (in.nf != 4 && in.nf != 5)
			record_die(&in, "%d field%s, expected 4 or 5", in.nf,
				   in.nf == 1 ? "" : "s");
		if (key_parse(in.f[1], &p.key) != 0)
			record_die(&in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in.f[1]);
		key_format(&p.key, p.keytext, sizeof p.keytext);
		if (strcmp(in.f[2], "OOM") == 0) {
			p.speed = NAN;
			p.decimals = 0;
			if (strcmp(in.f[3], "-") != 0)
				record_die(&in, "speedup '%s' after OOM, expected -", in.f[3]);
		} else {
			p.speed = record_num(&in, 2, "samples_per_s", 1);
			if (!(r2p(p.speed, 2) > 0))
				record_die(&in, "samples_per_s '%s' rounds to 0.00", in.f[2]);
			p.decimals = decimals_of(in.f[2]);
		}
		p.speedup = strcmp(in.f[3], "-") == 0 ? 0 : record_num(&in, 3, "speedup", 1);
		p.memory = -1;
		if (in.nf == 5 && strcmp(in.f[4], "-") != 0 &&
		    parse_long(in.f[4], 1, 1L << 40, &p.memory) != 0)
			record_die(&in, "memory '%s' is not a whole number of MiB", in.f[4]);
		published_key(&k, in.f[0], p.keytext);
		if (hash_intern(index, &k, n) != n)
			record_die(&in, "duplicate configuration %s %s", in.f[0], p.keytext);
		p.framework = xstrdup(in.f[0]);
		v = xgrow(v, &cap, n + 1, sizeof *v);
		v[n++] = p;
	}
	input_close(&in);
	hash_free(&own);
	free(k.b);
	*out = v;
	return n;
}

void published_key(struct hkey *k, const char *framework, const char *keytext)
{
	hkey_start(k);
	hkey_str(k, framework);
	hkey_str(k, keytext);
}

void published_free(struct published *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].framework);
	free(p);
}
