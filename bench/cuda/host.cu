/*
 * bench/cuda/host.cu: input batches on the CUDA backend (backend.h): pinned
 * host buffers, and their copy queued on the backend's stream, so it runs in
 * order with the step's ops and the host never waits for it; and
 * --profile's clock: events on the stream.
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

static cudaEvent_t *marks;
static int nmarks;

extern "C" void bk_prof_init(int n)
{
	marks = (cudaEvent_t *)xcalloc((size_t)n, sizeof *marks);
	for (int i = 0; i < n; i++)
		CUDA_CHECK(cudaEventCreate(&marks[i]));
	nmarks = n;
}

extern "C" void bk_prof_mark(int i)
{
	if (i < 0 || i >= nmarks)
		die("%s:%d: profile mark %d of %d", __FILE__, __LINE__, i, nmarks);
	CUDA_CHECK(cudaEventRecord(marks[i], gpu.stream));
}

extern "C" double bk_prof_ms(int i, int j)
{
	float ms = 0.0f;
	CUDA_CHECK(cudaEventElapsedTime(&ms, marks[i], marks[j]));
	return (double)ms;
}
