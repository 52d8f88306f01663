/*
 * launch.h — what the files of launch share. Each file calls only files
 * below it in this list (tests/tree.bats finds any circle):
 *
 *   main.c       launch: the options, then the job's steps in turn
 *   rank.c       launch --rank: the wrapper of each rank under mpirun or srun
 *   libs.c       launch --libs: the versions of the libraries a program links
 *   hosts.c      where the job runs: the host file, Slurm's node list, the
 *                reachability check; how it is started (directly, mpirun, srun)
 *   command.c    what runs: placeholders, environment, the argv, the header
 *   supervise.c  running it: process group, subreaper, timeout, signals,
 *                exit status
 *   env.c        a node's "# env" lines, its groups of items gathered at once
 *   machine.c    the items of the machine: system, Open MPI, GPUs
 *   interconnect.c  the items of the links: nvidia-smi topo -m, InfiniBand
 *   software.c   the items of the software: git, -v's versions, libraries
 *   items.c      the item lines, encoded
 *   memory.c     the job's peak memory ("# mem" lines)
 *   energy.c     the node's energy counters, sampled ("# energy" lines)
 *   nvml.c       the GPUs' energy: NVML's counter, nvidia-smi's power.draw
 *   rapl.c       the CPUs' energy: RAPL's counters (energy.h: what the three share)
 *   smi.c        nvidia-smi beside the job, its lines as they come
 *   capture.c    a program's output, bounded in time; a child's standard files
 *   files.c      a file read whole; where a /sys file is (DLBENCH_SYSFS_ROOT)
 *   signals.c    the signals taken while waiting for a child
 *   proctree.c   the processes below this one
 */
#ifndef DLBENCH_LAUNCH_H
#define DLBENCH_LAUNCH_H

#include "lib.h"

#include <signal.h>
#include <stddef.h>
#include <sys/resource.h>
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

/* main.c's programs: launch --rank [-v cmd] -- command ... (rank.c) and
 * launch --libs program (libs.c). */
int rank_main(int argc, char *argv[]);
int libs_main(int argc, char *argv[]);

/* hosts.c: read the hosts (-H, else Slurm's node list), check that the
 * first N can hold G ranks each and answer on the network, and choose how
 * the job is started. Dies (exit 1) naming the host file or the Slurm job. */
void hosts_resolve(struct job *job);

/* command.c: export DLBENCH_*, build job->argv with the placeholders
 * replaced, and write the "# launch ..." header line to stdout. */
void command_build(struct job *job);

/* supervise.c: run job->argv in its own process group to the end, the
 * timeout or a signal; leave no process behind. Returns launch's exit
 * status. */
int supervise(const struct job *job);

/* env.c: write the node's "# env node=<node> name=value" lines to stdout
 * (one write): the machine, nvidia-smi's GPUs, Open MPI, the links between
 * the devices (nvidia-smi topo -m, InfiniBand), the git
 * repositories of cmd's files, the libraries its program links, and the
 * "name=value" lines vcmd (sh -c; may be NULL) prints. Never fails; what
 * cannot be read is left out. */
void env_print(long node, const char *vcmd, char **cmd, int ncmd);

/* The "# env" lines of one node, built up (items.c). */
struct out {
	char *s;
	size_t len, cap;
	long node;
};

/* machine.c: the system (host, CPUs, memory, kernel, OS, frequency
 * settings, load), Open MPI's version, nvidia-smi's GPUs. */
void env_system(struct out *o);
void env_openmpi(struct out *o);
void env_gpus(struct out *o);

/* interconnect.c: the matrix of nvidia-smi topo -m (topo.*), the
 * InfiniBand devices and ports of /sys/class/infiniband (ib_devices, ib.*). */
void env_topology(struct out *o);
void env_infiniband(struct out *o);

/* software.c: git_repo/git_commit/git_dirty of the command's files; the
 * pipeline's version command's name=value lines; the linked libraries'. */
void env_git(struct out *o, char **cmd, int ncmd);
void env_versions(struct out *o, const char *vcmd);
void env_libs(struct out *o, char **cmd, int ncmd);

/* items.c: n bytes of p appended; one item name=<n bytes of val>, trimmed,
 * %XX-encoded, none when empty; items: val's whole string. */
