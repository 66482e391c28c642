#!/usr/bin/env python3
"""Data-parallel training over MPI: scaling from 1 to 2 processes for the MLP and the
digits CNN, and how much of the gradient all-reduce the overlapped buckets hide.

    python benches/distributed.py                # both models; needs '.[distributed]'
    python benches/distributed.py --steps 30 --model cnn --json out.json

Per model the parent starts one job, ``mpiexec -n 2``, in which each rank trains several
copies of the model, one step of each in turn (interleaved, so machine load hits every
variant alike):

* ``alone``: rank 0 trains while rank 1 sleeps in a barrier (the one-process time);
* ``local``: no communication (the compute time with 2 processes sharing the machine);
* ``self``: DDP over a group of this rank alone, one bucket: the copies into and out of
  the bucket without communication (DDP's own cost);
* ``after``: DDP with one bucket holding every gradient: its all-reduce can only start
  once backward has finished (communication after backward, nothing hidden);
* ``overlap``: DDP with its default buckets (``bucket_cap_mb=25``, the first bucket
  1 MB as in PyTorch) or ``--bucket-mb``: each bucket's all-reduce starts as soon as its
  gradients are ready, and DDP drives it forward during the rest of backward;
* ``overlap-quarter``: buckets of a quarter of the gradient bytes (about 4 buckets):
  more of the gradients can be reduced during backward;
* ``overlap-hooks``: the default buckets, with MPI progressed only when a gradient hook
  runs (``FERROGRAD_DDP_PROGRESS=hooks``), to show what the progress thread adds;
* the gradient all-reduce alone (the same bytes, no training around it).

A step is ``optimizer.zero_grad()``, forward, backward, ``optimizer.step()``, after a
barrier; the figure is the median over ``--steps`` steps of the slowest rank. The MLP
(784 -> H -> H -> H -> 10, float32) trains on a fixed random batch of ``--batch``
samples per rank; the CNN is the demo's (``ferrograd.demo --cnn``) on scikit-learn's 8x8
digits, read through ``DataLoader(dataset, batch_size=64, sampler=DistributedSampler(
dataset))`` as a user writes it (each rank gets half of every epoch; the step time
includes fetching the batch).

Printed per model: efficiency = t(1 process) / t(2 processes, overlap), 1.0 being perfect
weak scaling (the same per-rank batch, twice the samples per step; for the CNN, an
epoch takes 1/(2 * efficiency) of the one-process time), and the share of the
communication hidden = (t_after - t_overlap) / (t_after - t_local).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

VARIANTS = [
    "alone",
    "local",
    "self",
    "after",
    "overlap",
    "overlap-quarter",
    "overlap-hooks",
    "allreduce",
]


def _mlp(hidden: int):
    from ferrograd import nn

    return nn.Sequential(
        nn.Linear(784, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, 10),
    )


def _batches(args: argparse.Namespace, rank: int, replicas: int):
    """An endless iterator of (x, y) batches for this rank, and its steps per epoch."""
    import ferrograd as torch
    import numpy as np

    if args.model == "mlp":
        rng = np.random.default_rng(rank)
        x = torch.tensor(rng.standard_normal((args.batch, 784)).astype(np.float32))
        y = torch.tensor(rng.integers(0, 10, args.batch))

        def fixed():
            while True:
                yield x, y

        return fixed(), 0
    from ferrograd._demo_cnn import load_digits_split
    from ferrograd.utils.data import DataLoader, TensorDataset
    from ferrograd.utils.data.distributed import DistributedSampler

    xtr, ytr, _, _ = load_digits_split(seed=0)
    dataset = TensorDataset(xtr, ytr)
    sampler = DistributedSampler(dataset, replicas, rank % replicas, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, drop_last=True)

    def epochs():
        epoch = 0
        while True:
            sampler.set_epoch(epoch)
            yield from loader
            epoch += 1

    return epochs(), len(loader)


def rank_main(args: argparse.Namespace) -> None:
    """One rank: trains every variant in turn; rank 0 prints one JSON line."""
    import ferrograd as torch
    import ferrograd.distributed as dist
    import numpy as np
    from ferrograd import nn
    from ferrograd.distributed._mpi import mpi
    from ferrograd.distributed.group import wait_all, world

    dist.init_process_group("mpi")
    rank, procs = dist.get_rank(), dist.get_world_size()
    if procs != 2:
        sys.exit("the benchmark's ranks run under mpiexec -n 2")
    names = VARIANTS
    # a group of this rank alone: DDP's bookkeeping (bucket copies, hooks) without
    # communication
    singles = [dist.new_group([r]) for r in range(procs)]
    loss_fn = nn.CrossEntropyLoss()
    runs = {}
    for name in names:
        if name == "allreduce":
            continue
        torch.manual_seed(0)
        model = _mlp(args.hidden) if args.model == "mlp" else _cnn()
        kw = {} if args.bucket_mb is None else {"bucket_cap_mb": args.bucket_mb}
        if name == "self":
            net = nn.parallel.DistributedDataParallel(
                model, bucket_cap_mb=1e9, process_group=singles[rank]
            )
        elif name == "after":
            net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e9)
        elif name == "overlap-quarter":
            quarter = sum(p.numel() * p.element_size() for p in model.parameters()) / 4
            net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=quarter / 2**20)
        elif name.startswith("overlap"):
            if name == "overlap-hooks":
                os.environ["FERROGRAD_DDP_PROGRESS"] = "hooks"
            net = nn.parallel.DistributedDataParallel(model, **kw)
            os.environ.pop("FERROGRAD_DDP_PROGRESS", None)
        else:
            net = model
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        # "alone" reads the whole data set (one process), the others this rank's half
        data, per_epoch = _batches(args, rank, 1 if name == "alone" else procs)
        if name == "alone":
            per_epoch_alone = per_epoch
        runs[name] = (net, opt, data)
    n_params = sum(p.numel() for p in runs["local"][0].parameters())
    buckets = runs["overlap"][0].bucket_sizes()
    buckets_quarter = runs["overlap-quarter"][0].bucket_sizes()
    flat = np.zeros(n_params, np.float32)
    MPI, g = mpi(), world()

    def step(name: str) -> None:
        if name == "alone" and rank != 0:
            return  # rank 0 trains alone; this rank sleeps in the next barrier (time 0)
        if name == "allreduce":  # the same bytes as DDP reduces, nothing around them
            req = g.comm.Iallreduce(MPI.IN_PLACE, [flat, MPI.FLOAT], MPI.SUM)
            wait_all([req], g, "benchmark all-reduce")
            return
        net, opt, data = runs[name]
        x, y = next(data)
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()

    times: dict = {n: [] for n in names}
    waits: dict = {n: [] for n in names if n.startswith(("after", "overlap"))}
    for i in range(args.steps + 3):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]  # rotate the order every step
            dist.barrier()
            t0 = time.perf_counter()
            step(name)
            if i >= 3:  # warm-up steps excluded
                times[name].append(time.perf_counter() - t0)
                if name in waits:
                    waits[name].append(runs[name][0].last_reduce_wait_s)
    rows = [times[n] for n in names] + [waits[n] for n in waits]
    mine = torch.tensor(np.array(rows), dtype=torch.float64)
    everyone: list = []
    dist.all_gather(everyone, mine)
    if rank == 0:
        # a synchronous step ends when its slowest rank ends: the median over steps of
        # the per-step maximum over ranks (for "alone", rank 1 recorded 0)
        stacked = np.stack([t.numpy() for t in everyone])
        worst = np.max(stacked[:, : len(names)], axis=0)
        out: dict = {n: float(np.median(w)) * 1e3 for n, w in zip(names, worst)}
        # the rank that reaches the end of backward last waits for communication only;
        # the other one's wait also holds the time it waited for that rank
        last = np.min(stacked[:, len(names) :], axis=0)
        out.update({f"wait-{n}": float(np.median(w)) * 1e3 for n, w in zip(waits, last)})
        out.update(params=n_params, buckets=buckets, buckets_quarter=buckets_quarter)
        out.update(steps_per_epoch=per_epoch, steps_per_epoch_alone=per_epoch_alone)
        print(json.dumps(out), flush=True)
    dist.destroy_process_group()


def _cnn():
    from ferrograd._demo_cnn import make_model

    return make_model()


def run_model(args: argparse.Namespace, mpiexec: str) -> dict:
    """Both jobs for ``args.model``; prints its rows; returns its figures."""
    env = dict(os.environ, OMP_NUM_THREADS="1", RAYON_NUM_THREADS="1")
    cmd = [mpiexec, "-n", "2", sys.executable, __file__, "--rank-main"]
    cmd += ["--model", args.model, "--steps", str(args.steps), "--hidden", str(args.hidden)]
    cmd += ["--batch", str(args.batch)]
    if args.bucket_mb is not None:
        cmd += ["--bucket-mb", str(args.bucket_mb)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    two = json.loads(p.stdout.strip().splitlines()[-1])
    one = {"local": two["alone"], "params": two["params"]}
    mb = one["params"] * 4 / 1e6
    if args.model == "mlp":
        h = args.hidden
        title = f"MLP 784-{h}-{h}-{h}-10, batch {args.batch} per process (fixed random data)"
    else:
        title = (
            "digits CNN (the demo's), batch 64 per process through DataLoader + "
            f"DistributedSampler, {two['steps_per_epoch']} steps/epoch per process on 2"
        )
    print(f"\n{title}: {one['params']} parameters ({mb:.2f} MB of float32 gradients)")
    rows = [
        ("1 process (the other one idle)", one["local"]),
        ("2 processes, no communication", two["local"]),
        ("2 processes, DDP without communication (own group)", two["self"]),
        ("2 processes, DDP all-reduce after backward (1 bucket)", two["after"]),
        (f"2 processes, DDP overlapped ({len(two['buckets'])} buckets)", two["overlap"]),
        (
            f"2 processes, overlapped, 1/4 buckets ({len(two['buckets_quarter'])} buckets)",
            two["overlap-quarter"],
        ),
        ("2 processes, overlapped, progress only in hooks", two["overlap-hooks"]),
        ("the gradient all-reduce alone (2 processes)", two["allreduce"]),
        ("  the last rank's wait for it after backward: 1 bucket", two["wait-after"]),
        ("  the same, overlapped", two["wait-overlap"]),
        ("  the same, overlapped, 1/4 buckets", two["wait-overlap-quarter"]),
        ("  the same, overlapped, progress only in hooks", two["wait-overlap-hooks"]),
    ]
    for label, ms in rows:
        print(f"  {label:56s} {ms:8.2f} ms")
    eff = one["local"] / two["overlap"]
    exposed = two["after"] - two["local"]

    def hid(name: str) -> float:
        return (two["after"] - two[name]) / exposed if exposed > 0 else float("nan")

    hidden_hooks = hid("overlap-hooks")
    print(f"  weak-scaling efficiency 1 -> 2 processes (overlap): {eff:.2f}")
    print(
        f"  communication after backward costs {exposed:.2f} ms/step (the all-reduce alone: "
        f"{two['allreduce']:.2f} ms); overlap hides {100 * hid('overlap'):.0f}% of it "
        f"({100 * hid('overlap-quarter'):.0f}% with 1/4 buckets, "
        f"{100 * hidden_hooks:.0f}% with progress only in hooks)"
    )
    if args.model == "cnn":
        e1 = two["steps_per_epoch_alone"] * one["local"]
        e2 = two["steps_per_epoch"] * two["overlap"]
        print(f"  an epoch: {e1:.0f} ms on 1 process, {e2:.0f} ms on 2 (speedup {e1 / e2:.2f})")
    hidden = hid("overlap")
    return {
        **two,
        "efficiency": eff,
        "hidden_fraction": hidden,
        "hidden_fraction_hooks_only": hidden_hooks,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    p.add_argument("--hidden", type=int, default=1024, help="MLP hidden width")
    p.add_argument("--batch", type=int, default=64, help="MLP batch per process")
    p.add_argument("--bucket-mb", type=float, default=None, help="DDP bucket_cap_mb")
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--rank-main", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.rank_main:
        rank_main(args)
        return
    from ferrograd.distributed.launch import find_mpiexec

    mpiexec = find_mpiexec()
    if mpiexec is None:
        sys.exit("no mpiexec: pip install '.[distributed]'")
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    results = {}
    for model in ["mlp", "cnn"] if args.model == "both" else [args.model]:
        args.model = model
        results[model] = run_model(args, mpiexec)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
