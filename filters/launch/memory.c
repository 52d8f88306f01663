/*
 * memory.c — the peak memory of a job, the same way for every framework:
 * sampled by launch itself when it runs the command directly (supervise.c),
 * else by the wrapper of each rank (rank.c).
 *
 * Reads /proc (the processes below this one: VmRSS and VmHWM of each) every
 * SAMPLE_S seconds and, where nvidia-smi exists, its memory.used per device
 * every 0.5 s (one nvidia-smi -lms running beside the job); on the node's
 * first rank the node's energy counters are sampled with it (energy.c);
 * writes at the end, to stdout, that node's "# energy" lines, then:
 *
 *   # mem node=<i> rank=<r> host=<h> rss_peak_mib=<n>
 *   # mem node=<i> gpu=<k> gpu_peak_mib=<n>
 *
 * rss_peak_mib: the largest of three measured lower bounds of the tree's
 * true peak, MiB rounded up: the sampled sums of VmRSS over the process
 * tree; each process's own peak (VmHWM) as last sampled; and, once the
 * command launch (or the rank's wrapper) started is reaped, the kernel's
 * peak of it (wait4's ru_maxrss, KiB on Linux: the larger of that
 * process's own peak and that of every descendant it reaped). The last
 * makes the figure exact where the tree's peak is one process's peak: a
 * sample can come before that peak, the kernel's count cannot. A spike shorter than a sample in a tree of several processes at
 * once can still be missed. A job that ended before the first sample saw
 * it has no rss line: a run that short has no figure worth a column (the
 * table shows one only where a log has memory lines).
 */
#include "launch.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GPUS 64

/* One process's VmRSS and VmHWM, in KiB; 0 when unreadable. */
static void proc_rss(pid_t pid, long *rss, long *hwm)
{
	char path[64], buf[4096], *p;
	int fd;
	ssize_t n;

	*rss = *hwm = 0;
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nVmRSS:")))
		*rss = strtol(p + 7, NULL, 10);
	if ((p = strstr(buf, "\nVmHWM:")))
		*hwm = strtol(p + 7, NULL, 10);
}

/* One of nvidia-smi's lines "index, memory.used": the device's peak. */
static void smi_used(void *ctx, char *line)
{
	struct memwatch *m = ctx;
	char *end, *v;
	long k = strtol(line, &end, 10), used;

	for (v = end + (*end != '\0'); *v == ' '; v++)
		;
	if (end != line && *end == ',' && k >= 0 && k < MAX_GPUS &&
	    parse_long(v, 0, 1L << 40, &used) == 0) {
		if (k >= m->ngpu)
			m->ngpu = k + 1;
		if (used > m->gpu_peak[k])
			m->gpu_peak[k] = used;
	}
}

void mem_sample(struct memwatch *m)
{
	pid_t *d;
	size_t n = descendants(&d);
	long sum = 0;
	pid_t esmi = m->energy ? energy_pid(m->energy) : -1;

	for (size_t i = 0; i < n; i++) {
		long rss, hwm;
		if (d[i] == m->smi.pid || d[i] == esmi)
			continue;
		proc_rss(d[i], &rss, &hwm);
		sum += rss;
		if (hwm > m->rss_peak_kib)
			m->rss_peak_kib = hwm;
	}
	if (sum > m->rss_peak_kib)
		m->rss_peak_kib = sum;
	m->seen += sum > 0;
	free(d);
	if (m->energy)
		energy_sample(m->energy);
	smi_lines(&m->smi, smi_used, m);
}

void mem_reaped(struct memwatch *m, const struct rusage *ru)
{
	if (ru->ru_maxrss > m->rss_peak_kib)
		m->rss_peak_kib = ru->ru_maxrss;
}

void mem_start(struct memwatch *m, int gpus)
{
	static char *const av[] = {"nvidia-smi",
				   "--query-gpu=index,memory.used",
				   "--format=csv,noheader,nounits",
				   "-lms",
				   "500",
				   NULL};

	memset(m, 0, sizeof *m);
	m->smi.pid = -1;
	m->smi.fd = -1;
	m->gpu_peak = xcalloc(MAX_GPUS, sizeof *m->gpu_peak);
	if (!gpus)
		return;
	m->energy = energy_start();
	smi_start(&m->smi, av);
}

/* Stop nvidia-smi and take its last lines. */
void mem_stop(struct memwatch *m)
{
	smi_kill(&m->smi);
	mem_sample(m);
	smi_close(&m->smi);
	if (m->energy)
		energy_stop(m->energy);
}

void mem_print(struct memwatch *m, long node, long rank)
{
	char host[256], enc[META_ENCODED(sizeof host)];

	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = '\0';
	meta_encode(enc, host, strlen(host));
	if (m->energy)
		energy_print(m->energy, node);
	m->energy = NULL;
	if (m->seen)
		printf("# mem node=%ld rank=%ld host=%s rss_peak_mib=%ld\n", node, rank, enc,
		       (m->rss_peak_kib + 1023) / 1024);
	for (long k = 0; k < m->ngpu; k++)
		printf("# mem node=%ld gpu=%ld gpu_peak_mib=%ld\n", node, k, m->gpu_peak[k]);
	fflush(stdout);
	free(m->gpu_peak);
	m->gpu_peak = NULL;
}
