/*
 * launch — run one configuration <N>n<G>g_b<B>_<prec> of a command.
 *
 * Reads the key, an optional Open MPI host file (-H) and the environment;
 * writes to stdout one '#' header line (key, hosts, UTC start time, the
 * command line) followed by the command's own stdout; stderr passes through.
 *
 *   1n1g, no -H, or 1n1g inside Slurm   the command itself, no mpirun
 *   SLURM_JOB_ID set                    srun --nodes=N --ntasks=N*G
 *                                       --ntasks-per-node=G ...
 *   otherwise                           mpirun -np N*G --host h1:G,...,hN:G
 *                                       --map-by ppr:G:node --bind-to none ...
 *
 * --host h:G declares G slots on h, so G ranks fit on every host however
 * many cores it has: G is the number of devices per node, and a GPU node
 * runs one rank per GPU. No --oversubscribe is ever needed.
 *
 * The command's words have {batch} {precision} {nodes} {gpus} {key}
 * replaced; DLBENCH_KEY, DLBENCH_NODES, DLBENCH_GPUS, DLBENCH_BATCH,
 * DLBENCH_PRECISION and DLBENCH_WORLD (= N*G, for workloads to check their
 * world size against) are exported, and mpirun forwards them, PATH,
 * LD_LIBRARY_PATH, OMP_* and NCCL_* with -x (OMPI_MCA_* reach every daemon
 * and rank by Open MPI's own means).
 *
 * The job runs in its own process group. At the timeout (-t), or when launch
 * gets SIGINT, SIGTERM or SIGHUP, the group gets SIGTERM (mpirun then stops
 * the ranks on every host), and GRACE_S seconds later every process still
 * descending from launch gets SIGKILL. launch is a child subreaper: nothing
 * the job started outlives it, and it exits only when all are reaped; and
 * if launch is killed outright the job gets SIGTERM (parent-death signal).
 * Before mpirun starts, the first N hosts of -H must answer on TCP port 22
 * (a refusal counts as an answer), so that a dead host is named at once.
 *
 * Exit: the command's status (mpirun's: non-zero when any rank failed);
 * 128+n when it died of signal n; 124 at the timeout; 128+n when launch was
 * interrupted by signal n; 127/126 when the command cannot be run; 1 for a
 * host file or host that cannot serve the configuration; 2 for usage.
 */
#include "lib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define GRACE_S 5          /* SIGTERM → SIGKILL */
#define MAX_RANKS 1000000L /* N*G */
#define MAX_TIMEOUT 604800 /* -t: one week */
#define PROBE_PORT "22"    /* reachability check: answered or refused = up */
#define PROBE_MS 5000

extern char **environ;

struct host {
	char *name;
	long slots; /* -1: not given (Open MPI then counts the host's cores) */
};

struct vec {
	char **v;
	size_t n, cap;
};

static struct key key;
static char keystr[KEY_MAX];

static void vec_push(struct vec *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = s ? xstrdup(s) : NULL;
	a->v[a->n] = NULL;
}

static void vec_pushf(struct vec *a, const char *fmt, long x)
{
	char buf[64];
	snprintf(buf, sizeof buf, fmt, x);
	vec_push(a, buf);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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
static size_t read_hostfile(const char *path, struct host **out)
{
	struct input in;
	struct host *h = NULL;
	size_t n = 0;

	input_open(&in, path);
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
		size_t i;
		for (i = 0; i < n && strcmp(h[i].name, name); i++)
			;
		if (i == n) {
			h = xrealloc(h, (n + 1) * sizeof *h);
			h[n].name = xstrdup(name);
			h[n++].slots = slots;
		} else if (h[i].slots >= 0) {
			h[i].slots = slots < 0 ? -1 : h[i].slots + slots;
		}
	}
	input_close(&in);
	*out = h;
	return n;
}

/* The first N hosts must each have G slots: name every one that is short. */
static void check_hosts(const char *path, const struct host *h, size_t n)
{
	int bad = 0;

	if (n < (size_t)key.nodes)
		die("%s: %zu host%s, need %ld for %s", path, n, n == 1 ? "" : "s", key.nodes,
		    keystr);
	for (long i = 0; i < key.nodes; i++)
		if (h[i].slots >= 0 && h[i].slots < key.gpus) {
			warnf("%s: %s: %ld slot%s, need %ld for %s", path, h[i].name, h[i].slots,
			      h[i].slots == 1 ? "" : "s", key.gpus, keystr);
			bad = 1;
		}
	if (bad)
		exit(1);
}

