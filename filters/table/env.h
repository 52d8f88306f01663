/*
 * env.h — table's environment and memory (env.c, mem.c): launch's "# env"
 * and "# mem" meta lines read, the memory column, the footer, the JSON's parts.
 */
#ifndef TABLE_ENV_H
#define TABLE_ENV_H

#include "lib.h"

struct envline; /* env.c */
struct mem;     /* mem.c */

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
 * memory: " memory |" when shown, then the published columns: none (published
 * 0), " published |" (1), and " published memory |" (2). */
const char *env_tail(const struct env *e, int published, int rule);
/* Markdown: the machine, the versions, the configurations whose runs'
 * environments differ (nothing when there are no env lines). */
void env_footer(struct env *e);
/* The value of item name of a configuration: its first run and node that
 * gave one, or NULL. */
const char *env_value(struct env *e, const char *fw, const char *key, const char *name);
/* JSON: a case's ", \"memory_mib\": n" and ", \"environment_differs\": [...]";
 * after the "r50" object, ", \"environment\": [...]". */
void env_json_case(struct env *e, const char *fw, const char *key);
void env_json(struct env *e);
/* A JSON string; bytes of a text that is not UTF-8 as \u00XX (Latin-1). */
void json_string(const char *s);

#endif
