/*
 * libs.c — the versions of the libraries a workload's program links, as
 * those libraries themselves report them: `launch --libs PROGRAM`.
 *
 * Reads `ldd PROGRAM` (the libraries the dynamic loader resolves for it,
 * in this environment); loads each of oneDNN, cuDNN, NCCL, the CUDA
 * runtime and MPI that it names, from the path ldd gave, and calls its own
 * version function; writes "name=value" lines to stdout (software.c runs
 * this as a program of its own, bounded in time, and takes the lines as it
 * takes the pipeline's version command's):
 *
 *   onednn=3.0.1        dnnl_version()
 *   cudnn=9.1.0         cudnnGetVersion(), CUDNN_VERSION's encoding
 *   nccl=2.21.5         ncclGetVersion(), NCCL_VERSION_CODE's encoding
 *   cuda_runtime=12.4   cudaRuntimeGetVersion()
 *   mpi_library=Open MPI v4.1.4   MPI_Get_library_version(), to the first ','
 *
 * A library that is not linked, cannot be loaded, or whose function fails
 * gives no line. A Python workload links none of them: its framework's
 * versions come from the pipeline (-v). bench links no MPI: it opens one
 * only when a launcher started its ranks, and writes that library's
 * mpi_library line itself.
 */
#include "launch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct dnnl_version {
	int major, minor, patch;
	const char *hash;
};

/* major.minor.patch of v = major * big + minor * 100 + patch. */
static void print_code(const char *name, long v, long big)
{
	printf("%s=%ld.%ld.%ld\n", name, v / big, v % big / 100, v % 100);
}

static void probe(const char *path)
{
	static const char *const known[] = {"libdnnl.so", "libcudnn.so", "libnccl.so",
					    "libcudart.so", "libmpi.so"};
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t k = 0;
	void *h, *f;

	/* Only these are loaded: every library ldd names includes the large
	 * ones (cuBLASLt), and the run waits for its "# env" lines. */
	while (k < sizeof known / sizeof *known && strncmp(base, known[k], strlen(known[k])))
		k++;
	if (k == sizeof known / sizeof *known || !(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		return;
	if (!strncmp(base, "libdnnl.so", 10) && (f = dlsym(h, "dnnl_version"))) {
		const struct dnnl_version *v = ((const struct dnnl_version *(*)(void))f)();
		if (v)
			printf("onednn=%d.%d.%d\n", v->major, v->minor, v->patch);
	} else if (!strncmp(base, "libcudnn.so", 11) && (f = dlsym(h, "cudnnGetVersion"))) {
		long v = (long)((size_t(*)(void))f)();
		if (v > 0)
			print_code("cudnn", v, v >= 90000 ? 10000 : 1000);
	} else if (!strncmp(base, "libnccl.so", 10) && (f = dlsym(h, "ncclGetVersion"))) {
		int v = 0;
		if (((int (*)(int *))f)(&v) == 0 && v > 0)
			print_code("nccl", v, v >= 20900 ? 10000 : 1000);
	} else if (!strncmp(base, "libcudart.so", 12) && (f = dlsym(h, "cudaRuntimeGetVersion"))) {
		int v = 0;
		if (((int (*)(int *))f)(&v) == 0 && v > 0)
			printf("cuda_runtime=%d.%d\n", v / 1000, v % 1000 / 10);
	} else if (!strncmp(base, "libmpi.so", 9) && (f = dlsym(h, "MPI_Get_library_version"))) {
		char buf[8192]; /* MPI_MAX_LIBRARY_VERSION_STRING is at most this */
		int len = 0;
		if (((int (*)(char *, int *))f)(buf, &len) == 0 && len > 0 &&
		    len < (int)sizeof buf) {
			buf[len] = '\0';
			printf("mpi_library=%.*s\n", (int)strcspn(buf, ",\n"), buf);
		}
	}
	fflush(stdout);
}

int libs_main(int argc, char *argv[])
{
	static char out[1 << 16];
	char *const av[] = {"ldd", argc > 2 ? argv[2] : "", NULL};

	if (argc != 3)
		die_usage("--libs program");
	if (run_capture(av, out, sizeof out, 0) < 0)
		return 1;
	/* "\tlibdnnl.so.3 => /usr/lib/x86_64-linux-gnu/libdnnl.so.3 (0x...)" */
	for (char *line = out, *next; *line; line = next) {
		size_t len = strcspn(line, "\n");
		next = line + len + (line[len] == '\n');
		line[len] = '\0';
		char *arrow = strstr(line, " => /");
		if (!arrow)
			continue;
		char *path = arrow + 4;
		path[strcspn(path, " ")] = '\0';
		probe(path);
	}
	return 0;
}
