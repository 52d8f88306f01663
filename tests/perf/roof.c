/*
 * tests/perf/roof.c: bin/perf-roof, this machine's convolution roof. Times
 * single oneDNN convolutions of ResNet50 v1.5's shapes (forward,
 * backward-data, backward-weights) in fp32 and bf16, layouts chosen by
 * oneDNN (format_tag any; convtime.c), and prints the best rate per
 * precision. Reads nothing; writes on stdout one line per precision
 *
 *	roof fp32 345.6 GFLOP/s 128x128x3x3 s1 28x28 fwd
 *
 * or "roof bf16 - no bf16 convolution in oneDNN on this CPU" (AVX2 only),
 * and with -v one line per shape and direction on stderr. A multiply-add
 * counts as 2 FLOP. Threads: oneDNN's OpenMP (OMP_NUM_THREADS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dnnl.h>

#include "convtime.h"
#include "cpu/dnnl_check.h"
#include "lib.h"

/* ResNet50 v1.5's distinct convolutions at 224 px: in, out, kernel, stride,
 * input side. The stride-2 3x3 is the v1.5 placement. */
static const struct shape {
	int ic, oc, k, s, h;
} shapes[] = {
	{3, 64, 7, 2, 224},     {64, 64, 1, 1, 56},    {64, 64, 3, 1, 56},    {64, 256, 1, 1, 56},
	{256, 64, 1, 1, 56},    {256, 128, 1, 1, 56},  {128, 128, 3, 2, 56},  {128, 512, 1, 1, 28},
	{256, 512, 1, 2, 56},   {512, 128, 1, 1, 28},  {128, 128, 3, 1, 28},  {512, 256, 1, 1, 28},
	{256, 256, 3, 2, 28},   {256, 1024, 1, 1, 14}, {512, 1024, 1, 2, 28}, {1024, 256, 1, 1, 14},
	{256, 256, 3, 1, 14},   {1024, 512, 1, 1, 14}, {512, 512, 3, 2, 14},  {512, 2048, 1, 1, 7},
	{1024, 2048, 1, 2, 14}, {2048, 512, 1, 1, 7},  {512, 512, 3, 1, 7},
};

static const char *dir_name[NDIR] = {"fwd", "bwd-data", "bwd-weights"};

/* Can oneDNN run a convolution in this data type here at all? */
static int has_conv(dnnl_data_type_t dt, dnnl_engine_t eng)
{
	dnnl_dims_t src_d = {1, 64, 8, 8}, wei_d = {64, 64, 3, 3}, one = {1, 1};
	dnnl_memory_desc_t src_md, wei_md;
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&src_md, 4, src_d, dt, dnnl_format_tag_any));
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&wei_md, 4, wei_d, dt, dnnl_format_tag_any));
	dnnl_convolution_desc_t fd;
	dnnl_primitive_desc_t pd;
	DNNL_CHECK(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training,
						      dnnl_convolution_direct, &src_md, &wei_md,
						      NULL, &src_md, one, one, one));
	dnnl_status_t st = dnnl_primitive_desc_create(&pd, &fd, NULL, eng, NULL);
	if (st == dnnl_unimplemented)
		return 0;
	DNNL_CHECK(st);
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
	return 1;
}

/* Best seconds of one convolution in one direction over reps runs. */
static double time_conv(const struct shape *c, int batch, int dir, dnnl_data_type_t dt, int reps,
			dnnl_engine_t eng, dnnl_stream_t st)
{
	int oh = (c->h + 2 * (c->k / 2) - c->k) / c->s + 1;
	/* right padding so that the output side is exactly oh */
	int pr = (oh - 1) * c->s + c->k - c->h - c->k / 2;
	conv_shape cs = {batch, c->ic, c->oc, c->h, c->h, c->k, c->s, c->k / 2, pr};
	double t = conv_time(&cs, dir, dt, dnnl_convolution_direct, reps, eng, st);
	if (t < 0)
		die("%dx%dx%dx%d: no %s convolution in oneDNN", c->oc, c->ic, c->k, c->k,
		    dir_name[dir]);
	return t;
}

int main(int argc, char **argv)
{
	progname = "perf-roof";
	usage_text = "perf-roof [-v] [-b batch] [-n reps] [-p precision]";
	int batch = 16, reps = 5, verbose = 0, want_fp32 = 1, want_bf16 = 1, ch;
	while ((ch = getopt(argc, argv, "b:n:p:v")) != -1) {
		switch (ch) {
		case 'b':
			batch = (int)flag_int("-b", optarg, 1, 1024);
			break;
		case 'n':
			reps = (int)flag_int("-n", optarg, 1, 10000);
			break;
		case 'p':
			want_fp32 = strcmp(optarg, "fp32") == 0;
			want_bf16 = strcmp(optarg, "bf16") == 0;
			if (!want_fp32 && !want_bf16)
				die_usage("-p: %s: want fp32 or bf16", optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	dnnl_engine_t eng;
	dnnl_stream_t st;
	DNNL_CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
	DNNL_CHECK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));

	static const struct {
		const char *name;
		dnnl_data_type_t dt;
	} precs[] = {{"fp32", dnnl_f32}, {"bf16", dnnl_bf16}};
	for (int p = 0; p < 2; p++) {
		if ((p == 0 && !want_fp32) || (p == 1 && !want_bf16))
			continue;
		if (!has_conv(precs[p].dt, eng)) {
			/* oneDNN 2.6 has no bf16 convolution without AVX-512 */
			printf("roof %s - no %s convolution in oneDNN on this CPU\n", precs[p].name,
			       precs[p].name);
			continue;
		}
		double roof = 0;
		char where[96] = "";
		for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
			const struct shape *c = &shapes[i];
			int oh = (c->h + 2 * (c->k / 2) - c->k) / c->s + 1;
			double flop = 2.0 * batch * c->oc * oh * oh * (double)c->ic * c->k * c->k;
			for (int dir = 0; dir < NDIR; dir++) {
				/* The first layer's input gradient is never computed. */
				if (i == 0 && dir == BWD_DATA)
					continue;
				double t = time_conv(c, batch, dir, precs[p].dt, reps, eng, st);
				double gf = flop / t * 1e-9;
				char shp[96];
				snprintf(shp, sizeof shp, "%dx%dx%dx%d s%d %dx%d %s", c->oc, c->ic,
					 c->k, c->k, c->s, c->h, c->h, dir_name[dir]);
				if (verbose)
					warnf("%s %s %.3f ms %.1f GFLOP/s", precs[p].name, shp,
					      t * 1e3, gf);
				if (gf > roof) {
					roof = gf;
					memcpy(where, shp, sizeof where);
				}
			}
		}
		printf("roof %s %.1f GFLOP/s %s\n", precs[p].name, roof, where);
		fflush(stdout);
	}
	DNNL_CHECK(dnnl_stream_destroy(st));
	DNNL_CHECK(dnnl_engine_destroy(eng));
	finish_output();
	return 0;
}
