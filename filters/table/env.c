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

/* Names whose values change from run to run by nature: not compared. */
static const char *const volatile_names[] = {"hostname", "load1",     "load5",
					     "load15",   "git_dirty", NULL};

static int is_volatile(const char *name)
{
	for (const char *const *v = volatile_names; *v; v++)
		if (!strcmp(name, *v))
			return 1;
	/* gpu<k>.throttle_reasons: the state at the start, not a setting. */
	return !strncmp(name, "gpu", 3) && strstr(name, ".throttle_reasons");
}

int env_read(struct env *env, const struct input *in)
{
	struct metaline m = {0};
	enum meta_kind kind = metaline_parse(in, in->line, META_RUN, &m);

	if (kind == META_ENV) {
		env->items = xgrow(env->items, &env->capitems, env->nitems + 1, sizeof *env->items);
		struct envline *e = &env->items[env->nitems++];
		e->fw = xstrdup(m.framework);
		e->key = xstrdup(m.key);
		e->name = xstrdup(m.item[0].name);
		e->value = xstrdup(m.item[0].value);
		e->run = m.run;
		e->node = m.node;
		env->nccl |= !strcmp(e->name, "nccl.transports") || !strcmp(e->name, "nccl.net");
	} else if (kind == META_MEM) {
		mem_add(env, m.framework, m.key, m.peak_gpu, m.peak_mib);
	}
	metaline_free(&m);
	return kind == META_ENV || kind == META_MEM;
}

/* ---- differences between runs of one configuration -------------------- */

/* The items' hash tables (above), once all are read: one pass. */
static void index_items(struct env *env)
{
	struct hash values = {0}, cells = {0};

	if (env->indexed)
		return;
	env->indexed = 1;
	env->other_of = xmalloc((env->nitems ? env->nitems : 1) * sizeof *env->other_of);
	for (size_t i = 0; i < env->nitems; i++) {
		const struct envline *e = &env->items[i];
		env->other_of[i] = HASH_NONE;
		hkey_start(&env->hk);
		hkey_str(&env->hk, e->name);
		hkey_str(&env->hk, e->value);
		if (hash_intern(&values, &env->hk, i) == i) {
			hkey_start(&env->hk);
			hkey_str(&env->hk, e->name);
			groups_add(&env->names, &env->hk, i);
		}
		hkey_start(&env->hk);
		hkey_str(&env->hk, e->fw);
		hkey_str(&env->hk, e->key);
		groups_add(&env->cases, &env->hk, i);
		hkey_long(&env->hk, e->run);
		hkey_long(&env->hk, e->node);
		groups_add(&env->objects, &env->hk, i);
		hkey_start(&env->hk);
		hkey_str(&env->hk, e->fw);
		hkey_str(&env->hk, e->key);
		hkey_long(&env->hk, e->node);
		hkey_str(&env->hk, e->name);
		size_t f = hash_intern(&cells, &env->hk, i);
		if (f != i && env->other_of[f] == HASH_NONE &&
		    strcmp(env->items[f].value, e->value))
			env->other_of[f] = i;
	}
	hash_free(&values);
	hash_free(&cells);
}

/* Whether items[i] is the first of its (fw, key, node, name) and another
 * run of the configuration has another value for it (*o: the first such).
 * An item one run has and another lacks is not compared. */
static int differs(const struct env *env, size_t i, size_t *o)
{
	if (env->other_of[i] == HASH_NONE || is_volatile(env->items[i].name))
		return 0;
	*o = env->other_of[i];
	return 1;
}

/* The group of names holding name, or HASH_NONE. */
static size_t name_id(struct env *env, const char *name)
{
	hkey_start(&env->hk);
	hkey_str(&env->hk, name);
	return hash_find(&env->names.index, &env->hk);
}

/* ---- the footer ---------------------------------------------------------- */

