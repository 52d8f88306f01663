/*
 * bench/data/decode.c: one training sample from one JPEG file. The file is
 * read whole; libjpeg-turbo decodes it at the smallest of the scales 1/8,
 * 2/8, 4/8, 8/8 (its SIMD ones, pick_scale) at which the crop still spans
 * the output size, and only the crop's columns (jpeg_crop_scanline) and
 * rows (jpeg_skip_scanlines above, nothing decoded below), as DALI's region
 * decode does. The region is resampled to
 * size x size by PIL's antialiased bilinear filter, flipped with probability
 * 1/2, and normalised with ImageNet's mean and standard deviation into
 * [3][size][size] fp32.
 *
 * Grayscale is decoded to RGB, CMYK and YCCK converted as PIL converts them;
 * anything else that is not a whole JPEG is an error naming the file: data
 * that ends early (libjpeg's "Premature end of JPEG file", or no end of image
 * marker at the end of the file, which a decode that stops at the crop would
 * not reach). libjpeg is loaded on the first image (jpeg_load.h); a bench
 * built without it has decode_none.c instead.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "jpeg_load.h"
#include "lib.h"

static const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	decoder *d;
	const char *path;
};

static void on_error(j_common_ptr c)
{
	struct jerr *e = (struct jerr *)c->err;
	char m[JMSG_LENGTH_MAX];
	c->err->format_message(c, m);
	snprintf(e->d->err, sizeof e->d->err, "%s: %s", e->path, m);
	longjmp(e->jb, 1);
}

/* Warnings: data that ends early is an error (PIL: "image file is
 * truncated"); the rest (extraneous bytes before a marker, as a few ImageNet
 * files have) is decoded as libjpeg decodes it, as PIL does. */
static void on_message(j_common_ptr c, int level)
{
	if (level < 0 && (c->err->msg_code == JWRN_JPEG_EOF || c->err->msg_code == JWRN_HIT_MARKER))
		on_error(c);
}