void out_put(struct out *o, const char *p, size_t n);
void item(struct out *o, const char *name, const char *val, size_t n);
void items(struct out *o, const char *name, const char *val);

#define OUT_MAX 65536 /* the output of a program run for the items */

/* capture.c: the stdout of argv (stderr and stdin: /dev/null), at most
 * size - 1 bytes, NUL-terminated, when it exits 0 within CMD_S seconds;
 * else -1 (it is killed then); partial: the whole lines it wrote, however
 * it ended. */
ssize_t run_capture(char *const argv[], char *buf, size_t size, int partial);
/* In a child about to exec: signals unblocked, stdout to out, stdin and
 * stderr /dev/null. */
void child_stdio(int out);

/* files.c: the whole file (at most size - 1 bytes, NUL-terminated), or -1.
 * sys_path: where the sysfs file path ("/sys/...") is read: under
 * DLBENCH_SYSFS_ROOT when that is set and not empty (the tests' fake sysfs
 * tree; the one test hook of its kind), else path itself; buf holds it. */
ssize_t slurp(const char *path, char *buf, size_t size);
const char *sys_path(char *buf, size_t size, const char *path);

#define SAMPLE_S 0.1 /* memory samples */

/* energy.c: the node's energy counters (NVML, else nvidia-smi's
 * power.draw; RAPL), sampled while the job runs: energy_start takes the
 * first sample, energy_sample one when it is due (call it often),
 * energy_stop the last; energy_print writes the "# energy node=<node>"
 * lines (the samples, or why there are none) in one write and frees e. */
struct energywatch;
struct energywatch *energy_start(void);
void energy_sample(struct energywatch *e);
void energy_stop(struct energywatch *e);
void energy_print(struct energywatch *e, long node);
/* The pid of its nvidia-smi, or -1 (not the job's: its memory is not). */
pid_t energy_pid(const struct energywatch *e);

/* smi.c: nvidia-smi run beside the job (pid -1: none; fd -1: its output
 * ended). smi_start: argv started, stdout into s; smi_lines: each whole
 * line read so far to line(ctx, text), without waiting; smi_kill: stopped
 * (its lines so far stay readable); smi_close: its pipe closed. */
struct smistream {
	pid_t pid;
	int fd;
	char buf[512];
	size_t len;
};
void smi_start(struct smistream *s, char *const argv[]);
void smi_lines(struct smistream *s, void (*line)(void *ctx, char *text), void *ctx);
void smi_kill(struct smistream *s);
void smi_close(struct smistream *s);

/* memory.c: the peak memory of the processes below this one, sampled. */
struct memwatch {
	long rss_peak_kib;
	long seen;                  /* samples that found the job's processes */
	struct smistream smi;       /* nvidia-smi -lms: memory.used */
	long *gpu_peak, ngpu;       /* MiB per device index */
	struct energywatch *energy; /* the node's energy (gpus), or NULL */
};
/* Start watching; gpus (the node's first rank): also run nvidia-smi (when
 * it exists) for the memory.used of every device, and watch the node's
 * energy (energy.c). */
void mem_start(struct memwatch *m, int gpus);
void mem_sample(struct memwatch *m);
/* The job's command reaped: the kernel's peak of it (ru from wait4). */
void mem_reaped(struct memwatch *m, const struct rusage *ru);
void mem_stop(struct memwatch *m);
/* The "# energy" lines when gpus was given, then "# mem node=.. rank=..
 * host=.. rss_peak_mib=.." and one line per GPU. */
void mem_print(struct memwatch *m, long node, long rank);

/* signals.c: block SIGCHLD (with a handler, so it stays pending), SIGINT,
 * SIGTERM and SIGHUP, to take them with await_signal; *old: the mask
 * before. await_signal: the first signal of set within s seconds, or -1. */
void block_job_signals(sigset_t *set, sigset_t *old);
int await_signal(const sigset_t *set, double s);

/* proctree.c: every live process below this one (*out: malloc'd); their
 * count. */
size_t descendants(pid_t **out);

/* Seconds on the monotonic clock (the reachability check's and the
 * timeout's deadlines). */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
