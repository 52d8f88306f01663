/*
 * config.c — what the formats' own configuration lines (bench's header,
 * OneFlow's values) and the paths of logs both read: positive integers as
 * a key spells them, and precisions after the aliases of -a.
 */
#include "formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char precisions_text[] = "fp32, tf32, amp, bf16 or fp16";

#define ALIAS_MAX 8
static struct {
	const char *from, *to;
} aliases[ALIAS_MAX];
static int naliases;

void alias_reset(void)
{
	naliases = 0;
}

void alias_add(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (naliases == ALIAS_MAX)
		die_usage("-a: more than %d aliases", ALIAS_MAX);
	if (!eq || eq == arg || strcspn(arg, "_/\t") < (size_t)(eq - arg) || !prec_valid(eq + 1))
		die_usage("-a: '%s' is not from=to with to one of %s", arg, precisions_text);
	char *from = xstrdup(arg);
	from[eq - arg] = '\0';
	aliases[naliases].from = from;
	aliases[naliases].to = eq + 1;
	naliases++;
}

int take_pos(const char **sp, char stop, long *out)
{
	const char *s = *sp;
	long v = 0;
	int over = 0;

	if (*s < '1' || *s > '9')
		return -1;
	for (; digit(*s); s++)
		if (!over && (v = v * 10 + (*s - '0')) > KEY_PART_MAX)
			over = 1; /* v <= KEY_PART_MAX before: no overflow */
	if (*s != stop)
		return -1;
	*sp = s + (stop != '\0');
	if (over)
		return 1;
	*out = v;
	return 0;
}

int take_pos_n(const char *s, size_t n, long *out)
{
	long v = 0;
	int over = 0;

	if (n == 0 || *s < '1' || *s > '9')
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!digit(s[i]))
			return -1;
		if (!over && (v = v * 10 + (s[i] - '0')) > KEY_PART_MAX)
			over = 1;
	}
	if (over)
		return 1;
	*out = v;
	return 0;
}

const char *take_pos_why(int r)
{
	static char buf[48];

	if (r < 0)
		return "is not a positive integer";
	snprintf(buf, sizeof buf, "is out of range 1..%d", KEY_PART_MAX);
	return buf;
}

int set_prec(struct key *k, const char *prec, size_t n)
{
	for (int i = 0; i < naliases; i++)
		if (strlen(aliases[i].from) == n && strncmp(aliases[i].from, prec, n) == 0) {
			prec = aliases[i].to;
			n = strlen(prec);
			break;
		}
	if (n == 0 || n >= sizeof k->prec)
		return -1;
	memcpy(k->prec, prec, n);
	k->prec[n] = '\0';
	return prec_valid(k->prec) ? 0 : -1;
}
