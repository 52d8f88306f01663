/*
 * bench/main.c: the trainer. Takes the flags (flags.c: one table gives
 * both the parsing and the usage), builds ResNet50 v1.5 (model.c) on the
 * backend chosen at build time (backend.h), makes a fixed synthetic batch per
 * rank, and trains: forward, backward with the gradient buckets summed over
 * ranks as soon as backward has produced them (comm.h), SGD. Writes bench's
 * log (doc/formats.md) on stdout from rank 0, banners and errors on stderr;
 * --describe prints the layer table; --export DIR writes the files of
 * doc/correctness.md (export.c); --allreduce runs the allreduce benchmark
 * instead of training (allreduce/allreduce.c); --data DIR trains on an
 * ImageFolder tree of JPEGs instead of the synthetic batch (data/data.h),
 * --data-only times the loader alone. --rank-times adds each
 * rank's compute time per step (the step less its wait for the gradient
 * sums) as "# ranks iter=N compute_s=r0,r1,..."; DLBENCH_SLOW_RANK=R:MS makes
 * rank R sleep MS ms in each step's compute, a slow rank on purpose (tests).
 * --profile adds where a step's time goes (profile.c), against the
 * bounds of --roof FILE (bin/perf-roof -s) when given.
 * DLBENCH_DATA_TRACE=PREFIX makes each rank R of a --data run list the
 * samples it trained on in PREFIX.R (data/data.h's trace; tests).
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
#include "export.h"
#include "flags.h"
#include "lib.h"
#include "model.h"
#include "profile.h"

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

/* ---- gradient buckets (model_buckets): started as soon as backward has
 * made every gradient in them final ---- */

typedef struct buckets {
	float *grads;
	size_t lo[COMM_MAX_PENDING], hi[COMM_MAX_PENDING];
	int n, next; /* next to start, in backward order */
} buckets;

static size_t bucket_cap(double mb)
{
	return (size_t)(mb * 1048576.0 / sizeof(float));
}

static void buckets_plan(buckets *b, const model *m, double mb)
{
	b->grads = m->grads;
	b->n = model_buckets(m, bucket_cap(mb), b->lo, b->hi, COMM_MAX_PENDING);
}

static void bucket_ready(void *ctx, size_t off)
{
	buckets *b = ctx;
	comm_poll();
	while (b->next < b->n && b->lo[b->next] >= off) {
		comm_allreduce_start(b->grads + b->lo[b->next], b->hi[b->next] - b->lo[b->next]);
		b->next++;
	}
}

/* The update: one pass over the flat buffers, weight decay on the ranges
 * model_decay_ranges gives. */
static bk_op *sgd_plan(const model *m)
{
	size_t lo[MODEL_MAX_LAYERS], hi[MODEL_MAX_LAYERS];
	int n = model_decay_ranges(m, lo, hi);
	return bk_sgd_plan(m->params, m->grads, m->momentum, m->nparams, lo, hi, n);
}

/* DLBENCH_SLOW_RANK=R:MS: the milliseconds this rank sleeps in each step
 * (0 unless R is this rank). */
