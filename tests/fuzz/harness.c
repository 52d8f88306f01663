/*
 * harness.c — libFuzzer's entry point for every filter (the target file
 * linked with it names which, harness.h): write the input to files, call
 * the filter's filter_run (filters/filter.h) in this process, and check the
 * filters' contract on what it did. A violation aborts, which libFuzzer
 * reports as a finding with the input that caused it.
 *
 * The contract: exit 0 with a stdout that the target's oracle accepts (whole
 * lines, finite numbers, positive ones above 0, valid JSON), or exit 1 with
 * stdout whole lines and an error line on stderr that names an input file;
 * every line on stderr (warnings before it too) starts "<filter>: ".
 * Nothing else: no other status, no crash (AddressSanitizer and UBSan), no
 * hang (libFuzzer's -timeout).
 *
 * A run's state is the call's own (filter.h), so a call starts from nothing;
 * progname is set as main sets it, and getopt started afresh (optind). A
 * run that fails leaves through die(), whose exit hook returns here by
 * longjmp; what it left behind is undone after every run: the streams it
 * left open (fopen and fdopen below record them; they are closed after the
 * run, which takes them out of the C library's list of streams), the memory
 * it did not free (every allocation made during a run is recorded by the
 * malloc family below, which sits in front of AddressSanitizer's, and freed
 * after it: the state a run dropped half-built, and what a run that
 * returned left for the process's end), and the descriptors it left open
 * (closed after it).
 */
#define _GNU_SOURCE
#include "../../filters/filter.h"
#include "harness.h"
#include "lib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the malloc family, recording what a run allocates ---------------- */

void *__interceptor_malloc(size_t size);
void *__interceptor_calloc(size_t n, size_t size);
void *__interceptor_realloc(void *p, size_t size);
void __interceptor_free(void *p);

/* Only the thread that runs the filter records: libFuzzer's own threads
 * (the RSS watcher) allocate and free at any moment, and the table below is
 * the main thread's alone. */
static _Thread_local int tracking;
static int warming;
static void **live; /* open addressing; NULL empty, TOMB a freed slot */
static size_t live_cap, live_used /* slots not empty */, live_count /* recorded */;
static char tomb_byte;
#define TOMB ((void *)&tomb_byte)

static size_t slot_of(const void *p)
{
	return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (live_cap - 1);
}

static void live_add(void *p);

static void live_grow(void)
{
	void **old = live, **grown;
	size_t oldcap = live_cap, cap = 1024;

	/* room for four times what is recorded: the freed slots go */
	while (cap < (live_count + 1) * 4)
		cap *= 2;
	grown = __interceptor_calloc(cap, sizeof *grown);
	if (!grown)
		abort();
	live = grown;
	live_cap = cap;
	live_used = live_count = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i] && old[i] != TOMB)
			live_add(old[i]);
	__interceptor_free(old);
}

static void live_add(void *p)
{
	if (!p)
		return;
	if ((live_used + 1) * 2 > live_cap)
		live_grow();
	size_t i = slot_of(p);
	while (live[i] && live[i] != TOMB)
		i = (i + 1) & (live_cap - 1);
	if (!live[i])
		live_used++;
	live[i] = p;
	live_count++;
}

/* 1 when p was recorded (and is now forgotten). */
static int live_del(void *p)
{
	if (!p || !live)
		return 0;
	for (size_t i = slot_of(p); live[i]; i = (i + 1) & (live_cap - 1))
		if (live[i] == p) {
			live[i] = TOMB;
			live_count--;
			return 1;
		}
	return 0;
}

static void live_free_all(void)
{
	for (size_t i = 0; i < live_cap; i++) {
		if (live[i] && live[i] != TOMB)
			__interceptor_free(live[i]);
		live[i] = NULL;
	}
	live_used = live_count = 0;
}

void *malloc(size_t size)
{
	void *p = __interceptor_malloc(size);
	if (tracking)
		live_add(p);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = __interceptor_calloc(n, size);
	if (tracking)
		live_add(p);
	return p;
}

