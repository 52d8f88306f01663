/*
 * alias.c — the aliases of -a: a precision as a log names it, mapped to
 * one of lib's before it is checked, wherever grep-iters reads one (the
 * paths of logs, -k, bench's header). The grammar of keys and of their
 * parts is lib's (lib/key.c).
 */
#include "alias.h"

#include <string.h>

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
		die_usage("-a: '%s' is not from=to with to one of %s", arg, prec_list());
	char *from = xstrdup(arg);
	from[eq - arg] = '\0';
	aliases[naliases].from = from;
	aliases[naliases].to = eq + 1;
	naliases++;
}

int alias_prec(struct key *k, const char *prec, size_t n)
{
	for (int i = 0; i < naliases; i++)
		if (strlen(aliases[i].from) == n && strncmp(aliases[i].from, prec, n) == 0)
			return prec_set(k, aliases[i].to, strlen(aliases[i].to));
	return prec_set(k, prec, n);
}
