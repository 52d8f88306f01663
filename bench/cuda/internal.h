/*
 * bench/cuda/internal.h: what the files of the CUDA backend share: its one
 * state (gpu, device.cu), tensors and ops (memory.cu: device memory and
 * tensors), the cuDNN workspace (workspace.cu), and the launchers of our
 * own kernels (kernels.cu, loss.cu). Included by the .cu files of
 * bench/cuda/ only.
 */
#ifndef BENCH_CUDA_INTERNAL_H
#define BENCH_CUDA_INTERNAL_H

#include <cuda_runtime.h>
#include <cudnn.h>
#include <cublas_v2.h>

#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "backend.h"
#include "comm.h"
}
#include "check.h"
#include "lossscale.h"
#include "startup.h"
#include "watch.h"

enum { THREADS = 256 }; /* threads per block of our kernels */

/* The scalars of a step that change between steps, read by the kernels from
 * device memory so that a captured step (--graph) replays with today's. */
struct step_knobs {
	float loss_scale, inv_scale; /* lossscale.h's */
	float grad_scale, lr, momentum, wd;
};

/* --graph: off; capturing the step; captured, replayed each step. */
enum { GRAPH_OFF, GRAPH_WANTED, GRAPH_CAPTURING, GRAPH_READY };

/* The backend's state: one device, one stream, one of each handle. */
struct cuda_backend {
	int precision; /* enum bk_precision */
	int device;
	cudaStream_t stream;
	cudnnHandle_t dnn;
	cublasHandle_t blas;
	cudnnDataType_t act_dt; /* element type of BK_ACT tensors */
	cudnnTensorFormat_t act_fmt;
	size_t act_size;  /* bytes per BK_ACT element */
	int *flag;        /* device: 1 when this step's gradients overflowed */
	int *flag_host;   /* pinned */
	float *loss_rows; /* device [loss_cap]: loss per row of softmax_ce */
	float *loss_host; /* pinned [loss_cap] */
	int loss_cap;
	int loss_n;   /* rows of loss_host the last loss copies */
	int loss_div; /* the rows of this rank's batch they hold the loss of */
	struct lossscale ls;
	float static_scale; /* --loss-scale; 0 = dynamic */
	int scaling;        /* amp: loss scaling on */
	int pending;        /* a step's overflow verdict not yet read */
	int updated;        /* and its update queued */
	size_t ws_limit;    /* cudnnFind's workspace, set at the first conv plan */
	size_t ws_cap;      /* --workspace-mb in bytes, else 2 GB: ws_limit's cap */
	void *ws;           /* one workspace for every op: they run in order */
	size_t ws_size, ws_need;
	int ws_final; /* 1 once ws has been cut to ws_need */
	cudaEvent_t step_start, step_stop, synced;
	size_t peak;    /* bytes in use on the device (all processes), high-water */
	int local_rank; /* 0 prints the node's one-off notes */
	int verbose;
	int ready;
	struct step_knobs *knobs, *knobs_host; /* device; pinned */
	int nccl_high;                         /* --nccl-high-priority */
	double nccl_timeout;                   /* --nccl-timeout, seconds */
	struct gpu_bn_count bn;                /* how the batch norms run (bn.cu) */
	int conv_shapes;                       /* distinct convolution shapes searched (conv.cu) */
	int graph_state;                       /* GRAPH_* */
	cudaGraph_t graph;
	cudaGraphExec_t graph_exec;
};
extern struct cuda_backend gpu;

struct bk_tensor {
	int kind;
	int n, c, h, w;
	cudnnDataType_t dt;
	cudnnTensorFormat_t fmt;
	void *p;
	cudnnTensorDescriptor_t desc;
};

static inline size_t elems(const bk_tensor *t)
{
	return (size_t)t->n * t->c * t->h * t->w;
}

static inline int is_nhwc(const bk_tensor *t)
{
	return t->fmt == CUDNN_TENSOR_NHWC;
}

