/*
 * command.c — what launch's job runs.
 *
 * Reads the job (key, hosts, start method, the command's words) and the
 * environment; exports DLBENCH_KEY, DLBENCH_NODES, DLBENCH_GPUS,
 * DLBENCH_BATCH, DLBENCH_PRECISION, DLBENCH_WORLD (= N*G, for workloads to
 * check their world size against) and DLBENCH_HOSTS; writes the job's argv
 * and, to stdout, one header line:
 *
 *   # launch key=<key> hosts=h1:G,... start=<UTC time> command=<words>
 *
 * The command's words have {batch} {precision} {nodes} {gpus} {key}
 * replaced; other braces stay. The argv is the command itself, or
 *
 *   srun --nodes=N --ntasks=N*G --ntasks-per-node=G --nodelist=h1,...
 *        --cpu-bind=none --kill-on-bad-exit=1 command ...
 *   mpirun -np N*G --host h1:G,...,hN:G --map-by ppr:G:node --bind-to none
 *          -x NAME ... command ...
 *
 * Under srun and mpirun each rank runs as `<launch> --rank [-v cmd] --
 * command ...` (rank.c: the node's environment, the rank's memory), with
 * <launch> this program's own path, which every node must have too.
 *
 * --host h:G declares G slots on h, so G ranks fit on every host however
 * many cores it has: G is the number of devices per node, and a GPU node
 * runs one rank per GPU. No --oversubscribe is ever needed. mpirun forwards
 * DLBENCH_*, PATH, LD_LIBRARY_PATH, OMP_* and NCCL_* with -x (OMPI_MCA_*
 * reach every daemon and rank by Open MPI's own means).
 */
#include "launch.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A NULL-terminated, growing list of words, each its own copy. */
struct words {
	char **v;
	size_t n, cap;
};

static void push(struct words *w, const char *s)
{
	w->v = xgrow(w->v, &w->cap, w->n + 2, sizeof *w->v);
	w->v[w->n++] = xstrdup(s);
	w->v[w->n] = NULL;
}

static void pushf(struct words *w, const char *fmt, long x)
{
	char buf[64];

	snprintf(buf, sizeof buf, fmt, x);
	push(w, buf);
}

