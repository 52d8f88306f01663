/*
 * bench/model.c: a model as a table of layers (model.h): ResNet50 v1.5
 * here, IResNet-50's backbone from iresnet.c, then the head (a softmax
 * classifier, or the ArcFace head's shard, shard.h); its allreduce buckets,
 * its weight-decay ranges and its initialisation (rng.h); arena.c places
 * its buffers, step.c walks it. Reads and writes nothing but memory;
 * --describe prints the table to the stream it is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iresnet.h"
#include "lib.h"
#include "model.h"
#include "rng.h"
#include "shard.h"
#include "table.h"

const char *const model_arch_names[] = {"resnet50", "iresnet50", NULL};
const char *const model_head_names[] = {"softmax", "arcface", NULL};

model_config model_config_default(int arch, int head)
{
	model_config c = {.arch = arch,
			  .head = head,
			  .batch = 16,
			  .image = arch == ARCH_IRESNET50 ? 112 : 224,
			  .classes = 1000,
			  .embedding = 512,
			  .dropout = 0.4f,
			  .margin = 0.5f,
			  .scale = 64.0f,
			  .shards = 1,
			  .shard = 0,
			  .first_sample = 0,
			  .seed = 1};
	return c;
}

/* ---- ResNet50 v1.5 ---- */

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
	y = table_conv(m, name, x, planes, 1, 1, 0);
	snprintf(name, sizeof name, "%s.bn1", prefix);
	y = table_bn(m, name, y, 1);
	snprintf(name, sizeof name, "%s.conv2", prefix);
	y = table_conv(m, name, y, planes, 3, stride, 1); /* v1.5: the stride is here */
	snprintf(name, sizeof name, "%s.bn2", prefix);
	y = table_bn(m, name, y, 1);
	snprintf(name, sizeof name, "%s.conv3", prefix);
	y = table_conv(m, name, y, planes * 4, 1, 1, 0);
	size_t w3, stats3;
	table_bn_reserve(m, planes * 4, &w3, &stats3);
	int id = x;
	if (stride != 1 || in != planes * 4) {
		snprintf(name, sizeof name, "%s.downsample.0", prefix);
		id = table_conv(m, name, x, planes * 4, 1, stride, 0);
		snprintf(name, sizeof name, "%s.downsample.1", prefix);
		id = table_bn(m, name, id, 0);
	}
	snprintf(name, sizeof name, "%s.bn3", prefix);
	return table_bn_at(m, name, L_BN_ADD_RELU, y, id, w3, stats3);
}

/* torchvision's resnet50 up to its pooled features [n][2048]. */
static int resnet50_backbone(model *m, int x)
{
	x = table_conv(m, "conv1", x, 64, 7, 2, 3);
	x = table_bn(m, "bn1", x, 1);
	{
		tensor *t = &m->tensors[x];
		int h = (t->h + 2 - 3) / 2 + 1, w = (t->w + 2 - 3) / 2 + 1;
		layer *l = table_layer(m, L_MAXPOOL, "maxpool", x, -1);
		l->cin = l->cout = t->c;
		l->k = 3;
		l->stride = 2;
		l->pad = 1;
		x = table_finish(m, l, table_tensor(m, BK_ACT, t->c, h, w));
	}
	static const int blocks[4] = {3, 4, 6, 3};
	for (int s = 0; s < 4; s++) {
		for (int b = 0; b < blocks[s]; b++) {
			char prefix[32];
			snprintf(prefix, sizeof prefix, "layer%d.%d", s + 1, b);
			x = bottleneck(m, prefix, x, 64 << s, b == 0 && s > 0 ? 2 : 1);
		}
	}
	int c = m->tensors[x].c;
	layer *l = table_layer(m, L_AVGPOOL, "avgpool", x, -1);
	l->cin = l->cout = c;
	return table_finish(m, l, table_tensor(m, BK_MATRIX, c, 1, 1));
}

/* ---- the model ---- */

