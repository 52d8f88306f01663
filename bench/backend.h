/*
 * bench/backend.h: the one interface of ops. The model's plan and walks
 * (bench/arena.c, step.c) and the trainer (bench/main.c) call only these;
 * bench/cpu/ implements them on oneDNN, bench/cuda/ on cuDNN + cuBLAS +
 * kernels of its own.
 *
 * Rules every backend keeps:
 * - "Device memory" is what bk_malloc returns (host memory on the CPU). The
 *   parameter, gradient and momentum buffers are flat fp32 device buffers
 *   that the host reads and writes in PyTorch layout (conv OIHW, fc
 *   [out][in]) through bk_to_device and bk_to_host; ops take pointers into
 *   them. A backend may keep a convolution's weights and their gradient in
 *   its kernels' layout in the buffers (the same range, no padding), turned
 *   on the way by those two copies: oneDNN's blocked layouts on the CPU,
 *   KRSC for NHWC convolutions on CUDA. The update is elementwise.
 * - Tensors are opaque handles over storage the caller plans and owns
 *   (bk_tensor_bytes tells how much); the backend chooses the layout and
 *   element type of activations (BK_ACT) for the precision; BK_IMAGE and
 *   BK_MATRIX are plain fp32 (NCHW, resp. [n][c]).
 * - An op is planned once at start-up with every tensor and pointer it will
 *   touch, then run any number of times with no allocation. Runs are queued
 *   in order on one stream; bk_sync waits for all of them.
 * - Data gradients overwrite (dx = ...) unless the plan says accumulate;
 *   parameter gradients always overwrite. dx may be NULL where no data
 *   gradient is needed (the first convolution).
 * - Errors are fatal: one line on stderr naming file:line and the library's
 *   status, exit 1 (lib's die, so every rank ends). Nothing returns an error
 *   code.
 */
#ifndef BENCH_BACKEND_H
#define BENCH_BACKEND_H

#include <stddef.h>
#include <stdint.h>

enum bk_precision {
	BK_FP32, /* fp32 everywhere */
	BK_TF32, /* fp32 storage, tf32 math (CUDA) */
	BK_AMP,  /* low precision compute, fp32 master weights and BN statistics:
		    bf16 on the CPU, fp16 with loss scaling on CUDA */
	BK_BF16, /* bf16 compute, fp32 master weights */
};
/* Their names, in the enum's order: --precision's choices (flags.c), the
 * log's precision= (main.c), the backends' messages. */
static const char *const bk_precision_names[] = {"fp32", "tf32", "amp", "bf16", NULL};

typedef struct bk_config {
	int precision;  /* enum bk_precision */
	int threads;    /* compute threads (CPU); 0 = backend default */
	int local_rank; /* rank on this node: picks the device (CUDA) */
	int verbose;    /* 1: print the chosen implementations on stderr */
	int layout;     /* activation layout: enum bk_layout */
	int conv_algo;  /* enum bk_conv_algo (the CPU; CUDA always finds) */
	/* --workspace-mb: the most scratch memory one convolution's algorithm
	 * may use, MB; 0: the backend's default (the CPU: none; CUDA: 2048 MB
	 * or half the free memory, the smaller) */
	double workspace_mb;
	/* CUDA only (the CPU backend refuses them): */
	int graph;              /* --graph: capture a step, replay it (bk_graph_*) */
	int nccl_high_priority; /* --nccl-high-priority: NCCL's stream at the highest */
	double nccl_timeout;    /* --nccl-timeout: seconds a wait may last (0: default) */
} bk_config;

enum bk_layout {
	BK_LAYOUT_DEFAULT, /* the backend's choice */
	BK_LAYOUT_BLOCKED, /* channel blocks (oneDNN nChw16c) */
	BK_LAYOUT_NHWC,    /* channels last */
};

/* How a convolution's algorithm is chosen, per direction (forward,
 * backward data, backward weights). FIND times the candidates at plan time
 * and keeps the fastest (cuDNN's Find; oneDNN: direct or Winograd), so two
 * runs may pick differently and differ in the last bits of their losses;
 * DIRECT and WINOGRAD (where the library has it, else direct) repeat
 * bitwise. */
enum bk_conv_algo {
	BK_CONV_FIND,
	BK_CONV_DIRECT,
	BK_CONV_WINOGRAD,
};

/* Start-up and shut-down. bk_init exits 2 with a clear message when the
 * precision is not supported by this machine ("bench: --precision amp: ..."). */
void bk_init(const bk_config *cfg);
void bk_finalize(void);
const char *bk_name(void); /* for the log header: "cpu-onednn", "cuda-cudnn" */

/* 1 when this backend can scale the loss (--loss-scale; CUDA amp). */
int bk_can_scale_loss(void);
/* A fixed loss scale (> 0); called only when bk_can_scale_loss(). */
void bk_set_loss_scale(float scale);
/* The scale after the last step and the steps skipped on overflow; settle
 * the last step (call after it). 0 / 0 where nothing scales. */
