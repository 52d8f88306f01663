/*
 * bench/data/synth.c: bin/imagenet-synthetic, an ImageFolder tree of JPEGs
 * that anyone can make, shaped like ImageNet's train set: N images in
 * CLASSES classes (DIR/n00000000/n00000000_0.JPEG, ...), sizes around
 * 500 x 375 with ImageNet's spread of shapes, quality about 90, 4:2:0, and
 * content that compresses like a photograph (doc/bench.md says how its
 * decode cost compares with ImageNet's): fractal noise with a natural
 * image's 1/f amplitude spectrum, soft-edged objects, lighting and sensor
 * grain, in colours of the class's own, so a classifier can tell classes
 * apart. Deterministic from the seed. Prints a summary on stderr.
 *
 *   imagenet-synthetic [-n images] [-c classes] [-s seed] [-j threads] DIR
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <turbojpeg.h>

#include "data.h"
#include "lib.h"

/* The content's knobs, tuned so that a tree has ImageNet's bytes a pixel at
 * quality 90 (doc/bench.md): the luminance's octaves and their persistence
 * (1/2 would be a smooth 1/f spectrum; more keeps the fine detail of
 * foliage, fur and fabric), the most objects an image has and the
 * sharpness of their edges, the sensor grain's range (levels). */
#define PERSIST 0.87f
#define OCTAVES 10
#define NOBJ    12
#define EDGE    40.0f
#define GRAIN   2.0, 5.0

typedef struct job {
	const char *dir;
	long n, classes, seed;
	int threads, index;
	/* totals of this thread's images */
	double pixels, width, height, bytes, quality;
	long count;
	char err[4352];
} job;

/* value noise: a 1024 x 1024 lattice of values in [-1, 1] made once, each
 * octave of each image at an offset of its own, smoothly interpolated */
enum { LAT = 1024 };
static float *lat;

static void lattice_init(uint64_t seed)
{
	srng r;
	srng_seed(&r, seed, 1234, 0);
	lat = xmalloc((size_t)LAT * LAT * sizeof *lat);
	for (size_t i = 0; i < (size_t)LAT * LAT; i++)
		lat[i] = (float)srng_uniform(&r, -1.0, 1.0);
}

static float vnoise(unsigned ox, unsigned oy, float x, float y)
{
	int x0 = (int)floorf(x), y0 = (int)floorf(y);
	float fx = x - (float)x0, fy = y - (float)y0;
	fx = fx * fx * (3.0f - 2.0f * fx);
	fy = fy * fy * (3.0f - 2.0f * fy);
	unsigned xa = ((unsigned)x0 + ox) % LAT, xb = (xa + 1) % LAT;
	const float *r0 = lat + (size_t)(((unsigned)y0 + oy) % LAT) * LAT;
	const float *r1 = lat + (size_t)(((unsigned)y0 + oy + 1) % LAT) * LAT;
	float a = r0[xa], b = r0[xb], c = r1[xa], d = r1[xb];
	return a + (b - a) * fx + (c - a) * fy + (a - b - c + d) * fx * fy;
}

/* A field of octaves: amplitude persistence^o at frequency base * 2^o
 * (persistence 1/2 is a natural image's 1/f amplitude spectrum). */
static void fbm(float *out, int w, int h, srng *r, float base, float persistence, int octaves)
{
	memset(out, 0, (size_t)w * h * sizeof *out);
	float amp = 1.0f, f = base;
	for (int o = 0; o < octaves; o++, amp *= persistence, f *= 2.0f) {
		unsigned ox = (unsigned)srng_randint(r, LAT), oy = (unsigned)srng_randint(r, LAT);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
				out[(size_t)y * w + x] +=
					amp * vnoise(ox, oy, (float)x * f, (float)y * f);
	}
}

