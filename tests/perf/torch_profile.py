#!/usr/bin/python3
"""torch_profile.py — where a PyTorch training step's time goes on this CPU.

The other side of bench's --profile (doc/speed.md): torchvision's resnet50,
one fixed random batch, SGD with momentum, bf16 autocast for amp, the same
loop as tests/perf/plain_torch.py, run under torch.profiler for the timed
iterations after WARMUP. Prints, per kind of op, its self CPU time a step
(the total over the timed steps divided by their number, in ms) and its
share of the step's wall time, then the mean step's wall time:

    kind=conv ms=<ms> share=<percent>
    kind=batch_norm ms=<ms> share=<percent>
    kind=rest ms=<ms> share=<percent>
    step ms=<ms> images_per_s=<rate>

conv is the self time of every aten op that runs a convolution (forward
and backward: oneDNN's kernels and what PyTorch does around them inside
the op), batch_norm the same for batch norm; rest is the step's wall time
less those two: ReLU, adds, pooling, the classifier, the loss, the update,
reorders between ops, autograd and Python. Run it as
plain_torch.py is run: /usr/bin/python3 with jemalloc preloaded and
MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1.

    torch_profile.py BATCH IMAGE fp32|amp ITERS WARMUP THREADS nchw|channels_last
"""
import sys
import time

import torch
import torch.nn.functional as F
import torchvision
from torch.profiler import ProfilerActivity, profile

KINDS = (("conv", "convolution"), ("batch_norm", "batch_norm"))


def kind_of(name):
    for kind, key in KINDS:
        if key in name.lower():
            return kind
    return None


def main():
    if len(sys.argv) != 8:
        sys.exit("usage: torch_profile.py BATCH IMAGE fp32|amp ITERS WARMUP THREADS "
                 "nchw|channels_last")
    batch, image = int(sys.argv[1]), int(sys.argv[2])
    amp = sys.argv[3] in ("amp", "bf16")
    iters, warmup, threads = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    if not 0 < warmup < iters:
        sys.exit("torch_profile.py: need 0 < WARMUP < ITERS")
    fmt = torch.channels_last if sys.argv[7] == "channels_last" else torch.contiguous_format
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = torchvision.models.resnet50().to(memory_format=fmt).train()
    x = torch.randn(batch, 3, image, image).to(memory_format=fmt)
    y = torch.randint(0, 1000, (batch,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss.item()

    for _ in range(warmup):
        step()
    n = iters - warmup
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        wall = (time.perf_counter() - t0) / n
    totals = {k: 0.0 for k, _ in KINDS}
    for ev in prof.key_averages():
        # self time: each microsecond counted once, in the op that spent it
        k = kind_of(ev.key)
        if k:
            totals[k] += ev.self_cpu_time_total / 1000.0 / n
    totals["rest"] = wall * 1000.0 - sum(totals.values())
    for k, ms in totals.items():
        print(f"kind={k} ms={ms:.1f} share={100.0 * ms / (wall * 1000.0):.1f}")
    print(f"step ms={wall * 1000.0:.1f} images_per_s={batch / wall:.2f}")


if __name__ == "__main__":
    main()
