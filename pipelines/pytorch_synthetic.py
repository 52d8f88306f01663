#!/usr/bin/python3
"""pytorch_synthetic.py — train torchvision's resnet50 on synthetic data, log like bench.

--model iresnet50 [--head arcface] trains bench's IResNet-50 with its softmax
or ArcFace head instead (pipelines/torch_iresnet.py, the net bench is checked
against: 112 px by default, margin 0.5, scale 64, embedding 512); several
processes: data parallel, the ArcFace classifier whole on every rank (PLSC's
arcface loss; bench's --classifier whole).

Reads nothing; writes bench's log (doc/formats.md, "bench") on
stdout, rank 0 only:

    # bench model=resnet50 backend=pytorch-cpu nodes=1 gpus_per_node=1 ...
    iter=1 loss=6.9310 step_s=0.4821 samples_per_s=66.37 ts=1763781234.123456
    # end iters=120 peak_mem_mb=4521

One fixed random batch per rank and random labels, SGD with momentum and
weight decay on convolution and fully-connected weights only (as bench does).
--precision amp (or bf16) is bf16 autocast on the CPU. More than one process
(Open MPI's OMPI_COMM_WORLD_*, Slurm's SLURM_PROCID/NTASKS, or torchrun's
RANK/WORLD_SIZE) trains data parallel with DistributedDataParallel over gloo
(NCCL on GPUs); MASTER_ADDR defaults to the first of launch's DLBENCH_HOSTS,
else 127.0.0.1 on one node. Diagnostics go to stderr.

--device auto (the default) trains on the GPU where there is one (the
driver's /dev/nvidiaN, else a GPU in nvidia-smi -L; CUDA_VISIBLE_DEVICES
empty or -1 hides them, as bench's build decides), else on the CPU; a rank's
GPU is its local rank. On a GPU, PyTorch at its documented best (the
performance tuning guide, the AMP recipe): channels_last, cudnn.benchmark,
SGD fused (foreach where fused is missing), and per --precision: fp32 with
TF32 off, tf32 with TF32 on, amp as fp16 autocast with a GradScaler, bf16
as bf16 autocast; --compile MODE adds torch.compile (its cost is the first
steps' time). Each step ends with loss.item(), as bench's does. The setting
lines say all of it; the "# end" line adds to peak_mem_mb (the device's
memory in use at its highest, as nvidia-smi counts it, sampled after each
step) PyTorch's own max_memory_reserved and max_memory_allocated:

    # end iters=120 peak_mem_mb=21840 max_reserved_mb=19520 max_allocated_mb=17210

PyTorch at its best on a CPU, by construction: jemalloc preloaded with MALLOC_CONF
dirty_decay_ms:-1,muzzy_decay_ms:-1 (jemalloc keeps its pages; without it
a 224 px step took 15 s instead of 1.8 s here:
page faults), intra-op threads = cores / processes on the node,
channels_last (faster than NCHW in doc/performance.md's runs; at
112 px on a loaded machine the two were not told apart,
within the load's noise). When jemalloc
is not preloaded the script runs itself again with it (--allocator system:
glibc malloc). The settings in effect go into the log after the header, one
line each, in the form of launch's environment lines (doc/formats.md):

    # env node=0 setting.allocator=jemalloc
    # env node=0 setting.malloc_conf=dirty_decay_ms:-1,muzzy_decay_ms:-1

and then the FLOP of a training sample as counted by forward hooks
(train_flop), for the tables' MFU column: "# env node=0 flop_per_sample=N".

Run it with /usr/bin/python3 (Debian's torch), or the python3 of a PyTorch venv.
"""
import argparse
import os
import resource
import subprocess
import sys
import time

PROG = "pytorch_synthetic"


def die(msg, code=1):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