/* "a / b": the distinct values of name over every run. */
static void values(struct env *env, const char *name, const char *before)
{
	size_t id = name_id(env, name);
	int k = 0;

	for (size_t i = id == HASH_NONE ? HASH_NONE : env->names.first[id]; i != HASH_NONE;
	     i = env->names.next[i]) {
		fputs(k++ ? " / " : before, stdout);
		for (const char *p = env->items[i].value; *p; p++) /* one markdown line */
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

/* A pipeline's "setting.<name>" item, or what the log says of the model
 * trained (its FLOP count, or its name and image size; mfu.c reads them):
 * shown among the settings, as name (without "setting."). */
static const char *setting_name(const char *name)
{
	static const char *const model[] = {"model", "image", "flop_per_sample"};

	if (!strncmp(name, "setting.", 8))
		return name + 8;
	for (size_t i = 0; i < sizeof model / sizeof *model; i++)
		if (!strcmp(name, model[i]))
			return name;
	return NULL;
}

/* s as text of one markdown line (a control byte as a blank) and, in a
 * table's cell, no '|'. */
static void md_put(const char *s, int cell)
{
	for (; *s; s++)
		putchar((unsigned char)*s < ' ' || (cell && *s == '|') ? ' ' : *s);
}

/* The distinct summaries of a part of the nodes (interconnect.c: 0 the
 * topology, 1 the InfiniBand ports), each once, in *out (malloc'd, each
 * and the array); their count. */
static size_t node_summaries(struct env *env, int part, char ***out)
{
	struct hash seen = {0};
	size_t n = 0, cap = 0;

	*out = NULL;
	for (size_t id = 0; id < env->objects.n; id++) {
		char *s = ic_node(env, id, part);
		hkey_start(&env->hk);
		hkey_str(&env->hk, s);
		if (*s && hash_intern(&seen, &env->hk, n) == n) {
			*out = xgrow(*out, &cap, n + 1, sizeof **out);
			(*out)[n++] = s;
		} else {
			free(s);
		}
	}
	hash_free(&seen);
	return n;
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* "- interconnect: <the nodes' topologies> / …; InfiniBand ports: <their
 * ports> / …" and "- nccl: network …, devices …, libibverbs: …" (what no
 * configuration's nccl cell says). */
static void interconnect_lines(struct env *env)
{
	static const char *const nccl[][2] = {{"nccl.net", "network "},
					      {"nccl.net_devices", "devices "},
					      {"libibverbs.warning", "libibverbs: "}};
	int k = 0;

	for (int part = 0; part < 2; part++) {
		char **sum;
		size_t n = node_summaries(env, part, &sum);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? " / " : k++ ? "; " : "- interconnect: ", stdout);
			fputs(part && !i ? "InfiniBand ports: " : "", stdout);
			md_put(sum[i], 0);
		}
		free_strings(sum, n);
	}
	if (k)
		putchar('\n');
	k = 0;
	for (size_t i = 0; i < sizeof nccl / sizeof *nccl; i++)
		if (name_id(env, nccl[i][0]) != HASH_NONE) {
			fputs(k++ ? ", " : "- nccl: ", stdout);
			values(env, nccl[i][0], nccl[i][1]);
		}
	if (k)
		putchar('\n');
}

/* The configuration (case) of fw and key, or HASH_NONE. */
static size_t case_id(struct env *env, const char *fw, const char *key)
{
	hkey_start(&env->hk);
	hkey_str(&env->hk, fw);
	hkey_str(&env->hk, key);
	return hash_find(&env->cases.index, &env->hk);
}

void env_nccl_cell(struct env *env, const char *fw, const char *key)
{
	struct ic_nccl nc;
	size_t id;

	if (!env->nccl)
		return;
	index_items(env);
	if ((id = case_id(env, fw, key)) == HASH_NONE) {
		printf(" - |");
		return;
	}
	ic_nccl(env, id, &nc);
	putchar(' ');
	for (size_t i = 0; i < nc.ntransports; i++) {
		fputs(i ? ", " : "", stdout);
		md_put(nc.transports[i], 1);
	}
	for (size_t i = 0; !nc.ntransports && i < nc.nnetworks; i++) {
		fputs(i ? ", " : "network ", stdout);
		md_put(nc.networks[i], 1);
	}
	printf("%s%s |", nc.any ? "" : "-", nc.nsocket ? " †" : "");
	ic_nccl_free(&nc);
}

/* "- † **NCCL over sockets between nodes**: <fw> <key> runs …; …", the
 * note of the nccl cells marked †. */
static void sockets_note(struct env *env)
{
	struct ic_nccl nc;
	int k = 0;

	for (size_t id = 0; id < env->cases.n; id++) {
		ic_nccl(env, id, &nc);
		if (nc.nsocket) {
			const struct envline *e = &env->items[env->cases.first[id]];
			printf("%s%s %s run%s",
			       k++ ? "; " : "- † **NCCL over sockets between nodes**: ", e->fw,
			       e->key, nc.nsocket > 1 ? "s" : "");
			for (size_t r = 0; r < nc.nsocket; r++)
				printf("%s%ld", r ? ", " : " ", nc.socket_runs[r]);
		}
		ic_nccl_free(&nc);
	}
	if (k)
		printf(". NCCL's traffic between the nodes went over TCP sockets (NET/Socket), not "
		       "InfiniBand or RoCE (NET/IB): the figure is not what the interconnect can "
		       "do (doc/cluster.md)\n");
}

void env_footer(struct env *env)
{
	size_t other;
	int k = 0;

	if (!env->nitems)
		return;
	index_items(env);
	printf("\n- machine: ");
	for (size_t m = 0; m < sizeof machine / sizeof *machine; m++)
		if (name_id(env, machine[m][0]) != HASH_NONE) {
			values(env, machine[m][0], k++ ? machine[m][1] : "");
			fputs(machine[m][2], stdout);
		}
	/* The rest: versions, then the pipelines' "setting.<name>" items. */
	for (int settings = 0; settings < 2; settings++) {
		k = 0;
		for (size_t id = 0; id < env->names.n; id++) { /* in the order first met */
			const char *name = env->items[env->names.first[id]].name;
			if (on_machine_line(name) || is_volatile(name) || ic_is_item(name) ||
			    (setting_name(name) != NULL) != settings)
				continue;
			printf("%s%s ",
			       k++        ? ", "
			       : settings ? "\n- settings: "
					  : "\n- versions: ",
			       settings ? setting_name(name) : name);
			values(env, name, "");
		}
	}
	putchar('\n');
	interconnect_lines(env);
	for (size_t i = 0; i < env->nitems; i++)
		if (differs(env, i, &other)) {
			const struct envline *e = &env->items[i], *o = &env->items[other];
			printf("- **environments differ**: %s %s node %ld: %s is %s in run %ld, %s in "
			       "run %ld\n",
			       e->fw, e->key, e->node, e->name, e->value, e->run, o->value, o->run);
		}
	sockets_note(env);
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

void json_string(const char *s)
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

const char *env_value(struct env *env, const char *fw, const char *key, const char *name)
{
	index_items(env);
	hkey_start(&env->hk);
	hkey_str(&env->hk, fw);
	hkey_str(&env->hk, key);
	size_t id = hash_find(&env->cases.index, &env->hk);
	for (size_t i = id == HASH_NONE ? HASH_NONE : env->cases.first[id]; i != HASH_NONE;
	     i = env->cases.next[i])
		if (!strcmp(env->items[i].name, name))
			return env->items[i].value;
	return NULL;
}

/* before, then "\"<name>\": [s, …]" of n strings. */
static void json_strings(const char *before, const char *name, char *const *v, size_t n)
{
	printf("%s\"%s\": [", before, name);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", stdout);
		json_string(v[i]);
	}
	putchar(']');
}

/* A case's ", \"nccl\": {\"network\": [...], \"transports\": [...],
 * \"socket_runs\": [...]}" when it has NCCL items. */
static void json_nccl(struct env *env, size_t id)
{
	struct ic_nccl nc;

	ic_nccl(env, id, &nc);
	if (nc.any) {
		json_strings(", \"nccl\": {", "network", nc.networks, nc.nnetworks);
		json_strings(", ", "transports", nc.transports, nc.ntransports);
		printf(", \"socket_runs\": [");
		for (size_t r = 0; r < nc.nsocket; r++)
			printf("%s%ld", r ? ", " : "", nc.socket_runs[r]);
		printf("]}");
	}
	ic_nccl_free(&nc);
}

void env_json_case(struct env *env, const char *fw, const char *key)
{
	long m = env_memory(env, fw, key);
	size_t o, id;
	int k = 0;

	index_items(env);
	if (m >= 0)
		printf(", \"memory_mib\": %ld", m);
	hkey_start(&env->hk);
	hkey_str(&env->hk, fw);
	hkey_str(&env->hk, key);
	id = hash_find(&env->cases.index, &env->hk);
	for (size_t i = id == HASH_NONE ? HASH_NONE : env->cases.first[id]; i != HASH_NONE;
	     i = env->cases.next[i])
		if (differs(env, i, &o)) {
			printf("%s", k++ ? ", " : ", \"environment_differs\": [");
			json_string(env->items[i].name);
		}
	if (k)
		putchar(']');
	if (id != HASH_NONE)
		json_nccl(env, id);
}

void env_json(struct env *env)
{
	if (!env->nitems)
		return;
	index_items(env);
	printf(", \"environment\": [");
	/* One object per (fw, key, run, node), its items in log order. */
	for (size_t id = 0; id < env->objects.n; id++) {
		size_t i = env->objects.first[id];
		printf("%s{\"framework\": ", id ? ", " : "");
		json_string(env->items[i].fw);
		printf(", \"key\": ");
		json_string(env->items[i].key);
		printf(", \"run\": %ld, \"node\": %ld", env->items[i].run, env->items[i].node);
		for (size_t n = i; n != HASH_NONE; n = env->objects.next[n]) {
			printf(", ");
			json_string(env->items[n].name);
			printf(": ");
			json_string(env->items[n].value);
		}
		putchar('}');
	}
	putchar(']');
	int k = 0;
	for (int part = 0; part < 2; part++) {
		char **sum;
		size_t n = node_summaries(env, part, &sum);
		if (n)
			json_strings(k++ ? ", " : ", \"interconnect\": {",
				     part ? "infiniband" : "topology", sum, n);
		free_strings(sum, n);
	}
	if (k)
		putchar('}');
}
