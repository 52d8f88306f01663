/*
 * bench/cuda/backend.cu: bench's backend (backend.h) on one NVIDIA GPU:
 * start-up, the stream, and the trainer's hooks (step timing on CUDA
 * events, peak device memory, the loss scale); device memory, the cuDNN
 * workspace, copies and tensors are in memory.cu. The ops are in conv.cu
 * (cuDNN convolutions), bn.cu (cuDNN batch norm), gemm.cu (cuBLAS
 * classifier) and our own kernels: kernels.cu (layouts, casts, ReLU
 * steps), pool.cu (pooling), loss.cu (bias, softmax cross-entropy, the
 * update).
 *
 * Precisions (bk_config.precision):
 *   fp32  activations fp32 NCHW, no TF32 anywhere (cuDNN FMA math, cuBLAS pedantic)
 *   tf32  fp32 storage, TF32 tensor cores allowed
 *   amp   activations fp16 NHWC, fp16 weight copies per convolution, fp32
 *         master weights, gradients and BN statistics; dynamic loss scale
 *         (lossscale.h): the loss gradient is multiplied by the scale, the
 *         update divides by it and is skipped on the device when a gradient
 *         is not finite
 *   bf16  as amp with bf16 and no scaling
 *
 * Every op runs on one stream; nothing synchronises with the host within
 * a step: the loss is copied behind the softmax and read after bk_sync.
 * With NCCL running, every wait for the stream is bounded (comm_wait): a
 * dead peer ends the job with one line instead of a hang.
 * Every library call is checked (check.h): one line on stderr, exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- waits for the stream, and the loss scale's verdict (loss.cu's too) --- */

/*
 * amp: read the last step's overflow flag (its update is queued before us,
 * so it is final once the stream is idle), advance the loss scale and clear
 * the flag for the next step.
 */
void settle(void)
{
	if (!gpu.pending)
		return;
	CUDA_CHECK(cudaMemcpyAsync(gpu.flag_host, gpu.flag, sizeof(int), cudaMemcpyDeviceToHost,
				   gpu.stream));
	stream_wait();
	lossscale_update(&gpu.ls, *gpu.flag_host);
	CUDA_CHECK(cudaMemsetAsync(gpu.flag, 0, sizeof(int), gpu.stream));
	gpu.pending = gpu.updated = 0;
}

void stream_wait(void)
{
	if (!comm_active()) {
		CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
		return;
	}
	CUDA_CHECK(cudaEventRecord(gpu.synced, gpu.stream));
	comm_wait(gpu.synced, "the step");
}

/* ---- start-up ----------------------------------------------------------- */

/* A GPU the build has no code for (a V100 with CUDA 13's default
 * architectures) fails here, clearly, not at the first kernel. */
static void check_loadable(const cudaDeviceProp *prop)
{
	cudaError_t e = kernels_loadable();

	if (e == cudaErrorUnsupportedPtxVersion)
		die_usage("the CUDA driver is older than the toolkit this bench-cuda was built "
			  "with, and cannot compile its PTX for %s (compute capability %d.%d): "
			  "update the driver, or build with make CUDA_ARCH=%d%d",
			  prop->name, prop->major, prop->minor, prop->major, prop->minor);
	if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
		die_usage("%s is compute capability %d.%d, which this bench-cuda has no code "
			  "for: rebuild with make CUDA_ARCH=%d%d (and a toolkit that has it)",
			  prop->name, prop->major, prop->minor, prop->major, prop->minor);
	CUDA_CHECK(e);
}

/* Default: NHWC for fp16 and bf16 (tensor cores), NCHW for fp32 and tf32;
 * --layout nhwc asks for NHWC everywhere. */
static void set_activations(int layout)
{
	switch (gpu.precision) {
	case BK_AMP:
		gpu.act_dt = CUDNN_DATA_HALF;
		gpu.act_fmt = CUDNN_TENSOR_NHWC;
		gpu.act_size = 2;
		break;
	case BK_BF16:
		gpu.act_dt = CUDNN_DATA_BFLOAT16;
		gpu.act_fmt = CUDNN_TENSOR_NHWC;
		gpu.act_size = 2;
		break;
	default:
		gpu.act_dt = CUDNN_DATA_FLOAT;
		gpu.act_fmt = layout == BK_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
		gpu.act_size = 4;
	}
}

