"""Machine instructions per training step, counted with callgrind (load-independent).

Wall-clock ratios on a shared 2-core machine move with whatever else runs; instruction
counts do not. Each (workload, library) runs twice under ``valgrind --tool=callgrind``
with one thread (``RAYON_NUM_THREADS=OMP_NUM_THREADS=1``), once with ``N1`` and once with
``N2`` timed steps after one warm-up step; the difference divided by ``N2 - N1`` is the
count of one step without the import and set-up. Valgrind hides AVX-512 from the
program, so both libraries run their AVX2 kernels here: the counts compare the work
done, not the vector width (time the wide paths with ``compare.py`` on a quiet machine).

    python benches/instr_counts.py --python-torch /path/to/venv/bin/python
    python benches/instr_counts.py --workloads bn_fused,bn_composed  # ferrograd only

Workloads: ``lstm`` (``nn.LSTM(256, 256, 2)``, batch 32, ``--lstm-seq`` steps, default 8,
forward + ``square().mean()`` + backward), ``encoder`` (``sequence_steps.py``'s 4-layer
``TransformerEncoder`` step at batch 4, seq 128), ``mlp`` (issue 23's step: 784-256-256-10 tanh
MLP at batch 128, float32, MSE loss, backward, SGD under ``no_grad``), ``bn_fused`` and
``bn_composed`` (ferrograd only: ``F.batch_norm`` in training mode on ``[32, 64, 32, 32]``
float32 against the composition it replaced, forward + backward).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

CHILD = r"""
import sys, numpy as np
lib, work, n, seq = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if lib == "torch":
    import torch as L
    L.set_num_threads(1)
else:
    import ferrograd as L
rng = np.random.default_rng(0)
if work == "lstm":
    lstm = L.nn.LSTM(256, 256, 2)
    x = L.from_numpy(rng.standard_normal((seq, 32, 256), dtype=np.float32))
    ps = list(lstm.parameters())
    def step():
        for p in ps:
            p.grad = None
        out, _ = lstm(x)
        out.square().mean().backward()
elif work == "encoder":
    # benches/sequence_steps.py's encoder at batch 4 (the full batch 16 is slow under valgrind)
    layer = L.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
    extra = {"enable_nested_tensor": False} if lib == "torch" else {}
    enc = L.nn.TransformerEncoder(layer, 4, **extra)
    opt = L.optim.SGD(enc.parameters(), lr=0.01)
    x = L.from_numpy(rng.standard_normal((4, 128, 256), dtype=np.float32))
    def step():
        opt.zero_grad()
        enc(x).square().mean().backward()
        opt.step()
elif work == "mlp":
    sizes, ps = [784, 256, 256, 10], []
    for i, o in zip(sizes, sizes[1:]):
        w = (rng.standard_normal((i, o)) * 0.05).astype(np.float32)
        ps += [L.from_numpy(w).requires_grad_(), L.from_numpy(np.zeros(o, np.float32)).requires_grad_()]
    xb = L.from_numpy(rng.standard_normal((128, 784)).astype(np.float32))
    t = L.from_numpy(rng.standard_normal((128, 10)).astype(np.float32))
    def step():
        h = xb
        for j in range(3):
            h = h @ ps[2 * j] + ps[2 * j + 1]
            if j < 2:
                h = h.tanh()
        ((h - t) ** 2).mean().backward()
        with L.no_grad():
            for p in ps:
                p -= 0.01 * p.grad
                p.grad = None
else:
    F = L.nn.functional
    x = L.from_numpy(rng.standard_normal((32, 64, 32, 32), dtype=np.float32)).requires_grad_()
    w = L.from_numpy(np.ones(64, np.float32)).requires_grad_()
    b = L.from_numpy(np.zeros(64, np.float32)).requires_grad_()
    g = L.from_numpy(rng.standard_normal((32, 64, 32, 32), dtype=np.float32))
    def fwd():
        if work == "bn_fused":
            return F.batch_norm(x, None, None, w, b, training=True)
        mean = x.mean([0, 2, 3], keepdim=True)
        c = x - mean
        var = (c * c).mean([0, 2, 3], keepdim=True)
        return c * ((var + 1e-5).rsqrt() * w.reshape([1, -1, 1, 1])) + b.reshape([1, -1, 1, 1])
    def step():
        fwd().backward(g)
        x.grad = w.grad = b.grad = None
step()
for _ in range(n):
    step()
"""

TORCH_WORKLOADS = {"lstm", "mlp", "encoder"}


def count(python: str, lib: str, work: str, n: int, seq: int, tmp: str) -> int:
    """Instructions (callgrind's Ir total) of one child run with ``n`` timed steps."""
    out = os.path.join(tmp, f"{lib}.{work}.{n}.out")
    env = dict(os.environ, RAYON_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # once without valgrind first: writes the bytecode caches, whose compilation would
    # otherwise be counted in whichever of the two runs happens to come first
    subprocess.run([python, "-c", CHILD, lib, work, "0", str(seq)], env=env, check=True)
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", python, "-c", CHILD]
    res = subprocess.run(
        [*cmd, lib, work, str(n), str(seq)], env=env, capture_output=True, text=True
    )
    m = re.search(r"Collected : (\d+)", res.stderr)
    if res.returncode != 0 or m is None:
        raise RuntimeError(f"{lib} {work}: callgrind run failed:\n{res.stderr[-2000:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python-torch", help="interpreter with torch (omit: ferrograd only)")
    ap.add_argument("--workloads", default="lstm,mlp,bn_fused,bn_composed")
    ap.add_argument("--lstm-seq", type=int, default=8)
    ap.add_argument("--n1", type=int, default=1)
    ap.add_argument("--n2", type=int, default=2)
    args = ap.parse_args()
    libs = [("ferrograd", sys.executable)]
    if args.python_torch:
        libs.append(("torch", args.python_torch))
    with tempfile.TemporaryDirectory() as tmp:
        for work in args.workloads.split(","):
            per: dict[str, float] = {}
            for lib, py in libs:
                if lib == "torch" and work not in TORCH_WORKLOADS:
                    continue
                a = count(py, lib, work, args.n1, args.lstm_seq, tmp)
                b = count(py, lib, work, args.n2, args.lstm_seq, tmp)
                per[lib] = (b - a) / (args.n2 - args.n1)
                print(
                    f"{work:12s} {lib:10s} {per[lib] / 1e6:10.1f} M instructions/step", flush=True
                )
            if len(per) == 2:
                print(f"{work:12s} ratio ferrograd/torch = {per['ferrograd'] / per['torch']:.2f}")


if __name__ == "__main__":
    main()
