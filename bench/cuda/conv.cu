/*
 * bench/cuda/conv.cu: convolutions on cuDNN's legacy API (cuDNN 8 and 9), and
 * the search of their algorithms: cudnnFind runs once per distinct shape
 * (search.h), within the workspace limit, and only among algorithms whose math
 * the precision allows.
 *
 * In NHWC (amp, bf16, --layout nhwc) cuDNN reads filters as KRSC, and so
 * the master weights of every convolution but the stem's are kept KRSC in
 * the flat parameter buffer itself (and their gradients so in the gradient
 * buffer): the host still sees OIHW, because bk_to_device and bk_to_host
 * turn them (conv_after_upload, conv_to_host). A step has no transposes:
 * fp32 reads the master weights as they are; amp and bf16 cast all of them
 * in one launch at the start of forward into one copy (each convolution
 * reads its slice) and each weight gradient back, element by element. The
 * stem's 3 input channels are padded to 4 for cuDNN: it keeps a padded
 * KRSC copy of its own, 9,408 weights.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "search.h"

enum { MAX_SHAPES = 128, MAX_ALGOS = 16 };

/* Algorithms chosen for one distinct convolution shape. */
struct conv_algos {
	int have_fwd, have_bwd_data, have_bwd_filter;
	cudnnConvolutionFwdAlgo_t fwd;
	cudnnConvolutionBwdDataAlgo_t bwd_data;
	cudnnConvolutionBwdFilterAlgo_t bwd_filter;
	cudnnMathType_t fwd_math, bwd_data_math, bwd_filter_math;
	size_t fwd_ws, bwd_data_ws, bwd_filter_ws;
};

/* The distinct shapes, gpu.conv_shapes of them, and their algorithms. */
static struct gpu_conv_shape shapes[MAX_SHAPES];
static struct conv_algos algos[MAX_SHAPES];

enum { MAX_CONVS = 256 };
/* The convolutions whose master weights are KRSC (op->krsc). */
static bk_op *krsc_ops[MAX_CONVS];
static int nkrsc;
/* amp, bf16: a weight copy for cudnnFind at plan time, then the one copy of
 * all KRSC weights, [lo, lo + n) of the parameter buffer cast. */
static struct {
	void *scratch;
	size_t scratch_size;
	const float *lo;
	size_t n;
	void *copy;
} wc;

static size_t weights_of(const bk_op *op)
{
	return (size_t)op->cout * op->cin * op->k * op->k;
}

/* fp32: no TF32. The math type cudnnFind reports for an algorithm is set on
 * the descriptor before it runs (as PyTorch does), except in fp32 where only
 * FMA math is acceptable. */
static cudnnMathType_t conv_math(void)
{
	switch (gpu.precision) {
	case BK_FP32:
		return CUDNN_FMA_MATH;
	case BK_TF32:
		return CUDNN_DEFAULT_MATH;
	default:
		return CUDNN_TENSOR_OP_MATH;
	}
}

/* The math an algorithm was timed with must be one the precision allows:
 * fp32 only FMA (CUDNN_DEFAULT_MATH permits TF32); never the down-conversion
 * of fp32 data to fp16 (CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION). */
