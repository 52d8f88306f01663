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
#include "export.h"
#include "lib.h"

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

/* n floats of device memory. */
static void write_device(const char *dir, const char *name, const float *dev, size_t n)
{
	float *h = xmalloc(n * sizeof(float));
	bk_to_host(h, dev, n * sizeof(float));
	write_file(dir, name, h, n * sizeof(float));
	free(h);
}

static int by_offset(const void *a, const void *b)
{
	const layer *x = *(const layer *const *)a, *y = *(const layer *const *)b;
	return x->w < y->w ? -1 : x->w > y->w;
}

/* One line per parameter tensor in offset order (torchvision's), whatever
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
		size_t off[2] = {l->w, l->b}, cnt[2] = {l->nw, l->nb};
		for (int j = 0; j < 2; j++) {
			if (!cnt[j])
				continue;
			char shape[64];
			if (l->kind == L_CONV)
				snprintf(shape, sizeof shape, "%dx%dx%dx%d", l->cout, l->cin, l->k,
					 l->k);
			else if (l->kind == L_FC && j == 0)
				snprintf(shape, sizeof shape, "%dx%d", l->cout, l->cin);
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
		  const int32_t *labels)
{
	size_t img = (size_t)3 * m->image * m->image;
	write_manifest(dir, m);
	write_file(dir, "params.f32", params, m->nparams * sizeof(float));
	write_file(dir, "input.f32", input, (size_t)m->batch * img * sizeof(float));
	write_file(dir, "labels.i32", labels, (size_t)m->batch * sizeof(int32_t));
}

void export_gradients(const char *dir, const model *m)
{
	size_t n = (size_t)m->batch * m->classes;
	float *logits = xmalloc(n * sizeof(float));
	bk_sync();
	bk_tensor_read(m->tensors[m->logits].t, logits);
	write_file(dir, "logits.f32", logits, n * sizeof(float));
	free(logits);
	write_device(dir, "grads.f32", m->grads, m->nparams);
}

void export_after(const char *dir, const model *m, double loss)
{
	char s[64];
	int n = snprintf(s, sizeof s, "%.9g\n", loss);
	write_file(dir, "loss.txt", s, (size_t)n);
	write_device(dir, "params_after.f32", m->params, m->nparams);
}
