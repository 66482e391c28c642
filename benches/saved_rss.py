"""Peak RSS of forward + backward of a deep tanh MLP, without hooks vs with
``save_on_disk``, each in its own process (issue 5's memory benchmark).

Reports the memory held for saved activations: peak RSS during forward+backward minus the
RSS once parameters, input and gradient buffers exist. Usage:
``python benches/saved_rss.py [--layers 20] [--width 1024] [--batch 4096]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys


def _rss_now_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(mode: str, layers: int, width: int, batch: int) -> dict:
    import ferrograd as fg

    fg.seed(0)
    ws = [fg.randn(width, width, requires_grad=True) * (1.0 / width**0.5) for _ in range(layers)]
    ws = [w.detach().requires_grad_() for w in ws]
    x = fg.randn(batch, width)
    for w in ws:  # gradient buffers exist before we measure
        w.grad = fg.zeros(width, width)
    base = _rss_now_mb()

    def forward():
        h = x
        for w in ws:
            h = (h @ w).tanh()
        return h.mean()

    if mode == "disk":
        with fg.autograd.graph.save_on_disk():
            loss = forward()
    else:
        loss = forward()
    loss.backward()
    return {"mode": mode, "baseline_mb": base, "peak_mb": _peak_mb(), "held_mb": _peak_mb() - base}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--layers", type=int, default=20)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--child", choices=["none", "disk"], help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.child, a.layers, a.width, a.batch)))
        return
    results = {}
    for mode in ("none", "disk"):
        cmd = [
            sys.executable,
            __file__,
            "--child",
            mode,
            "--layers",
            str(a.layers),
            "--width",
            str(a.width),
            "--batch",
            str(a.batch),
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        results[mode] = json.loads(out.strip().splitlines()[-1])
    none, disk = results["none"]["held_mb"], results["disk"]["held_mb"]
    act_mb = a.layers * a.batch * a.width * 4 / 2**20
    print(
        f"{a.layers}-layer {a.width}-wide tanh MLP, batch {a.batch} "
        f"(one activation set = {act_mb:.0f} MB)"
    )
    for mode in ("none", "disk"):
        r = results[mode]
        print(
            f"  {mode:>4}: baseline {r['baseline_mb']:.0f} MB, peak {r['peak_mb']:.0f} MB, "
            f"held for saved activations {r['held_mb']:.0f} MB"
        )
    print(f"  save_on_disk reduces the held memory by {100 * (1 - disk / none):.1f} %")


if __name__ == "__main__":
    main()
