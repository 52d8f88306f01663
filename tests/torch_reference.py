#!/usr/bin/python3
"""torch_reference.py — check one training step of bench against PyTorch.

usage: torch_reference.py [--precision fp32|amp] [--lr X] [--momentum X]
                          [--weight-decay X] [--label-smoothing X]
                          [--model resnet50|iresnet50] [--head softmax|arcface]
                          [--margin M] [--scale S] [--dropout P]
                          [--dtype float64|float32] [--threads T] DIR
       torch_reference.py --make-export DIR [--batch B] [--image PX]
                          [--classes K] [--seed S] [hyper-parameters]

Reads DIR as written by `bench --export DIR` (doc/correctness.md): manifest.tsv
(name, shape like 64x3x7x7, offset, count; one line per parameter tensor),
params.f32, input.f32 (NCHW), labels.i32, logits.f32, loss.txt, grads.f32,
params_after.f32. Batch, image size and classes follow from the files.

Builds torchvision's resnet50(num_classes=K) in train mode (or, with --model
iresnet50, bench's IResNet-50 with its softmax or ArcFace head, as
pipelines/torch_iresnet.py writes it, dropping what DIR/dropout.u8 says), loads
bench's initial parameters by name, runs forward, cross-entropy and backward — in
float64 by default, so that the errors measured are bench's, not torch's —
then one torch.optim.SGD step with bench's hyper-parameters (weight decay on
convolution and fc weights only, none on BN parameters and biases; first step
buf = grad). The hyper-parameter flags must be the ones bench was run with.

Checks (fp32; amp = bench in bf16 with fp32 master weights). "Yardstick" is
PyTorch itself at bench's precision (float32, or bf16 autocast) on the same
step, measured against the same float64 reference:
  logits   max|l_b - l_t| / max|l_t|    <= max(1e-4 (amp 5e-2), 3 x yardstick's)
  loss     |L_b - L_t| / |L_t|          <= max(1e-4 (amp 5e-2), 3 x yardstick's)
  grad     ||g_b - g_t|| / ||g_t||      <= max(1e-3 (amp 1e-1), 3 x the yardstick's
           worst over the tensor and its 3 neighbours either side), per tensor.
           Where that bound reaches 1 (bf16: the yardstick's gradients do not
           agree with float64 in direction at all), the gradient norms are
           compared instead: | ||g_b|| / ||g_t|| - 1 | per tensor <= 2 x the
           yardstick's worst, and its median <= 3 x the yardstick's median.
  update   ||p1_b - p1_t|| <= tol_grad * ||p1_t - p0|| + 2 eps32 ||p1_t||
           per tensor: the step is linear in the gradient, so its error is
           the gradient's error carried by lr, plus the float32 rounding of
           storing p1 (half an ulp per element) and of bench's own arithmetic.
           A plain ||p1_b - p1_t|| / ||p1_t|| <= 1e-4 would pass a missing
           weight decay (lr * wd = 1e-5 of the weights); this does not.
  sgd      bench's step with bench's own gradients, element by element:
           |p1_b - (p0 - lr (g_b + wd p0))| <= 4 eps32 (|p0| + lr |g_b| + lr wd |p0|)
           — the optimizer alone, to float32 rounding.
Why a yardstick and not the fixed 1e-3: a random-init ResNet50's gradient is
a discontinuous function of its activations (ReLU and max-pool masks). A
relative perturbation d of the forward flips ~d of the masks and moves the
gradients by ~sqrt(d): PyTorch's own float32 gradients are 1e-2 .. 9e-2 from
float64 (measured: 64 px batch 4, 32 px, 224 px; the same when float64 is
perturbed by 1e-7 noise at every convolution output), bf16 autocast's ~1.
--strict applies the fixed tolerances alone. A configuration where the
yardstick misses float64 by more than 1e-2 in the logits or 1e-3 in the loss
(amp: 1, 0.25) is refused (exit 1): there any answer would pass.

Prints one line per mismatching tensor on stderr and a summary (worst errors)
on stdout. Exit 0: all within tolerance; 1: a mismatch or a malformed export;
2: usage; 77: torch or torchvision cannot be imported (a skip, not a pass).

--make-export writes such a DIR from torch itself (float32, NCHW): a fixture
to test this script without bench.
"""
import argparse
import math
import os
import sys

