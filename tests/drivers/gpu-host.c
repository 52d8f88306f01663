/*
 * tests/drivers/gpu-host.c: bin/test-gpu-host, the CPU driver of the CUDA
 * backend's host logic (bench/cuda/lossscale.h, plan.h) and of check-gpu's
 * tolerances, for tests/bench-cuda.bats. Reads a script on stdin, writes
 * results on stdout, one line per input line:
 *
 *   lossscale [-s scale]   lines "N F": N steps, F = 1 overflow, 0 clean;
 *                          prints the state after them
 *   dedup                  lines "n c h w k r s stride pad dtype";
 *                          prints each shape's first equal index, then distinct=D
 *   tol precision          prints the check-gpu tolerances
 *   layout n c h w         NCHW -> NHWC index of each element, in NCHW order,
 *                          and whether both maps are inverse bijections
 *   weights k c r s [cpad] OIHW -> KRSC likewise; with cpad, KRSC's channels
 *                          padded to cpad: the map back hits every OIHW
 *                          weight once and padding elsewhere
 *   image n c cpad h w     the image's NHWC copy padded to cpad channels:
 *                          every NCHW value once, the rest padding
 *   pool in k s pad        each input position's covering windows, checked
 *                          against every window's span
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-gpu.h"
#include "cuda/lossscale.h"
#include "cuda/plan.h"
#include "lib.h"

/* A whole-string integer in [min, max], else a usage error naming the argument. */
static long num(const char *name, const char *s, long min, long max)
{
	long v;

	if (parse_long(s, min, max, &v) != 0)
		die_usage("%s: '%s' is not an integer in [%ld, %ld]", name, s, min, max);
	return v;
}

static int run_lossscale(float scale)
{
	struct lossscale ls;
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;

	lossscale_init(&ls, scale);
	while (getline(&line, &cap, stdin) > 0) {
		long n, applied = 0;
		int f, used;

		lineno++;
		if (sscanf(line, "%ld %d %n", &n, &f, &used) != 2 || line[used] != '\0' || n < 0 ||
		    (f != 0 && f != 1))
			die_at("<stdin>", lineno, "expected \"steps flag\"");
		for (long i = 0; i < n; i++)
			applied += lossscale_update(&ls, f);
		printf("steps=%ld applied=%ld skipped=%ld scale=%.9g clean=%d\n", ls.steps, applied,
		       ls.skipped, (double)ls.scale, ls.clean);
	}
	free(line);
	return 0;
}

static int run_dedup(void)
{
	struct gpu_conv_shape s[256];
	int idx[256], n = 0;
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0) {
		struct gpu_conv_shape *p = &s[n];
		int used;

		if (n == 256)
			die_at("<stdin>", n + 1, "more than 256 shapes");
		if (sscanf(line, "%d %d %d %d %d %d %d %d %d %d %n", &p->n, &p->c, &p->h, &p->w,
			   &p->k, &p->r, &p->s, &p->stride, &p->pad, &p->dtype, &used) != 10 ||
		    line[used] != '\0')
			die_at("<stdin>", n + 1, "expected \"n c h w k r s stride pad dtype\"");
		n++;
	}
	int d = gpu_conv_dedup(s, n, idx);
	for (int i = 0; i < n; i++)
		printf("%d %d %dx%d\n", i, idx[i],
		       gpu_conv_out(s[i].h, s[i].r, s[i].stride, s[i].pad),
		       gpu_conv_out(s[i].w, s[i].s, s[i].stride, s[i].pad));
	printf("distinct=%d\n", d);
	free(line);
	return 0;
}

/* An index map of a 4-d layout: (i, and three of its dimensions) -> index. */
typedef size_t index_map(size_t i, size_t a, size_t b, size_t c);

/* to(i) for every i, printed if few; then to/back checked as inverse
 * bijections of [0, total). */
static int run_layout(const char *name, size_t total, size_t a, size_t b, size_t c, index_map *to,
		      index_map *back)
{
	unsigned char *seen = xcalloc(total ? total : 1, 1);
	size_t bad = 0;

	if (total <= 64) {
		printf("%s", name);
		for (size_t i = 0; i < total; i++)
			printf(" %zu", to(i, a, b, c));
		printf("\n");
	}
	for (size_t i = 0; i < total; i++) {
		size_t j = to(i, a, b, c);
		if (j >= total || seen[j]++ || back(j, a, b, c) != i)
			bad++;
	}
	printf("%s: %zu elements, %s\n", name, total,
	       bad ? "NOT a bijection" : "bijection, inverse ok");
	free(seen);
	return bad != 0;
}

static size_t nchw_nhwc(size_t i, size_t c, size_t h, size_t w)
{
	return gpu_nchw_to_nhwc(i, c, h, w);
}

static size_t nhwc_nchw(size_t i, size_t c, size_t h, size_t w)
{
	return gpu_nhwc_to_nchw(i, c, h, w);
}

static size_t oihw_krsc(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_oihw_to_krsc(i, c, r, s);
}

static size_t krsc_oihw(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_krsc_to_oihw(i, c, r, s);
}

