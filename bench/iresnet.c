/*
 * bench/iresnet.c: IResNet-50 (insightface's iresnet50; PLSC's ResNet50
 * face backbone, resnet.py at 9bba9c9) as layers of the model's table
 * (table.h). Stem: conv 3x3 stride 1 (64) + BN + PReLU, no pooling. Four
 * stages of [3, 4, 14, 3] blocks of 64, 128, 256 and 512 filters; a block
 * is bn1 -> conv1 3x3 -> bn2 -> prelu -> conv2 3x3 (stride 2 in a stage's
 * first block) -> bn3, plus the identity, or a 1x1 conv + BN shortcut
 * (downsample) where the shape changes. Then bn2 -> flatten -> dropout ->
 * fc (c h w -> embedding, with bias) -> features (BN): the embedding.
 * PReLU has one slope per channel (insightface's nn.PReLU(planes); PLSC's
 * fluid prelu mode "all" shares one). Names and the parameters' order are
 * the state_dict's. Reads and writes nothing but the model.
 */
#include <stdio.h>

#include "iresnet.h"
#include "lib.h"
#include "table.h"

/*
 * One block. Its layers run bn1, conv1, bn2, prelu, conv2, then the
 * downsample's conv and BN, then bn3 with the residual add as one layer,
 * so that the add's inputs are both ready; bn3's parameters keep their
 * place before the downsample's, as in the state_dict. The block's input
 * feeds bn1 and the shortcut: backward reaches bn1 last, and its data
 * gradient adds to the shortcut's (arena.c sets 'accumulate').
 */
static int block(model *m, const char *prefix, int x, int planes, int stride)
{
	char name[64];
	int in = m->tensors[x].c, y;
	snprintf(name, sizeof name, "%s.bn1", prefix);
	y = table_bn(m, name, x, 0);
	snprintf(name, sizeof name, "%s.conv1", prefix);
	y = table_conv(m, name, y, planes, 3, 1, 1);
	snprintf(name, sizeof name, "%s.bn2", prefix);
	y = table_bn(m, name, y, 0);
	snprintf(name, sizeof name, "%s.prelu", prefix);
	y = table_prelu(m, name, y);
	snprintf(name, sizeof name, "%s.conv2", prefix);
	y = table_conv(m, name, y, planes, 3, stride, 1);
	size_t w3, stats3;
	table_bn_reserve(m, planes, &w3, &stats3);
	int id = x;
	if (stride != 1 || in != planes) {
		snprintf(name, sizeof name, "%s.downsample.0", prefix);
		id = table_conv(m, name, x, planes, 1, stride, 0);
		snprintf(name, sizeof name, "%s.downsample.1", prefix);
		id = table_bn(m, name, id, 0);
	}
	snprintf(name, sizeof name, "%s.bn3", prefix);
	return table_bn_at(m, name, L_BN_ADD, y, id, w3, stats3);
}

int iresnet_backbone(model *m, int x)
{
	if (m->image < 16)
		die_usage("--image: %d px is too small for iresnet50 (at least 16)", m->image);
	x = table_conv(m, "conv1", x, 64, 3, 1, 1);
	x = table_bn(m, "bn1", x, 0);
	x = table_prelu(m, "prelu", x);
	static const int blocks[4] = {3, 4, 14, 3};
	for (int s = 0; s < 4; s++) {
		for (int b = 0; b < blocks[s]; b++) {
			char prefix[32];
			snprintf(prefix, sizeof prefix, "layer%d.%d", s + 1, b);
			x = block(m, prefix, x, 64 << s, b == 0 ? 2 : 1);
		}
	}
	x = table_bn(m, "bn2", x, 0);
	x = table_flatten(m, "flatten", x);
	x = table_dropout(m, "dropout", x);
	x = table_fc(m, "fc", x, m->cfg.embedding);
	return table_bn(m, "features", x, 0);
}