float bk_loss_scale(void);
long bk_skipped_steps(void);
/* Around one step: bk_step_end returns the step's seconds, the device's own
 * timing where it has one (CUDA events), else host_s. */
void bk_step_begin(void);
double bk_step_end(double host_s);
/* This rank's peak memory in MB: device memory on GPUs, peak resident memory
 * on the CPU. */
double bk_peak_mem_mb(void);

/* --graph: bk_graph_begin before a step's forward starts capturing it (1)
 * or does nothing (0: not asked, or already given up); bk_graph_end after
 * its bk_sgd_run returns 1 when the step was captured and has now run, 0
 * when it did not run (capture failed, said on stderr): run it again
 * uncaptured. Once bk_graph_ready, a step is bk_sgd_run alone: it launches
 * the captured step with its own learning rate. */
int bk_graph_begin(void);
int bk_graph_end(void);
int bk_graph_ready(void);

/* --profile's clock (profile.h): room for n marks; mark i taken after
 * everything queued so far (the CPU: the host clock, its ops being done
 * when they return; CUDA: an event on the stream); after bk_sync, the
 * milliseconds from mark i to mark j. */
void bk_prof_init(int n);
void bk_prof_mark(int i);
double bk_prof_ms(int i, int j);

/* Device memory. bk_malloc returns zeroed memory, 64-byte aligned or better. */
void *bk_malloc(size_t bytes);
void bk_free(void *p);
void bk_to_device(void *dev, const void *host, size_t bytes);
void bk_to_host(void *host, const void *dev, size_t bytes);
void bk_sync(void);
/* Host memory for input batches (pinned on GPUs: copied without staging),
 * and a copy from it queued on the stream, in order with the ops: host must
 * stay unchanged until the next bk_sync (bench --data). */
void *bk_host_alloc(size_t bytes);
void bk_host_free(void *p);
void bk_to_device_async(void *dev, const void *host, size_t bytes);

/* Tensors. */
enum bk_tensor_kind {
	BK_ACT,    /* activation or its gradient: backend layout and type */
	BK_IMAGE,  /* network input: fp32 NCHW, written from the host */
	BK_MATRIX, /* fp32 [n][c] (h = w = 1): pooled features, logits */
};
typedef struct bk_tensor bk_tensor;
size_t bk_tensor_bytes(int kind, int n, int c, int h, int w);
bk_tensor *bk_tensor_create(int kind, int n, int c, int h, int w, void *storage);
void bk_tensor_destroy(bk_tensor *t);
/* Copy as fp32 NCHW from or to host memory (start-up and export only). */
void bk_tensor_write(bk_tensor *t, const float *host);
void bk_tensor_read(const bk_tensor *t, float *host);

typedef struct bk_op bk_op;
void bk_op_destroy(bk_op *op);

/* Convolution, no bias: y = conv(x, w), square k x k kernel, stride, pad.
 * w, dw: [cout][cin][k][k] fp32. accumulate: dx += instead of dx =. */
bk_op *bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		    int pad, const float *w, float *dw, int accumulate);
void bk_conv_forward(bk_op *op);
void bk_conv_backward_data(bk_op *op);
void bk_conv_backward_weights(bk_op *op);

/* Batch norm in training mode over the batch statistics (biased variance),
 * bn(x) = gamma * (x - mean) / sqrt(var + eps) + beta, in one of cuDNN's three
 * forms (CUDNN_BATCHNORM_OPS_*), or with the add alone:
 *   y = bn(x)              relu 0, z NULL
 *   y = relu(bn(x))        relu 1, z NULL
 *   y = relu(bn(x) + z)    relu 1, z and dz given (the end of a bottleneck)
 *   y = bn(x) + z          relu 0, z and dz given (the end of an IResNet block)
 * over BK_ACT, or over BK_MATRIX (x [n][c]: the statistics over the batch).
 * Forward also updates running_mean and running_var (fp32 [c], torch's
 * momentum and unbiased variance: elementwise.h's ew_bn_running).
 * Backward writes dx (accumulate: adds to it), dgamma, dbeta, and dz = the
 * gradient of the sum; it may overwrite dy.
 * y_kept: y still holds the forward's output when backward runs, so the
 * ReLU mask may be read from it; always so with z and the ReLU. */
bk_op *bk_bn_plan(bk_tensor *x, bk_tensor *z, bk_tensor *y, bk_tensor *dx, bk_tensor *dz,
		  bk_tensor *dy, int relu, int y_kept, int accumulate, const float *gamma,
		  const float *beta, float *dgamma, float *dbeta, float *running_mean,
		  float *running_var, float eps, float momentum);
void bk_bn_forward(bk_op *op);
void bk_bn_backward(bk_op *op);

