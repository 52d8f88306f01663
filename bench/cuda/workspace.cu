/*
 * bench/cuda/workspace.cu: the one cuDNN workspace, shared by convolutions
 * and batch norm (they run in order on one stream): its limit for
 * cudnnFind, its growth at plan time, and its cut to what the chosen
 * algorithms need at the first run of an op, when the plan is said on
 * stderr (rank 0).
 */
#include <stdio.h>

#include "internal.h"
#include "search.h"

/* The limit is fixed at the first plan that needs it: free memory then
 * holds parameters and activations already (model_plan allocates first).
 * Half of it, and at most --workspace-mb (default 2 GB). */
void ws_limit_init(void)
{
	size_t freeb, total;

	if (gpu.ws_limit)
		return;
	CUDA_CHECK(cudaMemGetInfo(&freeb, &total));
	gpu.ws_limit = gpu_workspace_limit(gpu.ws_cap, freeb, 0.5);
}

void ws_grow(size_t bytes)
{
	if (bytes <= gpu.ws_size)
		return;
	if (gpu.ws) {
		CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
		CUDA_CHECK(cudaFree(gpu.ws));
	}
	gpu.ws = dev_alloc(bytes);
	gpu.ws_size = bytes;
}

void ws_reserve(size_t bytes)
{
	if (bytes > gpu.ws_need)
		gpu.ws_need = bytes;
	ws_grow(bytes);
}

/* Cut the search workspace down to what the chosen algorithms need, and say
 * so once. */
void ws_finalize(void)
{
	if (gpu.ws_final)
		return;
	gpu.ws_final = 1;
	if (gpu.ws_size > gpu.ws_need) {
		CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
		CUDA_CHECK(cudaFree(gpu.ws));
		gpu.ws = gpu.ws_need ? dev_alloc(gpu.ws_need) : NULL;
		gpu.ws_size = gpu.ws_need;
	}
	/* The search workspace was transient: the peak reported is that of
	 * training, as nvidia-smi would show it during the run. */
	gpu.peak = 0;
	note_mem();
	if (comm_rank() == 0) {
		char line[256];
		gpu_bn_summary(&gpu.bn, precision_name(gpu.precision), line, sizeof line);
		fprintf(stderr,
			"bench: cudnn: %d convolution shapes searched, workspace limit %.1f MB, "
			"using %.1f MB\nbench: %s\n",
			gpu.conv_shapes, (double)gpu.ws_limit / 1048576.0,
			(double)gpu.ws_need / 1048576.0, line);
	}
}
