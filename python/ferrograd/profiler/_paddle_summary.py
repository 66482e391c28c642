"""Paddle's ``Profiler.summary()`` tables (after ``profiler_statistic.py``'s operator and
user-defined summaries, CPU columns only): per name the calls and the CPU
``Total / Avg / Max / Min / Ratio(%)``; with ``op_detail`` the ops each op ran inside it,
indented below it.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from ._events import EventList, FunctionEvent

_UNITS = {"s": 1e-6, "ms": 1e-3, "us": 1.0, "ns": 1e3}


class SortedKeys(Enum):
    """How ``summary()`` orders its rows (the GPU keys order as their CPU ones: ferrograd
    records no device time)."""

    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class _Stat:
    """Calls and total / max / min time of one name (microseconds)."""

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0.0
        self.max = 0.0
        self.min = float("inf")
        self.children: dict[str, _Stat] = {}

    def add(self, t: float) -> None:
        self.calls += 1
        self.total += t
        self.max = max(self.max, t)
        self.min = min(self.min, t)

    @property
    def avg(self) -> float:
        return self.total / self.calls if self.calls else 0.0

    def sort_value(self, key: SortedKeys) -> float:
        return (self.total, self.avg, self.max, self.min)[key.value % 4]


def _collect(events: Iterable[FunctionEvent], kinds: tuple[str, ...]) -> dict[str, _Stat]:
    stats: dict[str, _Stat] = {}
    for e in events:
        if e.kind not in kinds:
            continue
        s = stats.setdefault(e.name, _Stat())
        s.add(e.cpu_time_total)
        for c in e.cpu_children:
            if c.kind != "range":
                s.children.setdefault(c.name, _Stat()).add(c.cpu_time_total)
    return stats


def _table(
    title: str,
    stats: dict[str, _Stat],
    total_us: float,
    sorted_by: SortedKeys,
    op_detail: bool,
    time_unit: str,
) -> list[str]:
    scale = _UNITS[time_unit]

    def cell(s: _Stat) -> str:
        ratio = s.total * 100.0 / total_us if total_us else 0.0
        vals = [s.total, s.avg, s.max, s.min]
        return " / ".join(f"{v * scale:.2f}" for v in vals) + f" / {ratio:.2f}"

    rows: list[tuple[str, str, str]] = []
    for name, s in sorted(stats.items(), key=lambda kv: -kv[1].sort_value(sorted_by)):
        rows.append((name, str(s.calls), cell(s)))
        if op_detail:
            for cname, c in sorted(s.children.items(), key=lambda kv: -kv[1].sort_value(sorted_by)):
                rows.append(("  " + cname, str(c.calls), cell(c)))
    heads = ("Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)")
    widths = [max([len(heads[i])] + [len(r[i]) for r in rows]) + 2 for i in range(3)]
    widths[0] = max(widths[0], 52)
    sep = "  ".join("-" * w for w in widths)
    line_len = len(sep)
    out = [title.center(line_len, "-"), f"Time unit: {time_unit}", sep]
    out.append("  ".join(f"{h:<{w}}" for h, w in zip(heads, widths)))
    out.append(sep)
    out += ["  ".join(f"{c:<{w}}" for c, w in zip(r, widths)) for r in rows]
    out.append(sep)
    return out


def summary_text(
    events: EventList,
    sorted_by: SortedKeys,
    op_detail: bool,
    thread_sep: bool,
    time_unit: str,
) -> str:
    """The text ``Profiler.summary()`` prints."""
    if time_unit not in _UNITS:
        raise ValueError(f"summary(time_unit={time_unit!r}): use one of 's', 'ms', 'us', 'ns'")
    if not isinstance(sorted_by, SortedKeys):
        raise TypeError(f"summary(sorted_by=...) takes a SortedKeys member, got {sorted_by!r}")
    evs = [e for e in events if isinstance(e, FunctionEvent)]
    groups: list[tuple[str, list[FunctionEvent]]] = [("", evs)]
    if thread_sep:
        tids = sorted({e.thread for e in evs})
        groups = [(f" (thread {t})", [e for e in evs if e.thread == t]) for t in tids]
    out: list[str] = []
    for suffix, group in groups:
        top = [e for e in group if e.cpu_parent is None]
        total = sum(e.cpu_time_total for e in top)
        ops = _collect(group, ("op", "backward"))
        out += _table(f"Operator Summary{suffix}", ops, total, sorted_by, op_detail, time_unit)
        ranges = _collect([e for e in group if not e.name.startswith("ProfileStep#")], ("range",))
        if ranges:
            out.append("")
            out += _table(
                f"UserDefined Summary{suffix}", ranges, total, sorted_by, False, time_unit
            )
        out.append("")
    return "\n".join(out)
