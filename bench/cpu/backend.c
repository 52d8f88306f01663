/*
 * bench/cpu/backend.c: the ops of backend.h on oneDNN 2.6 (C API) for CPUs.
 * Activations live in oneDNN's blocked layout (fp32: nChw16c, nChw8c
 * without AVX-512) or channels-last NHWC (bf16 under --precision amp),
 * --layout overrides; only the input image (NCHW fp32) and the classifier
 * (plain fp32 [n][c]) are plain. Master weights stay fp32 OIHW in the flat
 * parameter buffer and are reordered to each convolution's own layout (and
 * type) before it runs; weight gradients are reordered back into the flat
 * gradient buffer. Every primitive is created at plan time; all share one
 * user-managed scratchpad. Softmax cross-entropy, the classifier's bias and
 * the SGD update are plain C (OpenMP), the classifier's products dnnl_sgemm.
 * A backward-weights convolution oneDNN would run on its reference kernel
 * gets layouts of oneDNN's choosing behind reorders instead.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <dnnl.h>

#include "backend.h"
#include "dnnl_check.h"
#include "elementwise.h"
#include "lib.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;
static dnnl_data_type_t act_dt = dnnl_f32;
static dnnl_format_tag_t act_tag = dnnl_nChw16c; /* set by bk_init */
static int act_block = 16; /* channels per block of the blocked layout: the ISA's vector */
static int verbose;
/* Shared temporaries, grown (temp_grow) at plan time to the largest any op
 * needs; memories over them get their handle set at run time, so earlier
 * plans see the final buffer. Sizes in bytes. */
static void *scratch; /* the scratchpad of every primitive */
static size_t scratch_size;
static void *acc_tmp; /* data gradient to be added (accumulating convolutions) */
static size_t acc_tmp_size;
static void *wtmp, *dwtmp; /* a convolution's weights / weight gradient in its layout */
static size_t wtmp_size, dwtmp_size;

/* Large buffers are fresh anonymous mappings: zero without being touched,
 * so resident memory grows only with what a step really uses. */
enum { BIG = 1 << 16, MAX_MAPS = 512 };
static struct {
	void *p;
	size_t n;
} maps[MAX_MAPS];

void *bk_malloc(size_t bytes)
{
	if (bytes >= BIG) {
		for (int i = 0; i < MAX_MAPS; i++) {
			if (maps[i].p)
				continue;
			void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				die("out of memory (%zu bytes)", bytes);
			maps[i].p = p;
			maps[i].n = bytes;
			return p;
		}
	}
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? (bytes + 63) & ~(size_t)63 : 64) != 0)
		die("out of memory (%zu bytes)", bytes);
	memset(p, 0, bytes);
	return p;
}

void bk_free(void *p)
{
	if (!p)
		return;
	for (int i = 0; i < MAX_MAPS; i++) {
		if (maps[i].p == p) {
			munmap(p, maps[i].n);
			maps[i].p = NULL;
			return;
		}
	}
	free(p);
}

/* A shared temporary: at least need bytes, 64-byte aligned for the vector
 * kernels, its old contents dropped (nothing is kept across plans), no
 * more than the largest need (xgrow would copy and double). */
static void *temp_grow(void *p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return p;
	free(p);
	p = NULL;
	if (posix_memalign(&p, 64, (need + 63) & ~(size_t)63) != 0)
		die("out of memory (%zu bytes)", need);
	*cap = need;
	return p;
}
void bk_to_device(void *dev, const void *host, size_t bytes)
{
	memcpy(dev, host, bytes);
}
void bk_to_host(void *host, const void *dev, size_t bytes)
{
	memcpy(host, dev, bytes);
}
void bk_sync(void)
{
	DNNL_CHECK(dnnl_stream_wait(strm));
}
const char *bk_name(void)
{
	return "cpu-onednn";
}

/* Nothing on the CPU scales the loss or times a step but the host. */
int bk_can_scale_loss(void)
{
	return 0;
}
void bk_set_loss_scale(float scale)
{
	(void)scale;
}
float bk_loss_scale(void)
{
	return 0.0f;
}
long bk_skipped_steps(void)
{
	return 0;
}
void bk_step_begin(void)
{
}
double bk_step_end(double host_s)
{
	return host_s;
}

double bk_peak_mem_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)((ru.ru_maxrss + 1023) / 1024); /* ru_maxrss is in KiB on Linux */
}

