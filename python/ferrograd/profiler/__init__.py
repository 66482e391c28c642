"""The op profiler: ``torch.profiler`` and ``paddle.profiler`` over one recording.

The Rust core reports each op (``aten::<name>``, PyTorch's naming), each backward node
(``autograd::engine::evaluate_function: MulBackward0``) and each user range with its
thread and CPU times; see ``docs/profiler.md``. The two dialects' names do not collide,
so both live here:

- PyTorch: ``profile``, ``record_function``, ``schedule``, ``ProfilerActivity``,
  ``ProfilerAction``, ``tensorboard_trace_handler``, ``supported_activities``;
- Paddle: ``Profiler``, ``RecordEvent``, ``make_scheduler``, ``export_chrome_tracing``,
  ``export_protobuf``, ``ProfilerTarget``, ``ProfilerState``, ``SortedKeys``,
  ``TracerEventType``.
"""

from __future__ import annotations

from ._events import EventList as EventList
from ._events import FunctionEvent as FunctionEvent
from ._events import FunctionEventAvg as FunctionEventAvg
from ._paddle import Profiler as Profiler
from ._paddle import ProfilerState as ProfilerState
from ._paddle import ProfilerTarget as ProfilerTarget
from ._paddle import RecordEvent as RecordEvent
from ._paddle import TracerEventType as TracerEventType
from ._paddle import export_chrome_tracing as export_chrome_tracing
from ._paddle import export_protobuf as export_protobuf
from ._paddle import make_scheduler as make_scheduler
from ._paddle_summary import SortedKeys as SortedKeys
from ._torch import ProfilerAction as ProfilerAction
from ._torch import ProfilerActivity as ProfilerActivity
from ._torch import profile as profile
from ._torch import record_function as record_function
from ._torch import schedule as schedule
from ._torch import supported_activities as supported_activities
from ._torch import tensorboard_trace_handler as tensorboard_trace_handler

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "Profiler",
    "ProfilerAction",
    "ProfilerActivity",
    "ProfilerState",
    "ProfilerTarget",
    "RecordEvent",
    "SortedKeys",
    "TracerEventType",
    "export_chrome_tracing",
    "export_protobuf",
    "make_scheduler",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]
