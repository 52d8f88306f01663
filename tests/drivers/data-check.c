/*
 * tests/drivers/data-check.c: bench's input pipeline (bench/data/) piece by
 * piece, for tests/data.bats.
 *
 *   data-check crop              stdin: "W H d1 d2 ..." a line, the draws torch made;
 *                                stdout: "top left height width" a line
 *   data-check boxes W H N SEED  N boxes of bench's own draws, "top left height width"
 *   data-check sample FILE PX SCALE_MIN SEED K
 *                                "top left height width flip scale", then the
 *                                [3][PX][PX] floats, one a line
 *   data-check shards N WORLD SEED EPOCHS
 *                                "rank epoch image" for every sample of every rank
 *   data-check scan DIR          "label path" for every image, in order
 *   data-check batch DIR B PX THREADS SEED [WORLD RANK]
 *                                the first batch: labels, then a checksum of its bytes
 *   data-check means DIR B PX THREADS SEED [WORLD RANK]
 *                                the same, then "label mean_r mean_g mean_b" a sample
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"
#include "lib.h"

struct replay {
	double v[64];
	int n, at;
	const char *line;
};

static double next_value(struct replay *r)
{
	if (r->at >= r->n)
		die("crop: line '%s': more draws asked than given", r->line);
	return r->v[r->at++];
}

static double replay_uniform(void *ctx, double lo, double hi)
{
	(void)lo;
	(void)hi;
	return next_value(ctx);
}

static long replay_randint(void *ctx, long hi)
{
	double v = next_value(ctx);
	if (v < 0 || v >= (double)hi)
		die("crop: randint draw %g out of [0, %ld)", v, hi);
	return (long)v;
}

static void crop(void)
{
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, stdin) > 0) {
		struct replay r = {.line = line};
		int W, H, used;
		char *p = line;
		if (sscanf(p, "%d %d%n", &W, &H, &used) != 2)
			die("crop: bad line '%s'", line);
		p += used;
		while (r.n < 64 && sscanf(p, "%lf%n", &r.v[r.n], &used) == 1) {
			r.n++;
			p += used;
		}
		int box[4];
		rrc_box(W, H, &(draws){replay_uniform, replay_randint, &r}, box);
		if (r.at != r.n)
			die("crop: %d draws given, %d used", r.n, r.at);
		printf("%d %d %d %d\n", box[0], box[1], box[2], box[3]);
	}
	free(line);
}

static long num(const char *s, long lo, long hi)
{
	return flag_int("argument", s, lo, hi);
}

static void boxes(char **a)
{
	int W = (int)num(a[0], 1, 1 << 20), H = (int)num(a[1], 1, 1 << 20);
	long n = num(a[2], 1, 100000000);
	uint64_t seed = (uint64_t)num(a[3], 0, 1L << 40);
	for (long k = 0; k < n; k++) {
		srng r;
		srng_seed(&r, seed, 0, (uint64_t)k);
		int box[4];
		rrc_box(W, H, &(draws){srng_uniform, srng_randint, &r}, box);
		printf("%d %d %d %d\n", box[0], box[1], box[2], box[3]);
	}
}

static void sample(char **a)
{
	decoder d = {0};
	sample_opts o = {.size = (int)num(a[1], 1, 4096), .scale_min = (int)num(a[2], 1, 8)};
	srng r;
	srng_seed(&r, (uint64_t)num(a[3], 0, 1L << 40), 0, (uint64_t)num(a[4], 0, 1L << 40));
	float *out = xmalloc((size_t)3 * o.size * o.size * sizeof(float));
	int box[5];
	if (decode_sample(&d, a[0], &r, &o, out, box) < 0)
		die("%s", d.err);
	printf("%d %d %d %d %d %d\n", box[0], box[1], box[2], box[3], box[4], d.last_scale);
	for (size_t i = 0; i < (size_t)3 * o.size * o.size; i++)
		printf("%.6f\n", out[i]);
	free(out);
	decoder_free(&d);
}

static void shards(char **a)
{
	long n = num(a[0], 1, 1L << 30);
	int world = (int)num(a[1], 1, 4096);
	uint64_t seed = (uint64_t)num(a[2], 0, 1L << 40);
	long epochs = num(a[3], 1, 1000);
	for (int rank = 0; rank < world; rank++) {
		sampler s;
		sampler_init(&s, n, rank, world, seed);
		for (long k = 0; k < s.per_rank * epochs; k++)
			printf("%d %ld %ld\n", rank, k / s.per_rank, sampler_image(&s, k));
		sampler_free(&s);
	}
}

static void scan(const char *dir)
{
	folder f;
	folder_scan(&f, dir);
	for (long i = 0; i < f.n; i++)
		printf("%d %s\n", f.label[i], f.path[i]);
	folder_free(&f);
}

static void batch(int argc, char **a, int mean)
{
	loader_config c = {.dir = a[0],
			   .batch = (int)num(a[1], 1, 4096),
			   .image = (int)num(a[2], 1, 4096),
			   .threads = (int)num(a[3], 1, 256),
			   .prefetch = 2,
			   .seed = (uint64_t)num(a[4], 0, 1L << 40),
			   .world = argc > 5 ? (int)num(a[5], 1, 4096) : 1,
			   .rank = argc > 6 ? (int)num(a[6], 0, 4095) : 0,
			   .host_alloc = xmalloc,
			   .host_free = free};
	loader *l = loader_open(&c);
	const int32_t *labels;
	double waited;
	const float *img = loader_next(l, &labels, &waited);
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *p = (const unsigned char *)img;
	for (size_t i = 0; i < (size_t)c.batch * 3 * c.image * c.image * sizeof(float); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	for (int i = 0; i < c.batch; i++)
		printf("%d%c", labels[i], i + 1 < c.batch ? ' ' : '\n');
	for (int i = 0; mean && i < c.batch; i++) {
		const float *x = img + (size_t)i * 3 * c.image * c.image;
		size_t hw = (size_t)c.image * c.image;
		printf("%d", labels[i]);
		for (int ch = 0; ch < 3; ch++) {
			double m = 0;
			for (size_t k = 0; k < hw; k++)
				m += x[ch * hw + k];
			printf(" %.3f", m / (double)hw);
		}
		printf("\n");
	}
	printf("%016llx\n", (unsigned long long)h);
	loader_release(l);
	loader_close(l);
}

int main(int argc, char **argv)
{
	progname = "data-check";
	usage_text =
		"data-check crop | boxes W H N SEED | sample FILE PX SCALE_MIN SEED K | shards N WORLD SEED "
		"EPOCHS | scan DIR | batch|means DIR B PX THREADS SEED [WORLD RANK]";
	if (argc < 2)
		usage();
	const char *cmd = argv[1];
	if (!strcmp(cmd, "crop") && argc == 2)
		crop();
	else if (!strcmp(cmd, "boxes") && argc == 6)
		boxes(argv + 2);
	else if (!strcmp(cmd, "sample") && argc == 7)
		sample(argv + 2);
	else if (!strcmp(cmd, "shards") && argc == 6)
		shards(argv + 2);
	else if (!strcmp(cmd, "scan") && argc == 3)
		scan(argv[2]);
	else if (!strcmp(cmd, "batch") && (argc == 7 || argc == 9))
		batch(argc - 2, argv + 2, 0);
	else if (!strcmp(cmd, "means") && (argc == 7 || argc == 9))
		batch(argc - 2, argv + 2, 1);
	else
		usage();
	finish_output();
	return 0;
}