static int cpu_has(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	size_t n = strlen(flag);
	while (!found && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
			if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
				found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

void bk_init(const bk_config *cfg)
{
	verbose = cfg->verbose;
	if (cfg->precision == BK_AMP || cfg->precision == BK_BF16) {
		if (!cpu_has("avx512_bf16") && !cpu_has("amx_bf16")) {
			die_usage("--precision amp: this CPU has neither AVX512_BF16 nor AMX; "
				  "bf16 training needs one of them (use fp32)");
		}
		act_dt = dnnl_bf16;
	} else if (cfg->precision != BK_FP32) {
		die_usage("--precision: the CPU backend runs fp32, amp and bf16 only");
	}
	/* The blocked layout has one vector of channels per block: nChw16c
	 * with AVX-512, nChw8c with AVX2, where oneDNN 2.6 has no nChw16c
	 * convolution but its reference one (minutes per step). */
	dnnl_format_tag_t blocked = dnnl_nChw16c;
	if ((dnnl_get_effective_cpu_isa() & dnnl_cpu_isa_avx512_core) != dnnl_cpu_isa_avx512_core) {
		blocked = dnnl_nChw8c;
		act_block = 8;
	}
	/* Default: blocked for fp32, channels-last for bf16. NHWC gets brgemm
	 * forward convolutions (less CPU per step in both precisions on
	 * AVX-512), but in fp32 its results drift further from float64 than
	 * nChw16c's where batch norm has few values per channel (32 px: 3x
	 * PyTorch's own error in layer4 gradients, against 1x), so fp32 keeps
	 * the blocked layout. */
	if (cfg->layout == BK_LAYOUT_DEFAULT)
		act_tag = act_dt == dnnl_bf16 ? dnnl_nhwc : blocked;
	else
		act_tag = cfg->layout == BK_LAYOUT_BLOCKED ? blocked : dnnl_nhwc;
	if (cfg->threads > 0)
		omp_set_num_threads(cfg->threads);
	DNNL_CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
	DNNL_CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
}

void bk_finalize(void)
{
	free(scratch);
	free(acc_tmp);
	free(wtmp);
	free(dwtmp);
	scratch = acc_tmp = wtmp = dwtmp = NULL;
	scratch_size = acc_tmp_size = wtmp_size = dwtmp_size = 0;
	DNNL_CHECK(dnnl_stream_destroy(strm));
	DNNL_CHECK(dnnl_engine_destroy(eng));
}

/* ---- memory descriptors and tensors ---- */

struct bk_tensor {
	int kind, n, c, h, w;
	dnnl_memory_desc_t md;  /* as stored */
	dnnl_memory_desc_t md4; /* BK_MATRIX viewed as n x c x 1 x 1 */
	dnnl_memory_t mem;
	void *data;
};

static dnnl_memory_desc_t md4(int n, int c, int h, int w, dnnl_data_type_t dt,
			      dnnl_format_tag_t tag)
{
	dnnl_memory_desc_t md;
	dnnl_dims_t d = {n, c, h, w};
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&md, 4, d, dt, tag));
	return md;
}

static dnnl_memory_desc_t tensor_md(int kind, int n, int c, int h, int w)
{
	if (kind == BK_ACT)
		return md4(n, c, h, w, act_dt, c % act_block == 0 ? act_tag : dnnl_nchw);
	if (kind == BK_IMAGE)
		return md4(n, c, h, w, dnnl_f32, dnnl_nchw);
	dnnl_memory_desc_t md;
	dnnl_dims_t d = {n, c};
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&md, 2, d, dnnl_f32, dnnl_nc));
	return md;
}

size_t bk_tensor_bytes(int kind, int n, int c, int h, int w)
{
	dnnl_memory_desc_t md = tensor_md(kind, n, c, h, w);
	return dnnl_memory_desc_get_size(&md);
}

static dnnl_memory_t mem_over(const dnnl_memory_desc_t *md, const void *p)
{
	dnnl_memory_t m;
	DNNL_CHECK(dnnl_memory_create(&m, md, eng, (void *)p));
	return m;
}

bk_tensor *bk_tensor_create(int kind, int n, int c, int h, int w, void *storage)
{
	bk_tensor *t = xmalloc(sizeof *t);
	t->kind = kind;
	t->n = n;
	t->c = c;
	t->h = h;
	t->w = w;
	t->md = tensor_md(kind, n, c, h, w);
	t->md4 = kind == BK_MATRIX ? md4(n, c, 1, 1, dnnl_f32, dnnl_nchw) : t->md;
	t->data = storage;
	t->mem = mem_over(&t->md, storage);
	return t;
}

void bk_tensor_destroy(bk_tensor *t)
{
	if (!t)
		return;
	DNNL_CHECK(dnnl_memory_destroy(t->mem));
	free(t);
}

/* One-shot reorder between two memories (start-up, export). */
static void reorder_once(const dnnl_memory_desc_t *smd, const void *s,
			 const dnnl_memory_desc_t *dmd, void *d)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t p;
	DNNL_CHECK(dnnl_reorder_primitive_desc_create(&pd, smd, eng, dmd, eng, NULL));
	DNNL_CHECK(dnnl_primitive_create(&p, pd));
	dnnl_memory_t sm = mem_over(smd, s), dm = mem_over(dmd, d);
	dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, sm}, {DNNL_ARG_TO, dm}};
	DNNL_CHECK(dnnl_primitive_execute(p, strm, 2, a));
	DNNL_CHECK(dnnl_stream_wait(strm));
	DNNL_CHECK(dnnl_memory_destroy(sm));
	DNNL_CHECK(dnnl_memory_destroy(dm));
	DNNL_CHECK(dnnl_primitive_destroy(p));
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
}