static double gauss(srng *r)
{
	double u = srng_uniform(r, 1e-7, 1.0), v = srng_uniform(r, 0.0, 1.0);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* ImageNet's shapes: mostly 500 on the long side, 4:3 most often, a spread
 * of other sizes and ratios, a fifth in portrait. */
static void pick_size(srng *r, int *w, int *h)
{
	double u = srng_uniform(r, 0.0, 1.0);
	double lng = u < 0.72 ? 500.0 : exp(log(450.0) + 0.45 * gauss(r));
	if (lng < 80)
		lng = 80;
	if (lng > 2500)
		lng = 2500;
	double v = srng_uniform(r, 0.0, 1.0);
	double ratio = v < 0.55   ? 4.0 / 3.0
		       : v < 0.75 ? 1.5
		       : v < 0.82 ? 1.0
				  : 1.0 + srng_uniform(r, 0.0, 1.0);
	int a = (int)lrint(lng), b = (int)lrint(lng / ratio);
	if (srng_uniform(r, 0.0, 1.0) < 0.2) {
		*w = b;
		*h = a;
	} else {
		*w = a;
		*h = b;
	}
}

static void hsv(float hue, float s, float v, float rgb[3])
{
	hue -= floorf(hue);
	float h6 = hue * 6.0f, f = h6 - floorf(h6);
	float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
	int i = (int)h6 % 6;
	float c[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
	memcpy(rgb, c[i], sizeof c[i]);
}

static int make_image(job *j, tjhandle tj, long i, unsigned char **jpeg, unsigned long *size,
		      int *W, int *H, int *Q)
{
	long cls = i % j->classes;
	srng r;
	srng_seed(&r, (uint64_t)j->seed, 77, (uint64_t)i);
	int w, h;
	pick_size(&r, &w, &h);
	int q = 90 + (int)lrint(2.0 * gauss(&r));
	q = q < 75 ? 75 : q > 98 ? 98 : q;
	size_t np = (size_t)w * h;
	float *L = xmalloc(np * sizeof *L), *A = xmalloc(np * sizeof *A);
	unsigned char *rgb = xmalloc(np * 3);
	float scale = 1.0f / 160.0f;
	fbm(L, w, h, &r, scale, PERSIST, OCTAVES);
	fbm(A, w, h, &r, scale * 0.5f, 0.5f, 4);
	/* the class's colours and texture */
	float hue = (float)fmod((double)cls * 0.61803398875, 1.0);
	float hue2 = hue + 0.15f + 0.1f * (float)srng_uniform(&r, -1, 1);
	/* soft-edged objects */
	int nobj = 1 + (int)srng_randint(&r, NOBJ);
	float ox[NOBJ], oy[NOBJ], orx[NOBJ], ory[NOBJ];
	for (int k = 0; k < nobj; k++) {
		ox[k] = (float)srng_uniform(&r, 0.1, 0.9) * w;
		oy[k] = (float)srng_uniform(&r, 0.1, 0.9) * h;
		orx[k] = (float)srng_uniform(&r, 0.08, 0.35) * w;
		ory[k] = (float)srng_uniform(&r, 0.08, 0.35) * h;
	}
	float grain = (float)srng_uniform(&r, GRAIN);
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			size_t p = (size_t)y * w + x;
			float l = L[p], a = A[p], obj = 0.0f;
			for (int k = 0; k < nobj; k++) {
				float dx = ((float)x - ox[k]) / orx[k],
				      dy = ((float)y - oy[k]) / ory[k];
				float d = sqrtf(dx * dx + dy * dy) + 0.3f * l;
				float m = 1.0f / (1.0f + expf((d - 1.0f) * EDGE));
				obj = obj > m ? obj : m;
			}
			float light =
				0.55f + 0.25f * (float)(y) / (float)h * (a > 0 ? 1.0f : -1.0f);
			float c1[3], c2[3];
			float sat = 0.55f + 0.2f * a;
			hsv(hue + 0.04f * a,
			    sat < 0.25f  ? 0.25f
			    : sat > 0.9f ? 0.9f
					 : sat,
			    light + 0.35f * l, c1);
			hsv(hue2 + 0.08f * l, 0.5f, 0.5f + 0.4f * l, c2);
			for (int c = 0; c < 3; c++) {
				float v = 255.0f * (c1[c] * (1 - obj) + c2[c] * obj) +
					  grain * (float)gauss(&r);
				rgb[p * 3 + c] = (unsigned char)(v < 0     ? 0
								 : v > 255 ? 255
									   : lrintf(v));
			}
		}
	}
	free(L);
	free(A);
	int rc = tjCompress2(tj, rgb, w, 0, h, TJPF_RGB, jpeg, size, TJSAMP_420, q, 0);
	free(rgb);
	if (rc != 0) {
		snprintf(j->err, sizeof j->err, "image %ld: tjCompress2: %s", i,
			 tjGetErrorStr2(tj));
		return -1;
	}
	*W = w;
	*H = h;
	*Q = q;
	return 0;
}

