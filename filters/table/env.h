/*
 * env.h — table's environment and memory (env.c, mem.c, interconnect.c):
 * launch's "# env" and "# mem" meta lines read, the memory and nccl
 * columns, the footer, the JSON's parts.
 */
#ifndef TABLE_ENV_H
#define TABLE_ENV_H

#include "lib.h"

struct mem; /* mem.c */

/* An env line as read (lib/meta.c parses it). */
struct envline {
	char *fw, *key, *name, *value; /* value decoded */
	long run, node;
};

/* What table read of launch's lines: a part of the call's state
 * (filter.h), zeroed at first. */
struct env {
	struct envline *items; /* the "# env" lines */
	size_t nitems, capitems;
	struct hkey hk;
	/* Hash tables over the items, built once they are all read
	 * (index_items): the output is linear in them. */
	int indexed;
	struct groups names;   /* by name: the first item of each distinct value */
	struct groups cases;   /* by (fw, key) */
	struct groups objects; /* by (fw, key, run, node) */
	int nccl;              /* an nccl.transports or nccl.net item: the nccl column */
	/* other_of[i]: for the first item of its (fw, key, node, name), the
	 * first later one with another value; else HASH_NONE. */
	size_t *other_of;
	/* mem.c: the peaks of the "# mem" lines, one a configuration */
	struct mem *mems;
	size_t nmems, capmems;
	struct hash memindex; /* (fw, key) → mems[i] */
};

/* Take in's meta line when it is an "# env" or "# mem" line (1), else 0. */
int env_read(struct env *e, const struct input *in);

/* mem.c: a "# mem" line's peak, gpu_peak_mib (gpu) or rss_peak_mib. */
void mem_add(struct env *e, const char *fw, const char *key, int gpu, long mib);
/* MiB per device of a configuration, or -1; whether any was read. */
long env_memory(struct env *e, const char *fw, const char *key);
int env_has_memory(const struct env *e);
/* -s scaling: " <MiB> |" (or " - |") when a memory column is shown. */
void env_memory_cell(struct env *e, const char *fw, const char *key);
/* The end of the header (rule 0) or rule line (1) after the columns before
 * memory: " memory |" when shown, " nccl |" when shown, then the published
 * columns: none (published 0), " published |" (1), and " published memory
 * |" (2). */
const char *env_tail(const struct env *e, int published, int rule);
/* -s scaling: " <NCCL's transports> |" (or " - |"), " †" after them for
 * a configuration of more than one node whose NCCL went over sockets,
 * when an nccl column is shown (env_tail). */
void env_nccl_cell(struct env *e, const char *fw, const char *key);
/* Markdown: the machine, the versions, the interconnect, the
 * configurations whose runs' environments differ and the † note (nothing
 * when there are no env lines). */
void env_footer(struct env *e);
/* The value of item name of a configuration: its first run and node that
 * gave one, or NULL. */
const char *env_value(struct env *e, const char *fw, const char *key, const char *name);
/* JSON: a case's ", \"memory_mib\": n", ", \"environment_differs\": [...]"
 * and ", \"nccl\": {...}"; after the "r50" object, ", \"environment\":
 * [...]" and ", \"interconnect\": {\"topology\": [...], \"infiniband\": [...]}". */
void env_json_case(struct env *e, const char *fw, const char *key);
void env_json(struct env *e);
/* A JSON string; bytes of a text that is not UTF-8 as \u00XX (Latin-1). */
void json_string(const char *s);

/* interconnect.c, over the items env.c indexed: whether an item's name is
 * one shown as the interconnect (not among the versions); a part of object
 * id's summary (malloc'd; "" when it has none): 0 its GPUs and their
 * links, the NICs' nearest GPUs (nvidia-smi topo -m), 1 its InfiniBand
 * ports; configuration (case) id's NCCL items. */
int ic_is_item(const char *name);
char *ic_node(struct env *e, size_t id, int part);
struct ic_nccl {
	int any;                       /* the configuration has NCCL items */
	char **transports, **networks; /* distinct, in the order first met */
	size_t ntransports, nnetworks;
	long *socket_runs; /* more than one node, and NCCL over sockets between them */
	size_t nsocket, capsocket;
};
void ic_nccl(struct env *e, size_t id, struct ic_nccl *nc);
void ic_nccl_free(struct ic_nccl *nc);

#endif