static int math_ok(cudnnMathType_t m)
{
	if (gpu.precision == BK_FP32)
		return m == CUDNN_FMA_MATH;
	return m != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

static const void *conv_x(const bk_op *op)
{
	return op->xs ? op->xs : op->x->p;
}

static cudnnTensorDescriptor_t conv_xdesc(const bk_op *op)
{
	return op->xs ? op->xsdesc : op->x->desc;
}

static const void *conv_w(const bk_op *op)
{
	return op->w16 ? op->w16 : (const void *)op->w;
}

static void *conv_dw(const bk_op *op)
{
	return op->dw16 ? op->dw16 : (void *)op->dw;
}

static void conv_search(bk_op *op, struct conv_algos *a)
{
	int n = 0;

	ws_limit_init();
	ws_grow(gpu.ws_limit); /* the search's, given back by ws_finalize */
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, conv_math()));
	if (!a->have_fwd) {
		cudnnConvolutionFwdAlgoPerf_t r[MAX_ALGOS];
		CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
			gpu.dnn, conv_xdesc(op), conv_x(op), op->wdesc, conv_w(op), op->cdesc,
			op->y->desc, op->y->p, MAX_ALGOS, &n, r, gpu.ws, gpu.ws_limit));
		for (int i = 0; i < n && !a->have_fwd; i++) {
			if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= gpu.ws_limit &&
			    math_ok(r[i].mathType)) {
				a->have_fwd = 1;
				a->fwd = r[i].algo;
				a->fwd_math = r[i].mathType;
				a->fwd_ws = r[i].memory;
			}
		}
		if (!a->have_fwd)
			die("cudnn: no forward algorithm for a %dx%d convolution %d->%d within "
			    "%.0f MB of workspace",
			    op->k, op->k, op->cin, op->cout, (double)gpu.ws_limit / 1048576.0);
	}
	if (op->dx && !a->have_bwd_data) {
		cudnnConvolutionBwdDataAlgoPerf_t r[MAX_ALGOS];
		CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
			gpu.dnn, op->wdesc, conv_w(op), op->dy->desc, op->dy->p, op->cdesc,
			op->dx->desc, op->dx->p, MAX_ALGOS, &n, r, gpu.ws, gpu.ws_limit));
		for (int i = 0; i < n && !a->have_bwd_data; i++) {
			if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= gpu.ws_limit &&
			    math_ok(r[i].mathType)) {
				a->have_bwd_data = 1;
				a->bwd_data = r[i].algo;
				a->bwd_data_math = r[i].mathType;
				a->bwd_data_ws = r[i].memory;
			}
		}
		if (!a->have_bwd_data)
			die("cudnn: no backward-data algorithm for a %dx%d convolution %d->%d",
			    op->k, op->k, op->cin, op->cout);
	}
	if (!a->have_bwd_filter) {
		cudnnConvolutionBwdFilterAlgoPerf_t r[MAX_ALGOS];
		CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
			gpu.dnn, conv_xdesc(op), conv_x(op), op->dy->desc, op->dy->p, op->cdesc,
			op->wdesc, conv_dw(op), MAX_ALGOS, &n, r, gpu.ws, gpu.ws_limit));
		for (int i = 0; i < n && !a->have_bwd_filter; i++) {
			if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= gpu.ws_limit &&
			    math_ok(r[i].mathType)) {
				a->have_bwd_filter = 1;
				a->bwd_filter = r[i].algo;
				a->bwd_filter_math = r[i].mathType;
				a->bwd_filter_ws = r[i].memory;
			}
		}
		if (!a->have_bwd_filter)
			die("cudnn: no backward-filter algorithm for a %dx%d convolution %d->%d",
			    op->k, op->k, op->cin, op->cout);
	}
	ws_reserve(a->fwd_ws);
	ws_reserve(a->bwd_data_ws);
	ws_reserve(a->bwd_filter_ws);
	if (gpu.verbose)
		fprintf(stderr,
			"bench: cudnn: conv n%d %dx%dx%d k%d %dx%d/%d: fwd algo %d (%zu B), "
			"bwd-data algo %d (%zu B), bwd-filter algo %d (%zu B)\n",
			op->x->n, op->cin, op->x->h, op->x->w, op->cout, op->k, op->k, op->stride,
			(int)a->fwd, a->fwd_ws, (int)a->bwd_data, a->bwd_data_ws,
			(int)a->bwd_filter, a->bwd_filter_ws);
}

