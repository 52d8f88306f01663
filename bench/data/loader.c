/*
 * bench/data/loader.c: decoding threads and a queue of batches. Samples are
 * handed out in order (sample k of this rank's stream goes to batch k / B,
 * slot (k / B) mod slots); a thread takes the next sample while the batch it
 * falls in has a free slot, decodes it straight into its place in the batch,
 * and the batch is ready when all B are in. Each sample's random numbers
 * come from the seed and its place in the ranks' common stream alone
 * (sampler_position), so the batches do not depend on the number of
 * threads, and the global batch does not depend on the number of ranks
 * when they divide the images. A thread that fails stops the others and
 * the trainer dies with its message; nothing waits for a thread that has
 * stopped. The trace (loader_config) lists every sample handed out.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "lib.h"

struct slot {
	float *img;      /* [batch][3][image][image] */
	int32_t *labels; /* [batch] */
	int done;        /* samples decoded into it */
	double bytes;    /* of JPEG read for it */
	long *image;     /* [batch]: the folder's index, for the trace */
	long *position;  /* [batch]: sampler_position */
	int (*box)[5];   /* [batch]: the crop and the flip */
};

struct loader {
	loader_config c;
	folder f;
	sampler s;
	int nslots;
	struct slot *slots;
	pthread_mutex_t mu;
	pthread_cond_t work, ready;
	long next;     /* the next sample to hand out */
	long consumer; /* the batch the trainer takes next */
	int stop, failed;
	char err[DATA_ERR_MAX];
	int nthreads;
	pthread_t *th;
	long images;
	double bytes;
	FILE *trace;
	char *trace_path, *trace_tmp; /* copies: the caller's may not outlive loader_open */
};

static void check(int rc, const char *what)
{
	if (rc != 0)
		die("%s: %s", what, strerror(rc));
}

static void *worker(void *arg)
{
	loader *l = arg;
	decoder d = {0};
	sample_opts o = {.size = l->c.image, .scale_min = 1};
	size_t elems = (size_t)3 * l->c.image * l->c.image;
	long B = l->c.batch;
	check(pthread_mutex_lock(&l->mu), "pthread_mutex_lock");
	for (;;) {
		while (!l->stop && !l->failed && l->next / B >= l->consumer + l->nslots)
			check(pthread_cond_wait(&l->work, &l->mu), "pthread_cond_wait");
		if (l->stop || l->failed)
			break;
		long k = l->next++;
		long img = sampler_image(&l->s, k), pos = sampler_position(&l->s, k);
		struct slot *s = &l->slots[(k / B) % l->nslots];
		check(pthread_mutex_unlock(&l->mu), "pthread_mutex_unlock");
		srng r;
		srng_seed(&r, l->c.seed, 0, (uint64_t)pos);
		int box[5];
		long n = decode_sample(&d, l->f.path[img], &r, &o, s->img + (size_t)(k % B) * elems,
				       box);
		check(pthread_mutex_lock(&l->mu), "pthread_mutex_lock");
		if (n < 0) {
			if (!l->failed)
				memcpy(l->err, d.err, sizeof l->err);
			l->failed = 1;
			check(pthread_cond_broadcast(&l->ready), "pthread_cond_broadcast");
			check(pthread_cond_broadcast(&l->work), "pthread_cond_broadcast");
			break;
		}
		s->labels[k % B] = l->f.label[img];
		s->image[k % B] = img;
		s->position[k % B] = pos;
		memcpy(s->box[k % B], box, sizeof box);
		s->bytes += (double)n;
		if (++s->done == B)
			check(pthread_cond_broadcast(&l->ready), "pthread_cond_broadcast");
	}
	check(pthread_mutex_unlock(&l->mu), "pthread_mutex_unlock");
	decoder_free(&d);
	return NULL;
}

