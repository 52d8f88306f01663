/*
 * hosts.c — where launch's job runs and how it is started.
 *
 * Reads the Open MPI host file of -H, else Slurm's SLURM_JOB_ID and
 * SLURM_JOB_NODELIST; writes the job's hosts, its "h1:G,..." host list and
 * its start method (directly, mpirun or srun). Before mpirun starts, the
 * first N hosts of -H must answer on TCP port 22 (a refusal counts as an
 * answer), so that a dead host is named at once.
 */
#include "launch.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REACH_PORT "22" /* reachability check: answered or refused = up */
#define REACH_MS   5000

/* Append a host (the name is copied) to the job's list of capacity *cap. */
static void add_host(struct job *job, size_t *cap, const char *name, size_t len, long slots)
{
	char *s = xmalloc(len + 1);

	memcpy(s, name, len);
	s[len] = '\0';
	job->hosts = xgrow(job->hosts, cap, job->nhosts + 1, sizeof *job->hosts);
	job->hosts[job->nhosts++] = (struct host){s, slots};
}

/* ---- the host file --------------------------------------------------- */

/* Drop blanks around '=' so that "slots = 4" reads as "slots=4". */
static void squeeze_equals(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (*p == ' ' || *p == '\t') {
			char *q = p;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=' || (o > s && o[-1] == '=')) {
				p = q - 1;
				continue;
			}
		}
		*o++ = *p;
	}
	*o = '\0';
}

/* Open MPI's host-file format: "host [slots=N] [max_slots=N]" per line,
 * '#' comments, blank lines; a host named twice adds its slots. */
static void read_hostfile(struct job *job)
{
	struct input in;
	size_t cap = 0;

	input_open(&in, job->hostfile);
	while (input_line(&in)) {
		char *hash = strchr(in.line, '#');
		if (hash)
			*hash = '\0';
		squeeze_equals(in.line);
		char *save, *name = strtok_r(in.line, " \t", &save);
		if (!name)
			continue;
		if (strchr(name, '='))
			record_die(&in, "'%s': expected a host name first", name);
		long slots = -1;
		for (char *t; (t = strtok_r(NULL, " \t", &save));) {
			char *eq = strchr(t, '=');
			long v;
			if (!eq)
				record_die(&in, "'%s': expected slots=N", t);
			*eq = '\0';
			if (parse_long(eq + 1, 1, 1000000, &v) != 0)
				record_die(&in, "%s: '%s' is not a count 1..1000000", t, eq + 1);
			if (!strcmp(t, "slots") || !strcmp(t, "count") || !strcmp(t, "cpu"))
				slots = v;
			else if (strcmp(t, "max_slots") && strcmp(t, "max-slots"))
				record_die(&in, "'%s': unknown setting", t);
		}
		struct host *h = job->hosts;
		size_t i;
		for (i = 0; i < job->nhosts && strcmp(h[i].name, name); i++)
			;
		if (i == job->nhosts)
			add_host(job, &cap, name, strlen(name), slots);
		else if (h[i].slots >= 0)
			h[i].slots = slots < 0 ? -1 : h[i].slots + slots;
	}
	input_close(&in);
}

/* The first N hosts must each have G slots: name every one that is short. */
static void check_slots(const struct job *job)
{
	const struct host *h = job->hosts;
	size_t n = job->nhosts;
	long nodes = job->key.nodes, gpus = job->key.gpus;
	int bad = 0;

	if (n < (size_t)nodes)
		die("%s: %zu host%s, need %ld for %s", job->hostfile, n, n == 1 ? "" : "s", nodes,
		    job->keystr);
	for (long i = 0; i < nodes; i++)
		if (h[i].slots >= 0 && h[i].slots < gpus) {
			warnf("%s: %s: %ld slot%s, need %ld for %s", job->hostfile, h[i].name,
			      h[i].slots, h[i].slots == 1 ? "" : "s", gpus, job->keystr);
			bad = 1;
		}
	if (bad)
		exit(1);
}