extern "C" bk_op *bk_conv_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy, int k,
			       int stride, int pad, const float *w, float *dw, int accumulate)
{
	bk_op *op = op_new();
	int nhwc = gpu.act_fmt == CUDNN_TENSOR_NHWC;

	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->k = k;
	op->stride = stride;
	op->pad = pad;
	op->w = w;
	op->dw = dw;
	op->accumulate = accumulate;
	op->cin = x->c;
	op->cout = y->c;
	if (gpu_conv_out(x->h, k, stride, pad) != y->h ||
	    gpu_conv_out(x->w, k, stride, pad) != y->w || x->n != y->n)
		die("conv plan: %dx%d input, kernel %d stride %d pad %d does not give %dx%d", x->h,
		    x->w, k, stride, pad, y->h, y->w);
	op->cpad = op->cin;
	if (x->dt != y->dt || x->fmt != y->fmt) {
		/* The network input: fp32 NCHW cast once per step into the
		 * activation type and layout, its channels padded to a multiple
		 * of 4 for cuDNN's NHWC kernels. */
		if (x->kind != BK_IMAGE || dx)
			die("conv plan: input type differs from output type");
		op->cpad = (x->c + 3) / 4 * 4;
		op->xs = dev_alloc((size_t)x->n * op->cpad * x->h * x->w * gpu.act_size);
		CUDNN_CHECK(cudnnCreateTensorDescriptor(&op->xsdesc));
		CUDNN_CHECK(cudnnSetTensor4dDescriptor(op->xsdesc, gpu.act_fmt, gpu.act_dt, x->n,
						       op->cpad, x->h, x->w));
	}
	CUDNN_CHECK(cudnnCreateFilterDescriptor(&op->wdesc));
	CUDNN_CHECK(cudnnSetFilter4dDescriptor(op->wdesc, gpu.act_dt, gpu.act_fmt, op->cout,
					       op->cpad, k, k));
	CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&op->cdesc));
	CUDNN_CHECK(cudnnSetConvolution2dDescriptor(op->cdesc, pad, pad, stride, stride, 1, 1,
						    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	if (nhwc && op->xs) { /* the stem: a padded copy of its own */
		size_t nw = (size_t)op->cout * op->cpad * k * k;
		op->w16 = dev_alloc(nw * gpu.act_size);
		op->dw16 = dev_alloc(nw * gpu.act_size);
	} else if (nhwc) {
		size_t nw = weights_of(op);
		if (nkrsc == MAX_CONVS)
			die("conv plan: more than %d convolutions", MAX_CONVS);
		op->krsc = 1;
		krsc_ops[nkrsc++] = op;
		if (gpu.act_dt != CUDNN_DATA_FLOAT) {
			/* cudnnFind reads a scratch copy; the first forward
			 * points w16 into the one copy of all weights */
			if (nw * gpu.act_size > wc.scratch_size) {
				if (wc.scratch)
					CUDA_CHECK(cudaFree(wc.scratch));
				wc.scratch = dev_alloc(nw * gpu.act_size);
				CUDA_CHECK(cudaMemsetAsync(wc.scratch, 0, nw * gpu.act_size,
							   gpu.stream));
				wc.scratch_size = nw * gpu.act_size;
			}
			op->w16 = wc.scratch;
			op->dw16 = dev_alloc(nw * gpu.act_size);
		}
	}

	struct gpu_conv_shape s = {x->n, op->cpad, x->h,   x->w, y->c,
				   k,    k,        stride, pad,  gpu.precision};
	int i = gpu_conv_lookup(shapes, gpu.conv_shapes, &s);
	if (i < 0) {
		if (gpu.conv_shapes == MAX_SHAPES)
			die("conv plan: more than %d convolution shapes", MAX_SHAPES);
		i = gpu.conv_shapes++;
		shapes[i] = s;
		memset(&algos[i], 0, sizeof algos[i]);
	}
	op->shape = i;
	struct conv_algos *a = &algos[i];
	if (!a->have_fwd || !a->have_bwd_filter || (dx && !a->have_bwd_data))
		conv_search(op, a);
	return op;
}

/* amp, bf16: the one copy of every KRSC convolution's weights, made at the
 * first forward (all convolutions are planned by then; the plan-time
 * scratch copy is given back). Rounded out to 64 bytes for the cast's
 * vector loads: the parameter buffer is 256-byte aligned. */
static void weight_copy_make(void)
{
	const float *lo = NULL, *hi = NULL;

	for (int i = 0; i < nkrsc; i++) {
		const bk_op *op = krsc_ops[i];
		if (!lo || op->w < lo)
			lo = op->w;
		if (!hi || op->w + weights_of(op) > hi)
			hi = op->w + weights_of(op);
	}
	lo = (const float *)((uintptr_t)lo / 64 * 64);
	wc.lo = lo;
	wc.n = (size_t)(hi - lo);
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	CUDA_CHECK(cudaFree(wc.scratch));
	wc.scratch = NULL;
	wc.copy = dev_alloc(wc.n * gpu.act_size);
	for (int i = 0; i < nkrsc; i++)
		krsc_ops[i]->w16 = (char *)wc.copy + (size_t)(krsc_ops[i]->w - lo) * gpu.act_size;
}

/* The first convolution of the step (the stem's, on the image): this
 * step's copies of the image, of its own weights and of all the others'. */
static void conv_prepare(bk_op *op)
{
	const bk_tensor *x = op->x;

	launch_image_cast((const float *)x->p, op->xs, x->n, x->c, op->cpad, x->h, x->w);
	if (op->w16)
		launch_weight_cast(op->w, op->w16, op->cout, op->cin, op->cpad, op->k, op->k);
	if (nkrsc > 0 && gpu.act_dt != CUDNN_DATA_FLOAT) {
		if (!wc.copy)
			weight_copy_make();
		launch_cast(wc.lo, wc.copy, wc.n);
	}
}

void conv_forget(bk_op *op)
{
	for (int i = 0; i < nkrsc; i++)
		if (krsc_ops[i] == op)
			krsc_ops[i--] = krsc_ops[--nkrsc];
	if (nkrsc > 0)
		return;
	if (wc.scratch)
		CUDA_CHECK(cudaFree(wc.scratch));
	if (wc.copy)
		CUDA_CHECK(cudaFree(wc.copy));
	memset(&wc, 0, sizeof wc);
}

void conv_after_upload(void *dev, size_t bytes)
{
	const char *a = (const char *)dev, *b = a + bytes;
	float *tmp = NULL;

	for (int i = 0; i < nkrsc; i++) {
		bk_op *op = krsc_ops[i];
		float *ends[2] = {(float *)op->w, op->dw};
		size_t nw = weights_of(op);
		for (int j = 0; j < 2; j++) {
			if ((const char *)ends[j] < a || (const char *)(ends[j] + nw) > b)
				continue;
			if (!tmp)
				tmp = (float *)dev_alloc(bytes);
			CUDA_CHECK(cudaMemcpyAsync(tmp, ends[j], nw * sizeof(float),
						   cudaMemcpyDeviceToDevice, gpu.stream));
			launch_permute_weights(tmp, ends[j], op->cout, op->cin, op->k, op->k, 1);
			CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
		}
	}
	if (tmp)
		CUDA_CHECK(cudaFree(tmp));
}

void *conv_to_host(const void *dev, size_t bytes)
{
	const char *a = (const char *)dev, *b = a + bytes;
	char *tmp = NULL;

	for (int i = 0; i < nkrsc; i++) {
		const bk_op *op = krsc_ops[i];
		const float *ends[2] = {op->w, op->dw};
		size_t nw = weights_of(op);
		for (int j = 0; j < 2; j++) {
			const char *p = (const char *)ends[j];
			if (p < a || (const char *)(ends[j] + nw) > b)
				continue;
			if (!tmp) {
				tmp = (char *)dev_alloc(bytes);
				CUDA_CHECK(cudaMemcpyAsync(tmp, dev, bytes,
							   cudaMemcpyDeviceToDevice, gpu.stream));
			}
			launch_permute_weights(ends[j], (float *)(tmp + (p - a)), op->cout, op->cin,
					       op->k, op->k, 0);
		}
	}
	if (tmp)
		CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	return tmp;
}

extern "C" void bk_conv_forward(bk_op *op)
{
	const struct conv_algos *a = &algos[op->shape];
	float one = 1.0f, zero = 0.0f;

	ws_finalize();
	if (op->xs)
		conv_prepare(op);
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, a->fwd_math));
	CUDNN_CHECK(cudnnConvolutionForward(gpu.dnn, &one, conv_xdesc(op), conv_x(op), op->wdesc,
					    conv_w(op), op->cdesc, a->fwd, gpu.ws, a->fwd_ws, &zero,
					    op->y->desc, op->y->p));
}

