/*
 * bench/model.c: ResNet50 v1.5 as a table of layers (model.h), its
 * allreduce buckets, its weight-decay ranges and its initialisation
 * (rng.h); arena.c places its buffers, step.c walks it. Reads and writes
 * nothing but memory; --describe prints the table to the stream it is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"
#include "model.h"
#include "rng.h"

/* ---- the table ---- */

static int add_tensor(model *m, int kind, int c, int h, int w)
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

static layer *add_layer(model *m, int kind, const char *name, int x, int x2)
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

static int finish(model *m, layer *l, int y)
{
	l->y = y;
	m->tensors[y].producer = (int)(l - m->layers);
	return y;
}

static int conv(model *m, const char *name, int x, int cout, int k, int stride, int pad)
{
	tensor *tx = &m->tensors[x];
	int cin = tx->c, ho = (tx->h + 2 * pad - k) / stride + 1;
	int wo = (tx->w + 2 * pad - k) / stride + 1;
	layer *l = add_layer(m, L_CONV, name, x, -1);
	l->cin = cin;
	l->cout = cout;
	l->k = k;
	l->stride = stride;
	l->pad = pad;
	l->w = m->nparams;
	l->nw = (size_t)cout * cin * k * k;
	m->nparams += l->nw;
	m->flops += 2.0 * cin * cout * k * k * (double)ho * wo;
	return finish(m, l, add_tensor(m, BK_ACT, cout, ho, wo));
}

/* Room for a batch norm's gamma and beta, and its running statistics. */
static void bn_reserve(model *m, int c, size_t *w, size_t *stats)
{
	*w = m->nparams;
	m->nparams += 2 * (size_t)c;
	*stats = m->nstats;
	m->nstats += 2 * (size_t)c;
}

static int bn_at(model *m, const char *name, int kind, int x, int x2, size_t w, size_t stats)
{
	tensor *tx = &m->tensors[x];
	int c = tx->c, h = tx->h, wd = tx->w;
	layer *l = add_layer(m, kind, name, x, x2);
	l->cin = l->cout = c;
	l->w = w;
	l->nw = (size_t)c;
	l->b = w + (size_t)c;
	l->nb = (size_t)c;
	l->stats = stats;
	return finish(m, l, add_tensor(m, BK_ACT, c, h, wd));
}

static int bn(model *m, const char *name, int x, int relu)
{
	size_t w, stats;
	bn_reserve(m, m->tensors[x].c, &w, &stats);
	return bn_at(m, name, relu ? L_BN_RELU : L_BN, x, -1, w, stats);
}

/*
 * y = relu(bn3(conv3(...)) + identity). bn3, the add and the ReLU are one
 * layer (cuDNN fuses them: CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION), so the
 * identity branch runs before it; bn3's parameters keep their place before
 * the downsample's, as in torchvision's state_dict.
 */
static int bottleneck(model *m, const char *prefix, int x, int planes, int stride)
{
	char name[64];
	int in = m->tensors[x].c, y;
	snprintf(name, sizeof name, "%s.conv1", prefix);
	y = conv(m, name, x, planes, 1, 1, 0);
	snprintf(name, sizeof name, "%s.bn1", prefix);
	y = bn(m, name, y, 1);
	snprintf(name, sizeof name, "%s.conv2", prefix);
	y = conv(m, name, y, planes, 3, stride, 1); /* v1.5: the stride is here */
	snprintf(name, sizeof name, "%s.bn2", prefix);
	y = bn(m, name, y, 1);
	snprintf(name, sizeof name, "%s.conv3", prefix);
	y = conv(m, name, y, planes * 4, 1, 1, 0);
	size_t w3, stats3;
	bn_reserve(m, planes * 4, &w3, &stats3);
	int id = x;
	if (stride != 1 || in != planes * 4) {
		snprintf(name, sizeof name, "%s.downsample.0", prefix);
		id = conv(m, name, x, planes * 4, 1, stride, 0);
		snprintf(name, sizeof name, "%s.downsample.1", prefix);
		id = bn(m, name, id, 0);
	}
	snprintf(name, sizeof name, "%s.bn3", prefix);
	return bn_at(m, name, L_BN_ADD_RELU, y, id, w3, stats3);
}

void model_build(model *m, int batch, int image, int classes)
{
	memset(m, 0, sizeof *m);
	m->batch = batch;
	m->image = image;
	m->classes = classes;
	int x = m->input = add_tensor(m, BK_IMAGE, 3, image, image);
	x = conv(m, "conv1", x, 64, 7, 2, 3);
	x = bn(m, "bn1", x, 1);
	{
		tensor *t = &m->tensors[x];
		int h = (t->h + 2 - 3) / 2 + 1, w = (t->w + 2 - 3) / 2 + 1;
		layer *l = add_layer(m, L_MAXPOOL, "maxpool", x, -1);
		l->cin = l->cout = t->c;
		l->k = 3;
		l->stride = 2;
		l->pad = 1;
		x = finish(m, l, add_tensor(m, BK_ACT, t->c, h, w));
	}
	static const int blocks[4] = {3, 4, 6, 3};
	for (int s = 0; s < 4; s++) {
		for (int b = 0; b < blocks[s]; b++) {
			char prefix[32];
			snprintf(prefix, sizeof prefix, "layer%d.%d", s + 1, b);
			x = bottleneck(m, prefix, x, 64 << s, b == 0 && s > 0 ? 2 : 1);
		}
	}
	{
		int c = m->tensors[x].c;
		layer *l = add_layer(m, L_AVGPOOL, "avgpool", x, -1);
		l->cin = l->cout = c;
		x = finish(m, l, add_tensor(m, BK_MATRIX, c, 1, 1));
		l = add_layer(m, L_FC, "fc", x, -1);
		l->cin = c;
		l->cout = classes;
		l->w = m->nparams;
		l->nw = (size_t)classes * c;
		l->b = l->w + l->nw;
		l->nb = (size_t)classes;
		m->nparams += l->nw + l->nb;
		m->flops += 2.0 * c * classes;
		m->logits = x = finish(m, l, add_tensor(m, BK_MATRIX, classes, 1, 1));
	}
	/* After layer i's backward, layers i .. L-1 have their gradients: all
	 * of those above the highest parameter of layers 0 .. i-1 are final. */
	size_t top = 0;
	for (int i = 0; i < m->nlayers; i++) {
		layer *l = &m->layers[i];
		l->ready = top;
		size_t end = l->nb ? l->b + l->nb : l->w + l->nw;
		if (l->nw && end > top)
			top = end;
	}
}

