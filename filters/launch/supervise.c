/*
 * supervise.c — running launch's job to its end and leaving nothing behind.
 *
 * Reads the job's argv, key and timeout, the processes below launch
 * (proctree.c) and the signals launch gets (signals.c); writes the job's processes (it
 * starts them and stops them) and launch's diagnostics on stderr.
 *
 * launch runs as two processes, both named launch. The outer one, the pid
 * its caller knows, passes SIGINT, SIGTERM and SIGHUP on to the inner one,
 * the supervisor, and exits with its status. The supervisor starts the job
 * in its own process group. At the timeout (-t), or when it gets SIGINT,
 * SIGTERM or SIGHUP, the group gets SIGTERM (mpirun then stops the ranks on
 * every host), and GRACE_S seconds later every process still descending
 * from the supervisor gets SIGKILL. It is a child subreaper: nothing the job
 * started outlives it, and it exits only when all are reaped.
 *
 * launch killed outright (SIGKILL): the supervisor gets SIGTERM (its
 * parent-death signal) and stops the job as above, the same whether the job
 * is the command, mpirun or srun. Why an ancestor of the job and not another
 * way (Linux, no privileges, in containers too):
 *   - a subreaper never loses a process: an orphan, even a daemon that forked
 *     twice into a new session, is re-parented to its nearest living
 *     subreaper ancestor, so the supervisor waits until it has no child;
 *   - a watchdog beside the job that records the pids it sees loses a
 *     process forked and orphaned between two walks (re-parented to init);
 *   - the parent-death signal given through an exec wrapper reaches only
 *     what execs the wrapper, not a shell's forks or mpirun's daemons, and
 *     follows the parent, not launch;
 *   - a cgroup of the job's own needs a delegated, writable cgroup tree,
 *     which an unprivileged user and most containers do not have.
 * The supervisor is launch itself (a fork, no exec): the code that stops a
 * job at its timeout stops it when launch dies. If the supervisor is killed
 * instead, the job's command gets SIGTERM (its parent-death signal) and the
 * outer launch, a subreaper too, stops whatever else is left. Only both
 * killed, each by its pid (pkill -KILL launch), leaves the job running:
 * that takes a cgroup, as Slurm's own for srun.
 *
 * Exit status: the command's (mpirun's: non-zero when any rank failed);
 * 128+n when it died of signal n; 124 at the timeout; 128+n when launch was
 * interrupted by signal n, or the supervisor killed by signal n; 127/126
 * when the command cannot be run.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define GRACE_S 5 /* SIGTERM → SIGKILL */

/* Send sig to every live descendant (0: only count them). */
static size_t kill_tree(int sig)
{
	pid_t *d;
	size_t n = descendants(&d);

	for (size_t i = 0; i < n; i++)
		kill(d[i], sig);
	free(d);
	return n;
}

static const char *signame(int sig)
{
	static char buf[64];

	snprintf(buf, sizeof buf, "signal %d (%s)", sig, strsignal(sig));
	return buf;
}

/* Start argv in its own process group; report an exec failure through a
 * close-on-exec pipe so that the parent prints the one message. */
