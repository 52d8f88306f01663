/*
 * smi.c — an nvidia-smi that runs beside the job and prints a query every
 * so many milliseconds (memory.c's memory.used, nvml.c's power.draw), its
 * lines read as they come.
 *
 * Starts the program of argv (nvidia-smi, found on PATH: the tests put a
 * fake there) with stdout into a pipe read without blocking, stdin and
 * stderr /dev/null, signals unblocked, killed when launch dies; hands
 * each whole line to the caller; stops it. Nothing when it cannot run:
 * its pipe ends and no line comes.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

void smi_start(struct smistream *s, char *const argv[])
{
	int fds[2];

	memset(s, 0, sizeof *s);
	s->pid = -1;
	s->fd = -1;
	if (pipe(fds) != 0)
		return;
	if ((s->pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		s->pid = -1;
		return;
	}
	if (s->pid == 0) {
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		close(fds[0]);
		child_stdio(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	s->fd = fds[0];
}

void smi_lines(struct smistream *s, void (*line)(void *ctx, char *text), void *ctx)
{
	for (ssize_t r; s->fd >= 0;) {
		size_t room = sizeof s->buf - 1 - s->len;
		if ((r = read(s->fd, s->buf + s->len, room)) <= 0) {
			if (r == 0 || errno != EAGAIN) {
				close(s->fd);
				s->fd = -1;
			}
			break;
		}
		s->len += (size_t)r;
		s->buf[s->len] = '\0';
		char *p = s->buf, *nl;
		while ((nl = strchr(p, '\n'))) {
			*nl = '\0';
			line(ctx, p);
			p = nl + 1;
		}
		s->len -= (size_t)(p - s->buf);
		memmove(s->buf, p, s->len);
		if (s->len == sizeof s->buf - 1)
			s->len = 0; /* a line this long is not nvidia-smi's */
	}
}

/* If some reap() of the caller took it already, waitpid says so and
 * nothing is killed. */
void smi_kill(struct smistream *s)
{
	int st;

	if (s->pid > 0 && waitpid(s->pid, &st, WNOHANG) == 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &st, 0);
	}
	s->pid = -1;
}

void smi_close(struct smistream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
