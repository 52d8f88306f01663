/*
 * bench/cuda/loss.cu: the classifier's bias (forward and its gradient),
 * softmax cross-entropy (a warp per row) and the SGD update over the flat
 * buffers (the math of elementwise.h, shared with the CPU backend), their
 * kernels and their ops; the step's scalars (loss scale, learning rate)
 * come from the device (push_knobs) so a captured step replays them. Each
 * op runs on gpu.stream; every launch is checked.
 */
#include "kernels.h"
#include "softmax.h"

/* y[n][out] += b[out] */
static __global__ void k_bias(float *y, const float *b, uint32_t total, gpu_div out)
{
	GRID_STRIDE(i, total)
	{
		y[i] += b[i - gpu_div_q(out, i) * out.d];
	}
}

/* db[o] = sum over rows of dy[.][o] */
static __global__ void k_bias_back(const float *dy, float *db, int n, int out)
{
	GRID_STRIDE(o, out)
	{
		float s = 0.0f;
		for (int r = 0; r < n; r++)
			s += dy[(size_t)r * out + o];
		db[o] = s;
	}
}

/* A warp per row, in float (softmax.h's lane functions, tested on the CPU):
 * the lanes' running maxima and sums merged by a butterfly, lane 0's result
 * given to all, then dz and the row's loss. The loss gradient is scaled by
 * the loss scale the device holds (knobs), so a captured step replays with
 * the scale of the day. */
static __global__ void k_softmax_ce(const float *z, const int32_t *labels, int n, int k, float s,
				    float scale, const struct step_knobs *knobs, float *dz,
				    float *loss)
{
	const unsigned all = 0xffffffffu;
	int row = (int)(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32), lane = threadIdx.x % 32;
	float m, sum, l;

	if (row >= n)
		return; /* the whole warp: row is the same in all its lanes */
	z += (size_t)row * k;
	dz += (size_t)row * k;
	gpu_sm_lane_stats(z, k, lane, 32, &m, &sum);
	for (int o = 16; o > 0; o /= 2) {
		float m2 = __shfl_xor_sync(all, m, o), s2 = __shfl_xor_sync(all, sum, o);
		gpu_sm_merge(&m, &sum, m2, s2);
	}
	m = __shfl_sync(all, m, 0);
	sum = __shfl_sync(all, sum, 0);
	l = gpu_sm_lane_out(z, k, lane, 32, labels[row], s, scale * knobs->loss_scale,
			    m + logf(sum), dz);
	for (int o = 16; o > 0; o /= 2)
		l += __shfl_xor_sync(all, l, o);
	if (lane == 0)
		loss[row] = l;
}

/* ew_sgd over the flat buffers, weight decay on the elements in the
 * ranges [lo[k], hi[k]); the whole step is skipped while *flag is set. The
 * step's scalars come from the device (knobs), as for softmax. */
static __global__ void k_sgd(float *w, const float *g, float *buf, uint32_t n, const size_t *lo,
			     const size_t *hi, int nseg, const struct step_knobs *kn,
			     const int *flag)
{
	if (*flag)
		return;
	float gs = kn->grad_scale * kn->inv_scale, lr = kn->lr, mom = kn->momentum, wd = kn->wd;
	GRID_STRIDE(i, n)
	{
		int k = ew_range_after(i, hi, nseg);
		ew_sgd(&w[i], &buf[i], g[i], gs, lr, mom, k < nseg && lo[k] <= i ? wd : 0.0f);
	}
}

void launch_bias(float *y, const float *b, int n, int out)
{
	size_t total = (size_t)n * out;

	k_bias<<<blocks(total), THREADS, 0, gpu.stream>>>(y, b, (uint32_t)total, div_of(out));
	CUDA_LAUNCH_CHECK();
}

void launch_bias_back(const float *dy, float *db, int n, int out)
{
	k_bias_back<<<blocks((size_t)out), THREADS, 0, gpu.stream>>>(dy, db, n, out);
	CUDA_LAUNCH_CHECK();
}

/* ---- loss and update ---------------------------------------------------------- */

/*
 * Queued, never waited on: the loss of each row goes to pinned memory behind
 * the kernel, and the GPU goes on into backward. The loss gradient is scaled
 * by the loss scale the last step settled (bk_sync).
 */
