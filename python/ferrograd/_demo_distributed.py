"""``mpiexec -n 2 python -m ferrograd.demo --distributed``: the demo's spiral classifier
trained data-parallel. Each rank trains on its share of the training points
(``DistributedSampler``) through ``DistributedDataParallel``; gradients are averaged
across ranks during backward, so every rank ends with the same weights. Rank 0 prints."""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import ferrograd as fg

from . import _demo_train as cls


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Trains SpiralNet with DDP over the ranks mpiexec started; returns the results."""
    import ferrograd.distributed as dist

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()

    def log(*a: Any, **k: Any) -> None:
        if rank == 0:
            print(*a, **k, flush=True)

    x, y = cls.make_spirals(args.samples, args.seed)
    split = int(0.8 * len(y))
    share = np.array(list(dist.DistributedSampler(range(split), shuffle=True, seed=args.seed)))
    data = (x[:split][share], y[:split][share], x[split:], y[split:])
    fg.seed(args.seed)
    model = cls.SpiralNet(hidden=args.hidden)
    # takes rank 0's weights; small buckets (10 kB) so that even this small model's
    # all-reduces start during backward instead of in one piece at its end
    ddp = fg.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.01)
    fg.seed(args.seed + 1 + rank)  # dropout masks differ across ranks
    log(
        f"data-parallel training on {world} ranks: {len(share)} of {split} training "
        f"points per rank, gradients averaged by all-reduce in {len(ddp.bucket_sizes())} "
        "bucket(s) started during backward"
    )
    start = time.perf_counter()
    history = cls.train(
        ddp, data, args.epochs, args.seed, progress=args.progress and rank == 0, log=log
    )
    seconds = time.perf_counter() - start
    flat = fg.tensor(np.concatenate([p.numpy().ravel() for p in model.parameters()]))
    everyone: list = []
    dist.all_gather(everyone, flat)
    spread = max(float(np.abs(t.numpy() - everyone[0].numpy()).max()) for t in everyone)
    log(
        f"summary: {args.epochs} epochs in {seconds:.2f} s on {world} ranks, test accuracy "
        f"{history.test_accuracy[-1]:.3f}; largest weight difference between ranks: {spread}"
    )
    dist.destroy_process_group()
    return {
        "rank": rank,
        "world_size": world,
        "test_accuracy": history.test_accuracy[-1],
        "weight_spread": spread,
        "train_seconds": seconds,
    }
