/*
 * launch.h — the job that launch runs, shared by its four files:
 *
 *   hosts.c      where it runs: the host file, Slurm's node list, the
 *                reachability check; how it is started (directly, mpirun, srun)
 *   command.c    what runs: placeholders, environment, the argv, the header
 *   supervise.c  running it: process group, subreaper, timeout, signals,
 *                exit status
 *   main.c       the options, then those three in turn
 */
#ifndef DLBENCH_LAUNCH_H
#define DLBENCH_LAUNCH_H

#include "lib.h"

#include <stddef.h>
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

/* Seconds on the monotonic clock (the reachability check's and the
 * timeout's deadlines). */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
