/*
 * tests/perf/convtime.c: times one oneDNN convolution (convtime.h) on
 * buffers of its own, filled with small values. Reads and writes nothing
 * but memory.
 */
#include <stdio.h>
#include <time.h>

#include "convtime.h"
#include "cpu/dnnl_check.h"
#include "lib.h"

struct arg_query {
	int arg;
	dnnl_query_t q;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static dnnl_memory_t alloc_filled(const dnnl_memory_desc_t *md, dnnl_engine_t eng)
{
	dnnl_memory_t m;
	DNNL_CHECK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
	void *p;
	DNNL_CHECK(dnnl_memory_get_data_handle(m, &p));
	size_t n = dnnl_memory_desc_get_size(md);
	if (md->data_type == dnnl_f32) {
		float *f = p;
		for (size_t i = 0; i < n / sizeof *f; i++)
			f[i] = 0.01f * (float)(int)(i % 13 - 6);
	} else {
		unsigned short *h = p; /* bf16 bit patterns of +-0.0078 and 0 */
		static const unsigned short v[3] = {0x3c00, 0x0000, 0xbc00};
		for (size_t i = 0; i < n / sizeof *h; i++)
			h[i] = v[i % 3];
	}
	return m;
}

/* dnnl_unimplemented is an answer (-1 up the call), anything else fatal. */
static int pd_make(dnnl_primitive_desc_t *pd, const void *d, dnnl_engine_t eng,
		   const_dnnl_primitive_desc_t hint)
{
	dnnl_status_t s = dnnl_primitive_desc_create(pd, d, NULL, eng, hint);
	if (s == dnnl_unimplemented)
		return 0;
	DNNL_CHECK(s);
	return 1;
}

double conv_time(const conv_shape *c, int dir, dnnl_data_type_t dt, dnnl_alg_kind_t alg, int reps,
		 dnnl_engine_t eng, dnnl_stream_t st)
{
	int oh = (c->h + c->pl + c->pr - c->k) / c->s + 1;
	int ow = (c->w + c->pl + c->pr - c->k) / c->s + 1;
	dnnl_dims_t src_d = {c->n, c->ic, c->h, c->w}, wei_d = {c->oc, c->ic, c->k, c->k};
	dnnl_dims_t dst_d = {c->n, c->oc, oh, ow};
	dnnl_dims_t strides = {c->s, c->s}, pad_l = {c->pl, c->pl}, pad_r = {c->pr, c->pr};
	dnnl_memory_desc_t src_md, wei_md, dst_md, dwei_md;
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&src_md, 4, src_d, dt, dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wei_md, 4, wei_d, dt, dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_d, dt, dnnl_format_tag_any));
	/* training keeps fp32 weight gradients (fp32 master weights) */
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&dwei_md, 4, wei_d, dnnl_f32, dnnl_format_tag_any));

	dnnl_convolution_desc_t fd, d;
	dnnl_primitive_desc_t fpd, pd;
	DNNL_CHECK(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, alg, &src_md,
						      &wei_md, NULL, &dst_md, strides, pad_l,
						      pad_r));
	if (!pd_make(&fpd, &fd, eng, NULL))
		return -1.0;
	if (dir == FWD) {
		pd = fpd;
	} else {
		if (dir == BWD_DATA)
			DNNL_CHECK(dnnl_convolution_backward_data_desc_init(
				&d, alg, &src_md, &wei_md, &dst_md, strides, pad_l, pad_r));
		else
			DNNL_CHECK(dnnl_convolution_backward_weights_desc_init(
				&d, alg, &src_md, &dwei_md, NULL, &dst_md, strides, pad_l, pad_r));
		if (!pd_make(&pd, &d, eng, fpd)) {
			DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
			return -1.0;
		}
	}

	/* Arguments in the layouts the primitive chose. */
	static const struct arg_query fwd_args[] = {
		{DNNL_ARG_SRC, dnnl_query_src_md},
		{DNNL_ARG_WEIGHTS, dnnl_query_weights_md},
		{DNNL_ARG_DST, dnnl_query_dst_md},
		{DNNL_ARG_SCRATCHPAD, dnnl_query_scratchpad_md}};
	static const struct arg_query bd_args[] = {{DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md},
						   {DNNL_ARG_WEIGHTS, dnnl_query_weights_md},
						   {DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md},
						   {DNNL_ARG_SCRATCHPAD, dnnl_query_scratchpad_md}};
	static const struct arg_query bw_args[] = {
		{DNNL_ARG_SRC, dnnl_query_src_md},
		{DNNL_ARG_DIFF_WEIGHTS, dnnl_query_diff_weights_md},
		{DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md},
		{DNNL_ARG_SCRATCHPAD, dnnl_query_scratchpad_md}};
	const struct arg_query *a = dir == FWD ? fwd_args : dir == BWD_DATA ? bd_args : bw_args;
	dnnl_exec_arg_t args[4];
	int nargs = 0;
	for (int i = 0; i < 4; i++) {
		const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, a[i].q, 0);
		if (!md || dnnl_memory_desc_get_size(md) == 0)
			continue;
		args[nargs].arg = a[i].arg;
		args[nargs].memory = alloc_filled(md, eng);
		nargs++;
	}
	dnnl_primitive_t prim;
	DNNL_CHECK(dnnl_primitive_create(&prim, pd));

	double best = 1e30;
	for (int r = -2; r < reps; r++) { /* two warm-up runs */
		double t0 = now();
		DNNL_CHECK(dnnl_primitive_execute(prim, st, nargs, args));
		DNNL_CHECK(dnnl_stream_wait(st));
		double t = now() - t0;
		if (r >= 0 && t < best)
			best = t;
	}
	DNNL_CHECK(dnnl_primitive_destroy(prim));
	for (int i = 0; i < nargs; i++)
		DNNL_CHECK(dnnl_memory_destroy(args[i].memory));
	if (pd != fpd)
		DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
	DNNL_CHECK(dnnl_primitive_desc_destroy(fpd));
	return best;
}
