/*
 * meta.c — launch's "# env" and "# mem" lines of a log (doc/cluster.md),
 * kept while the log is read; main.c writes them after the log's records
 * with the run's framework, key and run in front.
 *
 * Reads a log line; writes it to the list when it is one of them, after
 * checking its shape: "# env node=<i> <name>=<value>" (exactly that),
 * "# mem node=<i> name=value ..." (up to three more, rank, gpu and the
 * *_mib figures whole numbers). Any other shape is an error naming file
 * and line.
 */
#include "grep-iters.h"

#include <stdlib.h>
#include <string.h>

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

/* The token [p, p + n) as name=value: the name's length, else 0. */
static size_t pair(const char *p, size_t n)
{
	size_t nl = strspn(p, NAME_CHARS);

	return nl && nl < n - 1 && p[nl] == '=' ? nl : 0;
}

static int whole(const char *v, size_t n)
{
	char buf[24];
	long x;

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, v, n);
	buf[n] = '\0';
	return parse_long(buf, 0, 1L << 50, &x) == 0;
}

int meta_keep(struct metalines *ml, const struct input *in, const char *s)
{
	int env = !strncmp(s, "# env ", 6);
	const char *what = env ? "environment" : "memory";
	int ntok = 0;

	if (!env && strncmp(s, "# mem ", 6) != 0)
		return 0;
	if (strchr(s, '\t'))
		record_die(in, "%s line: a tab", what);
	for (const char *p = s + 6; *p; ntok++) {
		size_t n = strcspn(p, " "), nl;
		if (!n || !(nl = pair(p, n)))
			record_die(in, "%s line: '%.*s' is not name=value", what, (int)n, p);
		if (ntok == 0 && (nl != 4 || strncmp(p, "node", 4) || !whole(p + 5, n - 5)))
			record_die(in, "%s line: node=<number> first, not '%.*s'", what, (int)n, p);
		int numeric = !strncmp(p, "rank=", 5) || !strncmp(p, "gpu=", 4) ||
			      (nl > 4 && !strncmp(p + nl - 4, "_mib", 4));
		if (!env && numeric && !whole(p + nl + 1, n - nl - 1))
			record_die(in, "%s line: '%.*s' is not a whole number", what, (int)n, p);
		p += n;
		if (*p == ' ' && !*++p)
			record_die(in, "%s line: a blank at the end", what);
	}
	if (env ? ntok != 2 : ntok < 2 || ntok > 4)
		record_die(in, "%s line: %d items, expected %s", what, ntok, env ? "2" : "2 to 4");
	ml->v = xgrow(ml->v, &ml->cap, ml->n + 1, sizeof *ml->v);
	ml->v[ml->n++] = xstrdup(s);
	return 1;
}

void meta_free(struct metalines *ml)
{
	for (size_t i = 0; i < ml->n; i++)
		free(ml->v[i]);
	free(ml->v);
	ml->v = NULL;
	ml->n = ml->cap = 0;
}