PROG = "torch_reference"
EPS32 = 2.0 ** -23

TOL = {  # precision -> (logits, loss, grad)
    "fp32": (1e-4, 1e-4, 1e-3),
    "amp": (5e-2, 5e-2, 1e-1),
}


def die(msg, code=1):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_args():
    def number(lo):
        def parse(s):
            try:
                v = float(s)
            except ValueError:
                raise argparse.ArgumentTypeError(f"not a number: {s!r}")
            if not (lo <= v < math.inf):
                raise argparse.ArgumentTypeError(f"{s} out of range")
            return v
        return parse

    def integer(lo, hi):
        def parse(s):
            try:
                v = int(s, 10)
            except ValueError:
                raise argparse.ArgumentTypeError(f"not an integer: {s!r}")
            if not lo <= v <= hi:
                raise argparse.ArgumentTypeError(f"{v} out of range [{lo}, {hi}]")
            return v
        return parse

    p = argparse.ArgumentParser(prog=PROG, description="compare bench --export DIR with PyTorch")
    p.add_argument("dir", nargs="?", help="bench --export directory")
    p.add_argument("--precision", choices=("fp32", "amp"), default="fp32")
    p.add_argument("--lr", type=number(0), default=0.1)
    p.add_argument("--momentum", type=number(0), default=0.9)
    p.add_argument("--weight-decay", type=number(0), default=1e-4)
    p.add_argument("--label-smoothing", type=number(0), default=0.0)
    p.add_argument("--model", choices=("resnet50", "iresnet50"), default="resnet50")
    p.add_argument("--head", choices=("softmax", "arcface"), default="softmax")
    p.add_argument("--margin", type=number(0), default=0.5)
    p.add_argument("--scale", type=number(0), default=64.0)
    p.add_argument("--dropout", type=number(0), default=0.4)
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                   help="reference precision (default float64)")
    p.add_argument("--threads", type=integer(1, 4096), default=None)
    p.add_argument("--strict", action="store_true",
                   help="fixed tolerances only, not 3 x PyTorch's own error")
    p.add_argument("--make-export", metavar="DIR", help="write a fixture DIR from torch")
    p.add_argument("--batch", type=integer(1, 4096), default=4)
    p.add_argument("--image", type=integer(32, 1024), default=64)
    p.add_argument("--classes", type=integer(2, 100000), default=10)
    p.add_argument("--seed", type=integer(0, 2**31 - 1), default=1)
    a = p.parse_args()
    if a.label_smoothing >= 1:
        p.error("argument --label-smoothing: must be < 1")
    if (a.dir is None) == (a.make_export is None):
        p.error("give either DIR or --make-export DIR")
    if a.head == "arcface" and a.model != "iresnet50":
        p.error("argument --head: arcface only with --model iresnet50")
    if a.make_export and a.model != "resnet50":
        p.error("argument --make-export: resnet50 only")
    return a


# --- the export ------------------------------------------------------------


def read_manifest(path):
    entries = []
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        die(f"{path}: {e.strerror}")
    with f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t") if "\t" in line else line.split()
            if len(fields) != 4:
                die(f"{path}:{n}: want 4 fields (name, shape, offset, count), got {len(fields)}")
            name, shape, off, cnt = fields
            try:
                dims = tuple(int(d) for d in shape.split("x"))
                off, cnt = int(off), int(cnt)
            except ValueError:
                die(f"{path}:{n}: malformed shape, offset or count: {line!r}")
            if any(d <= 0 for d in dims) or off < 0 or cnt != math.prod(dims):
                die(f"{path}:{n}: {name}: shape {shape} does not hold {cnt} elements")
            entries.append((name, dims, off, cnt, n))
    if not entries:
        die(f"{path}: no tensors")
    return entries