/* gpu_pool_range for every input position, against brute force. */
static int run_pool(int in, int k, int s, int pad)
{
	int out = gpu_conv_out(in, k, s, pad), bad = 0;

	for (int i = 0; i < in; i++) {
		int lo, hi, blo = out, bhi = -1;

		gpu_pool_range(i, k, s, pad, out, &lo, &hi);
		for (int o = 0; o < out; o++) {
			if (o * s - pad <= i && i <= o * s - pad + k - 1) {
				blo = o < blo ? o : blo;
				bhi = o;
			}
		}
		if (in <= 16)
			printf("%d:%d-%d", i, lo, hi);
		if (in <= 16)
			putchar(i + 1 < in ? ' ' : '\n');
		if (bhi < 0 ? lo <= hi : lo != blo || hi != bhi)
			bad++;
	}
	printf("pool in=%d k=%d s=%d pad=%d out=%d: %s\n", in, k, s, pad, out,
	       bad ? "WRONG windows" : "windows ok");
	return bad != 0;
}

/* Padded KRSC (cpad channels) against OIHW (c): every OIHW index reached
 * exactly once from KRSC, the rest padding, and the forward map inverse. */
static int run_pad(size_t k, size_t c, size_t cpad, size_t r, size_t s)
{
	size_t total = k * cpad * r * s, real = k * c * r * s, pads = 0, bad = 0;
	unsigned char *seen = xcalloc(real ? real : 1, 1);

	for (size_t i = 0; i < total; i++) {
		size_t j = gpu_krsc_to_oihw_pad(i, c, cpad, r, s);
		if (j == GPU_PAD)
			pads++;
		else if (j >= real || seen[j]++ || gpu_oihw_to_krsc_pad(j, c, cpad, r, s) != i)
			bad++;
	}
	for (size_t j = 0; j < real; j++)
		bad += !seen[j];
	printf("oihw->krsc c=%zu padded to %zu: %zu weights, %zu padding, %s\n", c, cpad, real,
	       pads, bad ? "NOT one to one" : "one to one, inverse ok");
	free(seen);
	return bad != 0;
}

static int run_image(size_t n, size_t c, size_t cpad, size_t h, size_t w)
{
	size_t total = n * cpad * h * w, real = n * c * h * w, pads = 0, bad = 0;
	unsigned char *seen = xcalloc(real ? real : 1, 1);

	for (size_t i = 0; i < total; i++) {
		size_t j = gpu_nhwc_pad_to_nchw(i, c, cpad, h, w);
		if (j == GPU_PAD)
			pads++;
		else if (j >= real || seen[j]++ || (c == cpad && gpu_nchw_to_nhwc(j, c, h, w) != i))
			bad++;
	}
	for (size_t j = 0; j < real; j++)
		bad += !seen[j];
	printf("image c=%zu padded to %zu: %zu values, %zu padding, %s\n", c, cpad, real, pads,
	       bad ? "NOT one to one" : "one to one");
	free(seen);
	return bad != 0;
}

int main(int argc, char **argv)
{
	int rc;

	progname = "test-gpu-host";
	usage_text = "test-gpu-host lossscale [-s scale] | dedup | tol precision | "
		     "layout n c h w | weights k c r s [cpad] | image n c cpad h w | "
		     "pool in k s pad";
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "lossscale") == 0) {
		float scale = 0.0f;

		if (argc == 4 && strcmp(argv[2], "-s") == 0)
			scale = (float)num("-s", argv[3], 1, 1L << 24);
		else if (argc != 2)
			usage();
		rc = run_lossscale(scale);
	} else if (strcmp(argv[1], "dedup") == 0 && argc == 2) {
		rc = run_dedup();
	} else if (strcmp(argv[1], "tol") == 0 && argc == 3) {
		struct gpu_tol t;

		if (gpu_tolerance(argv[2], &t) != 0)
			die_usage("tol: unknown precision '%s'", argv[2]);
		printf("logits=%g loss=%g norm_median=%g norm_worst=%g dir_worst=%g\n", t.logits,
		       t.loss, t.norm_median, t.norm_worst, t.dir_worst);
		rc = 0;
	} else if ((strcmp(argv[1], "layout") == 0 || strcmp(argv[1], "weights") == 0) &&
		   argc == 6) {
		size_t d[4];

		for (int i = 0; i < 4; i++)
			d[i] = (size_t)num("dimension", argv[2 + i], 1, 1 << 16);
		if (argv[1][0] == 'l')
			rc = run_layout("nchw->nhwc", d[0] * d[1] * d[2] * d[3], d[1], d[2], d[3],
					nchw_nhwc, nhwc_nchw);
		else
			rc = run_layout("oihw->krsc", d[0] * d[1] * d[2] * d[3], d[1], d[2], d[3],
					oihw_krsc, krsc_oihw);
	} else if (strcmp(argv[1], "weights") == 0 && argc == 7) {
		size_t d[5];

		for (int i = 0; i < 5; i++)
			d[i] = (size_t)num("dimension", argv[2 + i], 1, 1 << 16);
		if (d[2] < d[1])
			die_usage("cpad %zu is less than c %zu", d[2], d[1]);
		rc = run_pad(d[0], d[1], d[2], d[3], d[4]);
	} else if (strcmp(argv[1], "image") == 0 && argc == 7) {
		size_t d[5];

		for (int i = 0; i < 5; i++)
			d[i] = (size_t)num("dimension", argv[2 + i], 1, 1 << 16);
		if (d[2] < d[1])
			die_usage("cpad %zu is less than c %zu", d[2], d[1]);
		rc = run_image(d[0], d[1], d[2], d[3], d[4]);
	} else if (strcmp(argv[1], "pool") == 0 && argc == 6) {
		rc = run_pool((int)num("in", argv[2], 1, 1 << 16), (int)num("k", argv[3], 1, 64),
			      (int)num("s", argv[4], 1, 64), (int)num("pad", argv[5], 0, 63));
	} else {
		usage();
	}
	finish_output();
	return rc;
}
