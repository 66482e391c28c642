"""``torch.utils.data.distributed``: the rank-sharding sampler lives with the rest of
data-parallel training in :mod:`ferrograd.distributed.sampler`."""

from __future__ import annotations

from ...distributed.sampler import DistributedSampler

__all__ = ["DistributedSampler"]
