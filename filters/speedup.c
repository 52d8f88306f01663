/*
 * speedup — append the speedup over one node with one device.
 *
 * Reads median records (framework, key, median, mean, min, max, n) and writes
 * them back in input order, each with one more column: speedup =
 * R2n(median / median of 1n1g of the same framework, batch and precision),
 * both medians already R2n (spec §3.5). A configuration without its 1n1g
 * base is an error; nothing is written then.
 */
#include "lib.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct config {
	char *line; /* the record as read, fields joined by tabs again */
	char *framework;
	struct key key;
	double median;
};

static struct config *configs;
static size_t nconfigs, capconfigs;

static void add(struct input *in)
{
	struct config c;
	long n;

	record_expect(in, 7);
	if (in->f[0][0] == '\0')
		record_die(in, "empty framework");
	if (key_parse(in->f[1], &c.key) != 0)
		record_die(in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in->f[1]);
	c.median = r2n(record_num(in, 2, "median", 1));
	record_num(in, 3, "mean", 1);
	record_num(in, 4, "min", 1);
	record_num(in, 5, "max", 1);
	if (parse_long(in->f[6], 1, 1000000000, &n) != 0)
		record_die(in, "n '%s' is not a positive integer", in->f[6]);
	for (size_t i = 0; i < nconfigs; i++) {
		char k[KEY_MAX];

		key_format(&configs[i].key, k, sizeof k);
		if (strcmp(configs[i].framework, in->f[0]) == 0 && strcmp(k, in->f[1]) == 0)
			record_die(in, "duplicate configuration %s %s", in->f[0], in->f[1]);
	}
	c.framework = strdup(in->f[0]);
	for (int i = 1; i < in->nf; i++)
		in->f[i][-1] = '\t';
	c.line = strdup(in->line);
	if (!c.line || !c.framework)
		die("out of memory");
	if (nconfigs == capconfigs) {
		capconfigs = capconfigs ? 2 * capconfigs : 16;
		configs = realloc(configs, capconfigs * sizeof *configs);
		if (!configs)
			die("out of memory");
	}
	configs[nconfigs++] = c;
}

static const struct config *base_of(const struct config *c)
{
	for (size_t i = 0; i < nconfigs; i++) {
		const struct config *b = &configs[i];
		if (b->key.nodes == 1 && b->key.gpus == 1 && b->key.batch == c->key.batch &&
		    strcmp(b->key.prec, c->key.prec) == 0 &&
		    strcmp(b->framework, c->framework) == 0)
			return b;
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	struct input in;

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
			add(&in);
	for (size_t i = 0; i < nconfigs; i++) {
		if (base_of(&configs[i]))
			continue;
		char k[KEY_MAX], b[KEY_MAX];
		struct key bk = configs[i].key;
		key_format(&bk, k, sizeof k);
		bk.nodes = bk.gpus = 1;
		key_format(&bk, b, sizeof b);
		die("no 1n1g base for %s %s (need %s)", configs[i].framework, k, b);
	}
	for (size_t i = 0; i < nconfigs; i++) {
		const struct config *c = &configs[i];
		printf("%s\t%.2f\n", c->line, r2n(c->median / base_of(c)->median));
	}
	finish_output();
	return 0;
}
