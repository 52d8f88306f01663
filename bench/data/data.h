/*
 * bench/data/data.h: bench's input pipeline for real images (bench --data).
 *
 * An ImageFolder tree (DIR/<class>/<image>, classes numbered in name order as
 * torchvision's ImageFolder numbers them) is read in per-rank shards of a
 * per-epoch permutation (DistributedSampler's semantics), each image decoded
 * by libjpeg-turbo at the smallest DCT scale that still covers its crop and
 * only over the crop's rows and columns, then RandomResizedCrop, a flip with
 * probability 1/2 and ImageNet's normalisation into a batch of fp32 NCHW
 * (the backends' BK_IMAGE input). Decoding threads fill a queue of batches
 * ahead of training.
 *
 *   folder.c  the tree and the sampler
 *   crop.c    RandomResizedCrop's box and the antialiased bilinear resampler
 *   decode.c  one image: read, decode the crop's region, resample, normalise
 *   decoder.c its scratch, freed
 *   jpeg_load.c  libjpeg-turbo, loaded at run time (decode_none.c: a build
 *             without it, which refuses --data)
 *   loader.c  the threads and the queue
 *   run.c     bench --data-only
 *   synth.c   bin/imagenet-synthetic, the data set anyone can make (a program of its own)
 */
#ifndef BENCH_DATA_H
#define BENCH_DATA_H

#include <stddef.h>
#include <stdint.h>

/* ---- the tree and the sampler (folder.c) ---- */

typedef struct folder {
	char *root;
	int nclasses;
	char **classes; /* [nclasses], sorted by name */
	long n;         /* images */
	char **path;    /* [n] root/class/.../file, classes in order, files sorted */
	int32_t *label; /* [n] */
} folder;

/* Scans root as torchvision's ImageFolder does (files with its image
 * extensions, any depth under a class directory). Dies naming the path: a
 * missing or unreadable directory, no class directory, a class with no
 * image. */
void folder_scan(folder *f, const char *root);
void folder_free(folder *f);

/* DistributedSampler: every epoch one permutation of [0, n) from seed +
 * epoch, the same on every rank, padded by its own head to a multiple of
 * world; rank r takes positions r, r + world, ... (n_per_rank of them). */
typedef struct sampler {
	long n, per_rank;
	int rank, world;
	uint64_t seed;
	long epoch; /* of perm */
	long *perm; /* [per_rank * world] */
} sampler;

void sampler_init(sampler *s, long n, int rank, int world, uint64_t seed);
/* The image of the k-th sample of this rank's stream (epochs one after the
 * other). Not thread-safe: the loader calls it under its lock. */
long sampler_image(sampler *s, long k);
/* Its place in the ranks' common stream: epoch * per_rank * world + its
 * position in the padded permutation. When world divides n, the same
 * number for the same image of the same epoch whatever the world. */
long sampler_position(const sampler *s, long k);
void sampler_free(sampler *s);

/* ---- the crop and the resampler (crop.c) ---- */

/* The random draws RandomResizedCrop makes, as torch makes them:
 * uniform(lo, hi) a float32 in [lo, hi) (torch.empty(1).uniform_),
 * randint(hi) an integer in [0, hi) (torch.randint(0, hi)). */
typedef struct draws {
	double (*uniform)(void *ctx, double lo, double hi);
	long (*randint)(void *ctx, long hi);
	void *ctx;
} draws;

/* torchvision's RandomResizedCrop.get_params(scale 0.08-1, ratio 3/4-4/3):
 * ten tries, then the centre crop fallback. box: top, left, height, width. */
void rrc_box(int width, int height, const draws *d, int box[4]);

/* One axis of PIL's antialiased bilinear resize of the span [b0, b1) of the
 * input to n outputs, taps clamped to [lo, hi) (what PIL does to a crop):
 * output i is sum_k w[i * taps + k] * in[first[i] + k]. */
typedef struct axis {
	int n, taps;
	int *first, *len; /* [n]: the first tap's input, the taps that are not 0 */
	float *w;         /* [n][taps] */
} axis;

void axis_plan(axis *a, int n, double b0, double b1, int lo, int hi);
void axis_free(axis *a);

/* The sample's random numbers: splitmix64, draws in torch's shapes. */
typedef struct srng {
	uint64_t s;
} srng;
void srng_seed(srng *r, uint64_t seed, uint64_t stream, uint64_t k);
double srng_uniform(void *r, double lo, double hi);
long srng_randint(void *r, long hi);

/* ---- libjpeg-turbo (jpeg_load.c) ---- */

/* 0 once libjpeg is loaded (the first call loads it, thread-safe); else why
 * is set and the result is 1 (this bench was built without it: JPEG=0) or
 * -1 (the library cannot be loaded). */
int jpeg_load(char *why, size_t n);

/* ---- one image (decode.c; decode_none.c without libjpeg) ---- */

enum { DATA_ERR_MAX = 512 };

/* A decoding thread's scratch: grown as needed, reused image after image. */
typedef struct decoder {
	unsigned char *file;
	size_t file_cap;
	unsigned char *pix; /* the crop's region, 3 or 4 bytes a pixel */
	size_t pix_cap;
	float *tmp; /* after the vertical pass: [size][row of floats] */
	size_t tmp_cap;
	axis ax, ay;
	int last_scale;         /* of the last image: eighths */
	char err[DATA_ERR_MAX]; /* the failure, naming the file */
} decoder;

typedef struct sample_opts {
	int size;      /* output px */
	int scale_min; /* eighths: 8 decodes at full scale (tests) */
	int no_flip;
} sample_opts;

/* Reads path, draws the crop and the flip from r, writes [3][size][size]
 * normalised fp32 to out. Returns the file's bytes, or -1 with d->err set.
 * box (may be NULL) gets the crop (top, left, height, width) and the flip. */
long decode_sample(decoder *d, const char *path, srng *r, const sample_opts *o, float *out,
		   int box[5]);
void decoder_free(decoder *d); /* decoder.c */

/* ---- the loader (loader.c) ---- */

typedef struct loader loader;

typedef struct loader_config {
	const char *dir;
	int batch, image, threads, prefetch;
	int rank, world;
	uint64_t seed;
	void *(*host_alloc)(size_t bytes); /* batch buffers: pinned on GPUs */
	void (*host_free)(void *p);
	/* NULL, or a file that gets a line per sample handed out, "iter slot
	 * position label top left height width flip path" (written as
	 * trace.tmp, renamed by loader_close) */
	const char *trace;
} loader_config;

/* Scans the tree (folder_scan's errors) and starts the threads. */
loader *loader_open(const loader_config *c);
int loader_classes(const loader *l);
long loader_images(const loader *l);
/* The next batch, in order: [batch][3][image][image] fp32 and [batch] labels;
 * *waited the seconds spent waiting for it. Dies with the decoding thread's
 * message (naming the file) when one failed. The batch stays valid until
 * loader_release. */
const float *loader_next(loader *l, const int32_t **labels, double *waited);
void loader_release(loader *l);
/* Totals of the batches handed out so far: images and bytes of JPEG read. */
void loader_totals(const loader *l, long *images, double *bytes);
void loader_close(loader *l);

/* bench --data-only (run.c): iters batches, the window after warmup; rank 0
 * prints the lines. */
void data_only_run(loader *l, int batch, int iters, int warmup, int rank);

#endif