extern "C" void bk_init(const bk_config *cfg)
{
	if (cfg->conv_algo != BK_CONV_FIND)
		die_usage("--conv-algo: the CUDA backend always finds (cudnnFind, conv.cu)");
	int ndev = cuda_device_count();
	cudaDeviceProp prop;

	gpu.precision = cfg->precision;
	gpu.verbose = cfg->verbose;
	gpu.local_rank = cfg->local_rank;
	gpu.nccl_high = cfg->nccl_high_priority;
	gpu.nccl_timeout = cfg->nccl_timeout > 0 ? cfg->nccl_timeout : WATCH_TIMEOUT_S;
	gpu.ws_cap =
		cfg->workspace_mb > 0 ? (size_t)(cfg->workspace_mb * 1048576.0) : (size_t)2 << 30;
	gpu.graph_state = cfg->graph ? GRAPH_WANTED : GRAPH_OFF;
	int major = 0;
	CUDNN_CHECK(cudnnGetProperty(MAJOR_VERSION, &major));
	if (major != CUDNN_MAJOR)
		die("built with cuDNN %d, but the cuDNN loaded is %d (%zu)", CUDNN_MAJOR, major,
		    cudnnGetVersion());
	gpu.device = (cfg->local_rank > 0 ? cfg->local_rank : 0) % ndev;
	CUDA_CHECK(cudaSetDevice(gpu.device));
	CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu.device));
	check_loadable(&prop);
	if ((gpu.precision == BK_TF32 || gpu.precision == BK_BF16) && prop.major < 8)
		die_usage("--precision %s: needs compute capability 8.0 or newer; %s is %d.%d",
			  precision_name(gpu.precision), prop.name, prop.major, prop.minor);
	if (gpu.precision < BK_FP32 || gpu.precision > BK_BF16)
		die_usage("precision %d: not supported by the CUDA backend", gpu.precision);
	if (cfg->layout == BK_LAYOUT_BLOCKED)
		die_usage("--layout blocked: the CUDA backend has NCHW and NHWC only");
	set_activations(cfg->layout);
	CUDA_CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
	CUDNN_CHECK(cudnnCreate(&gpu.dnn));
	CUDNN_CHECK(cudnnSetStream(gpu.dnn, gpu.stream));
	CUBLAS_CHECK(cublasCreate(&gpu.blas));
	CUBLAS_CHECK(cublasSetStream(gpu.blas, gpu.stream));
	/* The classifier is fp32 in every precision (backend.h); TF32 only
	 * where the precision allows reduced math. */
	CUBLAS_CHECK(cublasSetMathMode(gpu.blas, gpu.precision == BK_FP32
							 ? CUBLAS_PEDANTIC_MATH
							 : CUBLAS_TF32_TENSOR_OP_MATH));
	CUDA_CHECK(cudaMalloc((void **)&gpu.flag, sizeof(int)));
	CUDA_CHECK(cudaMemsetAsync(gpu.flag, 0, sizeof(int), gpu.stream));
	CUDA_CHECK(cudaMallocHost((void **)&gpu.flag_host, sizeof(int)));
	CUDA_CHECK(cudaEventCreate(&gpu.step_start));
	CUDA_CHECK(cudaEventCreate(&gpu.step_stop));
	CUDA_CHECK(cudaEventCreateWithFlags(&gpu.synced, cudaEventDisableTiming));
	CUDA_CHECK(cudaMalloc((void **)&gpu.knobs, sizeof *gpu.knobs));
	CUDA_CHECK(cudaMallocHost((void **)&gpu.knobs_host, sizeof *gpu.knobs_host));
	memset(gpu.knobs_host, 0, sizeof *gpu.knobs_host);
	gpu.scaling = gpu.precision == BK_AMP;
	if (gpu.scaling)
		lossscale_init(&gpu.ls, gpu.static_scale);
	else
		lossscale_off(&gpu.ls);
	push_knobs();
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	comm_streams_init();
	note_mem();
	gpu.ready = 1;
	if (gpu.verbose)
		fprintf(stderr,
			"bench: cuda device %d of %d: %s, compute capability %d.%d, %.0f MB; "
			"cuDNN %zu, cuBLAS, precision %s\n",
			gpu.device, ndev, prop.name, prop.major, prop.minor,
			(double)prop.totalGlobalMem / 1048576.0, cudnnGetVersion(),
			precision_name(gpu.precision));
}

