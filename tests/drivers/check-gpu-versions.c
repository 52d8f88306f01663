/*
 * tests/drivers/check-gpu-versions.c: `check-gpu-compare versions`, the CUDA
 * libraries a program linked as bench-cuda is actually runs on. Reads the
 * versions the libraries report (not their headers) and the dynamic
 * loader's list of loaded objects (their files); writes one line per
 * library on stdout:
 *
 *   CUDA driver: 13.0
 *   CUDA runtime: 13.0 (built against 13.0) /…/nvidia/cu13/lib/libcudart.so.13
 *   cuDNN: 9.19.0 (built against 9.19.0) /…/nvidia/cudnn/lib/libcudnn.so.9
 *   cuBLAS: 13.1.0 (built against 13.1.0) /…/nvidia/cu13/lib/libcublas.so.13
 *   NCCL: 2.28.9 (built against 2.28.9) /…/nvidia/nccl/lib/libnccl.so.2
 *
 * A cuDNN older than the headers bench-cuda was built from may lack what it
 * calls, or behave otherwise: one line on stderr and exit 1. Needs no GPU
 * ("CUDA driver: none" without one).
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#ifndef BENCH_NO_NCCL
#include <nccl.h>
#endif

#include "lib.h"

struct find {
	const char *stem; /* "libcudnn.so" */
	const char *path; /* the loaded file, or NULL */
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	const char *base = strrchr(info->dlpi_name, '/');
	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, f->stem, strlen(f->stem)) == 0) {
		f->path = info->dlpi_name;
		return 1;
	}
	return 0;
}

/* The file a library was loaded from ("?" when the loader does not say). */
static const char *loaded(const char *stem)
{
	struct find f = {stem, NULL};
	dl_iterate_phdr(find_object, &f);
	return f.path && *f.path ? f.path : "?";
}

/* major.minor.patch of a version as cuDNN 9 and NCCL encode it (x * 10000 +
 * y * 100 + z). */
static void xyz(char *buf, size_t n, long v)
{
	snprintf(buf, n, "%ld.%ld.%ld", v / 10000, v / 100 % 100, v % 100);
}

int gpu_versions(void)
{
	char have[32], want[32];
	int drv = 0, rt = 0, major = 0, minor = 0, patch = 0;

	if (cudaDriverGetVersion(&drv) != cudaSuccess || drv == 0)
		printf("CUDA driver: none\n");
	else
		printf("CUDA driver: %d.%d\n", drv / 1000, drv % 1000 / 10);
	if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
		die("cudaRuntimeGetVersion failed");
	printf("CUDA runtime: %d.%d (built against %d.%d) %s\n", rt / 1000, rt % 1000 / 10,
	       CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, loaded("libcudart.so"));

	long dnn = (long)cudnnGetVersion();
	xyz(have, sizeof have, dnn);
	xyz(want, sizeof want, (long)CUDNN_VERSION);
	printf("cuDNN: %s (built against %s) %s\n", have, want, loaded("libcudnn.so"));

	if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
	    cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
	    cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
		die("cublasGetProperty failed");
	printf("cuBLAS: %d.%d.%d (built against %d.%d.%d) %s\n", major, minor, patch,
	       CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH, loaded("libcublas.so"));

#ifndef BENCH_NO_NCCL
	int nccl = 0;
	if (ncclGetVersion(&nccl) != ncclSuccess)
		die("ncclGetVersion failed");
	xyz(have, sizeof have, nccl);
	xyz(want, sizeof want, NCCL_VERSION_CODE);
	printf("NCCL: %s (built against %s) %s\n", have, want, loaded("libnccl.so"));
#else
	printf("NCCL: none (built without)\n");
#endif
	fflush(stdout);

	if (dnn < (long)CUDNN_VERSION) {
		xyz(have, sizeof have, dnn);
		xyz(want, sizeof want, (long)CUDNN_VERSION);
		die("cuDNN %s loaded from %s is older than the %s bench-cuda was built against",
		    have, loaded("libcudnn.so"), want);
	}
	return 0;
}