/* Before mpirun tries (and fails slowly, in words that name no host), see
 * that every host answers a TCP connection to the ssh port: a connection or
 * a refusal means it is up; no route, no address or silence means it is not. */
static void probe_hosts(const char *path, const struct host *h)
{
	size_t n = (size_t)key.nodes;
	struct pollfd *pf = xrealloc(NULL, n * sizeof *pf);
	const char **why = xrealloc(NULL, n * sizeof *why);
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
		int e;

		pf[i].fd = -1;
		pf[i].events = POLLOUT;
		why[i] = NULL;
		if ((e = getaddrinfo(h[i].name, PROBE_PORT, &hints, &ai)) != 0) {
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
	for (double end = now() + PROBE_MS / 1000.0;;) {
		int left = (int)((end - now()) * 1000), pending = 0;
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
			warnf("%s: %s: host unreachable (TCP port %s: %s)", path, h[i].name,
			      PROBE_PORT, why[i]);
			bad = 1;
		}
	}
	if (bad)
		exit(1);
	free(pf);
	free(why);
}

/* ---- the command line ------------------------------------------------ */

/* Slurm's compressed host list, "gpu[01-03,07],login1" → gpu01 gpu02 gpu03
 * gpu07 login1: ranges keep the width of their first number, several
 * bracket groups in one name multiply. -1 when it is not one. */
static int expand_name(const char *name, size_t len, struct vec *out)
{
	const char *lb = memchr(name, '[', len), *rb;

	if (out->n > MAX_RANKS)
		return -1;
	if (!lb) {
		if (!len || memchr(name, ']', len))
			return -1;
		char *s = xrealloc(NULL, len + 1);
		memcpy(s, name, len);
		s[len] = '\0';
		vec_push(out, s);
		free(s);
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
			char *s = xrealloc(NULL, pre + post + 32);
			int w = snprintf(s + pre, 32, "%0*ld", (int)strlen(lo_s), v);
			memcpy(s, name, pre);
			memcpy(s + pre + w, rb + 1, post);
			int bad = expand_name(s, pre + (size_t)w + post, out);
			free(s);
			if (bad)
				return -1;
		}
	}
	return 0;
}

static int nodelist_expand(const char *s, struct vec *out)
{
	for (const char *p = s;; p++) {
		const char *q = p;
		for (int depth = 0; *q && (depth || *q != ','); q++)
			depth += (*q == '[') - (*q == ']');
		if (expand_name(p, (size_t)(q - p), out) != 0)
			return -1;
		if (!*q)
			return 0;
		p = q;
	}
}


/* Replace {batch} {precision} {nodes} {gpus} {key}; other braces stay. */
static char *substitute(const char *s)
{
	char num[4][24];
	const char *names[] = {"{batch}", "{precision}", "{nodes}", "{gpus}", "{key}"};
	const char *vals[] = {num[0], key.prec, num[1], num[2], keystr};
	size_t cap = strlen(s) + 1, len = 0;
	char *out = xrealloc(NULL, cap);

	snprintf(num[0], sizeof num[0], "%ld", key.batch);
	snprintf(num[1], sizeof num[1], "%ld", key.nodes);
	snprintf(num[2], sizeof num[2], "%ld", key.gpus);
	while (*s) {
		const char *add = s;
		size_t addlen = 1, skip = 1;
		for (size_t i = 0; i < sizeof names / sizeof *names; i++)
			if (!strncmp(s, names[i], strlen(names[i]))) {
				add = vals[i];
				addlen = strlen(vals[i]);
				skip = strlen(names[i]);
				break;
			}
		if (len + addlen + 1 > cap) {
			cap = 2 * (len + addlen + 1);
			out = xrealloc(out, cap);
		}
		memcpy(out + len, add, addlen);
		len += addlen;
		s += skip;
	}
	out[len] = '\0';
	return out;
}

