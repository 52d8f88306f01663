/*
 * energy.c — the energy counters of a node while its job runs, sampled
 * beside the job's memory (memory.c starts, samples, stops and prints it,
 * on the node's first rank).
 *
 * Reads, per device, the first of these that works:
 *   - NVIDIA GPUs: the driver's cumulative energy counter,
 *     nvmlDeviceGetTotalEnergyConsumption (millijoules since the driver
 *     loaded; Volta and newer), from libnvidia-ml.so.1 loaded at run time
 *     (dlopen: nothing links against it, and a machine without the driver
 *     only loses these lines);
 *   - else nvidia-smi's power.draw (watts) every SMI_MS ms, integrated
 *     over time (trapezoids): "how=nvidia-smi" says so;
 *   - the CPUs: RAPL's package and DRAM counters under /sys/class/powercap
 *     (intel-rapl:<n> "package-<n>" and its "dram" zone; core and uncore
 *     are parts of the package, psys holds it, the MMIO zones repeat it),
 *     where energy_uj is readable, a wrap-around at max_energy_range_uj
 *     added back (the counter is sampled every ENERGY_S s at least, well
 *     inside one wrap).
 * Writes at the end, to stdout in one write, a time series per device
 *
 *   # energy node=<i> device=<gpuK|package-N|dram-N> how=<nvml|nvidia-smi|rapl> t=<s> j=<J>
 *
 * t seconds since the epoch (the clock of the logs' timestamps), j joules
 * since the device's first sample; a sample at the start, every ENERGY_S
 * seconds, and at the end (ENERGY_MAX a device at most: then every other
 * one is dropped and the period doubles). A node with no counter
 * readable writes one line instead, saying what was tried:
 *
 *   # energy node=<i> reason=no energy counter readable: ...
 *
 * window turns the series into the joules of the timed window.
 */
#include "launch.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define ENERGY_S    1.0  /* seconds between samples, at first */
#define ENERGY_MAX  1024 /* samples a device */
#define SMI_MS      "100"
#define MAX_DEVICES 256
#define PATH_LEN    1024

enum how { NVML, SMI, RAPL };
static const char *const how_names[] = {"nvml", "nvidia-smi", "rapl"};

struct esample {
	double t, j;
};

/* One device's counter and its samples. */
struct eseries {
	char device[32];
	enum how how;
	long index;          /* NVML and nvidia-smi: the GPU's index */
	void *handle;        /* NVML: its device */
	char path[PATH_LEN]; /* RAPL: its energy_uj */
	double range;        /* RAPL: max_energy_range_uj, in J (0: unknown) */
	double first, prev;  /* the raw reading (J) at the first sample, at the one before */
	int started;         /* first is set */
	double wraps;        /* RAPL: J added back for the wrap-arounds */
	double p, tp, cum;   /* nvidia-smi: the last power (W), its time, J so far */
	int have;            /* nvidia-smi: a reading came */
	struct esample *s;
	size_t n, cap;
};

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned *);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_energy_fn)(void *, unsigned long long *);

struct energywatch {
	struct eseries *v;
	size_t n, cap;
	double every, next; /* seconds between samples; when the next is due (monotonic) */
	void *lib;          /* libnvidia-ml.so.1 */
	nvml_energy_fn energy;
	nvml_void_fn shutdown;
	unsigned ngpus; /* the GPUs NVML sees */
	pid_t smi;      /* nvidia-smi's power.draw, or -1 */
	int smi_fd;
	char smibuf[512];
	size_t smilen;
	char nvml_why[160], rapl_why[160];
};

/* Seconds since the epoch: the clock the logs' timestamps are on. */
static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct eseries *add_series(struct energywatch *e, enum how how, const char *device)
{
	e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof *e->v);
	struct eseries *s = &e->v[e->n++];
	memset(s, 0, sizeof *s);
	s->how = how;
	s->index = -1;
	snprintf(s->device, sizeof s->device, "%s", device);
	return s;
}

/* ---- NVML ------------------------------------------------------------- */

