/*
 * bench/cpu/tensor.c: the oneDNN backend's memory descriptors and tensors
 * (backend.h's bk_tensor_*): activations in the type and layout bk_init
 * chose (internal.h's cpu), the image and the classifier's matrices plain
 * fp32; written and read as fp32 NCHW by one-shot reorders.
 */
#include <stdlib.h>

#include "internal.h"

dnnl_memory_desc_t md4(int n, int c, int h, int w, dnnl_data_type_t dt, dnnl_format_tag_t tag)
{
	dnnl_memory_desc_t md;
	dnnl_dims_t d = {n, c, h, w};
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&md, 4, d, dt, tag));
	return md;
}

dnnl_memory_desc_t tensor_md(int kind, int n, int c, int h, int w)
{
	if (kind == BK_ACT)
		return md4(n, c, h, w, cpu.act_dt,
			   c % cpu.act_block == 0 ? cpu.act_tag : dnnl_nchw);
	if (kind == BK_IMAGE)
		return md4(n, c, h, w, dnnl_f32, dnnl_nchw);
	dnnl_memory_desc_t md;
	dnnl_dims_t d = {n, c};
	DNNL_CHECK(dnnl_memory_desc_init_by_tag(&md, 2, d, dnnl_f32, dnnl_nc));
	return md;
}

size_t bk_tensor_bytes(int kind, int n, int c, int h, int w)
{
	dnnl_memory_desc_t md = tensor_md(kind, n, c, h, w);
	return dnnl_memory_desc_get_size(&md);
}

bk_tensor *bk_tensor_create(int kind, int n, int c, int h, int w, void *storage)
{
	bk_tensor *t = xmalloc(sizeof *t);
	t->kind = kind;
	t->n = n;
	t->c = c;
	t->h = h;
	t->w = w;
	t->md = tensor_md(kind, n, c, h, w);
	t->md4 = kind == BK_MATRIX ? md4(n, c, 1, 1, dnnl_f32, dnnl_nchw) : t->md;
	t->data = storage;
	t->mem = mem_over(&t->md, storage);
	return t;
}

void bk_tensor_destroy(bk_tensor *t)
{
	if (!t)
		return;
	DNNL_CHECK(dnnl_memory_destroy(t->mem));
	free(t);
}

void bk_tensor_write(bk_tensor *t, const float *host)
{
	dnnl_memory_desc_t plain = md4(t->n, t->c, t->h, t->w, dnnl_f32, dnnl_nchw);
	reorder_now(&plain, host, &t->md4, t->data);
}

void bk_tensor_read(const bk_tensor *t, float *host)
{
	dnnl_memory_desc_t plain = md4(t->n, t->c, t->h, t->w, dnnl_f32, dnnl_nchw);
	reorder_now(&t->md4, t->data, &plain, host);
}
