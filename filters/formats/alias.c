/*
 * alias.c — the aliases of -a: a precision as a log names it, mapped to
 * one of lib's before it is checked, wherever grep-iters reads one (the
 * paths of logs, -k, bench's header). The grammar of keys and of their
 * parts is lib's (lib/key.c).
 */
#include "alias.h"

#include <string.h>

void alias_add(struct aliases *al, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (al->n == ALIAS_MAX)
		die_usage("-a: more than %d aliases", ALIAS_MAX);
	if (!eq || eq == arg || strcspn(arg, "_/\t") < (size_t)(eq - arg) || !prec_valid(eq + 1))
		die_usage("-a: '%s' is not from=to with to one of %s", arg, prec_list());
	char *from = xstrdup(arg);
	from[eq - arg] = '\0';
	al->v[al->n].from = from;
	al->v[al->n].to = eq + 1;
	al->n++;
}

int alias_prec(const struct aliases *al, struct key *k, const char *prec, size_t n)
{
	for (int i = 0; i < al->n; i++)
		if (strlen(al->v[i].from) == n && strncmp(al->v[i].from, prec, n) == 0)
			return prec_set(k, al->v[i].to, strlen(al->v[i].to));
	return prec_set(k, prec, n);
}
