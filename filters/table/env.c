/*
 * env.c — table's environment and memory: launch's "# env" and "# mem"
 * lines as grep-iters passes them on (doc/cluster.md):
 *
 *   # env framework=<fw> key=<key> run=<r> node=<i> <name>=<value>
 *   # mem framework=<fw> key=<key> run=<r> node=<i> [rank=.. host=..] rss_peak_mib=<n>
 *   # mem framework=<fw> key=<key> run=<r> node=<i> gpu=<k> gpu_peak_mib=<n>
 *
 * Reads those meta lines (others are not table's); writes the memory
 * column (MiB per device: the largest gpu_peak_mib of a configuration's
 * runs when it has any, else its largest rss_peak_mib over runs and ranks),
 * the markdown footer (the machine and the versions, and every
 * configuration whose runs ran in differing environments) and the JSON's
 * "memory_mib" and "environment". Values are shown %XX-decoded.
 */
#include "env.h"

#include <stdlib.h>
#include <string.h>

struct envitem {
	char *fw, *key, *name, *value; /* value decoded */
	long run, node;
};

struct mem {
	char *fw, *key;
	long rss, gpu; /* MiB; -1: none */
};

static struct envitem *items;
static size_t nitems, capitems;
static struct mem *mems;
static size_t nmems, capmems;

/* Names whose values change from run to run by nature: not compared. */
static const char *const volatile_names[] = {"hostname", "load1",     "load5",
					     "load15",   "git_dirty", NULL};

/* Set, not freed: what a previous run left is its caller's (the fuzz
 * harness frees every allocation of a run after it). */
void env_reset(void)
{
	items = NULL;
	mems = NULL;
	nitems = capitems = nmems = capmems = 0;
}

static int is_volatile(const char *name)
{
	for (const char *const *v = volatile_names; *v; v++)
		if (!strcmp(name, *v))
			return 1;
	/* gpu<k>.throttle_reasons: the state at the start, not a setting. */
	return !strncmp(name, "gpu", 3) && strstr(name, ".throttle_reasons");
}

