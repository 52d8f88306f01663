/*
 * bench/main.c: the trainer. Parses and checks the flags, builds ResNet50
 * v1.5 (model.c) on the backend chosen at build time (backend.h), makes a
 * fixed synthetic batch per rank, and trains: forward, backward with the
 * gradient buckets summed over ranks as soon as backward has produced them
 * (comm.h), SGD. Writes the log of DESIGN.md ("bench's log") on stdout from
 * rank 0, banners and errors on stderr; --describe prints the layer table;
 * --export DIR writes the files of doc/CONTRACT.md for the PyTorch check.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "comm.h"
#include "model.h"
#include "allreduce/allreduce.h"

/* The CUDA backend's extras (bench/cuda_check.h). Weak: the CPU build links
 * without them, and main needs no #ifdef. */
extern void bk_cuda_set_loss_scale(float scale) __attribute__((weak));
extern double bk_cuda_peak_mem_mb(void) __attribute__((weak));
extern void bk_cuda_step_begin(void) __attribute__((weak));
extern double bk_cuda_step_end(void) __attribute__((weak));
extern float bk_cuda_loss_scale(void) __attribute__((weak));
extern long bk_cuda_skipped_steps(void) __attribute__((weak));

typedef struct config {
	int describe, batch, image, classes, iters, warmup, threads, lr_warmup, shard, verbose;
	int precision, layout, allreduce, warmup_given;
	float loss_scale;
	struct probe_config probe;
	long long seed;
	double lr, momentum, weight_decay, label_smoothing, bucket_mb;
	const char *export_dir;
} config;

static const char usage_text[] =
	"usage: bench [--describe] [--batch B] [--precision fp32|tf32|amp|bf16]\n"
	"             [--image PX] [--classes K] [--iters N] [--warmup W] [--threads T]\n"
	"             [--seed S] [--lr X] [--momentum X] [--weight-decay X] [--label-smoothing X]\n"
	"             [--lr-warmup N] [--shard R] [--bucket-mb X] [--layout blocked|nhwc]\n"
	"             [--verbose] [--export DIR] [--loss-scale N]\n"
	"       bench --allreduce [--min-bytes N] [--max-bytes N] [--factor 2|4] [--iters N]\n"
	"             [--warmup W]\n";

static void usage(void)
{
	fputs(usage_text, stderr);
	comm_abort(2);
}

static void bad(const char *flag, const char *fmt, const char *val)
{
	fprintf(stderr, "bench: %s: '%s' ", flag, val);
	fprintf(stderr, "%s\n", fmt);
	comm_abort(2);
}

static long long int_flag(const char *flag, const char *s, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end != '\0')
		bad(flag, "is not an integer", s);
	if (errno == ERANGE || v < lo || v > hi) {
		fprintf(stderr, "bench: %s: '%s' is out of range [%lld, %lld]\n", flag, s, lo, hi);
		comm_abort(2);
	}
	return v;
}

static double num_flag(const char *flag, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v))
		bad(flag, "is not a number", s);
	if (errno == ERANGE || v < lo || v > hi) {
		fprintf(stderr, "bench: %s: '%s' is out of range [%g, %g]\n", flag, s, lo, hi);
		comm_abort(2);
	}
	return v;
}