/* Replace {batch} {precision} {nodes} {gpus} {key}; other braces stay. */
static char *substitute(const struct job *job, const char *s)
{
	char num[3][24];
	const char *names[] = {"{batch}", "{precision}", "{nodes}", "{gpus}", "{key}"};
	const char *vals[] = {num[0], job->key.prec, num[1], num[2], job->keystr};
	size_t cap = strlen(s) + 1, len = 0;
	char *out = xmalloc(cap);

	snprintf(num[0], sizeof num[0], "%ld", job->key.batch);
	snprintf(num[1], sizeof num[1], "%ld", job->key.nodes);
	snprintf(num[2], sizeof num[2], "%ld", job->key.gpus);
	while (*s) {
		const char *add = s;
		size_t addlen = 1, skip = 1;
		for (size_t i = 0; i < sizeof names / sizeof *names; i++)
			if (!strncmp(s, names[i], strlen(names[i]))) {
				add = vals[i];
				addlen = strlen(vals[i]);
				skip = strlen(names[i]);
				break;
			}
		out = xgrow(out, &cap, len + addlen + 1, 1);
		memcpy(out + len, add, addlen);
		len += addlen;
		s += skip;
	}
	out[len] = '\0';
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names mpirun forwards to every rank with -x, sorted. */
static void forward_env(struct words *av)
{
	static const char *const prefixes[] = {"DLBENCH_", "NCCL_", "OMP_"};
	static const char *const names[] = {"PATH", "LD_LIBRARY_PATH"};
	struct words fw = {0};

	for (char **e = environ; *e; e++) {
		size_t len = strcspn(*e, "=");
		int take = 0;
		for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
			take |= !strncmp(*e, prefixes[i], strlen(prefixes[i]));
		for (size_t i = 0; i < sizeof names / sizeof *names; i++)
			take |= len == strlen(names[i]) && !strncmp(*e, names[i], len);
		if (take && (*e)[len] == '=') {
			push(&fw, *e);
			fw.v[fw.n - 1][len] = '\0';
		}
	}
	if (fw.n)
		qsort(fw.v, fw.n, sizeof *fw.v, cmp_str);
	for (size_t i = 0; i < fw.n; i++) {
		push(av, "-x");
		push(av, fw.v[i]);
		free(fw.v[i]);
	}
	free(fw.v);
}

static void export_long(const char *name, long v)
{
	char buf[24];

	snprintf(buf, sizeof buf, "%ld", v);
	if (setenv(name, buf, 1) != 0)
		die("setenv %s:", name);
}

static void export_job(const struct job *job)
{
	export_long("DLBENCH_NODES", job->key.nodes);
	export_long("DLBENCH_GPUS", job->key.gpus);
	export_long("DLBENCH_BATCH", job->key.batch);
	export_long("DLBENCH_WORLD", job->world);
	if (setenv("DLBENCH_KEY", job->keystr, 1) ||
	    setenv("DLBENCH_PRECISION", job->key.prec, 1) ||
	    setenv("DLBENCH_HOSTS", job->hostlist, 1))
		die("setenv:");
}

/* A word as sh reads it back: bare when safe, else in single quotes. */
static void put_quoted(const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789@%+=:,./-_") == strlen(s)) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	putchar('\'');
}

/* The header: the command as substituted (without srun's or mpirun's own
 * words), quoted so that sh reads it back. */
static void put_header(const struct job *job)
{
	char stamp[32];
	time_t wall = time(NULL);
	struct tm tm;

	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&wall, &tm));
	/* A closed stdout is then a write error that names it, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	printf("# launch key=%s hosts=%s start=%s command=", job->keystr, job->hostlist, stamp);
	for (size_t i = job->argc - (size_t)job->ncmd; i < job->argc; i++) {
		if (i > job->argc - (size_t)job->ncmd)
			putchar(' ');
		put_quoted(job->argv[i]);
	}
	putchar('\n');
}

void command_build(struct job *job)
{
	struct words av = {0};
	const struct key *k = &job->key;

	export_job(job);
	if (job->how == SRUN) {
		push(&av, "srun");
		pushf(&av, "--nodes=%ld", k->nodes);
		pushf(&av, "--ntasks=%ld", job->world);
		pushf(&av, "--ntasks-per-node=%ld", k->gpus);
		char *arg = xmalloc(strlen(job->nodelist) + 16);
		sprintf(arg, "--nodelist=%s", job->nodelist);
		push(&av, arg);
		free(arg);
		push(&av, "--cpu-bind=none");
		push(&av, "--kill-on-bad-exit=1");
	} else if (job->how == MPIRUN) {
		push(&av, "mpirun");
		push(&av, "-np");
		pushf(&av, "%ld", job->world);
		push(&av, "--host");
		push(&av, job->hostlist);
		push(&av, "--map-by");
		pushf(&av, "ppr:%ld:node", k->gpus);
		push(&av, "--bind-to");
		push(&av, "none");
		forward_env(&av);
	}
	if (job->how != DIRECT) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n > 0) {
			self[n] = '\0';
			push(&av, self);
			push(&av, "--rank");
			if (job->vcmd) {
				push(&av, "-v");
				push(&av, job->vcmd);
			}
			push(&av, "--");
		} else {
			warnf("/proc/self/exe:%s no environment or memory lines from the ranks",
			      "");
		}
	}
	for (int i = 0; i < job->ncmd; i++) {
		char *w = substitute(job, job->cmd[i]);
		push(&av, w);
		free(w);
	}
	job->argv = av.v;
	job->argc = av.n;
	put_header(job);
}
