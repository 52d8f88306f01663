/*
 * bench/cuda/memory.cu: device memory as the model plans it (bk_malloc),
 * the copies between host and device (through the compute stream, conv
 * weights turned by conv.cu on the way) and tensors (cuDNN descriptors over
 * storage the model plans; written and read as fp32 NCHW through our layout
 * kernels).
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* ---- memory --------------------------------------------------------------- */

extern "C" void *bk_malloc(size_t bytes)
{
	void *p = NULL;
	cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);

	/* Said in words that make's outcome reads as out of memory (its
	 * "out of device memory"), with what a smaller batch would change. */
	if (e == cudaErrorMemoryAllocation) {
		size_t free_b = 0, total = 0;
		(void)cudaGetLastError();
		if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
			free_b = total = 0;
		die("out of device memory: %.0f MiB more on cuda device %d, %.0f MiB of %.0f MiB "
		    "free (cudaMalloc: %s); a smaller --batch may fit",
		    (double)bytes / 1048576.0, gpu.device, (double)free_b / 1048576.0,
		    (double)total / 1048576.0, cudaGetErrorString(e));
	}
	CUDA_CHECK(e);
	CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, gpu.stream));
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	note_mem();
	return p;
}

extern "C" void bk_free(void *p)
{
	if (!p)
		return;
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	CUDA_CHECK(cudaFree(p));
}

/* ---- copies ---------------------------------------------------------------- */

/* Copies go through the compute stream: it does not synchronise with the
 * legacy default stream that plain cudaMemcpy uses. */
/* The host sees conv weights OIHW; NHWC convolutions keep them KRSC
 * (conv.cu turns them on the way). */
extern "C" void bk_to_device(void *dev, const void *host, size_t bytes)
{
	CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, gpu.stream));
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	conv_after_upload(dev, bytes);
}

extern "C" void bk_to_host(void *host, const void *dev, size_t bytes)
{
	void *tmp = conv_to_host(dev, bytes);

	CUDA_CHECK(
		cudaMemcpyAsync(host, tmp ? tmp : dev, bytes, cudaMemcpyDeviceToHost, gpu.stream));
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	if (tmp)
		CUDA_CHECK(cudaFree(tmp));
}

/* ---- tensors -------------------------------------------------------------- */

extern "C" size_t bk_tensor_bytes(int kind, int n, int c, int h, int w)
{
	size_t e = (size_t)n * c * h * w * (kind == BK_ACT ? gpu.act_size : sizeof(float));

	return (e + 255) / 256 * 256; /* keeps the next tensor 256-byte aligned */
}

extern "C" bk_tensor *bk_tensor_create(int kind, int n, int c, int h, int w, void *storage)
{
	bk_tensor *t = (bk_tensor *)xcalloc(1, sizeof *t);

	if (!gpu.ready)
		die("bk_tensor_create before bk_init");
	t->kind = kind;
	t->n = n;
	t->c = c;
	t->h = h;
	t->w = w;
	t->p = storage;
	/* cuDNN's tensor descriptors count elements in 32 bits */
	if ((size_t)n * c * h * w > (size_t)INT32_MAX)
		die("a %d x %d x %d x %d tensor has more than 2^31 - 1 elements, cuDNN's limit: "
		    "use a smaller --batch",
		    n, c, h, w);
	t->dt = kind == BK_ACT ? gpu.act_dt : CUDNN_DATA_FLOAT;
	t->fmt = kind == BK_ACT ? gpu.act_fmt : CUDNN_TENSOR_NCHW;
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&t->desc));
	CUDNN_CHECK(cudnnSetTensor4dDescriptor(t->desc, t->fmt, t->dt, n, c, h, w));
	return t;
}

extern "C" void bk_tensor_destroy(bk_tensor *t)
{
	if (!t)
		return;
	CUDNN_CHECK(cudnnDestroyTensorDescriptor(t->desc));
	free(t);
}

static int is_plain(const bk_tensor *t)
{
	return t->dt == CUDNN_DATA_FLOAT && t->fmt == CUDNN_TENSOR_NCHW;
}

extern "C" void bk_tensor_write(bk_tensor *t, const float *host)
{
	size_t n = elems(t);
	float *tmp;

	if (is_plain(t)) {
		bk_to_device(t->p, host, n * sizeof(float));
		return;
	}
	CUDA_CHECK(cudaMalloc((void **)&tmp, n * sizeof(float)));
	bk_to_device(tmp, host, n * sizeof(float));
	launch_from_nchw(tmp, t);
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	CUDA_CHECK(cudaFree(tmp));
}

extern "C" void bk_tensor_read(const bk_tensor *t, float *host)
{
	size_t n = elems(t);
	float *tmp;

	if (is_plain(t)) {
		bk_to_host(host, t->p, n * sizeof(float));
		return;
	}
	CUDA_CHECK(cudaMalloc((void **)&tmp, n * sizeof(float)));
	launch_to_nchw(t, tmp);
	bk_to_host(host, tmp, n * sizeof(float));
	CUDA_CHECK(cudaFree(tmp));
}