static void parse(config *c, int argc, char **argv)
{
	*c = (config){.batch = 16, .image = 224, .classes = 1000, .iters = 20, .warmup = 0,
		      .threads = 0, .seed = 1, .lr = -1, .momentum = 0.9,
		      .weight_decay = 1e-4, .label_smoothing = 0.0, .shard = -1,
		      .bucket_mb = 25.0, .precision = BK_FP32};
	int warmup_set = 0;
	probe_defaults(&c->probe);
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i];
		if (!strcmp(f, "--allreduce")) {
			c->allreduce = 1;
			continue;
		}
		/* the probe's own flags (--iters and --warmup are bench's) */
		if (i + 1 < argc && strcmp(f, "--iters") && strcmp(f, "--warmup")) {
			int r = probe_flag(&c->probe, f, argv[i + 1]);
			if (r < 0)
				comm_abort(2);
			if (r > 0) {
				i++;
				continue;
			}
		}
		if (!strcmp(f, "--describe")) {
			c->describe = 1;
			continue;
		}
		if (!strcmp(f, "--verbose")) {
			c->verbose = 1;
			continue;
		}
		if (!strcmp(f, "-h") || !strcmp(f, "--help"))
			usage();
		if (strncmp(f, "--", 2) != 0) {
			fprintf(stderr, "bench: unexpected argument '%s'\n", f);
			usage();
		}
		static const char *valued[] = {"--batch", "--precision", "--image", "--classes",
					       "--iters", "--warmup", "--threads", "--seed", "--lr",
					       "--momentum", "--weight-decay", "--label-smoothing",
					       "--lr-warmup", "--shard", "--bucket-mb", "--export",
					       "--layout", "--loss-scale"};
		int known = 0;
		for (size_t j = 0; j < sizeof valued / sizeof valued[0]; j++)
			known |= !strcmp(f, valued[j]);
		if (!known) {
			fprintf(stderr, "bench: unknown option '%s'\n", f);
			usage();
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "bench: %s needs a value\n", f);
			usage();
		}
		const char *v = argv[++i];
		if (!strcmp(f, "--batch"))
			c->batch = (int)int_flag(f, v, 1, 65536);
		else if (!strcmp(f, "--image"))
			c->image = (int)int_flag(f, v, 32, 4096);
		else if (!strcmp(f, "--classes"))
			c->classes = (int)int_flag(f, v, 2, 1000000);
		else if (!strcmp(f, "--iters"))
			c->iters = (int)int_flag(f, v, 1, 100000000);
		else if (!strcmp(f, "--warmup")) {
			c->warmup = (int)int_flag(f, v, 0, 100000000);
			warmup_set = 1;
			c->warmup_given = 1;
		} else if (!strcmp(f, "--threads"))
			c->threads = (int)int_flag(f, v, 1, 4096);
		else if (!strcmp(f, "--seed"))
			c->seed = int_flag(f, v, 0, 9007199254740992LL);
		else if (!strcmp(f, "--lr-warmup"))
			c->lr_warmup = (int)int_flag(f, v, 0, 100000000);
		else if (!strcmp(f, "--shard"))
			c->shard = (int)int_flag(f, v, 0, 1000000);
		else if (!strcmp(f, "--lr"))
			c->lr = num_flag(f, v, 0, 1e6);
		else if (!strcmp(f, "--momentum"))
			c->momentum = num_flag(f, v, 0, 1);
		else if (!strcmp(f, "--weight-decay"))
			c->weight_decay = num_flag(f, v, 0, 1);
		else if (!strcmp(f, "--label-smoothing"))
			c->label_smoothing = num_flag(f, v, 0, 1);
		else if (!strcmp(f, "--bucket-mb"))
			c->bucket_mb = num_flag(f, v, 0.001, 1e6);
		else if (!strcmp(f, "--export"))
			c->export_dir = v;
		else if (!strcmp(f, "--loss-scale"))
			c->loss_scale = (float)num_flag(f, v, 1, 16777216);
		else if (!strcmp(f, "--layout")) {
			if (!strcmp(v, "blocked"))
				c->layout = BK_LAYOUT_BLOCKED;
			else if (!strcmp(v, "nhwc"))
				c->layout = BK_LAYOUT_NHWC;
			else {
				fprintf(stderr, "bench: --layout: '%s' is not blocked or nhwc\n", v);
				comm_abort(2);
			}
		}
		else if (!strcmp(f, "--precision")) {
			static const char *names[] = {"fp32", "tf32", "amp", "bf16"};
			static const int values[] = {BK_FP32, BK_TF32, BK_AMP, BK_BF16};
			c->precision = -1;
			for (int j = 0; j < 4; j++)
				if (!strcmp(v, names[j]))
					c->precision = values[j];
			if (c->precision < 0) {
				fprintf(stderr,
					"bench: --precision: '%s' is not fp32, tf32, amp or bf16\n", v);
				comm_abort(2);
			}
		}
	}
	if (warmup_set && c->warmup >= c->iters) {
		fprintf(stderr, "bench: --warmup: '%d' must be less than --iters (%d)\n", c->warmup,
			c->iters);
		comm_abort(2);
	}
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

