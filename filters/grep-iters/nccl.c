/*
 * nccl.c — what NCCL chose, read from the log's own lines. With
 * NCCL_DEBUG=INFO (the GPU pipelines set it: pipelines/settings.mk) NCCL
 * prints to stdout, so into the log, once at initialisation: its version,
 * the network it uses between nodes and the transport of each connection
 * of its rings and trees. libibverbs warns there too when a device has no
 * userspace driver (the NGC report's logs: NCCL then finds no InfiniBand
 * device and falls back to sockets).
 *
 * Reads the lines of a log that are not iteration lines (main.c: an
 * iteration line never comes here, so reading costs nothing per
 * iteration) nor meta lines; writes, after the log's records and launch's lines, one
 * "# env framework=<fw> key=<key> run=<r> node=0 <name>=<value>" line per
 * item found (lib's encoder, lib/meta.c), node 0 standing for the log,
 * which holds every rank's lines that reached it:
 *
 *   nccl.version      "NCCL version 2.19.3+cuda12.3"
 *   nccl.net          "Using network IB" (NCCL 2.6 on; "Using internal
 *                     Network IB" in 2.3); without such a line, IB after
 *                     "NET/IB : Using …", else Socket after "NET/Socket :
 *                     Using …" (2.4 and 2.5)
 *   nccl.net_devices  that network's devices: "mlx5_0:1/IB" of "NET/IB :
 *                     Using [0]mlx5_0:1/IB ; OOB ib0:…", "eth0" of
 *                     "NET/Socket : Using [0]eth0:10.0.0.1<0>"
 *   nccl.transports   the "via …" of every "Channel …" or "Ring …" line,
 *                     device numbers dropped: P2P/IPC, P2P/CUMEM/read,
 *                     SHM/direct/direct, NET/IB/GDRDMA, NET/Socket …
 *   libibverbs.warning  "libibverbs: Warning: <text>"
 *
 * Each value is the distinct values of all those lines, in the order first
 * met, joined by ','; past NCCL_VALUES of them the value ends in ",...".
 */
#include "grep-iters.h"

#include <ctype.h>
#include <stdlib.h>

/* Add the n bytes at p to s unless they are there already. */
static void set_add(struct ncclset *s, const char *p, size_t n)
{
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	for (int i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == n && !memcmp(s->v[i], p, n))
			return;
	if (s->n == NCCL_VALUES) {
		s->more = 1;
		return;
	}
	s->v[s->n] = xmalloc(n + 1);
	memcpy(s->v[s->n], p, n);
	s->v[s->n++][n] = '\0';
}

/* The words of a "… : Using" list, "[0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB
 * …" or "[0]eth0:10.0.0.1<0> [1]…": each device, its "[n]" index and, for
 * an interface (iface), its address dropped; "[RO]" and the like skipped. */
static void devices(struct ncclset *s, const char *p, int iface)
{
	size_t end = strcspn(p, ";");

	for (size_t i = 0; i < end;) {
		i += strspn(p + i, " \t");
		size_t n = i < end ? strcspn(p + i, " \t;") : 0;
		if (n == 0)
			break;
		const char *w = p + i;
		size_t k = n;
		if (k && w[0] == '[') {
			size_t close = 1 + strspn(w + 1, "0123456789");
			if (close == 1 || close >= k || w[close] != ']') { /* [RO] */
				i += n;
				continue;
			}
			w += close + 1;
			k -= close + 1;
		}
		if (iface) {
			const char *colon = memchr(w, ':', k);
			if (colon)
				k = (size_t)(colon - w);
		}
		set_add(s, w, k);
		i += n;
	}
}

/* "NET/IB/0/GDRDMA" → "NET/IB/GDRDMA": the parts of a "via" text that do
 * not start with a digit (device numbers, "1(0)"). */
