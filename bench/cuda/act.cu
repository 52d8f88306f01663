/*
 * bench/cuda/act.cu: the CUDA backend's ops of IResNet-50 that ResNet50 has
 * none of, on kernels of our own: PReLU (cuDNN has no PReLU among its
 * activations), flatten (the layout kernels of kernels.cu) and dropout
 * (margin.h's mask, the CPU's exactly: cuDNN's dropout draws from a state of
 * its own, which neither the CPU backend nor another split of the batch
 * could draw alike). Each op runs on gpu.stream; every launch is checked.
 */
#include "kernels.h"
#include "margin.h"

/* The channel of element i of a tensor of c channels and hw = h w. */
static __device__ __forceinline__ uint32_t channel_of(uint32_t i, int nhwc, gpu_div c, gpu_div hw)
{
	if (nhwc)
		return i - gpu_div_q(c, i) * c.d;
	uint32_t q = gpu_div_q(hw, i);
	return q - gpu_div_q(c, q) * c.d;
}

/* y = x > 0 ? x : a[c] x */
template <typename T>
static __global__ void k_prelu(const T *x, T *y, const float *a, uint32_t n, int nhwc, gpu_div c,
			       gpu_div hw)
{
	GRID_STRIDE(i, n)
	{
		float v = to_f<T>(x[i]);
		y[i] = from_f<T>(v > 0.0f ? v : a[channel_of(i, nhwc, c, hw)] * v);
	}
}

/* dx = dy (x > 0 ? 1 : a[c]) */
template <typename T>
static __global__ void k_prelu_back(const T *x, const T *dy, T *dx, const float *a, uint32_t n,
				    int nhwc, gpu_div c, gpu_div hw)
{
	GRID_STRIDE(i, n)
	{
		float g = to_f<T>(dy[i]);
		dx[i] = from_f<T>(to_f<T>(x[i]) > 0.0f ? g : a[channel_of(i, nhwc, c, hw)] * g);
	}
}

/* da[c] = the sum of dy x where x <= 0: a block a channel, its threads over
 * the channel's n h w elements, then a tree in shared memory. */
template <typename T>
static __global__ void k_prelu_slopes(const T *x, const T *dy, float *da, int n, int c, int hw,
				      int nhwc)
{
	__shared__ float part[THREADS];
	int ch = blockIdx.x;
	uint32_t per = (uint32_t)n * (uint32_t)hw;
	float s = 0.0f;

	for (uint32_t k = threadIdx.x; k < per; k += blockDim.x) {
		uint32_t img = k / (uint32_t)hw, at = k - img * (uint32_t)hw;
		uint32_t i = nhwc ? (img * (uint32_t)hw + at) * (uint32_t)c + (uint32_t)ch
				  : (img * (uint32_t)c + (uint32_t)ch) * (uint32_t)hw + at;
		float v = to_f<T>(x[i]);
		if (!(v > 0.0f))
			s += to_f<T>(dy[i]) * v;
	}
	part[threadIdx.x] = s;
	__syncthreads();
	for (int o = THREADS / 2; o > 0; o /= 2) {
		if ((int)threadIdx.x < o)
			part[threadIdx.x] += part[threadIdx.x + o];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		da[ch] = part[0];
}

extern "C" bk_op *bk_prelu_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy,
				const float *a, float *da)
{
	bk_op *op = op_new();

	if (x->kind != BK_ACT || elems(x) != elems(y) || x->dt != y->dt || x->fmt != y->fmt)
		die("prelu plan: x and y activations of one shape and type");
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->w = a;
	op->dw = da;
	return op;
}

extern "C" void bk_prelu_forward(bk_op *op)
{
	const bk_tensor *x = op->x;
	size_t n = elems(x);

	ACT_DISPATCH(x->dt, (k_prelu<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (const T *)x->p, (T *)op->y->p, op->w, (uint32_t)n, is_nhwc(x),
				    div_of(x->c), div_of((size_t)x->h * x->w))));
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_prelu_backward(bk_op *op)
{
	const bk_tensor *x = op->x;
	size_t n = elems(x);
	int hw = x->h * x->w;

	/* the slopes' gradient from x and dy, then dx */
	ACT_DISPATCH(x->dt, (k_prelu_slopes<T><<<(unsigned)x->c, THREADS, 0, gpu.stream>>>(
				    (const T *)x->p, (const T *)op->dy->p, op->dw, x->n, x->c, hw,
				    is_nhwc(x))));
	CUDA_LAUNCH_CHECK();
	ACT_DISPATCH(x->dt, (k_prelu_back<T><<<blocks(n), THREADS, 0, gpu.stream>>>(
				    (const T *)x->p, (const T *)op->dy->p, (T *)op->dx->p, op->w,
				    (uint32_t)n, is_nhwc(x), div_of(x->c), div_of((size_t)hw))));
	CUDA_LAUNCH_CHECK();
}

extern "C" bk_op *bk_flatten_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy)
{
	bk_op *op = op_new();

	if (y->kind != BK_MATRIX || (size_t)y->c != (size_t)x->c * x->h * x->w)
		die("flatten plan: y must be [n][c h w]");
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	return op;
}

/* The matrix [n][c h w] is the activation in fp32 NCHW: kernels.cu's
 * layout kernels, there and back. */
extern "C" void bk_flatten_forward(bk_op *op)
{
	launch_to_nchw(op->x, (float *)op->y->p);
}

extern "C" void bk_flatten_backward(bk_op *op)
{
	launch_from_nchw((const float *)op->dy->p, op->dx);
}

/* out = in / (1 - p) where kept, else 0 (forward and backward alike). */
static __global__ void k_dropout(const float *in, float *out, uint32_t n, gpu_div c, float p,
				 uint64_t key, long first)
{
	float s = 1.0f / (1.0f - p);

	GRID_STRIDE(i, n)
	{
		uint32_t row = gpu_div_q(c, i), j = i - row * c.d;
		out[i] = dropout_keep_at(key, (uint64_t)(first + row), j, p) ? in[i] * s : 0.0f;
	}
}

extern "C" bk_op *bk_dropout_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, float p,
				  uint64_t seed, long first_sample)
{
	bk_op *op = op_new();

	if (x->kind != BK_MATRIX || y->kind != BK_MATRIX || x->c != y->c || p < 0 || p >= 1)
		die("dropout plan: x and y matrices of one shape, p in [0, 1)");
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->drop_p = p;
	op->drop_seed = seed;
	op->drop_first = first_sample;
	return op;
}

static void dropout_launch(const bk_op *op, const float *in, float *out)
{
	size_t n = elems(op->x);

	k_dropout<<<blocks(n), THREADS, 0, gpu.stream>>>(
		in, out, (uint32_t)n, div_of(op->x->c), op->drop_p,
		dropout_key(op->drop_seed, (uint64_t)op->drop_step), op->drop_first);
	CUDA_LAUNCH_CHECK();
}

extern "C" void bk_dropout_forward(bk_op *op, long step)
{
	op->drop_step = step;
	dropout_launch(op, (const float *)op->x->p, (float *)op->y->p);
}

extern "C" void bk_dropout_backward(bk_op *op)
{
	dropout_launch(op, (const float *)op->dy->p, (float *)op->dx->p);
}
