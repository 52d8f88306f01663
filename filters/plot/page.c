/*
 * page.c — plot -s page: one self-contained HTML page of a result (no
 * script, no file or address outside it): the table (table's markdown,
 * -t, as HTML), the plot (gnuplot's SVG, -g, inline), the noise marks of
 * each configuration and its runs that failed, the interconnect (the
 * nodes' topology and InfiniBand ports, NCCL's transports), the
 * environment the runs recorded, and how the figures were computed (the
 * table's J/sample and MFU % columns, when it has them, among them).
 */
#include "plot.h"

#include "../formats/formats.h"

#include <stdlib.h>
#include <string.h>

/* Above this, a configuration is marked noisy: the 95 % CI's half-width
 * as a % of the mean (without CIs, the spread max - min as a % of the
 * median, as table's spread). */
#define NOISY_PCT 5.0

/* Text as HTML; a control byte (a decoded environment value may hold one,
 * HTML text may not) as a blank, as table's footer and plot's title show it. */
static void put_html(const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", stdout);
			break;
		case '<':
			fputs("&lt;", stdout);
			break;
		case '>':
			fputs("&gt;", stdout);
			break;
		case '"':
			fputs("&quot;", stdout);
			break;
		default:
			putchar((unsigned char)s[i] < ' ' || s[i] == 0x7f ? ' ' : s[i]);
		}
	}
}

static void esc(const char *s)
{
	put_html(s, strlen(s));
}

/* A line of table's markdown: escaped, **bold** as <strong>. */
static void md_text(const char *s)
{
	int bold = 0;

	for (const char *p; (p = strstr(s, "**")); s = p + 2) {
		if (!bold && !strstr(p + 2, "**"))
			break;
		put_html(s, (size_t)(p - s));
		fputs(bold ? "</strong>" : "<strong>", stdout);
		bold = !bold;
	}
	esc(s);
}

/* One markdown table row "| a | b |" as <tr> of cells of tag. */
static void md_row(const char *line, const char *tag)
{
	const char *p = line + 1;

	fputs("<tr>", stdout);
	while (*p) {
		const char *end = strchr(p, '|');
		if (!end)
			break;
		const char *a = p, *b = end;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		printf("<%s>", tag);
		put_html(a, (size_t)(b - a));
		printf("</%s>", tag);
		p = end + 1;
	}
	fputs("</tr>\n", stdout);
}

/* The columns of table's a page explains when they are there. */
enum { COL_ENERGY = 1, COL_MFU = 2 };

/* Which of them header row line holds. */
static int columns_of(const char *line)
{
	return (strstr(line, " J/sample |") ? COL_ENERGY : 0) |
	       (strstr(line, " MFU % |") ? COL_MFU : 0);
}

/* table's markdown: "## " headings, "|" tables (a header row, then the
 * "| --- |" row, then the body), other lines as paragraphs. Returns the
 * columns (COL_*) its tables' header rows hold. */
static int markdown(const char *path)
{
	int cols = 0;
	struct input in;
	int rows = -1; /* -1: not in a table; else rows of it so far */
	int list = 0;  /* in a "- " list */

	input_open(&in, path);
	while (input_line(&in)) {
		const char *l = in.line;
		if (l[0] == '|') {
			if (rows < 0)
				fputs("<table>\n", stdout);
			rows++;
			if (rows == 1 && strstr(l, "---"))
				continue;
			if (rows == 0)
				cols |= columns_of(l);
			md_row(l, rows == 0 ? "th" : "td");
			continue;
		}
		if (rows >= 0)
			fputs("</table>\n", stdout);
		rows = -1;
		if (strncmp(l, "- ", 2) != 0 && list) {
			fputs("</ul>\n", stdout);
			list = 0;
		}
		if (strncmp(l, "- ", 2) == 0) {
			fputs(list ? "<li>" : "<ul>\n<li>", stdout);
			list = 1;
			md_text(l + 2);
			fputs("</li>\n", stdout);
		} else if (strncmp(l, "## ", 3) == 0) {
			fputs("<h3>", stdout);
			esc(l + 3);
			fputs("</h3>\n", stdout);
		} else if (l[0]) {
			fputs("<p>", stdout);
			md_text(l);
			fputs("</p>\n", stdout);
		}
	}
	if (rows >= 0)
		fputs("</table>\n", stdout);
	if (list)
		fputs("</ul>\n", stdout);
	if (in.lineno == 0)
		die("%s: empty table", path);
	input_close(&in);
	return cols;
}

