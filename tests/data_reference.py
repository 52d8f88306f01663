"""tests/data_reference.py: torchvision's and PIL's side of tests/data.bats.

  crop N SEED DRAWS EXPECTED   N images of assorted shapes; torchvision's
                               RandomResizedCrop.get_params run on draws we
                               choose, written to DRAWS ("W H d1 d2 ..." a line,
                               the draws in the order torch makes them) with
                               its boxes in EXPECTED ("top left height width")
  stats W H N SEED BOXES       bench's boxes (BOXES, from data-check boxes)
                               against torchvision's own N draws: scale and
                               ratio ranges, means and the fallback's share
  sample OUT FILE PX           bench's sample (OUT, from data-check sample)
                               against PIL: open, crop, resize bilinear, flip,
                               ToTensor, Normalize; prints the largest and the
                               mean difference in levels of 255
"""
import math
import random
import sys

import struct
import torch
from PIL import Image
from torchvision import transforms

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def crop(n, seed, draws_path, expected_path):
    rng = random.Random(seed)
    shapes = [(500, 375), (375, 500), (500, 333), (1, 1), (3, 200), (2000, 60), (60, 2000),
              (10, 10), (640, 480), (100, 99)]
    real_empty, real_randint = torch.empty, torch.randint
    log = []

    class Fake:
        def uniform_(self, lo, hi):
            v = f32(float(lo) + (float(hi) - float(lo)) * rng.random())
            log.append(repr(v))
            return torch.tensor([v], dtype=torch.float32)

    def fake_empty(*a, **k):
        return Fake()

    def fake_randint(lo, hi, size=None, **k):
        v = rng.randrange(lo, hi)
        log.append(str(v))
        return torch.tensor([v])

    with open(draws_path, "w") as dr, open(expected_path, "w") as ex:
        for k in range(n):
            w, h = shapes[k] if k < len(shapes) else (rng.randint(1, 1200), rng.randint(1, 1200))
            log.clear()
            torch.empty, torch.randint = fake_empty, fake_randint
            try:
                i, j, hh, ww = transforms.RandomResizedCrop.get_params(
                    Image.new("RGB", (w, h)), (0.08, 1.0), (3.0 / 4.0, 4.0 / 3.0))
            finally:
                torch.empty, torch.randint = real_empty, real_randint
            dr.write("%d %d %s\n" % (w, h, " ".join(log)))
            ex.write("%d %d %d %d\n" % (i, j, hh, ww))


def summary(boxes, w, h):
    """scale and log ratio of each box, and the share of the fallback's box"""
    t = torch.tensor(boxes, dtype=torch.float64)
    scale = t[:, 2] * t[:, 3] / (w * h)
    logr = torch.log(t[:, 3] / t[:, 2])
    # the fallback's box: what ten failed tries give (an image too thin for any)
    fb = fallback_box(w, h)
    share = sum(1 for b in boxes if tuple(b) == fb) / len(boxes)
    return scale, logr, share


def fallback_box(w, h):
    in_ratio = w / h
    if in_ratio < 3 / 4:
        ww, hh = w, int(round(w / (3 / 4)))
    elif in_ratio > 4 / 3:
        hh, ww = h, int(round(h * (4 / 3)))
    else:
        ww, hh = w, h
    return ((h - hh) // 2, (w - ww) // 2, hh, ww)


def stats(w, h, n, seed, boxes_path):
    torch.manual_seed(seed)
    img = Image.new("RGB", (w, h))
    tv = [transforms.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3))
          for _ in range(n)]
    ours = [tuple(map(int, line.split())) for line in open(boxes_path)]
    s1, r1, f1 = summary(tv, w, h)
    s2, r2, f2 = summary(ours, w, h)
    for name, s, r, f in (("torchvision", s1, r1, f1), ("bench", s2, r2, f2)):
        print("%-11s scale %.4f..%.4f mean %.4f  log ratio %.4f..%.4f mean %.4f  fallback %.4f"
              % (name, s.min(), s.max(), s.mean(), r.min(), r.max(), r.mean(), f))
    bad = []
    if any(b[0] < 0 or b[1] < 0 or b[0] + b[2] > h or b[1] + b[3] > w or b[2] < 1 or b[3] < 1
           for b in ours):
        bad.append("a box outside the image")
    # a box is whole pixels: its scale and ratio are the drawn ones rounded
    px = 1.0 / min(w, h)
    if s2.min() < s1.min() - 4 * px or s2.max() > 1.0 + 1e-12:
        bad.append("scale outside torchvision's range")
    if r2.min() < min(r1.min(), math.log(3 / 4)) - 4 * px or \
            r2.max() > max(r1.max(), math.log(4 / 3)) + 4 * px:
        bad.append("ratio outside torchvision's range")
    for name, a, c in (("scale", s1, s2), ("log ratio", r1, r2)):
        se = math.sqrt(a.var().item() / len(a) + c.var().item() / len(c))
        if abs(a.mean().item() - c.mean().item()) > 4 * se + 1e-12:
            bad.append("%s means differ" % name)
    se = math.sqrt(f1 * (1 - f1) / n + f2 * (1 - f2) / len(ours))
    if abs(f1 - f2) > 4 * se + 1e-9:
        bad.append("fallback shares differ")
    if bad:
        print("; ".join(bad))
        sys.exit(1)


def sample(out_path, path, px):
    with open(out_path) as f:
        top, left, h, w, flip, scale = map(int, f.readline().split())
        ours = torch.tensor([float(x) for x in f], dtype=torch.float64).reshape(3, px, px)
    img = Image.open(path).convert("RGB")
    t = transforms.functional.resized_crop(img, top, left, h, w, [px, px],
                                           transforms.InterpolationMode.BILINEAR)
    if flip:
        t = transforms.functional.hflip(t)
    ref = transforms.functional.normalize(transforms.functional.to_tensor(t), MEAN, STD)
    levels = (ours - ref.double()).abs() * torch.tensor(STD, dtype=torch.float64).reshape(3, 1, 1)
    levels *= 255.0
    print("scale %d/8 box %d %d %d %d flip %d max %.3f mean %.4f"
          % (scale, top, left, h, w, flip, levels.max().item(), levels.mean().item()))


def main():
    a = sys.argv[1:]
    if a[0] == "crop":
        crop(int(a[1]), int(a[2]), a[3], a[4])
    elif a[0] == "stats":
        stats(int(a[1]), int(a[2]), int(a[3]), int(a[4]), a[5])
    elif a[0] == "sample":
        sample(a[1], a[2], int(a[3]))
    else:
        sys.exit("usage: data_reference.py crop|stats|sample ...")


if __name__ == "__main__":
    main()