def read_array(np, path, dtype):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    size = np.dtype(dtype).itemsize
    if len(data) % size:
        die(f"{path}: {len(data)} bytes is not a whole number of {size}-byte values")
    return np.frombuffer(data, dtype=dtype).copy()


def load_export(np, d):
    ex = {}
    ex["manifest"] = read_manifest(os.path.join(d, "manifest.tsv"))
    for key, fname, dt in (("params", "params.f32", "<f4"), ("input", "input.f32", "<f4"),
                           ("labels", "labels.i32", "<i4"), ("logits", "logits.f32", "<f4"),
                           ("grads", "grads.f32", "<f4"),
                           ("params_after", "params_after.f32", "<f4")):
        ex[key] = read_array(np, os.path.join(d, fname), dt)
    path = os.path.join(d, "loss.txt")
    try:
        with open(path, encoding="utf-8") as f:
            ex["loss"] = float(f.read().strip())
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except ValueError:
        die(f"{path}: not a number")

    n = ex["params"].size
    for key in ("grads", "params_after"):
        if ex[key].size != n:
            die(f"{d}: {key}.f32 has {ex[key].size} values, params.f32 {n}")
    for name, dims, off, cnt, line in ex["manifest"]:
        if off + cnt > n:
            die(f"{d}/manifest.tsv:{line}: {name} ends at {off + cnt}, past params.f32 ({n})")
    batch = ex["labels"].size
    if batch == 0:
        die(f"{d}/labels.i32: empty")
    px2, rem = divmod(ex["input"].size, 3 * batch)
    px = math.isqrt(px2)
    if rem or px * px != px2:
        die(f"{d}/input.f32: {ex['input'].size} values is not {batch} x 3 x PX x PX")
    classes, rem = divmod(ex["logits"].size, batch)
    if rem or classes == 0:
        die(f"{d}/logits.f32: {ex['logits'].size} values is not {batch} x classes")
    if ex["labels"].min() < 0 or ex["labels"].max() >= classes:
        die(f"{d}/labels.i32: label out of range [0, {classes})")
    ex["batch"], ex["image"], ex["classes"] = batch, px, classes
    return ex


# --- torch -----------------------------------------------------------------


def param_groups(model, wd):
    """Weight decay on convolution and fc weights only."""
    decay = [p for p in model.parameters() if p.dim() > 1]
    no_decay = [p for p in model.parameters() if p.dim() <= 1]
    return [{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}]


def load_dropout(np, d, ex, args):
    """iresnet50: the mask of bench's dropout, [batch][features] of 0 or 1."""
    if args.model != "iresnet50":
        return
    side = ex["image"]
    for _ in range(4):
        side = (side - 1) // 2 + 1
    f = 512 * side * side
    mask = read_array(np, os.path.join(d, "dropout.u8"), "u1")
    if mask.size != ex["batch"] * f or mask.max(initial=0) > 1:
        die(f"{d}/dropout.u8: want {ex['batch']} x {f} bytes of 0 or 1, got {mask.size}")
    ex["dropout"] = mask.reshape(ex["batch"], f)


def new_model(torch, torchvision, ex, args):
    if args is None or args.model == "resnet50":
        return torchvision.models.resnet50(num_classes=ex["classes"])
    import torch_iresnet
    emb = next(dims[0] for name, dims, _, _, _ in ex["manifest"] if name == "fc.weight")
    model = torch_iresnet.build(torch, ex["image"], ex["classes"], emb, args.head, args.margin,
                                args.scale, args.dropout)
    model.mask = torch.from_numpy(ex["dropout"])
    return model


