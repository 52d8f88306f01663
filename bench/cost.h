/*
 * bench/cost.h: the work of each op of a training step, from the model's
 * table alone: its FLOPs (a multiply-add counts 2) and the fewest bytes it
 * must move (every input read once, every output written once). The step's
 * roof (bin/perf-roof -s) turns them into lower bounds and --profile into
 * achieved rates, so both count the same way.
 */
#ifndef BENCH_COST_H
#define BENCH_COST_H

#include "model.h"

typedef struct op_cost {
	double flop, bytes;
	int compute; /* 1: bounded by arithmetic (convolutions), 0: by memory */
} op_cost;

/* The cost of layer li's op of this kind (profile.h's PK_*; li PROF_NONE
 * for the loss and the update), activations of elsize bytes (4 fp32,
 * 2 bf16). Kinds with no inherent work (reorders, adds, waits) cost 0. */
op_cost cost_of(const model *m, int li, int kind, int elsize);

/* The inherent ops of one step in the order they run: layer (ls) and kind
 * of each, at most max; returns how many. */
int step_ops(const model *m, int *ls, int *kind, int max);

#endif
