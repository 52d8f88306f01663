/*
 * items.c — the "# env" lines of one node, built up in memory.
 *
 * Reads the items the gatherers (machine.c, software.c) find; writes them
 * into a growing buffer, one line each, that env.c writes out:
 *
 *   # env node=<i> <name>=<value>
 *
 * The value is what the source says, percent-encoded by lib's meta_encode
 * (the one grammar of meta lines, lib/meta.c) so that every reader decodes
 * it as one name=value word.
 */
#include "launch.h"

#include <stdio.h>
#include <string.h>

void out_put(struct out *o, const char *p, size_t n)
{
	o->s = xgrow(o->s, &o->cap, o->len + n + 1, 1);
	memcpy(o->s + o->len, p, n);
	o->len += n;
}

/* One item; n bytes of val, trimmed of blanks at both ends; none if empty. */
void item(struct out *o, const char *name, const char *val, size_t n)
{
	char head[96];

	while (n && (*val == ' ' || *val == '\t'))
		val++, n--;
	while (n && (unsigned char)val[n - 1] <= ' ')
		n--;
	if (!n)
		return;
	out_put(o, head, (size_t)snprintf(head, sizeof head, "# env node=%ld %s=", o->node, name));
	o->s = xgrow(o->s, &o->cap, o->len + META_ENCODED(n), 1);
	o->len += meta_encode(o->s + o->len, val, n);
	out_put(o, "\n", 1);
}

void items(struct out *o, const char *name, const char *val)
{
	item(o, name, val, strlen(val));
}