/* One op of any kind: the fields of its kind are set, the rest are 0. */
struct bk_op {
	bk_tensor *x, *x2, *y, *dx, *dx2, *dy;
	/* conv */
	int k, stride, pad, accumulate, cin, cout;
	int cpad; /* input channels as cuDNN sees them (the image: 3 -> 4) */
	const float *w;
	float *dw;
	cudnnFilterDescriptor_t wdesc;
	cudnnConvolutionDescriptor_t cdesc;
	int shape;        /* index into conv.cu's table of shapes */
	void *w16, *dw16; /* amp/bf16: the weights' copy (a slice of conv.cu's one copy
			     of them all; the stem's own, padded) and the gradient's */
	int krsc;         /* NHWC: the master weights themselves are KRSC (not the stem) */
	void *xs;         /* amp/bf16 first conv: the fp32 NCHW image cast to NHWC */
	cudnnTensorDescriptor_t xsdesc;
	/* bn */
	int relu, y_kept; /* bk_bn_plan's */
	int fused;        /* cuDNN applies the ReLU and the add (bnops) */
	cudnnBatchNormMode_t mode;
	cudnnBatchNormOps_t bnops;
	cudnnTensorDescriptor_t pdesc;
	cudnnActivationDescriptor_t act;
	const float *gamma, *beta;
	float *dgamma, *dbeta, *rmean, *rvar;
	float *save_mean, *save_inv;
	void *reserve;
	size_t reserve_size, fwd_ws, bwd_ws;
	double eps, momentum;
	/* max pooling: window position of each output's maximum */
	uint8_t *arg;
	/* fc */
	const float *b;
	float *db;
	/* dropout: drop probability, the mask's seed, first sample and step */
	float drop_p;
	uint64_t drop_seed;
	long drop_first, drop_step;
	/* arcface (arcface.cu): bk_arcface_plan's shape and buffers; inv_x [batch],
	 * inv_w [cr] (inverse norms), dphi [rows] (the margin's slope at the
	 * target), device */
	bk_arcface_shape af;
	float *af_xall, *af_dxall, *af_stats, *af_inv_x, *af_inv_w, *af_dphi;
	const float *af_dxn;
	const int32_t *af_labels;
	/* sgd: the flat buffers and the weight-decay ranges (device) */
	float *sgd_w, *sgd_buf;
	const float *sgd_g;
	size_t sgd_n, *seg_lo, *seg_hi;
	int nseg;
};

/*
 * Each file's functions for the others. The files call each other in one
 * direction only, each just files before it in this list: device.cu,
 * comm_nccl.cu, workspace.cu, kernels.cu, conv.cu, bn.cu, pool.cu,
 * graph.cu, memory.cu, backend.cu, loss.cu, gemm.cu, act.cu, arcface.cu,
 * host.cu; the plain C ones (lossscale.c, search.c, startup.c, watch.c)
 * call none.
 */

/* ---- device.cu -------------------------------------------------------- */

/* Number of CUDA devices; dies "no CUDA device (why)" when the runtime
 * reports an error or none. comm_nccl.cu asks before NCCL starts. */
int cuda_device_count(void);
const char *precision_name(int precision);
/* Device memory of our own (not zeroed), counted in the peak. */
void *dev_alloc(size_t bytes);
void note_mem(void);
bk_op *op_new(void);

/* ---- backend.cu ------------------------------------------------------- */

/* amp: read the last step's overflow verdict and advance the loss scale. */
void settle(void);
/* Wait for everything queued on the compute stream: bounded, and watching
 * NCCL, when NCCL runs (comm_wait); else a plain synchronisation. */
void stream_wait(void);

/* ---- workspace.cu ----------------------------------------------------- */

/* The one workspace of cuDNN's convolutions and batch norms. At plan time
 * ws_limit_init fixes how much a search may use, ws_grow makes room for a
 * trial and ws_reserve for what an op will need; the first run of an op
 * calls ws_finalize, which cuts the workspace down to that. */
void ws_limit_init(void);
void ws_grow(size_t bytes);
void ws_reserve(size_t bytes);
void ws_finalize(void);

/* ---- conv.cu ---------------------------------------------------------- */

