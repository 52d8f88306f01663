/*
 * bench/cpu/internal.h: what the files of the oneDNN backend share: its one
 * state (cpu), tensors, the op record, and each file's functions for the
 * others. The files call each other in one direction only, each just the
 * ones listed before it: memory.c, prim.c, tensor.c, conv_algo.c, conv.c,
 * layers.c, act.c, arcface.c, backend.c (host.c and comm_mpi.c call none
 * of them).
 */
#ifndef BENCH_CPU_INTERNAL_H
#define BENCH_CPU_INTERNAL_H

#include <stddef.h>

#include <dnnl.h>

#include "backend.h"
#include "dnnl_check.h"
#include "lib.h"

/* The backend's one state (defined in prim.c): the configuration bk_init
 * gives it, oneDNN's engine and stream, and the buffers every op shares.
 * The shared buffers grow (temp_grow) at plan time to the largest any op
 * needs; memories over them get their handle set at run time, so earlier
 * plans see the final buffer. Sizes in bytes. */
struct cpu_backend {
	/* configuration (bk_init) */
	dnnl_data_type_t act_dt;   /* activations: f32, or bf16 (amp, bf16) */
	dnnl_format_tag_t act_tag; /* their layout: blocked, or nhwc */
	int act_block;             /* channels per block of the blocked layout: the ISA's vector */
	int conv_algo;             /* --conv-algo: enum bk_conv_algo */
	size_t conv_scratch_limit; /* --workspace-mb in bytes; 0: none */
	int verbose;               /* --verbose: name the implementations oneDNN picks */
	/* oneDNN (prim_init) */
	dnnl_engine_t eng;
	dnnl_stream_t strm;
	/* shared buffers */
	void *scratch; /* the scratchpad of every primitive (prim_make) */
	size_t scratch_size;
	void *acc_tmp; /* data gradient to be added (accumulating convolutions) */
	size_t acc_tmp_size;
	void *wtmp, *dwtmp; /* a convolution's weights / weight gradient in its layout */
	size_t wtmp_size, dwtmp_size;
	float loss; /* the last step's mean loss over this rank's rows (bk_loss) */
};
extern struct cpu_backend cpu;

struct bk_tensor {
	int kind, n, c, h, w;
	dnnl_memory_desc_t md;  /* as stored */
	dnnl_memory_desc_t md4; /* BK_MATRIX viewed as n x c x 1 x 1 */
	dnnl_memory_t mem;
	void *data;
};

enum { MAX_ARGS = 12 };
typedef struct prim {
	dnnl_primitive_t p;
	dnnl_exec_arg_t a[MAX_ARGS];
	int n;
	dnnl_memory_t scratch; /* NULL when the primitive needs none */
} prim;

typedef struct buf {
	void *p;
	dnnl_memory_t m;
	dnnl_memory_desc_t md;
} buf;

enum {
	OP_CONV,
	OP_BN,
	OP_MAXPOOL,
	OP_AVGPOOL,
	OP_FC,
	OP_SGD,
	OP_PRELU,
	OP_FLATTEN,
	OP_DROPOUT,
	OP_ARCFACE
};

struct bk_op {
	int kind;
	bk_tensor *x, *y, *dx, *dy;
	prim fwd, bwd, bwdw;
	/* conv: the master weights and their gradient in layout wmd (conv.c);
	 * the weights in the forward / backward-data layouts and the weight
	 * gradient in the backward-weights layout where those differ (over the
	 * shared cpu.wtmp and cpu.dwtmp, converted right before use), the image
	 * as bf16 */
	dnnl_memory_desc_t wmd, wplain;
	buf img, wx, wdy;
	prim r_wf, r_wb, r_dw, r_img, r_wx, r_wdy;
	prim add, mask; /* conv: dx += tmp; bn: y = [relu](y + z), and its backward mask
			   (without the ReLU: a copy of dy into dz) */
	prim dxadd;     /* bn accumulating: dx += tmp */
	/* bn over a matrix: x, y, dx, dy as n x c x 1 x 1 channels-last */
	dnnl_memory_t view[4];
	dnnl_memory_t m_w, m_dw, m_tmp, m_wf, m_wb, m_dwb;
	int accumulate;
	/* bn: batch mean, variance, relu workspace */
	buf mean, var, ws;
	dnnl_memory_t m_gamma, m_beta, m_dgamma, m_dbeta;
	float *rmean, *rvar;
	float momentum;
	double count;
	/* avgpool: pooled value and gradient in the activation layout */
	buf pooled, dpooled;
	prim r_out, r_in;
	/* fc, conv: the weights and their gradient in the flat buffers */
	const float *w, *bias;
	float *dw, *db;
	float *fc_t; /* fc: the logits transposed, [out][n] */
	/* dropout: drop probability, the mask's seed, first sample and step */
	float drop_p;
	uint64_t drop_seed;
	long drop_first, drop_step;
	/* arcface (arcface.c): the shape and buffers of bk_arcface_plan; aux
	 * holds the embeddings' inverse norms [batch], the weights' [cr] and
	 * the margin's slope at each row's target [rows] */
	bk_arcface_shape af;
	float *af_xall, *af_dxall, *af_stats, *aux;
	const float *af_dxn;
	const int32_t *af_labels;
	/* sgd: the flat buffers and the weight-decay ranges */
	float *sgd_w, *sgd_buf;
	const float *sgd_g;
	size_t sgd_n, *seg_lo, *seg_hi;
	int nseg;
};