static void *run(void *arg)
{
	job *j = arg;
	tjhandle tj = tjInitCompress();
	if (!tj) {
		snprintf(j->err, sizeof j->err, "tjInitCompress: %s", tjGetErrorStr2(NULL));
		return NULL;
	}
	for (long i = j->index; i < j->n; i += j->threads) {
		unsigned char *jpeg = NULL; /* tjCompress2 allocates it */
		unsigned long size = 0;
		int w, h, q;
		if (make_image(j, tj, i, &jpeg, &size, &w, &h, &q) != 0)
			break;
		char path[4096];
		long cls = i % j->classes;
		snprintf(path, sizeof path, "%s/n%08ld/n%08ld_%ld.JPEG", j->dir, cls, cls,
			 i / j->classes);
		FILE *fp = fopen(path, "wb");
		int bad = !fp || fwrite(jpeg, 1, size, fp) != size;
		if (fp && fclose(fp) != 0)
			bad = 1;
		tjFree(jpeg);
		if (bad) {
			snprintf(j->err, sizeof j->err, "%s: %s", path, strerror(errno));
			break;
		}
		j->count++;
		j->width += w;
		j->height += h;
		j->pixels += (double)w * h;
		j->bytes += (double)size;
		j->quality += q;
	}
	if (tjDestroy(tj) != 0 && !j->err[0])
		snprintf(j->err, sizeof j->err, "tjDestroy: %s", tjGetErrorStr2(NULL));
	return NULL;
}

int main(int argc, char **argv)
{
	progname = "imagenet-synthetic";
	usage_text = "imagenet-synthetic [-n images] [-c classes] [-s seed] [-j threads] DIR";
	long n = 1000, classes = 10, seed = 1, threads = sysconf(_SC_NPROCESSORS_ONLN);
	int opt;
	while ((opt = getopt(argc, argv, "n:c:s:j:")) != -1) {
		switch (opt) {
		case 'n':
			n = flag_int("-n", optarg, 1, 100000000);
			break;
		case 'c':
			classes = flag_int("-c", optarg, 1, 100000);
			break;
		case 's':
			seed = flag_int("-s", optarg, 0, 1L << 40);
			break;
		case 'j':
			threads = flag_int("-j", optarg, 1, 1024);
			break;
		default:
			usage();
		}
	}
	if (optind + 1 != argc)
		usage();
	if (classes > n)
		die_usage("-c: %ld classes need at least as many images (-n %ld)", classes, n);
	const char *dir = argv[optind];
	lattice_init((uint64_t)seed);
	if (mkdir(dir, 0777) != 0)
		die("%s:", dir);
	for (long c = 0; c < classes; c++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/n%08ld", dir, c);
		if (mkdir(path, 0777) != 0)
			die("%s:", path);
	}
	if (threads < 1)
		threads = 1;
	job *jobs = xcalloc((size_t)threads, sizeof *jobs);
	pthread_t *th = xcalloc((size_t)threads, sizeof *th);
	for (int t = 0; t < threads; t++) {
		jobs[t] = (job){.dir = dir,
				.n = n,
				.classes = classes,
				.seed = seed,
				.threads = (int)threads,
				.index = t};
		int rc = pthread_create(&th[t], NULL, run, &jobs[t]);
		if (rc != 0)
			die("pthread_create: %s", strerror(rc));
	}
	job sum = {0};
	for (int t = 0; t < threads; t++) {
		int rc = pthread_join(th[t], NULL);
		if (rc != 0)
			die("pthread_join: %s", strerror(rc));
		if (jobs[t].err[0])
			die("%s", jobs[t].err);
		sum.count += jobs[t].count;
		sum.width += jobs[t].width;
		sum.height += jobs[t].height;
		sum.pixels += jobs[t].pixels;
		sum.bytes += jobs[t].bytes;
		sum.quality += jobs[t].quality;
	}
	warnf("%s: %ld images in %ld classes, mean %.0f x %.0f px, %.1f KB, %.2f bits a pixel, "
	      "quality %.1f",
	      dir, sum.count, classes, sum.width / sum.count, sum.height / sum.count,
	      sum.bytes / sum.count / 1000.0, 8.0 * sum.bytes / sum.pixels,
	      sum.quality / sum.count);
	free(jobs);
	free(th);
	return 0;
}
