/*
 * bench/cuda/search.h: what the search of convolution algorithms works on
 * (conv.cu, workspace.cu): convolution shapes, which of them are distinct
 * (cudnnFind runs once per shape) and how much workspace a search may use.
 * Plain C (search.c), tested on the CPU (bin/test-gpu-host).
 */
#ifndef BENCH_CUDA_SEARCH_H
#define BENCH_CUDA_SEARCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One convolution as cuDNN sees it (batch included). */
struct gpu_conv_shape {
	int n, c, h, w; /* input */
	int k, r, s;    /* output channels, filter height, width */
	int stride, pad;
	int dtype; /* the precision (enum bk_precision): the algorithms depend on it */
};

/* Output height and width of a convolution (floor, as cuDNN and PyTorch). */
int gpu_conv_out(int in, int filt, int stride, int pad);

/*
 * Give each of n shapes the index of its first equal shape: idx[i] == i for
 * the shapes cudnnFind must search, idx[i] < i for repeats. Returns the
 * number of distinct shapes.
 */
int gpu_conv_dedup(const struct gpu_conv_shape *shape, int n, int *idx);

/* Index of the shape equal to s among tab[0 .. n), or -1. */
int gpu_conv_lookup(const struct gpu_conv_shape *tab, int n, const struct gpu_conv_shape *s);

/*
 * The workspace a cudnnFind search may use: at most cap bytes (0 = no cap of
 * our own) and at most a fraction 'frac' of the free device memory left
 * after parameters and activations are allocated.
 */
size_t gpu_workspace_limit(size_t cap, size_t free_bytes, double frac);

#ifdef __cplusplus
}
#endif

#endif
