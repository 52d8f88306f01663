/*
 * tests/drivers/check-gpu.c: bin/check-gpu-compare, the two halves of
 * `make check-gpu`.
 *
 *   check-gpu-compare devices
 *	lists the CUDA devices on stdout; "check-gpu-compare: no CUDA device"
 *	on stderr and exit 1 when the runtime reports an error or none.
 *   check-gpu-compare versions
 *	the driver's and the CUDA libraries' versions as loaded, and their
 *	files (check-gpu-versions.c); exit 1 on a cuDNN older than the headers.
 *   check-gpu-compare compare [-g scale] precision refdir testdir
 *	reads two `bench --export` directories (doc/correctness.md): refdir from
 *	the CPU backend in fp32, testdir from the GPU backend in 'precision',
 *	same --seed, batch and image. Both must hold the same parameters and
 *	input; then logits, loss, each parameter tensor's gradient (testdir's
 *	divided by -g scale: amp exports gradients times the loss scale) and
 *	step (params_after - params) are compared with gpu_tolerance(precision):
 *	norms and directions per tensor, median and worst (check-gpu.h says
 *	why directions are held loosely), a gradient zero in exact arithmetic
 *	by its norm alone (a "null" line, where there is one). One line per
 *	quantity on stdout; exit 1 if any is out of tolerance.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check-gpu.h"
#include "lib.h"

static int devices(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0)
		die("no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
	for (int i = 0; i < n; i++) {
		struct cudaDeviceProp p;

		e = cudaGetDeviceProperties(&p, i);
		if (e != cudaSuccess)
			die("device %d: %s", i, cudaGetErrorString(e));
		printf("device %d: %s, compute capability %d.%d, %.0f MB\n", i, p.name, p.major,
		       p.minor, (double)p.totalGlobalMem / 1048576.0);
	}
	return 0;
}

/*
 * Relative error of b against a reference a: ||a - b||_2 / max(||a||_2, tiny).
 * Any non-finite value in b gives +inf.
 */
static double rel_err(const float *a, const float *b, size_t n)
{
	double num = 0.0, den = 0.0;

	for (size_t i = 0; i < n; i++) {
		double d = (double)a[i] - (double)b[i];

		if (!isfinite(b[i]))
			return INFINITY;
		num += d * d;
		den += (double)a[i] * (double)a[i];
	}
	return sqrt(num) / fmax(sqrt(den), 1e-30);
}

/* | ||b|| / ||a|| - 1 |: how far b's norm is from a's (+inf if b is not finite). */
static double norm_ratio_err(const float *a, const float *b, size_t n)
{
	double na = 0.0, nb = 0.0;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(b[i]))
			return INFINITY;
		na += (double)a[i] * (double)a[i];
		nb += (double)b[i] * (double)b[i];
	}
	if (na == 0.0)
		return nb == 0.0 ? 0.0 : INFINITY;
	return fabs(sqrt(nb / na) - 1.0);
}

