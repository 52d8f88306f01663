/*
 * bench/export.c: `bench --export DIR` (export.h). Reads the model's device
 * buffers through the backend; writes the files of doc/correctness.md into
 * DIR, each through NAME.tmp and a rename.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "comm.h"
#include "export.h"
#include "lib.h"
#include "margin.h"
#include "shard.h"

/* One file being written: DIR/NAME.tmp, renamed to DIR/NAME when closed. */
struct out {
	FILE *f;
	char *path, *tmp;
};

static void out_open(struct out *o, const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	o->path = xmalloc(n);
	o->tmp = xmalloc(n + 4);
	snprintf(o->path, n, "%s/%s", dir, name);
	snprintf(o->tmp, n + 4, "%s.tmp", o->path);
	o->f = fopen(o->tmp, "wb");
	if (!o->f)
		die("--export: %s:", o->tmp);
}

static void out_close(struct out *o)
{
	if (ferror(o->f) || fclose(o->f) != 0)
		die("--export: %s:", o->tmp);
	if (rename(o->tmp, o->path) != 0)
		die("--export: %s:", o->path);
	free(o->path);
	free(o->tmp);
}

static void write_file(const char *dir, const char *name, const void *data, size_t bytes)
{
	struct out o;
	out_open(&o, dir, name);
	if (bytes && fwrite(data, 1, bytes, o.f) != bytes)
		die("--export: %s:", o.tmp);
	out_close(&o);
}

/* A split classifier: the model's flat buffer (host, this rank's nparams)
 * as the whole model's on rank 0, every rank's shard gathered after the
 * rest; NULL on the other ranks. Without a split: buf itself. */
static const float *whole_params(const model *m, const float *buf, int rank, float **owned)
{
	*owned = NULL;
	if (m->cfg.shards == 1)
		return buf;
	if (rank == 0) {
		*owned = xmalloc(m->nwhole * sizeof(float));
		memcpy(*owned, buf, m->nreduced * sizeof(float));
	}
	comm_gather_floats(buf + m->nreduced, m->nparams - m->nreduced,
			   *owned ? *owned + m->nreduced : NULL);
	return *owned;
}

/* The flat buffer dev (device memory) as params.f32 lays it out. */
static void write_params(const char *dir, const char *name, const model *m, const float *dev,
			 int rank)
{
	float *h = xmalloc(m->nparams * sizeof(float)), *owned;
	bk_to_host(h, dev, m->nparams * sizeof(float));
	const float *all = whole_params(m, h, rank, &owned);
	if (rank == 0)
		write_file(dir, name, all, m->nwhole * sizeof(float));
	free(owned);
	free(h);
}

/* The elements of layer l's weight in the export: a split classifier's
 * whole. */
static size_t weight_count(const model *m, const layer *l)
{
	return l->kind == L_ARCFACE ? (size_t)m->classes * l->cin : l->nw;
}

static int by_offset(const void *a, const void *b)
{
	const layer *x = *(const layer *const *)a, *y = *(const layer *const *)b;
	return x->w < y->w ? -1 : x->w > y->w;
}

/* One line per parameter tensor in offset order (the state_dict's), whatever
 * the order of the layers: name, shape, offset, count. */
static void write_manifest(const char *dir, const model *m)
{
	const layer *order[MODEL_MAX_LAYERS];
	int n = 0;
	for (int i = 0; i < m->nlayers; i++)
		if (m->layers[i].nw)
			order[n++] = &m->layers[i];
	qsort(order, (size_t)n, sizeof order[0], by_offset);
	struct out o;
	out_open(&o, dir, "manifest.tsv");
	for (int i = 0; i < n; i++) {
		const layer *l = order[i];
		const char *names[2] = {"weight", "bias"};
		size_t off[2] = {l->w, l->b}, cnt[2] = {weight_count(m, l), l->nb};
		for (int j = 0; j < 2; j++) {
			if (!cnt[j])
				continue;
			char shape[64];
			if (l->kind == L_CONV)
				snprintf(shape, sizeof shape, "%dx%dx%dx%d", l->cout, l->cin, l->k,
					 l->k);
			else if (l->kind == L_FC && j == 0)
				snprintf(shape, sizeof shape, "%dx%d", l->cout, l->cin);
			else if (l->kind == L_ARCFACE)
				snprintf(shape, sizeof shape, "%dx%d", m->classes, l->cin);
			else
				snprintf(shape, sizeof shape, "%zu", cnt[j]);
			fprintf(o.f, "%s.%s\t%s\t%zu\t%zu\n", l->name, names[j], shape, off[j],
				cnt[j]);
		}
	}
	out_close(&o);
}

