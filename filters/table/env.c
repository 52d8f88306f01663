/*
 * env.c — table's environment and memory: launch's "# env" and "# mem"
 * lines as grep-iters passes them on (doc/cluster.md):
 *
 *   # env framework=<fw> key=<key> run=<r> node=<i> <name>=<value>
 *   # mem framework=<fw> key=<key> run=<r> node=<i> [rank=.. host=..] rss_peak_mib=<n>
 *   # mem framework=<fw> key=<key> run=<r> node=<i> gpu=<k> gpu_peak_mib=<n>
 *
 * Reads those meta lines (others are not table's); writes, through mem.c,
 * the memory column (MiB per device: the largest gpu_peak_mib of a
 * configuration's runs when it has any, else its largest rss_peak_mib over
 * runs and ranks), and the markdown footer (the machine and the versions,
 * and every configuration whose runs ran in differing environments) and
 * the JSON's "memory_mib" and "environment". lib/meta.c parses the lines
 * and decodes their values: a malformed line is an error.
 * The items are indexed in hash tables once read: linear in them.
 */
#include "env.h"

#include <stdlib.h>
#include <string.h>

/* An env line as read (lib/meta.c parses it). */
struct envline {
	char *fw, *key, *name, *value; /* value decoded */
	long run, node;
};

static struct envline *items;
static size_t nitems, capitems;
static struct hkey hk;
/* Hash tables over the items, built once they are all read (index_items):
 * the output is linear in them. */
static int indexed;
static struct groups names;   /* by name: the first item of each distinct value */
static struct groups cases;   /* by (fw, key) */
static struct groups objects; /* by (fw, key, run, node) */
/* other_of[i]: for the first item of its (fw, key, node, name), the first
 * later one with another value; else HASH_NONE. */
static size_t *other_of;

/* Names whose values change from run to run by nature: not compared. */
static const char *const volatile_names[] = {"hostname", "load1",     "load5",
					     "load15",   "git_dirty", NULL};

/* Set, not freed: what a previous run left is its caller's (the fuzz
 * harness frees every allocation of a run after it). */
void env_reset(void)
{
	items = NULL;
	nitems = capitems = 0;
	mem_reset();
	hk = (struct hkey){0};
	indexed = 0;
	names = cases = objects = (struct groups){0};
	other_of = NULL;
}

static int is_volatile(const char *name)
{
	for (const char *const *v = volatile_names; *v; v++)
		if (!strcmp(name, *v))
			return 1;
	/* gpu<k>.throttle_reasons: the state at the start, not a setting. */
	return !strncmp(name, "gpu", 3) && strstr(name, ".throttle_reasons");
}

int env_read(const struct input *in)
{
	struct metaline m = {0};
	enum meta_kind kind = metaline_parse(in, in->line, META_RUN, &m);

	if (kind == META_ENV) {
		items = xgrow(items, &capitems, nitems + 1, sizeof *items);
		struct envline *e = &items[nitems++];
		e->fw = xstrdup(m.framework);
		e->key = xstrdup(m.key);
		e->name = xstrdup(m.item[0].name);
		e->value = xstrdup(m.item[0].value);
		e->run = m.run;
		e->node = m.node;
	} else if (kind == META_MEM) {
		mem_add(m.framework, m.key, m.peak_gpu, m.peak_mib);
	}
	metaline_free(&m);
	return kind != META_OTHER;
}

/* ---- differences between runs of one configuration -------------------- */