static long slow_rank_ms(int rank)
{
	const char *v = getenv("DLBENCH_SLOW_RANK");
	long r, ms;
	if (!v || !*v)
		return 0;
	const char *colon = strchr(v, ':');
	char rs[32];
	if (!colon || (size_t)(colon - v) >= sizeof rs)
		die("DLBENCH_SLOW_RANK=%s: want RANK:MILLISECONDS", v);
	memcpy(rs, v, (size_t)(colon - v));
	rs[colon - v] = '\0';
	if (parse_long(rs, 0, 1L << 30, &r) != 0 || parse_long(colon + 1, 0, 3600000, &ms) != 0)
		die("DLBENCH_SLOW_RANK=%s: want RANK:MILLISECONDS (0..3600000)", v);
	return r == rank ? ms : 0;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* One step: forward, backward with the buckets, the update. replay: the
 * step is a captured graph, and bk_sgd_run launches it (--graph).
 * computed (--rank-times): the seconds since t0 when this rank's compute
 * ended, before it waits for the allreduce (0 in a replayed graph). */
static void train_step(model *m, buckets *bu, bk_op *sgd, const config *c, int it,
		       long global_batch, int exporting, int replay, double t0, double *computed)
{
	int size = comm_size();
	if (!replay) {
		model_forward(m, (float)c->label_smoothing, 1.0f / (float)global_batch);
		bu->next = 0;
		model_backward(m, size > 1 ? bucket_ready : NULL, bu);
		if (computed) { /* a device's queued work is compute too */
			bk_sync();
			*computed = now() - t0;
		}
		if (size > 1) {
			bucket_ready(bu, 0);
			prof_at(PROF_NONE, PK_ALLREDUCE);
			comm_allreduce_wait_all();
		}
		if (exporting)
			export_gradients(c->export_dir, m);
	}
	double lr = c->lr;
	if (c->lr_warmup > 0 && it <= c->lr_warmup)
		lr = c->lr * it / c->lr_warmup;
	prof_at(PROF_NONE, PK_UPDATE);
	bk_sgd_run(sgd, 1.0f, (float)lr, (float)c->momentum, (float)c->weight_decay);
}

static const char *precision_name(int p)
{
	return p == BK_AMP ? "amp" : p == BK_BF16 ? "bf16" : p == BK_TF32 ? "tf32" : "fp32";
}

int main(int argc, char **argv)
{
	progname = "bench";
	flags_usage();
	comm_init(&argc, &argv);
	set_exit_hook(end_all_ranks);
	config c;
	flags_parse(&c, argc, argv);
	int rank = comm_rank(), size = comm_size();
	long slow_ms = slow_rank_ms(rank);
	static model m;

	/* launch says how many ranks the configuration has; a job that came up
	 * with another count (a host file with too few slots, a bad srun) would
	 * log the wrong configuration. */
	const char *want = getenv("DLBENCH_WORLD");
	long wanted;
	if (want && (parse_long(want, 1, 1L << 30, &wanted) != 0 || wanted != size)) {
		if (rank == 0)
			warnf("DLBENCH_WORLD=%s but the job has %d rank%s", want, size,
			      size == 1 ? "" : "s");
		comm_abort(1);
	}

	if (c.describe) {
		model_build(&m, c.batch, c.image, c.classes);
		if (rank == 0)
			model_describe(&m, bucket_cap(c.bucket_mb), COMM_MAX_PENDING, stdout);
		comm_finalize();
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	if (c.export_dir) {
		export_check(c.export_dir);
		c.iters = 1;
		c.warmup = 0;
		c.lr_warmup = 0;
	}
	if (c.threads == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		c.threads = (int)(cores / comm_local_size());
		if (c.threads < 1)
			c.threads = 1;
	}
	if (c.loader_threads == 0)
		c.loader_threads = c.threads;
	if (c.shard < 0)
		c.shard = rank;
	if (c.lr < 0) /* Goyal et al.: 0.1 per 256 samples of global batch */
		c.lr = 0.1 * c.batch * size / 256.0;

	int scaled = bk_can_scale_loss() && c.precision == BK_AMP;
	if (c.loss_scale > 0) {
		if (!scaled)
			die_usage("--loss-scale: only with --precision amp on CUDA");
		bk_set_loss_scale((float)c.loss_scale);
	}
	bk_config bc = {.precision = c.precision,
			.threads = c.threads,
			.local_rank = comm_local_rank(),
			.verbose = c.verbose,
			.layout = c.layout,
			.conv_algo = c.conv_algo,
			.workspace_mb = c.workspace_mb,
			.graph = c.graph,
			.nccl_high_priority = c.nccl_high,
			.nccl_timeout = c.nccl_timeout};
	bk_init(&bc);
	if (c.allreduce) { /* bench --allreduce: the benchmark, no training */
		allreduce_check(&c.ar);
		int rc = allreduce_run(&c.ar, stdout);
		bk_finalize();
		comm_finalize();
		return fflush(stdout) == 0 && !ferror(stdout) ? rc : 1;
	}
	loader *ld = NULL;
	if (c.data_dir) {
		const char *tp = getenv("DLBENCH_DATA_TRACE");
		char trace[4096];
		if (tp && *tp &&
		    snprintf(trace, sizeof trace, "%s.%d", tp, rank) >= (int)sizeof trace)
			die("DLBENCH_DATA_TRACE=%s: too long", tp);
		loader_config lc = {.dir = c.data_dir,
				    .batch = c.batch,
				    .image = c.image,
				    .threads = c.loader_threads,
				    .prefetch = c.prefetch,
				    .rank = rank,
				    .world = size,
				    .seed = (uint64_t)c.seed,
				    .host_alloc = bk_host_alloc,
				    .host_free = bk_host_free,
				    .trace = tp && *tp ? trace : NULL};
		ld = loader_open(&lc);
		if (c.classes == 0)
			c.classes = loader_classes(ld) < 2 ? 2 : loader_classes(ld);
		else if (c.classes < loader_classes(ld))
			die_usage("--classes: %d, but %s has %d classes", c.classes, c.data_dir,
				  loader_classes(ld));
	}
	char data[4096] = "data=synthetic";
	if (ld)
		snprintf(data, sizeof data,
			 "data=%s images=%ld classes=%d loader_threads=%d prefetch=%d", c.data_dir,
			 loader_images(ld), loader_classes(ld), c.loader_threads, c.prefetch);
	if (c.data_only) {
		if (rank == 0)
			printf("# bench data-only ranks=%d batch_per_device=%d image=%d %s\n", size,
			       c.batch, c.image, data);
		data_only_run(ld, c.batch, c.iters, c.warmup, rank);
		loader_close(ld);
		bk_finalize();
		comm_finalize();
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	model_build(&m, c.batch, c.image, c.classes);
	model_plan(&m);
	if (c.profile)
		prof_start(&m, c.precision == BK_FP32 || c.precision == BK_TF32 ? 4 : 2,
			   precision_name(c.precision), c.iters - c.warmup, c.roof);

	/* parameters: the same on every rank, from --seed */
	float *host = xmalloc(m.nparams * sizeof(float));
	float *stats = xmalloc(m.nstats * sizeof(float));
	size_t img = (size_t)3 * c.image * c.image;
	float *input = xmalloc((size_t)c.batch * img * sizeof(float));
	int32_t *labels = xmalloc((size_t)c.batch * sizeof(int32_t));
	model_init_params(&m, host, stats, (uint64_t)c.seed);
	bk_to_device(m.params, host, m.nparams * sizeof(float));
	bk_to_device(m.stats, stats, m.nstats * sizeof(float));
	/* data: samples [shard*B, (shard+1)*B) of the sequence from --seed */
	for (int i = 0; i < (ld ? 0 : c.batch); i++)
		data_sample((uint64_t)c.seed, (long)c.shard * c.batch + i, c.image, c.classes,
			    input + (size_t)i * img, &labels[i]);
	if (!ld) {
		bk_tensor_write(m.tensors[m.input].t, input);
		bk_to_device(m.labels, labels, (size_t)c.batch * sizeof(int32_t));
	}
	int exporting = c.export_dir && rank == 0;
	if (exporting)
		export_start(c.export_dir, &m, host, input, labels);
	free(host);
	free(stats);
	free(input);
	free(labels);

	buckets bu;
	buckets_plan(&bu, &m, c.bucket_mb);
	bk_op *sgd = sgd_plan(&m);
	long global_batch = (long)c.batch * size;
	if (rank == 0) {
		warnf("%s, %d rank(s), %d thread(s) each, %zu parameters, %d gradient bucket(s), "
		      "%.0f MB for activations and their gradients, lr %g",
		      bk_name(), size, c.threads, m.nparams, bu.n, m.acts_bytes / 1048576.0, c.lr);
		printf("# bench model=resnet50 backend=%s nodes=%d gpus_per_node=%d "
		       "batch_per_device=%d precision=%s image=%d %s\n",
		       bk_name(), comm_nodes(), comm_local_size(), c.batch,
		       precision_name(c.precision), c.image, data);
		flags_settings(&c, stdout);
		fflush(stdout);
	}
	comm_barrier();

	double timed = 0.0;
	double *rank_s = c.rank_times ? xmalloc((size_t)size * sizeof(double)) : NULL;
	/* --graph captures the last warm-up step (never step 1, which allocates) */
	int capture_it = c.warmup >= 2 ? c.warmup : 2;
	for (int it = 1; it <= c.iters; it++) {
		double t0 = now(), computed = 0.0, waited = 0.0;
		if (ld) { /* the step's batch, copied in order with its ops */
			const int32_t *lab;
			const float *x = loader_next(ld, &lab, &waited);
			bk_to_device_async((char *)m.acts + m.tensors[m.input].off, x,
					   img * sizeof(float) * (size_t)c.batch);
			bk_to_device_async(m.labels, lab, (size_t)c.batch * sizeof(int32_t));
		}
		bk_step_begin();
		prof_step_begin();
		if (slow_ms > 0)
			sleep_ms(slow_ms);
		double *cp = rank_s ? &computed : NULL;
		int capturing = c.graph && it == capture_it && bk_graph_begin();
		train_step(&m, &bu, sgd, &c, it, global_batch, exporting, bk_graph_ready(), t0, cp);
		if (capturing && !bk_graph_end())
			train_step(&m, &bu, sgd, &c, it, global_batch, exporting, 0, t0, cp);
		bk_sync();
		prof_step_end(it > c.warmup);
		if (ld)
			loader_release(ld);
		double loss = bk_loss();
		double gloss = size > 1 ? comm_sum(loss) / size : loss;
		double t1 = now();
		struct timeval tv;
		gettimeofday(&tv, NULL);
		double step = bk_step_end(t1 - t0);
		double gwait = ld && size > 1 ? comm_max(waited) : waited;
		if (ld) /* the wait for data counts: an input-bound step is slow */
			step = t1 - t0;
		if (it > c.warmup)
			timed += step;
		if (rank_s)
			comm_gather(computed, rank_s);
		if (rank == 0 && rank_s) {
			printf("# ranks iter=%d compute_s=", it);
			for (int r = 0; r < size; r++)
				printf("%s%.4f", r ? "," : "", rank_s[r]);
			putchar('\n');
		}
		if (rank == 0) {
			printf("iter=%d loss=%.4f step_s=%.4f samples_per_s=%.2f ts=%lld.%06ld", it,
			       gloss, step, (double)global_batch / step, (long long)tv.tv_sec,
			       (long)tv.tv_usec);
			if (ld)
				printf(" data_s=%.4f", gwait);
			printf("\n");
			fflush(stdout);
		}
		if (exporting)
			export_after(c.export_dir, &m, gloss);
	}
	free(rank_s);
	long peak = (long)comm_max(bk_peak_mem_mb());
	if (rank == 0 && scaled)
		printf("# loss_scale=%g skipped_steps=%ld\n", (double)bk_loss_scale(),
		       bk_skipped_steps());
	if (rank == 0) {
		int n = c.iters - c.warmup;
		if (c.warmup > 0 || c.iters > 1)
			printf("# summary warmup=%d timed_iters=%d samples_per_s=%.2f\n", c.warmup,
			       n, timed > 0 ? (double)global_batch * n / timed : 0.0);
		prof_report(stdout);
		printf("# end iters=%d peak_mem_mb=%ld\n", c.iters, peak);
	}
	if (ld)
		loader_close(ld);
	bk_op_destroy(sgd);
	model_release(&m);
	bk_finalize();
	comm_finalize();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warnf("write error on stdout");
		return 1;
	}
	return 0;
}
