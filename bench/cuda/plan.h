/*
 * bench/cuda/plan.h: host-side planning for the CUDA backend, plain C so the
 * CPU tests cover it (bin/test-gpu-host): the index maps of the layout
 * kernels, max pooling's windows, which convolution shapes are distinct
 * (cudnnFind runs once per shape) and how much workspace a search may use.
 * No CUDA types here.
 */
#ifndef BENCH_CUDA_PLAN_H
#define BENCH_CUDA_PLAN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define PLAN_HD __host__ __device__
#else
#define PLAN_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- layouts --------------------------------------------------------- */
/*
 * Index maps of the layout kernels, written once for the kernels and the
 * CPU tests. Activations: NCHW (fp32) and NHWC (fp16, bf16); weights: OIHW
 * (the flat parameter buffer, PyTorch's) and KRSC (cuDNN's NHWC filters).
 */

/* NCHW index of the element at NHWC index i. */
static inline PLAN_HD size_t gpu_nhwc_to_nchw(size_t i, size_t c, size_t h, size_t w)
{
	size_t ci = i % c, p = i / c, wi = p % w, hi = (p / w) % h, ni = p / (w * h);

	return ((ni * c + ci) * h + hi) * w + wi;
}

/* NHWC index of the element at NCHW index i. */
static inline PLAN_HD size_t gpu_nchw_to_nhwc(size_t i, size_t c, size_t h, size_t w)
{
	size_t wi = i % w, hi = (i / w) % h, ci = (i / (w * h)) % c, ni = i / (w * h * c);

	return ((ni * h + hi) * w + wi) * c + ci;
}

/*
 * Weights. cpad >= c: KRSC with its input channels padded to cpad (cuDNN's
 * NHWC fp16 kernels want the 3 channels of the image padded to 4; PyTorch
 * and NVIDIA's examples do the same). GPU_PAD: a padding position.
 */
#define GPU_PAD ((size_t)-1)

/* OIHW index of the weight at padded-KRSC index i, or GPU_PAD. */
static inline PLAN_HD size_t gpu_krsc_to_oihw_pad(size_t i, size_t c, size_t cpad, size_t r,
						  size_t s)
{
	size_t ci = i % cpad, si = (i / cpad) % s, ri = (i / (cpad * s)) % r;
	size_t ki = i / (cpad * s * r);

	return ci >= c ? GPU_PAD : ((ki * c + ci) * r + ri) * s + si;
}

/* Padded-KRSC index of the weight at OIHW index i. */
static inline PLAN_HD size_t gpu_oihw_to_krsc_pad(size_t i, size_t c, size_t cpad, size_t r,
						  size_t s)
{
	size_t si = i % s, ri = (i / s) % r, ci = (i / (s * r)) % c, ki = i / (s * r * c);

	return ((ki * r + ri) * s + si) * cpad + ci;
}

/* Unpadded (cpad = c): OIHW index of the weight at KRSC index i. */
static inline PLAN_HD size_t gpu_krsc_to_oihw(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_krsc_to_oihw_pad(i, c, c, r, s);
}

/* KRSC index of the weight at OIHW index i. */
static inline PLAN_HD size_t gpu_oihw_to_krsc(size_t i, size_t c, size_t r, size_t s)
{
	return gpu_oihw_to_krsc_pad(i, c, c, r, s);
}

/* The fp32 NCHW image at NHWC index i of its cpad-channel copy, or GPU_PAD. */
static inline PLAN_HD size_t gpu_nhwc_pad_to_nchw(size_t i, size_t c, size_t cpad, size_t h,
						  size_t w)
{
	size_t ci = i % cpad, p = i / cpad, wi = p % w, hi = (p / w) % h, ni = p / (w * h);

	return ci >= c ? GPU_PAD : ((ni * c + ci) * h + hi) * w + wi;
}

/*
 * Max pooling's backward as a gather: the outputs whose k-wide window
 * (stride s, padding pad) covers input position i are lo .. hi inclusive
 * (lo > hi: none), clipped to [0, out).
 */
static inline PLAN_HD void gpu_pool_range(int i, int k, int s, int pad, int out, int *lo, int *hi)
{
	int first = i + pad - k + 1; /* o * s >= first */

	*lo = first <= 0 ? 0 : (first + s - 1) / s;
	*hi = (i + pad) / s;
	if (*hi > out - 1)
		*hi = out - 1;
}

/* ---- 32-bit index arithmetic of our kernels ---------------------------- */
/*
 * Every tensor has fewer than 2^31 elements (bk_tensor_create refuses more),
 * so the kernels index in 32 bits, and divide by a tensor's dimensions with
 * a multiply-high and a shift instead of a division (PyTorch's IntDivider):
 * q = (umulhi(n, m) + n) >> s, exact for n, d < 2^31.
 */
struct gpu_div {
	uint32_t d, m, s;
};

static inline struct gpu_div gpu_div_make(uint32_t d)
{
	struct gpu_div v;
	uint32_t s = 0;

	while (s < 31 && (UINT32_C(1) << s) < d)
		s++;
	v.d = d;
	v.s = s;
	v.m = (uint32_t)(((UINT64_C(1) << 32) * ((UINT64_C(1) << s) - d)) / d + 1);
	return v;
}

static inline PLAN_HD uint32_t gpu_div_q(struct gpu_div v, uint32_t n)
{
#ifdef __CUDA_ARCH__
	uint32_t t = __umulhi(n, v.m);
#else
	uint32_t t = (uint32_t)(((uint64_t)n * v.m) >> 32);
#endif
	return (t + n) >> v.s;
}