/* Before mpirun tries (and fails slowly, in words that name no host), see
 * that every host answers a TCP connection to the ssh port: a connection or
 * a refusal means it is up; no route, no address or silence means it is not.
 * The N connections are attempted at once, so a run waits REACH_MS at most. */
static void check_reachable(const struct job *job)
{
	const struct host *h = job->hosts;
	size_t n = (size_t)job->key.nodes;
	struct pollfd *pf = xmalloc(n * sizeof *pf);
	const char **why = xmalloc(n * sizeof *why);
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
		int e;

		pf[i].fd = -1;
		pf[i].events = POLLOUT;
		why[i] = NULL;
		if ((e = getaddrinfo(h[i].name, REACH_PORT, &hints, &ai)) != 0) {
			why[i] = gai_strerror(e);
			continue;
		}
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);
		if (fd < 0)
			die("socket:");
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == ECONNREFUSED)
			close(fd);
		else if (errno == EINPROGRESS)
			pf[i].fd = fd;
		else {
			why[i] = strerror(errno);
			close(fd);
		}
		freeaddrinfo(ai);
	}
	for (double end = now_s() + REACH_MS / 1000.0;;) {
		int left = (int)((end - now_s()) * 1000), pending = 0;
		for (size_t i = 0; i < n; i++)
			pending += pf[i].fd >= 0;
		if (!pending || left <= 0)
			break;
		if (poll(pf, n, left) < 0 && errno != EINTR)
			die("poll:");
		for (size_t i = 0; i < n; i++) {
			int err = 0;
			socklen_t len = sizeof err;
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			getsockopt(pf[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
			if (err && err != ECONNREFUSED)
				why[i] = strerror(err);
			close(pf[i].fd);
			pf[i].fd = -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (pf[i].fd >= 0) {
			close(pf[i].fd);
			why[i] = "no answer within 5 s";
		}
		if (why[i]) {
			warnf("%s: %s: host unreachable (TCP port %s: %s)", job->hostfile,
			      h[i].name, REACH_PORT, why[i]);
			bad = 1;
		}
	}
	if (bad)
		exit(1);
	free(pf);
	free(why);
}

/* ---- Slurm's node list ----------------------------------------------- */

/* Slurm's compressed host list, "gpu[01-03,07],login1" → gpu01 gpu02 gpu03
 * gpu07 login1: ranges keep the width of their first number, several
 * bracket groups in one name multiply. -1 when it is not one. */
static int expand_name(struct job *job, size_t *cap, const char *name, size_t len)
{
	const char *lb = memchr(name, '[', len), *rb;

	if (job->nhosts > MAX_RANKS)
		return -1;
	if (!lb) {
		if (!len || memchr(name, ']', len))
			return -1;
		add_host(job, cap, name, len, -1);
		return 0;
	}
	if (!(rb = memchr(lb, ']', len - (size_t)(lb - name))))
		return -1;
	for (const char *p = lb + 1, *e; p < rb; p = e + 1) {
		char lo_s[24], hi_s[24];
		long lo, hi;
		if (!(e = memchr(p, ',', (size_t)(rb - p))))
			e = rb;
		const char *dash = memchr(p, '-', (size_t)(e - p)), *lo_end = dash ? dash : e;
		if (lo_end - p < 1 || lo_end - p > 18 || (dash && (e - dash < 2 || e - dash > 19)))
			return -1;
		snprintf(lo_s, sizeof lo_s, "%.*s", (int)(lo_end - p), p);
		snprintf(hi_s, sizeof hi_s, "%.*s", dash ? (int)(e - dash - 1) : (int)(e - p),
			 dash ? dash + 1 : p);
		if (strspn(lo_s, "0123456789") != strlen(lo_s) ||
		    strspn(hi_s, "0123456789") != strlen(hi_s) ||
		    parse_long(lo_s, 0, 999999999, &lo) || parse_long(hi_s, 0, 999999999, &hi) ||
		    hi < lo || hi - lo > MAX_RANKS)
			return -1;
		for (long v = lo; v <= hi; v++) {
			size_t pre = (size_t)(lb - name), post = len - (size_t)(rb + 1 - name);
			char *s = xmalloc(pre + post + 32);
			int w = snprintf(s + pre, 32, "%0*ld", (int)strlen(lo_s), v);
			memcpy(s, name, pre);
			memcpy(s + pre + w, rb + 1, post);
			int bad = expand_name(job, cap, s, pre + (size_t)w + post);
			free(s);
			if (bad)
				return -1;
		}
	}
	return 0;
}

/* The hosts of the Slurm allocation, in Slurm's order. */
static void read_nodelist(struct job *job, const char *slurm)
{
	const char *nl = getenv("SLURM_JOB_NODELIST");
	size_t cap = 0;

	if (!nl || !*nl)
		die("Slurm job %s: SLURM_JOB_NODELIST is not set", slurm);
	/* Names are split at the commas outside brackets. */
	for (const char *p = nl;; p++) {
		const char *q = p;
		for (int depth = 0; *q && (depth || *q != ','); q++)
			depth += (*q == '[') - (*q == ']');
		if (expand_name(job, &cap, p, (size_t)(q - p)) != 0)
			die("Slurm job %s: SLURM_JOB_NODELIST: '%s' is not a host list", slurm, nl);
		if (!*q)
			break;
		p = q;
	}
	if (job->nhosts < (size_t)job->key.nodes)
		die("Slurm job %s: %zu node%s, need %ld for %s", slurm, job->nhosts,
		    job->nhosts == 1 ? "" : "s", job->key.nodes, job->keystr);
}

/* ---- the job's hosts ------------------------------------------------- */

/* The hosts this run uses, "h1:G,h2:G", as the header and DLBENCH_HOSTS
 * show them; srun's --nodelist is the same names. */
static void host_lists(struct job *job)
{
	long gpus = job->key.gpus;

	if (job->how == DIRECT || !job->hosts) {
		char buf[48];
		snprintf(buf, sizeof buf, "localhost:%ld", gpus);
		job->hostlist = xstrdup(buf);
		job->nodelist = xstrdup("localhost");
		return;
	}
	size_t len = 1;
	for (long i = 0; i < job->key.nodes; i++)
		len += strlen(job->hosts[i].name) + 24;
	job->hostlist = xmalloc(len);
	job->nodelist = xmalloc(len);
	for (long i = 0, o = 0, q = 0; i < job->key.nodes; i++) {
		const char *name = job->hosts[i].name, *sep = i ? "," : "";
		o += snprintf(job->hostlist + o, len - (size_t)o, "%s%s:%ld", sep, name, gpus);
		q += snprintf(job->nodelist + q, len - (size_t)q, "%s%s", sep, name);
	}
}

void hosts_resolve(struct job *job)
{
	const char *slurm = getenv("SLURM_JOB_ID");
	int in_slurm = slurm && *slurm;

	if (job->hostfile) {
		read_hostfile(job);
		check_slots(job);
	}
	/*   1n1g, no -H, or 1n1g inside Slurm   the command itself, no mpirun
	 *   inside Slurm                        srun
	 *   otherwise                           mpirun (N > 1 needs -H) */
	if (job->world == 1 && (in_slurm || !job->hostfile))
		job->how = DIRECT;
	else if (in_slurm)
		job->how = SRUN;
	else if (job->hostfile || job->key.nodes == 1)
		job->how = MPIRUN;
	else
		die("%s: %ld nodes need a host file (-H) or a Slurm allocation", job->keystr,
		    job->key.nodes);
	if (job->how == SRUN && !job->hostfile)
		read_nodelist(job, slurm);
	host_lists(job);
	if (job->how == MPIRUN && job->hostfile)
		check_reachable(job);
}
