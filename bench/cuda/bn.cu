/*
 * bench/cuda/bn.cu: batch norm in training mode on cuDNN, in its three forms
 * (backend.h): y = bn(x), y = relu(bn(x)), y = relu(bn(x) + z), and with
 * the add alone, y = bn(x) + z (a kernel of ours adds; backward's dz is a
 * copy of dy). A batch norm that accumulates its data gradient has cuDNN
 * blend it into dx (betaDataDiff 1). Over BK_MATRIX too: [n][c] as n x c x
 * 1 x 1.
 *
 * cuDNN's extended API (cudnnBatchNormalization*Ex). In amp (fp16 NHWC,
 * persistent mode, C % 4 == 0) cuDNN fuses the ReLU and the residual add
 * (CUDNN_BATCHNORM_OPS_BN_ACTIVATION, _BN_ADD_ACTIVATION) and its backward
 * reads y, so that needs y_kept. Elsewhere a kernel of ours applies
 * them in place on y after the batch norm, and backward masks dy from y (or,
 * where y is gone, from the pre-activation recomputed from x), into dz when
 * there is an add.
 *
 * Every configuration is tried once at plan time, forward and backward, on
 * the arena (nothing in it is live yet) and on running statistics of its
 * own (the model's are not touched): a fused form cuDNN refuses falls back
 * to the unfused one, with a warning in amp, where it costs an add+ReLU
 * kernel and its backward; a precision whose plain batch norm it refuses
 * (bf16 on an older GPU or cuDNN) stops the run at start-up with exit 2
 * instead of at the first step. How each batch norm runs is counted
 * (gpu.bn) for the start-up line "batch norm: 48 fused, 1 unfused (stem),
 * 4 plain" (ws_finalize).
 */
#include <stdio.h>

#include "internal.h"

static cudnnStatus_t bn_forward_status(bk_op *op, double momentum, float *rmean, float *rvar)
{
	float one = 1.0f, zero = 0.0f;
	int add = op->bnops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;

	return cudnnBatchNormalizationForwardTrainingEx(
		gpu.dnn, op->mode, op->bnops, &one, &zero, op->x->desc, op->x->p,
		add ? op->x2->desc : NULL, add ? op->x2->p : NULL, op->y->desc, op->y->p, op->pdesc,
		op->gamma, op->beta, momentum, rmean, rvar, op->eps, op->save_mean, op->save_inv,
		op->fused ? op->act : NULL, op->fwd_ws ? gpu.ws : NULL, op->fwd_ws, op->reserve,
		op->reserve_size);
}

/* g: the gradient the batch norm itself sees (dy, or dz after an unfused add). */
static cudnnStatus_t bn_backward_status(bk_op *op, const bk_tensor *g)
{
	float one = 1.0f, zero = 0.0f;
	int add = op->bnops == CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;

	/* y and the activation only when fused (PyTorch passes none for plain BN) */
	return cudnnBatchNormalizationBackwardEx(
		gpu.dnn, op->mode, op->bnops, &one, op->accumulate ? &one : &zero, &one, &zero,
		op->x->desc, op->x->p, op->fused ? op->y->desc : NULL, op->fused ? op->y->p : NULL,
		g->desc, g->p, add ? op->dx2->desc : NULL, add ? op->dx2->p : NULL, op->dx->desc,
		op->dx->p, op->pdesc, op->gamma, op->beta, op->dgamma, op->dbeta, op->eps,
		op->save_mean, op->save_inv, op->fused ? op->act : NULL, op->bwd_ws ? gpu.ws : NULL,
		op->bwd_ws, op->reserve, op->reserve_size);
}

static const bk_tensor *bn_grad_in(const bk_op *op)
{
	return op->x2 && !op->fused ? op->dx2 : op->dy;
}