extern "C" void bk_conv_backward_data(bk_op *op)
{
	const struct conv_algos *a = &algos[op->shape];
	float one = 1.0f, beta = op->accumulate ? 1.0f : 0.0f;

	if (!op->dx)
		return;
	ws_finalize();
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, a->bwd_data_math));
	CUDNN_CHECK(cudnnConvolutionBackwardData(gpu.dnn, &one, op->wdesc, conv_w(op), op->dy->desc,
						 op->dy->p, op->cdesc, a->bwd_data, gpu.ws,
						 a->bwd_data_ws, &beta, op->dx->desc, op->dx->p));
}

extern "C" void bk_conv_backward_weights(bk_op *op)
{
	const struct conv_algos *a = &algos[op->shape];
	float one = 1.0f, zero = 0.0f;

	ws_finalize();
	CUDNN_CHECK(cudnnSetConvolutionMathType(op->cdesc, a->bwd_filter_math));
	CUDNN_CHECK(cudnnConvolutionBackwardFilter(
		gpu.dnn, &one, conv_xdesc(op), conv_x(op), op->dy->desc, op->dy->p, op->cdesc,
		a->bwd_filter, gpu.ws, a->bwd_filter_ws, &zero, op->wdesc, conv_dw(op)));
	if (op->dw16 && op->krsc)
		launch_uncast(op->dw16, op->dw, weights_of(op));
	else if (op->dw16)
		launch_wgrad_cast(op->dw16, op->dw, op->cout, op->cin, op->cpad, op->k, op->k);
}
