"""``torch.nn.parallel``: ``DistributedDataParallel`` (defined in
``ferrograd.distributed.ddp``, loaded on first use so ``nn`` imports without it)."""

from __future__ import annotations

from typing import Any

__all__ = ["DistributedDataParallel"]  # noqa: F822  (provided by __getattr__)


def __getattr__(name: str) -> Any:
    if name == "DistributedDataParallel":
        from ..distributed.ddp import DistributedDataParallel

        return DistributedDataParallel
    raise AttributeError(f"module 'ferrograd.nn.parallel' has no attribute {name!r}")