/* %XX → the byte. */
static char *decode(const char *s)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;

	for (; *s; s++) {
		unsigned x;
		if (*s == '%' && sscanf(s + 1, "%2x", &x) == 1 && s[1] && s[2]) {
			*o++ = (char)x;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/* The value of "name=" among the line's first tokens; dies when absent. */
static char *field(struct input *in, char **tok, int ntok, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < ntok; i++)
		if (!strncmp(tok[i], name, n) && tok[i][n] == '=')
			return tok[i] + n + 1;
	record_die(in, "%s line without %s=", tok[0], name);
}

static long number(struct input *in, const char *s, const char *what)
{
	long v;

	if (parse_long(s, 0, 1L << 50, &v) != 0)
		record_die(in, "%s '%s' is not a whole number", what, s);
	return v;
}

int env_read(struct input *in)
{
	const char *line = in->line;
	char *copy, *tok[9] = {NULL};
	int ntok = 0;

	if (strncmp(line, "# env ", 6) && strncmp(line, "# mem ", 6))
		return 0;
	copy = xstrdup(line + 2);
	for (char *save, *t = strtok_r(copy, " ", &save); t && ntok < 9;
	     t = strtok_r(NULL, " ", &save))
		tok[ntok++] = t;
	int env = !strcmp(tok[0], "env");
	if (env ? ntok != 6 : ntok < 6 || ntok > 8 || !strchr(tok[ntok - 1], '='))
		record_die(in, "%s line: %d items", tok[0], ntok - 1);
	char *fw = field(in, tok, 4, "framework"), *key = field(in, tok, 4, "key");
	long run = number(in, field(in, tok, 4, "run"), "run");
	long node = number(in, field(in, tok, 5, "node"), "node");
	if (env) {
		char *eq = strchr(tok[5], '=');
		if (!eq || eq == tok[5])
			record_die(in, "env line: '%s' is not name=value", tok[5]);
		*eq = '\0';
		items = xgrow(items, &capitems, nitems + 1, sizeof *items);
		items[nitems++] = (struct envitem){xstrdup(fw),    xstrdup(key), xstrdup(tok[5]),
						   decode(eq + 1), run,          node};
	} else {
		char *last = tok[ntok - 1], *eq = strchr(last, '=');
		long v = number(in, eq + 1, "memory");
		*eq = '\0';
		int gpu = !strcmp(last, "gpu_peak_mib");
		if (!gpu && strcmp(last, "rss_peak_mib") != 0)
			record_die(in, "mem line: '%s' is not rss_peak_mib or gpu_peak_mib", last);
		size_t i = 0;
		while (i < nmems && (strcmp(mems[i].fw, fw) || strcmp(mems[i].key, key)))
			i++;
		if (i == nmems) {
			mems = xgrow(mems, &capmems, nmems + 1, sizeof *mems);
			mems[nmems++] = (struct mem){xstrdup(fw), xstrdup(key), -1, -1};
		}
		long *slot = gpu ? &mems[i].gpu : &mems[i].rss;
		if (v > *slot)
			*slot = v;
	}
	free(copy);
	return 1;
}

long env_memory(const char *fw, const char *key)
{
	for (size_t i = 0; i < nmems; i++)
		if (!strcmp(mems[i].fw, fw) && !strcmp(mems[i].key, key))
			return mems[i].gpu >= 0 ? mems[i].gpu : mems[i].rss;
	return -1;
}

int env_has_memory(void)
{
	return nmems > 0;
}

void env_memory_cell(const char *fw, const char *key)
{
	long m = env_memory(fw, key);

	if (!nmems)
		return;
	if (m >= 0)
		printf(" %ld |", m);
	else
		printf(" - |");
}

const char *env_tail(int with_published, int rule)
{
	static const char *const t[2][2][2] = {
		{{"", " published |"}, {" memory |", " memory | published |"}},
		{{"", " --- |"}, {" --- |", " --- | --- |"}}};

	return t[rule != 0][nmems > 0][with_published != 0];
}

/* ---- differences between runs of one configuration -------------------- */

/* Whether items[i] is the first of its (fw, key, node, name) and another
 * run of the configuration has another value for it (*other: its index).
 * An item one run has and another lacks is not compared. */
static int differs(size_t i, size_t *other)
{
	const struct envitem *e = &items[i];

	if (is_volatile(e->name))
		return 0;
	for (size_t j = 0; j < nitems; j++) {
		const struct envitem *o = &items[j];
		if (o->node != e->node || strcmp(o->name, e->name) || strcmp(o->fw, e->fw) ||
		    strcmp(o->key, e->key))
			continue;
		if (j < i)
			return 0; /* reported with the first */
		if (strcmp(o->value, e->value)) {
			*other = j;
			return 1;
		}
	}
	return 0;
}

/* ---- the footer ---------------------------------------------------------- */

/* "a / b": the distinct values of name over every run. */
static void values(const char *name, const char *before)
{
	size_t *seen = xmalloc((nitems + 1) * sizeof *seen), ns = 0;

	for (size_t i = 0; i < nitems; i++) {
		if (strcmp(items[i].name, name))
			continue;
		size_t j = 0;
		while (j < ns && strcmp(items[seen[j]].value, items[i].value))
			j++;
		if (j < ns)
			continue;
		fputs(ns ? " / " : before, stdout);
		for (const char *p = items[i].value; *p; p++) /* one markdown line */
			putchar((unsigned char)*p < ' ' ? ' ' : *p);
		seen[ns++] = i;
	}
	free(seen);
}

static int known(const char *name)
{
	for (size_t i = 0; i < nitems; i++)
		if (!strcmp(items[i].name, name))
			return 1;
	return 0;
}

/* Shown on the machine line, in this order, with these words around. */
static const char *const machine[][3] = {{"hostname", "", ""},
					 {"cpu_model", ", ", ""},
					 {"sockets", ", ", " socket(s)"},
					 {"cores", ", ", " cores"},
					 {"threads_per_core", " x ", " thread(s)"},
					 {"mem_total_mib", ", ", " MiB"},
					 {"arch", ", ", ""},
					 {"os", ", ", ""},
					 {"kernel", ", kernel ", ""},
					 {"governor", ", governor ", ""},
					 {"boost", ", boost ", ""},
					 {"intel_no_turbo", ", no_turbo ", ""},
					 {"gpus", ", ", " GPU(s)"},
					 {"gpu0.name", " ", ""},
					 {"gpu0.memory_total_mib", " ", " MiB"},
					 {"cuda_driver", ", driver ", ""}};

static int on_machine_line(const char *name)
{
	for (size_t m = 0; m < sizeof machine / sizeof *machine; m++)
		if (!strcmp(name, machine[m][0]))
			return 1;
	return !strcmp(name, "git_repo") || !strcmp(name, "cpus") || !strncmp(name, "gpu", 3);
}

void env_footer(void)
{
	size_t other;
	int k = 0;

	if (!nitems)
		return;
	printf("\n- machine: ");
	for (size_t m = 0; m < sizeof machine / sizeof *machine; m++)
		if (known(machine[m][0])) {
			values(machine[m][0], k++ ? machine[m][1] : "");
			fputs(machine[m][2], stdout);
		}
	/* The rest: versions, then the pipelines' "setting.<name>" items. */
	for (int settings = 0; settings < 2; settings++) {
		k = 0;
		for (size_t i = 0; i < nitems; i++) {
			const char *name = items[i].name;
			size_t j = 0;
			while (j < i && strcmp(items[j].name, name))
				j++;
			if (j < i || on_machine_line(name) || is_volatile(name) ||
			    (strncmp(name, "setting.", 8) == 0) != settings)
				continue;
			printf("%s%s ",
			       k++        ? ", "
			       : settings ? "\n- settings: "
					  : "\n- versions: ",
			       settings ? name + 8 : name);
			values(name, "");
		}
	}
	putchar('\n');
	for (size_t i = 0; i < nitems; i++)
		if (differs(i, &other)) {
			const struct envitem *e = &items[i], *o = &items[other];
			printf("- **environments differ**: %s %s node %ld: %s is %s in run %ld, %s in "
			       "run %ld\n",
			       e->fw, e->key, e->node, e->name, e->value, e->run, o->value, o->run);
		}
}

/* ---- JSON ------------------------------------------------------------------ */

/* Whether s is UTF-8 (JSON's text must be; a log may hold other bytes). */
static int utf8(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80             ? 0
			: (*s & 0xe0) == 0xc0 ? 1
			: (*s & 0xf0) == 0xe0 ? 2
			: (*s & 0xf8) == 0xf0 ? 3
					      : -1;
		if (n < 0 || (n == 1 && *s < 0xc2))
			return 0;
		for (s++; n > 0; n--, s++)
			if ((*s & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* A JSON string; bytes of a text that is not UTF-8 as \u00XX (Latin-1). */
static void json_string(const char *s)
{
	int raw = utf8((const unsigned char *)s);

	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !raw))
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

void env_json_case(const char *fw, const char *key)
{
	long m = env_memory(fw, key);
	size_t other;
	int k = 0;

	if (m >= 0)
		printf(", \"memory_mib\": %ld", m);
	for (size_t i = 0; i < nitems; i++)
		if (!strcmp(items[i].fw, fw) && !strcmp(items[i].key, key) && differs(i, &other)) {
			printf("%s", k++ ? ", " : ", \"environment_differs\": [");
			json_string(items[i].name);
		}
	if (k)
		putchar(']');
}

void env_json(void)
{
	if (!nitems)
		return;
	printf(", \"environment\": [");
	for (size_t i = 0; i < nitems; i++) {
		size_t j = 0;
		/* One object per (fw, key, run, node), its items in log order. */
		while (j < i &&
		       (items[j].run != items[i].run || items[j].node != items[i].node ||
			strcmp(items[j].fw, items[i].fw) || strcmp(items[j].key, items[i].key)))
			j++;
		if (j < i)
			continue;
		printf("%s{\"framework\": ", i ? ", " : "");
		json_string(items[i].fw);
		printf(", \"key\": ");
		json_string(items[i].key);
		printf(", \"run\": %ld, \"node\": %ld", items[i].run, items[i].node);
		for (size_t n = i; n < nitems; n++) {
			if (items[n].run != items[i].run || items[n].node != items[i].node ||
			    strcmp(items[n].fw, items[i].fw) || strcmp(items[n].key, items[i].key))
				continue;
			printf(", ");
			json_string(items[n].name);
			printf(": ");
			json_string(items[n].value);
		}
		putchar('}');
	}
	putchar(']');
}