/* NHWC convolutions read their master weights as KRSC: after bytes were
 * copied to dev, the conv weights among them are turned OIHW -> KRSC in
 * place; before a copy to the host, conv_to_host gives a device copy of
 * [dev, dev + bytes) in OIHW (or NULL when none is among them; the caller
 * frees it). */
void conv_after_upload(void *dev, size_t bytes);
/* A convolution's op is destroyed: the copy of all weights goes with the last. */
void conv_forget(bk_op *op);
void *conv_to_host(const void *dev, size_t bytes);

/* ---- graph.cu: --graph --------------------------------------------------- */

/* The graph and its instance, if any, destroyed (bk_finalize). */
void graph_release(void);
/* READY: launch the captured step (bk_sgd_run, once the knobs are set). */
void graph_launch(void);

/* ---- comm_nccl.cu ------------------------------------------------------ */

/* The NCCL stream and events (normal priority, or the highest with
 * --nccl-high-priority); nothing without NCCL. Called by bk_init. */
void comm_streams_init(void);
/* 1 when a communicator runs: waits must be bounded (stream_wait). */
int comm_active(void);
/* Wait for event e, polling NCCL's asynchronous error: dies with one line,
 * the communicator aborted, on an error or after gpu.nccl_timeout. */
void comm_wait(cudaEvent_t e, const char *what);

/* ---- kernels.cu, loss.cu: launchers of our own kernels, on gpu.stream --- */

/* cudaFuncGetAttributes of a kernel of ours: whether this device can run
 * the code this program was built with. */
cudaError_t kernels_loadable(void);
/* A tensor from or to fp32 NCHW (host layout) in device memory. */
void launch_from_nchw(const float *src, const bk_tensor *t);
void launch_to_nchw(const bk_tensor *t, float *dst);
/* The stem convolution's KRSC copies (gpu.act_dt), input channels padded
 * to cpad: the image, the weights, and the weight gradient back to fp32 OIHW. */
void launch_image_cast(const float *x, void *xs, int n, int c, int cpad, int h, int w);
void launch_weight_cast(const float *w, void *w16, int k, int c, int cpad, int r, int s);
void launch_wgrad_cast(const void *dw16, float *dw, int k, int c, int cpad, int r, int s);
/* fp32 weights OIHW -> KRSC (to_krsc 1) or back, out of place. */
void launch_permute_weights(const float *src, float *dst, int k, int c, int r, int s, int to_krsc);
/* n fp32 values to gpu.act_dt and back, no change of layout. */
void launch_cast(const float *src, void *dst, size_t n);
void launch_uncast(const void *src, float *dst, size_t n);
/* Batch norm's ReLU and add where cuDNN does not fuse them: y = relu(y [+ z])
 * (z NULL: no add); g = y > 0 ? dy : 0; and the mask from the pre-activation
 * recomputed from x where y is gone. */
void launch_add_relu(const bk_tensor *y, const bk_tensor *z);
/* y += z in place (an IResNet block's residual add, no ReLU). */
void launch_add(const bk_tensor *y, const bk_tensor *z);
void launch_relu_back(const bk_tensor *y, const bk_tensor *dy, const bk_tensor *g);
void launch_bn_relu_back(const bk_tensor *x, const bk_tensor *dy, const float *mean,
			 const float *inv, const float *gamma, const float *beta);
/* The classifier's bias (loss.cu): y[n][out] += b[out]; db[o] = sum of dy[.][o]. */
void launch_bias(float *y, const float *b, int n, int out);
void launch_bias_back(const float *dy, float *db, int n, int out);
/* The loss's rows to pinned memory behind the kernels that wrote them into
 * gpu.loss_rows (loss_rows grown to rows first: loss_rows_reserve);
 * bk_loss sums them over div (loss.cu). */
void loss_rows_reserve(int rows);
void loss_rows_copy(int rows, int div);
/* amp: mark the step as overflowed if any of buf[0 .. n) is not finite
 * (nothing without loss scaling). */
void flag_overflow(const float *buf, size_t n);
/* gpu.knobs_host's loss scale from gpu.ls, and all of it to gpu.knobs. */
void push_knobs(void);

#endif
