/*
 * bench/step.c: the walks of one training step over the model's table
 * (model.h) through the backend's ops (backend.h): forward to the loss,
 * backward to the parameter gradients, handing each on as it becomes final
 * (the allreduce buckets start on it). Each op is marked for --profile
 * (profile.h); the ArcFace head's walks are head.c's. Reads and writes
 * nothing but memory.
 */
#include <stddef.h>

#include "head.h"
#include "model.h"
#include "profile.h"

void model_forward(model *m, float label_smoothing, float scale)
{
	m->step++;
	for (int i = 0; i < m->nlayers; i++) {
		layer *l = &m->layers[i];
		switch (l->kind) {
		case L_CONV:
			prof_at(i, PK_CONV_FWD);
			bk_conv_forward(l->op);
			break;
		case L_BN:
		case L_BN_RELU:
		case L_BN_ADD_RELU:
		case L_BN_ADD:
			prof_at(i, PK_BN_FWD);
			bk_bn_forward(l->op);
			break;
		case L_PRELU:
			prof_at(i, PK_ACT_FWD);
			bk_prelu_forward(l->op);
			break;
		case L_FLATTEN:
			prof_at(i, PK_REORDER);
			bk_flatten_forward(l->op);
			break;
		case L_DROPOUT:
			prof_at(i, PK_ACT_FWD);
			bk_dropout_forward(l->op, m->step);
			break;
		case L_ARCFACE:
			head_forward(m, i, scale);
			break;
		case L_MAXPOOL:
			prof_at(i, PK_POOL_FWD);
			bk_maxpool_forward(l->op);
			break;
		case L_AVGPOOL:
			prof_at(i, PK_POOL_FWD);
			bk_avgpool_forward(l->op);
			break;
		case L_FC:
			prof_at(i, PK_FC_FWD);
			bk_fc_forward(l->op);
			break;
		}
	}
	if (m->head)
		return; /* the head's loss is done */
	prof_at(PROF_NONE, PK_LOSS);
	tensor *z = &m->tensors[m->logits];
	bk_softmax_ce(z->t, m->labels, label_smoothing, scale, z->d);
}

void model_backward(model *m, void (*ready)(void *ctx, size_t off), void *ctx)
{
	size_t done = m->nparams;
	for (int i = m->nlayers - 1; i >= 0; i--) {
		layer *l = &m->layers[i];
		switch (l->kind) {
		case L_CONV:
			prof_at(i, PK_CONV_BWD_WEIGHTS);
			bk_conv_backward_weights(l->op);
			if (l->x != m->input) {
				prof_at(i, PK_CONV_BWD_DATA);
				bk_conv_backward_data(l->op);
			}
			break;
		case L_BN:
		case L_BN_RELU:
		case L_BN_ADD_RELU:
		case L_BN_ADD:
			prof_at(i, PK_BN_BWD);
			bk_bn_backward(l->op);
			break;
		case L_PRELU:
			prof_at(i, PK_ACT_BWD);
			bk_prelu_backward(l->op);
			break;
		case L_FLATTEN:
			prof_at(i, PK_REORDER);
			bk_flatten_backward(l->op);
			break;
		case L_DROPOUT:
			prof_at(i, PK_ACT_BWD);
			bk_dropout_backward(l->op);
			break;
		case L_ARCFACE:
			head_backward(m, i);
			break;
		case L_MAXPOOL:
			prof_at(i, PK_POOL_BWD);
			bk_maxpool_backward(l->op);
			break;
		case L_AVGPOOL:
			prof_at(i, PK_POOL_BWD);
			bk_avgpool_backward(l->op);
			break;
		case L_FC:
			prof_at(i, PK_FC_BWD);
			bk_fc_backward(l->op);
			break;
		}
		if (l->ready < done) {
			done = l->ready;
			if (ready)
				ready(ctx, done);
		}
	}
}
