/*
 * env.c — the "# env" lines of a node, written once per node into the log.
 *
 * Reads the items of the machine (machine.c: the system, Open MPI, the
 * GPUs; interconnect.c: the links between the devices) and of the
 * software (software.c: git, the pipeline's version command -v, the
 * linked libraries), each group gathered in a child process of its own,
 * all at once; writes their lines (items.c) to stdout in group order, all
 * in one write:
 *
 *   # env node=<i> <name>=<value>
 *
 * Every program a group runs is killed after CMD_S seconds (capture.c), so
 * gathering never holds up or fails a run. The names are listed in
 * doc/cluster.md.
 */
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Group g of the items into o. */
static void group(int g, struct out *o, const char *vcmd, char **cmd, int ncmd)
{
	switch (g) {
	case 0:
		env_system(o);
		break;
	case 1:
		env_openmpi(o);
		break;
	case 2:
		env_gpus(o);
		break;
	case 3:
		env_topology(o);
		env_infiniband(o);
		break;
	case 4:
		env_git(o, cmd, ncmd);
		break;
	case 5:
		env_libs(o, cmd, ncmd);
		break;
	default:
		env_versions(o, vcmd);
	}
}

/* n bytes of p to fd; 0 or -1. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The groups run at once, each in a child of its own, their lines
 * collected in group order. */
void env_print(long node, const char *vcmd, char **cmd, int ncmd)
{
	enum { NGROUPS = 7 };
	struct out o = {NULL, 0, 0, node};
	int fds[NGROUPS];
	pid_t pids[NGROUPS];

	fflush(stdout);
	for (int g = 0; g < NGROUPS; g++) {
		int p[2];
		pids[g] = -1;
		fds[g] = -1;
		if (pipe(p) != 0 || (pids[g] = fork()) < 0) {
			group(g, &o, vcmd, cmd, ncmd); /* no child: here, in turn */
			continue;
		}
		if (pids[g] == 0) {
			struct out mine = {NULL, 0, 0, node};
			close(p[0]);
			group(g, &mine, vcmd, cmd, ncmd);
			_exit(write_all(p[1], mine.s ? mine.s : "", mine.len) ? 1 : 0);
		}
		close(p[1]);
		fds[g] = p[0];
	}
	for (int g = 0; g < NGROUPS; g++) {
		char buf[4096];
		ssize_t r;
		while (fds[g] >= 0 &&
		       ((r = read(fds[g], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR)))
			if (r > 0)
				out_put(&o, buf, (size_t)r);
		if (fds[g] >= 0)
			close(fds[g]);
		while (pids[g] > 0 && waitpid(pids[g], NULL, 0) < 0 && errno == EINTR)
			;
	}
	write_all(STDOUT_FILENO, o.s ? o.s : "", o.len); /* an error: the job's writes say it */
	free(o.s);
}
