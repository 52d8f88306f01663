/*
 * bench/cpu/conv_algo.c: which algorithm each convolution runs, per
 * direction (forward, backward data, backward weights), and the primitive
 * descriptor of a direction. oneDNN 2.6 trains with two here: direct,
 * everywhere, and Winograd F(4x4, 3x3), for fp32 3x3 stride-1
 * convolutions on AVX-512 in the blocked layout (oneDNN names it
 * jit_wino_4x3:avx512_core).
 *
 * --conv-algo says which: direct; winograd wherever oneDNN has it, direct
 * elsewhere; or find (the default), what cuDNN's Find does for the CUDA
 * backend: at plan time both run on the convolution's own tensors, a
 * warm-up each and then REPS times each, interleaved, and the one whose
 * fastest run is faster is kept, once per distinct shape. The timing runs
 * have weights and a scratchpad of their own, freed after, so the shared
 * scratchpad grows only for the algorithms kept. With --workspace-mb, a
 * Winograd whose scratchpad is larger is no candidate (as cudnnFind's
 * workspace limit on CUDA). Find follows the machine's speed of the
 * moment: two runs may keep different algorithms, and their losses then
 * differ in the last bits.
 */
#include <string.h>

#include "internal.h"

enum { MAX_SHAPES = 64, REPS = 3 };

/* A distinct shape and the algorithms find kept for it. */
struct found {
	int key[9];
	dnnl_alg_kind_t alg[NDIR];
};
static struct found found[MAX_SHAPES];
static int nfound, warned;

static const char *const dir_name[NDIR] = {"fwd", "bwd-data", "bwd-weights"};

void conv_algo_reset(void)
{
	nfound = warned = 0;
}

dnnl_primitive_desc_t conv_pd(const conv_shape *c, int dir, dnnl_alg_kind_t alg,
			      const_dnnl_primitive_desc_t hint, int how)
{
	static const char *const what[NDIR] = {"conv fwd", "conv bwd data", "conv bwd weights"};
	dnnl_convolution_desc_t cd;

	if (dir == DIR_FWD)
		DNNL_CHECK(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_training, alg,
							      &c->x, &c->w, NULL, &c->y, c->s, c->p,
							      c->p));
	else if (dir == DIR_BWD_DATA)
		DNNL_CHECK(dnnl_convolution_backward_data_desc_init(&cd, alg, &c->dx, &c->w, &c->dy,
								    c->s, c->p, c->p));
	else
		DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
			&cd, alg, &c->x, &c->dw, NULL, &c->dy, c->s, c->p, c->p));
	const char *name = how & CONV_PD_QUIET ? NULL : what[dir];
	return how & CONV_PD_TRY ? pd_try(&cd, NULL, hint, name) : pd_create(&cd, NULL, hint, name);
}

static size_t scratch_of(const_dnnl_primitive_desc_t pd)
{
	const dnnl_memory_desc_t *md = query_md(pd, dnnl_query_scratchpad_md);
	return md ? dnnl_memory_desc_get_size(md) : 0;
}

/* One primitive of a timing: its own weights (or weight gradient) and
 * scratchpad, the convolution's tensors for the rest. */
typedef struct trial {
	dnnl_primitive_t p;
	dnnl_exec_arg_t a[4];
	int n;
	dnnl_memory_t m[2];
	void *buf[2];
	double best;
} trial;

static dnnl_memory_t own(trial *t, int i, const dnnl_memory_desc_t *md)
{
	t->buf[i] = bk_malloc(dnnl_memory_desc_get_size(md));
	return t->m[i] = mem_over(md, t->buf[i]);
}

