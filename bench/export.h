/*
 * bench/export.h: `bench --export DIR`, the files the PyTorch check
 * (tests/torch_reference.py) and check-gpu compare, as doc/correctness.md
 * lists them: manifest.tsv, params.f32, input.f32 and labels.i32 before
 * the step; logits.f32, grads.f32, loss.txt and params_after.f32 of the one
 * step (and dropout.u8, the dropout mask, for iresnet50). Each file is
 * written to NAME.tmp and renamed, so a file that exists is whole. Rank 0
 * calls these, and with a split classifier every rank (the shards are
 * gathered to rank 0, which writes the whole model's files: the same as
 * one rank's); every error dies naming the path.
 */
#ifndef BENCH_EXPORT_H
#define BENCH_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Dies "bench: --export: DIR: <strerror>" unless DIR is writable: before
 * any training, so a typo costs nothing. */
void export_check(const char *dir);
/* The model's table and what the step starts from (host memory):
 * params [nparams], input [batch][3][image][image], labels [batch]. */
void export_start(const char *dir, const model *m, const float *params, const float *input,
		  const int32_t *labels, int rank);
/* After backward, before the update: the logits and the gradients. */
void export_gradients(const char *dir, const model *m, int rank);
/* After the update: the step's loss and the parameters. */
void export_after(const char *dir, const model *m, double loss, int rank);

#endif