void bk_tensor_write(bk_tensor *t, const float *host)
{
	dnnl_memory_desc_t plain = md4(t->n, t->c, t->h, t->w, dnnl_f32, dnnl_nchw);
	reorder_once(&plain, host, &t->md4, t->data);
}

void bk_tensor_read(const bk_tensor *t, float *host)
{
	dnnl_memory_desc_t plain = md4(t->n, t->c, t->h, t->w, dnnl_f32, dnnl_nchw);
	reorder_once(&t->md4, t->data, &plain, host);
}

/* ---- primitives: created once, arguments bound once ---- */

enum { MAX_ARGS = 12 };
typedef struct prim {
	dnnl_primitive_t p;
	dnnl_exec_arg_t a[MAX_ARGS];
	int n;
	dnnl_memory_t scratch; /* NULL when the primitive needs none */
} prim;

static dnnl_primitive_attr_t user_scratch_attr(void)
{
	dnnl_primitive_attr_t attr;
	DNNL_CHECK(dnnl_primitive_attr_create(&attr));
	DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
	return attr;
}

static dnnl_primitive_desc_t pd_create(const void *desc, dnnl_primitive_attr_t attr,
				       const_dnnl_primitive_desc_t hint, const char *what)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_attr_t a = attr ? attr : user_scratch_attr();
	DNNL_CHECK(dnnl_primitive_desc_create(&pd, desc, a, eng, hint));
	if (!attr)
		DNNL_CHECK(dnnl_primitive_attr_destroy(a));
	if (verbose) {
		const char *impl = "?";
		DNNL_CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
		warnf("%s: %s", what, impl);
	}
	return pd;
}

static int is_ref(const_dnnl_primitive_desc_t pd)
{
	const char *impl = "";
	DNNL_CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
	return strncmp(impl, "ref", 3) == 0;
}

static const dnnl_memory_desc_t *query_md(const_dnnl_primitive_desc_t pd, dnnl_query_t q)
{
	return dnnl_primitive_desc_query_md(pd, q, 0);
}

static void prim_make(prim *p, const_dnnl_primitive_desc_t pd)
{
	memset(p, 0, sizeof *p);
	DNNL_CHECK(dnnl_primitive_create(&p->p, pd));
	const dnnl_memory_desc_t *smd = query_md(pd, dnnl_query_scratchpad_md);
	size_t sz = smd ? dnnl_memory_desc_get_size(smd) : 0;
	if (sz) {
		scratch = temp_grow(scratch, &scratch_size, sz);
		p->scratch = mem_over(smd, scratch);
		p->a[p->n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, p->scratch};
	}
}

static void prim_arg(prim *p, int arg, dnnl_memory_t m)
{
	if (p->n == MAX_ARGS) {
		die("%s:%d: too many primitive arguments", __FILE__, __LINE__);
	}
	p->a[p->n++] = (dnnl_exec_arg_t){arg, m};
}

static void prim_run(prim *p)
{
	if (p->scratch)
		DNNL_CHECK(dnnl_memory_set_data_handle(p->scratch, scratch));
	DNNL_CHECK(dnnl_primitive_execute(p->p, strm, p->n, p->a));
}

static void prim_free(prim *p)
{
	if (p->p)
		DNNL_CHECK(dnnl_primitive_destroy(p->p));
	if (p->scratch)
		DNNL_CHECK(dnnl_memory_destroy(p->scratch));
	p->p = NULL;
	p->scratch = NULL;
}

/* A reorder primitive between two existing memories. */
static void reorder_make(prim *p, dnnl_memory_t from, const dnnl_memory_desc_t *fmd,
			 dnnl_memory_t to, const dnnl_memory_desc_t *tmd)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_attr_t attr = user_scratch_attr();
	DNNL_CHECK(dnnl_reorder_primitive_desc_create(&pd, fmd, eng, tmd, eng, attr));
	DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
	prim_make(p, pd);
	prim_arg(p, DNNL_ARG_FROM, from);
	prim_arg(p, DNNL_ARG_TO, to);
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
}

/* An owned buffer with its memory object. */
typedef struct buf {
	void *p;
	dnnl_memory_t m;
	dnnl_memory_desc_t md;
} buf;

static void buf_make(buf *b, const dnnl_memory_desc_t *md)
{
	b->md = *md;
	b->p = bk_malloc(dnnl_memory_desc_get_size(md));
	b->m = mem_over(md, b->p);
}