void export_check(const char *dir)
{
	if (access(dir, W_OK) != 0)
		die("--export: %s:", dir);
}

void export_start(const char *dir, const model *m, const float *params, const float *input,
		  const int32_t *labels, int rank)
{
	size_t img = (size_t)3 * m->image * m->image;
	float *owned;
	const float *all = whole_params(m, params, rank, &owned);
	if (rank == 0) {
		write_manifest(dir, m);
		write_file(dir, "params.f32", all, m->nwhole * sizeof(float));
		write_file(dir, "input.f32", input, (size_t)m->batch * img * sizeof(float));
		write_file(dir, "labels.i32", labels, (size_t)m->batch * sizeof(int32_t));
	}
	free(owned);
}

/* The dropout layer's mask of the step just run, one byte (0 or 1) per
 * element [batch][features]: margin.h's draw, as the backends make it. */
static void write_dropout(const char *dir, const model *m)
{
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		if (l->kind != L_DROPOUT)
			continue;
		size_t n = (size_t)m->batch * l->cin;
		unsigned char *mask = xmalloc(n);
		for (int r = 0; r < m->batch; r++)
			for (int j = 0; j < l->cin; j++)
				mask[(size_t)r * l->cin + j] = (unsigned char)dropout_keep(
					m->cfg.seed, (uint64_t)m->step,
					(uint64_t)(m->cfg.first_sample + r), (uint32_t)j,
					m->cfg.dropout);
		write_file(dir, "dropout.u8", mask, n);
		free(mask);
	}
}

/* The logits [rows][classes]: a split classifier's shards' columns gathered
 * (rank r's [rows][cr] block to its classes). */
static void write_logits(const char *dir, const model *m, int rank)
{
	const tensor *t = &m->tensors[m->logits];
	size_t rows = (size_t)t->n, n = rows * (size_t)t->c;
	float *mine = xmalloc(n * sizeof(float));
	bk_tensor_read(t->t, mine);
	if (m->cfg.shards == 1) {
		write_file(dir, "logits.f32", mine, n * sizeof(float));
		free(mine);
		return;
	}
	size_t whole = rows * (size_t)m->classes;
	float *blocks = rank == 0 ? xmalloc(whole * sizeof(float)) : NULL;
	comm_gather_floats(mine, n, blocks);
	if (rank == 0) {
		float *all = xmalloc(whole * sizeof(float));
		const float *b = blocks;
		for (int r = 0; r < m->cfg.shards; r++) {
			long c0 = shard_first(m->classes, m->cfg.shards, r);
			long cr = shard_size(m->classes, m->cfg.shards, r);
			for (size_t i = 0; i < rows; i++, b += cr)
				memcpy(all + i * (size_t)m->classes + c0, b,
				       (size_t)cr * sizeof(float));
		}
		write_file(dir, "logits.f32", all, whole * sizeof(float));
		free(all);
	}
	free(blocks);
	free(mine);
}

void export_gradients(const char *dir, const model *m, int rank)
{
	bk_sync();
	write_logits(dir, m, rank);
	write_params(dir, "grads.f32", m, m->grads, rank);
	if (rank == 0)
		write_dropout(dir, m);
}

void export_after(const char *dir, const model *m, double loss, int rank)
{
	char s[64];
	int n = snprintf(s, sizeof s, "%.9g\n", loss);
	if (rank == 0)
		write_file(dir, "loss.txt", s, (size_t)n);
	write_params(dir, "params_after.f32", m, m->params, rank);
}