def build_model(torch, torchvision, ex, dtype, args=None):
    """The net of ex with its parameters; args None: resnet50 (callers that
    load this file as a module, tests/bench-cuda.bats)."""
    model = new_model(torch, torchvision, ex, args).to(dtype)
    model.train()
    named = dict(model.named_parameters())
    seen = set()
    for name, dims, off, cnt, line in ex["manifest"]:
        if name not in named:
            die(f"manifest.tsv:{line}: {name}: not a parameter of "
                f"{args.model if args else 'resnet50'}")
        if name in seen:
            die(f"manifest.tsv:{line}: {name}: listed twice")
        seen.add(name)
        if tuple(named[name].shape) != dims:
            die(f"manifest.tsv:{line}: {name}: shape {'x'.join(map(str, dims))}, "
                f"torch has {'x'.join(map(str, named[name].shape))}")
        with torch.no_grad():
            named[name].copy_(torch.from_numpy(ex["params"][off:off + cnt]).view(dims))
    missing = [n for n in named if n not in seen]
    if missing:
        die(f"manifest.tsv: {len(missing)} parameters missing, first {missing[0]}")
    return model


def train_step(torch, F, model, x, y, args, autocast=False):
    model.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        logits = model(x, y) if getattr(model, "needs_labels", False) else model(x)
        loss = F.cross_entropy(logits, y, label_smoothing=args.label_smoothing)
    loss.backward()
    return logits.detach().double(), loss.item()


def make_export(torch, torchvision, F, np, args):
    """A fixture DIR written by torch in float32, laid out as bench's export."""
    d = args.make_export
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(args.seed)
    model = torchvision.models.resnet50(num_classes=args.classes)
    model.train()
    x = torch.randn(args.batch, 3, args.image, args.image)
    y = torch.randint(0, args.classes, (args.batch,), dtype=torch.int32)
    rows, flat, off = [], [], 0
    for name, p in model.named_parameters():
        rows.append(f"{name}\t{'x'.join(map(str, p.shape))}\t{off}\t{p.numel()}\n")
        flat.append(p.detach().reshape(-1).clone())
        off += p.numel()
    params = torch.cat(flat)
    logits, loss = train_step(torch, F, model, x, y.long(), args)
    grads = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
    opt = torch.optim.SGD(param_groups(model, args.weight_decay), lr=args.lr,
                          momentum=args.momentum)
    opt.step()
    after = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    with open(os.path.join(d, "manifest.tsv"), "w", encoding="utf-8") as f:
        f.writelines(rows)
    for fname, t, dt in (("params.f32", params, "<f4"), ("input.f32", x, "<f4"),
                         ("labels.i32", y, "<i4"), ("logits.f32", logits, "<f4"),
                         ("grads.f32", grads, "<f4"), ("params_after.f32", after, "<f4")):
        t.numpy().astype(dt).tofile(os.path.join(d, fname))
    with open(os.path.join(d, "loss.txt"), "w", encoding="utf-8") as f:
        f.write(f"{loss:.9g}\n")


# --- comparison ------------------------------------------------------------


def norm_rel(np, a, b):
    """||a - b|| / ||b||, or ||a - b|| when b is zero; inf when a is not finite."""
    if not np.all(np.isfinite(a)):
        return math.inf
    nb = float(np.linalg.norm(b))
    d = float(np.linalg.norm(a - b))
    return d / nb if nb > 0 else d


