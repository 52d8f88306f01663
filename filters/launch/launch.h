/*
 * launch.h — the job that launch runs, shared by its four files:
 *
 *   hosts.c      where it runs: the host file, Slurm's node list, the
 *                reachability check; how it is started (directly, mpirun, srun)
 *   command.c    what runs: placeholders, environment, the argv, the header
 *   supervise.c  running it: process group, subreaper, timeout, signals,
 *                exit status
 *   env.c        the machine: "# env" lines, once per node
 *   memory.c     the job's peak memory ("# mem" lines) and the wrapper
 *                around each rank under mpirun or srun (launch --rank)
 *   main.c       the options, then those three in turn
 */
#ifndef DLBENCH_LAUNCH_H
#define DLBENCH_LAUNCH_H

#include "lib.h"

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define MAX_RANKS 1000000L /* N*G */

struct host {
	char *name;
	long slots; /* -1: not given (Open MPI then counts the host's cores) */
};

enum start_how {
	DIRECT, /* the command itself: one rank, or 1n1g under Slurm */
	MPIRUN,
	SRUN,
};

struct job {
	/* From the command line. */
	struct key key;
	char keystr[KEY_MAX];
	long world;           /* N*G ranks */
	long timeout;         /* seconds; 0: none */
	const char *hostfile; /* -H, or NULL */
	const char *vcmd;     /* -v: the pipeline's version command, or NULL */
	char **cmd;           /* the command's words as given */
	int ncmd;

	/* hosts_resolve */
	enum start_how how;
	struct host *hosts; /* from -H or Slurm's node list; NULL for neither */
	size_t nhosts;
	char *hostlist; /* "h1:G,h2:G" (the header, DLBENCH_HOSTS, mpirun --host) */
	char *nodelist; /* "h1,h2" (srun --nodelist) */

	/* command_build */
	char **argv; /* what runs, NULL-terminated: [srun|mpirun ...] command */
	size_t argc;
};

/* Read the hosts (-H, else Slurm's node list), check that the first N can
 * hold G ranks each and answer on the network, and choose how the job is
 * started. Dies (exit 1) naming the host file or the Slurm job. */
void hosts_resolve(struct job *job);

/* Export DLBENCH_*, build job->argv with the placeholders replaced, and
 * write the "# launch ..." header line to stdout. */
void command_build(struct job *job);

/* Run job->argv in its own process group to the end, the timeout or a
 * signal; leave no process behind. Returns launch's exit status. */
int supervise(const struct job *job);

#define SAMPLE_S 0.1 /* memory samples */

/* Block SIGCHLD (with a handler, so it stays pending), SIGINT, SIGTERM and
 * SIGHUP, to take them with await_signal; *old: the mask before. */
void block_job_signals(sigset_t *set, sigset_t *old);
/* The first signal of set within s seconds, or -1. */
int await_signal(const sigset_t *set, double s);

/* Every live process below this one (*out: malloc'd); their count. */
size_t descendants(pid_t **out);

/* Write the node's "# env node=<node> name=value" lines to stdout (one
 * write): the machine, nvidia-smi's GPUs, Open MPI, the git repositories
 * of cmd's files, and the "name=value" lines vcmd (sh -c; may be NULL)
 * prints. Never fails; what cannot be read is left out. */
void env_print(long node, const char *vcmd, char **cmd, int ncmd);

/* The peak memory of the processes below this one, sampled. */
struct memwatch {
	long rss_peak_kib;
	long seen; /* samples that found the job's processes */
	pid_t smi; /* nvidia-smi -lms, or -1 */
	int smi_fd;
	char smibuf[512];
	size_t smilen;
	long *gpu_peak, ngpu; /* MiB per device index */
};
/* Start watching; gpus: also run nvidia-smi (when it exists) for the
 * memory.used of every device. */
void mem_start(struct memwatch *m, int gpus);
void mem_sample(struct memwatch *m);
void mem_stop(struct memwatch *m);
/* "# mem node=.. rank=.. host=.. rss_peak_mib=.." and one line per GPU. */
void mem_print(struct memwatch *m, long node, long rank);

/* launch --rank [-v cmd] -- command ...: the wrapper of one rank. */
int rank_main(int argc, char *argv[]);
/* launch --libs program: the linked libraries' versions (libs.c). */
int libs_main(int argc, char *argv[]);

/* The stdout of argv (stderr and stdin: /dev/null), at most size - 1
 * bytes, NUL-terminated, when it exits 0 within 3 s; else -1 (it is killed
 * then); partial: the whole lines it wrote, however it ended. */
ssize_t run_capture(char *const argv[], char *buf, size_t size, int partial);

#define OUT_MAX 65536 /* the output of a program run by env.c or libs.c */

/* The "# env" lines of one node, built up (env.c, libs.c). */
struct out {
	char *s;
	size_t len, cap;
	long node;
};
/* One item name=<n bytes of val>, trimmed, %XX-encoded; none when empty. */
void item(struct out *o, const char *name, const char *val, size_t n);
void items(struct out *o, const char *name, const char *val);
/* libs.c: git_repo/git_commit/git_dirty of the command's files; the
 * pipeline's version command's name=value lines; the linked libraries'. */
void env_git(struct out *o, char **cmd, int ncmd);
void env_versions(struct out *o, const char *vcmd);
void env_libs(struct out *o, char **cmd, int ncmd);

/* Seconds on the monotonic clock (the reachability check's and the
 * timeout's deadlines). */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
