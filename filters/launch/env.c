/*
 * env.c — the machine a run ran on, written once per node into the log.
 *
 * Reads /proc, /sys, /etc/os-release, uname, and the output of
 * `mpirun --version`, `nvidia-smi --query-gpu=...`, `git rev-parse` (the
 * repositories of the command's files) and the pipeline's version command
 * (-v); writes one line per item to stdout, all in one write:
 *
 *   # env node=<i> <name>=<value>
 *
 * The value is what the source says, percent-encoded ('%', '=', blanks and
 * control bytes as %XX) so that the line is a "# key=value ..." meta line.
 * Nothing is guessed: an item that cannot be read is left out. Every
 * program run here has CMD_S seconds, then is killed; gathering never fails
 * a run. The names are listed in doc/cluster.md.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMD_S 3.0 /* each program gathering runs, at most */

static void put(struct out *o, const char *p, size_t n)
{
	o->s = xgrow(o->s, &o->cap, o->len + n + 1, 1);
	memcpy(o->s + o->len, p, n);
	o->len += n;
}

/* One item; n bytes of val, trimmed of blanks at both ends; none if empty. */
void item(struct out *o, const char *name, const char *val, size_t n)
{
	char head[96];

	while (n && (*val == ' ' || *val == '\t'))
		val++, n--;
	while (n && (unsigned char)val[n - 1] <= ' ')
		n--;
	if (!n)
		return;
	put(o, head, (size_t)snprintf(head, sizeof head, "# env node=%ld %s=", o->node, name));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)val[i];
		if (c <= ' ' || c == 0x7f || c == '%' || c == '=') {
			char hex[4];
			snprintf(hex, sizeof hex, "%%%02X", c);
			put(o, hex, 3);
		} else {
			put(o, (const char *)&c, 1);
		}
	}
	put(o, "\n", 1);
}

void items(struct out *o, const char *name, const char *val)
{
	item(o, name, val, strlen(val));
}

/* The whole file (at most size - 1 bytes), or -1. */
static ssize_t slurp(const char *path, char *buf, size_t size)
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

/* A file of one line (sysfs) as the item name. */
static void file_item(struct out *o, const char *name, const char *path)
{
	char buf[256];
	ssize_t n = slurp(path, buf, sizeof buf);

	if (n > 0)
		item(o, name, buf, strcspn(buf, "\n"));
}

/* The stdout of argv (stderr and stdin: /dev/null), at most size - 1 bytes,
 * when it exits 0 within CMD_S seconds; else -1 (it is killed at CMD_S). */
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
		sigset_t none;
		int null = open("/dev/null", O_RDWR);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
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

/* The value after "name<blanks>:" in /proc/cpuinfo text, first occurrence. */
static const char *cpuinfo_field(const char *text, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, name, nl) && (p[nl] == '\t' || p[nl] == ' ' || p[nl] == ':')) {
			const char *c = strchr(p, ':'), *e = strchr(p, '\n');
			if (!c || (e && c > e))
				return NULL;
			*len = e ? (size_t)(e - c - 1) : strlen(c + 1);
			return c + 1;
		}
	return NULL;
}

