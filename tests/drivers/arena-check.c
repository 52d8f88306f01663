/*
 * tests/drivers/arena-check.c: bin/test-arena-check, a test of arena.c's memory
 * plan under step.c's walks.
 * A backend (backend.h) that does no arithmetic: it tags every byte of the
 * activation arena with the tensor that last wrote it, and checks every read
 * an op makes against those tags, in the order the backends make them: the
 * inputs before the outputs are written and again after (a kernel reads
 * while it writes), y in a batch norm's backward when y_kept (the CUDA
 * backend's fused form and its mask). It also stamps each parameter
 * gradient when backward writes it, and checks every ready(off) of
 * model_backward: all gradients from off up must be written by then (the
 * allreduce buckets start on it). Builds the model at the given batch, image
 * and element size, runs forward and backward three times, and prints what
 * it found:
 *
 *   usage: test-arena-check [-y] [-a] batch image bytes
 *   bytes: per activation element (4 fp32, 2 fp16/bf16)
 *   -y:    every batch norm with a ReLU reads y in backward, kept or not
 *   -a:    IResNet-50 with the ArcFace head (one shard), not ResNet50
 *
 * Output: one line per hazard (at most 10), then "batch B image PX bytes E:
 * arena N bytes, R reads checked, K ready offsets checked, H hazards"; exit 1
 * if any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "lib.h"
#include "model.h"

static int act_bytes = 4, all_read_y;
static long reads, hazards;

/* ---- memory: every allocation with a tag per byte ---- */

enum { MAX_BLOCKS = 64 };
static struct block {
	char *p;
	size_t n;
	int *tag; /* writer's tensor id, -1 never written */
} blocks[MAX_BLOCKS];
static int nblocks;

void *bk_malloc(size_t bytes)
{
	if (nblocks == MAX_BLOCKS)
		die("too many allocations");
	struct block *b = &blocks[nblocks++];
	b->p = xcalloc(bytes, 1);
	b->n = bytes;
	b->tag = NULL; /* made by the first tensor written into it: the arena */
	return b->p;
}

void bk_free(void *p)
{
	for (int i = 0; i < nblocks; i++) {
		if (blocks[i].p == p) {
			free(blocks[i].p);
			free(blocks[i].tag);
			blocks[i] = blocks[--nblocks];
			return;
		}
	}
}

static struct block *block_of(const void *p)
{
	for (int i = 0; i < nblocks; i++)
		if ((const char *)p >= blocks[i].p && (const char *)p < blocks[i].p + blocks[i].n)
			return &blocks[i];
	return NULL;
}

/* ---- tensors: an id each; value and gradient handles differ ---- */

struct bk_tensor {
	int kind, n, c, h, w, id;
	void *p;
};
static int ntensors;

static size_t raw_bytes(int kind, int n, int c, int h, int w)
{
	return (size_t)n * c * h * w * (kind == BK_ACT ? (size_t)act_bytes : sizeof(float));
}

/* As the CUDA backend: rounded up to 256 bytes. */
size_t bk_tensor_bytes(int kind, int n, int c, int h, int w)
{
	return (raw_bytes(kind, n, c, h, w) + 255) / 256 * 256;
}

bk_tensor *bk_tensor_create(int kind, int n, int c, int h, int w, void *storage)
{
	bk_tensor *t = xcalloc(1, sizeof *t);
	*t = (bk_tensor){kind, n, c, h, w, ntensors++, storage};
	return t;
}

void bk_tensor_destroy(bk_tensor *t)
{
	free(t);
}

static size_t used(const bk_tensor *t)
{
	return raw_bytes(t->kind, t->n, t->c, t->h, t->w);
}

static const char *op_name = "";

static void wr(const bk_tensor *t)
{
	struct block *b = t ? block_of(t->p) : NULL;
	if (!b)
		return;
	if (!b->tag) {
		b->tag = xcalloc(b->n, sizeof *b->tag);
		for (size_t i = 0; i < b->n; i++)
			b->tag[i] = -1;
	}
	size_t o = (size_t)((char *)t->p - b->p);
	for (size_t i = 0; i < used(t); i++)
		b->tag[o + i] = t->id;
}