/* Sizes for the form 'fused' says, then one trial of it: cuDNN's verdict. */
static cudnnStatus_t bn_configure(bk_op *op, int fused)
{
	int add = fused && op->x2;
	cudnnStatus_t st;

	if (op->reserve) {
		CUDA_CHECK(cudaFree(op->reserve));
		op->reserve = NULL;
	}
	op->fused = fused;
	op->bnops = !fused ? CUDNN_BATCHNORM_OPS_BN
		    : add  ? CUDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION
			   : CUDNN_BATCHNORM_OPS_BN_ACTIVATION;
	cudnnActivationDescriptor_t act = fused ? op->act : NULL;
	st = cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
		gpu.dnn, op->mode, op->bnops, op->x->desc, add ? op->x2->desc : NULL, op->y->desc,
		op->pdesc, act, &op->fwd_ws);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnGetBatchNormalizationBackwardExWorkspaceSize(
			gpu.dnn, op->mode, op->bnops, op->x->desc, fused ? op->y->desc : NULL,
			bn_grad_in(op)->desc, add ? op->dx2->desc : NULL, op->dx->desc, op->pdesc,
			act, &op->bwd_ws);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
			gpu.dnn, op->mode, op->bnops, act, op->x->desc, &op->reserve_size);
	if (st != CUDNN_STATUS_SUCCESS)
		return st;
	/* Without a workspace cuDNN runs the non-extended function, which has
	 * no activation: a fused form must have one. */
	if (fused && (op->fwd_ws == 0 || op->bwd_ws == 0))
		return CUDNN_STATUS_NOT_SUPPORTED;
	if (op->reserve_size)
		op->reserve = dev_alloc(op->reserve_size);
	size_t ws = op->fwd_ws > op->bwd_ws ? op->fwd_ws : op->bwd_ws;
	ws_grow(ws);
	/* the trial's own running statistics: the model's are never touched,
	 * whatever the scratch input holds */
	size_t c = (size_t)op->x->c;
	float *stats = (float *)dev_alloc(2 * c * sizeof(float));
	CUDA_CHECK(cudaMemsetAsync(stats, 0, 2 * c * sizeof(float), gpu.stream));
	st = bn_forward_status(op, op->momentum, stats, stats + c);
	if (st == CUDNN_STATUS_SUCCESS)
		st = bn_backward_status(op, bn_grad_in(op));
	CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
	CUDA_CHECK(cudaFree(stats));
	if (st == CUDNN_STATUS_SUCCESS)
		ws_reserve(ws);
	return st;
}

