/*
 * reasons.c — the footer lines of table's energy and MFU columns: one
 * line for each distinct text, with the configurations it holds for, in
 * the order first met (a hash table groups them: linear in the rows).
 */
#include "table.h"

#include <stdio.h>
#include <stdlib.h>

void reasons_footer(const char *title, int bold, const struct medrec *const *rows, char *const *why,
		    size_t n)
{
	struct groups g = {0};
	struct hkey hk = {0};

	for (size_t i = 0; i < n; i++)
		if (why[i]) {
			hkey_start(&hk);
			hkey_str(&hk, why[i]);
			groups_add(&g, &hk, i);
		}
	for (size_t id = 0; id < g.n; id++) {
		const char *w = why[g.first[id]];
		printf(bold ? "- **%s**: " : "- %s: ", title);
		for (size_t i = g.first[id], k = 0; i != HASH_NONE; i = g.next[i])
			printf("%s%s %s", k++ ? ", " : "", rows[i]->framework, rows[i]->keytext);
		printf(": ");
		for (; *w; w++) /* one markdown line */
			putchar((unsigned char)*w < ' ' ? ' ' : *w);
		putchar('\n');
	}
	groups_free(&g);
	free(hk.b);
}