static void rd(const bk_tensor *t, const char *what)
{
	struct block *b = t ? block_of(t->p) : NULL;
	if (!b)
		return;
	reads++;
	if (!b->tag) {
		if (hazards++ < 10)
			printf("hazard: %s reads %s (tensor %d), never written\n", op_name, what,
			       t->id);
		return;
	}
	size_t o = (size_t)((char *)t->p - b->p);
	for (size_t i = 0; i < used(t); i++) {
		if (b->tag[o + i] != t->id) {
			if (hazards++ < 10)
				printf("hazard: %s reads %s (tensor %d) at byte %zu, last written "
				       "by tensor %d\n",
				       op_name, what, t->id, i, b->tag[o + i]);
			return;
		}
	}
}

/* ---- parameter gradients: the step that last wrote each ---- */

static const float *grads; /* model's gradient buffer, [nparams] */
static size_t nparams;
static int *stamp, step;
static long ready_checks;

static void grad_written(const float *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stamp[(size_t)(g - grads) + i] = step;
}

static void ready(void *ctx, size_t off)
{
	(void)ctx;
	ready_checks++;
	for (size_t i = off; i < nparams; i++) {
		if (stamp[i] != step) {
			if (hazards++ < 10)
				printf("hazard: gradients from %zu reported final, but %zu is not "
				       "written yet\n",
				       off, i);
			return;
		}
	}
}

/* ---- ops: the reads and writes backend.h allows each ---- */

struct bk_op {
	bk_tensor *x, *z, *y, *dx, *dz, *dy;
	int accumulate, relu, y_kept, head;
	float *dw, *db; /* parameter gradients it writes, nw and nb of them */
	size_t nw, nb;
};

static bk_op *op_new(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	bk_op *op = xcalloc(1, sizeof *op);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	return op;
}

void bk_op_destroy(bk_op *op)
{
	free(op);
}

static void x_to_y(const bk_op *op, const char *name)
{
	op_name = name;
	rd(op->x, "x");
	wr(op->y);
	rd(op->x, "x (while y is written)");
}

static void dy_to_dx(const bk_op *op, const char *name)
{
	op_name = name;
	rd(op->dy, "dy");
	wr(op->dx);
	rd(op->dy, "dy (while dx is written)");
}

static void grads_written(const bk_op *op)
{
	grad_written(op->dw, op->nw);
	grad_written(op->db, op->nb);
}

bk_op *bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		    int pad, const float *w, float *dw, int accumulate)
{
	(void)stride, (void)pad, (void)w;
	bk_op *op = op_new(x, y, dx, dy);
	op->accumulate = accumulate;
	op->dw = dw;
	op->nw = (size_t)y->c * x->c * k * k;
	return op;
}

void bk_conv_forward(bk_op *op)
{
	x_to_y(op, "conv forward");
}

void bk_conv_backward_data(bk_op *op)
{
	if (op->accumulate) {
		op_name = "conv backward-data";
		rd(op->dx, "dx (accumulating)");
	}
	dy_to_dx(op, "conv backward-data");
}

void bk_conv_backward_weights(bk_op *op)
{
	op_name = "conv backward-weights";
	rd(op->x, "x");
	rd(op->dy, "dy");
	grads_written(op);
}

bk_op *bk_bn_plan(bk_tensor *x, bk_tensor *z, bk_tensor *y, bk_tensor *dx, bk_tensor *dz,
		  bk_tensor *dy, int relu, int y_kept, int accumulate, const float *gamma,
		  const float *beta, float *dgamma, float *dbeta, float *running_mean,
		  float *running_var, float eps, float momentum)
{
	(void)gamma, (void)beta, (void)running_mean, (void)running_var, (void)eps, (void)momentum;
	bk_op *op = op_new(x, y, dx, dy);
	op->z = z;
	op->dz = dz;
	op->relu = relu;
	op->y_kept = y_kept;
	op->accumulate = accumulate;
	op->dw = dgamma;
	op->db = dbeta;
	op->nw = op->nb = (size_t)x->c;
	return op;
}

/* The unfused add reads y and z after the batch norm has written y. */
void bk_bn_forward(bk_op *op)
{
	op_name = "batch norm forward";
	rd(op->x, "x");
	wr(op->y);
	rd(op->x, "x (while y is written)");
	rd(op->z, "z");
}

/* The mask (fused: cuDNN) reads y and dy while it writes dz; the batch norm
 * reads x and its input gradient (dz after an unfused add) while it
 * writes dx. */
