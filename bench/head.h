/*
 * bench/head.h: the ArcFace head of a model (head.c): the plan of its
 * buffers and op (arena.c calls head_plan for the table's L_ARCFACE
 * layer), its walks with the collectives of a split classifier between the
 * backend's ops (step.c calls head_forward and head_backward).
 *
 * The head splits the classifier by class over the ranks (shard.h); per
 * step: the embeddings normalised, all-gathered with their labels; the
 * logits of every rank's rows over this rank's classes; the softmax over
 * the split row through an allreduce of the rows' maxima and one of their
 * sums of exp; the gradient of the shard's classes local (never summed),
 * the embeddings' gradients reduce-scattered back to their ranks. With one
 * shard (one rank, or --classifier whole) there are no collectives.
 */
#ifndef BENCH_HEAD_H
#define BENCH_HEAD_H

#include <stdint.h>

#include "model.h"

struct head {
	bk_arcface_shape shape;
	float *xall;     /* [rows][e]: the normalised embeddings of all ranks */
	float *dxall;    /* [rows][e]: this shard's part of their gradient */
	float *dxn;      /* [batch][e]: this rank's rows summed over the shards (dxall: 1 shard) */
	int32_t *labels; /* [rows]: all ranks' labels (the model's: 1 shard) */
	float *stats;    /* [2][rows]: the rows' maxima, their sums of exp */
};

/* Layer li's head: its buffers (bk_malloc) and its op. */
bk_op *head_plan(model *m, int li);
void head_release(model *m);
/* Forward to the loss and the logits' gradient (scale = 1 / global batch);
 * backward to the classifier's and the embeddings' gradients. */
void head_forward(model *m, int li, float scale);
void head_backward(model *m, int li);

#endif