/* ---- the update: one pass over the flat buffers, weight decay on the
 * conv and fc weights (torchvision's recipe: not on BN and biases) ---- */

static bk_op *sgd_plan(const model *m)
{
	size_t lo[MODEL_MAX_LAYERS], hi[MODEL_MAX_LAYERS];
	int n = 0;
	for (int i = 0; i < m->nlayers; i++) {
		const layer *l = &m->layers[i];
		if (!model_decays(l))
			continue;
		if (n > 0 && hi[n - 1] == l->w) { /* adjacent: one range */
			hi[n - 1] += l->nw;
			continue;
		}
		if (n > 0 && l->w < hi[n - 1]) {
			fprintf(stderr, "bench: %s:%d: decayed weights out of order at %s\n",
				__FILE__, __LINE__, l->name);
			comm_abort(1);
		}
		lo[n] = l->w;
		hi[n++] = l->w + l->nw;
	}
	return bk_sgd_plan(m->params, m->grads, m->momentum, m->nparams, lo, hi, n);
}

/* ---- export (doc/CONTRACT.md) ---- */

static void die_errno(const char *what, const char *path)
{
	fprintf(stderr, "bench: %s: %s: %s\n", what, path, strerror(errno));
	comm_abort(1);
}

static void write_file(const char *dir, const char *name, const void *data, size_t bytes)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	if (!f)
		die_errno("--export", tmp);
	if (bytes && fwrite(data, 1, bytes, f) != bytes)
		die_errno("--export", tmp);
	if (fclose(f) != 0)
		die_errno("--export", tmp);
	if (rename(tmp, path) != 0)
		die_errno("--export", path);
}

static int by_offset(const void *a, const void *b)
{
	const layer *x = *(const layer *const *)a, *y = *(const layer *const *)b;
	return x->w < y->w ? -1 : x->w > y->w;
}

static void write_manifest(const char *dir, const model *m)
{
	size_t cap = 65536, len = 0;
	char *s = malloc(cap);
	if (!s)
		die_errno("--export", "manifest.tsv");
	/* in offset order (torchvision's), whatever the order of the layers */
	const layer *order[MODEL_MAX_LAYERS];
	int n = 0;
	for (int i = 0; i < m->nlayers; i++)
		if (m->layers[i].nw)
			order[n++] = &m->layers[i];
	qsort(order, (size_t)n, sizeof order[0], by_offset);
	for (int i = 0; i < n; i++) {
		const layer *l = order[i];
		const char *names[2] = {"weight", "bias"};
		size_t off[2] = {l->w, l->b}, cnt[2] = {l->nw, l->nb};
		for (int j = 0; j < 2; j++) {
			if (!cnt[j])
				continue;
			char shape[64];
			if (l->kind == L_CONV)
				snprintf(shape, sizeof shape, "%dx%dx%dx%d", l->cout, l->cin, l->k,
					 l->k);
			else if (l->kind == L_FC && j == 0)
				snprintf(shape, sizeof shape, "%dx%d", l->cout, l->cin);
			else
				snprintf(shape, sizeof shape, "%zu", cnt[j]);
			len += (size_t)snprintf(s + len, cap - len, "%s.%s\t%s\t%zu\t%zu\n", l->name,
						names[j], shape, off[j], cnt[j]);
			if (len >= cap - 256) {
				fprintf(stderr, "bench: %s:%d: manifest too long\n", __FILE__, __LINE__);
				comm_abort(1);
			}
		}
	}
	write_file(dir, "manifest.tsv", s, len);
	free(s);
}

static void export_params(const char *dir, const char *name, const float *dev, size_t n)
{
	float *h = malloc(n * sizeof(float));
	if (!h)
		die_errno("--export", name);
	bk_to_host(h, dev, n * sizeof(float));
	write_file(dir, name, h, n * sizeof(float));
	free(h);
}

