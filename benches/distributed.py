#!/usr/bin/env python3
"""Data-parallel training over MPI: overlapped bucketed all-reduce vs one all-reduce after
backward, and scaling from 1 to 2 processes.

    python benches/distributed.py                 # needs mpi4py + mpiexec ('.[distributed]')
    python benches/distributed.py --steps 30 --hidden 1024 --bucket-mb 2 --json out.json

The parent starts itself under ``mpiexec -n P`` once per (P, mode); each rank trains an
MLP (784 -> H -> H -> H -> 10, float32, batch ``--batch`` per rank: weak scaling) and rank
0 reports the median step time (forward, backward, ``optimizer.step``). Modes:

* ``local``: no communication (the compute time, with P processes sharing the machine);
* ``after``: DDP with one bucket holding every gradient, so its all-reduce can only start
  once backward has finished: communication after backward, nothing hidden;
* ``overlap``: DDP with ``--bucket-mb`` buckets: each bucket's all-reduce starts as soon as
  its gradients are ready, during the rest of backward.

Printed: efficiency = t(1 process, local) / t(2 processes, overlap) (1.0 = perfect weak
scaling) and the share of the communication hidden by overlap =
(t_after - t_overlap) / (t_after - t_local), both at P = 2. On a shared 2-core machine
the numbers are noisy; read them as rough.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def rank_main(args: argparse.Namespace) -> None:
    """One rank: train ``args.steps`` steps in ``args.mode``; rank 0 prints a JSON line."""
    import ferrograd as torch
    import ferrograd.distributed as dist
    import numpy as np
    from ferrograd import nn

    dist.init_process_group("mpi")
    rank = dist.get_rank()
    torch.manual_seed(0)
    h = args.hidden
    model = nn.Sequential(
        nn.Linear(784, h),
        nn.ReLU(),
        nn.Linear(h, h),
        nn.ReLU(),
        nn.Linear(h, h),
        nn.ReLU(),
        nn.Linear(h, 10),
    )
    if args.mode == "overlap":
        net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb)
    elif args.mode == "after":
        net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e9)
    else:
        net = model
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(rank)
    x = torch.tensor(rng.standard_normal((args.batch, 784)).astype(np.float32))
    y = torch.tensor(rng.integers(0, 10, args.batch))
    loss_fn = nn.CrossEntropyLoss()
    times = []
    for step in range(args.steps + 3):
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
        if step >= 3:  # warm-up steps excluded
            times.append(time.perf_counter() - t0)
    all_times = []
    dist.all_gather(all_times, torch.tensor([statistics.median(times)], dtype=torch.float64))
    n_params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        worst = max(float(t.item()) for t in all_times)  # the step ends with the slowest rank
        print(
            json.dumps(
                {
                    "mode": args.mode,
                    "procs": dist.get_world_size(),
                    "step_ms": worst * 1e3,
                    "params": n_params,
                }
            ),
            flush=True,
        )
    dist.destroy_process_group()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--bucket-mb", type=float, default=2.0)
    p.add_argument("--json", help="also write the results here")
    p.add_argument("--mode", help=argparse.SUPPRESS)  # set in the ranks
    args = p.parse_args()
    if args.mode:
        rank_main(args)
        return
    from ferrograd.distributed.launch import find_mpiexec

    mpiexec = find_mpiexec()
    if mpiexec is None:
        sys.exit("no mpiexec: pip install '.[distributed]'")
    env = dict(os.environ, OMP_NUM_THREADS="1", RAYON_NUM_THREADS="1")
    results = {}
    for procs, mode in [(1, "local"), (2, "local"), (2, "after"), (2, "overlap")]:
        cmd = [
            mpiexec,
            "-n",
            str(procs),
            sys.executable,
            __file__,
            "--mode",
            mode,
            "--steps",
            str(args.steps),
            "--hidden",
            str(args.hidden),
            "--batch",
            str(args.batch),
            "--bucket-mb",
            str(args.bucket_mb),
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        results[f"{mode}@{procs}"] = r["step_ms"]
        print(
            f"{procs} process(es), {mode:8s}: {r['step_ms']:8.2f} ms/step "
            f"({r['params']} parameters, batch {args.batch} per process)"
        )
    t1 = results["local@1"]
    local2, after2, over2 = results["local@2"], results["after@2"], results["overlap@2"]
    eff = t1 / over2
    exposed = after2 - local2
    hidden = (after2 - over2) / exposed if exposed > 0 else float("nan")
    print(f"weak-scaling efficiency 1 -> 2 processes (overlap): {eff:.2f}")
    print(
        f"communication after backward costs {exposed:.2f} ms/step; overlap hides "
        f"{100 * hidden:.0f}% of it"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**results, "efficiency": eff, "hidden_fraction": hidden}, f, indent=1)


if __name__ == "__main__":
    main()