/* Max pooling k x k, stride, pad (padding never wins). */
bk_op *bk_maxpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		       int pad);
void bk_maxpool_forward(bk_op *op);
void bk_maxpool_backward(bk_op *op);

/* Global average pooling: x [n][c][h][w] (BK_ACT) -> y [n][c] (BK_MATRIX). */
bk_op *bk_avgpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy);
void bk_avgpool_forward(bk_op *op);
void bk_avgpool_backward(bk_op *op);

/* Fully connected: y[n][out] = x[n][in] w[out][in]^T + b[out]; all BK_MATRIX
 * and fp32. backward writes dx, dw, db. */
bk_op *bk_fc_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *w,
		  const float *b, float *dw, float *db);
void bk_fc_forward(bk_op *op);
void bk_fc_backward(bk_op *op);

/* PReLU, one slope a[c] per channel (fp32 [c]): y = x > 0 ? x : a[c] x,
 * over BK_ACT. Backward writes dx and da (overwrites). */
bk_op *bk_prelu_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *a,
		     float *da);
void bk_prelu_forward(bk_op *op);
void bk_prelu_backward(bk_op *op);

/* Flatten: x [n][c][h][w] (BK_ACT) -> y [n][c h w] (BK_MATRIX) in NCHW
 * order (torch.flatten(x, 1)); backward the other way. */
bk_op *bk_flatten_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy);
void bk_flatten_forward(bk_op *op);
void bk_flatten_backward(bk_op *op);

/* Dropout over a matrix [n][c] (inverted, as torch's): y = x / (1 - p)
 * where kept, else 0; the mask is margin.h's dropout_keep for (seed, step,
 * first_sample + row, column), redrawn by backward for the step of the
 * last forward. p 0: y = x. */
bk_op *bk_dropout_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, float p,
		       uint64_t seed, long first_sample);
void bk_dropout_forward(bk_op *op, long step);
void bk_dropout_backward(bk_op *op);

/*
 * The ArcFace head over one shard of the classifier (bench/head.c walks it
 * with the collectives between these ops; margin.h's math). Its shard:
 * rows of embeddings (this rank's batch at row0, the other ranks' around
 * it when split), classes [c0, c0 + cr), w [cr][e] (fp32, plain rows).
 *   embed      xall[row0 + i] = x[i] / |x[i]|, x [batch][e] (BK_MATRIX)
 *   logits     logits[r][j] = s phi_or_cos(xall[r] . w[j] / |w[j]|), phi on
 *              the target's column (labels [rows], global classes), and
 *              stats[r] = the row's maximum over the shard
 *   expsum     stats[rows + r] = sum of exp(logits[r][j] - stats[r]) over
 *              the shard, stats[r] now the maximum over all shards
 *   loss       with stats[rows + r] summed over the shards: dlogits = scale
 *              (softmax - onehot), carried back through the margin and the
 *              weights' norms; the loss (bk_loss): the targets' -log p
 *              this shard holds, summed, over batch
 *   backward   dxall = this shard's part of the normalised embeddings'
 *              gradient [rows][e]; dw (overwrites; never summed over ranks)
 *   backward_x dx from dxn [batch][e], the rows of this rank summed over
 *              the shards (dxall itself with one shard)
 */
typedef struct bk_arcface_shape {
	int batch, rows, row0, e, cr;
	long c0;
	float margin, scale;
} bk_arcface_shape;
bk_op *bk_arcface_plan(const bk_arcface_shape *s, bk_tensor *x, bk_tensor *dx, bk_tensor *logits,
		       bk_tensor *dlogits, const float *w, float *dw, float *xall, float *dxall,
		       const float *dxn, const int32_t *labels, float *stats);
void bk_arcface_embed(bk_op *op);
void bk_arcface_logits(bk_op *op);
void bk_arcface_expsum(bk_op *op);
void bk_arcface_loss(bk_op *op, float scale);
void bk_arcface_backward(bk_op *op);
void bk_arcface_backward_x(bk_op *op);

/* Softmax cross-entropy with label smoothing over logits [n][k] (BK_MATRIX)
 * and labels (device int32 [n]): writes dlogits = scale * (softmax - target)
 * (ew_softmax_ce_row; scale = 1 / global batch). Does not wait: the mean
 * loss over the n rows is bk_loss's after the next bk_sync. */
void bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing, float scale,
		   bk_tensor *dlogits);
float bk_loss(void);

/* SGD with momentum over the whole flat buffers w, g and buf of n elements
 * in one pass, ew_sgd per element, with weight decay wd on the elements
 * in the nseg ascending, disjoint ranges [lo[k], hi[k]) (copied at plan
 * time) and none elsewhere. */
bk_op *bk_sgd_plan(float *w, const float *g, float *buf, size_t n, const size_t *lo,
		   const size_t *hi, int nseg);
void bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd);

#endif
