/*
 * pubcols.c — table's published columns (-p): a published table
 * (lib/published.c) read once, its figure for a framework and key found in
 * a hash table and printed with the decimals the file gives that
 * framework's figures (at least 2: 747.295 as published, 2545.3 as
 * 2545.30), OOM where the file says so, - where it has none; and its memory
 * column, when the file has one, after it.
 */
#include "table.h"

#include <math.h>

void pubcols_read(struct pubcols *pc, const char *path)
{
	size_t cap = 0;

	pc->n = published_read(path, &pc->v, &pc->index);
	pc->ncols = 1;
	for (size_t i = 0; i < pc->n; i++) {
		if (pc->v[i].memory >= 0)
			pc->ncols = 2;
		hkey_start(&pc->hk);
		hkey_str(&pc->hk, pc->v[i].framework);
		size_t f = hash_intern(&pc->fwindex, &pc->hk, pc->nfw);
		if (f == pc->nfw) {
			pc->decimals = xgrow(pc->decimals, &cap, pc->nfw + 1, sizeof *pc->decimals);
			pc->decimals[pc->nfw++] = 2;
		}
		if (pc->v[i].decimals > pc->decimals[f])
			pc->decimals[f] = pc->v[i].decimals;
	}
}

int pubcols_decimals(struct pubcols *pc, const char *framework)
{
	hkey_start(&pc->hk);
	hkey_str(&pc->hk, framework);
	size_t f = hash_find(&pc->fwindex, &pc->hk);
	return f == HASH_NONE ? 2 : pc->decimals[f];
}

void pubcols_cells(struct pubcols *pc, const char *framework, const char *keytext, int decimals)
{
	const struct published *p = NULL;

	published_key(&pc->hk, framework, keytext);
	size_t i = hash_find(&pc->index, &pc->hk);
	if (i != HASH_NONE)
		p = &pc->v[i];
	if (!p)
		printf(" - |");
	else if (isnan(p->speed))
		printf(" OOM |");
	else
		printf(" %.*f |", decimals, p->speed);
	if (pc->ncols < 2)
		return;
	if (p && p->memory >= 0)
		printf(" %ld |", p->memory);
	else
		printf(" - |");
}