extern "C" bk_op *bk_bn_plan(bk_tensor *x, bk_tensor *z, bk_tensor *y, bk_tensor *dx, bk_tensor *dz,
			     bk_tensor *dy, int relu, int y_kept, int accumulate,
			     const float *gamma, const float *beta, float *dgamma, float *dbeta,
			     float *running_mean, float *running_var, float eps, float momentum)
{
	bk_op *op = op_new();
	size_t c = (size_t)x->c;

	if (!dx || !dy || elems(x) != elems(y) || x->dt != y->dt || x->fmt != y->fmt)
		die("bn plan: x, y, dx and dy must all be given, of one shape and type");
	if (z && ((relu && !y_kept) || !dz || elems(z) != elems(y) || z->dt != y->dt ||
		  z->fmt != y->fmt))
		die("bn plan: an add needs z and dz shaped as y, and with the ReLU y kept");
	op->x = x;
	op->x2 = z;
	op->y = y;
	op->dx = dx;
	op->dx2 = dz;
	op->dy = dy;
	op->relu = relu;
	op->y_kept = y_kept;
	op->accumulate = accumulate;
	op->gamma = gamma;
	op->beta = beta;
	op->dgamma = dgamma;
	op->dbeta = dbeta;
	op->rmean = running_mean;
	op->rvar = running_var;
	op->eps = eps < CUDNN_BN_MIN_EPSILON ? CUDNN_BN_MIN_EPSILON : eps;
	op->momentum = momentum;
	/* Persistent kernels for fp16 NHWC, where the fused forms need them and
	 * PyTorch and MXNet use them; the plain mode elsewhere (bf16 included). */
	op->mode = x->dt == CUDNN_DATA_HALF && x->fmt == CUDNN_TENSOR_NHWC
			   ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT
			   : CUDNN_BATCHNORM_SPATIAL;
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&op->pdesc));
	CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(op->pdesc, x->desc, op->mode));
	op->save_mean = (float *)dev_alloc(c * sizeof(float));
	op->save_inv = (float *)dev_alloc(c * sizeof(float));
	CUDNN_CHECK(cudnnCreateActivationDescriptor(&op->act));
	CUDNN_CHECK(cudnnSetActivationDescriptor(op->act, CUDNN_ACTIVATION_RELU,
						 CUDNN_PROPAGATE_NAN, 0.0));
	int fuse = relu && y_kept && op->mode == CUDNN_BATCHNORM_SPATIAL_PERSISTENT && c % 4 == 0;
	cudnnStatus_t st = fuse ? bn_configure(op, 1) : CUDNN_STATUS_NOT_SUPPORTED;
	if (fuse && st != CUDNN_STATUS_SUCCESS && gpu.precision == BK_AMP && comm_rank() == 0)
		warnf("warning: cuDNN %zu refuses the fused batch norm%s on %dx%dx%d (%s): it "
		      "runs unfused, with an add+ReLU kernel and its backward (slower)",
		      cudnnGetVersion(), z ? " +add+ReLU" : " +ReLU", x->c, x->h, x->w,
		      cudnnGetErrorString(st));
	if (st != CUDNN_STATUS_SUCCESS)
		st = bn_configure(op, 0);
	if (st != CUDNN_STATUS_SUCCESS)
		die_usage("--precision %s: cuDNN %zu cannot run batch norm on %dx%dx%d %s "
			  "activations on this GPU: %s",
			  precision_name(gpu.precision), cudnnGetVersion(), x->c, x->h, x->w,
			  gpu.act_fmt == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW",
			  cudnnGetErrorString(st));
	if (op->fused)
		gpu.bn.fused++;
	else if (!relu) /* with or without our add */
		gpu.bn.plain++;
	else if (!y_kept)
		gpu.bn.stem++;
	else if (fuse)
		gpu.bn.refused++;
	else
		gpu.bn.unfusable++;
	if (gpu.verbose && gpu.local_rank == 0)
		fprintf(stderr, "bench: cudnn: batch norm %dx%dx%d%s%s: %s\n", x->c, x->h, x->w,
			relu ? " +relu" : "", z ? " +add" : "",
			op->fused ? "fused"
			: relu    ? "our ReLU kernels"
			: z       ? "our add kernel"
				  : "plain");
	return op;
}

extern "C" void bk_bn_forward(bk_op *op)
{
	ws_finalize();
	CUDNN_CHECK(bn_forward_status(op, op->momentum, op->rmean, op->rvar));
	if (op->relu && !op->fused)
		launch_add_relu(op->y, op->x2);
	else if (op->x2)
		launch_add(op->y, op->x2);
}

extern "C" void bk_bn_backward(bk_op *op)
{
	const bk_tensor *x = op->x;

	ws_finalize();
	if (op->relu && !op->fused) {
		/* the mask from y: into dz with an add (both of its inputs get
		 * it), else in place: nothing reads dy after us */
		if (op->y_kept)
			launch_relu_back(op->y, op->dy, bn_grad_in(op));
		else
			launch_bn_relu_back(x, op->dy, op->save_mean, op->save_inv, op->gamma,
					    op->beta);
	} else if (op->x2) {
		/* the add's gradient goes to both of its inputs */
		CUDA_CHECK(cudaMemcpyAsync(op->dx2->p, op->dy->p,
					   elems(op->dy) * (op->dy->dt == CUDNN_DATA_FLOAT ? 4 : 2),
					   cudaMemcpyDeviceToDevice, gpu.stream));
	}
	CUDNN_CHECK(bn_backward_status(op, bn_grad_in(op)));
}