static pid_t start(char **argv, const sigset_t *oldmask)
{
	int fds[2], err;
	pid_t pid, parent = getpid();

	if (pipe(fds) != 0)
		die("pipe:");
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) < 0)
		die("fork:");
	if (pid == 0) {
		setpgid(0, 0);
#ifdef __linux__
		/* The supervisor killed outright (SIGKILL): the job gets SIGTERM,
		 * mpirun stops every rank, the outer launch the rest. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
#endif
		signal(SIGPIPE, SIG_DFL);
		if (isatty(STDIN_FILENO)) {
			/* A background group reading the terminal would stop. */
			int fd = open("/dev/null", O_RDONLY);
			if (fd >= 0 && fd != STDIN_FILENO) {
				dup2(fd, STDIN_FILENO);
				close(fd);
			}
		}
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		execvp(argv[0], argv);
		err = errno;
		if (write(fds[1], &err, sizeof err) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	ssize_t r;
	while ((r = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (r == (ssize_t)sizeof err) {
		waitpid(pid, NULL, 0);
		errno = err;
		warnf("%s:", argv[0]);
		exit(err == ENOENT ? 127 : 126);
	}
	return pid;
}

/* Reap every child that ended; 1 when child was one (its status in *status,
 * the kernel's account of it in *ru when ru is not NULL). */
static int reap(pid_t child, int *status, struct rusage *ru)
{
	struct rusage r;
	pid_t p;
	int st, done = 0;

	while ((p = wait4(-1, &st, WNOHANG, &r)) > 0)
		if (p == child) {
			done = 1;
			*status = st;
			if (ru)
				*ru = r;
		}
	return done;
}

/* 1 while this process has a child, live or not yet reaped. A subreaper's
 * children include every orphan of the job, so none left means nothing is
 * left below it: the kernel's word, where a walk of /proc can miss a
 * process being re-parented while it reads (a child's children file is
 * read by position while its list changes). */
static int any_child(void)
{
	siginfo_t si;

	si.si_pid = 0;
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* The command is over: whatever it left behind goes too. term_at < 0: no
 * SIGTERM was sent, so each process found gets one, once, and SIGKILL from
 * GRACE_S seconds after the first round on; else the job's group had its
 * SIGTERM at term_at and what is left gets SIGKILL from term_at + GRACE_S on.
 * Returns when no process is left below this one: no child (the subreaper
 * on Linux) and none found by the walk (elsewhere, where orphans escape to
 * init, the walk is all there is). A process the walk misses gets its
 * SIGTERM in the next round, 50 ms later. */
static void sweep(const sigset_t *set, double term_at)
{
	pid_t *termed = NULL;
	size_t nt = 0, cap = 0;
	int st, send_term = term_at < 0;

	for (;;) {
		reap(0, &st, NULL);
		pid_t *d;
		size_t n = descendants(&d);
		if (!n && !any_child()) {
			free(d);
			break;
		}
		double t = now_s();
		if (term_at < 0)
			term_at = t;
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			while (k < nt && termed[k] != d[i])
				k++;
			if (t - term_at >= GRACE_S) {
				kill(d[i], SIGKILL);
			} else if (send_term && k == nt) {
				kill(d[i], SIGTERM);
				termed = xgrow(termed, &cap, nt + 1, sizeof *termed);
				termed[nt++] = d[i];
			}
		}
		free(d);
		await_signal(set, 0.05);
	}
	free(termed);
}

/* The supervisor: wait for the job; at the timeout, a signal or the outer
 * launch's death stop it; leave nothing. */
static int wait_job(const struct job *job, pid_t child, pid_t outer, const sigset_t *set)
{
	const char *key = job->keystr;
	long timeout = job->timeout;
	double t0 = now_s(), term_at = -1;
	int status = 0, why = 0, killed = 0; /* why: 0, -1 timeout, signal */
	struct memwatch m;
	struct rusage ru;

	/* Run directly, the job is measured here; else each rank's wrapper
	 * (launch --rank, rank.c) does it on its host. */
	if (job->how == DIRECT)
		mem_start(&m, 1);
	while (!reap(child, &status, &ru)) {
		double t = now_s(), wait_s = 1;
		if (timeout > 0 && !why && t - t0 >= timeout) {
			why = -1;
			warnf("%s: timed out after %ld s", key, timeout);
			kill(-child, SIGTERM);
			term_at = t;
		}
		if (term_at >= 0 && !killed && t - term_at >= GRACE_S) {
			kill(-child, SIGKILL);
			kill_tree(SIGKILL);
			killed = 1;
		}
		if (timeout > 0 && !why)
			wait_s = t0 + timeout - t;
		else if (term_at >= 0 && !killed)
			wait_s = term_at + GRACE_S - t;
		if (job->how == DIRECT && wait_s > SAMPLE_S)
			wait_s = SAMPLE_S;
		int sig = await_signal(set, wait_s);
		if (job->how == DIRECT)
			mem_sample(&m);
		if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && !why) {
			why = sig;
			if (getppid() != outer)
				warnf("%s: launch was killed, stopping the job", key);
			else
				warnf("%s: interrupted by %s", key, signame(sig));
			kill(-child, sig);
			term_at = now_s();
		}
	}
	if (job->how == DIRECT) {
		mem_reaped(&m, &ru);
		mem_stop(&m);
		mem_print(&m, 0, 0);
	}
	sweep(set, term_at);
	if (why == -1)
		return 124;
	if (why > 0)
		return 128 + why;
	if (WIFSIGNALED(status)) {
		warnf("%s: killed by %s", key, signame(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status) != 0)
		warnf("%s: failed with exit status %d", key, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

/* The outer launch: pass the signals on to the supervisor and take its exit
 * status; if it was killed, stop what it left (re-parented to this one). */
static int relay(const struct job *job, pid_t inner, const sigset_t *set)
{
	int status = 0;

	while (!reap(inner, &status, NULL)) {
		int sig = await_signal(set, 1);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			kill(inner, sig);
	}
	if (WIFEXITED(status)) {
		sweep(set, -1);
		return WEXITSTATUS(status);
	}
	warnf("%s: supervisor killed by %s", job->keystr, signame(WTERMSIG(status)));
	sweep(set, -1);
	return 128 + WTERMSIG(status);
}

int supervise(const struct job *job)
{
	sigset_t set, old;
	pid_t outer = getpid(), inner;

	block_job_signals(&set, &old);
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	if ((inner = fork()) < 0)
		die("fork:");
	/* The supervisor in a process group of its own: what is sent to the
	 * caller's group (kill -KILL -PGID; a terminal's SIGQUIT) reaches only
	 * the outer launch, and the supervisor outlives it. A terminal's SIGINT
	 * comes through relay. */
	setpgid(inner, inner);
	if (inner > 0)
		return relay(job, inner, &set);
#ifdef __linux__
	/* Neither is inherited through fork. SIGTERM stays blocked, pending
	 * until wait_job takes it, if launch dies while the job starts. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != outer)
		return 128 + SIGTERM;
#endif
	return wait_job(job, start(job->argv, &old), outer, &set);
}
