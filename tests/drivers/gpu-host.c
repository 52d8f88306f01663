/*
 * tests/drivers/gpu-host.c: bin/test-gpu-host, the CPU driver of the CUDA
 * backend's host logic (bench/cuda/lossscale.h, layout.h, index.h,
 * softmax.h, search.h, startup.h) and of check-gpu's tolerances, for
 * tests/bench-cuda.bats. Reads a script on stdin, writes results on stdout,
 * one line per input line:
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
 *   div                    the kernels' 32-bit division by multiply-high
 *   pos nhwc|nchw n c h w V  every group of V elements' position and channel
 *   softmax rows k range   the warp-per-row softmax, 32 lanes emulated,
 *                          against the double-precision row
 *   localrank              NAME=VALUE lines: the local rank before MPI_Init
 *   bnsum F S R U P prec   the start-up line of the batch norms
 *   watch timeout          "done T", "error T text" or "never": the bounded
 *                          wait on a fake communicator and clock
 *   shard classes ranks    the split classifier's shards (shard.h): each
 *                          rank's first class and size, and whether every
 *                          class has one column on one rank
 *   margin m               margin.h's phi and its slope against cos(theta + m)
 *                          in double and a central difference
 *   dropout p rows         the dropout mask (margin.h) of rows x 512 at
 *                          steps 1 and 2: the share kept, and how much the
 *                          steps' masks agree
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-gpu.h"
#include "cuda/lossscale.h"
#include "cuda/index.h"
#include "cuda/layout.h"
#include "cuda/search.h"
#include "cuda/softmax.h"
#include "cuda/startup.h"
#include "cuda/watch.h"
#include "elementwise.h"
#include "lib.h"
#include "margin.h"
#include "shard.h"

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

/* ---- convolution shapes (search.h) ---- */

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

/* ---- layouts and pooling windows (layout.h) ---- */

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

/* ---- 32-bit index arithmetic (index.h) ---- */

/* gpu_div_q against '/' for every divisor up to 4096 and the dimensions
 * and products of dimensions ResNet50 divides by, at the dividends where a
 * magic-number division goes wrong first: around multiples of d, and near
 * 2^31. */
static int run_div(void)
{
	static const uint32_t big[] = {12544,       50176,    200704,        802816,
				       3211264,     65535,    65537,         1000000007,
				       2147483647u, 1u << 30, (1u << 30) + 1};
	long checked = 0, bad = 0;
	uint64_t x = 88172645463325252ull;

	for (uint32_t k = 0; k < 4096 + sizeof big / sizeof big[0]; k++) {
		uint32_t d = k < 4096 ? k + 1 : big[k - 4096];
		struct gpu_div v = gpu_div_make(d);
		for (int j = 0; j < 200; j++) {
			uint32_t n;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (j < 64)
				n = (uint32_t)((x % (0x7fffffffu / d + 1)) * d) +
				    (uint32_t)(j % 3) - 1;
			else if (j < 128)
				n = 0x7fffffffu - (uint32_t)(j - 64);
			else
				n = (uint32_t)(x & 0x7fffffffu);
			if (n > 0x7fffffffu)
				n = 0;
			checked++;
			bad += gpu_div_q(v, n) != n / d;
		}
	}
	printf("div: %ld quotients, %s\n", checked, bad ? "WRONG" : "all exact");
	return bad != 0;
}

/* Every group of V elements of an n x c x h x w tensor (c / V groups of
 * channels in NHWC; V elements of a plane in NCHW): the positions of
 * gpu_nhwc_pos / gpu_nchw_pos against plain division, the index back, and
 * the channel of gpu_group_channel. */
