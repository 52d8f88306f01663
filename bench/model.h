/*
 * bench/model.h: the networks bench trains, as data: ResNet50 v1.5
 * (torchvision resnet50) or IResNet-50 (insightface's iresnet50, PLSC's
 * ResNet50 backbone), with a softmax classifier or an ArcFace head whose
 * classifier may be split by class over the ranks (head.h). A table of
 * layers in forward order; each names its input and output tensors and its
 * parameters as offsets into one flat parameter buffer (and the same offsets
 * in the gradient and momentum buffers). Parameters are laid out in
 * PyTorch's state_dict order, so the flat buffer is what
 * torch.cat([p.flatten() for p in model.parameters()]) would give; a split
 * classifier's shard, this rank's rows of it, comes last.
 *
 * model_build fills the table (model.c, the layers' constructors in
 * table.c, IResNet-50 in iresnet.c; no backend needed: --describe uses it
 * alone); model_plan allocates activations and gradients and plans the
 * backend ops (arena.c: the memory plan); model_forward walks the table,
 * model_backward walks it back (step.c; the ArcFace head's walks with
 * their collectives in head.c).
 */
#ifndef BENCH_MODEL_H
#define BENCH_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"

enum layer_kind {
	L_CONV,        /* y = conv(x); w [cout][cin][k][k] */
	L_BN,          /* y = bn(x); gamma [c] at w, beta [c] at b */
	L_BN_RELU,     /* y = relu(bn(x)) */
	L_BN_ADD_RELU, /* y = relu(bn(x) + x2): a bottleneck's bn3 and its residual add */
	L_MAXPOOL,     /* k 3 stride 2 pad 1 */
	L_AVGPOOL,     /* global average: [n][c][h][w] -> [n][c] */
	L_FC,          /* y = x w^T + b; w [cout][cin], b [cout] */
	L_PRELU,       /* y = x > 0 ? x : a[c] x; a [c] at w */
	L_BN_ADD,      /* y = bn(x) + x2: an IResNet block's bn3 and its residual add */
	L_FLATTEN,     /* [n][c][h][w] -> [n][c * h * w], torch.flatten's order */
	L_DROPOUT,     /* y = x * keep / (1 - p), keep drawn per sample and step */
	L_ARCFACE,     /* logits of the ArcFace head over this rank's shard (head.h); w [cr][cin] */
	L_KINDS
};

/* --model and --head: their words are model_arch_names, model_head_names. */
enum model_arch { ARCH_RESNET50, ARCH_IRESNET50 };
enum model_head { HEAD_SOFTMAX, HEAD_ARCFACE };
extern const char *const model_arch_names[];
extern const char *const model_head_names[];

/* What model_build makes. The split: the ArcFace classifier's classes are
 * cut into shards, shard r on rank r (shards 1: the whole classifier on
 * every rank, its gradient summed with the backbone's). */
typedef struct model_config {
	int arch, head;            /* enum model_arch, enum model_head */
	int batch, image, classes; /* batch: this rank's samples a step */
	int embedding;             /* iresnet50: the embedding's width */
	float dropout;             /* iresnet50: before fc */
	float margin, scale;       /* arcface: additive angular margin m, logit scale s */
	int shards, shard;         /* arcface: the classifier's shards, this rank's */
	long first_sample;         /* global index of this rank's first sample (dropout) */
	uint64_t seed;             /* the dropout masks' */
} model_config;

/* The defaults of a configuration: ResNet50 v1.5 with a softmax classifier
 * over 1000 classes at 224 px; IResNet-50 at 112 px, embedding 512,
 * dropout 0.4; ArcFace m 0.5, s 64; one shard. */
model_config model_config_default(int arch, int head);

enum { MODEL_MAX_LAYERS = 192, MODEL_MAX_TENSORS = 192 };

typedef struct layer {
	int kind;
	char name[64]; /* torchvision module name: "layer1.0.conv1", "bn1", "fc" */
	int x, x2, y;  /* tensor indices; x2 only for L_BN_ADD_RELU, else -1 */
	int cin, cout; /* channels (features for L_FC) */
	int k, stride, pad;
	size_t w, nw;   /* weight (conv, fc) or gamma (bn): offset, count */
	size_t b, nb;   /* bias (fc) or beta (bn): offset, count; nb 0 for conv */
	size_t stats;   /* bn: offset of running mean [c] then var [c] in stats */
	int accumulate; /* conv, bn: its dx adds to a gradient written before */
	int keep_y;     /* bn with ReLU: y lives until this layer's backward */
	size_t ready;   /* after this layer's backward, every gradient at offset
			      >= ready is final (layers need not be in offset order:
			      bn3 runs after the downsample whose parameters follow it) */
	bk_op *op;
} layer;

