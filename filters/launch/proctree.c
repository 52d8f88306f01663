/*
 * proctree.c — the processes below launch: what supervise.c stops and
 * memory.c samples.
 *
 * Reads /proc: each thread's children file where the kernel has one (Linux
 * 3.5 with CONFIG_PROC_CHILDREN, as Debian's), else every process's stat;
 * writes nothing.
 */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The state letter of pid ('Z' a zombie), 0 when it is gone. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *rp;
	int fd;
	ssize_t r;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	r = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	/* The command name, in parentheses, may hold blanks and ')'. */
	return (rp = strrchr(buf, ')')) && rp[1] == ' ' ? rp[2] : 0;
}

/* Append to d[] the children of every thread of pid, from
 * /proc/<pid>/task/<tid>/children (Linux 3.5 with CONFIG_PROC_CHILDREN);
 * -1 when the kernel has no such file. */
static int children(pid_t pid, pid_t **d, size_t *cap, size_t *nd)
{
	char path[96], buf[4096];
	DIR *dir;
	struct dirent *de;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if (!(dir = opendir(path)))
		return 0; /* gone since its parent listed it */
	while ((de = readdir(dir))) {
		if (*de->d_name == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%.20s/children", (long)pid, de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT && !found && pid == getpid())
				return closedir(dir), -1;
			continue;
		}
		found = 1;
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[r > 0 ? r : 0] = '\0';
		for (char *p = buf, *end; *p; p = end) {
			long c = strtol(p, &end, 10);
			if (end == p)
				break;
			*d = xgrow(*d, cap, *nd + 1, sizeof **d);
			(*d)[(*nd)++] = (pid_t)c;
		}
	}
	closedir(dir);
	return 0;
}

static size_t descendants_scan(pid_t **out);

/* Every live process below launch (breadth first). With the subreaper set,
 * orphans of the job are re-parented to launch and stay in this tree.
 * Zombies are skipped: their parent reaps them. Where the kernel lists each
 * thread's children, only the tree is read: memory.c samples it every
 * SAMPLE_S beside the job it measures, so a sample should cost what the
 * job runs, not what the machine runs; else every process of /proc (also
 * with DLBENCH_PROC_SCAN=1, for tests/launch.bats). */
size_t descendants(pid_t **out)
{
	pid_t *t = NULL;
	size_t cap = 0, nt = 0, live = 0;

	const char *scan = getenv("DLBENCH_PROC_SCAN"); /* 1: the scan, as without */

	if (!(scan && !strcmp(scan, "1")) && children(getpid(), &t, &cap, &nt) == 0) {
		for (size_t k = 0; k < nt; k++)
			children(t[k], &t, &cap, &nt);
		for (size_t k = 0; k < nt; k++) {
			char st = proc_state(t[k]);
			if (st && st != 'Z')
				t[live++] = t[k];
		}
		return *out = t, live;
	}
	free(t);
	return descendants_scan(out);
}

/* descendants() from every process's parent in /proc. */
static size_t descendants_scan(pid_t **out)
{
	struct proc {
		pid_t pid, ppid;
		char state;
	} *p = NULL;
	size_t n = 0, cap = 0, nd = 0;
	pid_t *d = NULL;
	DIR *dir = opendir("/proc");
	struct dirent *de;

	if (!dir)
		return *out = NULL, 0;
	while ((de = readdir(dir))) {
		char path[64], buf[512], *rp;
		long pid;
		if (parse_long(de->d_name, 1, 1L << 30, &pid) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		/* The command name, in parentheses, may hold blanks and ')'. */
		if (!(rp = strrchr(buf, ')')))
			continue;
		char state;
		int ppid;
		if (sscanf(rp + 1, " %c %d", &state, &ppid) != 2)
			continue;
		p = xgrow(p, &cap, n + 1, sizeof *p);
		p[n++] = (struct proc){(pid_t)pid, (pid_t)ppid, state};
	}
	closedir(dir);
	/* Breadth first from launch: d[] grows while it is walked. */
	pid_t self = getpid();
	d = xmalloc((n + 1) * sizeof *d);
	for (size_t i = 0; i < n; i++)
		if (p[i].ppid == self)
			d[nd++] = p[i].pid;
	for (size_t k = 0; k < nd; k++)
		for (size_t i = 0; i < n; i++)
			if (p[i].ppid == d[k])
				d[nd++] = p[i].pid;
	/* Drop the zombies now that their children are counted. */
	size_t live = 0;
	for (size_t k = 0; k < nd; k++)
		for (size_t i = 0; i < n; i++)
			if (p[i].pid == d[k] && p[i].state != 'Z')
				d[live++] = d[k];
	free(p);
	*out = d;
	return live;
}