static const char *kind_name(int k)
{
	static const char *names[] = {"conv",    "bn",      "bn+relu", "bn+add+relu",
				      "maxpool", "avgpool", "fc"};
	return names[k];
}

static void shape(char *buf, size_t n, const tensor *t)
{
	if (t->kind == BK_MATRIX)
		snprintf(buf, n, "%d", t->c);
	else
		snprintf(buf, n, "%dx%dx%d", t->c, t->h, t->w);
}

void model_describe(const model *m, size_t bucket_cap, int max_buckets, FILE *f)
{
	fprintf(f, "# resnet50 v1.5 image=%d classes=%d batch=%d\n", m->image, m->classes,
		m->batch);
	fprintf(f, "# layer name kind op input output params\n");
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		char in[32], out[32], op[32] = "-";
		shape(in, sizeof in, &m->tensors[l->x]);
		shape(out, sizeof out, &m->tensors[l->y]);
		if (l->kind == L_CONV || l->kind == L_MAXPOOL)
			snprintf(op, sizeof op, "%dx%d/%d", l->k, l->k, l->stride);
		fprintf(f, "%d %s %s %s %s %s %zu\n", i, l->name, kind_name(l->kind), op, in, out,
			l->nw + l->nb);
	}
	size_t lo[MODEL_MAX_LAYERS], hi[MODEL_MAX_LAYERS];
	if (max_buckets > MODEL_MAX_LAYERS)
		max_buckets = MODEL_MAX_LAYERS;
	int nb = model_buckets(m, bucket_cap, lo, hi, max_buckets);
	fprintf(f, "# allreduce bucket first last elements\n");
	for (int i = 0; i < nb; i++)
		fprintf(f, "bucket %d %zu %zu %zu\n", i, lo[i], hi[i] - 1, hi[i] - lo[i]);
	fprintf(f, "params=%zu\n", m->nparams);
	fprintf(f, "forward_flops_per_sample=%.0f\n", m->flops);
	fprintf(f, "forward_gflops_per_sample=%.3f\n", m->flops * 1e-9);
	/* A training sample for MFU: the forward, the backward to the inputs
	 * and the backward to the weights, each as many multiply-adds. */
	fprintf(f, "train_flops_per_sample=%.0f\n", 3 * m->flops);
}

int model_buckets(const model *m, size_t cap, size_t *lo, size_t *hi, int max)
{
	size_t top = m->nparams;
	int n = 0;
	if (cap < 1)
		cap = 1;
	for (int i = m->nlayers - 1; i >= 0 && top > 0; i--) {
		size_t off = m->layers[i].ready;
		if (off < top && (top - off >= cap || off == 0 || n == max - 1)) {
			if (n == max - 1)
				off = 0; /* the last bucket takes the rest */
			lo[n] = off;
			hi[n++] = top;
			top = off;
		}
	}
	return n;
}

int model_decays(const layer *l)
{
	return l->kind == L_CONV || l->kind == L_FC;
}

int model_decay_ranges(const model *m, size_t *lo, size_t *hi)
{
	int n = 0;
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		if (!model_decays(l))
			continue;
		if (n > 0 && hi[n - 1] == l->w) { /* adjacent: one range */
			hi[n - 1] += l->nw;
			continue;
		}
		if (n > 0 && l->w < hi[n - 1])
			die("%s:%d: decayed weights out of order at %s", __FILE__, __LINE__,
			    l->name);
		lo[n] = l->w;
		hi[n++] = l->w + l->nw;
	}
	return n;
}

void model_init_params(const model *m, float *params, float *stats, uint64_t seed)
{
	rng r;
	rng_seed(&r, seed);
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		float *w = params + l->w, *b = params + l->b;
		if (l->kind == L_CONV) {
			/* kaiming_normal_(mode="fan_out", nonlinearity="relu") */
			double sd = sqrt(2.0 / ((double)l->cout * l->k * l->k));
			for (size_t j = 0; j < l->nw; j++)
				w[j] = (float)(sd * rng_normal(&r));
		} else if (l->kind == L_BN || l->kind == L_BN_RELU || l->kind == L_BN_ADD_RELU) {
			for (size_t j = 0; j < l->nw; j++) {
				w[j] = 1.0f;
				b[j] = 0.0f;
				stats[l->stats + j] = 0.0f;
				stats[l->stats + l->nw + j] = 1.0f;
			}
		} else if (l->kind == L_FC) {
			/* nn.Linear's default: U(-1/sqrt(in), 1/sqrt(in)) */
			double bound = 1.0 / sqrt((double)l->cin);
			for (size_t j = 0; j < l->nw; j++)
				w[j] = (float)(bound * (2.0 * rng_uniform(&r) - 1.0));
			for (size_t j = 0; j < l->nb; j++)
				b[j] = (float)(bound * (2.0 * rng_uniform(&r) - 1.0));
		}
	}
}
