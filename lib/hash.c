/*
 * hash.c — look-ups in expected constant time, so that a filter stays
 * linear in its input however many configurations, runs or groups it holds:
 * keys of several parts (hkey), a table from keys to indices (hash) and
 * items grouped by key in the order met (groups). Deterministic (FNV-1a, no
 * seed) and never iterated: no output order depends on a hash.
 */
#include "lib.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hslot {
	char *key; /* NULL: empty */
	size_t len;
	uint64_t hash;
	size_t value;
};

void hkey_start(struct hkey *k)
{
	k->n = 0;
}

static void hkey_put(struct hkey *k, const void *p, size_t n)
{
	k->b = xgrow(k->b, &k->cap, k->n + n, 1);
	memcpy(k->b + k->n, p, n);
	k->n += n;
}

void hkey_str(struct hkey *k, const char *s)
{
	hkey_put(k, s, strlen(s) + 1);
}

void hkey_long(struct hkey *k, long v)
{
	hkey_put(k, &v, sizeof v);
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

/* The slot of the key, or the empty slot where it would go (linear probing;
 * the table is at most half full, so there is one). */
static size_t find_slot(const struct hash *h, const char *key, size_t len, uint64_t hv)
{
	size_t mask = h->cap - 1, i = (size_t)hv & mask;

	for (; h->slot[i].key; i = (i + 1) & mask)
		if (h->slot[i].hash == hv && h->slot[i].len == len &&
		    memcmp(h->slot[i].key, key, len) == 0)
			break;
	return i;
}

static void rehash(struct hash *h)
{
	struct hslot *old = h->slot;
	size_t oldcap = h->cap;

	if (oldcap > SIZE_MAX / 2 / sizeof *old)
		die("out of memory");
	h->cap = oldcap ? oldcap * 2 : 16;
	h->slot = xcalloc(h->cap, sizeof *h->slot);
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			h->slot[find_slot(h, old[i].key, old[i].len, old[i].hash)] = old[i];
	free(old);
}

size_t hash_intern(struct hash *h, const struct hkey *k, size_t value)
{
	if ((h->n + 1) * 2 > h->cap)
		rehash(h);
	uint64_t hv = fnv1a(k->b, k->n);
	struct hslot *s = &h->slot[find_slot(h, k->b, k->n, hv)];
	if (s->key)
		return s->value;
	*s = (struct hslot){memcpy(xmalloc(k->n), k->b, k->n), k->n, hv, value};
	h->n++;
	return value;
}

size_t hash_find(const struct hash *h, const struct hkey *k)
{
	if (h->n == 0)
		return HASH_NONE;
	uint64_t hv = fnv1a(k->b, k->n);
	const struct hslot *s = &h->slot[find_slot(h, k->b, k->n, hv)];
	return s->key ? s->value : HASH_NONE;
}

void hash_free(struct hash *h)
{
	for (size_t i = 0; i < h->cap; i++)
		free(h->slot[i].key);
	free(h->slot);
	*h = (struct hash){0};
}

size_t groups_add(struct groups *g, const struct hkey *k, size_t item)
{
	size_t id = hash_intern(&g->index, k, g->n);

	g->next = xgrow(g->next, &g->capnext, item + 1, sizeof *g->next);
	g->next[item] = HASH_NONE;
	if (id == g->n) {
		g->first = xgrow(g->first, &g->capfirst, g->n + 1, sizeof *g->first);
		g->last = xgrow(g->last, &g->caplast, g->n + 1, sizeof *g->last);
		g->first[id] = item;
		g->n++;
	} else {
		g->next[g->last[id]] = item;
	}
	g->last[id] = item;
	return id;
}

void groups_free(struct groups *g)
{
	hash_free(&g->index);
	free(g->first);
	free(g->last);
	free(g->next);
	*g = (struct groups){0};
}