static int run_pos(const char *layout, uint32_t n, uint32_t c, uint32_t h, uint32_t w, uint32_t v)
{
	int nhwc = strcmp(layout, "nhwc") == 0;
	uint32_t cg = nhwc ? c / v : c, hw = h * w;
	uint64_t total = (uint64_t)n * c * h * w / v;
	struct gpu_div dcg = gpu_div_make(cg), dh = gpu_div_make(h), dw = gpu_div_make(w);
	struct gpu_div dc = gpu_div_make(c), dhwg = gpu_div_make(nhwc ? 1 : hw / v);
	long bad = 0;

	if ((nhwc ? c : hw) % v != 0 || (uint64_t)n * c * h * w > 0x7fffffffu)
		die_usage("pos: %s %ux%ux%ux%u cannot go by %u", layout, n, c, h, w, v);
	for (uint32_t i = 0; i < total; i++) {
		struct gpu_pos p;
		uint32_t e = i * (nhwc ? 1 : v), want_c, at;
		if (nhwc) {
			p = gpu_nhwc_pos(i, dcg, dw, dh);
			bad += p.c != i % cg || p.w != i / cg % w || p.h != i / cg / w % h ||
			       p.n != i / cg / w / h;
			at = gpu_nhwc_at(p, cg, h, w);
			want_c = i % cg * v;
		} else {
			p = gpu_nchw_pos(e, dw, dh, dc);
			bad += p.w != e % w || p.h != e / w % h || p.c != e / hw % c ||
			       p.n != e / hw / c;
			at = gpu_nchw_at(p, c, h, w);
			want_c = e / hw % c;
		}
		bad += at != (nhwc ? i : e);
		bad += gpu_group_channel(i, nhwc, dcg, dhwg, dc, v) != want_c;
	}
	printf("%s %ux%ux%ux%u by %u: %llu groups, %s\n", layout, n, c, h, w, v,
	       (unsigned long long)total, bad ? "WRONG positions" : "positions exact");
	return bad != 0;
}

/* ---- softmax cross-entropy, a warp per row (softmax.h) ---- */

/* rows rows of k logits (spread 'range', label and smoothing from the row):
 * the 32 lanes of a warp emulated, butterfly merges and lane 0's result as
 * the kernel does, against ew_softmax_ce_row in double. */
static int run_softmax(int rows, int k, double range)
{
	float *z = xmalloc((size_t)k * sizeof *z), *dz = xmalloc((size_t)k * sizeof *dz);
	float *ref = xmalloc((size_t)k * sizeof *ref);
	double worst_loss = 0.0, worst_dz = 0.0;
	uint64_t x = 2463534242ull;

	for (int r = 0; r < rows; r++) {
		int label = (r * 7919) % k;
		float smoothing = r % 2 ? 0.1f : 0.0f, scale = 1.0f / 256.0f;
		float m[32], s[32], part[32];
		for (int j = 0; j < k; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			z[j] = (float)(((double)(x % 2000001) / 1000000.0 - 1.0) * range);
		}
		for (int l = 0; l < 32; l++)
			gpu_sm_lane_stats(z, k, l, 32, &m[l], &s[l]);
		for (int o = 16; o > 0; o /= 2) {
			float m2[32], s2[32];
			for (int l = 0; l < 32; l++)
				m2[l] = m[l ^ o], s2[l] = s[l ^ o];
			for (int l = 0; l < 32; l++)
				gpu_sm_merge(&m[l], &s[l], m2[l], s2[l]);
		}
		float lse = m[0] + logf(s[0]), loss = 0.0f;
		for (int l = 0; l < 32; l++)
			part[l] = gpu_sm_lane_out(z, k, l, 32, label, smoothing, scale, lse, dz);
		for (int o = 16; o > 0; o /= 2) {
			float p2[32];
			for (int l = 0; l < 32; l++)
				p2[l] = part[l ^ o];
			for (int l = 0; l < 32; l++)
				part[l] += p2[l];
		}
		loss = part[0];
		double want = ew_softmax_ce_row(z, k, label, smoothing, scale, ref);
		double e = fabs(loss - want) / (fabs(want) > 1.0 ? fabs(want) : 1.0);
		worst_loss = e > worst_loss ? e : worst_loss;
		for (int j = 0; j < k; j++) {
			double d = fabs((double)dz[j] - ref[j]) / scale;
			worst_dz = d > worst_dz ? d : worst_dz;
		}
	}
	int ok = worst_loss < 1e-5 && worst_dz < 1e-6;
	printf("softmax %d rows of %d, logits in +-%g: loss rel err %s 1e-5, dz err %s 1e-6: %s\n",
	       rows, k, range,
	       worst_loss < 1e-5 ? "<" : ">=", worst_dz < 1e-6 ? "<" : ">=", ok ? "ok" : "WRONG");
	free(z);
	free(dz);
	free(ref);
	return !ok;
}

/* ---- start-up (startup.h) ---- */

static char *env_lines[64];
static int nenv;

static const char *table_get(const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; i < nenv; i++)
		if (strncmp(env_lines[i], name, len) == 0 && env_lines[i][len] == '=')
			return env_lines[i] + len + 1;
	return NULL;
}

/* NAME=VALUE lines on stdin, the environment before MPI_Init. */
static int run_localrank(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (nenv == 64)
			die_at("<stdin>", nenv + 1, "more than 64 variables");
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!strchr(line, '='))
			die_at("<stdin>", nenv + 1, "expected NAME=VALUE");
		env_lines[nenv++] = xstrdup(line);
	}
	printf("local rank %d\n", gpu_env_local_rank(table_get));
	for (int i = 0; i < nenv; i++)
		free(env_lines[i]);
	free(line);
	return 0;
}

