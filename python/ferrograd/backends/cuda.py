"""``torch.backends.cuda``: not built (no GPU backend). ``matmul.allow_tf32`` and
``matmul.allow_fp16_reduced_precision_reduction`` keep what a script sets and change
nothing (ferrograd's float32 matmul always accumulates in float32)."""

from __future__ import annotations

from types import SimpleNamespace

matmul = SimpleNamespace(
    allow_tf32=False,
    allow_fp16_reduced_precision_reduction=True,
    allow_bf16_reduced_precision_reduction=True,
)

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """False: ferrograd was not built with CUDA."""
    return False
