/*
 * tests/drivers/key-mk.c: bin/test-key-mk, the configuration key's grammar
 * of lib/key.c as make reads it. Prints lib/key.mk on stdout; `make
 * generate` writes it there and tests/tree.bats checks that the file is
 * what this prints. The Makefile cannot run a program of the tree while it
 * reads itself (a fresh clone has none built), so it reads the grammar
 * from that file:
 *
 *   KEY_SHAPE         the key's shape, with its precisions, for messages
 *   KEY_PART_PATTERN  an extended regular expression (bash's =~) for N, G
 *                     or B: 1..KEY_PART_MAX without leading zeros
 *   KEY_PATTERN       one for exactly the keys key_parse takes, unanchored
 *
 * Exit 1 when a precision would break the Makefile's key_parts (which
 * splits a key at "n", "g_b" and "_") or the pattern (not [a-z0-9]).
 */
#include "lib.h"

#include <stdio.h>
#include <string.h>

/* An ERE for the decimal integers 1..max without leading zeros: those
 * shorter than max, then for each position the numbers that agree with max
 * before it and are smaller there, then max itself. */
static void part_pattern(char *buf, size_t size, long max)
{
	char m[24];
	int d = snprintf(m, sizeof m, "%ld", max);
	size_t n = 0;

	n += (size_t)snprintf(buf + n, size - n, "(");
	if (d > 1)
		n += (size_t)snprintf(buf + n, size - n, "[1-9][0-9]{0,%d}|", d - 2);
	for (int i = 0; i < d; i++) {
		int lo = i == 0 ? 1 : 0, hi = m[i] - '0' - 1;
		if (hi < lo)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%.*s", i, m);
		if (lo == hi)
			n += (size_t)snprintf(buf + n, size - n, "%d", lo);
		else
			n += (size_t)snprintf(buf + n, size - n, "[%d-%d]", lo, hi);
		if (d - 1 - i > 1)
			n += (size_t)snprintf(buf + n, size - n, "[0-9]{%d}", d - 1 - i);
		else if (d - 1 - i == 1)
			n += (size_t)snprintf(buf + n, size - n, "[0-9]");
		n += (size_t)snprintf(buf + n, size - n, "|");
	}
	snprintf(buf + n, size - n, "%s)", m);
}

int main(void)
{
	char part[256], alts[128] = "";
	size_t na = 0;

	progname = "test-key-mk";
	for (size_t i = 0; key_precisions[i]; i++) {
		const char *p = key_precisions[i];
		if (!*p || strspn(p, "abcdefghijklmopqrstuvwxyz0123456789") != strlen(p))
			die("precision '%s': the Makefile's key_parts and KEY_PATTERN need "
			    "[a-z0-9] without 'n'",
			    p);
		na += (size_t)snprintf(alts + na, sizeof alts - na, "%s%s", i ? "|" : "", p);
	}
	part_pattern(part, sizeof part, KEY_PART_MAX);
	printf("# lib/key.mk — the configuration key's grammar (lib/key.c) for make. Written\n"
	       "# by `make generate` (tests/drivers/key-mk.c); tests/tree.bats checks it.\n"
	       "# Do not edit.\n"
	       "KEY_SHAPE := <N>n<G>g_b<B>_<%s>\n"
	       "# N, G or B: 1..%d without leading zeros\n"
	       "KEY_PART_MAX := %d\n"
	       "KEY_PART_PATTERN := %s\n"
	       "KEY_PATTERN := $(KEY_PART_PATTERN)n$(KEY_PART_PATTERN)g_b$(KEY_PART_PATTERN)_(%s)\n",
	       alts, KEY_PART_MAX, KEY_PART_MAX, part, alts);
	finish_output();
	return 0;
}