extern "C" void bk_softmax_ce(const bk_tensor *logits, const int32_t *labels, float smoothing,
			      float scale, bk_tensor *dlogits)
{
	int n = logits->n, k = logits->c;

	if (logits->kind != BK_MATRIX || dlogits->kind != BK_MATRIX)
		die("softmax_ce: logits must be a matrix");
	loss_rows_reserve(n);
	settle(); /* a step without an update: its verdict is read here */
	push_knobs();
	/* a warp per row, eight rows a block */
	k_softmax_ce<<<(unsigned)((n + 7) / 8), THREADS, 0, gpu.stream>>>(
		(const float *)logits->p, labels, n, k, smoothing, scale, gpu.knobs,
		(float *)dlogits->p, gpu.loss_rows);
	CUDA_LAUNCH_CHECK();
	gpu.pending = gpu.scaling;
	loss_rows_copy(n, n);
}

void loss_rows_reserve(int rows)
{
	if (rows <= gpu.loss_cap)
		return;
	if (gpu.loss_rows) {
		CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
		CUDA_CHECK(cudaFree(gpu.loss_rows));
		CUDA_CHECK(cudaFreeHost(gpu.loss_host));
	}
	gpu.loss_rows = (float *)dev_alloc((size_t)rows * sizeof(float));
	CUDA_CHECK(cudaMallocHost((void **)&gpu.loss_host, (size_t)rows * sizeof(float)));
	gpu.loss_cap = rows;
}

void loss_rows_copy(int rows, int div)
{
	CUDA_CHECK(cudaMemcpyAsync(gpu.loss_host, gpu.loss_rows, (size_t)rows * sizeof(float),
				   cudaMemcpyDeviceToHost, gpu.stream));
	gpu.loss_n = rows;
	gpu.loss_div = div;
}

extern "C" float bk_loss(void)
{
	double sum = 0.0;

	CUDA_CHECK(cudaStreamSynchronize(gpu.stream)); /* idle after bk_sync: no wait */
	for (int i = 0; i < gpu.loss_n; i++)
		sum += gpu.loss_host[i];
	return gpu.loss_div ? (float)(sum / gpu.loss_div) : 0.0f;
}

extern "C" bk_op *bk_sgd_plan(float *w, const float *g, float *buf, size_t n, const size_t *lo,
			      const size_t *hi, int nseg)
{
	bk_op *op = op_new();
	size_t bytes = (size_t)(nseg > 0 ? nseg : 1) * sizeof(size_t);

	op->sgd_w = w;
	op->sgd_g = g;
	op->sgd_buf = buf;
	op->sgd_n = n;
	op->nseg = nseg;
	op->seg_lo = (size_t *)dev_alloc(bytes);
	op->seg_hi = (size_t *)dev_alloc(bytes);
	if (nseg > 0) {
		bk_to_device(op->seg_lo, lo, (size_t)nseg * sizeof(size_t));
		bk_to_device(op->seg_hi, hi, (size_t)nseg * sizeof(size_t));
	}
	return op;
}

/*
 * The update, behind one overflow check of the whole gradient buffer (amp;
 * after the sum over GPUs: an inf on any rank is an inf in every rank's
 * sum, so every rank skips). The scalars go through the knobs; a replayed
 * graph (--graph) has this step's copy and kernels already, and only the
 * knobs are written here.
 */
extern "C" void bk_sgd_run(bk_op *op, float grad_scale, float lr, float momentum, float wd)
{
	size_t n = op->sgd_n;

	gpu.knobs_host->grad_scale = grad_scale;
	gpu.knobs_host->lr = lr;
	gpu.knobs_host->momentum = momentum;
	gpu.knobs_host->wd = wd;
	push_knobs();
	if (gpu.graph_state == GRAPH_READY) {
		graph_launch();
		return;
	}
	if (n == 0)
		return;
	flag_overflow(op->sgd_g, n);
	k_sgd<<<blocks(n), THREADS, 0, gpu.stream>>>(op->sgd_w, op->sgd_g, op->sgd_buf, (uint32_t)n,
						     op->seg_lo, op->seg_hi, op->nseg, gpu.knobs,
						     gpu.flag);
	CUDA_LAUNCH_CHECK();
	gpu.updated = gpu.pending;
}