"""The profiler's results: events built from the core's records, their averages, and
PyTorch's summary table and Chrome trace (``torch/autograd/profiler_util.py``:
``FunctionEvent``, ``FunctionEventAvg``, ``EventList``, ``_build_table``).

Times are microseconds (floats), as in PyTorch. An event's self time is its time less
its direct children's on the same thread.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

#: raw record from ``_core._profiler_stop()``:
#: ``(name, thread_id, start_ns, duration_ns, input_shapes or None, kind)``
Raw = tuple[str, int, int, int, "list[list[int]] | None", str]

# the attributes a table can be sorted by (the CUDA / memory ones are 0: CPU only)
SORT_KEYS = (
    "cpu_time",
    "cpu_time_total",
    "self_cpu_time_total",
    "count",
    "cuda_time",
    "cuda_time_total",
    "self_cuda_time_total",
    "device_time",
    "device_time_total",
    "self_device_time_total",
    "cpu_memory_usage",
    "self_cpu_memory_usage",
    "cuda_memory_usage",
    "self_cuda_memory_usage",
    "flops",
)


class Interval:
    """An event's start and end, in microseconds."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        """The interval's length in microseconds."""
        return self.end - self.start


class _Zeros:
    """The device and memory figures of a CPU-only profile: all zero."""

    cuda_time_total = 0.0
    self_cuda_time_total = 0.0
    device_time_total = 0.0
    self_device_time_total = 0.0
    cuda_time = 0.0
    device_time = 0.0
    cpu_memory_usage = 0
    self_cpu_memory_usage = 0
    cuda_memory_usage = 0
    self_cuda_memory_usage = 0
    flops = 0
    device_type = "CPU"
    node_id = -1
    is_async = False
    is_legacy = False


class FunctionEvent(_Zeros):
    """One recorded op, backward node or range."""

    def __init__(
        self,
        id: int,
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        input_shapes: list[list[int]] | None,
        kind: str,
    ) -> None:
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.kind = kind
        self.count = 1
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None

    @property
    def key(self) -> str:
        """The name events are grouped by."""
        return self.name

    @property
    def cpu_time_total(self) -> float:
        """Duration in microseconds, children included."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        """Duration less the direct children's (never below 0)."""
        return max(0.0, self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children))

    @property
    def cpu_time(self) -> float:
        """Average duration per call (one call)."""
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
            f"cpu_time_total={self.cpu_time_total:.3f}us "
            f"self_cpu_time_total={self.self_cpu_time_total:.3f}us "
            f"input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg(_Zeros):
    """Events of one key (and input shapes, when grouped so) summed: totals and count."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: list[list[int]] = []

    def add(self, evt: FunctionEvent | FunctionEventAvg, with_shapes: bool = False) -> None:
        """Adds one event (or average) into this one."""
        if self.key is None:
            self.key = evt.key
            if with_shapes:
                self.input_shapes = evt.input_shapes
        self.count += evt.count
        self.cpu_time_total += evt.cpu_time_total
        self.self_cpu_time_total += evt.self_cpu_time_total

    @property
    def name(self) -> str | None:
        """The key (PyTorch's averages answer ``name`` too)."""
        return self.key

    @property
    def cpu_time(self) -> float:
        """Average time per call in microseconds."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} cpu_time={self.cpu_time:.3f}us "
            f"self_cpu_time_total={self.self_cpu_time_total:.3f}us count={self.count} "
            f"input_shapes={self.input_shapes}>"
        )


def build_events(raw: Iterable[Raw]) -> EventList:
    """Events from the core's records, sorted by start, each linked to its parent and
    children (the innermost enclosing event of its thread)."""
    keyed = []
    for seq, (name, tid, start_ns, dur_ns, shapes, kind) in enumerate(raw):
        keyed.append((tid, start_ns, -(start_ns + dur_ns), -seq, name, dur_ns, shapes, kind))
    # per thread by start; an enclosing event first (it ends later, or, ending at the same
    # ns, was recorded later: it closed after its child)
    keyed.sort()
    events: list[FunctionEvent] = []
    stack: list[tuple[int, int, FunctionEvent]] = []  # (tid, end_ns, event)
    for i, (tid, start_ns, neg_end, _, name, _dur, shapes, kind) in enumerate(keyed):
        end_ns = -neg_end
        evt = FunctionEvent(i, name, tid, start_ns / 1000.0, end_ns / 1000.0, shapes, kind)
        while stack and (stack[-1][0] != tid or stack[-1][1] < end_ns or stack[-1][1] <= start_ns):
            stack.pop()
        if stack:
            parent = stack[-1][2]
            evt.cpu_parent = parent
            parent.cpu_children.append(evt)
        stack.append((tid, end_ns, evt))
        events.append(evt)
    events.sort(key=lambda e: (e.time_range.start, -e.time_range.end, e.id))
    return EventList(events)


def _format_time(time_us: float) -> str:
    """PyTorch's time cell: ``1.234s``, ``1.234ms`` or ``1.234us``."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us: float, total_us: float) -> str:
    """PyTorch's percentage cell (``NaN`` of a zero total)."""
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


class EventList(list):  # type: ignore[type-arg]
    """A list of events (or of averages) with PyTorch's reports."""

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """The summary table in PyTorch's layout (Name, Self CPU %, Self CPU, CPU total %,
        CPU total, CPU time avg, # of Calls, and Input Shapes when grouped by them), rows
        sorted by the attribute ``sort_by`` (largest first), at most ``row_limit`` rows
        (all when negative), then the ``Self CPU time total:`` footer."""
        return build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
        )

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """One averaged event per name (and per input shapes when
        ``group_by_input_shape``), in order of first appearance."""
        groups: dict[tuple[str, str], FunctionEventAvg] = {}
        for evt in self:
            key = (evt.key, str(evt.input_shapes) if group_by_input_shape else "")
            groups.setdefault(key, FunctionEventAvg()).add(evt, group_by_input_shape)
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one average keyed ``Total``."""
        total = FunctionEventAvg()
        for evt in self:
            total.add(evt)
        total.key = "Total"
        return total

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the events' self times in microseconds."""
        return float(sum(e.self_cpu_time_total for e in self))

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Writes the events as a Chrome trace (``chrome://tracing``, Perfetto): a JSON
        object whose ``traceEvents`` are complete (``"ph": "X"``) events with ``ts`` and
        ``dur`` in microseconds, ``pid`` and ``tid``."""
        pid = os.getpid()
        trace = []
        for evt in self:
            if not isinstance(evt, FunctionEvent):
                raise TypeError(
                    "export_chrome_trace needs the events themselves, not averages: call it "
                    "on profile.events() (or the profiler), not on key_averages()"
                )
            item: dict[str, Any] = {
                "ph": "X",
                "cat": "user_annotation" if evt.kind == "range" else "cpu_op",
                "name": evt.name,
                "pid": pid,
                "tid": evt.thread,
                "ts": round(evt.time_range.start, 3),
                "dur": round(evt.cpu_time_total, 3),
                "args": {"External id": evt.id},
            }
            if evt.input_shapes:
                item["args"]["Input Dims"] = evt.input_shapes
            trace.append(item)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(
                {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace}, f, indent=1
            )


def build_table(
    events: Sequence[Any],
    sort_by: str | None,
    row_limit: int,
    max_name_column_width: int,
    max_shapes_column_width: int,
    header: str | None,
    top_level_events_only: bool,
) -> str:
    """PyTorch's ``_build_table`` for CPU events (see :meth:`EventList.table`)."""
    rows = list(events)
    if top_level_events_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        if sort_by not in SORT_KEYS:
            raise ValueError(
                f"table(): sort_by={sort_by!r} is not a column; use one of "
                f"{', '.join(repr(k) for k in SORT_KEYS)}"
            )
        rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
    if not rows:
        return ""
    total = sum(e.self_cpu_time_total for e in rows)
    shapes = any(e.input_shapes for e in rows)
    name_w = min(max(len(str(e.key)) for e in rows) + 4, max_name_column_width)
    shapes_w = min(max(len(str(e.input_shapes)) for e in rows) + 4, max_shapes_column_width)
    widths = [name_w] + [12] * 6 + ([shapes_w] if shapes else [])
    heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    heads += ["# of Calls"] + (["Input Shapes"] if shapes else [])

    def line(cells: list[str]) -> str:
        return "".join(f"{c:>{w}}  " for c, w in zip(cells, widths))

    sep = "".join("-" * w + "  " for w in widths)
    out = []
    if header is not None:
        out += ["=" * len(sep), header]
    if top_level_events_only:
        out += ["=" * len(sep), "This report only display top-level ops statistics"]
    out += [sep, line(heads), sep]
    for e in rows if row_limit < 0 else rows[:row_limit]:
        name = str(e.key)
        if len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        cells = [
            name,
            _format_share(e.self_cpu_time_total, total),
            _format_time(e.self_cpu_time_total),
            _format_share(e.cpu_time_total, total),
            _format_time(e.cpu_time_total),
            _format_time(e.cpu_time),
            str(e.count),
        ]
        if shapes:
            cells.append(str(e.input_shapes)[:shapes_w])
        out.append(line(cells))
    out += [sep, f"Self CPU time total: {_format_time(total)}", ""]
    return "\n".join(out)