/* ---- the bounded wait (watch.h) with a fake communicator and clock ---- */

struct fake {
	double clock, done_at, error_at; /* < 0: never */
	char error[128];
	int aborted;
	long naps;
	double napped_max;
};

static int fake_done(void *ctx)
{
	struct fake *f = ctx;
	return !f->aborted && f->done_at >= 0 && f->clock >= f->done_at;
}

static int fake_error(void *ctx, char *why, size_t n)
{
	struct fake *f = ctx;
	if (f->error_at < 0 || f->clock < f->error_at)
		return 0;
	snprintf(why, n, "%s", f->error);
	return 1;
}

static void fake_abort(void *ctx)
{
	((struct fake *)ctx)->aborted = 1;
}

static double fake_now(void *ctx)
{
	struct fake *f = ctx;
	f->clock += 1e-6; /* a poll takes a microsecond */
	return f->clock;
}

static void fake_nap(void *ctx, double s)
{
	struct fake *f = ctx;
	f->clock += s;
	f->naps++;
	f->napped_max = s > f->napped_max ? s : f->napped_max;
}

/* One line on stdin: "done T", "error T text" or "never": when the fake
 * step finishes or the fake communicator fails (seconds). */
static int run_watch(double timeout)
{
	static const struct watch_ops ops = {fake_done, fake_error, fake_abort, fake_now, fake_nap};
	struct fake f = {.done_at = -1, .error_at = -1};
	char *line = NULL, why[512] = "";
	size_t cap = 0;
	int used = 0;

	if (getline(&line, &cap, stdin) <= 0)
		die_at("<stdin>", 1, "expected \"done T\", \"error T text\" or \"never\"");
	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "done %lf%n", &f.done_at, &used) == 1 && line[used] == '\0')
		;
	else if (sscanf(line, "error %lf %n", &f.error_at, &used) == 1 && line[used])
		snprintf(f.error, sizeof f.error, "%s", line + used);
	else if (strcmp(line, "never") != 0)
		die_at("<stdin>", 1, "expected \"done T\", \"error T text\" or \"never\"");
	int r = watch_wait(&ops, &f, "the step", timeout, why, sizeof why);
	printf("%s at %.3f s, %ld naps of at most %g s, %s\n",
	       r == WATCH_DONE         ? "done"
	       : r == WATCH_PEER_ERROR ? "peer error"
				       : "timeout",
	       f.clock, f.naps, f.napped_max, f.aborted ? "aborted" : "not aborted");
	if (why[0])
		printf("bench: rank 0: %s\n", why);
	free(line);
	return 0;
}

/* ---- the split ArcFace head (shard.h, margin.h) ---- */

static int run_shard(long classes, int ranks)
{
	int bad = 0;

	if (!shard_ok(classes, ranks)) {
		printf("%ld classes over %d ranks: %ld a rank, the last would hold %ld\n", classes,
		       ranks, shard_quota(classes, ranks), shard_size(classes, ranks, ranks - 1));
		return 1;
	}
	for (int r = 0; r < ranks; r++)
		printf("rank %d: first %ld size %ld\n", r, shard_first(classes, ranks, r),
		       shard_size(classes, ranks, r));
	for (long c = 0; c < classes; c++) {
		int owners = 0, col = -1;
		for (int r = 0; r < ranks; r++) {
			int j = shard_column((int32_t)c, shard_first(classes, ranks, r),
					     shard_size(classes, ranks, r));
			if (j >= 0) {
				owners++;
				col = j + (int)shard_first(classes, ranks, r);
			}
		}
		bad += owners != 1 || col != c;
	}
	printf("%ld classes over %d ranks: %s\n", classes, ranks,
	       bad ? "WRONG columns" : "each on one rank, one column");
	return bad != 0;
}