typedef struct tensor {
	int kind; /* enum bk_tensor_kind */
	int n, c, h, w;
	int producer;     /* layer index, -1 for the input image */
	int last_use;     /* index of the last layer reading it (forward order) */
	size_t off, doff; /* byte offsets of value and gradient storage */
	bk_tensor *t, *d; /* value and gradient handles (d NULL: none needed) */
} tensor;

struct head;

typedef struct model {
	/* configuration */
	model_config cfg;
	int batch, image, classes; /* cfg's */
	/* the table */
	int nlayers, ntensors;
	layer layers[MODEL_MAX_LAYERS];
	tensor tensors[MODEL_MAX_TENSORS];
	int input, logits; /* tensor indices; arcface: logits [rows][shard's classes] */
	int features;      /* the backbone's output: pooled (resnet50), the embedding */
	size_t nparams;    /* this rank's: 25,557,032 for resnet50 at 1000 classes */
	size_t nreduced;   /* [0, nreduced) summed over ranks: all but a split shard */
	size_t nwhole;     /* parameters of the whole model, the classifier unsplit */
	size_t nstats;     /* running mean and var of every BN */
	double flops;      /* forward FLOPs per sample, multiply-add = 2, unsplit */
	long step;         /* forward passes run: the dropout masks' step */
	struct head *head; /* the ArcFace head's plan (head.c), else NULL */
	/* device memory (after model_plan) */
	float *params;     /* [nparams] */
	float *grads;      /* [nparams] */
	float *momentum;   /* [nparams] */
	float *stats;      /* [nstats] */
	int32_t *labels;   /* [batch] */
	void *acts;        /* one arena: activations at tensor.off, their gradients
			      at tensor.doff, placed by lifetime (arena.c) */
	size_t acts_bytes; /* the arena's size */
} model;

/* ---- the table (model.c) ---- */

/* Dies with a usage error naming the flag when c cannot be built (too few
 * classes to split, an image too small for the model). */
void model_build(model *m, const model_config *c);
/* The layer table, the allreduce buckets (model_buckets), parameters and
 * FLOPs; with an ArcFace head its shard and the messages of a step. */
void model_describe(const model *m, size_t bucket_cap, int max_buckets, FILE *f);
/* The initialisation of torchvision (resnet50) or insightface (iresnet50,
 * ArcFace) into host memory [nparams], and BN running statistics (mean 0,
 * var 1) into host [nstats]. A classifier row's values depend on its class
 * alone, so every split draws the same whole classifier. */
void model_init_params(const model *m, float *params, float *stats, uint64_t seed);
/* Does layer i's parameter get weight decay (conv and fc weights only)? */
int model_decays(const layer *l);
/* The ranges [lo[i], hi[i]) of the flat parameter buffer that get weight
 * decay (torchvision's recipe: conv and fc weights, not BN and biases),
 * adjacent ones merged, in order; returns how many (at most
 * MODEL_MAX_LAYERS). */
int model_decay_ranges(const model *m, size_t *lo, size_t *hi);
/* The summed part of the gradient buffer, [0, nreduced), cut into allreduce
 * buckets at the layers' 'ready' offsets, each about cap elements (the last
 * may be smaller), in the order backward completes them: bucket i is
 * [lo[i], hi[i]). At most max buckets (the last takes the rest); returns
 * how many. */
int model_buckets(const model *m, size_t cap, size_t *lo, size_t *hi, int max);

/* ---- the memory plan (arena.c) ---- */

/* Places every activation and gradient in the arena, allocates it and the
 * flat buffers (bk_malloc), makes the tensors and plans every layer's op;
 * model_release undoes it. */
void model_plan(model *m);
void model_release(model *m);

/* ---- the walks of a step (step.c) ---- */

/* Forward from the input tensor to the loss (bk_loss after the next bk_sync);
 * also writes the logits gradient, scale * (softmax - target), scale =
 * 1 / global batch. With an ArcFace head, the head's collectives run in it
 * (every rank must call it). */
void model_forward(model *m, float label_smoothing, float scale);
/* Backward from the loss to the parameter gradients. Whenever a layer's
 * backward makes more gradients final, ready(ctx, off) is called with the
 * lowest offset from which all of them are (the layer's 'ready'). */
void model_backward(model *m, void (*ready)(void *ctx, size_t off), void *ctx);

#endif
