"""torch_iresnet.py — bench's IResNet-50 and its heads in PyTorch: the net
tests/torch_reference.py checks bench against, and the one
pipelines/pytorch_synthetic.py --model iresnet50 times.

IResNet-50 as insightface's iresnet50 (recognition/arcface_torch/backbones/
iresnet.py): stem conv 3x3 + BN + PReLU; blocks of bn1, conv1, bn2, prelu,
conv2 (the stride), bn3 plus the identity or a 1x1 conv + BN downsample;
bn2, flatten, dropout, fc, features (BN). Two differences from insightface,
both bench's: the features BN's scale is trained (PLSC's), and dropout
takes a given mask (bench --export's dropout.u8) so that the two draw the
same (without one, torch's own dropout). The heads: a Linear classifier ("softmax"), or ArcFace as insightface's
ArcFace loss (cos(theta + m) on the target while cos(theta) > cos(pi - m),
else cos(theta) - m sin(pi - m); logits times s) over normalised embeddings
and weight rows, the cosines clamped to [-1, 1] as partial_fc_v2 does.
Parameter names and order are bench's manifest's (insightface's names, the
classifier "head").
"""
import math


def build(torch, image, classes, embedding, head, margin, scale, dropout):
    nn = torch.nn
    F = torch.nn.functional

    def conv3x3(cin, cout, stride=1):
        return nn.Conv2d(cin, cout, 3, stride, 1, bias=False)

    class Block(nn.Module):
        def __init__(self, cin, planes, stride):
            super().__init__()
            self.bn1 = nn.BatchNorm2d(cin, eps=1e-5)
            self.conv1 = conv3x3(cin, planes)
            self.bn2 = nn.BatchNorm2d(planes, eps=1e-5)
            self.prelu = nn.PReLU(planes)
            self.conv2 = conv3x3(planes, planes, stride)
            self.bn3 = nn.BatchNorm2d(planes, eps=1e-5)
            self.downsample = None
            if stride != 1 or cin != planes:
                self.downsample = nn.Sequential(nn.Conv2d(cin, planes, 1, stride, bias=False),
                                                nn.BatchNorm2d(planes, eps=1e-5))

        def forward(self, x):
            out = self.bn3(self.conv2(self.prelu(self.bn2(self.conv1(self.bn1(x))))))
            return out + (self.downsample(x) if self.downsample is not None else x)

    class ArcFace(nn.Module):
        def __init__(self, e, k):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(k, e))
            self.in_features = e  # as nn.Linear's: the FLOP count reads it
            self.cos_m, self.sin_m = math.cos(margin), math.sin(margin)
            self.th = math.cos(math.pi - margin)
            self.mm = math.sin(math.pi - margin) * margin

        def forward(self, x, y):
            cos = (F.normalize(x) @ F.normalize(self.weight).t()).clamp(-1, 1)
            onehot = F.one_hot(y, cos.shape[1]).to(cos.dtype)
            t = (cos * onehot).sum(1)
            sin = torch.sqrt(1.0 - t * t)
            phi = torch.where(t > self.th, t * self.cos_m - sin * self.sin_m, t - self.mm)
            return scale * (cos + onehot * (phi - t).unsqueeze(1))

    class IResNet50(nn.Module):
        needs_labels = True

        def __init__(self):
            super().__init__()
            self.conv1 = conv3x3(3, 64)
            self.bn1 = nn.BatchNorm2d(64, eps=1e-5)
            self.prelu = nn.PReLU(64)
            cin = 64
            for s, (planes, n) in enumerate(zip((64, 128, 256, 512), (3, 4, 14, 3))):
                blocks = []
                for b in range(n):
                    blocks.append(Block(cin, planes, 2 if b == 0 else 1))
                    cin = planes
                setattr(self, f"layer{s + 1}", nn.Sequential(*blocks))
            side = image
            for _ in range(4):
                side = (side - 1) // 2 + 1
            self.bn2 = nn.BatchNorm2d(512, eps=1e-5)
            self.fc = nn.Linear(512 * side * side, embedding)
            self.features = nn.BatchNorm1d(embedding, eps=1e-5)
            self.head = ArcFace(embedding, classes) if head == "arcface" \
                else nn.Linear(embedding, classes)
            self.mask = None  # [batch][features]: 1 keep, 0 drop

        def forward(self, x, y):
            x = self.prelu(self.bn1(self.conv1(x)))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            x = torch.flatten(self.bn2(x), 1)
            if self.mask is not None:
                x = x * self.mask.to(x.dtype) / (1.0 - dropout)
            else:
                x = F.dropout(x, dropout, self.training)
            e = self.features(self.fc(x))
            return self.head(e, y) if head == "arcface" else self.head(e)

    return IResNet50()
