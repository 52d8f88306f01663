/*
 * bench/model.h: ResNet50 v1.5 (torchvision resnet50) as data. A table of
 * layers in forward order; each names its input and output tensors and its
 * parameters as offsets into one flat parameter buffer (and the same offsets
 * in the gradient and momentum buffers). Parameters are laid out in
 * torchvision's state_dict order, so the flat buffer is what
 * torch.cat([p.flatten() for p in model.parameters()]) would give.
 *
 * model_build fills the table (model.c; no backend needed: --describe uses
 * it alone); model_plan allocates activations and gradients and plans the
 * backend ops (arena.c: the memory plan); model_forward walks the table,
 * model_backward walks it back (step.c).
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
};

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
	int accumulate; /* conv: its dx adds to a gradient written before */
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

typedef struct model {
	/* configuration */
	int batch, image, classes;
	/* the table */
	int nlayers, ntensors;
	layer layers[MODEL_MAX_LAYERS];
	tensor tensors[MODEL_MAX_TENSORS];
	int input, logits; /* tensor indices */
	size_t nparams;    /* 25,557,032 at 1000 classes */
	size_t nstats;     /* running mean and var of every BN */
	double flops;      /* forward FLOPs per sample, multiply-add = 2 */
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

void model_build(model *m, int batch, int image, int classes);
/* The layer table, the allreduce buckets (model_buckets), parameters and
 * FLOPs. */
void model_describe(const model *m, size_t bucket_cap, int max_buckets, FILE *f);
/* torchvision's initialisation into host memory [nparams], and BN running
 * statistics (mean 0, var 1) into host [nstats]. */
void model_init_params(const model *m, float *params, float *stats, uint64_t seed);
/* Does layer i's parameter get weight decay (conv and fc weights only)? */
int model_decays(const layer *l);
/* The ranges [lo[i], hi[i]) of the flat parameter buffer that get weight
 * decay (torchvision's recipe: conv and fc weights, not BN and biases),
 * adjacent ones merged, in order; returns how many (at most
 * MODEL_MAX_LAYERS). */
int model_decay_ranges(const model *m, size_t *lo, size_t *hi);
/* The gradient buffer cut into allreduce buckets at the layers' 'ready'
 * offsets, each about cap elements (the last may be smaller), in the order
 * backward completes them: bucket i is [lo[i], hi[i]). At most max buckets
 * (the last takes the rest); returns how many. */
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
 * 1 / global batch. */
void model_forward(model *m, float label_smoothing, float scale);
/* Backward from the loss to the parameter gradients. Whenever a layer's
 * backward makes more gradients final, ready(ctx, off) is called with the
 * lowest offset from which all of them are (the layer's 'ready'). */
void model_backward(model *m, void (*ready)(void *ctx, size_t off), void *ctx);

#endif
