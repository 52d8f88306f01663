/*
 * config.c — what the formats' own configuration lines (bench's header,
 * OneFlow's values) and the paths of logs both read: positive integers as
 * a key spells them, and precisions after the aliases of -a.
 */
#include "formats.h"

#include <stdlib.h>
#include <string.h>

const char precisions_text[] = "fp32, tf32, amp, bf16 or fp16";

#define ALIAS_MAX 8
static struct {
	const char *from, *to;
} aliases[ALIAS_MAX];
static int naliases;

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

	if (*s < '1' || *s > '9')
		return -1;
	for (; digit(*s); s++) {
		if (v > 100000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s != stop)
		return -1;
	*sp = s + (stop != '\0');
	*out = v;
	return 0;
}

int take_pos_n(const char *s, size_t n, long *out)
{
	char buf[32];
	const char *p = buf;

	snprintf(buf, sizeof buf, "%.*s", (int)(n < 31 ? n : 31), s);
	return n > 30 || take_pos(&p, '\0', out) ? -1 : 0;
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
