"""``torch.autograd.profiler``: the legacy ``profile`` and ``record_function`` (the same
recording as ``ferrograd.profiler``)."""

from __future__ import annotations

from ..profiler._events import EventList as EventList
from ..profiler._events import FunctionEvent as FunctionEvent
from ..profiler._events import FunctionEventAvg as FunctionEventAvg
from ..profiler._torch import LegacyProfile as profile
from ..profiler._torch import record_function as record_function

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]
