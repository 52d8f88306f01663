/*
 * env.h — table's environment and memory (env.c, mem.c): launch's "# env"
 * and "# mem" meta lines read, the memory column, the footer, the JSON's parts.
 */
#ifndef TABLE_ENV_H
#define TABLE_ENV_H

#include "lib.h"

void env_reset(void);
/* Take in's meta line when it is an "# env" or "# mem" line (1), else 0. */
int env_read(const struct input *in);

/* mem.c: a "# mem" line's peak, gpu_peak_mib (gpu) or rss_peak_mib. */
void mem_reset(void);
void mem_add(const char *fw, const char *key, int gpu, long mib);
/* MiB per device of a configuration, or -1; whether any was read. */
long env_memory(const char *fw, const char *key);
int env_has_memory(void);
/* -s scaling: " <MiB> |" (or " - |") when a memory column is shown. */
void env_memory_cell(const char *fw, const char *key);
/* The end of the header (rule 0) or rule line (1) after the columns before
 * memory: " memory |" when shown, then " published |" when with_published. */
const char *env_tail(int with_published, int rule);
/* Markdown: the machine, the versions, the configurations whose runs'
 * environments differ (nothing when there are no env lines). */
void env_footer(void);
/* JSON: a case's ", \"memory_mib\": n" and ", \"environment_differs\": [...]";
 * after the "r50" object, ", \"environment\": [...]". */
void env_json_case(const char *fw, const char *key);
void env_json(void);

#endif