/* Load NVML and take every device whose energy counter answers. */
static void nvml_open(struct energywatch *e)
{
	nvml_void_fn init;
	nvml_count_fn count;
	nvml_handle_fn handle;
	unsigned n = 0;
	int rc;

	if (!(e->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL))) {
		snprintf(e->nvml_why, sizeof e->nvml_why, "libnvidia-ml.so.1 not found");
		return;
	}
	*(void **)&init = dlsym(e->lib, "nvmlInit_v2");
	*(void **)&count = dlsym(e->lib, "nvmlDeviceGetCount_v2");
	*(void **)&handle = dlsym(e->lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&e->energy = dlsym(e->lib, "nvmlDeviceGetTotalEnergyConsumption");
	*(void **)&e->shutdown = dlsym(e->lib, "nvmlShutdown");
	if (!init || !count || !handle || !e->energy || !e->shutdown) {
		snprintf(e->nvml_why, sizeof e->nvml_why,
			 "libnvidia-ml.so.1 lacks the energy calls");
		goto close;
	}
	if ((rc = init()) != 0) {
		snprintf(e->nvml_why, sizeof e->nvml_why, "nvmlInit failed (NVML error %d)", rc);
		goto close;
	}
	if ((rc = count(&n)) != 0 || n == 0) {
		snprintf(e->nvml_why, sizeof e->nvml_why, "NVML sees no GPU");
		e->shutdown();
		goto close;
	}
	e->ngpus = n;
	for (unsigned k = 0; k < n && k < MAX_DEVICES; k++) {
		void *h;
		unsigned long long mj;
		char name[32];
		if ((rc = handle(k, &h)) != 0 || (rc = e->energy(h, &mj)) != 0) {
			snprintf(e->nvml_why, sizeof e->nvml_why,
				 "NVML has no energy counter for GPU %u (NVML error %d)", k, rc);
			continue;
		}
		snprintf(name, sizeof name, "gpu%u", k);
		struct eseries *s = add_series(e, NVML, name);
		s->index = k;
		s->handle = h;
	}
	if (e->n > 0)
		return;
	e->shutdown();
close:
	dlclose(e->lib);
	e->lib = NULL;
}

/* ---- nvidia-smi's power.draw ----------------------------------------- */

/* The series of GPU k: NVML's, nvidia-smi's, or a new nvidia-smi one. */
static struct eseries *smi_series(struct energywatch *e, long k)
{
	char name[32];

	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].how != RAPL && e->v[i].index == k)
			return &e->v[i];
	snprintf(name, sizeof name, "gpu%ld", k);
	struct eseries *s = add_series(e, SMI, name);
	s->index = k;
	return s;
}

