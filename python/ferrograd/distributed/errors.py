"""Exceptions raised by ``ferrograd.distributed``; every message names the rank that
raised it and what went wrong."""

from __future__ import annotations


class DistributedError(RuntimeError):
    """A collective failed: ranks disagreed, a peer failed, or the group is unusable."""


class CollectiveMismatchError(DistributedError):
    """Ranks called different collectives, or the same one with different shapes/dtypes."""


class RankFailedError(DistributedError):
    """Another rank raised an exception (or timed out) and told the others."""


class DistributedTimeoutError(DistributedError, TimeoutError):
    """A collective did not complete within the group's ``timeout``."""
