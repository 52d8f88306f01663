/*
 * libs.c — the versions of the libraries a workload's program links, as
 * those libraries themselves report them: `launch --libs PROGRAM`.
 *
 * Reads `ldd PROGRAM` (the libraries the dynamic loader resolves for it,
 * in this environment); loads each of oneDNN, cuDNN, NCCL, the CUDA
 * runtime and MPI that it names, from the path ldd gave, and calls its own
 * version function; writes "name=value" lines to stdout (env.c runs this
 * in a child process, as the pipeline's version command, and bounds it in
 * time):
 *
 *   onednn=3.0.1        dnnl_version()
 *   cudnn=9.1.0         cudnnGetVersion(), CUDNN_VERSION's encoding
 *   nccl=2.21.5         ncclGetVersion(), NCCL_VERSION_CODE's encoding
 *   cuda_runtime=12.4   cudaRuntimeGetVersion()
 *   mpi_library=Open MPI v4.1.4   MPI_Get_library_version(), to the first ','
 *
 * A library that is not linked, cannot be loaded, or whose function fails
 * gives no line. A Python workload links none of them: its framework's
 * versions come from the pipeline (-v).
 *
 * Also here, for env.c: the git repositories of the command's files, the
 * pipeline's version command, and the call of `launch --libs`.
 */
#include "launch.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

	/* Only these are loaded: loading every library ldd names (cuBLASLt is
	 * hundreds of MB) took most of a second. */
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

/* ---- for env.c ---------------------------------------------------------- */

/* The git repositories holding the command's files: git_repo, git_commit,
 * git_dirty (tracked files changed), numbered from the second on. */
void env_git(struct out *o, char **cmd, int ncmd)
{
	char dirs[4][PATH_MAX], buf[PATH_MAX + 128], name[32];
	int nd = 0;

	for (int i = 0; i < ncmd && nd < 4; i++) {
		char real[PATH_MAX], *slash;
		struct stat sb;
		if (!strchr(cmd[i], '/') || !realpath(cmd[i], real) || stat(real, &sb) != 0)
			continue;
		if (!S_ISDIR(sb.st_mode) && (slash = strrchr(real, '/')))
			*slash = '\0';
		char *const top[] = {"git",  "-C", real, "rev-parse", "--show-toplevel",
				     "HEAD", NULL};
		if (run_capture(top, buf, sizeof buf, 0) <= 0)
			continue;
		char *nl = strchr(buf, '\n');
		if (!nl)
			continue;
		*nl = '\0';
		int k = 0;
		while (k < nd && strcmp(dirs[k], buf) != 0)
			k++;
		if (k < nd)
			continue;
		size_t bl = strlen(buf);
		if (bl >= PATH_MAX)
			continue;
		memcpy(dirs[nd++], buf, bl + 1);
		char sfx[4] = "";
		if (nd > 1)
			snprintf(sfx, sizeof sfx, "%d", nd);
		snprintf(name, sizeof name, "git_repo%s", sfx);
		items(o, name, buf);
		snprintf(name, sizeof name, "git_commit%s", sfx);
		item(o, name, nl + 1, strcspn(nl + 1, "\n"));
		char *const st[] = {"git",    "-C",          dirs[nd - 1],
				    "status", "--porcelain", "--untracked-files=no",
				    NULL};
		ssize_t n = run_capture(st, buf, sizeof buf, 0);
		snprintf(name, sizeof name, "git_dirty%s", sfx);
		if (n >= 0)
			items(o, name, n ? "yes" : "no");
	}
}

/* The "name=value" lines of buf as items, names of [A-Za-z0-9_.-]; other
 * lines are left out. */
static void pairs(struct out *o, char *buf)
{
	for (char *line = buf, *next; *line; line = next) {
		size_t len = strcspn(line, "\n");
		next = line + len + (line[len] == '\n');
		line[len] = '\0';
		size_t nl = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					 "0123456789_.-");
		if (nl && nl < 64 && line[nl] == '=') {
			line[nl] = '\0';
			items(o, line, line + nl + 1);
		}
	}
}

/* The pipeline's version command (sh -c). */
void env_versions(struct out *o, const char *vcmd)
{
	static char buf[OUT_MAX];
	char *const av[] = {"sh", "-c", (char *)vcmd, NULL};

	if (vcmd && run_capture(av, buf, sizeof buf, 0) >= 0)
		pairs(o, buf);
}

/* The libraries' own versions (libs.c) for the command's program: its
 * first word after "env" and VAR=value words, looked up on PATH. */
void env_libs(struct out *o, char **cmd, int ncmd)
{
	static char buf[OUT_MAX];
	char self[PATH_MAX], prog[PATH_MAX];
	int i = 0;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n <= 0)
		return;
	self[n] = '\0';
	if (i < ncmd && !strcmp(cmd[i], "env"))
		i++;
	while (i < ncmd && strchr(cmd[i], '=') && *cmd[i] != '/')
		i++;
	if (i == ncmd)
		return;
	if (strchr(cmd[i], '/')) {
		snprintf(prog, sizeof prog, "%s", cmd[i]);
	} else {
		const char *path = getenv("PATH");
		*prog = '\0';
		for (const char *p = path ? path : ""; *p && !*prog; p += *p == ':') {
			size_t len = strcspn(p, ":");
			snprintf(prog, sizeof prog, "%.*s/%s", (int)len, p, cmd[i]);
			if (access(prog, X_OK) != 0)
				*prog = '\0';
			p += len;
		}
		if (!*prog)
			return;
	}
	char *const av[] = {self, "--libs", prog, NULL};
	if (run_capture(av, buf, sizeof buf, 1) >= 0)
		pairs(o, buf);
}