static long peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_maxrss + 1023) / 1024; /* ru_maxrss is in KiB on Linux */
}

static const char *precision_name(int p)
{
	return p == BK_AMP ? "amp" : p == BK_BF16 ? "bf16" : p == BK_TF32 ? "tf32" : "fp32";
}

int main(int argc, char **argv)
{
	comm_init(&argc, &argv);
	config c;
	parse(&c, argc, argv);
	int rank = comm_rank(), size = comm_size();
	static model m;

	/* launch says how many ranks the configuration has; a job that came up
	 * with another count (a host file with too few slots, a bad srun) would
	 * log the wrong configuration. */
	const char *want = getenv("DLBENCH_WORLD");
	if (want && atoi(want) != size) {
		if (rank == 0)
			fprintf(stderr, "bench: DLBENCH_WORLD=%s but the job has %d rank%s\n", want,
				size, size == 1 ? "" : "s");
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
		if (access(c.export_dir, W_OK) != 0)
			die_errno("--export", c.export_dir);
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
	if (c.shard < 0)
		c.shard = rank;
	if (c.lr < 0) /* Goyal et al.: 0.1 per 256 samples of global batch */
		c.lr = 0.1 * c.batch * size / 256.0;

	if (c.loss_scale > 0) {
		if (!bk_cuda_set_loss_scale || c.precision != BK_AMP) {
			fprintf(stderr, "bench: --loss-scale: only with --precision amp on CUDA\n");
			comm_abort(2);
		}
		bk_cuda_set_loss_scale(c.loss_scale);
	}
	bk_config bc = {.precision = c.precision, .threads = c.threads,
			.local_rank = comm_local_rank(), .verbose = c.verbose, .layout = c.layout};
	bk_init(&bc);
	if (c.allreduce) { /* bench --allreduce: the probe, no training */
		c.probe.iters = c.iters;
		if (c.warmup_given)
			c.probe.warmup = c.warmup;
		int rc = probe_check(&c.probe) != 0 ? 2 : probe_allreduce(&c.probe, stdout);
		bk_finalize();
		comm_finalize();
		return fflush(stdout) == 0 && !ferror(stdout) ? rc : 1;
	}
	model_build(&m, c.batch, c.image, c.classes);
	model_plan(&m);

	/* parameters: the same on every rank, from --seed */
	float *host = malloc(m.nparams * sizeof(float));
	float *stats = malloc(m.nstats * sizeof(float));
	size_t img = (size_t)3 * c.image * c.image;
	float *input = malloc((size_t)c.batch * img * sizeof(float));
	int32_t *labels = malloc((size_t)c.batch * sizeof(int32_t));
	if (!host || !stats || !input || !labels) {
		fprintf(stderr, "bench: out of memory\n");
		comm_abort(1);
	}
	model_init_params(&m, host, stats, (uint64_t)c.seed);
	bk_to_device(m.params, host, m.nparams * sizeof(float));
	bk_to_device(m.stats, stats, m.nstats * sizeof(float));
	/* data: samples [shard*B, (shard+1)*B) of the sequence from --seed */
	for (int i = 0; i < c.batch; i++)
		data_sample((uint64_t)c.seed, (long)c.shard * c.batch + i, c.image, c.classes,
			    input + (size_t)i * img, &labels[i]);
	bk_tensor_write(m.tensors[m.input].t, input);
	bk_to_device(m.labels, labels, (size_t)c.batch * sizeof(int32_t));
	if (c.export_dir && rank == 0) {
		write_manifest(c.export_dir, &m);
		write_file(c.export_dir, "params.f32", host, m.nparams * sizeof(float));
		write_file(c.export_dir, "input.f32", input, (size_t)c.batch * img * sizeof(float));
		write_file(c.export_dir, "labels.i32", labels, (size_t)c.batch * sizeof(int32_t));
	}
	free(host);
	free(stats);
	free(input);
	free(labels);

	buckets bu;
	buckets_plan(&bu, &m, c.bucket_mb);
	bk_op *sgd = sgd_plan(&m);
	long global_batch = (long)c.batch * size;
	if (rank == 0) {
		fprintf(stderr, "bench: %s, %d rank(s), %d thread(s) each, %zu parameters, "
				"%d gradient bucket(s), %.0f MB for activations and their gradients, "
				"lr %g\n",
			bk_name(), size, c.threads, m.nparams, bu.n, m.acts_bytes / 1048576.0, c.lr);
		printf("# bench model=resnet50 backend=%s nodes=%d gpus_per_node=%d "
		       "batch_per_device=%d precision=%s image=%d data=synthetic\n",
		       bk_name(), comm_nodes(), comm_local_size(), c.batch,
		       precision_name(c.precision), c.image);
		fflush(stdout);
	}
	comm_barrier();

	double timed = 0.0;
	for (int it = 1; it <= c.iters; it++) {
		double t0 = now();
		if (bk_cuda_step_begin)
			bk_cuda_step_begin();
		model_forward(&m, (float)c.label_smoothing, 1.0f / (float)global_batch);
		bu.next = 0;
		model_backward(&m, size > 1 ? bucket_ready : NULL, &bu);
		if (size > 1) {
			bucket_ready(&bu, 0);
			comm_allreduce_wait_all();
		}
		if (c.export_dir && rank == 0) {
			tensor *z = &m.tensors[m.logits];
			float *lg = malloc((size_t)c.batch * c.classes * sizeof(float));
			if (!lg)
				die_errno("--export", "logits.f32");
			bk_sync();
			bk_tensor_read(z->t, lg);
			write_file(c.export_dir, "logits.f32", lg,
				   (size_t)c.batch * c.classes * sizeof(float));
			free(lg);
			export_params(c.export_dir, "grads.f32", m.grads, m.nparams);
		}
		double lr = c.lr;
		if (c.lr_warmup > 0 && it <= c.lr_warmup)
			lr = c.lr * it / c.lr_warmup;
		bk_sgd_run(sgd, 1.0f, (float)lr, (float)c.momentum, (float)c.weight_decay);
		bk_sync();
		double loss = bk_loss();
		double gloss = size > 1 ? comm_sum(loss) / size : loss;
		double t1 = now();
		struct timeval tv;
		gettimeofday(&tv, NULL);
		double step = bk_cuda_step_end ? bk_cuda_step_end() : t1 - t0;
		if (it > c.warmup)
			timed += step;
		if (rank == 0) {
			printf("iter=%d loss=%.4f step_s=%.4f samples_per_s=%.2f ts=%lld.%06ld\n", it,
			       gloss, step, (double)global_batch / step, (long long)tv.tv_sec,
			       (long)tv.tv_usec);
			fflush(stdout);
		}
		if (c.export_dir && rank == 0) {
			char s[64];
			int n = snprintf(s, sizeof s, "%.9g\n", gloss);
			write_file(c.export_dir, "loss.txt", s, (size_t)n);
			export_params(c.export_dir, "params_after.f32", m.params, m.nparams);
		}
	}
	double mine = bk_cuda_peak_mem_mb ? bk_cuda_peak_mem_mb() : (double)peak_rss_mb();
	long peak = (long)comm_max(mine);
	if (rank == 0 && bk_cuda_loss_scale && c.precision == BK_AMP)
		printf("# loss_scale=%g skipped_steps=%ld\n", (double)bk_cuda_loss_scale(),
		       bk_cuda_skipped_steps());
	if (rank == 0) {
		int n = c.iters - c.warmup;
		if (c.warmup > 0 || c.iters > 1)
			printf("# summary warmup=%d timed_iters=%d samples_per_s=%.2f\n", c.warmup, n,
			       timed > 0 ? (double)global_batch * n / timed : 0.0);
		printf("# end iters=%d peak_mem_mb=%ld\n", c.iters, peak);
	}
	bk_op_destroy(sgd);
	model_release(&m);
	bk_finalize();
	comm_finalize();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "bench: write error on stdout\n");
		return 1;
	}
	return 0;
}