static void cpu(struct out *o)
{
	static char text[1 << 20];
	const char *v;
	size_t n;
	long cores = 0, siblings = 0, sockets = 0, id, seen[64];
	char num[32];

	if (slurp("/proc/cpuinfo", text, sizeof text) <= 0)
		return;
	if ((v = cpuinfo_field(text, "model name", &n)))
		item(o, "cpu_model", v, n);
	if ((v = cpuinfo_field(text, "cpu cores", &n)))
		cores = strtol(v, NULL, 10);
	if ((v = cpuinfo_field(text, "siblings", &n)))
		siblings = strtol(v, NULL, 10);
	/* Sockets: the distinct "physical id" values. */
	for (const char *p = text; (p = strstr(p, "\nphysical id")); p++) {
		const char *c = strchr(p, ':');
		if (!c || sockets == 64)
			break;
		id = strtol(c + 1, NULL, 10);
		long k = 0;
		while (k < sockets && seen[k] != id)
			k++;
		if (k == sockets)
			seen[sockets++] = id;
	}
	snprintf(num, sizeof num, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	items(o, "cpus", num);
	if (sockets > 0) {
		snprintf(num, sizeof num, "%ld", sockets);
		items(o, "sockets", num);
	}
	if (cores > 0 && sockets > 0) {
		snprintf(num, sizeof num, "%ld", cores * sockets);
		items(o, "cores", num);
		if (siblings > 0 && siblings % cores == 0) {
			snprintf(num, sizeof num, "%ld", siblings / cores);
			items(o, "threads_per_core", num);
		}
	}
}

static void system_items(struct out *o)
{
	char buf[4096], num[32];
	struct utsname u;
	const char *v;
	size_t n;

	if (gethostname(buf, 256) == 0) {
		buf[255] = '\0';
		items(o, "hostname", buf);
	}
	cpu(o);
	if (slurp("/proc/meminfo", buf, sizeof buf) > 0 &&
	    (v = cpuinfo_field(buf, "MemTotal", &n))) {
		snprintf(num, sizeof num, "%ld", strtol(v, NULL, 10) / 1024);
		items(o, "mem_total_mib", num);
	}
	if (uname(&u) == 0) {
		items(o, "kernel", u.release);
		items(o, "arch", u.machine);
	}
	if (slurp("/etc/os-release", buf, sizeof buf) > 0)
		for (char *p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : p)
			if (!strncmp(p, "PRETTY_NAME=", 12)) {
				p += 12;
				n = strcspn(p, "\n");
				if (n >= 2 && *p == '"' && p[n - 1] == '"')
					item(o, "os", p + 1, n - 2);
				else
					item(o, "os", p, n);
				break;
			}
	file_item(o, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	file_item(o, "boost", "/sys/devices/system/cpu/cpufreq/boost");
	file_item(o, "intel_no_turbo", "/sys/devices/system/cpu/intel_pstate/no_turbo");
	if (slurp("/proc/loadavg", buf, sizeof buf) > 0) {
		static const char *const names[] = {"load1", "load5", "load15"};
		char *p = buf;
		for (int i = 0; i < 3; i++) {
			n = strcspn(p, " \n");
			item(o, names[i], p, n);
			p += n + (p[n] == ' ');
		}
	}
}

static void openmpi(struct out *o)
{
	char buf[1024], *p, *const av[] = {"mpirun", "--version", NULL};

	if (run_capture(av, buf, sizeof buf, 0) > 0 && (p = strstr(buf, "(Open MPI) ")))
		item(o, "openmpi", p + 11, strcspn(p + 11, "\n"));
}

/* nvidia-smi's fields, one line per GPU; "[N/A]", "[Not Supported]" and
 * the like are left out. */
static void gpus(struct out *o)
{
	static const char *const names[] = {"name",
					    "bus_id",
					    "driver",
					    "memory_total_mib",
					    "clocks_max_sm_mhz",
					    "clocks_max_mem_mhz",
					    "clocks_app_sm_mhz",
					    "clocks_app_mem_mhz",
					    "power_limit_w",
					    "throttle_reasons"};
	char *const av[] = {"nvidia-smi",
			    "--query-gpu=name,pci.bus_id,driver_version,memory.total,"
			    "clocks.max.sm,clocks.max.mem,clocks.applications.graphics,"
			    "clocks.applications.memory,power.limit,clocks_throttle_reasons.active",
			    "--format=csv,noheader,nounits", NULL};
	static char buf[OUT_MAX];
	char name[64], num[32];
	long k = 0;

	if (run_capture(av, buf, sizeof buf, 0) <= 0)
		return;
	for (char *line = buf, *next; *line; line = next, k++) {
		size_t len = strcspn(line, "\n");
		next = line + len + (line[len] == '\n');
		line[len] = '\0';
		char *f = line;
		for (size_t i = 0; i < sizeof names / sizeof *names && f; i++) {
			char *comma = strchr(f, ',');
			size_t n = comma ? (size_t)(comma - f) : strlen(f);
			while (n && *f == ' ')
				f++, n--;
			if (n && *f != '[') {
				if (i == 2 && k == 0)
					item(o, "cuda_driver", f, n);
				else if (i != 2) {
					snprintf(name, sizeof name, "gpu%ld.%s", k, names[i]);
					item(o, name, f, n);
				}
			}
			f = comma ? comma + 1 : NULL;
		}
	}
	snprintf(num, sizeof num, "%ld", k);
	items(o, "gpus", num);
}

/* Group g of the items into o. */
static void group(int g, struct out *o, const char *vcmd, char **cmd, int ncmd)
{
	switch (g) {
	case 0:
		system_items(o);
		break;
	case 1:
		openmpi(o);
		break;
	case 2:
		gpus(o);
		break;
	case 3:
		env_git(o, cmd, ncmd);
		break;
	case 4:
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

/* The groups run at once, each in a child of its own (every program they
 * run is bounded by CMD_S), their lines collected in group order. */
void env_print(long node, const char *vcmd, char **cmd, int ncmd)
{
	enum { NGROUPS = 6 };
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
				put(&o, buf, (size_t)r);
		if (fds[g] >= 0)
			close(fds[g]);
		while (pids[g] > 0 && waitpid(pids[g], NULL, 0) < 0 && errno == EINTR)
			;
	}
	write_all(STDOUT_FILENO, o.s ? o.s : "", o.len); /* an error: the job's writes say it */
	free(o.s);
}