static void buf_free(buf *b)
{
	if (b->m)
		DNNL_CHECK(dnnl_memory_destroy(b->m));
	bk_free(b->p);
	b->m = NULL;
	b->p = NULL;
}

/* ---- ops ---- */

enum { OP_CONV, OP_BN, OP_MAXPOOL, OP_AVGPOOL, OP_FC, OP_SGD };

struct bk_op {
	int kind;
	bk_tensor *x, *y, *dx, *dy;
	prim fwd, bwd, bwdw;
	/* conv: weights in the forward / backward-data layouts and the weight
	 * gradient in the backward-weights layout (over the shared wtmp and
	 * dwtmp, converted right before use), the image as bf16 */
	buf img, wx, wdy;
	prim r_wf, r_wb, r_dw, r_img, r_wx, r_wdy;
	prim add, mask; /* conv: dx += tmp; bn: y = relu(y + z), and its backward mask */
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
	/* fc */
	const float *w, *bias;
	float *dw, *db;
	/* sgd: the flat buffers and the weight-decay ranges */
	float *sgd_w, *sgd_buf;
	const float *sgd_g;
	size_t sgd_n, *seg_lo, *seg_hi;
	int nseg;
};

static bk_op *op_new(int kind)
{
	bk_op *op = xcalloc(1, sizeof *op);
	op->kind = kind;
	return op;
}

static void mem_free(dnnl_memory_t *m)
{
	if (*m)
		DNNL_CHECK(dnnl_memory_destroy(*m));
	*m = NULL;
}

void bk_op_destroy(bk_op *op)
{
	if (!op)
		return;
	prim *ps[] = {&op->fwd,  &op->bwd,   &op->bwdw, &op->r_wf,  &op->r_wb,
		      &op->r_dw, &op->r_img, &op->r_wx, &op->r_wdy, &op->add,
		      &op->mask, &op->r_out, &op->r_in};
	for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
		prim_free(ps[i]);
	buf *bs[] = {&op->img, &op->wx, &op->wdy,    &op->mean,
		     &op->var, &op->ws, &op->pooled, &op->dpooled};
	for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++)
		buf_free(bs[i]);
	dnnl_memory_t *ms[] = {&op->m_w,   &op->m_dw,    &op->m_tmp,  &op->m_wf,     &op->m_wb,
			       &op->m_dwb, &op->m_gamma, &op->m_beta, &op->m_dgamma, &op->m_dbeta};
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		mem_free(ms[i]);
	free(op->seg_lo);
	free(op->seg_hi);
	free(op);
}

/* a += b in place (both of layout md), with a ReLU after it if relu. */
static void add_make(prim *p, dnnl_memory_t a, dnnl_memory_t b, const dnnl_memory_desc_t *md,
		     int relu, const char *what)
{
	dnnl_primitive_attr_t attr = user_scratch_attr();
	if (relu) {
		dnnl_post_ops_t po;
		DNNL_CHECK(dnnl_post_ops_create(&po));
		DNNL_CHECK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0, 0));
		DNNL_CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
		DNNL_CHECK(dnnl_post_ops_destroy(po));
	}
	dnnl_binary_desc_t ad;
	DNNL_CHECK(dnnl_binary_desc_init(&ad, dnnl_binary_add, md, md, md));
	dnnl_primitive_desc_t pd = pd_create(&ad, attr, NULL, what);
	DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
	prim_make(p, pd);
	prim_arg(p, DNNL_ARG_SRC_0, a);
	prim_arg(p, DNNL_ARG_SRC_1, b);
	prim_arg(p, DNNL_ARG_DST, a);
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
}