/* Not inlined: its locals would share decode_sample's frame with setjmp. */
__attribute__((noinline)) static int read_file(decoder *d, const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(d->err, sizeof d->err, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = 0;
	for (;;) {
		if (n == d->file_cap)
			d->file = xgrow(d->file, &d->file_cap, n + 65536, 1);
		size_t got = fread(d->file + n, 1, d->file_cap - n, fp);
		n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(fp);
	int saved = errno;
	fclose(fp);
	if (bad) {
		snprintf(d->err, sizeof d->err, "%s: %s", path, strerror(saved));
		return -1;
	}
	*len = n;
	return 0;
}

/* An end of image marker in the last bytes (a few bytes of padding after it
 * are common). */
static int has_eoi(const unsigned char *p, size_t n)
{
	size_t from = n > 64 ? n - 64 : 0;
	for (size_t i = n; i-- > from + 1;)
		if (p[i - 1] == 0xff && p[i] == 0xd9)
			return 1;
	return 0;
}

static void *grow(void *p, size_t *cap, size_t need)
{
	return need > *cap ? xgrow(p, cap, need, 1) : p;
}

/* PIL's CMYK to RGB (Convert.c, cmyk2rgb: nk - C * nk / 255 rounded as
 * its MULDIV255), in place over the region's rows, 4 bytes a pixel in and 3
 * out; Adobe writes CMYK inverted, which PIL's "CMYK;I" reads back. */
static void cmyk_to_rgb(unsigned char *pix, size_t row_bytes, int rh, int cw, int adobe)
{
	for (int y = 0; y < rh; y++) {
		unsigned char *row = pix + (size_t)y * row_bytes;
		for (int x = 0; x < cw; x++) {
			const unsigned char *p = row + 4 * (size_t)x;
			int k = adobe ? 255 - p[3] : p[3], nk = 255 - k, rgb[3];
			for (int c = 0; c < 3; c++) {
				int ink = adobe ? 255 - p[c] : p[c], t = ink * nk + 128;
				rgb[c] = nk - (((t >> 8) + t) >> 8);
			}
			unsigned char *q = row + 3 * (size_t)x; /* q <= p: p is read first */
			q[0] = (unsigned char)rgb[0];
			q[1] = (unsigned char)rgb[1];
			q[2] = (unsigned char)rgb[2];
		}
	}
}

/*
 * The resize's two passes, vertical first: each output row is a weighted
 * sum of whole input rows (contiguous bytes, which the compiler vectorises),
 * so the horizontal pass, the one with a gather per tap, runs over size rows
 * instead of the region's rh (more whenever the crop is shrunk, as it
 * mostly is). The sum is the same as PIL's horizontal-first order up to
 * float rounding. Built for AVX-512, AVX2 and the baseline, chosen at load
 * time.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ISA_CLONES
#endif

/* tv[y][0 .. n) = sum over the taps of row y of ay, of the region's rows
 * (bytes, row_bytes apart, the first being row ry0); then zeros to stride. */
ISA_CLONES static void rows_pass(const unsigned char *restrict pix, size_t row_bytes, int ry0,
				 const axis *ay, size_t n, size_t stride, float *restrict tv)
{
	for (int y = 0; y < ay->n; y++) {
		float *restrict t = tv + (size_t)y * stride;
		const float *w = ay->w + (size_t)y * ay->taps;
		const unsigned char *restrict src = pix + (size_t)(ay->first[y] - ry0) * row_bytes;
		for (size_t j = 0; j < n; j++)
			t[j] = 0.0f;
		for (int k = 0; k < ay->len[y]; k++, src += row_bytes) {
			float wk = w[k];
			for (size_t j = 0; j < n; j++)
				t[j] += wk * (float)src[j];
		}
		for (size_t j = n; j < stride; j++)
			t[j] = 0.0f;
	}
}

/* Four floats as one SSE register (GCC's and clang's vector extension). */
typedef float v4f __attribute__((vector_size(16)));

/* out[c][y][x] = (sum over the taps of column x of ax, of tv's RGB pixels
 * from column rx0) * a[c] - o[c], x mirrored when flip. A tap is one
 * 4-float multiply-add of a pixel's R, G, B and the next pixel's R (unused);
 * tv's rows are padded with ax->taps zero pixels and one float, so every read
 * is inside. */
ISA_CLONES static void cols_pass(const float *restrict tv, size_t stride, int rows, int rx0,
				 const axis *ax, int flip, const float a[3], const float o[3],
				 float *restrict out)
{
	int size = ax->n, taps = ax->taps;
	size_t plane = (size_t)rows * size;
	for (int y = 0; y < rows; y++) {
		const float *t = tv + (size_t)y * stride;
		float *restrict dst = out + (size_t)y * size;
		for (int x = 0; x < size; x++) {
			const float *w = ax->w + (size_t)x * taps;
			const float *p = t + (size_t)(ax->first[x] - rx0) * 3;
			v4f acc = {0, 0, 0, 0};
			for (int k = 0; k < ax->len[x]; k++, p += 3) {
				v4f v;
				memcpy(&v, p, sizeof v);
				acc += w[k] * v;
			}
			int xo = flip ? size - 1 - x : x;
			dst[xo] = acc[0] * a[0] - o[0];
			dst[plane + xo] = acc[1] * a[1] - o[1];
			dst[2 * plane + xo] = acc[2] * a[2] - o[2];
		}
	}
}

/* The region's rh rows of cw pixels (row_bytes apart, ncomp bytes a pixel,
 * the first at column rx0, row ry0) to out: PIL's antialiased bilinear
 * resize to size x size, flip, normalise. */
static void resample(decoder *d, size_t row_bytes, int rx0, int ry0, int rh, int cw, int ncomp,
		     int adobe, int size, int flip, float *out)
{
	if (ncomp == 4)
		cmyk_to_rgb(d->pix, row_bytes, rh, cw, adobe);
	size_t n = (size_t)cw * 3, stride = n + (size_t)d->ax.taps * 3 + 1;
	stride = (stride + 15) & ~(size_t)15; /* rows a multiple of 64 bytes long */
	d->tmp = grow(d->tmp, &d->tmp_cap, (size_t)size * stride * sizeof(float));
	rows_pass(d->pix, row_bytes, ry0, &d->ay, n, stride, d->tmp);
	float a[3], o[3];
	for (int c = 0; c < 3; c++) {
		a[c] = 1.0f / (255.0f * stdev[c]);
		o[c] = mean[c] / stdev[c];
	}
	cols_pass(d->tmp, stride, size, rx0, &d->ax, flip, a, o, out);
}

/*
 * The smallest of 1/8, 2/8, 4/8 and 8/8 at which the crop still spans size
 * pixels each way (at least scale_min eighths). libjpeg-turbo has SIMD
 * inverse DCTs for those four scales only; at 3/8, 5/8, 6/8 and 7/8 its
 * IDCTs (and the larger ones that upsample the chroma) are scalar C, and
 * decoding more pixels at 8/8 costs less CPU than those (doc/performance.md
 * has the figures).
 */
static int pick_scale(int h, int w, int size, int scale_min)
{
	int k = 1;
	while (k < scale_min)
		k *= 2;
	while (k < 8 && ((long)w * k < 8L * size || (long)h * k < 8L * size))
		k *= 2;
	return k;
}

/* libjpeg, loaded on the first image (a call after that returns at once). */
__attribute__((noinline)) static int need_libjpeg(decoder *d, const char *path)
{
	char why[DATA_ERR_MAX / 2]; /* room for the path before it */
	if (jpeg_load(why, sizeof why) == 0)
		return 0;
	snprintf(d->err, sizeof d->err, "%s: %s", path, why);
	return -1;
}

long decode_sample(decoder *d, const char *path, srng *r, const sample_opts *o, float *out,
		   int box[5])
{
	size_t len;
	if (need_libjpeg(d, path) != 0 || read_file(d, path, &len) != 0)
		return -1;
	struct jpeg_decompress_struct cinfo;
	struct jerr e;
	cinfo.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = on_error;
	e.pub.emit_message = on_message;
	e.d = d;
	e.path = path;
	if (setjmp(e.jb)) {
		jpeg_destroy_decompress(&cinfo);
		return -1;
	}
	jpeg_create_decompress(&cinfo);
	jpeg_mem_src(&cinfo, d->file, (unsigned long)len);
	jpeg_read_header(&cinfo, TRUE);
	if (!has_eoi(d->file, len)) {
		snprintf(d->err, sizeof d->err, "%s: no end of image marker: truncated JPEG", path);
		jpeg_destroy_decompress(&cinfo);
		return -1;
	}
	int W = (int)cinfo.image_width, H = (int)cinfo.image_height;
	int b[4];
	rrc_box(W, H, &(draws){srng_uniform, srng_randint, r}, b);
	/* torchvision's RandomHorizontalFlip: torch.rand(1) < 0.5 */
	int flip = !o->no_flip && srng_uniform(r, 0.0, 1.0) < 0.5;
	if (box) {
		memcpy(box, b, sizeof b);
		box[4] = flip;
	}
	int k = pick_scale(b[2], b[3], o->size, o->scale_min);
	d->last_scale = k;
	cinfo.scale_num = (unsigned)k;
	cinfo.scale_denom = 8;
	int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
	cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
	jpeg_start_decompress(&cinfo);
	int ncomp = cinfo.output_components;
	/* the crop in the scaled image, and the pixels its filter reads */
	double sx = (double)cinfo.output_width / W, sy = (double)cinfo.output_height / H;
	double x0 = b[1] * sx, x1 = (b[1] + b[3]) * sx, y0 = b[0] * sy, y1 = (b[0] + b[2]) * sy;
	int lx = (int)floor(x0), hx = (int)ceil(x1), ly = (int)floor(y0), hy = (int)ceil(y1);
	if (hx > (int)cinfo.output_width)
		hx = (int)cinfo.output_width;
	if (hy > (int)cinfo.output_height)
		hy = (int)cinfo.output_height;
	axis_plan(&d->ax, o->size, x0, x1, lx, hx);
	axis_plan(&d->ay, o->size, y0, y1, ly, hy);
	JDIMENSION xoff = (JDIMENSION)lx, cw = (JDIMENSION)(hx - lx);
	if (cw < cinfo.output_width)
		jpeg_crop_scanline(&cinfo, &xoff, &cw);
	else
		xoff = 0;
	size_t row_bytes = (size_t)cinfo.output_width * (size_t)ncomp;
	int rh = hy - ly;
	d->pix = grow(d->pix, &d->pix_cap, row_bytes * (size_t)rh);
	if (ly > 0 && jpeg_skip_scanlines(&cinfo, (JDIMENSION)ly) != (JDIMENSION)ly) {
		snprintf(d->err, sizeof d->err, "%s: cannot skip to row %d", path, ly);
		jpeg_destroy_decompress(&cinfo);
		return -1;
	}
	for (int y = 0; y < rh; y++) {
		JSAMPROW row = d->pix + (size_t)y * row_bytes;
		if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) {
			snprintf(d->err, sizeof d->err, "%s: row %d not decoded", path, ly + y);
			jpeg_destroy_decompress(&cinfo);
			return -1;
		}
	}
	int adobe = cinfo.saw_Adobe_marker;
	jpeg_abort_decompress(&cinfo);
	jpeg_destroy_decompress(&cinfo);
	resample(d, row_bytes, (int)xoff, ly, rh, (int)cw, ncomp, adobe, o->size, flip, out);
	return (long)len;
}
