/*
 * bench/data/folder.c: an ImageFolder tree as torchvision's ImageFolder reads
 * it (classes: the directories of the root, sorted by name; images: the files
 * with its extensions at any depth under a class, sorted by directory then
 * name), and DistributedSampler's shards of a per-epoch permutation.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "data.h"
#include "lib.h"

/* torchvision.datasets.folder.IMG_EXTENSIONS, compared without case */
static const char *const extensions[] = {".jpg", ".jpeg", ".png",  ".ppm", ".bmp",
					 ".pgm", ".tif",  ".tiff", ".webp"};

static int is_image(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof extensions / sizeof *extensions; i++) {
		size_t e = strlen(extensions[i]);
		if (n >= e && !strcasecmp(name + n - e, extensions[i]))
			return 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct list {
	char **v;
	size_t n, cap;
} list;

static void push(list *l, char *s)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = s;
}

static char *join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = xmalloc(na + nb + 2);
	memcpy(s, a, na);
	s[na] = '/';
	memcpy(s + na + 1, b, nb + 1);
	return s;
}

/* The entries of dir, sorted; dirs gets the subdirectories (symbolic links
 * followed, as os.walk(followlinks=True)), files the rest. */
static void list_dir(const char *dir, list *dirs, list *files)
{
	DIR *d = opendir(dir);
	if (!d)
		die("%s:", dir);
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = join(dir, e->d_name);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			push(dirs, p);
		else if (files)
			push(files, p);
		else
			free(p);
		errno = 0;
	}
	if (errno)
		die("%s:", dir);
	closedir(d);
	if (dirs->n > 1) /* an empty list's array is NULL, which qsort may not take */
		qsort(dirs->v, dirs->n, sizeof *dirs->v, cmp_str);
	if (files && files->n > 1)
		qsort(files->v, files->n, sizeof *files->v, cmp_str);
}

/* The images under a class directory, os.walk's order sorted: a directory's
 * own files, then its subdirectories' in name order. Sorting the roots as
 * strings puts "a/b" after "a" and before "a_c", as Python's sorted() does;
 * a depth-first walk of sorted names gives the same order unless a name
 * has a byte below '/', which no ImageNet class or file has. */
static void walk(const char *dir, folder *f, size_t *cap, int32_t label, size_t *lcap)
{
	list dirs = {0}, files = {0};
	list_dir(dir, &dirs, &files);
	for (size_t i = 0; i < files.n; i++) {
		const char *base = strrchr(files.v[i], '/') + 1;
		if (!is_image(base)) {
			free(files.v[i]);
			continue;
		}
		f->path = xgrow(f->path, cap, (size_t)f->n + 1, sizeof *f->path);
		f->label = xgrow(f->label, lcap, (size_t)f->n + 1, sizeof *f->label);
		f->path[f->n] = files.v[i];
		f->label[f->n++] = label;
	}
	for (size_t i = 0; i < dirs.n; i++) {
		walk(dirs.v[i], f, cap, label, lcap);
		free(dirs.v[i]);
	}
	free(dirs.v);
	free(files.v);
}

void folder_scan(folder *f, const char *root)
{
	*f = (folder){.root = xstrdup(root)};
	list classes = {0};
	list_dir(root, &classes, NULL);
	if (classes.n == 0)
		die("%s: no class directory (an ImageFolder tree is DIR/<class>/<image>)", root);
	f->nclasses = (int)classes.n;
	f->classes = classes.v;
	size_t cap = 0, lcap = 0;
	for (int c = 0; c < f->nclasses; c++) {
		long before = f->n;
		walk(f->classes[c], f, &cap, c, &lcap);
		if (f->n == before)
			die("%s: no image in this class directory (.jpg, .jpeg, .png, .ppm, .bmp, "
			    ".pgm, .tif, .tiff, .webp)",
			    f->classes[c]);
	}
}

void folder_free(folder *f)
{
	for (long i = 0; i < f->n; i++)
		free(f->path[i]);
	for (int c = 0; c < f->nclasses; c++)
		free(f->classes[c]);
	free(f->path);
	free(f->label);
	free(f->classes);
	free(f->root);
	*f = (folder){0};
}

/* ---- the sampler ---- */

void sampler_init(sampler *s, long n, int rank, int world, uint64_t seed)
{
	*s = (sampler){.n = n, .rank = rank, .world = world, .seed = seed, .epoch = -1};
	s->per_rank = (n + world - 1) / world;
	s->perm = xmalloc((size_t)n * sizeof *s->perm);
}

/* Fisher-Yates from seed + epoch (torch.randperm with a generator seeded
 * seed + epoch in DistributedSampler; the same semantics, not torch's bits). */
static void permute(sampler *s, long epoch)
{
	srng r;
	srng_seed(&r, s->seed + (uint64_t)epoch, 0x5eed, 0);
	for (long i = 0; i < s->n; i++)
		s->perm[i] = i;
	for (long i = s->n - 1; i > 0; i--) {
		long j = srng_randint(&r, i + 1), t = s->perm[i];
		s->perm[i] = s->perm[j];
		s->perm[j] = t;
	}
	s->epoch = epoch;
}

long sampler_image(sampler *s, long k)
{
	long epoch = k / s->per_rank, pos = k % s->per_rank;
	if (epoch != s->epoch)
		permute(s, epoch);
	/* padded to per_rank * world by the permutation's own head */
	return s->perm[(s->rank + pos * s->world) % s->n];
}

long sampler_position(const sampler *s, long k)
{
	long epoch = k / s->per_rank, pos = k % s->per_rank;
	return epoch * s->per_rank * s->world + s->rank + pos * s->world;
}

void sampler_free(sampler *s)
{
	free(s->perm);
	*s = (sampler){0};
}
