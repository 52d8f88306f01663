/*
 * bench/table.h: the constructors of a model's table (table.c), for the
 * networks' builders (model.c: ResNet50 v1.5; iresnet.c: IResNet-50). Each
 * appends a layer and its output tensor, reserves its parameters in the
 * flat buffer (in the order called: the state_dict's) and counts its
 * forward FLOPs per sample; each returns the output tensor's index.
 */
#ifndef BENCH_TABLE_H
#define BENCH_TABLE_H

#include "model.h"

/* A tensor of the batch: BK_ACT [c][h][w], BK_MATRIX [c]. */
int table_tensor(model *m, int kind, int c, int h, int w);
/* A layer reading x (and x2, or -1); its output is set by table_finish. */
layer *table_layer(model *m, int kind, const char *name, int x, int x2);
int table_finish(model *m, layer *l, int y);

/* y = conv(x), no bias, k x k, stride, pad. */
int table_conv(model *m, const char *name, int x, int cout, int k, int stride, int pad);
/* Room for a batch norm's gamma and beta (at *w), and its running statistics
 * (at *stats): a batch norm whose layer comes later than its parameters'
 * place (a block's last one, after the shortcut's). */
void table_bn_reserve(model *m, int c, size_t *w, size_t *stats);
int table_bn_at(model *m, const char *name, int kind, int x, int x2, size_t w, size_t stats);
/* y = bn(x), relu(bn(x)) with relu 1; over BK_ACT or BK_MATRIX. */
int table_bn(model *m, const char *name, int x, int relu);
/* y = prelu(x), one slope per channel. */
int table_prelu(model *m, const char *name, int x);
/* x [n][c][h][w] -> y [n][c * h * w] (BK_MATRIX). */
int table_flatten(model *m, const char *name, int x);
/* y = dropout(x) over a matrix. */
int table_dropout(model *m, const char *name, int x);
/* y = x w^T + b over matrices, w [cout][cin]. */
int table_fc(model *m, const char *name, int x, int cout);
/* The ArcFace head's logits: rows x cr (head.h), w [cr][cin]; FLOPs of
 * the whole classifier (classes) per sample. */
int table_arcface(model *m, const char *name, int x, int rows, int cr, int classes);

#endif
