/*
 * bench/main.c: the trainer, read top to bottom in main(): the
 * configuration (flags.c: one table gives the parsing and the usage;
 * env.c: the environment and the test hooks), the set-up (ResNet50 v1.5 as
 * a table, model.c; its memory plan, arena.c; on the backend chosen at
 * build time, backend.h; a fixed synthetic batch per rank, synthetic.c, or
 * an ImageFolder tree of JPEGs with --data DIR, data/data.h), the loop (a
 * step: forward, backward with the gradient buckets summed over ranks as
 * soon as backward has produced them, comm.h, SGD; step.c walks the table)
 * and the end. Writes bench's log (doc/formats.md) on stdout from rank 0,
 * banners and errors on stderr.
 *
 * Besides training: --describe prints the layer table; --allreduce runs the
 * allreduce benchmark (allreduce/allreduce.c); --data-only times the loader
 * alone. Within it: --export DIR writes the files of doc/correctness.md
 * (export.c); --rank-times adds each rank's compute time per step (the step
 * less its wait for the gradient sums) as "# ranks iter=N
 * compute_s=r0,r1,..."; --profile adds where a step's time goes
 * (profile.c), against the bounds of --roof FILE (bin/perf-roof -s) when
 * given.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "allreduce/allreduce.h"
#include "backend.h"
#include "comm.h"
#include "data/data.h"
#include "env.h"
#include "export.h"
#include "flags.h"
#include "lib.h"
#include "model.h"
#include "profile.h"
#include "synthetic.h"

/* Every error on any rank ends the whole job. */
static void end_all_ranks(int status)
{
	if (comm_size() > 1)
		comm_abort(status);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* stdout flushed and checked: a full disk fails the run. */
static int flushed(int rc)
{
	return fflush(stdout) == 0 && !ferror(stdout) ? rc : 1;
}

/* ---- the configuration and the modes that do not train ---- */

/* What the flags leave to the run: --export's one step, the threads of
 * each rank, its shard, the learning rate. */
static void config_settle(config *c, int rank, int size)
{
	if (c->export_dir) {
		export_check(c->export_dir);
		c->iters = 1;
		c->warmup = 0;
		c->lr_warmup = 0;
	}
	if (c->threads == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		c->threads = (int)(cores / comm_local_size());
		if (c->threads < 1)
			c->threads = 1;
	}
	if (c->loader_threads == 0)
		c->loader_threads = c->threads;
	if (c->shard < 0)
		c->shard = rank;
	if (c->lr < 0) /* Goyal et al.: 0.1 per 256 samples of global batch */
		c->lr = 0.1 * c->batch * size / 256.0;
}

static size_t bucket_cap(double mb)
{
	return (size_t)(mb * 1048576.0 / sizeof(float));
}

/* The model the flags ask for, on this rank of size: with a split ArcFace
 * classifier, shard 'rank' of 'size'. */
static model_config model_cfg(const config *c, int rank, int size)
{
	model_config mc = model_config_default(c->model, c->head);
	mc.batch = c->batch;
	mc.image = c->image;
	mc.classes = c->classes;
	if (c->embedding)
		mc.embedding = c->embedding;
	if (c->margin >= 0)
		mc.margin = (float)c->margin;
	if (c->scale >= 0)
		mc.scale = (float)c->scale;
	if (c->head == HEAD_ARCFACE && c->classifier == CLASSIFIER_SPLIT && size > 1) {
		mc.shards = size;
		mc.shard = rank;
	}
	mc.first_sample = (long)(c->shard < 0 ? rank : c->shard) * c->batch;
	mc.seed = (uint64_t)c->seed;
	return mc;
}

/* --describe: the table, no backend. */
static int describe(const config *c)
{
	static model m;
	model_config mc = model_cfg(c, comm_rank(), comm_size());
	model_build(&m, &mc);
	if (comm_rank() == 0)
		model_describe(&m, bucket_cap(c->bucket_mb), COMM_MAX_PENDING, stdout);
	comm_finalize();
	return flushed(0);
}

/* The backend for this configuration; returns 1 when it scales the loss. */
static int backend_start(const config *c)
{
	int scaled = bk_can_scale_loss() && c->precision == BK_AMP;
	if (c->loss_scale > 0) {
		if (!scaled)
			die_usage("--loss-scale: only with --precision amp on CUDA");
		bk_set_loss_scale((float)c->loss_scale);
	}
	bk_config bc = {.precision = c->precision,
			.threads = c->threads,
			.local_rank = comm_local_rank(),
			.verbose = c->verbose,
			.layout = c->layout,
			.conv_algo = c->conv_algo,
			.workspace_mb = c->workspace_mb,
			.graph = c->graph,
			.nccl_high_priority = c->nccl_high,
			.nccl_timeout = c->nccl_timeout};
	bk_init(&bc);
	return scaled;
}

/* bench --allreduce: the benchmark, no training. */
static int allreduce(config *c)
{
	allreduce_check(&c->ar);
	int rc = allreduce_run(&c->ar, stdout);
	bk_finalize();
	comm_finalize();
	return flushed(rc);
}

/* --data: the loader over the tree, and --classes from it. */
static loader *data_open(config *c, const bench_env *e, int rank, int size)
{
	loader_config lc = {.dir = c->data_dir,
			    .batch = c->batch,
			    .image = c->image,
			    .threads = c->loader_threads,
			    .prefetch = c->prefetch,
			    .rank = rank,
			    .world = size,
			    .seed = (uint64_t)c->seed,
			    .host_alloc = bk_host_alloc,
			    .host_free = bk_host_free,
			    .trace = e->trace[0] ? e->trace : NULL};
	loader *ld = loader_open(&lc);
	if (c->classes == 0)
		c->classes = loader_classes(ld) < 2 ? 2 : loader_classes(ld);
	else if (c->classes < loader_classes(ld))
		die_usage("--classes: %d, but %s has %d classes", c->classes, c->data_dir,
			  loader_classes(ld));
	return ld;
}

/* The data's part of the log's header line. */
static void data_desc(char *buf, size_t n, const config *c, const loader *ld)
{
	if (ld)
		snprintf(buf, n, "data=%s images=%ld classes=%d loader_threads=%d prefetch=%d",
			 c->data_dir, loader_images(ld), loader_classes(ld), c->loader_threads,
			 c->prefetch);
	else
		snprintf(buf, n, "data=synthetic");
}

/* --data-only: the loader alone. */
static int data_only(const config *c, loader *ld, int rank, int size)
{
	char data[4096];
	data_desc(data, sizeof data, c, ld);
	if (rank == 0)
		printf("# bench data-only ranks=%d batch_per_device=%d image=%d %s\n", size,
		       c->batch, c->image, data);
	data_only_run(ld, c->batch, c->iters, c->warmup, rank);
	loader_close(ld);
	bk_finalize();
	comm_finalize();
	return flushed(0);
}

/* ---- the set-up ---- */

/* What the loop works on. */
typedef struct trainer {
	const config *c;
	model *m;
	loader *ld; /* --data; NULL: the synthetic batch stays on the device */
	/* the gradient buckets (model_buckets), each started as soon as
	 * backward has made every gradient in it final */
	size_t lo[COMM_MAX_PENDING], hi[COMM_MAX_PENDING];
	int nbuckets, next; /* next to start, in backward order */
	bk_op *sgd;
	int rank, size;
	int exporting; /* --export: rank 0, or every rank of a split classifier (export.c gathers) */
	long global_batch;
	int capture_it; /* --graph: the step captured */
	double *rank_s; /* --rank-times: every rank's compute (rank 0), else NULL */
} trainer;

/* The parameters and BN statistics, the same on every rank from --seed,
 * and without --data the rank's fixed synthetic batch, onto the device;
 * --export's files of them (rank 0). */
static void load_start(const trainer *t)
{
	const config *c = t->c;
	model *m = t->m;
	float *host = xmalloc(m->nparams * sizeof(float));
	float *stats = xmalloc(m->nstats * sizeof(float));
	size_t img = (size_t)3 * c->image * c->image;
	float *input = xmalloc((size_t)c->batch * img * sizeof(float));
	int32_t *labels = xmalloc((size_t)c->batch * sizeof(int32_t));
	model_init_params(m, host, stats, (uint64_t)c->seed);
	bk_to_device(m->params, host, m->nparams * sizeof(float));
	bk_to_device(m->stats, stats, m->nstats * sizeof(float));
	if (!t->ld) {
		synthetic_batch((uint64_t)c->seed, c->shard, c->batch, c->image, c->classes, input,
				labels);
		bk_tensor_write(m->tensors[m->input].t, input);
		bk_to_device(m->labels, labels, (size_t)c->batch * sizeof(int32_t));
	}
	if (t->exporting)
		export_start(c->export_dir, m, host, input, labels, t->rank);
	free(host);
	free(stats);
	free(input);
	free(labels);
}

/* The update: one pass over the flat buffers, weight decay on the ranges
 * model_decay_ranges gives. */
static bk_op *sgd_plan(const model *m)
{
	size_t lo[MODEL_MAX_LAYERS], hi[MODEL_MAX_LAYERS];
	int n = model_decay_ranges(m, lo, hi);
	return bk_sgd_plan(m->params, m->grads, m->momentum, m->nparams, lo, hi, n);
}

/* Rank 0's banner on stderr, the log's header line and its settings. */
static void log_header(const trainer *t)
{
	const config *c = t->c;
	char data[4096];
	data_desc(data, sizeof data, c, t->ld);
	const model_config *mc = &t->m->cfg;
	char head[256] = "";
	warnf("%s, %d rank(s), %d thread(s) each, %zu parameters, %d gradient bucket(s), "
	      "%.0f MB for activations and their gradients, lr %g",
	      bk_name(), t->size, c->threads, t->m->nparams, t->nbuckets,
	      t->m->acts_bytes / 1048576.0, c->lr);
	if (mc->head == HEAD_ARCFACE)
		snprintf(head, sizeof head,
			 " head=arcface classes=%d embedding=%d margin=%g scale=%g classifier=%s",
			 mc->classes, t->m->tensors[t->m->features].c, (double)mc->margin,
			 (double)mc->scale, c->classifier == CLASSIFIER_SPLIT ? "split" : "whole");
	else if (mc->arch != ARCH_RESNET50)
		snprintf(head, sizeof head, " head=softmax classes=%d embedding=%d", mc->classes,
			 mc->embedding);
	printf("# bench model=%s%s backend=%s nodes=%d gpus_per_node=%d "
	       "batch_per_device=%d precision=%s image=%d %s\n",
	       model_arch_names[mc->arch], head, bk_name(), comm_nodes(), comm_local_size(),
	       c->batch, bk_precision_names[c->precision], c->image, data);
	flags_settings(c, stdout);
	/* The FLOP of a training sample, for the tables' MFU (3 x the forward:
	 * the forward, the backward to the inputs and to the weights). */
	printf("# env node=0 flop_per_sample=%.0f\n", 3 * t->m->flops);
	char lib[256], enc[3 * sizeof lib];
	if (comm_mpi_library(lib, sizeof lib) == 0) {
		meta_encode(enc, lib, strlen(lib));
		printf("# env node=0 mpi_library=%s\n", enc);
	}
	fflush(stdout);
}

/* ---- the loop ---- */

/* --data: the step's batch, copied in order with its ops. */
static void feed(const trainer *t, double *waited)
{
	const int32_t *lab;
	const float *x = loader_next(t->ld, &lab, waited);
	const model *m = t->m;
	size_t img = (size_t)3 * t->c->image * t->c->image;
	bk_to_device_async((char *)m->acts + m->tensors[m->input].off, x,
			   img * sizeof(float) * (size_t)t->c->batch);
	bk_to_device_async(m->labels, lab, (size_t)t->c->batch * sizeof(int32_t));
}

/* Backward's hook: start every bucket whose gradients are all final. */
static void bucket_ready(void *ctx, size_t off)
{
	trainer *t = ctx;
	comm_poll();
	while (t->next < t->nbuckets && t->lo[t->next] >= off) {
		comm_allreduce_start(t->m->grads + t->lo[t->next], t->hi[t->next] - t->lo[t->next]);
		t->next++;
	}
}

/* One step: forward, backward with the buckets, the update. replay: the
 * step is a captured graph, and bk_sgd_run launches it (--graph).
 * computed (--rank-times): the seconds since t0 when this rank's compute
 * ended, before it waits for the allreduce (0 in a replayed graph). */
static void train_step(trainer *t, int it, int replay, double t0, double *computed)
{
	const config *c = t->c;
	if (!replay) {
		model_forward(t->m, (float)c->label_smoothing, 1.0f / (float)t->global_batch);
		t->next = 0;
		model_backward(t->m, t->size > 1 ? bucket_ready : NULL, t);
		if (computed) { /* a device's queued work is compute too */
			bk_sync();
			*computed = now() - t0;
		}
		if (t->size > 1) {
			bucket_ready(t, 0);
			prof_at(PROF_NONE, PK_ALLREDUCE);
			comm_allreduce_wait_all();
		}
		if (t->exporting)
			export_gradients(c->export_dir, t->m, t->rank);
	}
	double lr = c->lr;
	if (c->lr_warmup > 0 && it <= c->lr_warmup)
		lr = c->lr * it / c->lr_warmup;
	prof_at(PROF_NONE, PK_UPDATE);
	bk_sgd_run(t->sgd, 1.0f, (float)lr, (float)c->momentum, (float)c->weight_decay);
}

/* The step, under --graph captured at capture_it and replayed after; a
 * capture that failed runs the step uncaptured. */
static void step(trainer *t, int it, double t0, double *computed)
{
	int capturing = t->c->graph && it == t->capture_it && bk_graph_begin();
	train_step(t, it, bk_graph_ready(), t0, computed);
	if (capturing && !bk_graph_end())
		train_step(t, it, 0, t0, computed);
}

/* The step's lines of the log (rank 0): --rank-times' compute of every
 * rank, then the iteration. */
static void log_step(const trainer *t, int it, double loss, double step_s, double data_s,
		     const struct timeval *tv, double computed)
{
	if (t->rank_s)
		comm_gather(computed, t->rank_s);
	if (t->rank == 0 && t->rank_s) {
		printf("# ranks iter=%d compute_s=", it);
		for (int r = 0; r < t->size; r++)
			printf("%s%.4f", r ? "," : "", t->rank_s[r]);
		putchar('\n');
	}
	if (t->rank == 0) {
		printf("iter=%d loss=%.4f step_s=%.4f samples_per_s=%.2f ts=%lld.%06ld", it, loss,
		       step_s, (double)t->global_batch / step_s, (long long)tv->tv_sec,
		       (long)tv->tv_usec);
		if (t->ld)
			printf(" data_s=%.4f", data_s);
		printf("\n");
		fflush(stdout);
	}
}

/* ---- the end ---- */

/* The ArcFace classifier's memory on each rank, its weights, gradient and
 * momentum (the largest shard's: rank 0's), and the same of the whole
 * classifier: the end line's classifier_mb= and classifier_whole_mb=. */
static void classifier_mem(const model *m)
{
	const layer *l = &m->layers[m->tensors[m->logits].producer];
	double mb = 3.0 * sizeof(float) / 1048576.0;
	printf(" classifier_mb=%.1f classifier_whole_mb=%.1f", mb * (double)l->nw,
	       mb * (double)m->classes * l->cin);
}

/* The log's last lines (rank 0): the loss scale, the summary of the timed
 * steps, --profile's table, the end with the peak memory over ranks (and,
 * with the ArcFace head, its classifier's on each rank). */
static void log_end(const trainer *t, double timed, int scaled)
{
	const config *c = t->c;
	long peak = (long)comm_max(bk_peak_mem_mb());
	if (t->rank == 0 && scaled)
		printf("# loss_scale=%g skipped_steps=%ld\n", (double)bk_loss_scale(),
		       bk_skipped_steps());
	if (t->rank == 0) {
		int n = c->iters - c->warmup;
		if (c->warmup > 0 || c->iters > 1)
			printf("# summary warmup=%d timed_iters=%d samples_per_s=%.2f\n", c->warmup,
			       n, timed > 0 ? (double)t->global_batch * n / timed : 0.0);
		prof_report(stdout);
		printf("# end iters=%d peak_mem_mb=%ld", c->iters, peak);
		if (t->m->head)
			classifier_mem(t->m);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	/* the configuration */
	progname = "bench";
	flags_usage();
	comm_init(&argc, &argv);
	set_exit_hook(end_all_ranks);
	config c;
	flags_parse(&c, argc, argv);
	int rank = comm_rank(), size = comm_size();
	bench_env env;
	env_read(&env, rank, size);
	if (c.describe)
		return describe(&c);
	config_settle(&c, rank, size);
	int scaled = backend_start(&c);
	if (c.allreduce)
		return allreduce(&c);
	loader *ld = c.data_dir ? data_open(&c, &env, rank, size) : NULL;
	if (c.data_only)
		return data_only(&c, ld, rank, size);

	/* the set-up */
	static model m;
	model_config mc = model_cfg(&c, rank, size);
	model_build(&m, &mc);
	model_plan(&m);
	if (c.profile)
		prof_start(&m, c.precision == BK_FP32 || c.precision == BK_TF32 ? 4 : 2,
			   bk_precision_names[c.precision], c.iters - c.warmup, c.roof);
	trainer t = {.c = &c,
		     .m = &m,
		     .ld = ld,
		     .rank = rank,
		     .size = size,
		     .exporting = c.export_dir && (rank == 0 || mc.shards > 1),
		     .global_batch = (long)c.batch * size,
		     /* --graph: the last warm-up step, never step 1 (it allocates) */
		     .capture_it = c.warmup >= 2 ? c.warmup : 2};
	load_start(&t);
	t.nbuckets = model_buckets(&m, bucket_cap(c.bucket_mb), t.lo, t.hi, COMM_MAX_PENDING);
	t.sgd = sgd_plan(&m);
	if (rank == 0)
		log_header(&t);
	comm_barrier();

	/* the loop */
	double timed = 0.0;
	t.rank_s = c.rank_times ? xmalloc((size_t)size * sizeof(double)) : NULL;
	for (int it = 1; it <= c.iters; it++) {
		double t0 = now(), computed = 0.0, waited = 0.0;
		if (ld)
			feed(&t, &waited);
		bk_step_begin();
		prof_step_begin();
		if (env.slow_ms > 0)
			sleep_ms(env.slow_ms);
		step(&t, it, t0, t.rank_s ? &computed : NULL);
		bk_sync();
		prof_step_end(it > c.warmup);
		if (ld)
			loader_release(ld);
		double loss = bk_loss();
		double gloss = size > 1 ? comm_sum(loss) / size : loss;
		double t1 = now();
		struct timeval tv;
		gettimeofday(&tv, NULL);
		double step_s = bk_step_end(t1 - t0);
		double gwait = ld && size > 1 ? comm_max(waited) : waited;
		if (ld) /* the wait for data counts: an input-bound step is slow */
			step_s = t1 - t0;
		if (it > c.warmup)
			timed += step_s;
		log_step(&t, it, gloss, step_s, gwait, &tv, computed);
		if (t.exporting)
			export_after(c.export_dir, &m, gloss, rank);
	}

	/* the end */
	free(t.rank_s);
	log_end(&t, timed, scaled);
	if (ld)
		loader_close(ld);
	bk_op_destroy(t.sgd);
	model_release(&m);
	bk_finalize();
	comm_finalize();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warnf("write error on stdout");
		return 1;
	}
	return 0;
}