/* gnuplot's SVG from its <svg element on (the XML declaration and doctype
 * do not belong inside HTML). */
static void svg_inline(const char *path)
{
	struct input in;
	int in_svg = 0;

	input_open(&in, path);
	while (input_line(&in)) {
		char *s = in_svg ? in.line : strstr(in.line, "<svg");
		if (!s)
			continue;
		in_svg = 1;
		if (strstr(s, "<script") || strstr(s, "<foreignObject"))
			record_die(&in, "a script or foreign object in the SVG (gnuplot's mouse "
					"option?): the page holds none");
		printf("%s\n", s);
	}
	input_close(&in);
	if (!in_svg)
		die("%s: no <svg element (not gnuplot's SVG)", path);
}

static void noise(const struct plotdata *d)
{
	printf("<table>\n<tr><th>framework</th><th>configuration</th><th>runs</th>"
	       "<th>min .. max</th>%s<th>mark</th></tr>\n",
	       d->stats ? "<th>95 % CI of the mean</th><th>CV</th><th>outlier runs</th>" : "");
	for (size_t s = 0; s < d->nseries; s++)
		for (size_t i = 0; i < d->series[s].npts; i++) {
			const struct point *p = &d->series[s].pts[i];
			double width = d->stats && p->ci_lo >= 0 ? (p->ci_hi - p->ci_lo) / 2
								 : p->max - p->min;
			double pct = width / (d->stats ? p->mean : p->median) * 100;
			printf("<tr><td>");
			esc(framework_display(d->series[s].framework));
			if (p->all_failed) {
				printf("</td><td>%ldn%ldg</td><td>0</td><td>-</td>%s"
				       "<td class=\"bad\">%s: every run failed (%s)</td></tr>\n",
				       p->nodes, p->gpus,
				       d->stats ? "<td>-</td><td>-</td><td>-</td>" : "",
				       outcome_cells[p->status], p->failed);
				continue;
			}
			printf("</td><td>%ldn%ldg</td><td>%ld</td><td>%.2f .. %.2f</td>", p->nodes,
			       p->gpus, p->n, p->min, p->max);
			if (d->stats) {
				if (p->ci_lo >= 0)
					printf("<td>%.2f .. %.2f</td>", p->ci_lo, p->ci_hi);
				else
					printf("<td>-</td>");
				if (p->cv >= 0)
					printf("<td>%.2f %%</td>", p->cv);
				else
					printf("<td>-</td>");
				printf("<td>%s</td>", p->outliers[0] ? p->outliers : "-");
			}
			printf("<td class=\"%s\">",
			       pct > NOISY_PCT || p->outliers[0] || p->failed[0] ? "bad" : "ok");
			if (d->stats && p->ci_lo < 0)
				printf("too few runs for an interval");
			else if (pct > NOISY_PCT)
				printf("noisy: %s %.1f %% of the %s", d->stats ? "±" : "spread",
				       pct, d->stats ? "mean" : "median");
			else
				printf("%s %.1f %%", d->stats ? "±" : "spread", pct);
			if (p->outliers[0])
				printf("; outliers");
			if (p->failed[0])
				printf("; failed: %s", p->failed);
			printf("</td></tr>\n");
		}
	printf("</table>\n<p>A configuration is marked noisy when %s exceeds %.0f %% of its "
	       "%s%s. Runs that failed (ran out of memory, failed, timed out) left no log: "
	       "the others are measured, and a configuration whose runs all failed has no "
	       "figure.</p>\n",
	       d->stats ? "the half-width of the 95 % confidence interval of its mean"
			: "the spread of its runs (max - min)",
	       NOISY_PCT, d->stats ? "mean" : "median",
	       d->stats ? ", or has outlier runs (median flags them)" : "");
}

/* Items whose value may differ between runs and nodes without a cause. */
static int varies(const char *name)
{
	return strncmp(name, "load", 4) == 0 || strcmp(name, "hostname") == 0 ||
	       strstr(name, "bus_id") != NULL;
}

/* An item that differs by nature (load, host names): one row, its range
 * when every value is a number, else the values. */
