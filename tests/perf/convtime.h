/*
 * tests/perf/convtime.h: the time of one oneDNN convolution, shared by
 * bin/perf-roof's single-convolution roof (roof.c) and its step roof
 * (step.c).
 */
#ifndef PERF_CONVTIME_H
#define PERF_CONVTIME_H

#include <dnnl.h>

enum { FWD, BWD_DATA, BWD_WEIGHTS, NDIR };

typedef struct conv_shape {
	int n, ic, oc, h, w, k, s, pl, pr; /* batch, channels, input side, kernel, stride, pads */
} conv_shape;

/* Best seconds of reps runs, after two warm-up runs, of the convolution in
 * direction dir (FWD, BWD_DATA, BWD_WEIGHTS), data type dt (the weight
 * gradient fp32 whatever dt), algorithm alg (dnnl_convolution_direct,
 * _winograd), layouts of oneDNN's choosing; -1 when oneDNN has no
 * implementation of it here. */
double conv_time(const conv_shape *c, int dir, dnnl_data_type_t dt, dnnl_alg_kind_t alg, int reps,
		 dnnl_engine_t eng, dnnl_stream_t st);

#endif
