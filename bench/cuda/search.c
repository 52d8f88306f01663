/*
 * bench/cuda/search.c: convolution shapes and the search's workspace limit
 * (search.h). Reads and writes nothing but its arguments.
 */
#include "search.h"

int gpu_conv_out(int in, int filt, int stride, int pad)
{
	return (in + 2 * pad - filt) / stride + 1;
}

static int conv_equal(const struct gpu_conv_shape *a, const struct gpu_conv_shape *b)
{
	return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k &&
	       a->r == b->r && a->s == b->s && a->stride == b->stride && a->pad == b->pad &&
	       a->dtype == b->dtype;
}

int gpu_conv_lookup(const struct gpu_conv_shape *tab, int n, const struct gpu_conv_shape *s)
{
	for (int i = 0; i < n; i++)
		if (conv_equal(&tab[i], s))
			return i;
	return -1;
}

/* What the backend does at plan time, one shape after the other. */
int gpu_conv_dedup(const struct gpu_conv_shape *shape, int n, int *idx)
{
	int distinct = 0;

	for (int i = 0; i < n; i++) {
		idx[i] = gpu_conv_lookup(shape, i, &shape[i]);
		if (idx[i] < 0) {
			idx[i] = i;
			distinct++;
		}
	}
	return distinct;
}

size_t gpu_workspace_limit(size_t cap, size_t free_bytes, double frac)
{
	size_t limit = (size_t)((double)free_bytes * frac);

	if (cap != 0 && cap < limit)
		return cap;
	return limit;
}
