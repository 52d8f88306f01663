/*
 * machine.c — the machine a run ran on, as "# env" items: the system, Open
 * MPI and the GPUs.
 *
 * Reads /proc (cpuinfo, meminfo, loadavg), /sys (the CPU frequency
 * governor, boost; files.c says where), /etc/os-release, uname, and the
 * output of `mpirun --version` and `nvidia-smi --query-gpu=...`; writes
 * items (items.c).
 * Nothing is guessed: an item that cannot be read is left out. The names
 * are listed in doc/cluster.md.
 */
#include "launch.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* A file of one line (sysfs, under its test root: files.c) as the item name. */
static void file_item(struct out *o, const char *name, const char *path)
{
	char buf[256], where[512];
	ssize_t n = slurp(sys_path(where, sizeof where, path), buf, sizeof buf);

	if (n > 0)
		item(o, name, buf, strcspn(buf, "\n"));
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

/* The host, its CPUs and memory, kernel, OS, frequency settings and load. */
void env_system(struct out *o)
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

/* Open MPI's version, as the mpirun on PATH says it. */
void env_openmpi(struct out *o)
{
	char buf[1024], *p, *const av[] = {"mpirun", "--version", NULL};

	if (run_capture(av, buf, sizeof buf, 0) > 0 && (p = strstr(buf, "(Open MPI) ")))
		item(o, "openmpi", p + 11, strcspn(p + 11, "\n"));
}

/* nvidia-smi's fields, one line per GPU; "[N/A]", "[Not Supported]" and
 * the like are left out. */
void env_gpus(struct out *o)
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
