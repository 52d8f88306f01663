/*
 * columns.c — table's J/sample and MFU % columns (energy.c, mfu.c) where
 * each style puts them: -s scaling after the failed runs column, -s
 * compare one of each per framework after the memory columns, -s json
 * their keys in each case. Each is shown only when the input has what it
 * needs (an energy line; a row with an MFU).
 */
#include "../formats/formats.h"
#include "table.h"

#include <stdio.h>

const char *columns_tail(const struct table *st, const char *before, int rule, char *buf,
			 size_t size)
{
	snprintf(buf, size, "%s%s%s", before,
		 !st->energy.n ? ""
		 : rule        ? " --- |"
			       : " J/sample |",
		 !st->mfu.shown ? ""
		 : rule         ? " --- |"
				: " MFU % |");
	return buf;
}

void columns_cells(struct table *st, const struct medrec *r)
{
	energy_cell(&st->energy, r->framework, r->keytext, r->n);
	mfu_cell(&st->mfu, &st->env, r);
}

void columns_compare_header(const struct table *st, const char *const *fw, size_t nfw, int rule)
{
	for (size_t k = 0; k < nfw && st->energy.n; k++)
		printf(rule ? " --- |" : " %s J/sample |", framework_display(fw[k]));
	for (size_t k = 0; k < nfw && st->mfu.shown; k++)
		printf(rule ? " --- |" : " %s MFU %% |", framework_display(fw[k]));
}

void columns_compare_cells(struct table *st, const struct medrec *const *g, const size_t *cell,
			   size_t nfw)
{
	for (size_t k = 0; k < nfw && st->energy.n; k++)
		if (cell[k] == HASH_NONE)
			printf(" - |");
		else
			energy_cell(&st->energy, g[cell[k]]->framework, g[cell[k]]->keytext,
				    g[cell[k]]->n);
	for (size_t k = 0; k < nfw && st->mfu.shown; k++)
		if (cell[k] == HASH_NONE)
			printf(" - |");
		else
			mfu_cell(&st->mfu, &st->env, g[cell[k]]);
}

void columns_json(struct table *st, const struct medrec *r)
{
	energy_json(&st->energy, r->framework, r->keytext, r->n);
	mfu_json(&st->mfu, &st->env, r);
}