/* A word as sh reads it back: bare when safe, else in single quotes. */
static void put_quoted(const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789@%+=:,./-_") == strlen(s)) {
		fputs(s, stdout);
		return;
	}
	putchar('\'');
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	putchar('\'');
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names mpirun forwards to every rank with -x, sorted. */
static void forward_env(struct vec *av)
{
	static const char *const prefixes[] = {"DLBENCH_", "NCCL_", "OMP_"};
	static const char *const names[] = {"PATH", "LD_LIBRARY_PATH"};
	struct vec fw = {0};

	for (char **e = environ; *e; e++) {
		size_t len = strcspn(*e, "=");
		int take = 0;
		for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
			take |= !strncmp(*e, prefixes[i], strlen(prefixes[i]));
		for (size_t i = 0; i < sizeof names / sizeof *names; i++)
			take |= len == strlen(names[i]) && !strncmp(*e, names[i], len);
		if (take && (*e)[len] == '=') {
			char *name = xstrdup(*e);
			name[len] = '\0';
			vec_push(&fw, name);
			free(name);
		}
	}
	if (fw.n)
		qsort(fw.v, fw.n, sizeof *fw.v, cmp_str);
	for (size_t i = 0; i < fw.n; i++) {
		vec_push(av, "-x");
		vec_push(av, fw.v[i]);
		free(fw.v[i]);
	}
	free(fw.v);
}

static void export_long(const char *name, long v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%ld", v);
	if (setenv(name, buf, 1) != 0)
		die("setenv %s:", name);
}

/* ---- the job --------------------------------------------------------- */

/* Every live process below launch (children first-found order). With the
 * subreaper set, orphans of the job are re-parented to launch and stay in
 * this tree. zombies are skipped: their parent reaps them. */
static size_t descendants(pid_t **out)
{
	struct proc {
		pid_t pid, ppid;
		char state;
	} *p = NULL;
	size_t n = 0, cap = 0, nd = 0;
	pid_t *d = NULL;
	DIR *dir = opendir("/proc");
	struct dirent *de;

	if (!dir)
		return *out = NULL, 0;
	while ((de = readdir(dir))) {
		char path[64], buf[512], *rp;
		long pid;
		if (parse_long(de->d_name, 1, 1L << 30, &pid) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		if (!(rp = strrchr(buf, ')')))
			continue;
		char state;
		int ppid;
		if (sscanf(rp + 1, " %c %d", &state, &ppid) != 2)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			p = xrealloc(p, cap * sizeof *p);
		}
		p[n++] = (struct proc){(pid_t)pid, (pid_t)ppid, state};
	}
	closedir(dir);
	/* Breadth first from launch: d[] grows while it is walked. */
	pid_t self = getpid();
	d = xrealloc(NULL, (n + 1) * sizeof *d);
	for (size_t i = 0; i < n; i++)
		if (p[i].ppid == self)
			d[nd++] = p[i].pid;
	for (size_t k = 0; k < nd; k++)
		for (size_t i = 0; i < n; i++)
			if (p[i].ppid == d[k])
				d[nd++] = p[i].pid;
	/* Drop the zombies now that their children are counted. */
	size_t live = 0;
	for (size_t k = 0; k < nd; k++)
		for (size_t i = 0; i < n; i++)
			if (p[i].pid == d[k] && p[i].state != 'Z')
				d[live++] = d[k];
	free(p);
	*out = d;
	return live;
}

static size_t kill_tree(int sig)
{
	pid_t *d;
	size_t n = descendants(&d);

	for (size_t i = 0; i < n; i++)
		kill(d[i], sig);
	free(d);
	return n;
}

static const char *signame(int sig)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "signal %d (%s)", sig, strsignal(sig));
	return buf;
}

/* Start argv in its own process group; report an exec failure through a
 * close-on-exec pipe so that the parent prints the one message. */
