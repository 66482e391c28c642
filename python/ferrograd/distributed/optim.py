"""``torch.distributed.optim``: ``ZeroRedundancyOptimizer`` (ZeRO-1 optimizer-state
sharding; see ``ferrograd.distributed.zero``)."""

from __future__ import annotations

from .zero import ZeroRedundancyOptimizer as ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
