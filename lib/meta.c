/*
 * meta.c — meta lines, the lines of a log or a record stream that start
 * with '#' (doc/formats.md, doc/cluster.md): their one grammar, read and
 * written here only.
 *
 *   # mode=dlperf                                   grep-iters -c dlperf
 *   # env node=<i> <name>=<value>                   launch, in a log
 *   # mem node=<i> [rank=<r> host=<h> | gpu=<k>] rss_peak_mib=<n> | gpu_peak_mib=<n>
 *   # env framework=<fw> key=<key> run=<r> node=<i> <name>=<value>
 *   # mem framework=<fw> key=<key> run=<r> node=<i> ...
 *                                                   grep-iters passes them on so
 *   # outcome framework=<fw> key=<key> run=<r> status=oom|failed|timeout exit=<n>
 *             [reason=<text>]                      outcome, for a run without a log
 *   # energy node=<i> device=<d> how=<h> t=<s> j=<J> | reason=<text>
 *                                                   launch, in a log: a counter's sample
 *   # energy framework=<fw> key=<key> run=<r> node=<i> ...
 *                                                   grep-iters passes them on
 *   # energy framework=<fw> key=<key> run=<r> joules=<J> samples=<n> how=<h>
 *             | reason=<text>                      window: the run's timed window
 *
 * After the '#', words separated by blanks (spaces or tabs, however many).
 * The first word of an env or mem line is its kind; every other word is
 * name=value: a name of [A-Za-z0-9_.-], a value that is not empty, with
 * '%', '=', blanks, control bytes and DEL written as %XX (meta_encode);
 * reading, %XX (either case) is the byte and any other '%', or %00, is an
 * error. Env and mem lines are data: any other shape is an error naming
 * file and line. Other meta lines are free text that the filters pass on;
 * of them only a mode= word is read (meta_mode).
 *
 * Reads a line; writes a struct metaline, or a line or value encoded.
 * No state outside the caller's struct metaline.
 */
#include "lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
#define BLANKS     " \t"

/* The words a line of META_RUN form holds at most: the kind, framework,
 * key, run, node and the items. */
#define MAX_WORDS (5 + META_ITEMS)

static const char *const kinds[] = {NULL, "env", "mem", "outcome", "energy"};

const char *const outcome_names[OUTCOME_NSTATUS] = {"oom", "failed", "timeout"};
const char *const outcome_cells[OUTCOME_NSTATUS] = {"OOM", "failed", "timeout"};

/* The kind of the line whose text after '#' is p. */
static enum meta_kind kind_of(const char *p)
{
	p += strspn(p, BLANKS);
	size_t n = strcspn(p, BLANKS);

	for (int k = META_ENV; k <= META_ENERGY; k++)
		if (n == strlen(kinds[k]) && strncmp(p, kinds[k], n) == 0)
			return (enum meta_kind)k;
	return META_OTHER;
}

static int hex(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* The first '%' of s that does not start %XX of a byte other than 0, or
 * NULL when there is none. */
static const char *bad_escape(const char *s)
{
	for (; (s = strchr(s, '%')) != NULL; s += 3) {
		int hi = hex(s[1]), lo = hi >= 0 ? hex(s[2]) : -1;
		if (lo < 0 || hi * 16 + lo == 0)
			return s;
	}
	return NULL;
}

/* %XX → the byte, in place (bad_escape found none). */
static void decode(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++)
		if (*r == '%') {
			*w++ = (char)(hex(r[1]) * 16 + hex(r[2]));
			r += 2;
		} else {
			*w++ = *r;
		}
	*w = '\0';
}

/* One word as name=value, split at its '=' and its value decoded. */
static void word_item(const struct input *in, const char *what, char *word, struct metaitem *it)
{
	size_t nl = strspn(word, NAME_CHARS);
	const char *bad;

	if (nl == 0 || word[nl] != '=' || word[nl + 1] == '\0')
		record_die(in, "%s line: '%s' is not name=value", what, word);
	if ((bad = bad_escape(word + nl + 1)) != NULL)
		record_die(in, "%s line: '%s': '%.3s' is not %%XX (XX two hex digits, not 00)",
			   what, word, bad);
	word[nl] = '\0';
	it->name = word;
	it->value = word + nl + 1;
	decode(it->value);
}

static long whole(const struct input *in, const char *what, const char *name, const char *value)
{
	long v;

	if (parse_long(value, 0, 1L << 50, &v) != 0)
		record_die(in, "%s line: %s '%s' is not a whole number", what, name, value);
	return v;
}

/* Word i, which must be name=<...>: its value. */
static char *named(const struct input *in, const char *what, char **w, int nw, int i,
		   const char *name, const char *shape)
{
	struct metaitem it;

	if (i >= nw)
		record_die(in, "%s line: %s=%s expected, not the end of the line", what, name,
			   shape);
	size_t n = strlen(name);
	if (strncmp(w[i], name, n) != 0 || w[i][n] != '=')
		record_die(in, "%s line: %s=%s expected, not '%s'", what, name, shape, w[i]);
	word_item(in, what, w[i], &it);
	return it.value;
}

