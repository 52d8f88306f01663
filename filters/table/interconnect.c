/*
 * interconnect.c — table's view of how the runs' devices were linked
 * (doc/cluster.md), from the env items that launch and grep-iters wrote:
 *
 *   topo.columns  topo.<row>  topo.<nic>.name   nvidia-smi topo -m (launch)
 *   ib_devices  ib.<dev>.<port>.<field>         /sys/class/infiniband (launch)
 *   nccl.transports  nccl.net                   NCCL's own lines (grep-iters)
 *
 * Reads the items env.c read and indexed; writes, for env.c to print, each
 * node's summary (its GPUs and their pairs by link, the GPUs nearest each
 * NIC, the InfiniBand ports' link layer, rate and state) and each
 * configuration's NCCL networks and transports, with the runs of more than
 * one node whose traffic between nodes went over TCP sockets.
 */
#include "env.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_SUMMARY_MAX 64 /* columns of a matrix summarised, at most */

/* A string built up (malloc'd). */
struct sb {
	char *s;
	size_t len, cap;
};

static void sb_put(struct sb *b, const char *p, size_t n)
{
	b->s = xgrow(b->s, &b->cap, b->len + n + 1, 1);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sb *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_long(struct sb *b, long v)
{
	char num[24];

	sb_put(b, num, (size_t)snprintf(num, sizeof num, "%ld", v));
}

int ic_is_item(const char *name)
{
	return !strncmp(name, "topo.", 5) || !strncmp(name, "ib.", 3) ||
	       !strcmp(name, "ib_devices") || !strcmp(name, "nccl.net") ||
	       !strcmp(name, "nccl.net_devices") || !strcmp(name, "nccl.transports") ||
	       !strcmp(name, "libibverbs.warning");
}

/* ---- a node: nvidia-smi topo -m and its InfiniBand ports --------------- */

/* Nearer links first: NV# (more links first), PIX, PXB, PHB, NODE, SYS
 * (SOC, its old name), then anything else. */
static int link_rank(const char *t)
{
	static const char *const pcie[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};

	if (t[0] == 'N' && t[1] == 'V' && isdigit((unsigned char)t[2])) {
		long n = strtol(t + 2, NULL, 10);
		return n > 99 ? 0 : 99 - (int)n;
	}
	for (int i = 0; i < 5; i++)
		if (!strcmp(t, pcie[i]))
			return 100 + i;
	return !strcmp(t, "SOC") ? 104 : 200;
}

/* s split at ',' in place into v (at most max); the count, or -1 beyond max. */
static int split(char *s, char **v, int max)
{
	int n = 0;

	for (char *p = s;; p++) {
		if (n == max)
			return -1;
		v[n++] = p;
		if (!(p = strchr(p, ',')))
			return n;
		*p = '\0';
	}
}

static int is_gpu(const char *col)
{
	return !strncmp(col, "GPU", 3) && col[3] && col[3 + strspn(col + 3, "0123456789")] == '\0';
}

/* The items of one object (a run's node) that a summary reads. */
struct nodeitems {
	const char *columns;
	const struct envline **rows, **names, **ib; /* topo.<row>, topo.<nic>.name, ib.* */
	size_t nrows, nnames, nib, caprows, capnames, capib;
	const char *ib_devices;
};

/* The value of "<prefix><label><suffix>" among v, or NULL. */
static const char *find(const struct envline *const *v, size_t n, const char *prefix,
			const char *label, const char *suffix)
{
	size_t np = strlen(prefix), nl = strlen(label);

	for (size_t i = 0; i < n; i++) {
		const char *s = v[i]->name;
		if (!strncmp(s, prefix, np) && !strncmp(s + np, label, nl) &&
		    !strcmp(s + np + nl, suffix))
			return v[i]->value;
	}
	return NULL;
}

/* "8 GPUs (pairs: 8 NV2, 8 NV1, 12 SYS); mlx5_0 nearest GPU2, GPU3 (PIX)". */
static void matrix_summary(struct sb *b, const struct nodeitems *ni)
{
	char *cols = xstrdup(ni->columns), *col[TOPO_SUMMARY_MAX], *cellbuf[TOPO_SUMMARY_MAX];
	char *cell[TOPO_SUMMARY_MAX][TOPO_SUMMARY_MAX];
	int nc = split(cols, col, TOPO_SUMMARY_MAX), ngpu = 0, ok[TOPO_SUMMARY_MAX];
	struct {
		const char *type;
		long n;
	} pairs[TOPO_SUMMARY_MAX * TOPO_SUMMARY_MAX / 2];
	int npairs = 0;

	if (nc < 0) {
		sb_str(b, "a matrix of more than 64 devices");
		free(cols);
		return;
	}
	for (int k = 0; k < nc; k++) {
		const char *row = find(ni->rows, ni->nrows, "topo.", col[k], "");
		cellbuf[k] = row ? xstrdup(row) : NULL;
		ok[k] = row && split(cellbuf[k], cell[k], TOPO_SUMMARY_MAX) == nc;
		ngpu += is_gpu(col[k]);
	}
	sb_long(b, ngpu);
	sb_str(b, ngpu == 1 ? " GPU" : " GPUs");
	for (int a = 0; a < nc; a++)
		for (int c = a + 1; c < nc && ok[a] && is_gpu(col[a]); c++) {
			if (!is_gpu(col[c]))
				continue;
			int p = 0;
			while (p < npairs && strcmp(pairs[p].type, cell[a][c]))
				p++;
			if (p == npairs)
				pairs[npairs++].type = cell[a][c], pairs[p].n = 0;
			pairs[p].n++;
		}
	/* by rank, nearest first (a few kinds: insertion) */
	for (int i = 1; i < npairs; i++)
		for (int j = i; j > 0; j--) {
			int x = link_rank(pairs[j - 1].type), y = link_rank(pairs[j].type);
			if (x < y || (x == y && strcmp(pairs[j - 1].type, pairs[j].type) <= 0))
				break;
			const char *t = pairs[j].type;
			long n = pairs[j].n;
			pairs[j] = pairs[j - 1];
			pairs[j - 1].type = t, pairs[j - 1].n = n;
		}
	for (int p = 0; p < npairs; p++) {
		sb_str(b, p ? ", " : " (pairs: ");
		sb_long(b, pairs[p].n);
		sb_str(b, " ");
		sb_str(b, pairs[p].type);
	}
	if (npairs)
		sb_str(b, ")");
	/* each NIC: the GPUs of its nearest link, from the GPUs' rows */
	for (int k = 0; k < nc; k++) {
		int best = -1;
		if (is_gpu(col[k]))
			continue;
		for (int a = 0; a < nc; a++)
			if (ok[a] && is_gpu(col[a]) &&
			    (best < 0 || link_rank(cell[a][k]) < link_rank(cell[best][k])))
				best = a;
		if (best < 0)
			continue;
		const char *name = find(ni->names, ni->nnames, "topo.", col[k], ".name");
		sb_str(b, "; ");
		sb_str(b, name ? name : col[k]);
		sb_str(b, " nearest");
		for (int a = 0, n = 0; a < nc; a++)
			if (ok[a] && is_gpu(col[a]) &&
			    link_rank(cell[a][k]) == link_rank(cell[best][k])) {
				sb_str(b, n++ ? ", " : " ");
				sb_str(b, col[a]);
			}
		sb_str(b, " (");
		sb_str(b, cell[best][k]);
		sb_str(b, ")");
	}
	for (int k = 0; k < nc; k++)
		free(cellbuf[k]);
	free(cols);
}

/* "mlx5_0:1 InfiniBand 100 Gb/sec (4X EDR) ACTIVE, …" in the order the
 * ports came; "none" for a node without InfiniBand devices. */
static void ib_summary(struct sb *b, const struct nodeitems *ni)
{
	static const char *const fields[] = {"link_layer", "rate", "state"};
	int ports = 0;

	if (ni->ib_devices && !strcmp(ni->ib_devices, "0")) {
		sb_str(b, "none");
		return;
	}
	for (size_t i = 0; i < ni->nib; i++) {
		/* ib.<dev>.<port>.link_layer: one port, its other fields found by name */
		const char *s = ni->ib[i]->name + 3, *dot = strrchr(s, '.');
		if (!dot || dot == s || strcmp(dot + 1, "link_layer") != 0)
			continue;
		char port[256];
		size_t n = (size_t)(dot - s);
		if (n >= sizeof port)
			continue;
		memcpy(port, s, n);
		port[n] = '\0';
		char *pdot = strrchr(port, '.');
		if (!pdot)
			continue;
		if (ports++)
			sb_str(b, ", ");
		*pdot = ':';
		sb_str(b, port);
		*pdot = '.';
		for (int f = 0; f < 3; f++) {
			char suffix[32];
			snprintf(suffix, sizeof suffix, ".%s", fields[f]);
			const char *v = find(ni->ib, ni->nib, "ib.", port, suffix);
			if (!v)
				continue;
			if (f == 2) /* "4: ACTIVE": the state's name */
				v += strspn(v, "0123456789") + (v[strspn(v, "0123456789")] == ':');
			sb_str(b, " ");
			sb_str(b, v + strspn(v, " "));
		}
	}
}

char *ic_node(struct env *env, size_t id, int part)
{
	struct nodeitems ni = {0};
	struct sb b = {0};

	for (size_t i = env->objects.first[id]; i != HASH_NONE; i = env->objects.next[i]) {
		const struct envline *e = &env->items[i];
		int topo = !strncmp(e->name, "topo.", 5);
		const char *dot = topo ? strchr(e->name + 5, '.') : NULL;
		if (!strcmp(e->name, "topo.columns")) {
			ni.columns = e->value;
		} else if (topo && (!dot || !strcmp(dot, ".name"))) {
			const struct envline ***v = dot ? &ni.names : &ni.rows;
			size_t *n = dot ? &ni.nnames : &ni.nrows,
			       *cap = dot ? &ni.capnames : &ni.caprows;
			*v = xgrow(*v, cap, *n + 1, sizeof **v);
			(*v)[(*n)++] = e;
		} else if (!strncmp(e->name, "ib.", 3)) {
			ni.ib = xgrow(ni.ib, &ni.capib, ni.nib + 1, sizeof *ni.ib);
			ni.ib[ni.nib++] = e;
		} else if (!strcmp(e->name, "ib_devices")) {
			ni.ib_devices = e->value;
		}
	}
	if (part == 0 && ni.columns)
		matrix_summary(&b, &ni);
	if (part == 1 && (ni.ib_devices || ni.nib))
		ib_summary(&b, &ni);
	free(ni.rows);
	free(ni.names);
	free(ni.ib);
	if (!b.s)
		sb_str(&b, "");
	return b.s;
}

/* ---- a configuration: what NCCL chose ------------------------------------ */

/* Add the ','-separated parts of value to *v unless seen (their index in
 * seen, keyed by kind). */
static void add_parts(struct env *env, struct hash *seen, int kind, const char *value, char ***v,
		      size_t *n, size_t *cap)
{
	for (const char *p = value; *p;) {
		size_t k = strcspn(p, ",");
		char *part = xmalloc(k + 1);
		memcpy(part, p, k);
		part[k] = '\0';
		hkey_start(&env->hk);
		hkey_long(&env->hk, kind);
		hkey_str(&env->hk, part);
		if (k && hash_intern(seen, &env->hk, *n) == *n) {
			*v = xgrow(*v, cap, *n + 1, sizeof **v);
			(*v)[(*n)++] = part;
		} else {
			free(part);
		}
		p += k + (p[k] == ',');
	}
}

/* Whether a ','-separated part of value starts with prefix (is it, exact). */
static int has_part(const char *value, const char *prefix, int exact)
{
	size_t n = strlen(prefix);

	for (const char *p = value;; p++) {
		if (!strncmp(p, prefix, n) && (!exact || p[n] == ',' || !p[n]))
			return 1;
		if (!(p = strchr(p, ',')))
			return 0;
	}
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* A run's NCCL items said: a transport over sockets, a transport over a
 * network at all, a network of sockets. */
enum { T_SOCKET = 1, T_NET = 2, N_SOCKET = 4 };

void ic_nccl(struct env *env, size_t id, struct ic_nccl *nc)
{
	struct hash seen = {0}, runs = {0};
	long *run = NULL;
	unsigned *flags = NULL;
	size_t nruns = 0, caprun = 0, capflags = 0, capt = 0, capn = 0;
	struct key key;

	memset(nc, 0, sizeof *nc);
	for (size_t i = env->cases.first[id]; i != HASH_NONE; i = env->cases.next[i]) {
		const struct envline *e = &env->items[i];
		int t = !strcmp(e->name, "nccl.transports");
		if (!t && strcmp(e->name, "nccl.net") != 0)
			continue;
		hkey_start(&env->hk);
		hkey_long(&env->hk, e->run);
		size_t r = hash_intern(&runs, &env->hk, nruns);
		if (r == nruns) {
			run = xgrow(run, &caprun, nruns + 1, sizeof *run);
			flags = xgrow(flags, &capflags, nruns + 1, sizeof *flags);
			run[nruns] = e->run;
			flags[nruns++] = 0;
		}
		if (t) {
			add_parts(env, &seen, 0, e->value, &nc->transports, &nc->ntransports,
				  &capt);
			flags[r] |= (has_part(e->value, "NET/Socket", 0) ? T_SOCKET : 0) |
				    (has_part(e->value, "NET/", 0) ? T_NET : 0);
		} else {
			add_parts(env, &seen, 1, e->value, &nc->networks, &nc->nnetworks, &capn);
			flags[r] |= has_part(e->value, "Socket", 1) ? N_SOCKET : 0;
		}
	}
	nc->any = nruns > 0;
	/* Sockets between nodes: a connection over NET/Socket; without any
	 * connection over a network, NCCL's network being sockets. */
	if (nruns && key_parse(env->items[env->cases.first[id]].key, &key) == 0 && key.nodes > 1)
		for (size_t r = 0; r < nruns; r++)
			if (flags[r] & T_SOCKET || (!(flags[r] & T_NET) && flags[r] & N_SOCKET)) {
				nc->socket_runs = xgrow(nc->socket_runs, &nc->capsocket,
							nc->nsocket + 1, sizeof *nc->socket_runs);
				nc->socket_runs[nc->nsocket++] = run[r];
			}
	if (nc->nsocket > 1)
		qsort(nc->socket_runs, nc->nsocket, sizeof *nc->socket_runs, cmp_long);
	hash_free(&seen);
	hash_free(&runs);
	free(run);
	free(flags);
}

void ic_nccl_free(struct ic_nccl *nc)
{
	for (size_t i = 0; i < nc->ntransports; i++)
		free(nc->transports[i]);
	for (size_t i = 0; i < nc->nnetworks; i++)
		free(nc->networks[i]);
	free(nc->transports);
	free(nc->networks);
	free(nc->socket_runs);
	memset(nc, 0, sizeof *nc);
}