static void varied_row(const struct plotdata *d, size_t first, size_t n)
{
	double lo = 0, hi = 0, v;
	long lines = 0;
	int numbers = 1;

	for (size_t j = first; j < first + n; j++) {
		lines += d->env[j].count;
		if (parse_double(d->env[j].value, &v) != 0) {
			numbers = 0;
			continue;
		}
		if (j == first || v < lo)
			lo = v;
		if (j == first || v > hi)
			hi = v;
	}
	printf("<tr><td>");
	esc(d->env[first].name);
	printf("</td><td>");
	if (numbers)
		printf("%g .. %g", lo, hi);
	for (size_t j = first; !numbers && j < first + n; j++) {
		printf("%s", j > first ? ", " : "");
		esc(d->env[j].value);
	}
	printf("</td><td>%ld</td><td></td></tr>\n", lines);
}

static void environment(const struct plotdata *d)
{
	if (d->nenv == 0) {
		printf("<p>No environment lines in the logs: the machine was not recorded.</p>\n");
		return;
	}
	printf("<table>\n<tr><th>item</th><th>value</th><th>lines</th><th></th></tr>\n");
	for (size_t i = 0; i < d->nenv;) {
		size_t first = i, n = env_find(d, d->env[i].name, &first);
		if (n > 1 && varies(d->env[i].name)) {
			varied_row(d, first, n);
			i = first + n;
			continue;
		}
		for (size_t j = first; j < first + n; j++) {
			printf("<tr><td>");
			esc(d->env[j].name);
			printf("</td><td>");
			esc(d->env[j].value);
			printf("</td><td>%ld</td><td%s>%s</td></tr>\n", d->env[j].count,
			       n > 1 ? " class=\"bad\"" : "", n > 1 ? "differs between runs" : "");
		}
		i = first + n;
	}
	printf("</table>\n<p>One row per value; lines counts the runs and nodes that "
	       "recorded it. Load, host names and bus ids differ between runs and nodes by "
	       "nature (one row: their range or values); any other item that differs is "
	       "marked.</p>\n");
}

/* ---- the interconnect: launch's topology and InfiniBand items, NCCL's --- */

/* The values of item name, " / " between them; their count. */
static size_t values_of(const struct plotdata *d, const char *name)
{
	size_t first = 0, n = env_find(d, name, &first);

	for (size_t j = first; j < first + n; j++) {
		fputs(j > first ? " / " : "", stdout);
		esc(d->env[j].value);
	}
	return n;
}

/* A cell of the values of item name ("bad" when they differ), "-" for none. */
static void values_cell(const struct plotdata *d, const char *name)
{
	size_t first = 0, n = env_find(d, name, &first);

	printf("<td%s>", n > 1 ? " class=\"bad\"" : "");
	if (!values_of(d, name))
		putchar('-');
	printf("</td>");
}

/* nvidia-smi topo -m's matrix (launch's topo.* items) as a table: a row a
 * GPU or NIC, NVLink cells marked; 0 when no node recorded one. */
static int topology(const struct plotdata *d)
{
	size_t first = 0, n = env_find(d, "topo.columns", &first), nc = 1;
	char name[160];

	if (n == 0)
		return 0;
	if (n > 1) {
		printf("<p>The nodes' topologies differ (");
		values_of(d, "topo.columns");
		printf("): each node's rows are among the environment's items (topo.*).</p>\n");
		return 1;
	}
	char *cols = xstrdup(d->env[first].value);
	for (const char *p = cols; (p = strchr(p, ',')); p++)
		nc++;
	char **col = xmalloc(nc * sizeof *col);
	col[0] = cols;
	for (size_t k = 1; k < nc; k++) {
		col[k] = strchr(col[k - 1], ',') + 1;
		col[k][-1] = '\0';
	}
	printf("<table class=\"topo\">\n<tr><th></th>");
	for (size_t k = 0; k < nc; k++) {
		printf("<th>");
		esc(col[k]);
		printf("</th>");
	}
	printf("<th>CPU affinity</th><th>NUMA affinity</th></tr>\n");
	for (size_t k = 0; k < nc; k++) {
		size_t rf = 0, rn;
		printf("<tr><td>");
		esc(col[k]);
		snprintf(name, sizeof name, "topo.%s.name", col[k]);
		if (env_find(d, name, &rf)) { /* the NIC Legend's name */
			printf(" (");
			values_of(d, name);
			putchar(')');
		}
		printf("</td>");
		snprintf(name, sizeof name, "topo.%s", col[k]);
		if ((rn = env_find(d, name, &rf)) != 1) {
			printf("<td colspan=\"%zu\"%s>%s</td>", nc, rn ? " class=\"bad\"" : "",
			       rn ? "differs between nodes" : "-");
		} else {
			char *cells = xstrdup(d->env[rf].value);
			for (char *c = cells, *e; c; c = e) {
				if ((e = strchr(c, ',')))
					*e++ = '\0';
				printf("<td%s>", !strncmp(c, "NV", 2) ? " class=\"nv\"" : "");
				esc(c);
				printf("</td>");
			}
			free(cells);
		}
		snprintf(name, sizeof name, "topo.%s.cpu_affinity", col[k]);
		values_cell(d, name);
		snprintf(name, sizeof name, "topo.%s.numa_affinity", col[k]);
		values_cell(d, name);
		printf("</tr>\n");
	}
	printf("</table>\n<p>nvidia-smi's legend: X itself; NV# a bonded set of # NVLinks; PIX "
	       "at most one PCIe bridge; PXB several PCIe bridges; PHB a PCIe host bridge (the "
	       "CPU); NODE PCIe host bridges within a NUMA node; SYS across NUMA nodes (QPI/UPI)."
	       "</p>\n");
	free(col);
	free(cols);
	return 1;
}