/* A mem line's items: rank=, gpu= and *_mib= whole numbers, the last one
 * the peak. */
static void mem_items(const struct input *in, struct metaline *m)
{
	for (int i = 0; i < m->n; i++) {
		const struct metaitem *it = &m->item[i];
		size_t nl = strlen(it->name);
		if (!strcmp(it->name, "rank") || !strcmp(it->name, "gpu") ||
		    (nl > 4 && !strcmp(it->name + nl - 4, "_mib")))
			whole(in, "mem", it->name, it->value);
	}
	const struct metaitem *last = &m->item[m->n - 1];
	m->peak_gpu = !strcmp(last->name, "gpu_peak_mib");
	if (!m->peak_gpu && strcmp(last->name, "rss_peak_mib") != 0)
		record_die(in, "mem line: the last item, '%s', is not rss_peak_mib or gpu_peak_mib",
			   last->name);
	m->peak_mib = whole(in, "mem", last->name, last->value);
}

/* An outcome line's items after run=: status=, exit= and reason= in that
 * order, the last optional. */
static void outcome_items(const struct input *in, struct metaline *m, char **w)
{
	static const char *const names[] = {"status", "exit", "reason"};
	int st = -1;

	if (m->n < 2 || m->n > 3)
		record_die(in, "outcome line: %d item%s after run=, expected 2 or 3", m->n,
			   m->n == 1 ? "" : "s");
	if (key_parse(m->key, &m->runkey) != 0)
		record_die(in, "outcome line: key '%s' is not <N>n<G>g_b<B>_<prec>", m->key);
	for (int k = 0; k < m->n; k++) {
		size_t nl = strlen(names[k]);
		if (strncmp(w[k], names[k], nl) != 0 || w[k][nl] != '=')
			record_die(in, "outcome line: '%s' where %s= was expected", w[k], names[k]);
		word_item(in, "outcome", w[k], &m->item[k]);
	}
	for (int k = 0; k < OUTCOME_NSTATUS; k++)
		if (strcmp(m->item[0].value, outcome_names[k]) == 0)
			st = k;
	if (st < 0)
		record_die(in, "outcome line: status '%s' is not oom, failed or timeout",
			   m->item[0].value);
	m->status = (enum outcome_status)st;
	if (parse_long(m->item[1].value, 1, 255, &m->exit) != 0)
		record_die(in, "outcome line: exit '%s' is not a status 1..255", m->item[1].value);
	m->reason = m->n == 3 ? m->item[2].value : NULL;
}

/* A value that must be a number >= 0. */
static double nonneg(const struct input *in, const char *name, const char *value)
{
	double v;

	if (parse_double(value, &v) != 0 || !(v >= 0))
		record_die(in, "energy line: %s '%s' is not a number >= 0", name, value);
	return v;
}

/* An energy line's words w[0..nw) after run= (META_RUN) or the kind: node=
 * (required in a log), then one of the shapes (lib.h), items in order. */
static void energy_items(const struct input *in, struct metaline *m, char **w, int nw,
			 enum meta_form form)
{
	static const char *const sample[] = {"device", "how", "t", "j"};
	static const char *const window[] = {"joules", "samples", "how"};
	int i = 0;

	if (form == META_LOG || (nw > 0 && strncmp(w[0], "node=", 5) == 0))
		m->node = whole(in, "energy", "node",
				named(in, "energy", w, nw, i++, "node", "<number>"));
	m->n = nw - i;
	if (m->n == 1 && strncmp(w[i], "reason=", 7) == 0) {
		word_item(in, "energy", w[i], &m->item[0]);
		m->reason = m->item[0].value;
		m->shape = m->node >= 0 ? ENERGY_NODE_NONE : ENERGY_RUN_NONE;
		return;
	}
	const char *const *names = m->node >= 0 ? sample : window;
	int want = m->node >= 0 ? 4 : 3;
	if (m->n != want)
		record_die(in, "energy line: %d item%s after %s, expected %s or reason=", m->n,
			   m->n == 1 ? "" : "s", m->node >= 0 ? "node=" : "run=",
			   m->node >= 0 ? "device= how= t= j=" : "joules= samples= how=");
	for (int k = 0; k < want; k++) {
		size_t nl = strlen(names[k]);
		if (strncmp(w[i + k], names[k], nl) != 0 || w[i + k][nl] != '=')
			record_die(in, "energy line: %s= expected, not '%s'", names[k], w[i + k]);
		word_item(in, "energy", w[i + k], &m->item[k]);
	}
	if (m->node >= 0) {
		m->shape = ENERGY_SAMPLE;
		m->device = m->item[0].value;
		m->how = m->item[1].value;
		m->t = nonneg(in, "t", m->item[2].value);
		m->j = nonneg(in, "j", m->item[3].value);
	} else {
		m->shape = ENERGY_WINDOW;
		m->joules = nonneg(in, "joules", m->item[0].value);
		if (parse_long(m->item[1].value, 1, 1L << 60, &m->samples) != 0)
			record_die(in, "energy line: samples '%s' is not a whole number > 0",
				   m->item[1].value);
		m->how = m->item[2].value;
	}
}

