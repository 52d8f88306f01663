/*
 * bench/step.c: the walks of one training step over the model's table
 * (model.h) through the backend's ops (backend.h): forward to the loss,
 * backward to the parameter gradients, handing each on as it becomes final
 * (the allreduce buckets start on it). Each op is marked for --profile
 * (profile.h). Reads and writes nothing but memory.
 */
#include <stddef.h>

#include "model.h"
#include "profile.h"

void model_forward(model *m, float label_smoothing, float scale)
{
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
			prof_at(i, PK_BN_FWD);
			bk_bn_forward(l->op);
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
			prof_at(i, PK_BN_BWD);
			bk_bn_backward(l->op);
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