/* The ports of /sys/class/infiniband (launch's ib.* items), a row each;
 * 0 when no node recorded the class. */
static int infiniband(const struct plotdata *d)
{
	static const char *const fields[] = {"link_layer", "rate", "state", "phys_state"};
	size_t first = 0, ndev = env_find(d, "ib_devices", &first);
	char port[128], name[160];
	int ports = 0;

	for (size_t i = 0; i < d->nenv; i++) {
		const char *s = d->env[i].name;
		size_t len = strlen(s);
		/* ib.<dev>.<port>.link_layer: a port, once however many values */
		if (strncmp(s, "ib.", 3) || len < 15 || strcmp(s + len - 11, ".link_layer") ||
		    (i && !strcmp(d->env[i - 1].name, s)) || len - 14 >= sizeof port)
			continue;
		memcpy(port, s + 3, len - 14);
		port[len - 14] = '\0';
		char *dot = strrchr(port, '.');
		if (!dot)
			continue;
		if (!ports++)
			printf("<table>\n<tr><th>port</th><th>link layer</th><th>rate</th><th>state</th>"
			       "<th>physical state</th><th>adapter</th><th>firmware</th></tr>\n");
		*dot = ':';
		printf("<tr><td>");
		esc(port);
		printf("</td>");
		*dot = '.';
		for (int f = 0; f < 4; f++) {
			snprintf(name, sizeof name, "ib.%s.%s", port, fields[f]);
			values_cell(d, name);
		}
		*dot = '\0';
		snprintf(name, sizeof name, "ib.%s.hca_type", port);
		values_cell(d, name);
		snprintf(name, sizeof name, "ib.%s.fw_ver", port);
		values_cell(d, name);
		printf("</tr>\n");
	}
	if (ports)
		printf("</table>\n");
	else if (ndev) {
		printf("<p>InfiniBand devices: ");
		values_of(d, "ib_devices");
		printf(", no port read (/sys/class/infiniband).</p>\n");
	}
	return ports || ndev;
}

/* What NCCL chose (grep-iters' nccl.* items): each value and the runs that
 * gave it; 0 when no run had NCCL's lines. */
static int nccl(const struct plotdata *d)
{
	static const char *const items[][2] = {{"nccl.version", "version"},
					       {"nccl.net", "network"},
					       {"nccl.net_devices", "devices"},
					       {"nccl.transports", "transports"},
					       {"libibverbs.warning", "libibverbs"}};
	int k = 0;

	for (size_t i = 0; i < sizeof items / sizeof *items; i++) {
		size_t first = 0, n = env_find(d, items[i][0], &first);
		for (size_t j = first; j < first + n; j++) {
			printf("%s<tr><td>%s</td><td>",
			       k++ ? ""
				   : "<table>\n<tr><th>NCCL</th><th>value"
				     "</th><th>runs</th></tr>\n",
			       items[i][1]);
			esc(d->env[j].value);
			printf("</td><td>%ld</td></tr>\n", d->env[j].count);
		}
	}
	if (k)
		printf("</table>\n<p>From NCCL's own lines in the logs (NCCL_DEBUG=INFO): the "
		       "network it used between nodes and the transport of each connection. Per "
		       "configuration: the table's nccl column, where † marks a configuration of more "
		       "than one node whose NCCL traffic went over TCP sockets (NET/Socket).</p>\n");
	return k;
}