static pid_t start(char **argv, const sigset_t *oldmask)
{
	int fds[2], err;
	pid_t pid, parent = getpid();

	if (pipe(fds) != 0)
		die("pipe:");
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) < 0)
		die("fork:");
	if (pid == 0) {
		setpgid(0, 0);
#ifdef __linux__
		/* launch killed outright (SIGKILL) must not leave the job running:
		 * the job then gets SIGTERM, and mpirun stops every rank. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
#endif
		signal(SIGPIPE, SIG_DFL);
		if (isatty(STDIN_FILENO)) {
			/* A background group reading the terminal would stop. */
			int fd = open("/dev/null", O_RDONLY);
			if (fd >= 0 && fd != STDIN_FILENO) {
				dup2(fd, STDIN_FILENO);
				close(fd);
			}
		}
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		execvp(argv[0], argv);
		err = errno;
		if (write(fds[1], &err, sizeof err) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	ssize_t r;
	while ((r = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (r == (ssize_t)sizeof err) {
		waitpid(pid, NULL, 0);
		errno = err;
		warnf("%s:", argv[0]);
		exit(err == ENOENT ? 127 : 126);
	}
	return pid;
}

/* Wait for the job; at the timeout or a signal stop it; leave nothing. */
static int supervise(pid_t child, long timeout, const sigset_t *set)
{
	double t0 = now(), term_at = -1;
	int done = 0, status = 0, why = 0, killed = 0; /* why: 0, -1 timeout, signal */

	for (;;) {
		pid_t p;
		int st;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == child) {
				done = 1;
				status = st;
			}
		double t = now(), wait_s = 0.05;
		if (done) {
			/* The command is over: whatever it left behind goes too. */
			if (!kill_tree(0))
				break;
			if (term_at < 0) {
				kill_tree(SIGTERM);
				term_at = t;
			} else if (t - term_at >= GRACE_S) {
				kill_tree(SIGKILL);
			}
		} else {
			if (timeout > 0 && !why && t - t0 >= timeout) {
				why = -1;
				warnf("%s: timed out after %ld s", keystr, timeout);
				kill(-child, SIGTERM);
				term_at = t;
			}
			if (term_at >= 0 && !killed && t - term_at >= GRACE_S) {
				kill(-child, SIGKILL);
				kill_tree(SIGKILL);
				killed = 1;
			}
			wait_s = 1;
			if (timeout > 0 && !why)
				wait_s = t0 + timeout - t;
			else if (term_at >= 0 && !killed)
				wait_s = term_at + GRACE_S - t;
			if (wait_s < 0.001)
				wait_s = 0.001;
		}
		struct timespec ts = {(time_t)wait_s, (long)((wait_s - (time_t)wait_s) * 1e9)};
		int sig = sigtimedwait(set, NULL, &ts);
		if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && !done && !why) {
			why = sig;
			warnf("%s: interrupted by %s", keystr, signame(sig));
			kill(-child, sig);
			term_at = now();
		}
	}
	if (why == -1)
		return 124;
	if (why > 0)
		return 128 + why;
	if (WIFSIGNALED(status)) {
		warnf("%s: killed by %s", keystr, signame(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status) != 0)
		warnf("%s: failed with exit status %d", keystr, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

static void sigchld(int sig)
{
	(void)sig;
}

int main(int argc, char *argv[])
{
	const char *hostfile = NULL;
	long timeout = 0;
	int c;

	progname = "launch";
	usage_text = "launch [-t timeout] [-H hostfile] key -- command ...";
	opterr = 0;
	while ((c = getopt(argc, argv, "+t:H:")) != -1) {
		switch (c) {
		case 't':
			timeout = (long)flag_int("-t", optarg, 0, MAX_TIMEOUT);
			break;
		case 'H':
			hostfile = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || strcmp(argv[1], "--") != 0)
		usage();
	if (key_parse(argv[0], &key) != 0)
		die_usage("'%s' is not a key <N>n<G>g_b<B>_<precision>", argv[0]);
	key_format(&key, keystr, sizeof keystr);
	if (key.nodes > MAX_RANKS / key.gpus)
		die_usage("%s: %ld × %ld ranks, at most %ld", keystr, key.nodes, key.gpus,
			  MAX_RANKS);
	long world = key.nodes * key.gpus;
	char **cmd = argv + 2;
	int ncmd = argc - 2;

	struct host *hosts = NULL;
	size_t nhosts = 0;
	if (hostfile) {
		nhosts = read_hostfile(hostfile, &hosts);
		check_hosts(hostfile, hosts, nhosts);
	}

	enum { DIRECT, MPIRUN, SRUN } how;
	const char *slurm = getenv("SLURM_JOB_ID");
	if (world == 1 && ((slurm && *slurm) || !hostfile))
		how = DIRECT;
	else if (slurm && *slurm)
		how = SRUN;
	else if (hostfile || key.nodes == 1)
		how = MPIRUN;
	else
		die("%s: %ld nodes need a host file (-H) or a Slurm allocation", keystr,
		    key.nodes);
	if (how == SRUN && !hostfile) {
		const char *nl = getenv("SLURM_JOB_NODELIST");
		struct vec names = {0};
		if (!nl || !*nl)
			die("Slurm job %s: SLURM_JOB_NODELIST is not set", slurm);
		if (nodelist_expand(nl, &names) != 0)
			die("Slurm job %s: SLURM_JOB_NODELIST: '%s' is not a host list", slurm, nl);
		if (names.n < (size_t)key.nodes)
			die("Slurm job %s: %zu node%s, need %ld for %s", slurm, names.n,
			    names.n == 1 ? "" : "s", key.nodes, keystr);
		hosts = xrealloc(NULL, names.n * sizeof *hosts);
		for (nhosts = 0; nhosts < names.n; nhosts++)
			hosts[nhosts] = (struct host){names.v[nhosts], -1};
		free(names.v);
	}

	/* The hosts this run uses, "h1:G,h2:G", as the header and
	 * DLBENCH_HOSTS show them; srun's --nodelist is the same names. */
	char *hostlist, *nodelist;
	if (how == DIRECT || !hosts) {
		char buf[48];
		snprintf(buf, sizeof buf, "localhost:%ld", key.gpus);
		hostlist = xstrdup(buf);
		nodelist = xstrdup("localhost");
	} else {
		size_t len = 1;
		for (long i = 0; i < key.nodes; i++)
			len += strlen(hosts[i].name) + 24;
		hostlist = xrealloc(NULL, len);
		nodelist = xrealloc(NULL, len);
		for (long i = 0, o = 0, q = 0; i < key.nodes; i++) {
			o += snprintf(hostlist + o, len - (size_t)o, "%s%s:%ld", i ? "," : "",
				      hosts[i].name, key.gpus);
			q += snprintf(nodelist + q, len - (size_t)q, "%s%s", i ? "," : "",
				      hosts[i].name);
		}
	}
	if (how == MPIRUN && hostfile)
		probe_hosts(hostfile, hosts);

	export_long("DLBENCH_NODES", key.nodes);
	export_long("DLBENCH_GPUS", key.gpus);
	export_long("DLBENCH_BATCH", key.batch);
	export_long("DLBENCH_WORLD", world);
	if (setenv("DLBENCH_KEY", keystr, 1) || setenv("DLBENCH_PRECISION", key.prec, 1) ||
	    setenv("DLBENCH_HOSTS", hostlist, 1))
		die("setenv:");

	struct vec av = {0};
	if (how == SRUN) {
		vec_push(&av, "srun");
		vec_pushf(&av, "--nodes=%ld", key.nodes);
		vec_pushf(&av, "--ntasks=%ld", world);
		vec_pushf(&av, "--ntasks-per-node=%ld", key.gpus);
		char *arg = xrealloc(NULL, strlen(nodelist) + 16);
		sprintf(arg, "--nodelist=%s", nodelist);
		vec_push(&av, arg);
		free(arg);
		vec_push(&av, "--cpu-bind=none");
		vec_push(&av, "--kill-on-bad-exit=1");
	} else if (how == MPIRUN) {
		vec_push(&av, "mpirun");
		vec_push(&av, "-np");
		vec_pushf(&av, "%ld", world);
		vec_push(&av, "--host");
		vec_push(&av, hostlist);
		vec_push(&av, "--map-by");
		vec_pushf(&av, "ppr:%ld:node", key.gpus);
		vec_push(&av, "--bind-to");
		vec_push(&av, "none");
		forward_env(&av);
	}
	for (int i = 0; i < ncmd; i++) {
		char *w = substitute(cmd[i]);
		vec_push(&av, w);
		free(w);
	}

	char stamp[32];
	time_t wall = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&wall, &tm));
	signal(SIGPIPE, SIG_IGN);
	printf("# launch key=%s hosts=%s start=%s command=", keystr, hostlist, stamp);
	for (size_t i = av.n - (size_t)ncmd; i < av.n; i++) {
		if (i > av.n - (size_t)ncmd)
			putchar(' ');
		put_quoted(av.v[i]);
	}
	putchar('\n');
	finish_output();

	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	signal(SIGCHLD, sigchld);
	sigprocmask(SIG_BLOCK, &set, &old);
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	pid_t child = start(av.v, &old);
	int rc = supervise(child, timeout, &set);

	for (size_t i = 0; i < av.n; i++)
		free(av.v[i]);
	for (size_t i = 0; i < nhosts; i++)
		free(hosts[i].name);
	free(av.v);
	free(hosts);
	free(hostlist);
	free(nodelist);
	return rc;
}
