#!/usr/bin/python3
"""plain_torch.py — a plain PyTorch training loop, outside the harness.

The reference `make perf-agree` holds the harness's PyTorch figure and
`make perf-cpu`'s against: torchvision's resnet50, one fixed random batch,
SGD with momentum, bf16 autocast for amp, timed with time.perf_counter
around the loop and nothing else (no log parsing, no launcher). Run it with
the same allocator, threads and layout as the figures it checks.

    plain_torch.py BATCH IMAGE fp32|amp ITERS WARMUP THREADS nchw|channels_last

Prints one line: images/s over the iterations after WARMUP (samples ÷ their
total time).
"""
import sys
import time

import torch
import torch.nn.functional as F
import torchvision


def training_step(argv, prog):
    """The loop's set-up from its command line: (batch, iters, warmup, step),
    step() one training step (tests/perf/torch_profile.py uses it too)."""
    if len(argv) != 8:
        sys.exit(f"usage: {prog} BATCH IMAGE fp32|amp ITERS WARMUP THREADS nchw|channels_last")
    batch, image = int(argv[1]), int(argv[2])
    amp = argv[3] in ("amp", "bf16")
    iters, warmup, threads = int(argv[4]), int(argv[5]), int(argv[6])
    if not 0 <= warmup < iters:
        sys.exit(f"{prog}: need 0 <= WARMUP < ITERS")
    fmt = torch.channels_last if argv[7] == "channels_last" else torch.contiguous_format
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

    return batch, iters, warmup, step


def main():
    batch, iters, warmup, step = training_step(sys.argv, "plain_torch.py")
    for it in range(iters):
        if it == warmup:
            t0 = time.perf_counter()
        step()
    print(f"{batch * (iters - warmup) / (time.perf_counter() - t0):.2f}")


if __name__ == "__main__":
    main()
