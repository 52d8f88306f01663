/*
 * bench/cuda/host.cu: input batches on the CUDA backend (backend.h): pinned
 * host buffers, and their copy queued on the backend's stream, so it runs in
 * order with the step's ops and the host never waits for it.
 */
#include "internal.h"

extern "C" void *bk_host_alloc(size_t bytes)
{
	void *p = NULL;
	CUDA_CHECK(cudaMallocHost(&p, bytes ? bytes : 1));
	return p;
}

extern "C" void bk_host_free(void *p)
{
	if (p)
		CUDA_CHECK(cudaFreeHost(p));
}

extern "C" void bk_to_device_async(void *dev, const void *host, size_t bytes)
{
	CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, gpu.stream));
}