extern "C" void bk_finalize(void)
{
	if (!gpu.ready)
		return;
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	if (gpu.ws)
		CUDA_CHECK(cudaFree(gpu.ws));
	if (gpu.loss_rows)
		CUDA_CHECK(cudaFree(gpu.loss_rows));
	if (gpu.loss_host)
		CUDA_CHECK(cudaFreeHost(gpu.loss_host));
	CUDA_CHECK(cudaFree(gpu.flag));
	CUDA_CHECK(cudaFreeHost(gpu.flag_host));
	CUDA_CHECK(cudaEventDestroy(gpu.step_start));
	CUDA_CHECK(cudaEventDestroy(gpu.step_stop));
	CUDA_CHECK(cudaEventDestroy(gpu.synced));
	CUDA_CHECK(cudaFree(gpu.knobs));
	CUDA_CHECK(cudaFreeHost(gpu.knobs_host));
	graph_release();
	CUBLAS_CHECK(cublasDestroy(gpu.blas));
	CUDNN_CHECK(cudnnDestroy(gpu.dnn));
	CUDA_CHECK(cudaStreamDestroy(gpu.stream));
	gpu.ws = NULL;
	gpu.loss_rows = NULL;
	gpu.loss_host = NULL;
	gpu.ready = 0;
}

extern "C" const char *bk_name(void)
{
	return "cuda-cudnn";
}

/* ---- the trainer's hooks ------------------------------------------------ */

extern "C" int bk_can_scale_loss(void)
{
	return 1;
}

/* --loss-scale N (amp): a static scale N > 0; 0 = dynamic (the default). */
extern "C" void bk_set_loss_scale(float scale)
{
	gpu.static_scale = scale;
	if (gpu.ready && gpu.scaling)
		lossscale_init(&gpu.ls, scale);
}

/* Both settle the last step: call them after it, not between its backward
 * and its update. */
extern "C" float bk_loss_scale(void)
{
	if (gpu.ready)
		settle();
	return gpu.ls.scale;
}

extern "C" long bk_skipped_steps(void)
{
	if (gpu.ready)
		settle();
	return gpu.ls.skipped;
}

/* CUDA events around one training step: begin before the forward, end after
 * the update; end waits for the step and returns the device's time of it. */
extern "C" void bk_step_begin(void)
{
	CUDA_CHECK(cudaEventRecord(gpu.step_start, gpu.stream));
}

extern "C" double bk_step_end(double host_s)
{
	float ms = 0.0f;

	(void)host_s;
	CUDA_CHECK(cudaEventRecord(gpu.step_stop, gpu.stream));
	CUDA_CHECK(cudaEventSynchronize(gpu.step_stop));
	CUDA_CHECK(cudaEventElapsedTime(&ms, gpu.step_start, gpu.step_stop));
	note_mem();
	return (double)ms / 1000.0;
}

/* Peak device memory in use (MB, 2^20 bytes) seen so far: note_mem's, the
 * device's as nvidia-smi shows it, this process's context and all of its
 * allocations (cuDNN, cuBLAS, NCCL) included, and any other process's on
 * the same GPU too. */
extern "C" double bk_peak_mem_mb(void)
{
	if (gpu.ready)
		note_mem();
	return (double)gpu.peak / 1048576.0;
}

/* With the step's update done, its overflow verdict is final: settle it
 * here, while the stream is idle anyway, and not in the next step. */
extern "C" void bk_sync(void)
{
	stream_wait();
	if (gpu.pending && gpu.updated)
		settle();
}

/* ---- ops ------------------------------------------------------------------ */

extern "C" void bk_op_destroy(bk_op *op)
{
	if (!op)
		return;
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	if (op->wdesc)
		CUDNN_CHECK(cudnnDestroyFilterDescriptor(op->wdesc));
	if (op->cdesc)
		CUDNN_CHECK(cudnnDestroyConvolutionDescriptor(op->cdesc));
	if (op->xsdesc)
		CUDNN_CHECK(cudnnDestroyTensorDescriptor(op->xsdesc));
	if (op->pdesc)
		CUDNN_CHECK(cudnnDestroyTensorDescriptor(op->pdesc));
	if (op->act)
		CUDNN_CHECK(cudnnDestroyActivationDescriptor(op->act));
	if (op->krsc)
		conv_forget(op); /* its w16 is a slice of conv.cu's copy */
	void *bufs[] = {op->krsc ? NULL : op->w16,
			op->dw16,
			op->xs,
			op->save_mean,
			op->save_inv,
			op->reserve,
			op->arg,
			op->seg_lo,
			op->seg_hi,
			op->af_inv_x,
			op->af_inv_w,
			op->af_dphi};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (bufs[i])
			CUDA_CHECK(cudaFree(bufs[i]));
	free(op);
}
