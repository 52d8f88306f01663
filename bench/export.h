/*
 * bench/export.h: `bench --export DIR`, the files the PyTorch check
 * (tests/torch_reference.py) and check-gpu compare, as doc/correctness.md
 * lists them: manifest.tsv, params.f32, input.f32 and labels.i32 before
 * the step; logits.f32, grads.f32, loss.txt and params_after.f32 of the one
 * step. Each file is written to NAME.tmp and renamed, so a file that exists
 * is whole. Rank 0 calls these; every error dies naming the path.
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
		  const int32_t *labels);
/* After backward, before the update: the logits and the gradients. */
void export_gradients(const char *dir, const model *m);
/* After the update: the step's loss and the parameters. */
void export_after(const char *dir, const model *m, double loss);

#endif
