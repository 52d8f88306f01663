/*
 * bench/cuda/gemm.cu: the classifier, fully connected in fp32 on cuBLAS in
 * every precision (TF32 math where the precision allows it, set in bk_init).
 *
 * cuBLAS is column-major: with x [n][in] and w [out][in] row-major, x is
 * in x n and w is in x out column-major, so y (out x n) = w^T x,
 * dx (in x n) = w dy, dw (in x out) = x dy^T.
 */
#include "internal.h"

extern "C" bk_op *bk_fc_plan(bk_tensor *x, bk_tensor *y, bk_tensor *dx, bk_tensor *dy,
			     const float *w, const float *b, float *dw, float *db)
{
	bk_op *op = op_new();

	if (x->kind != BK_MATRIX || y->kind != BK_MATRIX || x->n != y->n)
		die("fc plan: x and y must be matrices of the same batch");
	op->x = x;
	op->y = y;
	op->dx = dx;
	op->dy = dy;
	op->w = w;
	op->b = b;
	op->dw = dw;
	op->db = db;
	op->cin = x->c;
	op->cout = y->c;
	return op;
}

extern "C" void bk_fc_forward(bk_op *op)
{
	float one = 1.0f, zero = 0.0f;
	int n = op->x->n;

	CUBLAS_CHECK(cublasSgemm(gpu.blas, CUBLAS_OP_T, CUBLAS_OP_N, op->cout, n, op->cin, &one,
				 op->w, op->cin, (const float *)op->x->p, op->cin, &zero,
				 (float *)op->y->p, op->cout));
	launch_bias((float *)op->y->p, op->b, n, op->cout);
}

extern "C" void bk_fc_backward(bk_op *op)
{
	float one = 1.0f, zero = 0.0f;
	int n = op->x->n;

	if (op->dx)
		CUBLAS_CHECK(cublasSgemm(gpu.blas, CUBLAS_OP_N, CUBLAS_OP_N, op->cin, n, op->cout,
					 &one, op->w, op->cin, (const float *)op->dy->p, op->cout,
					 &zero, (float *)op->dx->p, op->cin));
	CUBLAS_CHECK(cublasSgemm(gpu.blas, CUBLAS_OP_N, CUBLAS_OP_T, op->cin, op->cout, n, &one,
				 (const float *)op->x->p, op->cin, (const float *)op->dy->p,
				 op->cout, &zero, op->dw, op->cin));
	launch_bias_back((const float *)op->dy->p, op->db, n, op->cout);
}
