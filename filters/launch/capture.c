/*
 * capture.c — the output of a program that launch runs to learn something
 * (the "# env" items, ldd for launch --libs), bounded in time; and the
 * standard files of such a program, which smi.c's get too.
 *
 * Reads the program's stdout through a pipe; writes nothing. The program
 * gets /dev/null for stdin and stderr, no blocked signals, and a process
 * group of its own, so that at CMD_S seconds it and whatever it started are
 * killed: gathering never holds up a run.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMD_S 3.0 /* each program run here, at most */

void child_stdio(int out)
{
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(out, STDOUT_FILENO);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDERR_FILENO);
	}
}

ssize_t run_capture(char *const argv[], char *buf, size_t size, int partial)
{
	int fds[2], st;
	size_t n = 0;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		close(fds[0]);
		child_stdio(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	struct pollfd pf = {fds[0], POLLIN, 0};
	for (double end = now_s() + CMD_S;;) {
		int left = (int)((end - now_s()) * 1000), ready;
		if (left <= 0)
			break;
		if ((ready = poll(&pf, 1, left)) < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			break;
		char tmp[4096];
		ssize_t r = read(fds[0], tmp, sizeof tmp);
		if (r <= 0 && !(r < 0 && errno == EINTR))
			break;
		for (ssize_t i = 0; i < r && n < size - 1; i++)
			buf[n++] = tmp[i];
	}
	close(fds[0]);
	buf[n] = '\0';
	kill(-pid, SIGKILL); /* its group: a shell's children too; a no-op when all are gone */
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (partial) { /* the whole lines it wrote */
		char *nl = strrchr(buf, '\n');
		n = nl ? (size_t)(nl - buf) + 1 : 0;
		buf[n] = '\0';
		return (ssize_t)n;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? (ssize_t)n : -1;
}
