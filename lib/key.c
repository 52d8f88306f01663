/*
 * key.c — configuration keys <N>n<G>g_b<B>_<prec> and DLPerf's case
 * directories <N>n<G>g: the one grammar of them (every program reads keys
 * here; the Makefile gets it as lib/key.mk, printed from it), printing,
 * the ladder order.
 */
#include "lib.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* N × G × B <= KEY_PART_MAX^3 must fit a long (lib.h). */
_Static_assert(LONG_MAX / KEY_PART_MAX / KEY_PART_MAX >= KEY_PART_MAX,
	       "KEY_PART_MAX^3 does not fit a long");

const char *const key_precisions[] = {"fp32", "tf32", "amp", "bf16", "fp16", NULL};

int prec_valid(const char *s)
{
	for (size_t i = 0; key_precisions[i]; i++)
		if (strcmp(s, key_precisions[i]) == 0)
			return 1;
	return 0;
}

const char *prec_list(void)
{
	static char buf[64];
	size_t n = 0;

	if (buf[0])
		return buf;
	for (size_t i = 0; key_precisions[i]; i++) {
		const char *sep = i == 0 ? "" : key_precisions[i + 1] ? ", " : " or ";
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", sep, key_precisions[i]);
	}
	return buf;
}

/* A part at s, of at most max characters: [1-9][0-9]*, its length in *len
 * (0: none). KEY_OK with its value, or KEY_RANGE when above KEY_PART_MAX. */
static enum key_status part_digits(const char *s, size_t max, size_t *len, long *out)
{
	long v = 0;
	size_t i = 0;
	int over = 0;

	*len = 0;
	if (max == 0 || *s < '1' || *s > '9')
		return KEY_NOT;
	for (; i < max && s[i] >= '0' && s[i] <= '9'; i++)
		if (!over && (v = v * 10 + (s[i] - '0')) > KEY_PART_MAX)
			over = 1; /* v <= KEY_PART_MAX before: no overflow */
	*len = i;
	if (over)
		return KEY_RANGE;
	*out = v;
	return KEY_OK;
}

enum key_status key_part(const char *s, size_t n, long *out)
{
	size_t len;
	enum key_status r = part_digits(s, n, &len, out);

	return len != n ? KEY_NOT : r;
}

const char *key_part_why(enum key_status r)
{
	static char buf[48];

	if (r != KEY_RANGE)
		return "is not a positive integer";
	snprintf(buf, sizeof buf, "is out of range 1..%d", KEY_PART_MAX);
	return buf;
}

/* The part at *sp, which must end at stop; *sp moves past the stop. The
 * first part out of range is noted in *f. KEY_NOT when there is none. */
static enum key_status take_part(const char **sp, char stop, long *out, const char *name,
				 struct key_fault *f)
{
	const char *s = *sp;
	size_t len;
	enum key_status r = part_digits(s, SIZE_MAX, &len, out);

	if (len == 0 || s[len] != stop)
		return KEY_NOT;
	*sp = s + len + 1;
	if (r == KEY_RANGE && !f->part) {
		f->part = name;
		f->at = s;
		f->n = len;
	}
	return r;
}

int prec_set(struct key *k, const char *s, size_t n)
{
	if (n >= sizeof k->prec)
		return -1;
	memcpy(k->prec, s, n);
	k->prec[n] = '\0';
	return prec_valid(k->prec) ? 0 : -1;
}

enum key_status key_read(const char *s, struct key *k, int flags, struct key_fault *f)
{
	enum key_status rn, rg, rb;

	*f = (struct key_fault){0};
	if ((rn = take_part(&s, 'n', &k->nodes, "nodes", f)) == KEY_NOT ||
	    (rg = take_part(&s, 'g', &k->gpus, "devices per node", f)) == KEY_NOT)
		return KEY_NOT;
	if ((flags & KEY_READ_CASE) && *s == '\0')
		return f->part ? KEY_RANGE : KEY_CASE;
	if (s[0] != '_' || s[1] != 'b')
		return KEY_NOT;
	s += 2;
	if ((rb = take_part(&s, '_', &k->batch, "batch", f)) == KEY_NOT)
		return f->part ? KEY_RANGE : KEY_BATCH;
	if (rn != KEY_OK || rg != KEY_OK || rb != KEY_OK)
		return KEY_RANGE;
	f->at = s;
	f->n = strlen(s);
	return prec_set(k, s, f->n) ? KEY_PREC : KEY_OK;
}

char *key_fault_text(enum key_status r, const struct key_fault *f)
{
	size_t size = f->n + 128;
	char *buf = xmalloc(size);
	int n = f->n > 20 ? 20 : (int)f->n;

	if (r == KEY_RANGE)
		snprintf(buf, size, "%s %.*s%s %s", f->part, n, f->at, f->n > 20 ? "..." : "",
			 key_part_why(KEY_RANGE));
	else if (r == KEY_PREC)
		snprintf(buf, size, "precision '%.*s' is not %s", (int)f->n, f->at, prec_list());
	else
		snprintf(buf, size, "batch is not b<B> with B a positive integer");
	return buf;
}

int key_parse(const char *s, struct key *k)
{
	struct key_fault f;

	return key_read(s, k, 0, &f) == KEY_OK ? 0 : -1;
}

void key_format(const struct key *k, char *buf, size_t size)
{
	snprintf(buf, size, "%ldn%ldg_b%ld_%s", k->nodes, k->gpus, k->batch, k->prec);
}

long key_total_batch(const struct key *k)
{
	return k->nodes * k->gpus * k->batch;
}

int key_ladder_cmp(const struct key *a, const struct key *b)
{
	long da = a->nodes * a->gpus, db = b->nodes * b->gpus;

	if (da != db)
		return da < db ? -1 : 1;
	if (a->nodes != b->nodes)
		return a->nodes < b->nodes ? -1 : 1;
	return 0;
}