static void trial_make(trial *t, const_dnnl_primitive_desc_t pd, int dir, const dnnl_memory_t *m)
{
	memset(t, 0, sizeof *t);
	t->best = 1e30;
	DNNL_CHECK(dnnl_primitive_create(&t->p, pd));
	dnnl_memory_t w = own(t, 0,
			      query_md(pd, dir == DIR_BWD_WEIGHTS ? dnnl_query_diff_weights_md
								  : dnnl_query_weights_md));
	static const int args[NDIR][3] = {
		{DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
		{DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC},
		{DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS},
	};
	/* m: x, y, dx, dy */
	const dnnl_memory_t mems[NDIR][3] = {{m[0], w, m[1]}, {m[3], w, m[2]}, {m[0], m[3], w}};
	for (int i = 0; i < 3; i++)
		t->a[t->n++] = (dnnl_exec_arg_t){args[dir][i], mems[dir][i]};
	const dnnl_memory_desc_t *smd = query_md(pd, dnnl_query_scratchpad_md);
	if (smd && dnnl_memory_desc_get_size(smd))
		t->a[t->n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, own(t, 1, smd)};
}

static void trial_free(trial *t)
{
	DNNL_CHECK(dnnl_primitive_destroy(t->p));
	for (int i = 0; i < 2; i++)
		if (t->m[i]) {
			DNNL_CHECK(dnnl_memory_destroy(t->m[i]));
			bk_free(t->buf[i]);
		}
}

/* Direct against Winograd (pds d, w) for one direction: 1 when Winograd's
 * fastest run is the faster. */
static int winograd_faster(const conv_shape *c, int dir, const_dnnl_primitive_desc_t d,
			   const_dnnl_primitive_desc_t w, const dnnl_memory_t *m)
{
	trial t[2];
	trial_make(&t[0], d, dir, m);
	trial_make(&t[1], w, dir, m);
	for (int r = 0; r <= REPS; r++)
		for (int i = 0; i < 2; i++) {
			double s = prim_time(t[i].p, t[i].n, t[i].a);
			if (r > 0 && s < t[i].best) /* run 0 warms up */
				t[i].best = s;
		}
	if (cpu.verbose)
		warnf("conv find: %dx%dx%dx%d k%d -> %d %s: direct %.3f ms, winograd %.3f ms: %s",
		      (int)c->x.dims[0], (int)c->x.dims[1], (int)c->x.dims[2], (int)c->x.dims[3],
		      c->k, (int)c->y.dims[1], dir_name[dir], t[0].best * 1e3, t[1].best * 1e3,
		      t[1].best < t[0].best ? "winograd" : "direct");
	trial_free(&t[0]);
	trial_free(&t[1]);
	return t[1].best < t[0].best;
}

void conv_algo_choose(const conv_shape *c, const dnnl_memory_t m[4], dnnl_alg_kind_t alg[NDIR])
{
	for (int d = 0; d < NDIR; d++)
		alg[d] = dnnl_convolution_direct;
	if (cpu.conv_algo == BK_CONV_DIRECT || c->k != 3 || c->s[0] != 1 || c->s[1] != 1)
		return;
	int key[9] = {(int)c->x.dims[0], (int)c->x.dims[1], (int)c->x.dims[2],
		      (int)c->x.dims[3], (int)c->y.dims[1], c->k,
		      (int)c->s[0],      (int)c->p[0],      c->has_dx};
	for (int i = 0; i < nfound; i++)
		if (!memcmp(found[i].key, key, sizeof key)) {
			memcpy(alg, found[i].alg, sizeof found[i].alg);
			return;
		}

	dnnl_primitive_desc_t w[NDIR] = {NULL}, d[NDIR] = {NULL};
	const int quiet = CONV_PD_TRY | CONV_PD_QUIET;
	w[DIR_FWD] = conv_pd(c, DIR_FWD, dnnl_convolution_winograd, NULL, quiet);
	for (int i = DIR_BWD_DATA; i < NDIR && w[DIR_FWD]; i++)
		if (i != DIR_BWD_DATA || c->has_dx)
			w[i] = conv_pd(c, i, dnnl_convolution_winograd, w[DIR_FWD], quiet);
	int has = w[DIR_FWD] != NULL; /* oneDNN has Winograd here, whatever its size */
	for (int i = 0; i < NDIR; i++)
		if (w[i] && cpu.conv_scratch_limit && scratch_of(w[i]) > cpu.conv_scratch_limit) {
			if (cpu.verbose)
				warnf("conv find: %dx%dx%dx%d k%d -> %d %s: winograd's scratchpad, "
				      "%.1f MB, is over --workspace-mb %.1f: direct",
				      (int)c->x.dims[0], (int)c->x.dims[1], (int)c->x.dims[2],
				      (int)c->x.dims[3], c->k, (int)c->y.dims[1], dir_name[i],
				      scratch_of(w[i]) / 1048576.0,
				      cpu.conv_scratch_limit / 1048576.0);
			DNNL_CHECK(dnnl_primitive_desc_destroy(w[i]));
			w[i] = NULL;
		}
	if (cpu.conv_algo == BK_CONV_FIND && (w[0] || w[1] || w[2]))
		d[DIR_FWD] = conv_pd(c, DIR_FWD, dnnl_convolution_direct, NULL, CONV_PD_QUIET);
	for (int i = 0; i < NDIR; i++) {
		if (!w[i])
			continue;
		if (cpu.conv_algo == BK_CONV_FIND) {
			if (i)
				d[i] = conv_pd(c, i, dnnl_convolution_direct, d[DIR_FWD],
					       CONV_PD_QUIET);
			if (!is_ref(d[i]) && !winograd_faster(c, i, d[i], w[i], m))
				continue;
		}
		alg[i] = dnnl_convolution_winograd;
	}
	if (cpu.conv_algo == BK_CONV_WINOGRAD && !has && !warned++)
		warnf("--conv-algo winograd: oneDNN has no Winograd here for %s 3x3 convolutions "
		      "on %dx%d (only fp32 on AVX-512, blocked layout); they run direct",
		      c->x.data_type == dnnl_f32 ? "fp32" : "bf16", (int)c->x.dims[2],
		      (int)c->x.dims[3]);
	for (int i = 0; i < NDIR; i++) {
		if (w[i])
			DNNL_CHECK(dnnl_primitive_desc_destroy(w[i]));
		if (d[i])
			DNNL_CHECK(dnnl_primitive_desc_destroy(d[i]));
	}
	if (nfound < MAX_SHAPES) {
		memcpy(found[nfound].key, key, sizeof key);
		memcpy(found[nfound++].alg, alg, sizeof found[0].alg);
	}
}
