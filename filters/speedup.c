/*
 * speedup — append the speedup over one node with one device.
 *
 * Reads median records (framework, key, median, mean, min, max, n) and writes
 * them back as read, in input order, each with one more column: speedup =
 * R2n(median / median of 1n1g of the same framework, batch and precision)
 * (doc/dlperf.md). The medians are taken as median printed them, already
 * R2n to two decimals, so they are not rounded again. Meta lines ('#') are
 * copied unchanged, each before the records that followed it. A
 * configuration without its 1n1g base is an error; nothing is written then.
 */
#include "lib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct meta {
	char *text;
	size_t before; /* the number of records read before it */
};

static struct medrec *recs;
static size_t nrecs, caprecs;
static struct meta *metas;
static size_t nmetas, capmetas;

static void add_meta(const struct input *in)
{
	metas = xgrow(metas, &capmetas, nmetas + 1, sizeof *metas);
	metas[nmetas++] = (struct meta){xstrdup(in->line), nrecs};
}

static void add(struct input *in)
{
	struct medrec r;

	medrec_parse(in, MEDREC_NF, &r);
	medrec_unique(in, &r, recs, nrecs);
	recs = xgrow(recs, &caprecs, nrecs + 1, sizeof *recs);
	recs[nrecs++] = r;
}

static const struct medrec *base_of(const struct medrec *c)
{
	for (size_t i = 0; i < nrecs; i++) {
		const struct medrec *b = &recs[i];
		if (b->key.nodes == 1 && b->key.gpus == 1 && b->key.batch == c->key.batch &&
		    strcmp(b->key.prec, c->key.prec) == 0 &&
		    strcmp(b->framework, c->framework) == 0)
			return b;
	}
	return NULL;
}

static void print_metas(size_t *m, size_t before)
{
	for (; *m < nmetas && metas[*m].before == before; ++*m)
		printf("%s\n", metas[*m].text);
}

int main(int argc, char *argv[])
{
	struct input in;
	size_t m = 0;

	progname = "speedup";
	usage_text = "speedup [file ...]\n"
		     "  in:  framework key median mean min max n\n"
		     "  out: framework key median mean min max n speedup";
	opterr = 0;
	if (getopt(argc, argv, "") != -1)
		usage();
	argc -= optind;
	argv += optind;

	FOREACH_INPUT(in, argc, argv)
		while (input_record(&in))
			if (in.meta)
				add_meta(&in);
			else
				add(&in);
	for (size_t i = 0; i < nrecs; i++) {
		if (base_of(&recs[i]))
			continue;
		char b[KEY_MAX];
		struct key bk = recs[i].key;
		bk.nodes = bk.gpus = 1;
		key_format(&bk, b, sizeof b);
		die("no 1n1g base for %s %s (need %s)", recs[i].framework, recs[i].keytext, b);
	}
	for (size_t i = 0; i < nrecs; i++) {
		const struct medrec *c = &recs[i];

		print_metas(&m, i);
		for (int f = 0; f < MEDREC_NF; f++)
			printf("%s\t", c->field[f]);
		printf("%.2f\n", r2n(c->median / base_of(c)->median));
	}
	print_metas(&m, nrecs);
	finish_output();
	return 0;
}