/* Coordinates of one element (or one group of channels: see below). */
struct gpu_pos {
	uint32_t n, c, h, w;
};

/*
 * The element at index i of an NHWC tensor of c channels, w columns and h
 * rows. The vectorised NHWC kernels handle V channels at once: they call it
 * with c / V "channels" and multiply pos.c by V.
 */
static inline PLAN_HD struct gpu_pos gpu_nhwc_pos(uint32_t i, struct gpu_div c, struct gpu_div w,
						  struct gpu_div h)
{
	struct gpu_pos p;
	uint32_t q = gpu_div_q(c, i), r;

	p.c = i - q * c.d;
	r = gpu_div_q(w, q);
	p.w = q - r * w.d;
	p.n = gpu_div_q(h, r);
	p.h = r - p.n * h.d;
	return p;
}

/* The element at index i of an NCHW tensor. */
static inline PLAN_HD struct gpu_pos gpu_nchw_pos(uint32_t i, struct gpu_div w, struct gpu_div h,
						  struct gpu_div c)
{
	struct gpu_pos p;
	uint32_t q = gpu_div_q(w, i), r;

	p.w = i - q * w.d;
	r = gpu_div_q(h, q);
	p.h = q - r * h.d;
	p.n = gpu_div_q(c, r);
	p.c = r - p.n * c.d;
	return p;
}

static inline PLAN_HD uint32_t gpu_nhwc_at(struct gpu_pos p, uint32_t c, uint32_t h, uint32_t w)
{
	return ((p.n * h + p.h) * w + p.w) * c + p.c;
}

static inline PLAN_HD uint32_t gpu_nchw_at(struct gpu_pos p, uint32_t c, uint32_t h, uint32_t w)
{
	return ((p.n * c + p.c) * h + p.h) * w + p.w;
}

/*
 * The channel of group i (V elements) of a tensor: NHWC, cg = c / V groups
 * of channels: the first channel of the group; NCHW (h * w a multiple of
 * V), hwg = h * w / V groups a plane: the channel of all V.
 */
static inline PLAN_HD uint32_t gpu_group_channel(uint32_t i, int nhwc, struct gpu_div cg,
						 struct gpu_div hwg, struct gpu_div c, uint32_t v)
{
	uint32_t q;

	if (nhwc)
		return (i - gpu_div_q(cg, i) * cg.d) * v;
	q = gpu_div_q(hwg, i);
	return q - gpu_div_q(c, q) * c.d;
}

/* ---- softmax cross-entropy, a warp per row ------------------------------ */
/*
 * The lanes of a warp each take the logits j = lane, lane + lanes, ...: a
 * running maximum and sum of exp (online softmax), merged across lanes by a
 * butterfly, then each lane writes its dz and adds its share of the loss.
 * In float; the CPU tests compare a 32-lane emulation with
 * ew_softmax_ce_row (double) at 1000 classes.
 */
static inline PLAN_HD void gpu_sm_merge(float *m, float *s, float m2, float s2)
{
	float mx = *m > m2 ? *m : m2;

	if (mx == -INFINITY)
		return; /* both empty */
	*s = *s * expf(*m - mx) + s2 * expf(m2 - mx);
	*m = mx;
}

static inline PLAN_HD void gpu_sm_lane_stats(const float *z, int k, int lane, int lanes, float *m,
					     float *s)
{
	*m = -INFINITY;
	*s = 0.0f;
	for (int j = lane; j < k; j += lanes)
		gpu_sm_merge(m, s, z[j], 1.0f);
}

/* dz of the lane's logits; returns the lane's share of the row's loss. */
static inline PLAN_HD float gpu_sm_lane_out(const float *z, int k, int lane, int lanes, int label,
					    float smoothing, float scale, float lse, float *dz)
{
	float loss = 0.0f;

	for (int j = lane; j < k; j += lanes) {
		float logp = z[j] - lse;
		float t = (j == label ? 1.0f - smoothing : 0.0f) + smoothing / (float)k;
		loss -= t * logp;
		dz[j] = scale * (expf(logp) - t);
	}
	return loss;
}

/* ---- convolution shapes ---------------------------------------------- */

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

/* ---- start-up ----------------------------------------------------------- */

/*
 * This rank's place on its node as the launcher tells it, before MPI starts
 * (the device must be chosen before a CUDA-aware MPI opens a context):
 * Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, MPICH's MPI_LOCALRANKID, else
 * Slurm's SLURM_LOCALID when srun itself started this process (its
 * PMIX_RANK or PMI_RANK is SLURM_PROCID; mpirun inside an allocation
 * inherits Slurm's variables of the mpirun). -1: not known before MPI.
 * get is getenv, or the tests' table.
 */
int gpu_env_local_rank(const char *(*get)(const char *name));

/* How the batch norms of the model run (bn.cu counts them at plan time). */
struct gpu_bn_count {
	int fused;     /* cuDNN's fused form (the ReLU, and the add, in one call) */
	int stem;      /* with a ReLU, unfused: y not kept (the stem's bn1) */
	int refused;   /* with a ReLU, unfused: cuDNN refused the fused form */
	int unfusable; /* with a ReLU, unfused: the precision has no fused form */
	int plain;     /* no ReLU (the downsample branches') */
};

/* The start-up line, e.g. "batch norm: 48 fused, 1 unfused (stem), 4 plain". */
void gpu_bn_summary(const struct gpu_bn_count *c, const char *precision, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
