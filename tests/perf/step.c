/*
 * tests/perf/step.c: bin/perf-step-roof, the roof of one training step of
 * bench's ResNet50 v1.5 on this machine: every op of the step (cost.h's
 * step_ops) at its lower bound, a convolution its FLOPs at the best rate
 * oneDNN reaches for its exact shape, direction and precision (direct and
 * Winograd where oneDNN has it, layouts of its choosing: convtime.c), a
 * memory-bound op its bytes at the memory bandwidth measured here (a copy
 * over buffers far larger than the caches). Reads nothing; writes on
 * stdout the roof file bench --profile --roof reads:
 *
 *	# roof model=resnet50 image=224 batch=16 precision=fp32 classes=1000 threads=2 ...
 *	op conv1 conv-fwd 9.876 1888223232 25690112 191.2 direct
 *	...
 *	kind conv-fwd 345.678 28.1%
 *	roof step_ms=1234.567 images_per_s=12.96
 *
 * (op: layer, kind, bound ms, FLOP, bytes, GFLOP/s or GB/s, how). Progress
 * with -v on stderr.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convtime.h"
#include "cost.h"
#include "cpu/dnnl_check.h"
#include "lib.h"
#include "model.h"
#include "profile.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Bytes per second of a copy (read + write counted) over two buffers of
 * 128 MiB each, best of reps, OpenMP threads. */
static double bandwidth(int reps)
{
	size_t n = (size_t)32 << 20;
	float *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
#pragma omp parallel for
	for (size_t i = 0; i < n; i++) {
		a[i] = (float)(i & 255);
		b[i] = 0.0f;
	}
	double best = 1e30;
	for (int r = -1; r < reps; r++) {
		double t0 = now();
#pragma omp parallel for
		for (size_t i = 0; i < n; i++)
			b[i] = a[i] * 1.0001f;
		double t = now() - t0;
		if (r >= 0 && t < best)
			best = t;
		float *s = a; /* the next pass reads what this one wrote */
		a = b;
		b = s;
	}
	free(a);
	free(b);
	return 2.0 * (double)n * sizeof(float) / best;
}

/* A convolution's best seconds, cached per distinct shape and direction. */
enum { MAX_SEEN = 3 * MODEL_MAX_LAYERS };
static struct seen {
	conv_shape c;
	int dir;
	double t;
	const char *how;
} seen[MAX_SEEN];
static int nseen;

static double conv_best(const conv_shape *c, int dir, dnnl_data_type_t dt, int reps,
			dnnl_engine_t eng, dnnl_stream_t st, const char **how)
{
	for (int i = 0; i < nseen; i++)
		if (seen[i].dir == dir && !memcmp(&seen[i].c, c, sizeof *c)) {
			*how = seen[i].how;
			return seen[i].t;
		}
	double t = conv_time(c, dir, dt, dnnl_convolution_direct, reps, eng, st);
	*how = "direct";
	if (c->k == 3 && c->s == 1) { /* oneDNN's Winograd: 3x3, stride 1 */
		double w = conv_time(c, dir, dt, dnnl_convolution_winograd, reps, eng, st);
		if (w > 0 && (t < 0 || w < t)) {
			t = w;
			*how = "winograd";
		}
	}
	if (t < 0)
		die("%dx%dx%dx%d s%d on %dx%d: no convolution in oneDNN here", c->oc, c->ic, c->k,
		    c->k, c->s, c->h, c->w);
	if (nseen < MAX_SEEN)
		seen[nseen++] = (struct seen){*c, dir, t, *how};
	return t;
}

static int dir_of(int kind)
{
	return kind == PK_CONV_FWD ? FWD : kind == PK_CONV_BWD_DATA ? BWD_DATA : BWD_WEIGHTS;
}

int main(int argc, char **argv)
{
	progname = "perf-step-roof";
	usage_text = "perf-step-roof [-v] [-i image] [-b batch] [-c classes] [-n reps] "
		     "[-p fp32|amp|bf16]";
	int image = 224, batch = 16, classes = 1000, reps = 3, verbose = 0, ch;
	const char *prec = "fp32";
	while ((ch = getopt(argc, argv, "i:b:c:n:p:v")) != -1) {
		switch (ch) {
		case 'i':
			image = (int)flag_int("-i", optarg, 32, 4096);
			break;
		case 'b':
			batch = (int)flag_int("-b", optarg, 1, 1024);
			break;
		case 'c':
			classes = (int)flag_int("-c", optarg, 2, 1000000);
			break;
		case 'n':
			reps = (int)flag_int("-n", optarg, 1, 10000);
			break;
		case 'p':
			if (strcmp(optarg, "fp32") && strcmp(optarg, "amp") &&
			    strcmp(optarg, "bf16"))
				die_usage("-p: %s: want fp32, amp or bf16", optarg);
			prec = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	int low = strcmp(prec, "fp32") != 0, elsize = low ? 2 : 4;
	dnnl_data_type_t dt = low ? dnnl_bf16 : dnnl_f32;

	static model m;
	model_config mc = model_config_default(ARCH_RESNET50, HEAD_SOFTMAX);
	mc.batch = batch;
	mc.image = image;
	mc.classes = classes;
	model_build(&m, &mc);
	dnnl_engine_t eng;
	dnnl_stream_t st;
	DNNL_CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
	DNNL_CHECK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
	double bw = bandwidth(5);
	printf("# roof model=resnet50 image=%d batch=%d precision=%s classes=%d threads=%d "
	       "bandwidth_gbs=%.1f reps=%d\n",
	       image, batch, prec, classes, omp_get_max_threads(), bw * 1e-9, reps);
	printf("# op layer kind bound_ms flop bytes rate how\n");

	int ls[4 * MODEL_MAX_LAYERS], ks[4 * MODEL_MAX_LAYERS];
	int n = step_ops(&m, ls, ks, 4 * MODEL_MAX_LAYERS);
	double total = 0.0, kind_ms[PK_COUNT] = {0};
	for (int i = 0; i < n; i++) {
		op_cost c = cost_of(&m, ls[i], ks[i], elsize);
		double ms, rate;
		const char *how = "bandwidth";
		if (c.compute) {
			const layer *l = &m.layers[ls[i]];
			const tensor *x = &m.tensors[l->x];
			conv_shape cs = {batch, l->cin,    l->cout, x->h,  x->w,
					 l->k,  l->stride, l->pad,  l->pad};
			ms = 1e3 * conv_best(&cs, dir_of(ks[i]), dt, reps, eng, st, &how);
			rate = c.flop / ms * 1e-6;
		} else {
			ms = 1e3 * c.bytes / bw;
			rate = bw * 1e-9;
		}
		const char *name = ls[i] >= 0 ? m.layers[ls[i]].name : "-";
		printf("op %s %s %.4f %.0f %.0f %.1f %s\n", name, prof_kind_name(ks[i]), ms, c.flop,
		       c.bytes, rate, how);
		if (verbose)
			warnf("%s %s %.3f ms (%s)", name, prof_kind_name(ks[i]), ms, how);
		total += ms;
		kind_ms[ks[i]] += ms;
	}
	for (int k = 0; k < PK_COUNT; k++)
		if (kind_ms[k] > 0)
			printf("kind %s %.3f %.1f%%\n", prof_kind_name(k), kind_ms[k],
			       100.0 * kind_ms[k] / total);
	printf("roof step_ms=%.3f images_per_s=%.2f\n", total, batch / total * 1e3);
	DNNL_CHECK(dnnl_stream_destroy(st));
	DNNL_CHECK(dnnl_engine_destroy(eng));
	finish_output();
	return 0;
}
