/*
 * gpucheck.c: bin/gpucheck, the two halves of `make check-gpu`.
 *
 *   gpucheck devices
 *	lists the CUDA devices on stdout; "gpucheck: no CUDA device" on
 *	stderr and exit 1 when the runtime reports an error or none.
 *   gpucheck compare [-g scale] precision refdir testdir
 *	reads two `bench --export` directories (doc/CONTRACT.md): refdir from
 *	the CPU backend in fp32, testdir from the GPU backend in 'precision',
 *	same --seed, batch and image. Both must hold the same parameters and
 *	input; then logits, loss, each parameter's gradient (testdir's divided
 *	by -g scale: amp exports gradients times the loss scale) and the
 *	updated parameters are compared with gpu_tolerance(precision).
 *	One line per quantity on stdout; exit 1 if any is out of tolerance.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpuplan.h"

static const char *usage_text =
    "usage: gpucheck devices\n"
    "       gpucheck compare [-g scale] fp32|tf32|amp|bf16 refdir testdir";

static void
usage(void)
{
	fprintf(stderr, "%s\n", usage_text);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("gpucheck: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int
devices(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0) {
		fprintf(stderr, "gpucheck: no CUDA device (%s)\n",
		    e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		return 1;
	}
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

/* The whole file; *bytes its size. */
static char *
slurp(const char *dir, const char *name, size_t *bytes)
{
	char path[4096];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, len = 0, got;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		die("%s: %s", path, strerror(errno));
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			if (!(buf = realloc(buf, cap + 1)))
				die("%s: out of memory", path);
		}
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

static float *
floats(const char *dir, const char *name, size_t *n)
{
	size_t bytes;
	char *b = slurp(dir, name, &bytes);

	if (bytes % sizeof(float))
		die("%s/%s: %zu bytes is not a whole number of float32", dir, name, bytes);
	*n = bytes / sizeof(float);
	return (float *)b;
}

static int bad;

static void
report(const char *what, double err, double tol)
{
	int ok = err <= tol;

	printf("%-40s rel_err %.3e tol %.0e %s\n", what, err, tol, ok ? "ok" : "FAIL");
	bad |= !ok;
}

static int
compare(int argc, char **argv)
{
	double gscale = 1.0;
	struct gpu_tol tol;
	size_t n1, n2;

	if (argc >= 2 && strcmp(argv[0], "-g") == 0) {
		char *end;

		errno = 0;
		gscale = strtod(argv[1], &end);
		if (errno || *end || !(gscale > 0) || !isfinite(gscale)) {
			fprintf(stderr, "gpucheck: -g: '%s' is not a positive number\n", argv[1]);
			exit(2);
		}
		argc -= 2;
		argv += 2;
	}
	if (argc != 3)
		usage();
	if (gpu_tolerance(argv[0], &tol) != 0) {
		fprintf(stderr, "gpucheck: '%s' is not fp32, tf32, amp or bf16\n", argv[0]);
		exit(2);
	}
	const char *ref = argv[1], *test = argv[2];

	/* Same weights and batch, or the comparison means nothing. */
	const char *same[] = {"params.f32", "input.f32", "labels.i32", "manifest.tsv"};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		size_t b1, b2;
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
	report("logits", gpu_rel_err(la, lb, n1), tol.logits);

	size_t b1, b2;
	char *sa = slurp(ref, "loss.txt", &b1), *sb = slurp(test, "loss.txt", &b2);
	double l1 = strtod(sa, NULL), l2 = strtod(sb, NULL);
	report("loss", isfinite(l2) ? fabs(l1 - l2) / fmax(fabs(l1), 1e-30) : INFINITY, tol.loss);

	float *ga = floats(ref, "grads.f32", &n1), *gb = floats(test, "grads.f32", &n2);
	float *pa = floats(ref, "params_after.f32", &b1), *pb = floats(test, "params_after.f32", &b2);
	if (n1 != n2 || b1 != b2 || n1 != b1)
		die("grads.f32 or params_after.f32 differ in length between %s and %s", ref, test);
	for (size_t i = 0; i < n2; i++)
		gb[i] = (float)(gb[i] / gscale);

	/* Per parameter tensor, from the manifest: name shape offset count. */
	char *man = slurp(ref, "manifest.tsv", &b1), *save = NULL;
	double worst_g = -1.0, worst_p = -1.0;
	char worst_gname[128] = "-", worst_pname[128] = "-";
	int tensors = 0;
	for (char *line = strtok_r(man, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], shape[64];
		size_t off, cnt;

		if (sscanf(line, "%127s %63s %zu %zu", name, shape, &off, &cnt) != 4 ||
		    off + cnt > n1)
			die("%s/manifest.tsv: bad line '%s'", ref, line);
		double eg = gpu_rel_err(ga + off, gb + off, cnt);
		double ep = gpu_rel_err(pa + off, pb + off, cnt);
		if (!(eg <= worst_g)) {
			worst_g = eg;
			snprintf(worst_gname, sizeof worst_gname, "%s", name);
		}
		if (!(ep <= worst_p)) {
			worst_p = ep;
			snprintf(worst_pname, sizeof worst_pname, "%s", name);
		}
		tensors++;
	}
	char what[200];
	snprintf(what, sizeof what, "grads (worst of %d: %s)", tensors, worst_gname);
	report(what, worst_g, tol.grads);
	snprintf(what, sizeof what, "params_after (worst: %s)", worst_pname);
	report(what, worst_p, tol.params);
	printf("check-gpu %s: %s\n", argv[0], bad ? "FAIL" : "ok");
	free(man);
	free(la);
	free(lb);
	free(sa);
	free(sb);
	free(ga);
	free(gb);
	free(pa);
	free(pb);
	return bad;
}

int
main(int argc, char **argv)
{
	int rc;

	if (argc == 2 && strcmp(argv[1], "devices") == 0)
		rc = devices();
	else if (argc >= 2 && strcmp(argv[1], "compare") == 0)
		rc = compare(argc - 2, argv + 2);
	else
		usage();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gpucheck: stdout");
		return 1;
	}
	return rc;
}