def positive_int(lo, hi):
    def parse(s):
        try:
            v = int(s, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {s!r}")
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{v} out of range [{lo}, {hi}]")
        return v
    return parse


def nonneg_float(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {s!r}")
    if not (v >= 0 and v < float("inf")):
        raise argparse.ArgumentTypeError(f"{s} out of range [0, inf)")
    return v


def parse_args():
    p = argparse.ArgumentParser(prog=PROG, description="ResNet50 synthetic training, bench log")
    p.add_argument("--batch", type=positive_int(1, 4096), default=16, help="samples per process")
    p.add_argument("--precision", choices=("fp32", "tf32", "amp", "bf16"), default="fp32",
                   help="CPU: amp and bf16 are bf16 autocast, no tf32; GPU: amp is fp16 "
                   "autocast with a GradScaler")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: the GPU where there is one")
    p.add_argument("--compile", metavar="MODE", default=None,
                   choices=("default", "reduce-overhead", "max-autotune"),
                   help="GPU: torch.compile in this mode")
    p.add_argument("--image", type=positive_int(32, 1024), default=None,
                   help="pixels per side (224; iresnet50: 112)")
    p.add_argument("--classes", type=positive_int(2, 1000000), default=1000)
    p.add_argument("--model", choices=("resnet50", "iresnet50"), default="resnet50")
    p.add_argument("--head", choices=("softmax", "arcface"), default="softmax",
                   help="iresnet50's head")
    p.add_argument("--embedding", type=positive_int(2, 65536), default=512)
    p.add_argument("--margin", type=nonneg_float, default=0.5)
    p.add_argument("--scale", type=nonneg_float, default=64.0)
    p.add_argument("--iters", type=positive_int(1, 10**7), default=120)
    p.add_argument("--threads", type=positive_int(1, 4096), default=None,
                   help="intra-op threads (default: cores / local processes)")
    p.add_argument("--layout", choices=("nchw", "channels_last"), default="channels_last",
                   help="memory format (channels_last: the faster here)")
    p.add_argument("--channels-last", dest="layout", action="store_const",
                   const="channels_last", help="the same as --layout channels_last")
    p.add_argument("--allocator", choices=("jemalloc", "system"), default="jemalloc",
                   help="jemalloc: preloaded, pages kept (the default); system: glibc malloc")
    p.add_argument("--seed", type=positive_int(0, 2**31 - 1), default=1)
    p.add_argument("--lr", type=nonneg_float, default=0.01)
    p.add_argument("--momentum", type=nonneg_float, default=0.9)
    p.add_argument("--weight-decay", type=nonneg_float, default=1e-4)
    a = p.parse_args()  # exits 2 on a usage error
    if a.head != "softmax" and a.model != "iresnet50":
        p.error("argument --head: arcface only with --model iresnet50")
    if a.image is None:
        a.image = 112 if a.model == "iresnet50" else 224
    a.device = pick_device(a.device)
    if a.device == "cpu" and a.precision == "tf32":
        p.error("argument --precision: tf32 is a GPU mode (--device cuda)")
    if a.device == "cpu" and a.compile:
        p.error("argument --compile: on the GPU only (--device cuda)")
    return a


def pick_device(asked):
    """cuda where a GPU is, as bench/cuda/cuda.mk probes it (nothing imported)."""
    if asked != "auto":
        return asked
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
    if hidden is not None and hidden in ("", "-1"):
        return "cpu"
    if any(n[6:].isdigit() for n in os.listdir("/dev") if n.startswith("nvidia")):
        return "cuda"
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "cpu"
    return "cuda" if any(l.startswith("GPU ") for l in out.splitlines()) else "cpu"


JEMALLOC = ("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
            "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2")
KEEP_PAGES = "dirty_decay_ms:-1,muzzy_decay_ms:-1"


def mapped_allocator():
    """jemalloc when it is mapped into this process, else glibc."""
    try:
        with open("/proc/self/maps") as f:
            return "jemalloc" if "libjemalloc" in f.read() else "glibc"
    except OSError:
        return "unknown"


def best_allocator(args):
    """Run again with jemalloc preloaded and its pages kept, unless it is
    already so (or --allocator system). MALLOC_CONF given by the caller is
    kept as it is, and logged."""
    e = os.environ
    if args.allocator == "system" or (mapped_allocator() == "jemalloc" and "MALLOC_CONF" in e):
        return
    if e.get("PYTORCH_SYNTHETIC_PRELOADED"):
        die("jemalloc preloaded but not mapped (LD_PRELOAD=" + e.get("LD_PRELOAD", "") + ")")
    lib = next((p for p in JEMALLOC if os.access(p, os.R_OK)), None)
    if lib is None:
        die("no libjemalloc.so.2 (apt-get install libjemalloc2), or give --allocator system")
    if lib not in e.get("LD_PRELOAD", "").split(":"):
        e["LD_PRELOAD"] = lib + (":" + e["LD_PRELOAD"] if e.get("LD_PRELOAD") else "")
    e.setdefault("MALLOC_CONF", KEEP_PAGES)
    e["PYTORCH_SYNTHETIC_PRELOADED"] = "1"
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable] + sys.argv)