bk_op *bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		    int pad, const float *w, float *dw, int accumulate)
{
	bk_op *op = op_new(OP_CONV);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->accumulate = accumulate && dx;
	dnnl_dims_t s = {stride, stride}, p = {pad, pad};
	dnnl_dims_t wd = {y->c, x->c, k, k};
	dnnl_memory_desc_t wany, dwany, wplain = md4(y->c, x->c, k, k, dnnl_f32, dnnl_oihw);
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wany, 4, wd, act_dt, dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dwany, 4, wd, dnnl_f32, dnnl_format_tag_any));
	op->m_w = mem_over(&wplain, w);
	op->m_dw = mem_over(&wplain, dw);

	/* the image is fp32 NCHW; under amp or nhwc it is converted once per step */
	dnnl_memory_desc_t xmd = x->md;
	dnnl_memory_t xmem = x->mem;
	if (x->kind == BK_IMAGE && (act_dt != dnnl_f32 || act_tag == dnnl_nhwc)) {
		/* the stem runs on ref:any for an NCHW source and NHWC output */
		xmd = md4(x->n, x->c, x->h, x->w, act_dt,
			  act_tag == dnnl_nhwc ? dnnl_nhwc : dnnl_nchw);
		buf_make(&op->img, &xmd);
		xmem = op->img.m;
		reorder_make(&op->r_img, x->mem, &x->md, xmem, &xmd);
	}

	dnnl_convolution_desc_t cd;
	DNNL_CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training,
						      dnnl_convolution_direct, &xmd, &wany, NULL,
						      &y->md, s, p, p));
	dnnl_primitive_desc_t fpd = pd_create(&cd, NULL, NULL, "conv fwd");
	const dnnl_memory_desc_t *fw = query_md(fpd, dnnl_query_weights_md);
	wtmp = temp_grow(wtmp, &wtmp_size, dnnl_memory_desc_get_size(fw));
	op->m_wf = mem_over(fw, wtmp);
	reorder_make(&op->r_wf, op->m_w, &wplain, op->m_wf, fw);
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, xmem);
	prim_arg(&op->fwd, DNNL_ARG_WEIGHTS, op->m_wf);
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);

	if (dx) {
		DNNL_CHECK(dnnl_convolution_backward_data_desc_init(
			&cd, dnnl_convolution_direct, &dx->md, &wany, &dy->md, s, p, p));
		dnnl_primitive_desc_t bpd = pd_create(&cd, NULL, fpd, "conv bwd data");
		const dnnl_memory_desc_t *bw = query_md(bpd, dnnl_query_weights_md);
		wtmp = temp_grow(wtmp, &wtmp_size, dnnl_memory_desc_get_size(bw));
		op->m_wb = mem_over(bw, wtmp);
		reorder_make(&op->r_wb, op->m_w, &wplain, op->m_wb, bw);
		dnnl_memory_t wm = op->m_wb;
		dnnl_memory_t dxm = dx->mem;
		if (op->accumulate) {
			/* no sum post-op on backward data: compute into a
			 * shared temporary, then dx += it */
			size_t need = dnnl_memory_desc_get_size(&dx->md);
			acc_tmp = temp_grow(acc_tmp, &acc_tmp_size, need);
			op->m_tmp = mem_over(&dx->md, acc_tmp);
			dxm = op->m_tmp;
			add_make(&op->add, dx->mem, op->m_tmp, &dx->md, 0, "conv dx add");
		}
		prim_make(&op->bwd, bpd);
		prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, dy->mem);
		prim_arg(&op->bwd, DNNL_ARG_WEIGHTS, wm);
		prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dxm);
		DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	}

	/* the weight gradient is fp32 whatever the compute type */
	DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(&cd, dnnl_convolution_direct, &xmd,
							       &dwany, NULL, &dy->md, s, p, p));
	dnnl_primitive_desc_t wpd = pd_create(&cd, NULL, fpd, "conv bwd weights");
	dnnl_memory_t wxm = xmem, wdym = dy->mem;
	if (is_ref(wpd)) {
		/* No optimised kernel for these layouts (AVX2: nChw8c layer4
		 * at small images, 1.3 s a call): let oneDNN pick the source
		 * and gradient layouts, and reorder into them. */
		dnnl_memory_desc_t xany, dyany;
		DNNL_CHECK(dnnl_memory_desc_init_by_tag(&xany, 4, xmd.dims, xmd.data_type,
							dnnl_format_tag_any));
		DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dyany, 4, dy->md.dims, dy->md.data_type,
							dnnl_format_tag_any));
		DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
			&cd, dnnl_convolution_direct, &xany, &dwany, NULL, &dyany, s, p, p));
		dnnl_primitive_desc_t any = pd_create(&cd, NULL, fpd, "conv bwd weights (any)");
		if (is_ref(any)) {
			DNNL_CHECK(dnnl_primitive_desc_destroy(any));
		} else {
			DNNL_CHECK(dnnl_primitive_desc_destroy(wpd));
			wpd = any;
			buf_make(&op->wx, query_md(wpd, dnnl_query_src_md));
			buf_make(&op->wdy, query_md(wpd, dnnl_query_diff_dst_md));
			reorder_make(&op->r_wx, xmem, &xmd, op->wx.m, &op->wx.md);
			reorder_make(&op->r_wdy, dy->mem, &dy->md, op->wdy.m, &op->wdy.md);
			wxm = op->wx.m;
			wdym = op->wdy.m;
		}
	}
	const dnnl_memory_desc_t *dwmd = query_md(wpd, dnnl_query_diff_weights_md);
	dnnl_memory_t dwm = op->m_dw;
	if (!dnnl_memory_desc_equal(dwmd, &wplain)) {
		dwtmp = temp_grow(dwtmp, &dwtmp_size, dnnl_memory_desc_get_size(dwmd));
		op->m_dwb = mem_over(dwmd, dwtmp);
		dwm = op->m_dwb;
		reorder_make(&op->r_dw, op->m_dwb, dwmd, op->m_dw, &wplain);
	}
	prim_make(&op->bwdw, wpd);
	prim_arg(&op->bwdw, DNNL_ARG_SRC, wxm);
	prim_arg(&op->bwdw, DNNL_ARG_DIFF_DST, wdym);
	prim_arg(&op->bwdw, DNNL_ARG_DIFF_WEIGHTS, dwm);
	DNNL_CHECK(dnnl_primitive_desc_destroy(wpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_conv_forward(bk_op *op)
{
	if (op->r_img.p)
		prim_run(&op->r_img);
	DNNL_CHECK(dnnl_memory_set_data_handle(op->m_wf, wtmp));
	prim_run(&op->r_wf);
	prim_run(&op->fwd);
}

void bk_conv_backward_data(bk_op *op)
{
	if (!op->bwd.p)
		return;
	DNNL_CHECK(dnnl_memory_set_data_handle(op->m_wb, wtmp));
	prim_run(&op->r_wb);
	if (op->m_tmp)
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_tmp, acc_tmp));
	prim_run(&op->bwd);
	if (op->add.p)
		prim_run(&op->add);
}

