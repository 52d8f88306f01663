/*
 * medrec.c — the median record that median writes and speedup and table
 * read (framework, key, median, mean, min, max, n, tab-separated): one
 * reader that validates it, with errors naming file and line.
 */
#include "lib.h"

#include <string.h>

void medrec_parse(struct input *in, int nf, struct medrec *r)
{
	size_t len = 0;
	char *p;

	record_expect(in, nf);
	if (in->f[0][0] == '\0')
		record_die(in, "empty framework");
	if (key_parse(in->f[1], &r->key) != 0)
		record_die(in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in->f[1]);
	r->median = record_num(in, 2, "median", 1);
	r->mean = record_num(in, 3, "mean", 1);
	r->min = record_num(in, 4, "min", 1);
	r->max = record_num(in, 5, "max", 1);
	if (parse_long(in->f[6], 1, 1000000000, &r->n) != 0)
		record_die(in, "n '%s' is not a positive integer", in->f[6]);

	/* One allocation for the texts: a record is kept whole or not at all. */
	for (int i = 0; i < MEDREC_NF; i++)
		len += strlen(in->f[i]) + 1;
	p = xmalloc(len);
	for (int i = 0; i < MEDREC_NF; i++) {
		size_t n = strlen(in->f[i]) + 1;

		r->field[i] = memcpy(p, in->f[i], n);
		p += n;
	}
	r->framework = r->field[0];
	r->keytext = r->field[1];
}

void medrec_unique(const struct input *in, const struct medrec *r, const struct medrec *seen,
		   size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(seen[i].framework, r->framework) == 0 &&
		    strcmp(seen[i].keytext, r->keytext) == 0)
			record_die(in, "duplicate configuration %s %s", r->framework, r->keytext);
}
