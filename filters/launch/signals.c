/*
 * signals.c — how launch's processes wait: the supervisor and the outer
 * launch (supervise.c) and the wrapper of a rank (rank.c) each wait for a
 * child while they take SIGINT, SIGTERM and SIGHUP to pass them on.
 *
 * Reads the signals this process gets; writes its signal mask and its
 * SIGCHLD handler. The signals are blocked and taken one at a time with
 * sigtimedwait, at a point of the caller's loop, never in a handler.
 */
#include "launch.h"

#include <signal.h>
#include <time.h>

/* SIGCHLD is blocked and taken by sigtimedwait. Its default action is to
 * ignore it, and POSIX lets a blocked ignored signal be discarded: with a
 * handler it stays pending. (SIG_IGN would also reap the children unseen.) */
static void on_sigchld(int sig)
{
	(void)sig;
}

void block_job_signals(sigset_t *set, sigset_t *old)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	signal(SIGCHLD, on_sigchld);
	sigprocmask(SIG_BLOCK, set, old);
}

int await_signal(const sigset_t *set, double s)
{
	if (s < 0.001)
		s = 0.001;
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	return sigtimedwait(set, NULL, &ts);
}
