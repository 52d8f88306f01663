/*
 * bench/table.c: the constructors of a model's table (table.h). Reads and
 * writes nothing but the model it is given.
 */
#include <stdio.h>
#include <string.h>

#include "lib.h"
#include "table.h"

int table_tensor(model *m, int kind, int c, int h, int w)
{
	if (m->ntensors == MODEL_MAX_TENSORS)
		die("model: too many tensors");
	tensor *t = &m->tensors[m->ntensors];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->n = m->batch;
	t->c = c;
	t->h = h;
	t->w = w;
	t->producer = -1;
	t->last_use = -1;
	return m->ntensors++;
}

layer *table_layer(model *m, int kind, const char *name, int x, int x2)
{
	if (m->nlayers == MODEL_MAX_LAYERS)
		die("model: too many layers");
	layer *l = &m->layers[m->nlayers];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	snprintf(l->name, sizeof l->name, "%s", name);
	l->x = x;
	l->x2 = x2;
	l->y = -1;
	m->tensors[x].last_use = m->nlayers;
	if (x2 >= 0)
		m->tensors[x2].last_use = m->nlayers;
	m->nlayers++;
	return l;
}

int table_finish(model *m, layer *l, int y)
{
	l->y = y;
	m->tensors[y].producer = (int)(l - m->layers);
	return y;
}

int table_conv(model *m, const char *name, int x, int cout, int k, int stride, int pad)
{
	tensor *tx = &m->tensors[x];
	int cin = tx->c, ho = (tx->h + 2 * pad - k) / stride + 1;
	int wo = (tx->w + 2 * pad - k) / stride + 1;
	layer *l = table_layer(m, L_CONV, name, x, -1);
	l->cin = cin;
	l->cout = cout;
	l->k = k;
	l->stride = stride;
	l->pad = pad;
	l->w = m->nparams;
	l->nw = (size_t)cout * cin * k * k;
	m->nparams += l->nw;
	m->flops += 2.0 * cin * cout * k * k * (double)ho * wo;
	return table_finish(m, l, table_tensor(m, BK_ACT, cout, ho, wo));
}

void table_bn_reserve(model *m, int c, size_t *w, size_t *stats)
{
	*w = m->nparams;
	m->nparams += 2 * (size_t)c;
	*stats = m->nstats;
	m->nstats += 2 * (size_t)c;
}

int table_bn_at(model *m, const char *name, int kind, int x, int x2, size_t w, size_t stats)
{
	tensor *tx = &m->tensors[x];
	int c = tx->c, h = tx->h, wd = tx->w;
	layer *l = table_layer(m, kind, name, x, x2);
	l->cin = l->cout = c;
	l->w = w;
	l->nw = (size_t)c;
	l->b = w + (size_t)c;
	l->nb = (size_t)c;
	l->stats = stats;
	return table_finish(m, l, table_tensor(m, tx->kind, c, h, wd));
}

int table_bn(model *m, const char *name, int x, int relu)
{
	size_t w, stats;
	table_bn_reserve(m, m->tensors[x].c, &w, &stats);
	return table_bn_at(m, name, relu ? L_BN_RELU : L_BN, x, -1, w, stats);
}

int table_prelu(model *m, const char *name, int x)
{
	tensor *tx = &m->tensors[x];
	int c = tx->c, h = tx->h, w = tx->w;
	layer *l = table_layer(m, L_PRELU, name, x, -1);
	l->cin = l->cout = c;
	l->w = m->nparams;
	l->nw = (size_t)c;
	m->nparams += l->nw;
	return table_finish(m, l, table_tensor(m, BK_ACT, c, h, w));
}

int table_flatten(model *m, const char *name, int x)
{
	tensor *tx = &m->tensors[x];
	int f = tx->c * tx->h * tx->w;
	layer *l = table_layer(m, L_FLATTEN, name, x, -1);
	l->cin = tx->c;
	l->cout = f;
	return table_finish(m, l, table_tensor(m, BK_MATRIX, f, 1, 1));
}

int table_dropout(model *m, const char *name, int x)
{
	int c = m->tensors[x].c;
	layer *l = table_layer(m, L_DROPOUT, name, x, -1);
	l->cin = l->cout = c;
	return table_finish(m, l, table_tensor(m, BK_MATRIX, c, 1, 1));
}

int table_fc(model *m, const char *name, int x, int cout)
{
	int c = m->tensors[x].c;
	layer *l = table_layer(m, L_FC, name, x, -1);
	l->cin = c;
	l->cout = cout;
	l->w = m->nparams;
	l->nw = (size_t)cout * c;
	l->b = l->w + l->nw;
	l->nb = (size_t)cout;
	m->nparams += l->nw + l->nb;
	m->flops += 2.0 * c * cout;
	return table_finish(m, l, table_tensor(m, BK_MATRIX, cout, 1, 1));
}

int table_arcface(model *m, const char *name, int x, int rows, int cr, int classes)
{
	int c = m->tensors[x].c;
	layer *l = table_layer(m, L_ARCFACE, name, x, -1);
	l->cin = c;
	l->cout = cr;
	l->w = m->nparams;
	l->nw = (size_t)cr * c;
	m->nparams += l->nw;
	m->flops += 2.0 * c * classes;
	int y = table_tensor(m, BK_MATRIX, cr, 1, 1);
	m->tensors[y].n = rows;
	return table_finish(m, l, y);
}
