/*
 * bench/cpu/arcface.c: the ArcFace head's ops on the oneDNN backend
 * (backend.h's bk_arcface_*): its three products on oneDNN's sgemm, the
 * rest row by row in plain C with OpenMP, the margin from margin.h.
 *
 * The weights are never normalised into a copy: cos = (xall w^T) with each
 * column scaled by 1 / |w_j| (computed as t = w xall^T, [cr][rows], the
 * large matrix not transposed: several times faster in oneDNN's sgemm for
 * a few rows, then read back transposed by the margin's pass), and
 * backward carries that scale in its
 * gradient G = dlogits s (the margin's slope at the target) / |w_j|, so
 * that dxall = G w and, with H = G^T xall, dw_j = H_j - (w_j . H_j) w_j /
 * |w_j|^2 (the gradient through w / |w|).
 */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "internal.h"
#include "margin.h"
#include "shard.h"

bk_op *bk_arcface_plan(const bk_arcface_shape *s, bk_tensor *x, bk_tensor *dx, bk_tensor *logits,
		       bk_tensor *dlogits, const float *w, float *dw, float *xall, float *dxall,
		       const float *dxn, const int32_t *labels, float *stats)
{
	if (x->kind != BK_MATRIX || x->n != s->batch || x->c != s->e || logits->n != s->rows ||
	    logits->c != s->cr || s->row0 + s->batch > s->rows)
		die("%s:%d: arcface plan: shapes disagree", __FILE__, __LINE__);
	bk_op *op = op_new(OP_ARCFACE);
	op->x = x;
	op->dx = dx;
	op->y = logits;
	op->dy = dlogits;
	op->w = w;
	op->dw = dw;
	op->af = *s;
	op->af_xall = xall;
	op->af_dxall = dxall;
	op->af_dxn = dxn;
	op->af_labels = labels;
	op->af_stats = stats;
	op->aux = xmalloc(((size_t)s->batch + (size_t)s->cr + (size_t)s->rows) * sizeof(float));
	op->fc_t = xmalloc((size_t)s->rows * s->cr * sizeof(float));
	return op;
}

static float *inv_x(bk_op *op)
{
	return op->aux;
}
static float *inv_w(bk_op *op)
{
	return op->aux + op->af.batch;
}
static float *dphi(bk_op *op)
{
	return op->aux + op->af.batch + op->af.cr;
}

/* 1 / |v| of n floats (0 for a zero vector): a float sum in vector lanes,
 * the lanes' sums added in double. */
static float inv_norm(const float *v, int n)
{
	enum { L = 16 };
	float lane[L] = {0};
	int j = 0;
	for (; j + L <= n; j += L)
#pragma omp simd
		for (int k = 0; k < L; k++)
			lane[k] += v[j + k] * v[j + k];
	double s = 0.0;
	for (int k = 0; k < L; k++)
		s += lane[k];
	for (; j < n; j++)
		s += (double)v[j] * v[j];
	return s > 0.0 ? (float)(1.0 / sqrt(s)) : 0.0f;
}

void bk_arcface_embed(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	const float *x = op->x->data;
	float *xn = op->af_xall + (size_t)s->row0 * s->e, *inv = inv_x(op);
#pragma omp parallel for
	for (int i = 0; i < s->batch; i++) {
		inv[i] = inv_norm(x + (size_t)i * s->e, s->e);
		for (int j = 0; j < s->e; j++)
			xn[(size_t)i * s->e + j] = x[(size_t)i * s->e + j] * inv[i];
	}
}

