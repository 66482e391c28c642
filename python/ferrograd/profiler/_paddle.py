"""Paddle's spelling of the profiler (``paddle.profiler``, after
``python/paddle/profiler/profiler.py``, ``utils.py`` and ``timer.py``): ``Profiler``,
``RecordEvent``, ``make_scheduler``, ``export_chrome_tracing``, ``ProfilerTarget``,
``ProfilerState``, ``SortedKeys``, over the same recording as ``torch.profiler``.
"""

from __future__ import annotations

import datetime
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from .. import _core
from ._events import EventList, build_events
from ._paddle_summary import SortedKeys, summary_text


class ProfilerState(Enum):
    """A step's state under a scheduler."""

    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3  # the last step of RECORD


class ProfilerTarget(Enum):
    """The devices to profile: ferrograd records ``CPU``; the others are accepted with
    a warning (ferrograd runs on the CPU only)."""

    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


class TracerEventType(Enum):
    """The kinds of Paddle's trace events (``RecordEvent`` accepts one; ferrograd shows
    every user range alike)."""

    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14


def make_scheduler(
    *, closed: int, ready: int, record: int, repeat: int = 0, skip_first: int = 0
) -> Callable[[int], ProfilerState]:
    """Paddle's scheduler: after ``skip_first`` steps, cycles of ``closed``, ``ready`` and
    ``record`` steps (the last ``RECORD_AND_RETURN``), ``repeat`` times (0: until the
    profiler stops)."""
    for n, v, low in (
        ("closed", closed, 0), ("ready", ready, 0), ("record", record, 1),
        ("repeat", repeat, 0), ("skip_first", skip_first, 0),
    ):  # fmt: skip
        if not isinstance(v, int) or v < low:
            raise ValueError(f"make_scheduler(): {n} must be an int >= {low}, got {v!r}")
    if ready == 0:
        warnings.warn(
            "Profiler will record data after enabling profiler immediately, some data "
            "collected at the beginning of profiling may be 'noisy' because of overhead.",
            stacklevel=2,
        )

    def get_state(step: int) -> ProfilerState:
        if step < 0:
            raise ValueError(f"scheduler: the step must be >= 0, got {step}")
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        period = closed + ready + record
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        mod = step % period
        if mod < closed:
            return ProfilerState.CLOSED
        if mod < closed + ready:
            return ProfilerState.READY
        if mod < period - 1:
            return ProfilerState.RECORD
        return ProfilerState.RECORD_AND_RETURN

    return get_state


def _default_state_scheduler(_: int) -> ProfilerState:
    return ProfilerState.RECORD


