/*
 * key.c — configuration keys <N>n<G>g_b<B>_<prec> and DLPerf's case
 * directories <N>n<G>g: parsing, printing, the ladder order.
 */
#include "lib.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* N × G × B <= KEY_PART_MAX^3 must fit a long (lib.h). */
_Static_assert(LONG_MAX / KEY_PART_MAX / KEY_PART_MAX >= KEY_PART_MAX,
	       "KEY_PART_MAX^3 does not fit a long");

static const char *const precisions[] = {"fp32", "tf32", "amp", "bf16", "fp16"};

int prec_valid(const char *s)
{
	for (size_t i = 0; i < sizeof precisions / sizeof *precisions; i++)
		if (strcmp(s, precisions[i]) == 0)
			return 1;
	return 0;
}

/* A positive decimal integer without sign or leading zero, at most
 * KEY_PART_MAX, ending at stop. */
static int take_pos(const char **sp, char stop, long *out)
{
	const char *s = *sp;
	long v = 0;

	if (*s < '1' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0'); /* v <= KEY_PART_MAX before: no overflow */
		if (v > KEY_PART_MAX)
			return -1;
	}
	if (*s != stop)
		return -1;
	*sp = s + (stop != '\0');
	*out = v;
	return 0;
}

int case_parse(const char *s, long *nodes, long *gpus)
{
	return take_pos(&s, 'n', nodes) || take_pos(&s, 'g', gpus) || *s != '\0' ? -1 : 0;
}

int key_parse(const char *s, struct key *k)
{
	if (take_pos(&s, 'n', &k->nodes) || take_pos(&s, 'g', &k->gpus) || *s++ != '_' ||
	    *s++ != 'b' || take_pos(&s, '_', &k->batch) || !prec_valid(s))
		return -1;
	snprintf(k->prec, sizeof k->prec, "%s", s);
	return 0;
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