void model_build(model *m, const model_config *c)
{
	memset(m, 0, sizeof *m);
	m->cfg = *c;
	m->batch = c->batch;
	m->image = c->image;
	m->classes = c->classes;
	if (c->head == HEAD_ARCFACE && !shard_ok(c->classes, c->shards))
		die_usage("--classes: %d classes cannot be split over %d ranks, %ld a rank "
			  "(the last would have none): use more classes or --classifier whole",
			  c->classes, c->shards, shard_size(c->classes, c->shards, 0));
	int x = m->input = table_tensor(m, BK_IMAGE, 3, c->image, c->image);
	x = c->arch == ARCH_IRESNET50 ? iresnet_backbone(m, x) : resnet50_backbone(m, x);
	m->features = x;
	const char *name = c->arch == ARCH_RESNET50 && c->head == HEAD_SOFTMAX ? "fc" : "head";
	if (c->head == HEAD_SOFTMAX) {
		m->logits = table_fc(m, name, x, c->classes);
		m->nreduced = m->nwhole = m->nparams;
	} else {
		long cr = shard_size(c->classes, c->shards, c->shard);
		size_t e = (size_t)m->tensors[x].c;
		m->logits = table_arcface(m, name, x, c->batch * c->shards, (int)cr, c->classes);
		m->nreduced = c->shards > 1 ? m->nparams - (size_t)cr * e : m->nparams;
		m->nwhole = m->nparams - (size_t)cr * e + (size_t)c->classes * e;
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
	static const char *names[L_KINDS] = {"conv",    "bn",      "bn+relu", "bn+add+relu",
					     "maxpool", "avgpool", "fc",      "prelu",
					     "bn+add",  "flatten", "dropout", "arcface"};
	return names[k];
}

static void shape(char *buf, size_t n, const tensor *t)
{
	if (t->kind == BK_MATRIX)
		snprintf(buf, n, "%d", t->c);
	else
		snprintf(buf, n, "%dx%dx%d", t->c, t->h, t->w);
}

/* The first line: the model and, where it is not ResNet50's softmax
 * classifier, its head. */
static void describe_header(const model *m, FILE *f)
{
	const model_config *c = &m->cfg;
	if (c->arch == ARCH_RESNET50)
		fprintf(f, "# resnet50 v1.5 image=%d classes=%d batch=%d", m->image, m->classes,
			m->batch);
	else
		fprintf(f, "# iresnet50 image=%d classes=%d batch=%d embedding=%d dropout=%g",
			m->image, m->classes, m->batch, c->embedding, (double)c->dropout);
	if (c->head == HEAD_ARCFACE)
		fprintf(f, " head=arcface margin=%g scale=%g shards=%d", (double)c->margin,
			(double)c->scale, c->shards);
	else if (c->arch != ARCH_RESNET50)
		fprintf(f, " head=softmax");
	fputc('\n', f);
}

/* The ArcFace head: this rank's shard, and the collectives of a step with
 * their counts (NCCL's: an allgather's and a reduce-scatter's per rank) and
 * bytes. */
static void describe_head(const model *m, FILE *f)
{
	const model_config *c = &m->cfg;
	fprintf(f, "# head shard classes first rows\n");
	fprintf(f, "shard %d/%d %ld %ld %d\n", c->shard, c->shards,
		shard_size(c->classes, c->shards, c->shard),
		shard_first(c->classes, c->shards, c->shard), c->batch * c->shards);
	if (c->shards == 1)
		return;
	struct shard_message msg[SHARD_MESSAGES];
	shard_messages(c->batch, c->shards, m->tensors[m->features].c, msg);
	fprintf(f, "# head collective what count bytes\n");
	for (int i = 0; i < SHARD_MESSAGES; i++)
		fprintf(f, "collective %s %s %zu %zu\n", msg[i].name, msg[i].what, msg[i].elements,
			msg[i].elements * msg[i].elsize);
}

void model_describe(const model *m, size_t bucket_cap, int max_buckets, FILE *f)
{
	describe_header(m, f);
	fprintf(f, "# layer name kind op input output params\n");
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		char in[32], out[32], op[32] = "-";
		shape(in, sizeof in, &m->tensors[l->x]);
		shape(out, sizeof out, &m->tensors[l->y]);
		if (l->kind == L_CONV || l->kind == L_MAXPOOL)
			snprintf(op, sizeof op, "%dx%d/%d", l->k, l->k, l->stride);
		else if (l->kind == L_ARCFACE)
			snprintf(op, sizeof op, "%dx%d", m->tensors[l->y].n, l->cout);
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
	if (m->cfg.head == HEAD_ARCFACE)
		describe_head(m, f);
	fprintf(f, "params=%zu\n", m->nwhole);
	if (m->nwhole != m->nparams)
		fprintf(f, "params_per_rank=%zu\n", m->nparams);
	fprintf(f, "forward_flops_per_sample=%.0f\n", m->flops);
	fprintf(f, "forward_gflops_per_sample=%.3f\n", m->flops * 1e-9);
	/* A training sample for MFU: the forward, the backward to the inputs
	 * and the backward to the weights, each as many multiply-adds. */
	fprintf(f, "train_flops_per_sample=%.0f\n", 3 * m->flops);
}

int model_buckets(const model *m, size_t cap, size_t *lo, size_t *hi, int max)
{
	size_t top = m->nreduced;
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
	return l->kind == L_CONV || l->kind == L_FC || l->kind == L_ARCFACE;
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

/* The ArcFace classifier's rows [cr][e] of classes c0 .. c0 + cr - 1, each
 * normal(0, 0.01) (insightface's PartialFC) from a stream of its class's
 * own: the same whole classifier whatever the split. */
static void init_classifier(float *w, long c0, long cr, size_t e, uint64_t seed)
{
	for (long c = 0; c < cr; c++) {
		rng r;
		rng_seed(&r, seed * 0x94d049bb133111ebULL +
				     (uint64_t)(c0 + c) * 0xbf58476d1ce4e5b9ULL +
				     0x2545f4914f6cdd1dULL);
		for (size_t j = 0; j < e; j++)
			w[(size_t)c * e + j] = (float)(0.01 * rng_normal(&r));
	}
}

void model_init_params(const model *m, float *params, float *stats, uint64_t seed)
{
	rng r;
	rng_seed(&r, seed);
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		float *w = params + l->w, *b = params + l->b;
		if (l->kind == L_CONV && m->cfg.arch == ARCH_IRESNET50) {
			/* insightface's iresnet: normal_(0, 0.1) */
			for (size_t j = 0; j < l->nw; j++)
				w[j] = (float)(0.1 * rng_normal(&r));
		} else if (l->kind == L_CONV) {
			/* kaiming_normal_(mode="fan_out", nonlinearity="relu") */
			double sd = sqrt(2.0 / ((double)l->cout * l->k * l->k));
			for (size_t j = 0; j < l->nw; j++)
				w[j] = (float)(sd * rng_normal(&r));
		} else if (l->kind == L_BN || l->kind == L_BN_RELU || l->kind == L_BN_ADD_RELU ||
			   l->kind == L_BN_ADD) {
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
		} else if (l->kind == L_PRELU) {
			for (size_t j = 0; j < l->nw; j++) /* nn.PReLU's */
				w[j] = 0.25f;
		} else if (l->kind == L_ARCFACE) {
			const model_config *c = &m->cfg;
			init_classifier(w, shard_first(c->classes, c->shards, c->shard), l->cout,
					(size_t)l->cin, seed);
		}
	}
}