/* ---- memory.c ---- */

/* A shared temporary p of *cap bytes grown to at least need. */
void *temp_grow(void *p, size_t *cap, size_t need);

/* ---- prim.c: oneDNN's engine and stream (bk_init, bk_finalize), a wait
 * for the stream (bk_sync), memories, primitives ---- */

void prim_init(void);
void prim_finalize(void);
void prim_wait(void);
dnnl_memory_t mem_over(const dnnl_memory_desc_t *md, const void *p);
/* A one-shot reorder. */
void reorder_now(const dnnl_memory_desc_t *smd, const void *s, const dnnl_memory_desc_t *dmd,
		 void *d);
dnnl_primitive_attr_t user_scratch_attr(void);
dnnl_primitive_desc_t pd_create(const void *desc, dnnl_primitive_attr_t attr,
				const_dnnl_primitive_desc_t hint, const char *what);
/* NULL where oneDNN has no implementation (pd_create dies there); what
 * names it for --verbose, NULL: not said. */
dnnl_primitive_desc_t pd_try(const void *desc, dnnl_primitive_attr_t attr,
			     const_dnnl_primitive_desc_t hint, const char *what);
int is_ref(const_dnnl_primitive_desc_t pd);
const dnnl_memory_desc_t *query_md(const_dnnl_primitive_desc_t pd, dnnl_query_t q);
void prim_make(prim *p, const_dnnl_primitive_desc_t pd);
void prim_arg(prim *p, int arg, dnnl_memory_t m);
double prim_time(dnnl_primitive_t p, int n, const dnnl_exec_arg_t *a);
void prim_run(prim *p);
void prim_free(prim *p);
void reorder_make(prim *p, dnnl_memory_t from, const dnnl_memory_desc_t *fmd, dnnl_memory_t to,
		  const dnnl_memory_desc_t *tmd);
void buf_make(buf *b, const dnnl_memory_desc_t *md);
void buf_free(buf *b);

/* ---- tensor.c ---- */

dnnl_memory_desc_t md4(int n, int c, int h, int w, dnnl_data_type_t dt, dnnl_format_tag_t tag);
/* A tensor's descriptor as stored (bk_tensor_create's). */
dnnl_memory_desc_t tensor_md(int kind, int n, int c, int h, int w);

/* ---- conv_algo.c: a convolution's geometry as its primitive descriptors
 * take it (w, dw: format any; dx only when has_dx), the descriptor of one
 * direction and algorithm (how: CONV_PD_TRY, NULL where oneDNN has none;
 * CONV_PD_QUIET, not named under --verbose: a timing's), and the algorithm
 * of each direction as --conv-algo (cpu.conv_algo) says; find times the
 * candidates on the memories m: x, y, dx, dy ---- */

enum { DIR_FWD, DIR_BWD_DATA, DIR_BWD_WEIGHTS, NDIR };
typedef struct conv_shape {
	dnnl_memory_desc_t x, y, dx, dy, w, dw;
	dnnl_dims_t s, p;
	int k, has_dx;
} conv_shape;
enum { CONV_PD_MUST = 0, CONV_PD_TRY = 1, CONV_PD_QUIET = 2 };
dnnl_primitive_desc_t conv_pd(const conv_shape *c, int dir, dnnl_alg_kind_t alg,
			      const_dnnl_primitive_desc_t hint, int how);
void conv_algo_choose(const conv_shape *c, const dnnl_memory_t m[4], dnnl_alg_kind_t alg[NDIR]);
void conv_algo_reset(void);

/* ---- conv.c: the op record, a += b, and the host's view of conv weights:
 * OIHW, while the ops keep them in their own layout (wmd). After bytes were
 * copied to dev, conv_after_upload turns the weights among them in place;
 * conv_to_host writes into host, a copy of [dev, dev + bytes) already made,
 * the weights among them as OIHW ---- */

bk_op *op_new(int kind);
void add_make(prim *p, dnnl_memory_t a, dnnl_memory_t b, const dnnl_memory_desc_t *md, int relu,
	      const char *what);
void conv_after_upload(void *dev, size_t bytes);
void conv_to_host(void *host, const void *dev, size_t bytes);

#endif
