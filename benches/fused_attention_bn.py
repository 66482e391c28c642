"""The fused attention and batch-norm ops against the compositions they replaced, in one
ferrograd process: forward + backward time (median of ``rounds``) and the bytes the graph
saves for backward (counted with ``saved_tensors_hooks``, so exact and load-independent).

- attention: ``[16, 4, 128, 64]`` float32 q, k, v (the encoder workload's shape, d=256 in
  4 heads), causal;
- batch norm: ``BatchNorm2d(64)`` in training on ``[32, 64, 32, 32]`` float32.

Usage: ``python benches/fused_attention_bn.py [rounds]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable


def _saved_bytes(fg: Any, f: Callable[[], Any]) -> int:
    total = [0]

    def pack(t: Any) -> Any:
        total[0] += t.numel() * t.element_size()
        return t

    with fg.autograd.saved_tensors_hooks(pack, lambda t: t):
        f()
    return total[0]


def _median_ms(f: Callable[[], Any], rounds: int) -> float:
    f()  # warm-up
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main(rounds: int = 5) -> None:
    """Prints one line per (workload, implementation)."""
    import ferrograd as fg
    from ferrograd.nn.fn_attention import attend, causal_keep

    fg.seed(0)
    q, k, v = (fg.randn(16, 4, 128, 64, requires_grad=True) for _ in range(3))
    keep = causal_keep(128, 128)
    g = fg.randn(16, 4, 128, 64)

    def fused_fwd() -> Any:
        return fg.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    def composed_fwd() -> Any:
        return attend(q, k, v, keep)[0]

    x = fg.randn(32, 64, 32, 32, requires_grad=True)
    w, b = fg.ones(64, requires_grad=True), fg.zeros(64, requires_grad=True)
    gx = fg.randn(32, 64, 32, 32)

    def bn_fused() -> Any:
        return fg.nn.functional.batch_norm(x, None, None, w, b, training=True)

    def bn_composed() -> Any:
        # the composition F.batch_norm ran before the fused op
        mean = x.mean([0, 2, 3], keepdim=True)
        centred = x - mean
        var = (centred * centred).mean([0, 2, 3], keepdim=True)
        factor = (var + 1e-5).rsqrt() * w.reshape([1, -1, 1, 1])
        return centred * factor + b.reshape([1, -1, 1, 1])

    for name, fwd, grad_out in (
        ("sdpa fused", fused_fwd, g),
        ("sdpa composed", composed_fwd, g),
        ("batch_norm fused", bn_fused, gx),
        ("batch_norm composed", bn_composed, gx),
    ):

        def step(fwd: Callable[[], Any] = fwd, grad_out: Any = grad_out) -> None:
            fwd().backward(grad_out)

        mb = _saved_bytes(fg, fwd) / 1e6
        print(f"{name}: {_median_ms(step, rounds):.1f} ms fwd+bwd, {mb:.1f} MB saved")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
