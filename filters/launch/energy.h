/*
 * energy.h — what launch's energy files share (energy.c the samples and
 * their lines, nvml.c the GPUs' counters, rapl.c the CPUs'): a device's
 * counter and its samples, and the node's watch over them.
 */
#ifndef DLBENCH_LAUNCH_ENERGY_H
#define DLBENCH_LAUNCH_ENERGY_H

#include "launch.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#define PATH_LEN    1024
#define MAX_DEVICES 256

/* How a device's energy is read: NVML's counter, nvidia-smi's power.draw
 * integrated, RAPL's counter ("how=" of the lines: energy.c's names). */
enum how { NVML, SMI, RAPL };

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
	unsigned ngpus;       /* the GPUs NVML sees */
	struct smistream smi; /* nvidia-smi's power.draw */
	double smi_t;         /* when its lines being read were read */
	char nvml_why[160], rapl_why[160];
};

/* Seconds since the epoch: the clock the logs' timestamps are on. */
static inline double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A new device of e, its counter read how, named device. */
static inline struct eseries *add_series(struct energywatch *e, enum how how, const char *device)
{
	e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof *e->v);
	struct eseries *s = &e->v[e->n++];
	memset(s, 0, sizeof *s);
	s->how = how;
	s->index = -1;
	snprintf(s->device, sizeof s->device, "%s", device);
	return s;
}

/* nvml.c: the GPUs. gpu_open: NVML's counter of every GPU that has one
 * (nvml_why says why none), and nvidia-smi's power.draw started for the
 * others; gpu_read: nvidia-smi's lines so far; gpu_close: nvidia-smi
 * stopped, its last lines read. nvml_joules: GPU s's counter now (J); -1:
 * no reading. */
void gpu_open(struct energywatch *e);
void gpu_read(struct energywatch *e);
void gpu_close(struct energywatch *e);
/* NVML let go (after the last sample). */
void gpu_release(struct energywatch *e);
double nvml_joules(struct energywatch *e, const struct eseries *s);

/* rapl.c: the CPUs' package and DRAM zones whose counter reads (rapl_why
 * says why none); rapl_joules: zone s's counter now (J); -1: no reading. */
void rapl_open(struct energywatch *e);
double rapl_joules(const struct eseries *s);

#endif
