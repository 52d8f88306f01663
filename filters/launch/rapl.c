/*
 * rapl.c — the energy of a node's CPUs (energy.c samples it): RAPL's
 * counters under /sys/class/powercap (files.c's sys_path says where).
 *
 * Reads each intel-rapl:<n> zone named package-* and its dram zone
 * (core and uncore are parts of the package, psys holds it, the MMIO
 * zones repeat it: none is taken), their energy_uj (microjoules, where
 * readable: root only since the PLATYPUS fix) and max_energy_range_uj
 * (where the counter wraps; energy.c adds the wraps back). Writes the
 * zones' series (energy.h), sorted by name.
 */
#include "energy.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

/* A sysfs number (µJ) in J; -1 when unreadable (errno says why). */
static double read_uj(const char *path)
{
	char buf[64];
	long long v;
	char *end;

	if (slurp(path, buf, sizeof buf) <= 0)
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (end == buf || v < 0 || errno) {
		errno = EINVAL;
		return -1;
	}
	return (double)v / 1e6;
}

/* dir/file into buf (PATH_LEN); 0, or -1 when it does not fit. */
static int path_in(char *buf, const char *dir, const char *file)
{
	int n = snprintf(buf, PATH_LEN, "%s/%s", dir, file);

	return n < 0 || n >= PATH_LEN ? -1 : 0;
}

/* A zone dir's name file, newline cut; "" when unreadable. */
static void zone_name(const char *dir, char *name, size_t size)
{
	char path[PATH_LEN];

	if (path_in(path, dir, "name") != 0 || slurp(path, name, size) <= 0)
		name[0] = '\0';
	name[strcspn(name, "\n")] = '\0';
}

/* Zone dir as device name, when its energy_uj reads. */
static void rapl_zone(struct energywatch *e, const char *dir, const char *device, int *denied)
{
	char path[PATH_LEN], range[PATH_LEN];

	if (path_in(path, dir, "energy_uj") != 0 || path_in(range, dir, "max_energy_range_uj") != 0)
		return;
	if (read_uj(path) < 0) {
		*denied |= errno == EACCES || errno == EPERM;
		return;
	}
	struct eseries *s = add_series(e, RAPL, device);
	memcpy(s->path, path, sizeof path);
	s->range = read_uj(range);
	if (s->range < 0)
		s->range = 0;
}

/* By device name: the lines' order, whatever readdir's. */
static int cmp_device(const void *a, const void *b)
{
	return strcmp(((const struct eseries *)a)->device, ((const struct eseries *)b)->device);
}

void rapl_open(struct energywatch *e)
{
	char root[PATH_LEN], dir[PATH_LEN], name[64], device[32];
	DIR *d;
	struct dirent *de;
	int zones = 0, denied = 0;
	size_t before = e->n;

	sys_path(root, sizeof root, "/sys/class/powercap");
	if (!(d = opendir(root))) {
		snprintf(e->rapl_why, sizeof e->rapl_why, "/sys/class/powercap %s",
			 errno == ENOENT ? "absent" : strerror(errno));
		return;
	}
	/* intel-rapl:<n> (a package) and intel-rapl:<n>:<m> (its zones) */
	while ((de = readdir(d))) {
		unsigned n, m;
		char tail;
		int parts = sscanf(de->d_name, "intel-rapl:%u:%u%c", &n, &m, &tail);
		if (parts != 1 && parts != 2)
			continue;
		if (path_in(dir, root, de->d_name) != 0)
			continue;
		zone_name(dir, name, sizeof name);
		if (parts == 1 && !strncmp(name, "package", 7)) {
			snprintf(device, sizeof device, "package-%u", n);
		} else if (parts == 2 && !strcmp(name, "dram")) {
			snprintf(device, sizeof device, "dram-%u", n);
		} else {
			continue;
		}
		zones++;
		rapl_zone(e, dir, device, &denied);
	}
	closedir(d);
	if (e->n > before) {
		qsort(e->v + before, e->n - before, sizeof *e->v, cmp_device);
		return;
	}
	if (!zones)
		snprintf(e->rapl_why, sizeof e->rapl_why, "no RAPL zone under /sys/class/powercap");
	else if (denied)
		snprintf(e->rapl_why, sizeof e->rapl_why,
			 "RAPL's energy_uj readable by root only (Linux 5.10 on)");
	else
		snprintf(e->rapl_why, sizeof e->rapl_why, "RAPL's energy_uj unreadable");
}

double rapl_joules(const struct eseries *s)
{
	return read_uj(s->path);
}
