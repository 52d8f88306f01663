#!/usr/bin/python3
"""torch_profile.py — where a PyTorch training step's time goes on this CPU.

The other side of bench's --profile (doc/performance.md): the loop of
tests/perf/plain_torch.py (torchvision's resnet50, one fixed random batch,
SGD with momentum, bf16 autocast for amp), its step imported from there,
run under torch.profiler for the timed iterations after WARMUP. Prints, per kind of op, its self CPU time a step
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
import os
import sys
import time

from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plain_torch import training_step  # noqa: E402  the same loop, set up once

KINDS = (("conv", "convolution"), ("batch_norm", "batch_norm"))


def kind_of(name):
    for kind, key in KINDS:
        if key in name.lower():
            return kind
    return None


def main():
    batch, iters, warmup, step = training_step(sys.argv, "torch_profile.py")
    if warmup == 0:
        sys.exit("torch_profile.py: need 0 < WARMUP")
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