def main():
    args = parse_args()
    try:
        import numpy as np
        import torch
        import torch.nn.functional as F
        import torchvision
    except ImportError as e:
        print(f"{PROG}: cannot import torch/torchvision/numpy ({e}): skipped", file=sys.stderr)
        sys.exit(77)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)

    if args.make_export:
        make_export(torch, torchvision, F, np, args)
        return

    ex = load_export(np, args.dir)
    load_dropout(np, args.dir, ex, args)
    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    B, PX, K = ex["batch"], ex["image"], ex["classes"]
    tol_logits, tol_loss, tol_grad = TOL[args.precision]
    amp = args.precision == "amp"

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "pipelines"))
    model = build_model(torch, torchvision, ex, dtype, args)
    x = torch.from_numpy(ex["input"]).view(B, 3, PX, PX)
    y = torch.from_numpy(ex["labels"]).long()
    logits_t, loss_t = train_step(torch, F, model, x.to(dtype), y, args)
    logits_t = logits_t.numpy().reshape(-1)
    names = [e[0] for e in ex["manifest"]]
    named = dict(model.named_parameters())
    p0 = {n: named[n].detach().double().numpy().reshape(-1).copy() for n in names}
    g_t = {n: named[n].grad.double().numpy().reshape(-1).copy() for n in names}
    opt = torch.optim.SGD(param_groups(model, args.weight_decay), lr=args.lr,
                          momentum=args.momentum)
    opt.step()
    p1_t = {n: named[n].detach().double().numpy().reshape(-1).copy() for n in names}

    # The yardstick: torch itself at bench's precision (float32, or bf16
    # autocast) on the same step. A random-init ResNet50's gradient is a
    # discontinuous function of its activations (ReLU and max-pool masks): a
    # relative perturbation d of the forward flips ~d of the masks and moves
    # every gradient by ~sqrt(d). Float32 rounding (d ~ 1e-5 after 50 layers)
    # so moves PyTorch's own float32 gradients by 1e-2 .. 3e-2 from float64,
    # and bf16 autocast's by ~1 (no agreement at all). No implementation can
    # meet a fixed 1e-3 here; bench is held to max(fixed tolerance, 3 x
    # PyTorch's own error), tensor by tensor. --strict keeps the fixed ones.
    m_y = build_model(torch, torchvision, ex, torch.float32, args)
    logits_y, loss_y = train_step(torch, F, m_y, x, y, args, autocast=amp)
    logits_y = logits_y.numpy().reshape(-1)
    named_y = dict(m_y.named_parameters())
    g_y = {n: named_y[n].grad.double().numpy().reshape(-1) for n in names}
    slack = 0.0 if args.strict else 3.0
    yard = "PyTorch bf16 autocast" if amp else "PyTorch float32"

    def max_rel(a, b):
        if not np.all(np.isfinite(a)):
            return math.inf
        return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))

    # Where torch's own float32 (or bf16) misses float64 by this much, any
    # answer would pass: refuse rather than pass (e.g. batch 2 at 32 px, whose
    # last batch norms see 2 values per channel).
    guard_logits, guard_loss = (1e-2, 1e-3) if not amp else (1.0, 0.25)
    if not (max_rel(logits_y, logits_t) <= guard_logits and
            abs(loss_y - loss_t) <= guard_loss * abs(loss_t)):
        die(f"{yard} itself misses float64 by {max_rel(logits_y, logits_t):.2e} in the logits "
            f"and {abs(loss_y - loss_t) / abs(loss_t):.2e} in the loss (limits "
            f"{guard_logits:.0e}, {guard_loss:.0e}): too ill-conditioned to compare; "
            "use a larger batch or image")

    fails = 0
    skipped = []

    def fail(what, err, tol):
        nonlocal fails
        fails += 1
        print(f"{PROG}: {what}: error {err:.3e} > {tol:.3e}", file=sys.stderr)

    # Logits: relative to the largest logit, a per-element relative error is
    # meaningless for logits near zero.
    lb = ex["logits"].astype(np.float64)
    e_logits, y_logits = max_rel(lb, logits_t), max_rel(logits_y, logits_t)
    t_logits = max(tol_logits, slack * y_logits)
    if not e_logits <= t_logits:
        fail("logits (max-relative)", e_logits, t_logits)
    e_loss = abs(ex["loss"] - loss_t) / abs(loss_t) if loss_t else abs(ex["loss"])
    y_loss = abs(loss_y - loss_t) / abs(loss_t) if loss_t else abs(loss_y)
    t_loss = max(tol_loss, slack * y_loss)
    if not e_loss <= t_loss:
        fail(f"loss {ex['loss']:.7g} vs torch {loss_t:.7g} (relative)", e_loss, t_loss)

    worst = {k: (0.0, 0.0, "-") for k in ("grad", "norm", "update", "param", "sgd")}

    def note(kind, err, yardstick, name):
        if not err <= worst[kind][0]:
            worst[kind] = (err, yardstick, name)

    # A gradient zero in exact arithmetic (IResNet's: a BN bias whose every
    # reader is another batch norm, which a shift does not change) is
    # rounding noise in float64 too, 1e-8 of the median tensor's norm and
    # less: it has no direction to compare. Its norm is held to 3 x the
    # yardstick's noise or 1e-5 of the median norm, the larger (float32's
    # noise there: 1e-7 .. 2e-6 of it, bench's 1 to 2 x the yardstick's; an
    # error, a term left out, is of the order of the median), and it is left
    # out of its neighbours' floors. ResNet50 has none.
    gt_norms = {n: float(np.linalg.norm(g_t[n])) for n in names}
    median_norm = float(np.median(list(gt_norms.values())))
    null = {n for n in names if gt_norms[n] <= 1e-8 * median_norm}
    # The yardstick's error of one tensor is one draw of that noise.
    ey_of, ry_of = {}, {}
    for n in names:
        gt_norm = gt_norms[n]
        ey_of[n] = norm_rel(np, g_y[n], g_t[n])
        ry_of[n] = abs(float(np.linalg.norm(g_y[n])) / gt_norm - 1) if gt_norm > 0 else 0.0
    floor_e = float(np.median([ey_of[n] for n in names if n not in null]))
    # The noise grows from the output back to the input and comes in lumps
    # (one flipped mask moves a tensor, or not): a tensor's floor is the
    # yardstick's worst over its neighbours, 3 tensors either side in
    # manifest order.
    ey_list = [ey_of[n] for n in names if n not in null]
    pos = {n: i for i, n in enumerate(n for n in names if n not in null)}
    local_e = {n: max(ey_list[max(0, pos[n] - 3):pos[n] + 4]) for n in pos}
    floor_r = float(np.median([ry_of[n] for n in pos]))
    max_r = max(ry_of[n] for n in pos)
    norm_errs = []
    worst_null = (0.0, "-")

    wd_of = {n: (args.weight_decay if named[n].dim() > 1 else 0.0) for n in names}
    for name, dims, off, cnt, line in ex["manifest"]:
        g_b = ex["grads"][off:off + cnt].astype(np.float64)
        p1_b = ex["params_after"][off:off + cnt].astype(np.float64)
        p0_b = ex["params"][off:off + cnt].astype(np.float64)
        gt_norm = float(np.linalg.norm(g_t[name]))

        e, ey = norm_rel(np, g_b, g_t[name]), ey_of[name]
        if name in null:
            nb = float(np.linalg.norm(g_b)) if np.all(np.isfinite(g_b)) else math.inf
            t_null = max(slack * float(np.linalg.norm(g_y[name])), 1e-5 * median_norm)
            if not nb / t_null <= worst_null[0]:
                worst_null = (nb / t_null, name)
            if not nb <= t_null:
                fail(f"grad {name} (zero in exact arithmetic; norm)", nb, t_null)
            tol = 0.0
        else:
            tol = max(tol_grad, slack * local_e[name])
        if name in null:
            pass
        elif tol < 1:
            note("grad", e, ey, name)
            if not e <= tol:
                fail(f"grad {name} (norm-relative; {yard} {ey:.2e}, neighbours {local_e[name]:.2e})",
                     e, tol)
        else:
            # Even the yardstick does not agree with float64 in direction (bf16):
            # compare the norms, which catches scaling errors (batch mean, loss
            # scale, label smoothing). Where directions are compared, this is
            # implied: | ||a|| / ||b|| - 1 | <= ||a - b|| / ||b||.
            skipped.append(name)
            if np.all(np.isfinite(g_b)) and gt_norm > 0:
                r = abs(float(np.linalg.norm(g_b)) / gt_norm - 1)
            else:
                r = math.inf if not np.all(np.isfinite(g_b)) else float(np.linalg.norm(g_b))
            # Each norm is one noisy draw: a tensor is held to twice the
            # yardstick's worst, and the median over tensors (after the loop)
            # to 3 x the yardstick's median, which catches a systematic error.
            ry = ry_of[name]
            t_norm = max(tol_grad, (slack * 2 / 3) * max_r)
            note("norm", r, ry, name)
            norm_errs.append(r)
            if not r <= t_norm:
                fail(f"grad {name} norm ratio - 1 ({yard} {ry:.2e}, worst {max_r:.2e})",
                     r, t_norm)

        # Update against torch's step: the gradient's tolerance carried by the
        # step, plus float32 rounding of the stored weights (a null gradient:
        # its norm bound above; the step alone is checked below).
        if tol < 1 and name not in null:
            d = float(np.linalg.norm(p1_b - p1_t[name])) if np.all(np.isfinite(p1_b)) \
                else math.inf
            bound = tol * float(np.linalg.norm(p1_t[name] - p0[name])) \
                + 2 * EPS32 * float(np.linalg.norm(p1_t[name]))
            r = d / bound if bound > 0 else (0.0 if d == 0 else math.inf)
            note("update", r, 0.0, name)
            if not r <= 1:
                fail(f"params_after {name}: {d:.3e} from torch's step, allowed {bound:.3e}; "
                     "ratio", r, 1)
        if name not in null:
            note("param", norm_rel(np, p1_b, p1_t[name]), 0.0, name)

        # The optimizer alone, on bench's own gradients.
        lr, wd = args.lr, wd_of[name]
        ref = p0_b - lr * (g_b + wd * p0_b)
        allow = 4 * EPS32 * (np.abs(p0_b) + lr * np.abs(g_b) + lr * wd * np.abs(p0_b)) + 1e-37
        q = np.abs(p1_b - ref) / allow
        ratio = float(np.max(q)) if np.all(np.isfinite(q)) else math.inf
        note("sgd", ratio, 0.0, name)
        if not ratio <= 1:
            i = int(np.nanargmax(q)) if np.any(np.isfinite(q)) else 0
            fail(f"sgd {name}: element {i} is {p1_b[i]:.9g}, p0 - lr (g + wd p0) = "
                 f"{ref[i]:.9g}; ratio to 4 ulp", ratio, 1)

    if norm_errs:
        med_b = float(np.median(norm_errs))
        med_y = float(np.median([ry_of[n] for n in skipped]))
        t_med = max(tol_grad, slack * med_y)
        if not med_b <= t_med:
            fail(f"grad norm ratio - 1, median over {len(norm_errs)} tensors ({yard} "
                 f"{med_y:.2e})", med_b, t_med)
    w = worst
    print(f"{PROG}: bench {args.precision} vs PyTorch {args.dtype}, yardstick {yard}"
          f"{' (strict)' if args.strict else ''}: batch {B}, image {PX}, classes {K}, "
          f"{len(names)} tensors, {fails} mismatches")
    print(f"  logits  max-relative {e_logits:.3e}  yardstick {y_logits:.3e}  tol {t_logits:.2e}")
    print(f"  loss    relative     {e_loss:.3e}  yardstick {y_loss:.3e}  tol {t_loss:.2e}"
          f"  (bench {ex['loss']:.7g}, torch {loss_t:.7g})")
    print(f"  grad    worst norm-relative {w['grad'][0]:.3e}  yardstick {w['grad'][1]:.3e}  "
          f"{w['grad'][2]}; yardstick median {floor_e:.3e}; "
          f"{len(names) - len(skipped) - len(null)} compared in direction")
    if skipped:
        print(f"  norm    worst |ratio - 1| {w['norm'][0]:.3e}  yardstick {w['norm'][1]:.3e}  "
              f"{w['norm'][2]}; median {med_b:.3e}  yardstick {med_y:.3e}; {len(skipped)} "
              "tensors compared in norm only (the yardstick's direction is off by >= 1/3)")
    if null:
        print(f"  null    {len(null)} gradients zero in exact arithmetic; worst norm over its "
              f"bound {worst_null[0]:.3f} (<= 1) {worst_null[1]}")
    print(f"  update  worst ratio to bound {w['update'][0]:.3f} (<= 1) {w['update'][2]}; "
          f"params_after worst norm-relative {w['param'][0]:.3e} {w['param'][2]}")
    print(f"  sgd     worst ratio to 4 ulp {w['sgd'][0]:.3f} (<= 1) {w['sgd'][2]}")
    try:
        sys.stdout.flush()
    except OSError as e:
        die(f"stdout: {e.strerror}")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
