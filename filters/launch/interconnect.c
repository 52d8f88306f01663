/*
 * interconnect.c — how a node's devices are linked, as "# env" items: the
 * matrix `nvidia-smi topo -m` prints (which GPUs talk over NVLink, over
 * PCIe switches or across the CPUs' interconnect, and which GPUs a NIC is
 * near), and the InfiniBand and RoCE ports of /sys/class/infiniband.
 *
 * Reads nvidia-smi's output and sysfs (under DLBENCH_SYSFS_ROOT when set:
 * files.c); writes items (items.c), one line each (doc/cluster.md):
 *
 *   topo.columns=GPU0,GPU1,…,mlx5_0     the matrix's columns, in order
 *   topo.<row>=X,NV1,NV1,…,NODE         a row's cells, one per column
 *   topo.<row>.cpu_affinity=0-11,24-35  the other columns of the row (CPU
 *                                       Affinity, NUMA Affinity, GPU NUMA
 *                                       ID), named in lower case; N/A left out
 *   topo.<nic>.name=mlx5_0              the NIC Legend of newer drivers
 *   ib_devices=<n>                      the devices of /sys/class/infiniband
 *   ib.<dev>.hca_type  ib.<dev>.fw_ver
 *   ib.<dev>.<port>.link_layer  .rate  .state  .phys_state
 *
 * Values are the source's own text. A row that cannot be read cell for
 * cell (fewer cells than columns, a label that cannot be part of an item's
 * name) is left out; its other columns are left out when their count is not
 * the header's. Nothing is guessed.
 */
#include "launch.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_MAX  256 /* cells of a line and rows, at most (a larger matrix is none) */
#define LABEL_MAX 32  /* bytes of a row's label, a column's name or a directory's */

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

/* Whether s can be a part of an item's name. */
static int name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= LABEL_MAX && s[strspn(s, NAME_CHARS)] == '\0';
}

/* ESC [ … <letter> (nvidia-smi underlines its header so) removed, in place. */
static void strip_escapes(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (r[0] == '\x1b' && r[1] == '[') {
			r += 2;
			while (*r && !isalpha((unsigned char)*r))
				r++;
			if (!*r)
				break;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
}

/* The cells of a line, in place: the text between tabs or runs of two
 * blanks or more (nvidia-smi's columns are tab-separated, a copy from a
 * terminal's are blank-separated), trimmed; empty cells skipped (nvidia-smi
 * pads some columns with a second tab). Returns their count, or -1 when
 * there are more than max. */
static int cells(char *line, char **cell, int max)
{
	int n = 0;

	for (char *p = line;;) {
		while (*p == '\t' || *p == ' ')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return -1;
		cell[n++] = p;
		while (*p && *p != '\t' && !(*p == ' ' && (p[1] == ' ' || p[1] == '\t' || !p[1])))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* The next line of *p, its newline replaced by NUL; NULL at the end. */
static char *next_line(char **p)
{
	char *line = *p;
	size_t len = strcspn(line, "\n");

	if (!*line)
		return NULL;
	*p = line + len + (line[len] == '\n');
	line[len] = '\0';
	return line;
}

/* The n strings of v joined by ',' in *buf (grown); its length. */
static size_t join(char *const *v, int n, char **buf, size_t *cap)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		size_t k = strlen(v[i]);
		*buf = xgrow(*buf, cap, len + k + 2, 1);
		if (i)
			(*buf)[len++] = ',';
		memcpy(*buf + len, v[i], k);
		len += k;
	}
	*buf = xgrow(*buf, cap, len + 1, 1);
	(*buf)[len] = '\0';
	return len;
}

/* A column's name as a part of an item's name: "CPU Affinity" →
 * "cpu_affinity"; 0 when it cannot be one. */
static int attr_name(const char *col, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = col; *p; p++) {
		if (n + 1 >= size)
			return 0;
		out[n++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
	}
	out[n] = '\0';
	return name_ok(out);
}

/* The rows of the matrix: their cells (label first) in one array. */
struct matrix {
	char *head[TOPO_MAX]; /* the header's column names */
	int nhead;
	char **cell;
	size_t ncell, cap;
	size_t first[TOPO_MAX];
	int n[TOPO_MAX]; /* cells of row r, its label included */
	int nrow;
};

/* Whether name labels a row. */
static int is_row(const struct matrix *t, const char *name)
{
	for (int r = 0; r < t->nrow; r++)
		if (!strcmp(t->cell[t->first[r]], name))
			return 1;
	return 0;
}

/* The matrix's items: the columns that are also rows (GPUs and NICs), in
 * order, then each row, then its other columns. */
static void matrix_items(struct out *o, const struct matrix *t)
{
	char name[2 * LABEL_MAX + 16], attr[LABEL_MAX + 1], *v = NULL;
	size_t cap = 0, len;
	int m = 0;

	while (m < t->nhead && is_row(t, t->head[m]))
		m++;
	if (m == 0)
		return;
	len = join(t->head, m, &v, &cap);
	item(o, "topo.columns", v, len);
	for (int r = 0; r < t->nrow; r++) {
		char *const *c = t->cell + t->first[r];
		if (!name_ok(c[0]) || t->n[r] - 1 < m)
			continue;
		snprintf(name, sizeof name, "topo.%s", c[0]);
		len = join(c + 1, m, &v, &cap);
		item(o, name, v, len);
		if (t->n[r] - 1 != t->nhead)
			continue;
		for (int k = m; k < t->nhead; k++)
			if (strcmp(c[1 + k], "N/A") != 0 &&
			    attr_name(t->head[k], attr, sizeof attr)) {
				snprintf(name, sizeof name, "topo.%s.%s", c[0], attr);
				items(o, name, c[1 + k]);
			}
	}
	free(v);
}

/* "  NIC0: mlx5_0" lines after "NIC Legend:", from *p on. */
static void legend_items(struct out *o, char **p)
{
	char name[LABEL_MAX + 16], *line;
	int in = 0;

	while ((line = next_line(p)) != NULL) {
		line += strspn(line, " \t");
		if (!in) {
			in = strncmp(line, "NIC Legend:", 11) == 0;
			continue;
		}
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (name_ok(line)) {
			snprintf(name, sizeof name, "topo.%s.name", line);
			items(o, name, colon + 1);
		}
	}
}

void env_topology(struct out *o)
{
	static char buf[OUT_MAX];
	char *const av[] = {"nvidia-smi", "topo", "-m", NULL};
	struct matrix t = {.nhead = -1};
	char *p = buf, *line, *c[TOPO_MAX + 1];

	if (run_capture(av, buf, sizeof buf, 0) <= 0)
		return;
	while ((line = next_line(&p)) != NULL) {
		strip_escapes(line);
		if (t.nhead <= 0) { /* the header: the first line with cells */
			if ((t.nhead = cells(line, t.head, TOPO_MAX)) < 0)
				return;
			continue;
		}
		int n = cells(line, c, TOPO_MAX + 1);
		if (n == 0 || !strncmp(c[0], "Legend", 6))
			break;
		if (n < 0 || t.nrow == TOPO_MAX) {
			free(t.cell);
			return;
		}
		t.cell = xgrow(t.cell, &t.cap, t.ncell + (size_t)n, sizeof *t.cell);
		memcpy(t.cell + t.ncell, c, (size_t)n * sizeof *c);
		t.first[t.nrow] = t.ncell;
		t.n[t.nrow++] = n;
		t.ncell += (size_t)n;
	}
	if (t.nrow)
		matrix_items(o, &t);
	legend_items(o, &p);
	free(t.cell);
}

/* ---- /sys/class/infiniband --------------------------------------------- */

/* Natural order, "mlx5_2" before "mlx5_10"; then bytes. */
static int natcmp(const void *a, const void *b)
{
	const char *x0 = *(char *const *)a, *y0 = *(char *const *)b, *x = x0, *y = y0;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			x += strspn(x, "0");
			y += strspn(y, "0");
			size_t nx = strspn(x, "0123456789"), ny = strspn(y, "0123456789");
			int c = nx != ny ? (nx < ny ? -1 : 1) : strncmp(x, y, nx);
			if (c)
				return c;
			x += nx;
			y += ny;
		} else if (*x != *y) {
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		} else {
			x++;
			y++;
		}
	}
	return *x ? 1 : *y ? -1 : strcmp(x0, y0);
}