void bk_conv_backward_weights(bk_op *op)
{
	if (op->m_dwb)
		DNNL_CHECK(dnnl_memory_set_data_handle(op->m_dwb, dwtmp));
	if (op->r_wx.p) {
		prim_run(&op->r_wx);
		prim_run(&op->r_wdy);
	}
	prim_run(&op->bwdw);
	if (op->r_dw.p)
		prim_run(&op->r_dw);
}

/* BN+add+ReLU's two steps after the batch norm: y = relu(y + z) in place
 * (op->add), and dz = y > 0 ? dy : 0 (op->mask). */
static void add_relu_make(bk_op *op, bk_tensor *y, bk_tensor *z, bk_tensor *dy, bk_tensor *dz)
{
	add_make(&op->add, y->mem, z->mem, &y->md, 1, "add+relu fwd");

	/* relu backward from y; a forward hint is required, any relu will do */
	dnnl_eltwise_desc_t ed;
	DNNL_CHECK(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_training,
						  dnnl_eltwise_relu_use_dst_for_bwd, &y->md, 0, 0));
	dnnl_primitive_desc_t hpd = pd_create(&ed, NULL, NULL, "relu hint");
	DNNL_CHECK(dnnl_eltwise_backward_desc_init(&ed, dnnl_eltwise_relu_use_dst_for_bwd, &dy->md,
						   &y->md, 0, 0));
	dnnl_primitive_desc_t bpd = pd_create(&ed, NULL, hpd, "add+relu bwd");
	prim_make(&op->mask, bpd);
	prim_arg(&op->mask, DNNL_ARG_DST, y->mem);
	prim_arg(&op->mask, DNNL_ARG_DIFF_DST, dy->mem);
	prim_arg(&op->mask, DNNL_ARG_DIFF_SRC, dz->mem);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(hpd));
}

/*
 * Batch norm. BN+ReLU: oneDNN's fused ReLU (its workspace holds the mask).
 * BN+add+ReLU: oneDNN 2.6 fuses no add into batch norm, so BN writes y, a
 * binary add with a ReLU post-op makes y = relu(y + z) in place, and
 * backward masks dy from y into dz, which BN's backward then reads.
 */
