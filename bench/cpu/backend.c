/*
 * bench/cpu/backend.c: the ops of backend.h on oneDNN 2.6 (C API) for CPUs.
 * Activations live in oneDNN's blocked layout (nChw16c, or nChw8c in fp32
 * without AVX-512), fp32 or bf16 (--precision amp); --layout nhwc gives
 * channels-last instead. Only the input image (NCHW fp32) and the classifier
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

#include "internal.h"

dnnl_data_type_t act_dt = dnnl_f32;
dnnl_format_tag_t act_tag = dnnl_nChw16c; /* set by bk_init */
static int act_block = 16; /* channels per block of the blocked layout: the ISA's vector */
/* Shared temporaries, grown (temp_grow) at plan time to the largest any op
 * needs; memories over them get their handle set at run time, so earlier
 * plans see the final buffer. Sizes in bytes. (The primitives' scratchpad
 * is prim.c's.) */
void *acc_tmp; /* data gradient to be added (accumulating convolutions) */
size_t acc_tmp_size;
void *wtmp, *dwtmp; /* a convolution's weights / weight gradient in its layout */
size_t wtmp_size, dwtmp_size;

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
void *temp_grow(void *p, size_t *cap, size_t need)
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
/* The host sees conv weights OIHW; the convolutions keep them in their own
 * layouts (conv.c turns them on the way). */
void bk_to_device(void *dev, const void *host, size_t bytes)
{
	memcpy(dev, host, bytes);
	conv_after_upload(dev, bytes);
}
void bk_to_host(void *host, const void *dev, size_t bytes)
{
	memcpy(host, dev, bytes);
	conv_to_host(host, dev, bytes);
}
void bk_sync(void)
{
	prim_wait();
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

/* No graphs on the CPU: bk_init refuses --graph, so these are never asked. */
int bk_graph_begin(void)
{
	return 0;
}
int bk_graph_end(void)
{
	return 0;
}
int bk_graph_ready(void)
{
	return 0;
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
	if (cfg->graph)
		die_usage("--graph: CUDA graphs; the CPU backend has none");
	if (cfg->nccl_high_priority || cfg->nccl_timeout > 0)
		die_usage("--nccl-high-priority, --nccl-timeout: NCCL runs in bench-cuda only");
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
	/* Default: blocked in both precisions. In fp32, NHWC's results drift
	 * further from float64 than nChw16c's where batch norm has few values
	 * per channel (32 px: 3x PyTorch's own error in layer4 gradients,
	 * against 1x). In bf16, nChw16c's steps are 10-16 % faster than
	 * NHWC's (2 threads, 112 and 224 px: git log --follow doc/performance.md). */
	if (cfg->layout == BK_LAYOUT_DEFAULT)
		act_tag = blocked;
	else
		act_tag = cfg->layout == BK_LAYOUT_BLOCKED ? blocked : dnnl_nhwc;
	if (cfg->threads > 0)
		omp_set_num_threads(cfg->threads);
	conv_algo_mode = cfg->conv_algo;
	conv_scratch_limit = cfg->workspace_mb > 0 ? (size_t)(cfg->workspace_mb * 1048576.0) : 0;
	prim_init(cfg->verbose);
}

void bk_finalize(void)
{
	free(acc_tmp);
	free(wtmp);
	free(dwtmp);
	acc_tmp = wtmp = dwtmp = NULL;
	acc_tmp_size = wtmp_size = dwtmp_size = 0;
	conv_algo_reset();
	prim_finalize();
}

/* ---- memory descriptors and tensors ---- */

dnnl_memory_desc_t md4(int n, int c, int h, int w, dnnl_data_type_t dt, dnnl_format_tag_t tag)
{
	dnnl_memory_desc_t md;
	dnnl_dims_t d = {n, c, h, w};
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&md, 4, d, dt, tag));
	return md;
}

dnnl_memory_desc_t tensor_md(int kind, int n, int c, int h, int w)
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

void bk_tensor_write(bk_tensor *t, const float *host)
{
	dnnl_memory_desc_t plain = md4(t->n, t->c, t->h, t->w, dnnl_f32, dnnl_nchw);
	reorder_now(&plain, host, &t->md4, t->data);
}

void bk_tensor_read(const bk_tensor *t, float *host)
{
	dnnl_memory_desc_t plain = md4(t->n, t->c, t->h, t->w, dnnl_f32, dnnl_nchw);
	reorder_now(&t->md4, t->data, &plain, host);
}
