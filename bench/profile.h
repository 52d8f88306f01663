/*
 * bench/profile.h: bench --profile, where a step's time goes. The walks of
 * the model (step.c), the trainer (main.c) and a backend's own steps inside
 * an op (the CPU's reorders) put marks on the stream: a mark names the op
 * that runs from it to the next mark, as a layer (index into the model's
 * table, or PROF_NONE) and a kind. The backend times the marks (backend.h:
 * bk_prof_*; the host clock on the CPU, events on CUDA); profile.c keeps
 * each timed step's intervals and prints, after the run, one row per layer
 * and kind, medians over the timed steps, and the sums per kind.
 *
 * Off by default: every mark is one test of prof_on, nothing else.
 */
#ifndef BENCH_PROFILE_H
#define BENCH_PROFILE_H

enum prof_kind {
	PK_CONV_FWD,
	PK_CONV_BWD_DATA,
	PK_CONV_BWD_WEIGHTS,
	PK_BN_FWD, /* batch norm, with its ReLU and residual add where fused */
	PK_BN_BWD,
	PK_POOL_FWD,
	PK_POOL_BWD,
	PK_FC_FWD,
	PK_FC_BWD,
	PK_LOSS,      /* softmax cross-entropy and its gradient */
	PK_UPDATE,    /* SGD over the flat buffers */
	PK_REORDER,   /* layout and type conversions (weights, image, pooled) */
	PK_DX_ADD,    /* a data gradient added to one written before */
	PK_ALLREDUCE, /* waiting for the gradient sums */
	PK_OTHER,     /* the host between ops: the step's start, syncs */
	PK_ACT_FWD,   /* PReLU, dropout */
	PK_ACT_BWD,
	PK_HEAD,      /* the ArcFace head's normalisations of the embeddings */
	PK_HEAD_COMM, /* the split head's collectives */
	PK_COUNT
};

enum { PROF_NONE = -1, PROF_SAME = -2 };

extern int prof_on;
void prof_mark_(int layer, int kind);

/* The op from here on: layer's op of this kind. */
static inline void prof_at(int layer, int kind)
{
	if (prof_on)
		prof_mark_(layer, kind);
}

/* The same layer, another kind (a backend's steps inside one op). */
static inline void prof_kind(int kind)
{
	if (prof_on)
		prof_mark_(PROF_SAME, kind);
}

const char *prof_kind_name(int kind);

/* The trainer's side (main.c). prof_start turns profiling on for a model
 * with activations of elsize bytes, keeping up to steps timed steps, with
 * the bounds of a roof file (NULL: none; one of another configuration is an
 * error). Around each step: prof_step_begin, then, after its last op,
 * prof_step_end (keep: a timed step). prof_report prints the table. */
#include <stdio.h>
struct model;
void prof_start(const struct model *m, int elsize, const char *precision, int steps,
		const char *roof);
void prof_step_begin(void);
void prof_step_end(int keep);
void prof_report(FILE *f);

#endif
