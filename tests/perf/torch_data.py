"""tests/perf/torch_data.py: PyTorch's side of `make perf-data` (tests/perf/data.sh).

  torch_data.py loader DIR --workers T --batch B --image PX --iters N --warmup W
      torchvision's ImageFolder with RandomResizedCrop, RandomHorizontalFlip,
      ToTensor and Normalize in a DataLoader of T workers (shuffled, persistent
      workers, each with one torch thread), the batches taken and dropped:
      "# summary ... images_per_s=R" over the batches after the warm-up, and
      cpu_ms_per_image: the CPU time of the process and its workers over every
      batch, per image.
  torch_data.py train [DIR] --workers T --threads C --batch B --image PX --iters N
      [--channels-last]: torchvision's resnet50 trained (SGD) on the tree through
      that DataLoader, or on one fixed random batch without DIR; bench's log
      lines (iter= ... data_s=), so the same summary reads both.

Run it with /usr/bin/python3, jemalloc preloaded and MALLOC_CONF set
(tests/perf/data.sh does): PyTorch at its best on this CPU.
"""
import argparse
import resource
import sys
import time

import torch
import torchvision
from torchvision import transforms

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def worker_init(_):
    torch.set_num_threads(1)


def loader(args):
    tf = transforms.Compose([transforms.RandomResizedCrop(args.image),
                             transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                             transforms.Normalize(MEAN, STD)])
    ds = torchvision.datasets.ImageFolder(args.dir, tf)
    return torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True,
                                       num_workers=args.workers, drop_last=True,
                                       persistent_workers=args.workers > 0,
                                       worker_init_fn=worker_init)


def batches(dl):
    while True:
        for b in dl:
            yield b


def cpu_s(who):
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime


def run_loader(args):
    cpu0 = cpu_s(resource.RUSAGE_SELF) + cpu_s(resource.RUSAGE_CHILDREN)
    dl = loader(args)
    it = batches(dl)
    t0 = time.time()
    start = t0
    for i in range(1, args.iters + 1):
        next(it)
        t1 = time.time()
        print(f"iter={i} images_per_s={args.batch / (t1 - t0):.2f} ts={t1:.6f}", flush=True)
        t0 = t1
        if i == args.warmup:
            start = t1
    n = args.iters - args.warmup
    rate = args.batch * n / (time.time() - start)
    # the workers' CPU time is the children's once they have ended
    del it
    dl._iterator._shutdown_workers()
    cpu = cpu_s(resource.RUSAGE_SELF) + cpu_s(resource.RUSAGE_CHILDREN) - cpu0
    print(f"# summary warmup={args.warmup} timed_iters={n} images_per_s={rate:.2f} "
          f"cpu_ms_per_image={1e3 * cpu / (args.batch * args.iters):.3f}", flush=True)


def run_train(args):
    import torch.nn.functional as F
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    classes = len(torchvision.datasets.folder.find_classes(args.dir)[0]) if args.dir else 1000
    model = torchvision.models.resnet50(num_classes=classes).to(memory_format=fmt)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1 * args.batch / 256, momentum=0.9,
                          weight_decay=1e-4)
    it = batches(loader(args)) if args.dir else None
    x = torch.randn(args.batch, 3, args.image, args.image)
    y = torch.randint(0, classes, (args.batch,))
    print(f"# bench model=resnet50 backend=pytorch-cpu nodes=1 gpus_per_node=1 "
          f"batch_per_device={args.batch} precision=fp32 image={args.image} "
          f"data={args.dir or 'synthetic'}", flush=True)
    t0 = time.time()
    for i in range(1, args.iters + 1):
        if it:
            x, y = next(it)
        t_data = time.time()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x.to(memory_format=fmt)), y)
        loss.backward()
        opt.step()
        lv = loss.item()
        t1 = time.time()
        print(f"iter={i} loss={lv:.4f} step_s={t1 - t0:.4f} "
              f"samples_per_s={args.batch / (t1 - t0):.2f} ts={t1:.6f} "
              f"data_s={t_data - t0:.4f}", flush=True)
        t0 = t1


def main():
    p = argparse.ArgumentParser(prog="torch_data.py")
    p.add_argument("mode", choices=("loader", "train"))
    p.add_argument("dir", nargs="?")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--image", type=int, default=224)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--channels-last", action="store_true")
    args = p.parse_args()
    if args.mode == "loader" and not args.dir:
        sys.exit("torch_data.py: loader needs DIR")
    (run_loader if args.mode == "loader" else run_train)(args)


if __name__ == "__main__":
    main()
