/*
 * bench/cuda/device.cu: the CUDA backend's one state (gpu, internal.h), and
 * what every file of the backend asks of the device and of the state: the
 * device count, device memory of our own counted in the peak, a new op
 * record, the precision's name. Calls no other file of the backend, so that
 * every one may call it.
 */
#include <stdlib.h>

#include "internal.h"

struct cuda_backend gpu;

/* The device's memory in use, as cudaMemGetInfo and nvidia-smi count it:
 * this process's allocations and CUDA context, and any other process's on
 * the same GPU (one rank per GPU: nothing else, normally). */
void note_mem(void)
{
	size_t freeb, total;

	CUDA_CHECK(cudaMemGetInfo(&freeb, &total));
	if (total - freeb > gpu.peak)
		gpu.peak = total - freeb;
}

void *dev_alloc(size_t bytes)
{
	void *p = NULL;

	CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
	note_mem();
	return p;
}

bk_op *op_new(void)
{
	return (bk_op *)xcalloc(1, sizeof(bk_op));
}

int cuda_device_count(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0)
		die("no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
	return n;
}

const char *precision_name(int precision)
{
	return precision >= 0 && precision <= BK_BF16 ? bk_precision_names[precision] : "?";
}
