/*
 * families.h — formats built on another format's parts: OneFlow's
 * configuration lines and method (oneflow.c; OneFlow BERT uses them) and
 * MXNet's Speed and rows (mxnet.c; NGC MXNet uses them).
 */
#ifndef DLBENCH_FAMILIES_H
#define DLBENCH_FAMILIES_H

#include "dlperf.h"
#include "formats.h"

/* OneFlow's "name = value" lines (oneflow.c; OneFlow BERT prints them too). */
extern const char *const oneflow_config_prefixes[];
int oneflow_config(struct scan *sc, const char *s);
/* DLPerf's OneFlow method: the last line of iterations s and s+n (oneflow.c). */
double oneflow_dlperf_speed(struct dlperf_run *r);
/* DLPerf's MXNet method over rows of w lines (mxnet.c; NGC MXNet: w = ranks). */
double mxnet_dlperf_rows(struct dlperf_run *r, long w);
/* "Speed: <v> samples/sec" of both MXNet formats (mxnet.c). */
void mxnet_speed(struct scan *sc, const char *p, struct it *it);

#endif
