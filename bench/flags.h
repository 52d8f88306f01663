/*
 * flags.h — bench's command line: the configuration a run is given, read
 * and checked by flags.c from one table that gives both the parsing and the
 * usage text.
 */
#ifndef BENCH_FLAGS_H
#define BENCH_FLAGS_H

#include <stdio.h>

#include "allreduce/allreduce.h"

typedef struct config {
	int describe, verbose, allreduce, rank_times, graph, nccl_high, profile;
	int batch, image, classes, iters, warmup, threads, lr_warmup, shard;
	int precision, layout, conv_algo;
	int model, head, embedding, classifier; /* model.h's enums; CLASSIFIER_* */
	double margin, scale;                   /* arcface; -1: not given */
	long long seed;
	double lr, momentum, weight_decay, label_smoothing, bucket_mb, loss_scale, nccl_timeout;
	double workspace_mb;
	const char *export_dir;
	const char *roof;     /* --roof: bin/perf-roof -s's file for --profile */
	const char *data_dir; /* --data: an ImageFolder tree, else synthetic */
	int loader_threads, prefetch, data_only;
	struct allreduce_config ar;
} config;

/* --classifier: the ArcFace classifier split by class over the ranks, or
 * whole on every rank (its gradient summed with the backbone's). */
enum { CLASSIFIER_SPLIT, CLASSIFIER_WHOLE };

/* Set lib's usage text from the table (call before anything can fail). */
void flags_usage(void);
/* Fill c from argv: defaults, each flag range-checked, the flags checked
 * against each other; a usage error exits 2. */
void flags_parse(config *c, int argc, char **argv);
/* The log's "# env node=0 setting.<name>=<value>" lines of a run (threads,
 * layout, conv_algo, workspace_mb, omp_num_threads); a setting that is not
 * set is absent, not "-". */
void flags_settings(const config *c, FILE *out);

#endif
