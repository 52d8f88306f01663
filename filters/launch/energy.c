/*
 * energy.c — the energy counters of a node while its job runs, sampled
 * beside the job's memory (memory.c starts, samples, stops and prints it,
 * on the node's first rank).
 *
 * Reads, per device, the first of these that works: the GPUs' energy
 * counter (NVML), else their power.draw integrated (nvidia-smi): nvml.c;
 * the CPUs' RAPL package and DRAM counters (a wrap-around added back
 * here: a sample every ENERGY_S s at least is well inside one wrap):
 * rapl.c.
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
#include "energy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENERGY_S   1.0  /* seconds between samples, at first */
#define ENERGY_MAX 1024 /* samples a device */

static const char *const how_names[] = {"nvml", "nvidia-smi", "rapl"};

/* ---- samples ---------------------------------------------------------- */

/* Device s's joules since its first sample, read now; -1: no reading. */
static double joules_now(struct energywatch *e, struct eseries *s)
{
	double raw;

	switch (s->how) {
	case NVML:
		if ((raw = nvml_joules(e, s)) < 0)
			return -1;
		break;
	case RAPL:
		if ((raw = rapl_joules(s)) < 0)
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

	e->smi.pid = -1;
	e->smi.fd = -1;
	e->every = ENERGY_S;
	gpu_open(e);
	rapl_open(e);
	sample_all(e, now_s());
	return e;
}

void energy_sample(struct energywatch *e)
{
	double now = now_s();

	gpu_read(e);
	if (now >= e->next)
		sample_all(e, now);
}

void energy_stop(struct energywatch *e)
{
	gpu_close(e);
	sample_all(e, now_s());
	gpu_release(e);
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

pid_t energy_pid(const struct energywatch *e)
{
	return e->smi.pid;
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