void *realloc(void *old, size_t size)
{
	/* A block from before the run (the C library's own) stays unrecorded
	 * when it moves: what owns it outlives the run. */
	int mine = tracking && live_del(old);
	void *p = __interceptor_realloc(old, size);

	if (mine)
		live_add(p || size == 0 ? p : old); /* a failed realloc keeps old */
	else if (tracking && !old)
		live_add(p);
	return p;
}

void free(void *p)
{
	if (tracking)
		live_del(p);
	__interceptor_free(p);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	return p ? memcpy(p, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* ---- streams: a FILE is in the C library's list of streams, so one that
 * die() left open is closed, never just freed ---------------------------- */

FILE *__interceptor_fopen(const char *path, const char *mode);
FILE *__interceptor_fdopen(int fd, const char *mode);
int __interceptor_fclose(FILE *f);

#define STREAMS 64
static FILE *streams[STREAMS]; /* opened during the run, not closed */

static FILE *stream_add(FILE *f)
{
	if (f && tracking) {
		for (int i = 0; i < STREAMS; i++)
			if (!streams[i]) {
				streams[i] = f;
				return f;
			}
		fprintf(stderr, "fuzz: more than %d streams open at once\n", STREAMS);
		abort();
	}
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	return stream_add(__interceptor_fopen(path, mode));
}

FILE *fdopen(int fd, const char *mode)
{
	return stream_add(__interceptor_fdopen(fd, mode));
}

int fclose(FILE *f)
{
	for (int i = 0; i < STREAMS; i++)
		if (streams[i] == f)
			streams[i] = NULL;
	return __interceptor_fclose(f);
}

static void close_streams(void)
{
	for (int i = 0; i < STREAMS; i++)
		if (streams[i]) {
			__interceptor_fclose(streams[i]);
			streams[i] = NULL;
		}
}

/* ---- files ------------------------------------------------------------ */

#define FDS 1024
static char fd_before[FDS]; /* open when the run started */
static char workdir[64];
static char path1[256], path2[256];
static FILE *outf, *errf;
static int outfd, errfd;

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n || close(fd) != 0) {
		fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

/* mkdir -p of path's folder under the work folder */
static void make_dirs(char *path)
{
	for (char *s = path + strlen(workdir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
			exit(2);
		}
		*s = '/';
	}
}

/* The open descriptors, from /proc/self/fd, into open[]. */
static void open_fds(char *open)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		abort();
	memset(open, 0, FDS);
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd < FDS && fd != dirfd(d))
			open[fd] = 1;
	}
	closedir(d);
}

/* Close what the run opened and did not close (die() leaves files open). */
static void close_new_fds(void)
{
	char now[FDS];

	open_fds(now);
	for (int fd = 3; fd < FDS; fd++)
		if (now[fd] && !fd_before[fd])
			close(fd);
}

/* What the filter wrote to fd (a memory file), in *buf (grown). */
static char *read_all(int fd, size_t *n, char **bufp, size_t *capp)
{
	char *buf = *bufp;
	size_t cap = *capp;
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0)
		abort();
	if ((size_t)end + 1 > cap) {
		cap = (size_t)end + 1;
		__interceptor_free(buf);
		buf = __interceptor_malloc(cap);
		*bufp = buf;
		*capp = cap;
	}
	if (pread(fd, buf, (size_t)end, 0) != end)
		abort();
	buf[end] = '\0';
	*n = (size_t)end;
	return buf;
}

/* ---- running the filter ----------------------------------------------- */

static jmp_buf left;

static void exit_hook(int status)
{
	longjmp(left, status + 1);
}