static void interconnect(const struct plotdata *d)
{
	int any = topology(d);

	any |= infiniband(d);
	any |= nccl(d);
	if (!any)
		printf("<p>No interconnect recorded: no nvidia-smi topo -m, no "
		       "/sys/class/infiniband, no NCCL lines in the logs.</p>\n");
}

/* The table's energy and MFU columns, when it has them (cols). */
static void method_columns(int cols)
{
	if (cols & COL_ENERGY)
		printf("<p>J/sample: launch samples each node's energy counters while a run runs "
		       "(the GPUs' NVML energy counter, else nvidia-smi's power.draw integrated; "
		       "the CPUs' RAPL package and DRAM counters); each run's joules are the "
		       "counters' rise over its timed window (the same iterations as its samples/s), "
		       "summed over nodes and devices, divided by the samples the window trained; "
		       "the table gives the median over runs, and - where a node had no counter "
		       "(the footer says why). These are the devices' own counters, not a meter "
		       "at the wall.</p>\n");
	if (cols & COL_MFU)
		printf("<p>MFU %% (model FLOP utilisation) = samples/s × the FLOP of a training "
		       "sample (3 × its forward pass) ÷ (devices × a device's dense peak at the "
		       "run's precision); the footer gives each figure and its source.</p>\n");
}

static void method(const struct plotdata *d, int cols)
{
	method_columns(cols);
	if (d->dlperf) {
		printf("<p>DLPerf's own methods (<code>COMPAT=dlperf</code>, doc/dlperf.md): each "
		       "run's throughput by DLPerf's window and method for its log format, the "
		       "median and mean of the runs rounded as DLPerf rounds them, speedup = median "
		       "÷ the 1n1g median, efficiency = speedup ÷ devices.</p>\n");
		return;
	}
	printf("<p>Each run: samples/s = the samples of the timed iterations ÷ their elapsed "
	       "time, after the warm-up (the log format's window, doc/formats.md). Each "
	       "configuration: the median of its n runs (samples/s in the table and the plot), "
	       "their mean, min and max%s. Speedup = median ÷ the 1n1g median of the same "
	       "framework, batch and precision%s; efficiency = speedup ÷ devices; the ideal line "
	       "is the 1n1g median × devices.</p>\n",
	       d->stats ? "; the 95 % confidence interval of the mean (Student's t), the "
			  "coefficient of variation (sd ÷ mean) and the outlier runs"
			: "",
	       d->stats ? ", its error bar the two intervals propagated" : "");
	printf("<p>The plot is drawn by gnuplot from the script beside this page (.gp, its data "
	       "inline); error bars: %s.</p>\n",
	       d->stats ? "95 % CI of the mean" : "min .. max of the runs");
}

void page_write(const struct plotdata *d, const char *title, const char *table_md, const char *svg)
{
	printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	       "<title>dlbench: ");
	esc(title);
	printf("</title>\n<style>\n"
	       "body { font-family: sans-serif; margin: 1.5em auto; padding: 0 1em; max-width: 1400px; "
	       "color: #222; background: #fff; }\n"
	       "table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }\n"
	       "th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }\n"
	       "th { background: #eee; }\n"
	       "td:first-child, th:first-child { text-align: left; }\n"
	       ".bad { color: #a00; font-weight: bold; }\n"
	       "svg { max-width: 100%%; height: auto; }\n"
	       "#environment td { text-align: left; }\n"
	       "td.nv { background: #e6eefa; }\n"
	       "</style>\n</head>\n<body>\n<h1>");
	esc(title);
	printf("</h1>\n<section id=\"table\">\n<h2>Table</h2>\n");
	int cols = markdown(table_md);
	printf("</section>\n<section id=\"plot\">\n<h2>Plot</h2>\n");
	svg_inline(svg);
	printf("</section>\n<section id=\"noise\">\n<h2>Noise</h2>\n");
	noise(d);
	printf("</section>\n<section id=\"interconnect\">\n<h2>Interconnect</h2>\n");
	interconnect(d);
	printf("</section>\n<section id=\"environment\">\n<h2>Environment</h2>\n");
	environment(d);
	printf("</section>\n<section id=\"method\">\n<h2>How the figures were computed</h2>\n");
	method(d, cols);
	printf("</section>\n</body>\n</html>\n");
}
