"""``torch.backends.cudnn``: unavailable (no GPU backend). ``benchmark``, ``deterministic``,
``enabled`` and ``allow_tf32`` keep what a script sets; they select nothing, since
ferrograd's CPU kernels are deterministic and have one algorithm each."""

from __future__ import annotations

from typing import Optional

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = True

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32"]


def is_available() -> bool:
    """False: ferrograd has no cuDNN backend."""
    return False


def version() -> Optional[int]:
    """None: no cuDNN is loaded."""
    return None
