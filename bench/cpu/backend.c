/*
 * bench/cpu/backend.c: the oneDNN backend's entry points (backend.h) for
 * start-up and shut-down, the copies between host and device memory, and
 * the trainer's hooks. bk_init fills the backend's one state (internal.h's
 * cpu): activations in oneDNN's blocked layout (nChw16c, or nChw8c without
 * AVX-512), fp32 or bf16 (--precision amp, bf16), or channels-last with
 * --layout nhwc; only the input image (NCHW fp32) and the classifier (plain
 * fp32 [n][c]) are plain. The rest of the backend, in the order its files
 * call each other (each only those before it): memory.c (device memory,
 * the shared temporaries), prim.c (oneDNN's engine, stream and
 * primitives), tensor.c (descriptors, tensors), conv_algo.c (a
 * convolution's algorithm), conv.c (the op record, convolutions, their
 * weights' layouts), layers.c (the other ops); host.c (input batches, the
 * profile's clock) and comm_mpi.c (comm.h) stand alone.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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
		cpu.act_dt = dnnl_bf16;
	} else if (cfg->precision != BK_FP32) {
		die_usage("--precision: the CPU backend runs fp32, amp and bf16 only");
	} else {
		cpu.act_dt = dnnl_f32;
	}
	/* The blocked layout has one vector of channels per block: nChw16c
	 * with AVX-512, nChw8c with AVX2, where oneDNN 2.6 has no nChw16c
	 * convolution but its reference one, far too slow to train on. */
	dnnl_format_tag_t blocked = dnnl_nChw16c;
	cpu.act_block = 16;
	if ((dnnl_get_effective_cpu_isa() & dnnl_cpu_isa_avx512_core) != dnnl_cpu_isa_avx512_core) {
		blocked = dnnl_nChw8c;
		cpu.act_block = 8;
	}
	/* Default: blocked in both precisions. In fp32, NHWC's results drift
	 * further from float64 than the blocked layout's where batch norm has
	 * few values per channel (layer4 at small images); in bf16 the blocked
	 * layout's steps measured the faster when this default was chosen
	 * (the figures: git log --follow doc/performance.md). */
	if (cfg->layout == BK_LAYOUT_DEFAULT)
		cpu.act_tag = blocked;
	else
		cpu.act_tag = cfg->layout == BK_LAYOUT_BLOCKED ? blocked : dnnl_nhwc;
	if (cfg->threads > 0)
		omp_set_num_threads(cfg->threads);
	cpu.conv_algo = cfg->conv_algo;
	cpu.conv_scratch_limit =
		cfg->workspace_mb > 0 ? (size_t)(cfg->workspace_mb * 1048576.0) : 0;
	cpu.verbose = cfg->verbose;
	prim_init();
}

void bk_finalize(void)
{
	free(cpu.acc_tmp);
	free(cpu.wtmp);
	free(cpu.dwtmp);
	cpu.acc_tmp = cpu.wtmp = cpu.dwtmp = NULL;
	cpu.acc_tmp_size = cpu.wtmp_size = cpu.dwtmp_size = 0;
	conv_algo_reset();
	prim_finalize();
}
