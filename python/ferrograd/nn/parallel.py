"""``torch.nn.parallel``: ``DistributedDataParallel`` (defined in
``ferrograd.distributed.ddp``, loaded on first use so ``nn`` imports without it) and
``DataParallel`` (``nn/data_parallel.py``)."""

from __future__ import annotations

from typing import Any

from .data_parallel import DataParallel as DataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]  # noqa: F822  (DDP: __getattr__)


def __getattr__(name: str) -> Any:
    if name == "DistributedDataParallel":
        from ..distributed.ddp import DistributedDataParallel

        return DistributedDataParallel
    raise AttributeError(f"module 'ferrograd.nn.parallel' has no attribute {name!r}")