/* The items' hash tables (above), once all are read: one pass. */
static void index_items(void)
{
	struct hash values = {0}, cells = {0};

	if (indexed)
		return;
	indexed = 1;
	other_of = xmalloc((nitems ? nitems : 1) * sizeof *other_of);
	for (size_t i = 0; i < nitems; i++) {
		const struct envline *e = &items[i];
		other_of[i] = HASH_NONE;
		hkey_start(&hk);
		hkey_str(&hk, e->name);
		hkey_str(&hk, e->value);
		if (hash_intern(&values, &hk, i) == i) {
			hkey_start(&hk);
			hkey_str(&hk, e->name);
			groups_add(&names, &hk, i);
		}
		hkey_start(&hk);
		hkey_str(&hk, e->fw);
		hkey_str(&hk, e->key);
		groups_add(&cases, &hk, i);
		hkey_long(&hk, e->run);
		hkey_long(&hk, e->node);
		groups_add(&objects, &hk, i);
		hkey_start(&hk);
		hkey_str(&hk, e->fw);
		hkey_str(&hk, e->key);
		hkey_long(&hk, e->node);
		hkey_str(&hk, e->name);
		size_t f = hash_intern(&cells, &hk, i);
		if (f != i && other_of[f] == HASH_NONE && strcmp(items[f].value, e->value))
			other_of[f] = i;
	}
	hash_free(&values);
	hash_free(&cells);
}

/* Whether items[i] is the first of its (fw, key, node, name) and another
 * run of the configuration has another value for it (*o: the first such).
 * An item one run has and another lacks is not compared. */
static int differs(size_t i, size_t *o)
{
	if (other_of[i] == HASH_NONE || is_volatile(items[i].name))
		return 0;
	*o = other_of[i];
	return 1;
}

/* The group of names holding name, or HASH_NONE. */
static size_t name_id(const char *name)
{
	hkey_start(&hk);
	hkey_str(&hk, name);
	return hash_find(&names.index, &hk);
}

/* ---- the footer ---------------------------------------------------------- */

/* "a / b": the distinct values of name over every run. */
static void values(const char *name, const char *before)
{
	size_t id = name_id(name);
	int k = 0;

	for (size_t i = id == HASH_NONE ? HASH_NONE : names.first[id]; i != HASH_NONE;
	     i = names.next[i]) {
		fputs(k++ ? " / " : before, stdout);
		for (const char *p = items[i].value; *p; p++) /* one markdown line */
			putchar((unsigned char)*p < ' ' ? ' ' : *p);
	}
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
	index_items();
	printf("\n- machine: ");
	for (size_t m = 0; m < sizeof machine / sizeof *machine; m++)
		if (name_id(machine[m][0]) != HASH_NONE) {
			values(machine[m][0], k++ ? machine[m][1] : "");
			fputs(machine[m][2], stdout);
		}
	/* The rest: versions, then the pipelines' "setting.<name>" items. */
	for (int settings = 0; settings < 2; settings++) {
		k = 0;
		for (size_t id = 0; id < names.n; id++) { /* in the order first met */
			const char *name = items[names.first[id]].name;
			if (on_machine_line(name) || is_volatile(name) ||
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
			const struct envline *e = &items[i], *o = &items[other];
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
	size_t o, id;
	int k = 0;

	index_items();
	if (m >= 0)
		printf(", \"memory_mib\": %ld", m);
	hkey_start(&hk);
	hkey_str(&hk, fw);
	hkey_str(&hk, key);
	id = hash_find(&cases.index, &hk);
	for (size_t i = id == HASH_NONE ? HASH_NONE : cases.first[id]; i != HASH_NONE;
	     i = cases.next[i])
		if (differs(i, &o)) {
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
	index_items();
	printf(", \"environment\": [");
	/* One object per (fw, key, run, node), its items in log order. */
	for (size_t id = 0; id < objects.n; id++) {
		size_t i = objects.first[id];
		printf("%s{\"framework\": ", id ? ", " : "");
		json_string(items[i].fw);
		printf(", \"key\": ");
		json_string(items[i].key);
		printf(", \"run\": %ld, \"node\": %ld", items[i].run, items[i].node);
		for (size_t n = i; n != HASH_NONE; n = objects.next[n]) {
			printf(", ");
			json_string(items[n].name);
			printf(": ");
			json_string(items[n].value);
		}
		putchar('}');
	}
	putchar(']');
}
