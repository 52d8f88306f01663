/*
 * published.c — a published table (data/dlperf/<table>.tsv: framework, key,
 * samples_per_s, speedup or "-"; lines starting with '#' skipped), read and
 * checked once for table and plot; the duplicates found in a hash table.
 */
#include "lib.h"

#include <stdlib.h>
#include <string.h>

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
		record_expect(&in, 4);
		if (key_parse(in.f[1], &p.key) != 0)
			record_die(&in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in.f[1]);
		key_format(&p.key, p.keytext, sizeof p.keytext);
		p.speed = record_num(&in, 2, "samples_per_s", 1);
		if (!(r2p(p.speed, 2) > 0))
			record_die(&in, "samples_per_s '%s' rounds to 0.00", in.f[2]);
		p.speedup = strcmp(in.f[3], "-") == 0 ? 0 : record_num(&in, 3, "speedup", 1);
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