static int run(int config)
{
	const struct fuzz_config *c = &fuzz_target.configs[config];
	char *argv[FUZZ_ARGS_MAX + 2];
	int argc = 0;
	volatile int status;
	FILE *save_out = stdout, *save_err = stderr;

	argv[argc++] = (char *)fuzz_target.name;
	for (int i = 0; i < FUZZ_ARGS_MAX && c->argv[i]; i++)
		argv[argc++] = strcmp(c->argv[i], "@1") == 0   ? path1
			       : strcmp(c->argv[i], "@2") == 0 ? path2
							       : (char *)c->argv[i];
	argv[argc] = NULL;
	if (ftruncate(outfd, 0) != 0 || ftruncate(errfd, 0) != 0)
		abort();
	rewind(outf);
	rewind(errf);
	open_fds(fd_before);
	progname = fuzz_target.name;
	optind = 0; /* glibc: start getopt afresh */
	stdout = outf;
	stderr = errf;
	tracking = !warming;
	int r = setjmp(left);
	if (r == 0)
		status = filter_run(argc, argv);
	else
		status = r - 1;
	tracking = 0;
	fflush(outf);
	fflush(errf);
	stdout = save_out;
	stderr = save_err;
	tracking = 1; /* what fclose frees is the run's */
	close_streams();
	tracking = 0;
	live_free_all();
	close_new_fds();
	return status;
}

/* Every line on stderr, warnings and the error alike, starts "<name>: ". */
static const char *unprefixed(const char *err)
{
	size_t plen = strlen(fuzz_target.name);

	for (const char *line = err; *line; line = strchr(line, '\n') + 1) {
		if (strncmp(line, fuzz_target.name, plen) != 0 || line[plen] != ':' ||
		    line[plen + 1] != ' ')
			return "a line on stderr does not start with the filter's name";
		if (!strchr(line, '\n'))
			return "stderr ends inside a line";
	}
	return NULL;
}

static void finding(const char *what, const char *out, const char *err)
{
	fprintf(stderr, "\nfuzz: %s: %s\n--- stdout ---\n%s--- stderr ---\n%s---\n",
		fuzz_target.name, what, out, err);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (getenv("FUZZ_INFO")) {
		printf("%d\n%s\n", fuzz_target.nconfigs, fuzz_target.seeds);
		exit(0);
	}
	snprintf(workdir, sizeof workdir, "%s/dlbench-fuzz-%ld",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/dev/shm", (long)getpid());
	if (strlen(workdir) > 40 || (mkdir(workdir, 0755) != 0 && errno != EEXIST)) {
		fprintf(stderr, "fuzz: %s: cannot make the work folder\n", workdir);
		exit(2);
	}
	outfd = memfd_create("stdout", 0);
	errfd = memfd_create("stderr", 0);
	if (outfd < 0 || errfd < 0 || !(outf = fdopen(outfd, "w")) || !(errf = fdopen(errfd, "w")))
		abort();
	set_exit_hook(exit_hook);
	/* Let the C library make its lazy allocations (locale, stdio,
	 * strerror) before anything is recorded: one run of each command line
	 * on an empty input, unrecorded. */
	warming = 1;
	for (int i = 0; i < fuzz_target.nconfigs; i++) {
		const uint8_t empty = (uint8_t)i;
		(void)strerror(ENOENT);
		LLVMFuzzerTestOneInput(&empty, 1);
	}
	warming = 0;
	return 0;
}

static void set_paths(const struct fuzz_config *c)
{
	static const struct fuzz_config *last;

	if (c == last)
		return;
	last = c;
	snprintf(path1, sizeof path1, "%s/%s", workdir, c->path1 ? c->path1 : "in1");
	snprintf(path2, sizeof path2, "%s/%s", workdir, c->path2 ? c->path2 : "in2");
	make_dirs(path1);
	make_dirs(path2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int config = data[0] % fuzz_target.nconfigs;
	const struct fuzz_config *c = &fuzz_target.configs[config];
	const uint8_t *text = data + 1, *split = NULL;
	size_t n = size - 1;

	set_paths(c);
	for (size_t i = 0; i + 3 <= n; i++)
		if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "%%\n", 3) == 0) {
			split = text + i;
			break;
		}
	if (split) {
		write_file(path1, text, (size_t)(split - text));
		write_file(path2, split + 3, n - (size_t)(split + 3 - text));
	} else {
		write_file(path1, text, n);
		write_file(path2, text, 0);
	}

	int status = run(config);
	const char *why;
	static char *outbuf, *errbuf;
	static size_t outcap, errcap;
	size_t nout, nerr;
	char *out = read_all(outfd, &nout, &outbuf, &outcap);
	char *err = read_all(errfd, &nerr, &errbuf, &errcap);
	char *copy_err = strdup(err);
	char *copy_out = strdup(out);

	if (!copy_err || !copy_out)
		abort();
	err = copy_err;
	if (strlen(out) != nout)
		finding("a NUL byte on stdout", out, err);
	if (status == 1) {
		if (nout && out[nout - 1] != '\n')
			finding("stdout ends inside a line", out, err);
		if (nerr == 0 || err[nerr - 1] != '\n')
			finding("exit 1 without an error line", out, err);
		err[nerr - 1] = '\0';
		char *last = strrchr(err, '\n');
		last = last ? last + 1 : err;
		int named = strstr(last, path1) || strstr(last, path2);
		err[nerr - 1] = '\n';
		if (!named)
			finding("the error line names no input file", out, err);
		if ((why = unprefixed(err)) != NULL)
			finding(why, out, err);
	} else if (status == 0 || status == fuzz_target.also_ok) {
		if ((why = unprefixed(err)) != NULL)
			finding(why, out, err);
		if ((why = fuzz_target.check(config, copy_out, nout)) != NULL)
			finding(why, out, err);
	} else {
		char what[64];
		snprintf(what, sizeof what, "exit status %d", status);
		finding(what, out, err);
	}
	free(copy_err);
	free(copy_out);
	return 0;
}