bk_op *bk_bn_plan(bk_tensor *x, bk_tensor *z, bk_tensor *y, bk_tensor *dx, bk_tensor *dz,
		  bk_tensor *dy, int relu, int y_kept, const float *gamma, const float *beta,
		  float *dgamma, float *dbeta, float *running_mean, float *running_var, float eps,
		  float momentum)
{
	if (z && (!relu || !dz || !y_kept)) {
		die("%s:%d: bn plan: an add needs the ReLU, dz and y kept", __FILE__, __LINE__);
	}
	bk_op *op = op_new(OP_BN);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->rmean = running_mean;
	op->rvar = running_var;
	op->momentum = momentum;
	op->count = (double)x->n * x->h * x->w;
	int fuse = relu && !z;
	unsigned flags = dnnl_use_scale | dnnl_use_shift | (fuse ? dnnl_fuse_norm_relu : 0);
	dnnl_batch_normalization_desc_t bd;
	DNNL_CHECK(dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_training, &x->md,
							      eps, flags));
	dnnl_primitive_desc_t fpd = pd_create(&bd, NULL, NULL, fuse ? "bn+relu fwd" : "bn fwd");
	buf_make(&op->mean,
		 dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, DNNL_ARG_MEAN));
	buf_make(&op->var,
		 dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, DNNL_ARG_VARIANCE));
	if (fuse)
		buf_make(&op->ws, query_md(fpd, dnnl_query_workspace_md));
	const dnnl_memory_desc_t *smd =
		dnnl_primitive_desc_query_md(fpd, dnnl_query_exec_arg_md, DNNL_ARG_SCALE);
	op->m_gamma = mem_over(smd, gamma);
	op->m_beta = mem_over(smd, beta);
	op->m_dgamma = mem_over(smd, dgamma);
	op->m_dbeta = mem_over(smd, dbeta);
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);
	prim_arg(&op->fwd, DNNL_ARG_SCALE, op->m_gamma);
	prim_arg(&op->fwd, DNNL_ARG_SHIFT, op->m_beta);
	prim_arg(&op->fwd, DNNL_ARG_MEAN, op->mean.m);
	prim_arg(&op->fwd, DNNL_ARG_VARIANCE, op->var.m);
	if (fuse)
		prim_arg(&op->fwd, DNNL_ARG_WORKSPACE, op->ws.m);
	if (z)
		add_relu_make(op, y, z, dy, dz);

	DNNL_CHECK(dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &dy->md, &x->md,
							       eps, flags));
	dnnl_primitive_desc_t bpd = pd_create(&bd, NULL, fpd, fuse ? "bn+relu bwd" : "bn bwd");
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->bwd, DNNL_ARG_MEAN, op->mean.m);
	prim_arg(&op->bwd, DNNL_ARG_VARIANCE, op->var.m);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, z ? dz->mem : dy->mem);
	prim_arg(&op->bwd, DNNL_ARG_SCALE, op->m_gamma);
	prim_arg(&op->bwd, DNNL_ARG_SHIFT, op->m_beta);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dx->mem);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SCALE, op->m_dgamma);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SHIFT, op->m_dbeta);
	if (fuse)
		prim_arg(&op->bwd, DNNL_ARG_WORKSPACE, op->ws.m);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_bn_forward(bk_op *op)
{
	prim_run(&op->fwd);
	if (op->add.p)
		prim_run(&op->add);
	const float *mean = op->mean.p, *var = op->var.p;
	for (int c = 0; c < op->x->c; c++)
		ew_bn_running(&op->rmean[c], &op->rvar[c], mean[c], var[c], op->momentum,
			      op->count);
}

void bk_bn_backward(bk_op *op)
{
	if (op->mask.p)
		prim_run(&op->mask);
	prim_run(&op->bwd);
}

bk_op *bk_maxpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k, int stride,
		       int pad)
{
	bk_op *op = op_new(OP_MAXPOOL);
	dnnl_dims_t s = {stride, stride}, kk = {k, k}, p = {pad, pad};
	dnnl_pooling_desc_t pd;
	DNNL_CHECK(dnnl_pooling_forward_desc_init(&pd, dnnl_forward_training, dnnl_pooling_max,
						  &x->md, &y->md, s, kk, p, p));
	dnnl_primitive_desc_t fpd = pd_create(&pd, NULL, NULL, "maxpool fwd");
	buf_make(&op->ws, query_md(fpd, dnnl_query_workspace_md));
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->fwd, DNNL_ARG_DST, y->mem);
	prim_arg(&op->fwd, DNNL_ARG_WORKSPACE, op->ws.m);
	DNNL_CHECK(dnnl_pooling_backward_desc_init(&pd, dnnl_pooling_max, &dx->md, &dy->md, s, kk,
						   p, p));
	dnnl_primitive_desc_t bpd = pd_create(&pd, NULL, fpd, "maxpool bwd");
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, dy->mem);
	prim_arg(&op->bwd, DNNL_ARG_WORKSPACE, op->ws.m);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dx->mem);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return op;
}

void bk_maxpool_forward(bk_op *op)
{
	prim_run(&op->fwd);
}
void bk_maxpool_backward(bk_op *op)
{
	prim_run(&op->bwd);
}

bk_op *bk_avgpool_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	bk_op *op = op_new(OP_AVGPOOL);
	dnnl_dims_t s = {1, 1}, kk = {x->h, x->w}, p = {0, 0};
	/* pool in the activation layout, then one reorder to the classifier */
	dnnl_memory_desc_t pmd = tensor_md(BK_ACT, x->n, x->c, 1, 1);
	buf_make(&op->pooled, &pmd);
	buf_make(&op->dpooled, &pmd);
	dnnl_pooling_desc_t pd;
	DNNL_CHECK(dnnl_pooling_forward_desc_init(&pd, dnnl_forward_training,
						  dnnl_pooling_avg_exclude_padding, &x->md, &pmd, s,
						  kk, p, p));
	dnnl_primitive_desc_t fpd = pd_create(&pd, NULL, NULL, "avgpool fwd");
	prim_make(&op->fwd, fpd);
	prim_arg(&op->fwd, DNNL_ARG_SRC, x->mem);
	prim_arg(&op->fwd, DNNL_ARG_DST, op->pooled.m);
	DNNL_CHECK(dnnl_pooling_backward_desc_init(&pd, dnnl_pooling_avg_exclude_padding, &dx->md,
						   &pmd, s, kk, p, p));
	dnnl_primitive_desc_t bpd = pd_create(&pd, NULL, fpd, "avgpool bwd");
	prim_make(&op->bwd, bpd);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_DST, op->dpooled.m);
	prim_arg(&op->bwd, DNNL_ARG_DIFF_SRC, dx->mem);
	DNNL_CHECK(dnnl_primitive_desc_destroy(bpd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	/* the matrix viewed as n x c x 1 x 1 */
	op->m_tmp = mem_over(&y->md4, y->data);
	op->m_w = mem_over(&dy->md4, dy->data);
	reorder_make(&op->r_out, op->pooled.m, &pmd, op->m_tmp, &y->md4);
	reorder_make(&op->r_in, op->m_w, &dy->md4, op->dpooled.m, &pmd);
	return op;
}

void bk_avgpool_forward(bk_op *op)
{
	prim_run(&op->fwd);
	prim_run(&op->r_out);
}

void bk_avgpool_backward(bk_op *op)
{
	prim_run(&op->r_in);
	prim_run(&op->bwd);
}

bk_op *bk_fc_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, const float *w,
		  const float *b, float *dw, float *db)
{
	bk_op *op = op_new(OP_FC);
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->w = w;
	op->bias = b;
	op->dw = dw;
	op->db = db;
	return op;
}