loader *loader_open(const loader_config *c)
{
	char why[DATA_ERR_MAX];
	int no_jpeg = jpeg_load(why, sizeof why);
	if (no_jpeg > 0)
		die_usage("--data: %s", why);
	if (no_jpeg < 0)
		die("--data: %s", why);
	loader *l = xcalloc(1, sizeof *l);
	l->c = *c;
	folder_scan(&l->f, c->dir);
	sampler_init(&l->s, l->f.n, c->rank, c->world, c->seed);
	l->nslots = c->prefetch + 1;
	l->slots = xcalloc((size_t)l->nslots, sizeof *l->slots);
	size_t bytes = (size_t)c->batch * 3 * c->image * c->image * sizeof(float);
	for (int i = 0; i < l->nslots; i++) {
		struct slot *s = &l->slots[i];
		s->img = c->host_alloc(bytes);
		s->labels = xmalloc((size_t)c->batch * sizeof *s->labels);
		s->image = xmalloc((size_t)c->batch * sizeof *s->image);
		s->position = xmalloc((size_t)c->batch * sizeof *s->position);
		s->box = xmalloc((size_t)c->batch * sizeof *s->box);
	}
	if (c->trace) {
		size_t n = strlen(c->trace) + sizeof ".tmp";
		l->trace_path = xstrdup(c->trace);
		l->trace_tmp = xmalloc(n);
		snprintf(l->trace_tmp, n, "%s.tmp", c->trace);
		if (!(l->trace = fopen(l->trace_tmp, "w")))
			die("%s:", l->trace_tmp);
		fprintf(l->trace, "# iter slot position label top left height width flip path\n");
	}
	check(pthread_mutex_init(&l->mu, NULL), "pthread_mutex_init");
	check(pthread_cond_init(&l->work, NULL), "pthread_cond_init");
	check(pthread_cond_init(&l->ready, NULL), "pthread_cond_init");
	l->th = xmalloc((size_t)c->threads * sizeof *l->th);
	for (; l->nthreads < c->threads; l->nthreads++)
		check(pthread_create(&l->th[l->nthreads], NULL, worker, l), "pthread_create");
	return l;
}

int loader_classes(const loader *l)
{
	return l->f.nclasses;
}

long loader_images(const loader *l)
{
	return l->f.n;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void stop_threads(loader *l)
{
	check(pthread_mutex_lock(&l->mu), "pthread_mutex_lock");
	l->stop = 1;
	check(pthread_cond_broadcast(&l->work), "pthread_cond_broadcast");
	check(pthread_mutex_unlock(&l->mu), "pthread_mutex_unlock");
	for (int i = 0; i < l->nthreads; i++)
		check(pthread_join(l->th[i], NULL), "pthread_join");
	l->nthreads = 0;
}

const float *loader_next(loader *l, const int32_t **labels, double *waited)
{
	double t0 = now();
	struct slot *s = &l->slots[l->consumer % l->nslots];
	check(pthread_mutex_lock(&l->mu), "pthread_mutex_lock");
	while (s->done < l->c.batch && !l->failed)
		check(pthread_cond_wait(&l->ready, &l->mu), "pthread_cond_wait");
	int failed = l->failed;
	check(pthread_mutex_unlock(&l->mu), "pthread_mutex_unlock");
	if (failed) {
		stop_threads(l);
		die("%s", l->err);
	}
	l->images += l->c.batch;
	l->bytes += s->bytes;
	for (int i = 0; l->trace && i < l->c.batch; i++)
		fprintf(l->trace, "%ld %d %ld %d %d %d %d %d %d %s\n", l->consumer + 1, i,
			s->position[i], s->labels[i], s->box[i][0], s->box[i][1], s->box[i][2],
			s->box[i][3], s->box[i][4], l->f.path[s->image[i]]);
	*labels = s->labels;
	*waited = now() - t0;
	return s->img;
}

void loader_release(loader *l)
{
	struct slot *s = &l->slots[l->consumer % l->nslots];
	check(pthread_mutex_lock(&l->mu), "pthread_mutex_lock");
	s->done = 0;
	s->bytes = 0.0;
	l->consumer++;
	check(pthread_cond_broadcast(&l->work), "pthread_cond_broadcast");
	check(pthread_mutex_unlock(&l->mu), "pthread_mutex_unlock");
}

void loader_totals(const loader *l, long *images, double *bytes)
{
	*images = l->images;
	*bytes = l->bytes;
}

void loader_close(loader *l)
{
	stop_threads(l);
	check(pthread_cond_destroy(&l->work), "pthread_cond_destroy");
	check(pthread_cond_destroy(&l->ready), "pthread_cond_destroy");
	check(pthread_mutex_destroy(&l->mu), "pthread_mutex_destroy");
	for (int i = 0; i < l->nslots; i++) {
		l->c.host_free(l->slots[i].img);
		free(l->slots[i].labels);
		free(l->slots[i].image);
		free(l->slots[i].position);
		free(l->slots[i].box);
	}
	if (l->trace) {
		if (ferror(l->trace) | fclose(l->trace))
			die("%s: write error", l->trace_tmp);
		if (rename(l->trace_tmp, l->trace_path) != 0)
			die("%s:", l->trace_path);
		free(l->trace_tmp);
		free(l->trace_path);
	}
	free(l->slots);
	free(l->th);
	sampler_free(&l->s);
	folder_free(&l->f);
	free(l);
}
