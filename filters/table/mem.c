/*
 * mem.c — table's memory column: the peaks of launch's "# mem" lines
 * (env.c reads them) per configuration, found in a hash table; the column
 * is shown when any was read. And the columns after the figures: memory,
 * nccl (env.c), published.
 */
#include "env.h"

struct mem {
	char *fw, *key;
	long rss, gpu; /* MiB; -1: none */
};

static void mem_key(struct env *env, const char *fw, const char *key)
{
	hkey_start(&env->hk);
	hkey_str(&env->hk, fw);
	hkey_str(&env->hk, key);
}

void mem_add(struct env *env, const char *fw, const char *key, int gpu, long mib)
{
	mem_key(env, fw, key);
	size_t i = hash_intern(&env->memindex, &env->hk, env->nmems);
	if (i == env->nmems) {
		env->mems = xgrow(env->mems, &env->capmems, env->nmems + 1, sizeof *env->mems);
		env->mems[env->nmems++] = (struct mem){xstrdup(fw), xstrdup(key), -1, -1};
	}
	long *slot = gpu ? &env->mems[i].gpu : &env->mems[i].rss;
	if (mib > *slot)
		*slot = mib;
}

long env_memory(struct env *env, const char *fw, const char *key)
{
	mem_key(env, fw, key);
	size_t i = hash_find(&env->memindex, &env->hk);
	if (i == HASH_NONE)
		return -1;
	return env->mems[i].gpu >= 0 ? env->mems[i].gpu : env->mems[i].rss;
}

int env_has_memory(const struct env *env)
{
	return env->nmems > 0;
}

void env_memory_cell(struct env *env, const char *fw, const char *key)
{
	long m = env_memory(env, fw, key);

	if (!env->nmems)
		return;
	if (m >= 0)
		printf(" %ld |", m);
	else
		printf(" - |");
}

const char *env_tail(const struct env *env, int published, int rule)
{
	/* the header's names, [memory][nccl][published] */
	static const char *const names[2][2][3] = {
		{{"", " published |", " published | published memory |"},
		 {" nccl |", " nccl | published |", " nccl | published | published memory |"}},
		{{" memory |", " memory | published |", " memory | published | published memory |"},
		 {" memory | nccl |", " memory | nccl | published |",
		  " memory | nccl | published | published memory |"}}};
	static const char *const rules[] = {"", " --- |", " --- | --- |", " --- | --- | --- |",
					    " --- | --- | --- | --- |"};
	int mem = env->nmems > 0, nccl = env->nccl != 0;
	int pub = published < 0 ? 0 : published > 2 ? 2 : published;

	return rule ? rules[mem + nccl + pub] : names[mem][nccl][pub];
}