/* Start nvidia-smi printing "index, power.draw" every SMI_MS ms. */
static void smi_start(struct energywatch *e)
{
	int fds[2];

	if (pipe(fds) != 0)
		return;
	if ((e->smi = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		e->smi = -1;
		return;
	}
	if (e->smi == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("nvidia-smi", "nvidia-smi", "--query-gpu=index,power.draw",
		       "--format=csv,noheader,nounits", "--loop-ms=" SMI_MS, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	e->smi_fd = fds[0];
}

/* One "index, watts" line read at time t: the GPU's energy so far grows
 * by the trapezoid since its last reading. NVML's GPUs are not touched. */
static void smi_line(struct energywatch *e, const char *line, double t)
{
	char *end;
	long k = strtol(line, &end, 10);
	double w;

	if (end == line || *end != ',' || k < 0 || k >= MAX_DEVICES)
		return;
	while (*++end == ' ')
		;
	if (parse_double(end, &w) != 0 || w < 0)
		return; /* "[N/A]", "[Not Supported]" */
	struct eseries *s = smi_series(e, k);
	if (s->how != SMI)
		return;
	if (s->have)
		s->cum += (s->p + w) / 2 * (t - s->tp);
	s->p = w;
	s->tp = t;
	s->have = 1;
}

static void smi_read(struct energywatch *e)
{
	double t = wall_s();

	for (ssize_t r; e->smi_fd >= 0;) {
		size_t room = sizeof e->smibuf - 1 - e->smilen;
		if ((r = read(e->smi_fd, e->smibuf + e->smilen, room)) <= 0) {
			if (r == 0 || errno != EAGAIN) {
				close(e->smi_fd);
				e->smi_fd = -1;
			}
			break;
		}
		e->smilen += (size_t)r;
		e->smibuf[e->smilen] = '\0';
		char *line = e->smibuf, *nl;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			smi_line(e, line, t);
			line = nl + 1;
		}
		e->smilen -= (size_t)(line - e->smibuf);
		memmove(e->smibuf, line, e->smilen);
		if (e->smilen == sizeof e->smibuf - 1)
			e->smilen = 0; /* a line this long is not nvidia-smi's */
	}
}

/* ---- RAPL ------------------------------------------------------------- */

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
static int join(char *buf, const char *dir, const char *file)
{
	int n = snprintf(buf, PATH_LEN, "%s/%s", dir, file);

	return n < 0 || n >= PATH_LEN ? -1 : 0;
}

/* A zone dir's name file, newline cut; "" when unreadable. */
static void zone_name(const char *dir, char *name, size_t size)
{
	char path[PATH_LEN];

	if (join(path, dir, "name") != 0 || slurp(path, name, size) <= 0)
		name[0] = '\0';
	name[strcspn(name, "\n")] = '\0';
}

/* Zone dir as device name, when its energy_uj reads. */
static void rapl_zone(struct energywatch *e, const char *dir, const char *device, int *denied)
{
	char path[PATH_LEN], range[PATH_LEN];

	if (join(path, dir, "energy_uj") != 0 || join(range, dir, "max_energy_range_uj") != 0)
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

static void rapl_open(struct energywatch *e)
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
		if (join(dir, root, de->d_name) != 0)
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
	if (e->n > before)
		return;
	if (!zones)
		snprintf(e->rapl_why, sizeof e->rapl_why, "no RAPL zone under /sys/class/powercap");
	else if (denied)
		snprintf(e->rapl_why, sizeof e->rapl_why,
			 "RAPL's energy_uj readable by root only (Linux 5.10 on)");
	else
		snprintf(e->rapl_why, sizeof e->rapl_why, "RAPL's energy_uj unreadable");
}

/* ---- samples ---------------------------------------------------------- */

/* Device s's joules since its first sample, read now; -1: no reading. */
static double joules_now(struct energywatch *e, struct eseries *s)
{
	double raw;
	unsigned long long mj;

	switch (s->how) {
	case NVML:
		if (e->energy(s->handle, &mj) != 0)
			return -1;
		raw = (double)mj / 1000;
		break;
	case RAPL:
		if ((raw = read_uj(s->path)) < 0)
			return -1;
		if (s->started && raw < s->prev && s->range > 0)
			s->wraps += s->range;
		break;
	default:
		if (!s->have)
			return -1;
		raw = s->cum;
	}
	if (!s->started) {
		s->first = raw;
		s->started = 1;
	}
	s->prev = raw;
	return raw - s->first + s->wraps;
}

/* Every other sample dropped (the first kept): room again, at half the rate. */
static void thin(struct eseries *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i += 2)
		s->s[k++] = s->s[i];
	s->n = k;
}

static void sample_all(struct energywatch *e, double now)
{
	double t = wall_s();
	int thinned = 0;

	for (size_t i = 0; i < e->n; i++) {
		struct eseries *s = &e->v[i];
		double j = joules_now(e, s);
		if (j < 0)
			continue;
		if (s->n == ENERGY_MAX) {
			thin(s);
			thinned = 1;
		}
		s->s = xgrow(s->s, &s->cap, s->n + 1, sizeof *s->s);
		/* nvidia-smi's energy is as of its last reading */
		s->s[s->n++] = (struct esample){s->how == SMI ? s->tp : t, j};
	}
	if (thinned)
		e->every *= 2;
	e->next = now + e->every;
}

/* ---- the watch -------------------------------------------------------- */

struct energywatch *energy_start(void)
{
	struct energywatch *e = xcalloc(1, sizeof *e);

	e->smi = -1;
	e->smi_fd = -1;
	e->every = ENERGY_S;
	nvml_open(e);
	if (!e->lib || e->n < e->ngpus) /* nvidia-smi for the GPUs NVML gives no counter */
		smi_start(e);
	rapl_open(e);
	sample_all(e, now_s());
	return e;
}

void energy_sample(struct energywatch *e)
{
	double now = now_s();

	smi_read(e);
	if (now >= e->next)
		sample_all(e, now);
}

void energy_stop(struct energywatch *e)
{
	int st;

	if (e->smi > 0 && waitpid(e->smi, &st, WNOHANG) == 0) {
		kill(e->smi, SIGKILL);
		waitpid(e->smi, &st, 0);
	}
	e->smi = -1;
	smi_read(e);
	if (e->smi_fd >= 0)
		close(e->smi_fd);
	e->smi_fd = -1;
	sample_all(e, now_s());
	if (e->lib) {
		e->shutdown();
		dlclose(e->lib);
		e->lib = NULL;
	}
}

/* Whether /proc/cpuinfo's flags say this is a virtual machine. */
static int virtual_machine(void)
{
	static char text[1 << 16];

	return slurp("/proc/cpuinfo", text, sizeof text) > 0 && strstr(text, " hypervisor");
}

/* The reason= of a node without a counter (what was tried), encoded. */
static void reason(const struct energywatch *e, char *enc)
{
	char why[512];

	snprintf(why, sizeof why,
		 "no energy counter readable: no NVML (%s), no power.draw from nvidia-smi, no "
		 "RAPL (%s)%s",
		 e->nvml_why, e->rapl_why, virtual_machine() ? "; a virtual machine" : "");
	meta_encode(enc, why, strlen(why));
}

void energy_print(struct energywatch *e, long node)
{
	struct out o = {NULL, 0, 0, node};
	char line[256], enc[META_ENCODED(512)];
	int n;

	for (size_t i = 0; i < e->n; i++) {
		const struct eseries *s = &e->v[i];
		for (size_t k = 0; k < s->n; k++) {
			n = snprintf(line, sizeof line,
				     "# energy node=%ld device=%s how=%s t=%.3f j=%.3f\n", node,
				     s->device, how_names[s->how], s->s[k].t, s->s[k].j);
			out_put(&o, line, (size_t)n);
		}
	}
	if (!o.len) {
		reason(e, enc);
		char *l = xmalloc(strlen(enc) + 64);
		n = sprintf(l, "# energy node=%ld reason=%s\n", node, enc);
		out_put(&o, l, (size_t)n);
		free(l);
	}
	fflush(stdout);
	for (size_t off = 0; off < o.len;) {
		ssize_t r = write(STDOUT_FILENO, o.s + off, o.len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* an error: the job's writes say it */
		off += (size_t)r;
	}
	free(o.s);
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].s);
	free(e->v);
	free(e);
}
