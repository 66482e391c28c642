"""PyTorch's spelling of the profiler (``torch.profiler``, after
``torch/profiler/profiler.py``): ``profile``, ``record_function``, ``schedule``,
``ProfilerActivity``, ``ProfilerAction``, ``tensorboard_trace_handler``, and the legacy
``torch.autograd.profiler.profile``.
"""

from __future__ import annotations

import functools
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any, TypeVar

from .. import _core
from ._events import EventList, FunctionEventAvg, build_events

F = TypeVar("F", bound=Callable[..., Any])


class ProfilerActivity(Enum):
    """What a profile records: ferrograd records ``CPU``; the others are accepted with a
    warning (ferrograd runs on the CPU only)."""

    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities() -> set[ProfilerActivity]:
    """The activities ferrograd records: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


class ProfilerAction(Enum):
    """What a schedule asks of a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """PyTorch's schedule: after ``skip_first`` steps, cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (the last ``RECORD_AND_SAVE``), ``repeat``
    times (0: until the profiler stops). ``skip_first_wait`` skips the first cycle's wait."""
    for n, v, low in (
        ("wait", wait, 0), ("warmup", warmup, 0), ("active", active, 1),
        ("repeat", repeat, 0), ("skip_first", skip_first, 0),
    ):  # fmt: skip
        if not isinstance(v, int) or v < low:
            raise ValueError(f"schedule(): {n} must be an int >= {low}, got {v!r}")
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError(f"schedule: the step must be >= 0, got {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step // num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        if mod_step < num_steps - 1:
            return ProfilerAction.RECORD
        return ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class record_function:
    """A named range of the profile (``with record_function("step"):`` or as a
    decorator): it shows as one event whose self time excludes the ops inside. Costs
    nothing while no profiler is on."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._open: list[Any] = []

    def __enter__(self) -> record_function:
        self._open.append(_core._profiler_range(self.name))
        return self

    def __exit__(self, *exc: object) -> None:
        r = self._open.pop() if self._open else None
        if r is not None:
            r.end()

    def __call__(self, fn: F) -> F:
        """Decorates ``fn``: each call is one range (a fresh one per call and thread)."""

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class _Session:
    """One recording of the core's observer, giving an :class:`EventList`."""

    def __init__(self, record_shapes: bool) -> None:
        _core._profiler_start(record_shapes)

    @staticmethod
    def stop() -> EventList:
        return build_events(_core._profiler_stop())


def _warn_unrecorded(**flags: bool) -> None:
    asked = [n for n, v in flags.items() if v]
    if asked:
        warnings.warn(
            f"ferrograd's profiler records op names, times and input shapes only: "
            f"{', '.join(asked)} {'is' if len(asked) == 1 else 'are'} not recorded",
            stacklevel=3,
        )


class profile:
    """``torch.profiler.profile``: records the ops run inside it (on every thread) with
    their CPU times; ``key_averages().table()``, ``events()``, ``export_chrome_trace()``
    read the last recorded span. With ``schedule``, ``step()`` moves through its actions
    and ``on_trace_ready(prof)`` runs at the end of each active span."""

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[[profile], Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Any = None,
    ) -> None:
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        if acts - {ProfilerActivity.CPU}:
            others = ", ".join(sorted(a.name for a in acts - {ProfilerActivity.CPU}))
            warnings.warn(
                f"ferrograd runs on the CPU only: {others} activity is not recorded; the CPU "
                "is profiled",
                stacklevel=2,
            )
        _warn_unrecorded(
            profile_memory=profile_memory, with_stack=with_stack, with_flops=with_flops,
            with_modules=with_modules,
        )  # fmt: skip
        self.activities = {ProfilerActivity.CPU}
        self.record_shapes = record_shapes
        self.on_trace_ready = on_trace_ready
        self.schedule = schedule if schedule is not None else _default_schedule
        self.record_steps = schedule is not None
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._session: _Session | None = None
        self._step_range: record_function | None = None
        self._events: EventList | None = None
        self.metadata: dict[str, str] = {}

    # -- the recording ----------------------------------------------------------------
    def _start_trace(self) -> None:
        if self._session is None:
            self._session = _Session(self.record_shapes)

    def _stop_trace(self) -> None:
        if self._session is not None:
            self._events = self._session.stop()
            self._session = None

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, prev: ProfilerAction, curr: ProfilerAction | None) -> None:
        # PyTorch's action map (profiler.py `_get_action_map`); warmup records nothing
        A = ProfilerAction
        recording = (A.RECORD, A.RECORD_AND_SAVE)
        if curr is None:  # stopping
            if prev in recording:
                self._stop_trace()
                self._trace_ready()
            return
        if prev == A.RECORD_AND_SAVE:
            self._stop_trace()
            self._trace_ready()
            if curr in recording:
                self._start_trace()
            return
        if prev == A.RECORD and curr in (A.NONE, A.WARMUP):
            warnings.warn(f"Incorrect schedule: RECORD followed by {curr.name}", stacklevel=3)
            self._stop_trace()
            self._trace_ready()
            return
        if prev == A.WARMUP and curr == A.NONE:
            warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
        if prev in (A.NONE, A.WARMUP) and curr in recording:
            self._start_trace()

    def _open_step(self) -> None:
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def start(self) -> None:
        """Enters step 0 of the schedule (recording at once without one)."""
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self) -> None:
        """Ends the profile; a recording span ends and ``on_trace_ready`` runs."""
        self._close_step()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """Marks the end of a training step: the schedule's next action takes effect."""
        self._close_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._open_step()

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the results -----------------------------------------------------------------
    def events(self) -> EventList:
        """The last recorded span's events, by start time (empty before one ends)."""
        return self._events if self._events is not None else EventList()

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """The events averaged per name (and per input shapes if asked); ``.table()``
        prints them."""
        if group_by_input_shape and not self.record_shapes:
            raise RuntimeError(
                "key_averages(group_by_input_shape=True) needs the shapes: profile with "
                "record_shapes=True"
            )
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Writes the last recorded span as a Chrome trace JSON file at ``path``."""
        self.events().export_chrome_trace(path)

    def add_metadata(self, key: str, value: str) -> None:
        """Keeps a user metadata pair (not part of ferrograd's trace files)."""
        self.metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        """As :meth:`add_metadata`."""
        self.metadata[key] = value


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each recorded span's Chrome trace into
    ``dir_name`` as ``<worker>.<time_ns>.pt.trace.json`` (``.gz`` with ``use_gzip``); the
    worker defaults to ``<hostname>_<pid>``."""

    def handler_fn(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip
            import shutil

            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)

    return handler_fn


class LegacyProfile:
    """``torch.autograd.profiler.profile``: records while inside it (when ``enabled``);
    then ``function_events``, ``key_averages()``, ``table()``, ``export_chrome_trace()``."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
    ) -> None:
        if use_cuda or (use_device not in (None, "cpu")):
            warnings.warn(
                "ferrograd runs on the CPU only: device activity is not recorded; the CPU "
                "is profiled",
                stacklevel=2,
            )
        _warn_unrecorded(
            profile_memory=profile_memory, with_stack=with_stack, with_flops=with_flops,
            with_modules=with_modules,
        )  # fmt: skip
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events: EventList | None = None
        self._session: _Session | None = None

    def __enter__(self) -> LegacyProfile:
        if self.enabled:
            self._session = _Session(self.record_shapes)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._session is not None:
            self.function_events = self._session.stop()
            self._session = None

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running: read it after its `with` block")
        return self.function_events

    def events(self) -> EventList:
        """The recorded events."""
        return self._events()

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """The events averaged per name (and input shapes if asked)."""
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        """The events' table (see ``EventList.table``)."""
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one."""
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the events' self times in microseconds."""
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Writes the events as a Chrome trace JSON file."""
        self._events().export_chrome_trace(path)

    def __str__(self) -> str:
        return self.table()