void bk_arcface_logits(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	float *z = op->y->data, *iw = inv_w(op), *dp = dphi(op), *mx = op->af_stats;
	struct margin k = margin_make(s->margin);
#pragma omp parallel for
	for (int j = 0; j < s->cr; j++)
		iw[j] = inv_norm(op->w + (size_t)j * s->e, s->e);
	/* t [cr][rows] = w [cr][e] xall^T, then z [rows][cr] its transpose */
	float *t = op->fc_t;
	DNNL_CHECK(dnnl_sgemm('N', 'T', s->cr, s->rows, s->e, 1.0f, op->w, s->e, op->af_xall, s->e,
			      0.0f, t, s->rows));
	/* in blocks of columns, so that t's block stays in cache while every
	 * row reads it */
	enum { BLOCK = 256 };
#pragma omp parallel for
	for (int j0 = 0; j0 < s->cr; j0 += BLOCK) {
		int j1 = j0 + BLOCK < s->cr ? j0 + BLOCK : s->cr;
		for (int r = 0; r < s->rows; r++) {
			float *zr = z + (size_t)r * s->cr;
			int tc = shard_column(op->af_labels[r], s->c0, s->cr);
			for (int j = j0; j < j1; j++) {
				float c = margin_clamp(t[(size_t)j * s->rows + r] * iw[j]);
				if (j == tc)
					c = margin_phi(c, k, &dp[r]);
				zr[j] = s->scale * c;
			}
		}
	}
#pragma omp parallel for
	for (int r = 0; r < s->rows; r++) {
		const float *zr = z + (size_t)r * s->cr;
		float m = -INFINITY;
		for (int j = 0; j < s->cr; j++)
			m = zr[j] > m ? zr[j] : m;
		mx[r] = m;
	}
}

void bk_arcface_expsum(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	const float *z = op->y->data, *mx = op->af_stats;
	float *sum = op->af_stats + s->rows;
#pragma omp parallel for
	for (int r = 0; r < s->rows; r++) {
		const float *zr = z + (size_t)r * s->cr;
		double a = 0.0;
		for (int j = 0; j < s->cr; j++)
			a += exp((double)(zr[j] - mx[r]));
		sum[r] = (float)a;
	}
}

void bk_arcface_loss(bk_op *op, float scale)
{
	const bk_arcface_shape *s = &op->af;
	const float *z = op->y->data, *iw = inv_w(op), *dp = dphi(op), *st = op->af_stats;
	float *g = op->dy->data;
	double loss = 0.0;
#pragma omp parallel for reduction(+ : loss)
	for (int r = 0; r < s->rows; r++) {
		const float *zr = z + (size_t)r * s->cr;
		float *gr = g + (size_t)r * s->cr;
		double lse = (double)st[r] + log((double)st[s->rows + r]);
		int t = shard_column(op->af_labels[r], s->c0, s->cr);
		for (int j = 0; j < s->cr; j++) {
			double logp = (double)zr[j] - lse;
			float d = scale * (float)(exp(logp) - (j == t ? 1.0 : 0.0));
			gr[j] = d * s->scale * (j == t ? dp[r] : 1.0f) * iw[j];
			if (j == t)
				loss -= logp;
		}
	}
	cpu.loss = (float)(loss / s->batch);
}

void bk_arcface_backward(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	const float *g = op->dy->data, *iw = inv_w(op);
	/* dxall [rows][e] = G [rows][cr] w [cr][e];  H [cr][e] = G^T xall, into dw */
	DNNL_CHECK(dnnl_sgemm('N', 'N', s->rows, s->e, s->cr, 1.0f, g, s->cr, op->w, s->e, 0.0f,
			      op->af_dxall, s->e));
	DNNL_CHECK(dnnl_sgemm('T', 'N', s->cr, s->e, s->rows, 1.0f, g, s->cr, op->af_xall, s->e,
			      0.0f, op->dw, s->e));
#pragma omp parallel for
	for (int j = 0; j < s->cr; j++) {
		const float *wj = op->w + (size_t)j * s->e;
		float *hj = op->dw + (size_t)j * s->e;
		double dot = 0.0;
		for (int k = 0; k < s->e; k++)
			dot += (double)wj[k] * hj[k];
		float f = (float)(dot * iw[j] * iw[j]);
		for (int k = 0; k < s->e; k++)
			hj[k] -= f * wj[k];
	}
}

void bk_arcface_backward_x(bk_op *op)
{
	const bk_arcface_shape *s = &op->af;
	const float *xn = op->af_xall + (size_t)s->row0 * s->e, *inv = inv_x(op);
	const float *dn = op->af_dxn;
	if (op->af_dxn == op->af_dxall) /* one shard: this rank's rows of dxall */
		dn += (size_t)s->row0 * s->e;
	float *dx = op->dx->data;
#pragma omp parallel for
	for (int i = 0; i < s->batch; i++) {
		const float *a = xn + (size_t)i * s->e, *b = dn + (size_t)i * s->e;
		double dot = 0.0;
		for (int k = 0; k < s->e; k++)
			dot += (double)a[k] * b[k];
		for (int k = 0; k < s->e; k++)
			dx[(size_t)i * s->e + k] = inv[i] * (b[k] - (float)dot * a[k]);
	}
}