static void transport(struct ncclset *s, const char *via)
{
	size_t len = strlen(via);
	char *t = xmalloc(len + 1);
	size_t n = 0;

	for (const char *p = via; *p;) {
		size_t k = strcspn(p, "/");
		if (k && !isdigit((unsigned char)*p)) {
			if (n)
				t[n++] = '/';
			memcpy(t + n, p, k);
			n += k;
		}
		p += k + (p[k] == '/');
	}
	set_add(s, t, n);
	free(t);
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void nccl_line(struct nccl *nc, const char *s)
{
	const char *p, *m, *via;

	if (s[0] == '#') /* a meta line: launch's header quotes the command */
		return;
	if ((p = strstr(s, "NCCL ")) == NULL) {
		if ((p = strstr(s, "libibverbs: Warning: ")) != NULL)
			set_add(&nc->ibverbs, p + 21, strlen(p + 21));
		return;
	}
	if ((m = strstr(p, "NCCL INFO ")) != NULL) {
		m += 10;
		if (starts(m, "Using network "))
			set_add(&nc->net, m + 14, strcspn(m + 14, " \t"));
		else if (starts(m, "Using internal Network "))
			set_add(&nc->net, m + 23, strcspn(m + 23, " \t"));
		else if (starts(m, "NET/IB : Using "))
			nc->ib_using = 1, devices(&nc->ib_devs, m + 15, 0);
		else if (starts(m, "NET/Socket : Using "))
			nc->socket_using = 1, devices(&nc->socket_devs, m + 19, 1);
		else if ((starts(m, "Channel ") || starts(m, "Ring ")) &&
			 (via = strstr(m, " via ")) != NULL)
			transport(&nc->transports, via + 5);
	}
	if ((p = strstr(p, "NCCL version ")) != NULL && isdigit((unsigned char)p[13]))
		set_add(&nc->version, p + 13, strcspn(p + 13, " \t"));
}

/* s's values joined by ',' (",..." when some were not kept) in *buf. */
static const char *joined(const struct ncclset *s, char **buf, size_t *cap)
{
	size_t len = 0;

	for (int i = 0; i < s->n + s->more; i++) {
		const char *v = i < s->n ? s->v[i] : "...";
		size_t k = strlen(v);
		*buf = xgrow(*buf, cap, len + k + 2, 1);
		if (i)
			(*buf)[len++] = ',';
		memcpy(*buf + len, v, k);
		len += k;
		(*buf)[len] = '\0';
	}
	return *buf;
}

const char *nccl_out(struct nccl *nc, int i, const char *fw, const char *key, long run, size_t *len)
{
	/* The network: NCCL's word, else what its NET lines imply. */
	static const struct ncclset ib = {{"IB"}, 1, 0}, socket = {{"Socket"}, 1, 0};
	const struct ncclset *net = nc->net.n          ? &nc->net
				    : nc->ib_using     ? &ib
				    : nc->socket_using ? &socket
						       : &nc->net;
	const struct ncclset *devs = net->n && !strcmp(net->v[0], "Socket")   ? &nc->socket_devs
				     : net->n && !strncmp(net->v[0], "IB", 2) ? &nc->ib_devs
									      : NULL;
	const struct {
		const char *name;
		const struct ncclset *set;
	} items[] = {{"nccl.version", &nc->version},
		     {"nccl.net", net},
		     {"nccl.net_devices", devs},
		     {"nccl.transports", &nc->transports},
		     {"libibverbs.warning", &nc->ibverbs}};
	struct metaline m = {.kind = META_ENV, .framework = fw, .key = key, .run = run, .n = 1};

	for (int k = 0; k < (int)(sizeof items / sizeof *items); k++)
		if (items[k].set && items[k].set->n && i-- == 0) {
			m.item[0].name = (char *)items[k].name;
			m.item[0].value = (char *)joined(items[k].set, &nc->value, &nc->valcap);
			*len = metaline_format(&m, &nc->out, &nc->outcap);
			return nc->out;
		}
	return NULL;
}

static void set_free(struct ncclset *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
}

void nccl_free(struct nccl *nc)
{
	set_free(&nc->version);
	set_free(&nc->net);
	set_free(&nc->ib_devs);
	set_free(&nc->socket_devs);
	set_free(&nc->transports);
	set_free(&nc->ibverbs);
	free(nc->value);
	free(nc->out);
	memset(nc, 0, sizeof *nc);
}