def _tuple_scheduler(scheduler: tuple[int, int] | list[int]) -> Callable[[int], ProfilerState]:
    # Paddle: the steps [start_batch, end_batch) are recorded, the one before is READY
    if len(scheduler) != 2 or not scheduler[1] > scheduler[0]:
        raise ValueError(
            f"Profiler(scheduler=(start_batch, end_batch)) needs end_batch > start_batch, "
            f"got {tuple(scheduler)!r}"
        )
    start, end = max(scheduler[0], 0), scheduler[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if start >= 1:
            return make_scheduler(closed=max(start - 1, 0), ready=1, record=end - start, repeat=1)
        return make_scheduler(closed=0, ready=0, record=end - start, repeat=1)


def export_chrome_tracing(
    dir_name: str, worker_name: str | None = None
) -> Callable[[Profiler], None]:
    """An ``on_trace_ready`` that writes each recorded span as a Chrome trace JSON file
    ``<worker>_time_<date>.paddle_trace.json`` in ``dir_name`` (made now); the worker
    defaults to ``host_<hostname>pid_<pid>``."""
    try:
        os.makedirs(dir_name, exist_ok=True)
    except OSError as e:
        raise RuntimeError(
            f"Can not create directory '{dir_name}' for saving profiling results."
        ) from e

    def handle_fn(prof: Profiler) -> None:
        worker = worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"
        now = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        prof.export(os.path.join(dir_name, f"{worker}_time_{now}.paddle_trace.json"), "json")

    return handle_fn


def export_protobuf(dir_name: str, worker_name: str | None = None) -> Callable[[Profiler], None]:
    """Paddle's protobuf export: not available in ferrograd (use
    :func:`export_chrome_tracing`)."""
    raise NotImplementedError(
        "ferrograd's profiler writes Chrome trace JSON only: use "
        "export_chrome_tracing(dir_name) instead of export_protobuf"
    )


class RecordEvent:
    """A named range of the profile: ``begin()`` / ``end()``, a ``with`` block, or a
    decorator. Costs nothing while no profiler records."""

    def __init__(
        self, name: str, event_type: TracerEventType = TracerEventType.PythonUserDefined
    ) -> None:
        self.name = name
        self.event_type = event_type
        self._range: Any = None

    def begin(self) -> None:
        """Opens the range (a second ``begin`` first ends the open one)."""
        self.end()
        self._range = _core._profiler_range(self.name)

    def end(self) -> None:
        """Ends the range (nothing when none is open)."""
        r, self._range = self._range, None
        if r is not None:
            r.end()

    def __enter__(self) -> RecordEvent:
        self.begin()
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorates ``fn``: each call is one range."""
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with RecordEvent(self.name, self.event_type):
                return fn(*args, **kwargs)

        return wrapper


class _StepTimer:
    """Paddle's benchmark timer (``timer.py``): each step's cost and throughput."""

    SKIP = 10  # (Paddle's summary leaves out the first 10 steps)

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.costs: list[float] = []  # since the last step_info
        self.samples: list[int | None] = []
        self.all: list[tuple[float, int | None]] = []

    def step(self, num_samples: int | None) -> None:
        now = time.perf_counter()
        cost, self.t0 = now - self.t0, now
        self.costs.append(cost)
        self.samples.append(num_samples)
        self.all.append((cost, num_samples))

    def info(self, unit: str) -> str:
        msg = ""
        if self.costs:
            total = sum(self.costs)
            msg += f" batch_cost: {total / len(self.costs):.5f} s"
            if all(s is None for s in self.samples):
                ips, unit_s = len(self.costs) / total if total else 0.0, "steps/s"
            else:
                n = sum(s or 0 for s in self.samples)
                ips, unit_s = (n / total if total else 0.0), f"{unit}/s"
            if ips:
                msg += f" ips: {ips:.3f} {unit_s}"
        self.costs, self.samples = [], []
        return msg

    def print_summary(self) -> None:
        rows = self.all[self.SKIP :]
        if not rows:
            return
        costs = [c for c, _ in rows]
        steps_mode = all(s is None for _, s in rows)
        speeds = [(1.0 if steps_mode else float(s or 0)) / c for c, s in rows if c > 0]
        total = sum(costs)
        speed_avg = (len(rows) if steps_mode else sum(s or 0 for _, s in rows)) / total
        print("Perf Summary".center(100, "="))
        print(f"Time Unit: s, IPS Unit: {'steps/s' if steps_mode else 'samples/s'}")
        print("|", "".center(15), "|", "avg".center(15), "|", "max".center(15), "|",
              "min".center(15), "|")  # fmt: skip
        for item, avg, values in (
            ("batch_cost", total / len(costs), costs),
            ("ips", speed_avg, speeds or [0.0]),
        ):
            cells = [f"{v:.5f}".center(15) for v in (avg, max(values), min(values))]
            print("|", item.center(15), "|", cells[0], "|", cells[1], "|", cells[2], "|")


class Profiler:
    """``paddle.profiler.Profiler``: records ops between ``start()`` and ``stop()`` (or in
    a ``with`` block) as its ``scheduler`` says (a callable of the step number, or
    ``(start_batch, end_batch)``: the steps ``[start_batch, end_batch)``); at the end of
    each recorded span ``on_trace_ready(prof)`` runs (default: Chrome trace files in
    ``./profiler_log/``). ``timer_only=True`` only times the steps (``step_info()``)."""

    def __init__(
        self,
        *,
        targets: Iterable[ProfilerTarget] | None = None,
        scheduler: Callable[[int], ProfilerState] | tuple[int, int] | None = None,
        on_trace_ready: Callable[[Profiler], Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        timer_only: bool = False,
        emit_nvtx: bool = False,
        custom_device_types: list[str] | None = None,
        with_flops: bool = False,
    ) -> None:
        asked = set(targets) if targets else {ProfilerTarget.CPU}
        for t in sorted(asked - {ProfilerTarget.CPU}, key=lambda t: t.value):
            warnings.warn(
                f"Profiling {t} is not supported in current context: ferrograd runs on the "
                "CPU only, the CPU is profiled",
                stacklevel=2,
            )
        if profile_memory or with_flops:
            warnings.warn(
                "ferrograd's profiler records op names, times and input shapes only: "
                "memory and flops are not recorded",
                stacklevel=2,
            )
        self.targets = {ProfilerTarget.CPU}
        if callable(scheduler):
            self.scheduler: Callable[[int], ProfilerState] = scheduler
        elif isinstance(scheduler, (tuple, list)):
            self.scheduler = _tuple_scheduler(scheduler)
        elif scheduler is None:
            self.scheduler = _default_state_scheduler
        else:
            raise TypeError(
                "Profiler(scheduler=...) takes a callable of the step number, a "
                f"(start_batch, end_batch) tuple or None, got {type(scheduler).__name__}"
            )
        self.on_trace_ready = (
            on_trace_ready
            if on_trace_ready is not None
            else export_chrome_tracing("./profiler_log/")
        )
        self.record_shapes = record_shapes
        self.timer_only = timer_only
        self.step_num = 0
        self.previous_state = ProfilerState.CLOSED
        self.current_state = self.scheduler(self.step_num)
        self.record_event: RecordEvent | None = None
        self.profiler_result: EventList | None = None
        self._recording = False
        self._timer = _StepTimer()

    def _start_rec(self) -> None:
        if not self._recording:
            _core._profiler_start(self.record_shapes)
            self._recording = True

    def _stop_rec(self) -> None:
        if self._recording:
            self._recording = False
            self.profiler_result = build_events(_core._profiler_stop())

    def _trigger(self, prev: ProfilerState, curr: ProfilerState | None) -> None:
        # Paddle's `_trigger_action` (a READY step records nothing)
        S = ProfilerState
        recording = (S.RECORD, S.RECORD_AND_RETURN)
        if prev == S.RECORD_AND_RETURN or (curr is None and prev == S.RECORD):
            self._stop_rec()
            if curr in recording:
                self._start_rec()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            return
        if prev == S.READY and curr in (S.CLOSED, None):
            warnings.warn(
                "Improper schedule: READY->CLOSED, profiler will start and stop without "
                "saving data",
                stacklevel=3,
            )
        if prev == S.RECORD and curr in (S.CLOSED, S.READY):
            warnings.warn(
                f"Improper schedule: RECORD->{curr.name}, profiler will not saving data",
                stacklevel=3,
            )
            self._stop_rec()
            self.profiler_result = None
            return
        if curr in recording:
            self._start_rec()

    def _open_step(self) -> None:
        if self._recording:
            self.record_event = RecordEvent(
                f"ProfileStep#{self.step_num}", TracerEventType.ProfileStep
            )
            self.record_event.begin()

    def _close_step(self) -> None:
        if self.record_event is not None:
            self.record_event.end()
            self.record_event = None

    def start(self) -> None:
        """Starts the profiler at step 0 (and the step timer)."""
        self._timer = _StepTimer()
        if self.timer_only:
            return
        self._trigger(ProfilerState.CLOSED, self.current_state)
        self._open_step()

    def stop(self) -> None:
        """Stops the profiler; a recorded span ends and ``on_trace_ready`` runs."""
        self._timer.print_summary()
        if self.timer_only:
            return
        self._close_step()
        self._trigger(self.current_state, None)

    def step(self, num_samples: int | None = None) -> None:
        """Ends a step (``num_samples`` in it, for ``step_info``'s ips): the scheduler's
        next state takes effect."""
        self._timer.step(num_samples)
        if self.timer_only:
            return
        self._close_step()
        self.previous_state = self.current_state
        self.step_num += 1
        self.current_state = self.scheduler(self.step_num)
        self._trigger(self.previous_state, self.current_state)
        self._open_step()

    def step_info(self, unit: str | None = None) -> str:
        """The average step cost and throughput since the last call, as Paddle prints them
        (``' batch_cost: 0.01234 s ips: 81.037 steps/s'``; ``unit``/s with samples)."""
        return self._timer.info(unit if unit is not None else "samples")

    def __enter__(self) -> Profiler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def events(self) -> EventList:
        """The last recorded span's events (empty before one ends)."""
        return self.profiler_result if self.profiler_result is not None else EventList()

    def export(self, path: str = "", format: str = "json") -> None:
        """Writes the last recorded span to ``path`` as Chrome trace JSON (``format``
        must be ``'json'``)."""
        if format != "json":
            raise ValueError(
                f"Profiler.export(format={format!r}): ferrograd writes 'json' (Chrome trace) only"
            )
        if self.profiler_result is not None:
            self.profiler_result.export_chrome_trace(path)

    def summary(
        self,
        sorted_by: SortedKeys = SortedKeys.CPUTotal,
        op_detail: bool = True,
        thread_sep: bool = False,
        time_unit: str = "ms",
        views: Any = None,
    ) -> None:
        """Prints the summary tables of the last recorded span: the ops (with the ops
        each ran inside it when ``op_detail``; one table per thread when ``thread_sep``)
        and the user ranges, times in ``time_unit`` (``'s'``, ``'ms'``, ``'us'``,
        ``'ns'``), rows sorted by ``sorted_by``."""
        if self.profiler_result is not None:
            print(summary_text(self.profiler_result, sorted_by, op_detail, thread_sep, time_unit))