/* ---- helpers for the oracles ------------------------------------------ */

int fuzz_fields(char *line, char **f, int max)
{
	int nf = 0;

	while (nf < max) {
		f[nf++] = line;
		if (!(line = strchr(line, '\t')))
			break;
		*line++ = '\0';
	}
	return nf;
}

int fuzz_number(const char *s, double *v)
{
	char *end;
	const char *p = s;

	if (*p == '-' || *p == '+')
		p++;
	if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
		return 0;
	errno = 0;
	*v = strtod(s, &end);
	return *end == '\0' && isfinite(*v);
}

static int is_zero_text(const char *s)
{
	if (*s == '+')
		s++;
	for (; *s && *s != 'e' && *s != 'E'; s++)
		if (*s >= '1' && *s <= '9')
			return 0;
	return 1;
}

/* A list of run numbers, "1,4" (median's outliers). */
static int int_list(const char *s)
{
	if (!(*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!(*s >= '0' && *s <= '9') && !(*s == ',' && s[1] >= '0' && s[1] <= '9'))
			return 0;
	return 1;
}

static int non_finite_word(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	return strncasecmp(s, "inf", 3) == 0 || strncasecmp(s, "nan", 3) == 0;
}

const char *fuzz_check_records(char *out, size_t n, int min_fields, int first_num,
			       const int *positive)
{
	char *f[64];

	if (n && out[n - 1] != '\n')
		return "stdout ends inside a line";
	for (char *line = out, *next; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (*line == '#')
			continue;
		int nf = fuzz_fields(line, f, 64);
		if (nf < min_fields)
			return "a record with too few fields";
		for (int i = first_num; i < nf; i++) {
			double v;
			if (non_finite_word(f[i]))
				return "a non-finite number";
			if (strcmp(f[i], "-") != 0 &&
			    ((f[i][0] >= '0' && f[i][0] <= '9') || f[i][0] == '-' ||
			     f[i][0] == '.') &&
			    !fuzz_number(f[i], &v) && !int_list(f[i]))
				return "a field that starts as a number and is not a finite one";
		}
		for (const int *p = positive; *p >= 0; p++) {
			double v;
			if (*p >= nf || !fuzz_number(f[*p], &v))
				return "a field that must be a number is not one";
			if (!(v > 0) || is_zero_text(f[*p]))
				return "a field that must be above 0 is not";
		}
	}
	return NULL;
}