static void bn_reads(const bk_op *op, const char *when)
{
	char what[64];
	snprintf(what, sizeof what, "x%s", when);
	rd(op->x, what);
	if (op->relu && (op->y_kept || all_read_y)) {
		snprintf(what, sizeof what, "y (the ReLU mask)%s", when);
		rd(op->y, what);
	}
	snprintf(what, sizeof what, "dy%s", when);
	rd(op->dy, what);
}

void bk_bn_backward(bk_op *op)
{
	op_name = "batch norm backward";
	if (op->accumulate)
		rd(op->dx, "dx (accumulating)");
	bn_reads(op, "");
	if (op->dz) {
		wr(op->dz);
		bn_reads(op, " (while dz is written)");
	}
	wr(op->dx);
	bn_reads(op, " (while dx is written)");
	if (op->dz)
		rd(op->dz, "dz (while dx is written)");
	grads_written(op);
}

bk_op *bk_maxpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		       int pad)
{
	(void)k, (void)stride, (void)pad;
	return op_new(x, y, dx, dy);
}

void bk_maxpool_forward(bk_op *op)
{
	x_to_y(op, "max pooling forward");
}

void bk_maxpool_backward(bk_op *op)
{
	dy_to_dx(op, "max pooling backward");
}

bk_op *bk_avgpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	return op_new(x, y, dx, dy);
}

void bk_avgpool_forward(bk_op *op)
{
	x_to_y(op, "average pooling forward");
}

void bk_avgpool_backward(bk_op *op)
{
	dy_to_dx(op, "average pooling backward");
}

bk_op *bk_fc_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *w,
		  const float *b, float *dw, float *db)
{
	(void)w, (void)b;
	bk_op *op = op_new(x, y, dx, dy);
	op->dw = dw;
	op->db = db;
	op->nw = (size_t)y->c * x->c;
	op->nb = (size_t)y->c;
	return op;
}

void bk_fc_forward(bk_op *op)
{
	x_to_y(op, "fc forward");
}

void bk_fc_backward(bk_op *op)
{
	op_name = "fc backward";
	rd(op->x, "x");
	dy_to_dx(op, "fc backward");
	rd(op->x, "x (while dx is written)");
	grads_written(op);
}

void bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing, float scale,
		   bk_tensor *dlogits)
{
	(void)labels, (void)smoothing, (void)scale;
	op_name = "softmax cross-entropy";
	rd(logits, "logits");
	wr(dlogits);
	rd(logits, "logits (while their gradient is written)");
}

bk_op *bk_prelu_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *a,
		     float *da)
{
	(void)a;
	bk_op *op = op_new(x, y, dx, dy);
	op->dw = da;
	op->nw = (size_t)x->c;
	return op;
}

void bk_prelu_forward(bk_op *op)
{
	x_to_y(op, "prelu forward");
}

void bk_prelu_backward(bk_op *op)
{
	op_name = "prelu backward";
	rd(op->x, "x");
	dy_to_dx(op, "prelu backward");
	rd(op->x, "x (while dx is written)");
	grads_written(op);
}

bk_op *bk_flatten_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	return op_new(x, y, dx, dy);
}

void bk_flatten_forward(bk_op *op)
{
	x_to_y(op, "flatten forward");
}

void bk_flatten_backward(bk_op *op)
{
	dy_to_dx(op, "flatten backward");
}

bk_op *bk_dropout_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, float p,
		       uint64_t seed, long first_sample)
{
	(void)p, (void)seed, (void)first_sample;
	return op_new(x, y, dx, dy);
}

void bk_dropout_forward(bk_op *op, long step)
{
	(void)step;
	x_to_y(op, "dropout forward");
}

void bk_dropout_backward(bk_op *op)
{
	dy_to_dx(op, "dropout backward");
}

/* The head: x in; the logits (y) and their gradient (dy) written in
 * forward; dy read and the weights' gradient written by backward, dx by
 * backward_x. Its own buffers (xall, ...) are outside the arena. */
bk_op *bk_arcface_plan(const bk_arcface_shape *s, bk_tensor *x, bk_tensor *dx, bk_tensor *logits,
		       bk_tensor *dlogits, const float *w, float *dw, float *xall, float *dxall,
		       const float *dxn, const int32_t *labels, float *stats)
{
	(void)w, (void)xall, (void)dxall, (void)dxn, (void)labels, (void)stats;
	bk_op *op = op_new(x, logits, dx, dlogits);
	op->dw = dw;
	op->nw = (size_t)s->cr * s->e;
	return op;
}

