/*
 * files.c — the files the "# env" items read: a file read whole, and where
 * a /sys file is.
 *
 * DLBENCH_SYSFS_ROOT, when set and not empty, stands for /sys: every sysfs
 * file launch reads (the CPU frequency settings, /sys/class/infiniband) is
 * read under it instead. It is a test hook, the only one of its kind: the
 * tests give launch a fake sysfs tree (tests/fixtures/launch/sysfs), as a
 * fake nvidia-smi on PATH stands for the driver (doc/cluster.md).
 */
#include "launch.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, r;

	if (fd < 0)
		return -1;
	while ((size_t)n < size - 1 && (r = read(fd, buf + n, size - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	buf[n] = '\0';
	return n;
}

const char *sys_path(char *buf, size_t size, const char *path)
{
	const char *root = getenv("DLBENCH_SYSFS_ROOT");

	if (root && *root && strncmp(path, "/sys/", 5) == 0)
		snprintf(buf, size, "%s%s", root, path + 4);
	else
		snprintf(buf, size, "%s", path);
	return buf;
}