void bk_fc_forward(bk_op *op)
{
	int n = op->x->n, in = op->x->c, out = op->y->c;
	float *y = op->y->data;
	/* y[n][out] = x[n][in] w[out][in]^T + b */
	DNNL_CHECK(
		dnnl_sgemm('N', 'T', n, out, in, 1.0f, op->x->data, in, op->w, in, 0.0f, y, out));
	for (int i = 0; i < n; i++)
		for (int j = 0; j < out; j++)
			y[(size_t)i * out + j] += op->bias[j];
}

void bk_fc_backward(bk_op *op)
{
	int n = op->x->n, in = op->x->c, out = op->y->c;
	const float *dy = op->dy->data;
	/* dw[out][in] = dy^T x;  dx[n][in] = dy w;  db = column sums of dy */
	DNNL_CHECK(
		dnnl_sgemm('T', 'N', out, in, n, 1.0f, dy, out, op->x->data, in, 0.0f, op->dw, in));
	if (op->dx)
		DNNL_CHECK(dnnl_sgemm('N', 'N', n, in, out, 1.0f, dy, out, op->w, in, 0.0f,
				      op->dx->data, in));
	for (int j = 0; j < out; j++) {
		float s = 0.0f;
		for (int i = 0; i < n; i++)
			s += dy[(size_t)i * out + j];
		op->db[j] = s;
	}
}

static float last_loss;

void bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing, float scale,
		   bk_tensor *dlogits)
{
	int n = logits->n, k = logits->c;
	const float *z = logits->data;
	float *dz = dlogits->data;
	double loss = 0.0;
	for (int i = 0; i < n; i++)
		loss += ew_softmax_ce_row(z + (size_t)i * k, k, labels[i], smoothing, scale,
					  dz + (size_t)i * k);
	last_loss = (float)(loss / n);
}

float bk_loss(void)
{
	return last_loss;
}

bk_op *bk_sgd_plan(float *w, const float *g, float *buf, size_t n, const size_t *lo,
		   const size_t *hi, int nseg)
{
	bk_op *op = op_new(OP_SGD);
	op->sgd_w = w;
	op->sgd_g = g;
	op->sgd_buf = buf;
	op->sgd_n = n;
	op->nseg = nseg;
	op->seg_lo = xmalloc((size_t)(nseg + 1) * sizeof(size_t));
	op->seg_hi = xmalloc((size_t)(nseg + 1) * sizeof(size_t));
	memcpy(op->seg_lo, lo, (size_t)nseg * sizeof(size_t));
	memcpy(op->seg_hi, hi, (size_t)nseg * sizeof(size_t));
	return op;
}

/* Each thread takes its own slice and walks it in runs of one weight decay
 * (a decayed range, or the gap before the next), each run a vector loop. */
void bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd)
{
	float *w = op->sgd_w, *buf = op->sgd_buf;
	const float *g = op->sgd_g;
	const size_t *lo = op->seg_lo, *hi = op->seg_hi;
	size_t n = op->sgd_n;
	int nseg = op->nseg;
#pragma omp parallel
	{
		size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
		size_t i = n * t / nt, b = n * (t + 1) / nt;
		int k = ew_range_after(i, hi, nseg);
		while (i < b) {
			int in = k < nseg && lo[k] <= i;
			size_t end = in ? hi[k++] : k < nseg ? lo[k] : b;
			float d = in ? wd : 0.0f;
			if (end > b)
				end = b;
#pragma omp simd
			for (size_t j = i; j < end; j++)
				ew_sgd(&w[j], &buf[j], g[j], grad_scale, lr, momentum, d);
			i = end;
		}
	}
}