void bk_arcface_embed(bk_op *op)
{
	op_name = "arcface embed";
	rd(op->x, "x");
}

void bk_arcface_logits(bk_op *op)
{
	op_name = "arcface logits";
	wr(op->y);
}

void bk_arcface_expsum(bk_op *op)
{
	op_name = "arcface expsum";
	rd(op->y, "logits");
}

void bk_arcface_loss(bk_op *op, float scale)
{
	(void)scale;
	op_name = "arcface loss";
	rd(op->y, "logits");
	wr(op->dy);
	rd(op->y, "logits (while their gradient is written)");
}

void bk_arcface_backward(bk_op *op)
{
	op_name = "arcface backward";
	rd(op->dy, "dlogits");
	grads_written(op);
}

void bk_arcface_backward_x(bk_op *op)
{
	op_name = "arcface backward_x";
	wr(op->dx);
}

/* One shard: the head calls no collective. */
void comm_allgather(float *buf, size_t count)
{
	(void)buf;
	die("test-arena-check: allgather of %zu with one rank", count);
}
void comm_allgather_i32(const int32_t *send, int32_t *recv, size_t count)
{
	(void)send, (void)recv;
	die("test-arena-check: allgather of %zu with one rank", count);
}
void comm_allreduce_max(float *buf, size_t count)
{
	(void)buf;
	die("test-arena-check: allreduce of %zu with one rank", count);
}
void comm_allreduce_sum(float *buf, size_t count)
{
	(void)buf;
	die("test-arena-check: allreduce of %zu with one rank", count);
}
void comm_reduce_scatter(const float *send, float *recv, size_t count)
{
	(void)send, (void)recv;
	die("test-arena-check: reduce-scatter of %zu with one rank", count);
}

static int num(const char *what, const char *s, long lo, long hi)
{
	long v;
	if (parse_long(s, lo, hi, &v) != 0)
		die_usage("%s: '%s' is not an integer in [%ld, %ld]", what, s, lo, hi);
	return (int)v;
}

/* step.c's walks put --profile's marks only when profiling, which this
 * driver never turns on; the ops here are done when they return. */
void bk_sync(void)
{
}
void bk_prof_init(int n)
{
	die("test-arena-check: no profile (%d marks asked)", n);
}
void bk_prof_mark(int i)
{
	die("test-arena-check: no profile (mark %d)", i);
}
double bk_prof_ms(int i, int j)
{
	die("test-arena-check: no profile (marks %d, %d)", i, j);
}

int main(int argc, char **argv)
{
	progname = "test-arena-check";
	usage_text = "test-arena-check [-y] [-a] batch image bytes";
	int a = 1, arcface = 0;
	for (; a < argc && (!strcmp(argv[a], "-y") || !strcmp(argv[a], "-a")); a++) {
		if (argv[a][1] == 'y')
			all_read_y = 1;
		else
			arcface = 1;
	}
	if (argc - a != 3)
		usage();
	int batch = num("batch", argv[a], 1, 1024), image = num("image", argv[a + 1], 32, 512);
	if (strcmp(argv[a + 2], "2") && strcmp(argv[a + 2], "4"))
		die_usage("bytes: '%s' is not 2 or 4", argv[a + 2]);
	act_bytes = argv[a + 2][0] - '0';
	static model m;
	model_config mc = arcface ? model_config_default(ARCH_IRESNET50, HEAD_ARCFACE)
				  : model_config_default(ARCH_RESNET50, HEAD_SOFTMAX);
	mc.batch = batch;
	mc.image = image;
	model_build(&m, &mc);
	model_plan(&m);
	wr(m.tensors[m.input].t); /* written once, at start-up */
	grads = m.grads;
	nparams = m.nparams;
	stamp = xcalloc(nparams, sizeof *stamp);
	for (step = 1; step <= 3; step++) {
		model_forward(&m, 0.0f, 1.0f);
		model_backward(&m, ready, NULL);
	}
	printf("%sbatch %d image %d bytes %d: arena %zu bytes, %ld reads checked, %ld ready "
	       "offsets checked, %ld hazards\n",
	       arcface ? "iresnet50 arcface " : "", batch, image, act_bytes, m.acts_bytes, reads,
	       ready_checks, hazards);
	free(stamp);
	model_release(&m);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return hazards != 0;
}