/* The entries of directory path whose names can be a part of an item's
 * name, in natural order (*out and each malloc'd); their count, or -1 when
 * path cannot be read. */
static long entries(const char *path, char ***out)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && name_ok(e->d_name)) {
			*out = xgrow(*out, &cap, n + 1, sizeof **out);
			(*out)[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (n)
		qsort(*out, n, sizeof **out, natcmp);
	return (long)n;
}

static void free_entries(char **v, long n)
{
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A sysfs file of one line as the item name. */
static void sys_item(struct out *o, const char *name, const char *path)
{
	char buf[256];

	if (slurp(path, buf, sizeof buf) > 0)
		item(o, name, buf, strcspn(buf, "\n"));
}

void env_infiniband(struct out *o)
{
	static const char *const dev_files[] = {"hca_type", "fw_ver"};
	static const char *const port_files[] = {"link_layer", "rate", "state", "phys_state"};
	char root[PATH_MAX], path[PATH_MAX + 3 * LABEL_MAX], name[3 * LABEL_MAX + 16], num[32];
	char **devs, **ports;
	long ndev = entries(sys_path(root, sizeof root, "/sys/class/infiniband"), &devs);

	if (ndev < 0)
		return;
	snprintf(num, sizeof num, "%ld", ndev);
	items(o, "ib_devices", num);
	for (long i = 0; i < ndev; i++) {
		for (size_t f = 0; f < sizeof dev_files / sizeof *dev_files; f++) {
			snprintf(path, sizeof path, "%s/%s/%s", root, devs[i], dev_files[f]);
			snprintf(name, sizeof name, "ib.%s.%s", devs[i], dev_files[f]);
			sys_item(o, name, path);
		}
		snprintf(path, sizeof path, "%s/%s/ports", root, devs[i]);
		long np = entries(path, &ports);
		for (long k = 0; k < np; k++)
			for (size_t f = 0; f < sizeof port_files / sizeof *port_files; f++) {
				snprintf(path, sizeof path, "%s/%s/ports/%s/%s", root, devs[i],
					 ports[k], port_files[f]);
				snprintf(name, sizeof name, "ib.%s.%s.%s", devs[i], ports[k],
					 port_files[f]);
				sys_item(o, name, path);
			}
		free_entries(ports, np);
	}
	free_entries(devs, ndev);
}