enum meta_kind metaline_parse(const struct input *in, const char *line, enum meta_form form,
			      struct metaline *m)
{
	char *w[MAX_WORDS];
	int nw = 0, i = 1;

	m->kind = kind_of(line + 1);
	m->framework = m->key = NULL;
	m->run = m->node = -1;
	m->n = 0;
	m->reason = NULL;
	if (m->kind == META_OUTCOME && form != META_RUN)
		m->kind = META_OTHER;
	if (m->kind == META_OTHER)
		return META_OTHER;
	const char *what = kinds[m->kind];
	size_t len = strlen(line + 1);
	m->buf = xgrow(m->buf, &m->cap, len + 1, 1);
	memcpy(m->buf, line + 1, len + 1);
	for (char *s = m->buf + strspn(m->buf, BLANKS); *s; s += strspn(s, BLANKS), nw++) {
		if (nw < MAX_WORDS)
			w[nw] = s;
		s += strcspn(s, BLANKS);
		if (*s)
			*s++ = '\0';
	}
	if (form == META_RUN) {
		m->framework = named(in, what, w, nw, i++, "framework", "<framework>");
		m->key = named(in, what, w, nw, i++, "key", "<key>");
		m->run = whole(in, what, "run", named(in, what, w, nw, i++, "run", "<number>"));
	}
	if (m->kind == META_OUTCOME) {
		m->n = nw - i;
		outcome_items(in, m, w + i);
		return META_OUTCOME;
	}
	if (m->kind == META_ENERGY) {
		energy_items(in, m, w + i, nw - i, form);
		return META_ENERGY;
	}
	m->node = whole(in, what, "node", named(in, what, w, nw, i++, "node", "<number>"));
	m->n = nw - i;
	if (m->kind == META_ENV ? m->n != 1 : m->n < 1 || m->n > 3)
		record_die(in, "%s line: %d item%s after node=, expected %s", what, m->n,
			   m->n == 1 ? "" : "s", m->kind == META_ENV ? "1" : "1 to 3");
	for (int k = 0; k < m->n; k++)
		word_item(in, what, w[i + k], &m->item[k]);
	if (m->kind == META_MEM)
		mem_items(in, m);
	return m->kind;
}

void metaline_free(struct metaline *m)
{
	free(m->buf);
	m->buf = NULL;
	m->cap = 0;
}

size_t meta_encode(char *dst, const char *s, size_t n)
{
	static const char digits[] = "0123456789ABCDEF";
	char *o = dst;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == 0x7f || c == '%' || c == '=') {
			*o++ = '%';
			*o++ = digits[c >> 4];
			*o++ = digits[c & 15];
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return (size_t)(o - dst);
}

/* " name=" and value encoded after the len bytes of *buf; the new length. */
static size_t put_item(char **buf, size_t *cap, size_t len, const char *name, const char *value)
{
	size_t nn = strlen(name), nv = strlen(value);

	*buf = xgrow(*buf, cap, len + nn + 2 + META_ENCODED(nv), 1);
	(*buf)[len++] = ' ';
	memcpy(*buf + len, name, nn);
	len += nn;
	(*buf)[len++] = '=';
	return len + meta_encode(*buf + len, value, nv);
}

static size_t put_number(char **buf, size_t *cap, size_t len, const char *name, long v)
{
	char num[24];

	snprintf(num, sizeof num, "%ld", v);
	return put_item(buf, cap, len, name, num);
}

size_t metaline_format(const struct metaline *m, char **buf, size_t *cap)
{
	size_t len = 2 + strlen(kinds[m->kind]); /* "# env", "# mem", "# outcome", "# energy" */

	*buf = xgrow(*buf, cap, len + 1, 1);
	memcpy(*buf, "# ", 2);
	memcpy(*buf + 2, kinds[m->kind], len - 1);
	if (m->framework) {
		len = put_item(buf, cap, len, "framework", m->framework);
		len = put_item(buf, cap, len, "key", m->key);
		len = put_number(buf, cap, len, "run", m->run);
	}
	if (m->kind != META_OUTCOME && (m->kind != META_ENERGY || m->node >= 0))
		len = put_number(buf, cap, len, "node", m->node);
	for (int i = 0; i < m->n; i++)
		len = put_item(buf, cap, len, m->item[i].name, m->item[i].value);
	return len;
}

int meta_mode(const struct input *in, int records_before)
{
	int mode = 0;

	if (kind_of(in->line + 1) != META_OTHER)
		return 0;
	for (const char *p = in->line + 1; *p;) {
		p += strspn(p, BLANKS);
		size_t n = strcspn(p, BLANKS);

		if (n >= 5 && strncmp(p, "mode=", 5) == 0) {
			if (n != 11 || strncmp(p + 5, "dlperf", 6) != 0)
				record_die(in, "mode '%.*s' is not dlperf", (int)n - 5, p + 5);
			if (records_before)
				record_die(in, "mode line after the first record");
			mode = 1;
		}
		p += n;
	}
	return mode;
}
