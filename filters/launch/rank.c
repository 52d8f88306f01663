/*
 * rank.c — `launch --rank [-v cmd] -- command ...`: the wrapper launch puts
 * around every rank under mpirun or srun (command.c names it in the argv).
 *
 * Reads the rank's place from the environment mpirun or srun gives it
 * (OMPI_COMM_WORLD_RANK, PMIX_RANK or SLURM_PROCID; the local rank from
 * OMPI_COMM_WORLD_LOCAL_RANK or SLURM_LOCALID) and DLBENCH_GPUS; writes to
 * stdout, on the first rank of a node (local rank 0), the node's "# env"
 * lines (env.c), then the rank's "# mem" lines (memory.c; the node's GPUs
 * sampled on its first rank only). Every rank runs the command as its
 * child, passes SIGINT, SIGTERM and SIGHUP on, and exits with the
 * command's status (or dies of its signal).
 */
#include "launch.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* An integer from the first of the environment variables set, else dflt. */
static long env_long(const char *const names[], long dflt)
{
	long v;

	for (; *names; names++) {
		const char *s = getenv(*names);
		if (s && parse_long(s, 0, MAX_RANKS, &v) == 0)
			return v;
	}
	return dflt;
}

int rank_main(int argc, char *argv[])
{
	static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID",
						NULL};
	static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
						 NULL};
	static const char *const gpu_vars[] = {"DLBENCH_GPUS", NULL};
	const char *vcmd = NULL;
	struct memwatch m;
	struct rusage ru;
	sigset_t set, old;
	int i = 2, status = 0;

	if (i + 1 < argc && !strcmp(argv[i], "-v"))
		vcmd = argv[i + 1], i += 2;
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc)
		die_usage("--rank [-v command] -- command ...");
	char **cmd = argv + i + 1;
	long rank = env_long(rank_vars, 0), local = env_long(local_vars, 0);
	long gpus = env_long(gpu_vars, 1), node = rank / (gpus > 0 ? gpus : 1);

	if (local == 0)
		env_print(node, vcmd, cmd, argc - i - 1);
	block_job_signals(&set, &old);
	pid_t self = getpid(), child = fork();
	if (child < 0)
		die("fork:");
	if (child == 0) {
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != self)
			_exit(128 + SIGTERM);
#endif
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(cmd[0], cmd);
		int err = errno;
		warnf("%s:", cmd[0]);
		_exit(err == ENOENT ? 127 : 126);
	}
	mem_start(&m, local == 0);
	for (;;) {
		pid_t p = wait4(child, &status, WNOHANG, &ru);
		if (p == child)
			break;
		int sig = await_signal(&set, SAMPLE_S);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			kill(child, sig);
		mem_sample(&m);
	}
	mem_reaped(&m, &ru);
	mem_stop(&m);
	mem_print(&m, node, rank);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