def dist_env():
    """rank, world size, local rank, local size from Open MPI, Slurm or torchrun."""
    e = os.environ
    if "OMPI_COMM_WORLD_SIZE" in e:
        rank = int(e["OMPI_COMM_WORLD_RANK"])
        world = int(e["OMPI_COMM_WORLD_SIZE"])
        lrank = int(e.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
        lsize = int(e.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1"))
    elif "SLURM_NTASKS" in e and "SLURM_PROCID" in e:
        rank, world = int(e["SLURM_PROCID"]), int(e["SLURM_NTASKS"])
        lrank = int(e.get("SLURM_LOCALID", "0"))
        lsize = int(e.get("DLBENCH_GPUS", "1"))
    elif "WORLD_SIZE" in e:
        rank = int(e.get("RANK", "0"))
        world = int(e["WORLD_SIZE"])
        lrank = int(e.get("LOCAL_RANK", "0"))
        lsize = int(e.get("LOCAL_WORLD_SIZE", str(world)))
    else:
        return 0, 1, 0, 1
    if world > 1 and "MASTER_ADDR" not in e:
        # launch exports the job's hosts (host or host:slots, comma-separated);
        # rank 0 runs on the first.
        hosts = e.get("DLBENCH_HOSTS", "")
        if hosts:
            e["MASTER_ADDR"] = hosts.split(",")[0].split(":")[0]
        elif lsize == world:
            e["MASTER_ADDR"] = "127.0.0.1"
        else:
            die("several nodes: set MASTER_ADDR to rank 0's address "
                "(mpirun -x MASTER_ADDR=host) or run under launch")
    e.setdefault("MASTER_PORT", "29500")
    e["RANK"], e["WORLD_SIZE"] = str(rank), str(world)
    e["LOCAL_RANK"] = str(lrank)
    return rank, world, lrank, lsize


def train_flop(torch, model, image):
    """The FLOP of a training sample, for the tables' MFU: 3 x the forward
    pass (the forward, the backward to the inputs and to the weights), 2 a
    multiply-add of the convolutions and linear layers, counted over one
    forward pass; bench counts its own the same way."""
    macs = []

    def count(mod, inp, out):
        per = (mod.in_channels // mod.groups * mod.kernel_size[0] * mod.kernel_size[1]
               if isinstance(mod, torch.nn.Conv2d) else mod.in_features)
        macs.append(out.numel() * per)

    # Linear layers and IResNet's ArcFace head (its in_features: the
    # embedding each class's cosine is a product over)
    hooks = [m.register_forward_hook(count) for m in model.modules()
             if isinstance(m, torch.nn.Conv2d) or hasattr(m, "in_features")]
    model.eval()
    dev = next(model.parameters()).device
    x = torch.zeros(1, 3, image, image, device=dev)
    with torch.no_grad():
        if getattr(model, "needs_labels", False):
            model(x, torch.zeros(1, dtype=torch.long, device=dev))
        else:
            model(x)
    model.train()
    for h in hooks:
        h.remove()
    return 3 * 2 * sum(macs)


def main():
    args = parse_args()
    if args.device == "cpu":
        best_allocator(args)
    try:
        import torch
        import torch.distributed as dist
        import torch.nn.functional as F
        import torchvision
    except ImportError as ex:
        die(f"cannot import torch/torchvision ({ex}); install python3-torch "
            "python3-torchvision and run with /usr/bin/python3")

    rank, world, lrank, lsize = dist_env()
    if args.device == "cuda":
        return train_cuda(args, torch, dist, F, torchvision, rank, world, lrank, lsize)
    threads = args.threads or max(1, (os.cpu_count() or 1) // lsize)
    torch.set_num_threads(threads)
    if world > 1:
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world)

    if args.precision != "fp32" and not torch.backends.mkldnn.is_available():
        die("--precision amp needs PyTorch built with oneDNN (mkldnn)")

    torch.manual_seed(args.seed + rank)
    fmt = torch.channels_last if args.layout == "channels_last" else torch.contiguous_format
    model = new_model(args, torch, torchvision).to(memory_format=fmt)
    flop = train_flop(torch, model, args.image) if rank == 0 else 0
    model.train()
    labelled = getattr(model, "needs_labels", False)
    x = torch.randn(args.batch, 3, args.image, args.image).to(memory_format=fmt)
    y = torch.randint(0, args.classes, (args.batch,))

    # No weight decay on BN parameters and biases (bench and NVIDIA's recipe).
    decay, no_decay = [], []
    for name, prm in model.named_parameters():
        (decay if prm.dim() > 1 else no_decay).append(prm)
    opt = torch.optim.SGD([{"params": decay, "weight_decay": args.weight_decay},
                           {"params": no_decay, "weight_decay": 0.0}],
                          lr=args.lr, momentum=args.momentum)
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model)

    amp = args.precision in ("amp", "bf16")
    if rank == 0:
        print(f"# bench model={args.model}{head_words(args)} backend=pytorch-cpu "
              f"nodes={world // lsize} "
              f"gpus_per_node={lsize} batch_per_device={args.batch} "
              f"precision={args.precision} image={args.image} data=synthetic", flush=True)
        settings = (("allocator", mapped_allocator()),
                    ("malloc_conf", os.environ.get("MALLOC_CONF") or "-"),
                    ("threads", torch.get_num_threads()),
                    ("interop_threads", torch.get_num_interop_threads()),
                    ("layout", args.layout), ("autocast", "bf16" if amp else "none"),
                    ("torch", torch.__version__))
        for k, v in settings:
            print(f"# env node=0 setting.{k}={v}")
        print(f"# env node=0 flop_per_sample={flop}")
        sys.stdout.flush()
        print(f"{PROG}: torch {torch.__version__}, {threads} threads, {args.layout}, "
              f"{world} process(es)", file=sys.stderr)

    t0 = time.time()
    for it in range(1, args.iters + 1):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            out = model(x, y) if labelled else model(x)
            loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        lv = loss.item()
        t1 = time.time()
        if rank == 0:
            dt = t1 - t0
            print(f"iter={it} loss={lv:.4f} step_s={dt:.4f} "
                  f"samples_per_s={args.batch * world / dt:.2f} ts={t1:.6f}", flush=True)
        t0 = t1

    # ru_maxrss is in KiB on Linux.
    peak = torch.tensor([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss], dtype=torch.int64)
    if world > 1:
        dist.all_reduce(peak, op=dist.ReduceOp.MAX)
        dist.destroy_process_group()
    if rank == 0:
        print(f"# end iters={args.iters} peak_mem_mb={(int(peak.item()) + 1023) // 1024}")
    try:
        sys.stdout.flush()
    except OSError as ex:
        die(f"stdout: {ex.strerror}")


def new_model(args, torch, torchvision):
    """The net --model names: torchvision's resnet50, or bench's IResNet-50
    (pipelines/torch_iresnet.py) with its head; IResNet's forward also takes
    the labels (the model's needs_labels) for the ArcFace margin."""
    if args.model != "iresnet50":
        return torchvision.models.resnet50(num_classes=args.classes)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_iresnet
    return torch_iresnet.build(torch, args.image, args.classes, args.embedding, args.head,
                               args.margin, args.scale, 0.4)


def head_words(args):
    """The header's words for IResNet's head, as bench writes them."""
    if args.model == "resnet50":
        return ""
    head = f" head={args.head} classes={args.classes} embedding={args.embedding}"
    if args.head == "arcface":
        head += f" margin={args.margin:g} scale={args.scale:g} classifier=whole"
    return head


def meta(v):
    """A setting's value as a meta line holds it (lib/meta.c): %XX for '%',
    '=', blanks and control bytes."""
    return "".join(c if c.isprintable() and c not in "%= " else "%%%02X" % ord(c)
                   for c in str(v)) or "-"


def train_cuda(args, torch, dist, F, torchvision, rank, world, lrank, lsize):
    """The GPU path (the module's doc says its settings)."""
    if not torch.cuda.is_available():
        die(f"--device cuda: torch {torch.__version__} sees no CUDA device")
    torch.cuda.set_device(lrank % torch.cuda.device_count())
    dev = torch.device("cuda", torch.cuda.current_device())
    if world > 1:
        dist.init_process_group("nccl", init_method="env://", rank=rank, world_size=world)

    tf32 = args.precision != "fp32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True
    half = {"amp": torch.float16, "bf16": torch.bfloat16}.get(args.precision)

    torch.manual_seed(args.seed + rank)
    fmt = torch.channels_last if args.layout == "channels_last" else torch.contiguous_format
    model = new_model(args, torch, torchvision).to(dev, memory_format=fmt)
    flop = train_flop(torch, model, args.image) if rank == 0 else 0
    model.train()
    labelled = getattr(model, "needs_labels", False)
    x = torch.randn(args.batch, 3, args.image, args.image, device=dev).to(memory_format=fmt)
    y = torch.randint(0, args.classes, (args.batch,), device=dev)

    decay, no_decay = [], []
    for name, prm in model.named_parameters():
        (decay if prm.dim() > 1 else no_decay).append(prm)
    groups = [{"params": decay, "weight_decay": args.weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    try:
        opt = torch.optim.SGD(groups, lr=args.lr, momentum=args.momentum, fused=True)
        sgd = "fused"
    except (TypeError, RuntimeError):  # torch older than 2.0
        opt = torch.optim.SGD(groups, lr=args.lr, momentum=args.momentum, foreach=True)
        sgd = "foreach"
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index])
    fwd = torch.compile(model, mode=args.compile) if args.compile else model
    amp_ns = getattr(torch, "amp", None)
    if amp_ns is not None and hasattr(amp_ns, "GradScaler"):
        scaler = amp_ns.GradScaler("cuda", enabled=args.precision == "amp")
    else:
        scaler = torch.cuda.amp.GradScaler(enabled=args.precision == "amp")

    if rank == 0:
        print(f"# bench model={args.model}{head_words(args)} backend=pytorch-cuda "
              f"nodes={world // lsize} "
              f"gpus_per_node={lsize} batch_per_device={args.batch} "
              f"precision={args.precision} image={args.image} data=synthetic", flush=True)
        settings = (("layout", args.layout),
                    ("autocast", {"amp": "fp16", "bf16": "bf16"}.get(args.precision, "none")),
                    ("grad_scaler", "on" if args.precision == "amp" else "off"),
                    ("tf32", "on" if tf32 else "off"), ("cudnn_benchmark", "on"),
                    ("sgd", sgd), ("compile", args.compile or "none"),
                    ("dist_backend", "nccl" if world > 1 else "none"),
                    ("torch", torch.__version__), ("cuda", torch.version.cuda),
                    ("cudnn", torch.backends.cudnn.version()))
        for k, v in settings:
            print(f"# env node=0 setting.{k}={meta(v)}")
        print(f"# env node=0 flop_per_sample={flop}")
        sys.stdout.flush()
        print(f"{PROG}: torch {torch.__version__} on {torch.cuda.get_device_name(dev)}, "
              f"{args.precision}, {args.layout}, {world} process(es)", file=sys.stderr)

    used = 0
    t0 = time.time()
    for it in range(1, args.iters + 1):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=half or torch.float16, enabled=half is not None):
            loss = F.cross_entropy(fwd(x, y) if labelled else fwd(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        lv = loss.item()
        t1 = time.time()
        free, total = torch.cuda.mem_get_info(dev)
        used = max(used, total - free)
        if rank == 0:
            dt = t1 - t0
            print(f"iter={it} loss={lv:.4f} step_s={dt:.4f} "
                  f"samples_per_s={args.batch * world / dt:.2f} ts={t1:.6f}", flush=True)
        t0 = t1

    mib = 2 ** 20
    peak = torch.tensor([used, torch.cuda.max_memory_reserved(dev),
                         torch.cuda.max_memory_allocated(dev)], dtype=torch.int64, device=dev)
    if world > 1:
        dist.all_reduce(peak, op=dist.ReduceOp.MAX)
        dist.destroy_process_group()
    if rank == 0:
        u, r, a = ((int(v) + mib - 1) // mib for v in peak.tolist())
        print(f"# end iters={args.iters} peak_mem_mb={u} max_reserved_mb={r} max_allocated_mb={a}")
    try:
        sys.stdout.flush()
    except OSError as ex:
        die(f"stdout: {ex.strerror}")


if __name__ == "__main__":
    main()