static int run_margin(double m)
{
	struct margin k = margin_make((float)m);
	double worst_phi = 0.0, worst_slope = 0.0;

	for (int i = -999; i <= 999; i++) {
		double c = i / 1000.0, h = 1e-4, want, d;
		float slope;
		float phi = margin_phi((float)c, k, &slope);
		if (c > cos(M_PI - m))
			want = cos(acos(c) + m);
		else
			want = c - sin(M_PI - m) * m;
		d = fabs(phi - want);
		worst_phi = d > worst_phi ? d : worst_phi;
		if (fabs(c - cos(M_PI - m)) < 2 * h || fabs(c) > 1 - 2 * h)
			continue; /* the central difference would straddle the switch or the end */
		float s0, s1;
		double num =
			(margin_phi((float)(c + h), k, &s0) - margin_phi((float)(c - h), k, &s1)) /
			(2 * h);
		d = fabs(slope - num) / (fabs(num) > 1 ? fabs(num) : 1);
		worst_slope = d > worst_slope ? d : worst_slope;
	}
	int ok = worst_phi < 1e-6 && worst_slope < 1e-2;
	printf("margin %g: phi err %s 1e-6, slope err %s 1e-2: %s\n", m,
	       worst_phi < 1e-6 ? "<" : ">=", worst_slope < 1e-2 ? "<" : ">=", ok ? "ok" : "WRONG");
	return !ok;
}

static int run_dropout(double p, int rows)
{
	long kept = 0, same = 0, n = (long)rows * 512;

	for (int r = 0; r < rows; r++)
		for (uint32_t j = 0; j < 512; j++) {
			int a = dropout_keep(7, 1, (uint64_t)r, j, (float)p);
			kept += a;
			same += a == dropout_keep(7, 2, (uint64_t)r, j, (float)p);
		}
	printf("dropout %g over %ld: kept %.3f, steps 1 and 2 agree on %.3f\n", p, n,
	       (double)kept / (double)n, (double)same / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	progname = "test-gpu-host";
	usage_text = "test-gpu-host lossscale [-s scale] | dedup | tol precision | "
		     "layout n c h w | weights k c r s [cpad] | image n c cpad h w | "
		     "pool in k s pad | div | pos nhwc|nchw n c h w V | softmax rows k range | "
		     "localrank | bnsum F S R U P precision | watch timeout | "
		     "shard classes ranks | margin m | dropout p rows";
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
	} else if (strcmp(argv[1], "div") == 0 && argc == 2) {
		rc = run_div();
	} else if (strcmp(argv[1], "pos") == 0 && argc == 8 &&
		   (!strcmp(argv[2], "nhwc") || !strcmp(argv[2], "nchw"))) {
		uint32_t d[5];

		for (int i = 0; i < 5; i++)
			d[i] = (uint32_t)num("dimension", argv[3 + i], 1, 1 << 20);
		rc = run_pos(argv[2], d[0], d[1], d[2], d[3], d[4]);
	} else if (strcmp(argv[1], "softmax") == 0 && argc == 5) {
		double range;

		if (parse_double(argv[4], &range) != 0 || range < 0 || range > 1000)
			die_usage("range: '%s' is not a number in [0, 1000]", argv[4]);
		rc = run_softmax((int)num("rows", argv[2], 1, 100000),
				 (int)num("k", argv[3], 1, 1000000), range);
	} else if (strcmp(argv[1], "localrank") == 0 && argc == 2) {
		rc = run_localrank();
	} else if (strcmp(argv[1], "bnsum") == 0 && argc == 8) {
		struct gpu_bn_count c;
		char line[256];

		c.fused = (int)num("F", argv[2], 0, 1000);
		c.stem = (int)num("S", argv[3], 0, 1000);
		c.refused = (int)num("R", argv[4], 0, 1000);
		c.unfusable = (int)num("U", argv[5], 0, 1000);
		c.plain = (int)num("P", argv[6], 0, 1000);
		gpu_bn_summary(&c, argv[7], line, sizeof line);
		printf("%s\n", line);
		rc = 0;
	} else if (strcmp(argv[1], "watch") == 0 && argc == 3) {
		double t;

		if (parse_double(argv[2], &t) != 0 || t <= 0)
			die_usage("watch: '%s' is not a positive number of seconds", argv[2]);
		rc = run_watch(t);
	} else if (strcmp(argv[1], "shard") == 0 && argc == 4) {
		rc = run_shard(num("classes", argv[2], 1, 10000000),
			       (int)num("ranks", argv[3], 1, 4096));
	} else if (strcmp(argv[1], "margin") == 0 && argc == 3) {
		double m;

		if (parse_double(argv[2], &m) != 0 || m < 0 || m > 1.5)
			die_usage("margin: '%s' is not a number in [0, 1.5]", argv[2]);
		rc = run_margin(m);
	} else if (strcmp(argv[1], "dropout") == 0 && argc == 4) {
		double p;

		if (parse_double(argv[2], &p) != 0 || p < 0 || p >= 1)
			die_usage("dropout: '%s' is not a number in [0, 1)", argv[2]);
		rc = run_dropout(p, (int)num("rows", argv[3], 1, 100000));
	} else {
		usage();
	}
	finish_output();
	return rc;
}