/* The whole file; *bytes its size. */
static char *slurp(const char *dir, const char *name, size_t *bytes)
{
	char path[4096];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, len = 0, got;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		die("%s:", path);
	do {
		if (len == cap)
			buf = xgrow(buf, &cap, len + (1 << 20) + 1, 1);
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
	buf[len] = '\0';
	*bytes = len;
	return buf;
}

static float *floats(const char *dir, const char *name, size_t *n)
{
	size_t bytes;
	char *b = slurp(dir, name, &bytes);

	if (bytes % sizeof(float))
		die("%s/%s: %zu bytes is not a whole number of float32", dir, name, bytes);
	*n = bytes / sizeof(float);
	return (float *)b;
}

static int bad;

static void verdict(int ok)
{
	printf(" %s\n", ok ? "ok" : "FAIL");
	bad |= !ok;
}

/* Median of v[0 .. n), n > 0, of a copy (+inf sorts last). */
static double median(const double *v, size_t n)
{
	double *c = xmalloc(n * sizeof *c), m;

	memcpy(c, v, n * sizeof *c);
	m = median_of(c, n);
	free(c);
	return m;
}

static size_t worst(const double *v, size_t n)
{
	size_t w = 0;

	for (size_t i = 1; i < n; i++)
		if (!(v[i] <= v[w]))
			w = i;
	return w;
}

/* One line for a per-tensor measure: median and worst against their bounds
 * (a bound of 0 means: reported, not judged). */
static void per_tensor(const char *what, const double *v, char (*names)[128], size_t n,
		       double tol_median, double tol_worst)
{
	double med = median(v, n);
	size_t w = worst(v, n);
	int ok = (tol_median == 0 || med <= tol_median) && (tol_worst == 0 || v[w] <= tol_worst);

	printf("%-20s median %.3e", what, med);
	if (tol_median > 0)
		printf(" tol %.2g", tol_median);
	printf(", worst %.3e (%s)", v[w], names[w]);
	if (tol_worst > 0)
		printf(" tol %.2g", tol_worst);
	if (tol_median == 0 && tol_worst == 0) {
		printf(" not judged\n");
		return;
	}
	verdict(ok);
}

static void scalar(const char *what, double err, double tol)
{
	printf("%-20s rel_err %.3e tol %.2g", what, err, tol);
	verdict(err <= tol);
}

static double norm_of(const float *a, size_t n)
{
	double s = 0.0;

	for (size_t i = 0; i < n; i++)
		s += (double)a[i] * a[i];
	return sqrt(s);
}

/* The tensors whose reference gradient is zero in exact arithmetic (norm
 * at most 1e-5 of the median tensor's) leave the per-tensor measures (their
 * directions are noise); the test's norm of each is held to tol of the
 * median, one "null" line for them all where there is one. Returns how
 * many tensors are left, in order, in the first entries of the arrays. */
static size_t drop_null(const float *ga, const float *gb, const size_t *offs, const size_t *cnts,
			char (*names)[128], double *gn, double *gd, double *sn, double *sd,
			size_t n, double tol)
{
	double *norm = xmalloc(n * sizeof *norm), med, worst = 0.0;
	size_t kept = 0, nulls = 0;
	char wname[128] = "";

	for (size_t i = 0; i < n; i++)
		norm[i] = norm_of(ga + offs[i], cnts[i]);
	med = median(norm, n);
	for (size_t i = 0; i < n; i++) {
		if (norm[i] <= 1e-5 * med) {
			double r = norm_of(gb + offs[i], cnts[i]) / med;
			if (!(r <= worst) || nulls == 0) {
				worst = r;
				memcpy(wname, names[i], sizeof wname);
			}
			nulls++;
			continue;
		}
		memmove(names[kept], names[i], sizeof names[0]);
		gn[kept] = gn[i];
		gd[kept] = gd[i];
		sn[kept] = sn[i];
		sd[kept] = sd[i];
		kept++;
	}
	if (nulls) {
		int ok = worst <= tol;
		printf("%-20s %zu zero in exact arithmetic, worst norm %.3e of the median (%s) "
		       "tol %.2g",
		       "null gradients", nulls, worst, wname, tol);
		verdict(ok);
	}
	free(norm);
	return kept;
}

static int compare(int argc, char **argv)
{
	double gscale = 1.0;
	struct gpu_tol tol;
	size_t n1, n2, b1, b2;

	if (argc >= 2 && strcmp(argv[0], "-g") == 0) {
		if (parse_double(argv[1], &gscale) != 0 || !(gscale > 0))
			die_usage("-g: '%s' is not a positive number", argv[1]);
		argc -= 2;
		argv += 2;
	}
	if (argc != 3)
		usage();
	if (gpu_tolerance(argv[0], &tol) != 0)
		die_usage("'%s' is not fp32, tf32, amp or bf16", argv[0]);
	const char *ref = argv[1], *test = argv[2];

	/* Same weights and batch, or the comparison means nothing. */
	const char *same[] = {"params.f32", "input.f32", "labels.i32", "manifest.tsv"};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		char *a = slurp(ref, same[i], &b1), *b = slurp(test, same[i], &b2);

		if (b1 != b2 || memcmp(a, b, b1) != 0)
			die("%s differs between %s and %s: not the same --seed, batch or image",
			    same[i], ref, test);
		free(a);
		free(b);
	}

	float *la = floats(ref, "logits.f32", &n1), *lb = floats(test, "logits.f32", &n2);
	if (n1 != n2)
		die("logits.f32: %zu values in %s, %zu in %s", n1, ref, n2, test);
	scalar("logits", rel_err(la, lb, n1), tol.logits);

	char *sa = slurp(ref, "loss.txt", &b1), *sb = slurp(test, "loss.txt", &b2);
	double l1 = strtod(sa, NULL), l2 = strtod(sb, NULL);
	scalar("loss", isfinite(l2) ? fabs(l1 - l2) / fmax(fabs(l1), 1e-30) : INFINITY, tol.loss);

	float *p0 = floats(ref, "params.f32", &b1);
	float *ga = floats(ref, "grads.f32", &n1), *gb = floats(test, "grads.f32", &n2);
	float *pa = floats(ref, "params_after.f32", &b1);
	float *pb = floats(test, "params_after.f32", &b2);
	if (n1 != n2 || b1 != b2 || n1 != b1)
		die("grads.f32 or params_after.f32 differ in length between %s and %s", ref, test);
	for (size_t i = 0; i < n2; i++) {
		gb[i] = (float)(gb[i] / gscale);
		pa[i] -= p0[i]; /* the step each side took */
		pb[i] -= p0[i];
	}

	/* Per parameter tensor, from the manifest: name shape offset count. */
	char *man = slurp(ref, "manifest.tsv", &b1), *save = NULL;
	size_t n = 0, cap = 0;
	char(*names)[128] = NULL;
	double *gn = NULL, *gd = NULL, *sn = NULL, *sd = NULL;
	size_t *offs = NULL, *cnts = NULL;
	for (char *line = strtok_r(man, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char shape[64];
		size_t off, cnt;

		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			names = xrealloc(names, cap * sizeof *names);
			gn = xrealloc(gn, cap * sizeof *gn);
			gd = xrealloc(gd, cap * sizeof *gd);
			sn = xrealloc(sn, cap * sizeof *sn);
			sd = xrealloc(sd, cap * sizeof *sd);
		}
		if (sscanf(line, "%127s %63s %zu %zu", names[n], shape, &off, &cnt) != 4 ||
		    cnt == 0 || off + cnt > n1)
			die("%s/manifest.tsv: bad line '%s'", ref, line);
		offs = xrealloc(offs, cap * sizeof *offs);
		cnts = xrealloc(cnts, cap * sizeof *cnts);
		offs[n] = off;
		cnts[n] = cnt;
		gn[n] = norm_ratio_err(ga + off, gb + off, cnt);
		gd[n] = rel_err(ga + off, gb + off, cnt);
		sn[n] = norm_ratio_err(pa + off, pb + off, cnt);
		sd[n] = rel_err(pa + off, pb + off, cnt);
		n++;
	}
	if (n == 0)
		die("%s/manifest.tsv: no parameters", ref);
	int moved = 0;
	for (size_t i = 0; i < n2 && !moved; i++)
		moved = pb[i] != 0.0f;
	if (!moved)
		printf("step: %s/params_after.f32 equals params.f32: the update was skipped "
		       "(an fp16 overflow at this loss scale?)\n",
		       test);
	n = drop_null(ga, gb, offs, cnts, names, gn, gd, sn, sd, n, tol.null_worst);
	per_tensor("grad norm ratio", gn, names, n, tol.norm_median, tol.norm_worst);
	per_tensor("grad direction", gd, names, n, 0, tol.dir_worst);
	per_tensor("step norm ratio", sn, names, n, tol.norm_median, tol.norm_worst);
	per_tensor("step direction", sd, names, n, 0, tol.dir_worst);
	printf("check-gpu %s: %s\n", argv[0], bad ? "FAIL" : "ok");
	free(man);
	free(names);
	free(offs);
	free(cnts);
	free(gn);
	free(gd);
	free(sn);
	free(sd);
	free(la);
	free(lb);
	free(sa);
	free(sb);
	free(p0);
	free(ga);
	free(gb);
	free(pa);
	free(pb);
	return bad;
}

int gpu_versions(void); /* check-gpu-versions.c */

int main(int argc, char **argv)
{
	int rc;

	progname = "check-gpu-compare";
	usage_text = "check-gpu-compare devices | versions\n"
		     "       check-gpu-compare compare [-g scale] fp32|tf32|amp|bf16 refdir "
		     "testdir";
	if (argc == 2 && strcmp(argv[1], "devices") == 0)
		rc = devices();
	else if (argc == 2 && strcmp(argv[1], "versions") == 0)
		rc = gpu_versions();
	else if (argc >= 2 && strcmp(argv[1], "compare") == 0)
		rc = compare(argc - 2, argv + 2);
	else
		usage();
	finish_output();
	return rc;
}
