/*
 * mem.c — table's memory column: the peaks of launch's "# mem" lines
 * (env.c reads them) per configuration, found in a hash table; the column
 * is shown when any was read.
 */
#include "env.h"

struct mem {
	char *fw, *key;
	long rss, gpu; /* MiB; -1: none */
};

static struct mem *mems;
static size_t nmems, capmems;
static struct hash memindex; /* (fw, key) → mems[i] */
static struct hkey hk;

/* Set, not freed: what a previous run left is its caller's (the fuzz
 * harness frees every allocation of a run after it). */
void mem_reset(void)
{
	mems = NULL;
	nmems = capmems = 0;
	memindex = (struct hash){0};
	hk = (struct hkey){0};
}

static void mem_key(const char *fw, const char *key)
{
	hkey_start(&hk);
	hkey_str(&hk, fw);
	hkey_str(&hk, key);
}

void mem_add(const char *fw, const char *key, int gpu, long mib)
{
	mem_key(fw, key);
	size_t i = hash_intern(&memindex, &hk, nmems);
	if (i == nmems) {
		mems = xgrow(mems, &capmems, nmems + 1, sizeof *mems);
		mems[nmems++] = (struct mem){xstrdup(fw), xstrdup(key), -1, -1};
	}
	long *slot = gpu ? &mems[i].gpu : &mems[i].rss;
	if (mib > *slot)
		*slot = mib;
}

long env_memory(const char *fw, const char *key)
{
	mem_key(fw, key);
	size_t i = hash_find(&memindex, &hk);
	if (i == HASH_NONE)
		return -1;
	return mems[i].gpu >= 0 ? mems[i].gpu : mems[i].rss;
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
