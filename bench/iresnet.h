/*
 * bench/iresnet.h: IResNet-50's backbone into a model's table (iresnet.c).
 */
#ifndef BENCH_IRESNET_H
#define BENCH_IRESNET_H

#include "model.h"

/* From the image tensor x to the embedding [n][cfg.embedding]; returns its
 * tensor. Dies with a usage error when the image is too small. */
int iresnet_backbone(model *m, int x);

#endif
