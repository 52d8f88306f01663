/*
 * nvml.c — the energy of a node's NVIDIA GPUs (energy.c samples it).
 *
 * Reads the driver's cumulative energy counter of each GPU,
 * nvmlDeviceGetTotalEnergyConsumption (millijoules since the driver
 * loaded; Volta and newer), from libnvidia-ml.so.1 loaded at run time
 * (dlopen: nothing links against it, and a machine without the driver
 * only loses these lines); for a GPU without one (or without NVML), the
 * watts of nvidia-smi's power.draw every SMI_MS ms, integrated over time
 * (trapezoids between readings). Writes the GPUs' series (energy.h).
 */
#include "energy.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#define SMI_MS "100"

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

/* One "index, watts" line read at time t: the GPU's energy so far grows
 * by the trapezoid since its last reading. NVML's GPUs are not touched. */
static void smi_line(void *ctx, char *line)
{
	struct energywatch *e = ctx;
	double t = e->smi_t;
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

void gpu_read(struct energywatch *e)
{
	e->smi_t = wall_s();
	smi_lines(&e->smi, smi_line, e);
}

double nvml_joules(struct energywatch *e, const struct eseries *s)
{
	unsigned long long mj;

	return e->energy(s->handle, &mj) != 0 ? -1 : (double)mj / 1000;
}

void gpu_open(struct energywatch *e)
{
	static char *const av[] = {"nvidia-smi", "--query-gpu=index,power.draw",
				   "--format=csv,noheader,nounits", "--loop-ms=" SMI_MS, NULL};

	nvml_open(e);
	if (!e->lib || e->n < e->ngpus) /* nvidia-smi for the GPUs NVML gives no counter */
		smi_start(&e->smi, av);
}

void gpu_close(struct energywatch *e)
{
	smi_kill(&e->smi);
	gpu_read(e);
	smi_close(&e->smi);
}

void gpu_release(struct energywatch *e)
{
	if (e->lib) {
		e->shutdown();
		dlclose(e->lib);
		e->lib = NULL;
	}
}
