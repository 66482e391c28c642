"""The op profiler: ``torch.profiler`` / ``paddle.profiler`` over the core's observer.

References: PyTorch's ``torch/profiler/profiler.py`` (``profile``, ``schedule``,
``_get_action_map``, ``tensorboard_trace_handler``) and ``torch/autograd/profiler_util.py``
(``EventList.table`` / ``_build_table``: the columns and the ``Self CPU time total:``
footer); Paddle's ``python/paddle/profiler/profiler.py`` (``make_scheduler``,
``Profiler`` with a ``(start, end)`` scheduler, ``_trigger_action``), ``utils.py``
(``RecordEvent``) and ``timer.py`` (``step_info``). No timed assertions: durations are
only checked to be >= 0 and to nest.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections import Counter
from pathlib import Path

import ferrograd as fg
import ferrograd.profiler as prof_mod
import pytest
from ferrograd import _core
from ferrograd.profiler import (
    Profiler,
    ProfilerAction,
    ProfilerActivity,
    ProfilerState,
    ProfilerTarget,
    RecordEvent,
    SortedKeys,
    export_chrome_tracing,
    make_scheduler,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def names(events) -> Counter:
    return Counter(e.name for e in events)


def test_profiler_module_is_exposed():
    assert fg.profiler is prof_mod
    assert fg.autograd.profiler.profile is not None
    assert fg.autograd.profiler.record_function is record_function


def test_ops_inside_the_block_are_counted():
    a, b = fg.ones(3), fg.ones(3)
    with profile() as p:
        for _ in range(3):
            a + b
        fg.add(a, b)  # the module function: one event, not one per layer
        fg.multiply(a, b)  # Paddle's spelling: aten::mul, as `*` and fg.mul
        a.sum()
        a.exp()
        a @ b
        a.reshape([3, 1])
    n = names(p.events())
    assert n["aten::add"] == 4
    assert n["aten::mul"] == 1
    assert n["aten::sum"] == 1
    assert n["aten::exp"] == 1
    assert n["aten::matmul"] == 1
    assert n["aten::reshape"] == 1
    avg = {e.key: e for e in p.key_averages()}
    assert avg["aten::add"].count == 4
    assert all(e.cpu_time_total >= 0 and e.self_cpu_time_total >= 0 for e in avg.values())


def test_nothing_recorded_when_off_or_after_stop():
    a = fg.ones(2)
    assert not _core._profiler_enabled()
    assert _core._profiler_range("x") is None
    with profile() as p:
        a + a
    assert not _core._profiler_enabled()
    a * a  # after the block
    assert names(p.events()) == Counter({"aten::add": 1})
    # a fresh session does not see what ran before it
    a - a
    with profile() as q:
        pass
    assert len(q.events()) == 0
    assert _core._profiler_stop() == []  # none running: nothing


def test_a_second_session_at_once_is_refused():
    with profile():
        with pytest.raises(RuntimeError, match="already running"):
            _core._profiler_start(False)
    assert not _core._profiler_enabled()


def test_record_function_nests_and_self_time_excludes_children():
    a = fg.ones(4)
    with profile() as p:
        with record_function("outer"):
            a + a
            with record_function("inner"):
                a * a
                a * a
    ev = {e.name: e for e in p.events() if e.kind == "range"}
    outer, inner = ev["outer"], ev["inner"]
    assert inner.cpu_parent is outer
    muls = [e for e in p.events() if e.name == "aten::mul"]
    assert len(muls) == 2 and all(m.cpu_parent is inner for m in muls)
    for e in (outer, inner):
        kids = sum(c.cpu_time_total for c in e.cpu_children)
        assert e.self_cpu_time_total == pytest.approx(max(0.0, e.cpu_time_total - kids))
        assert e.time_range.start <= min(c.time_range.start for c in e.cpu_children)
        assert e.time_range.end >= max(c.time_range.end for c in e.cpu_children)


def test_record_function_as_decorator():
    @record_function("my_fn")
    def f(x):
        return x + 1

    x = fg.ones(2)
    with profile() as p:
        f(x)
        f(x)
    ranges = [e for e in p.events() if e.name == "my_fn"]
    assert len(ranges) == 2
    assert all(any(c.name == "aten::add" for c in r.cpu_children) for r in ranges)


def test_backward_nodes_appear_with_their_ops_inside():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with profile() as p:
        (x * x).sum().backward()
    n = names(p.events())
    assert n["autograd::engine::evaluate_function: MulBackward0"] == 1
    assert n["autograd::engine::evaluate_function: SumBackward0"] == 1
    mul_bw = next(e for e in p.events() if e.name.endswith("MulBackward0"))
    assert mul_bw.kind == "backward"
    # the backward formula's own ops nest inside the node
    assert all(c.kind == "op" for c in mul_bw.cpu_children)


def test_record_shapes_and_group_by_input_shape():
    a, b = fg.ones([2, 3]), fg.ones([3])
    with profile(record_shapes=True) as p:
        a + b
        a + a
    adds = [e for e in p.events() if e.name == "aten::add"]
    assert sorted(map(str, (e.input_shapes for e in adds))) == ["[[2, 3], [2, 3]]", "[[2, 3], [3]]"]
    groups = p.key_averages(group_by_input_shape=True)
    assert sum(1 for g in groups if g.key == "aten::add") == 2
    table = groups.table(sort_by="count", row_limit=10)
    assert "Input Shapes" in table
    with profile() as q:
        a + a
    assert next(iter(q.events())).input_shapes == []
    with pytest.raises(RuntimeError, match="record_shapes=True"):
        q.key_averages(group_by_input_shape=True)


def test_table_has_pytorchs_layout():
    a = fg.ones(3)
    with profile() as p:
        for _ in range(3):
            a + a
        a.exp()
    t = p.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    lines = t.splitlines()
    head = lines[1].split()
    assert (
        " ".join(head) == "Name Self CPU % Self CPU CPU total % CPU total CPU time avg # of Calls"
    )
    assert lines[0].startswith("-") and lines[2].startswith("-")
    assert lines[-1].startswith("Self CPU time total: ")
    row = next(ln for ln in lines if "aten::add" in ln)
    assert row.split()[-1] == "3"
    for key in ("self_cpu_time_total", "count", "cpu_time", "cuda_time_total"):
        assert "aten::exp" in p.key_averages().table(sort_by=key)
    assert len(p.key_averages().table(row_limit=1).splitlines()) == 6
    with pytest.raises(ValueError, match="sort_by"):
        p.key_averages().table(sort_by="nonsense")


def _check_trace(path: Path) -> list[dict]:
    data = json.loads(path.read_text())
    evs = data["traceEvents"]
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in evs)
    assert all({"name", "pid", "tid", "ts", "dur"} <= set(e) for e in evs)
    # per thread, two events either nest or do not overlap
    by_tid: dict[int, list[dict]] = {}
    for e in evs:
        by_tid.setdefault(e["tid"], []).append(e)
    eps = 1e-3  # (ts and dur are rounded to the ns)
    for lst in by_tid.values():
        for i, x in enumerate(lst):
            for y in lst[i + 1 :]:
                xs, xe, ys, ye = x["ts"], x["ts"] + x["dur"], y["ts"], y["ts"] + y["dur"]
                disjoint = xe <= ys + eps or ye <= xs + eps
                nested = (xs <= ys + eps and ye <= xe + eps) or (ys <= xs + eps and xe <= ye + eps)
                assert disjoint or nested, (x, y)
    return evs


def test_chrome_trace_is_valid_and_nested(tmp_path):
    x = fg.ones([4, 4], requires_grad=True)
    with profile() as p:
        with record_function("fwd"):
            y = (x @ x).tanh().sum()
        y.backward()
    path = tmp_path / "trace.json"
    p.export_chrome_trace(str(path))
    evs = _check_trace(path)
    assert {"fwd", "aten::matmul", "aten::tanh", "aten::sum"} <= {e["name"] for e in evs}
    with pytest.raises(TypeError, match="averages"):
        p.key_averages().export_chrome_trace(str(tmp_path / "no.json"))


def test_threads_record_separately():
    a = fg.ones(2)

    def work():
        for _ in range(5):
            a * a

    with profile() as p:
        t = threading.Thread(target=work)
        t.start()
        t.join()
        a + a
    tids = {e.name: e.thread for e in p.events()}
    assert tids["aten::mul"] != tids["aten::add"]
    assert tids["aten::add"] == threading.get_native_id()
    assert names(p.events())["aten::mul"] == 5


def test_schedule_actions():
    s = schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    A = ProfilerAction
    assert [s(i) for i in range(7)] == [
        A.NONE, A.NONE, A.WARMUP, A.RECORD, A.RECORD_AND_SAVE, A.NONE, A.NONE,
    ]  # fmt: skip
    s2 = schedule(wait=0, warmup=1, active=1)
    assert [s2(i) for i in range(4)] == [A.WARMUP, A.RECORD_AND_SAVE] * 2
    with pytest.warns(UserWarning, match="warmup"):
        schedule(wait=1, warmup=0, active=1)
    with pytest.raises(ValueError, match="active"):
        schedule(wait=1, warmup=1, active=0)


def test_schedule_drives_recording_and_trace_ready(tmp_path):
    a = fg.ones(2)
    spans = []

    def ready(p):
        spans.append((p.step_num, names(p.events())))

    sched = schedule(wait=1, warmup=1, active=2, repeat=2)
    with profile(schedule=sched, on_trace_ready=ready) as p:
        for step in range(10):
            for _ in range(step + 1):
                a + a
            p.step()
    # active steps 2-3 and 6-7: each span's trace is ready at its end
    assert [s for s, _ in spans] == [4, 8]
    assert spans[0][1]["aten::add"] == 3 + 4
    assert spans[1][1]["aten::add"] == 7 + 8
    assert spans[0][1]["ProfilerStep#2"] == 1 and spans[0][1]["ProfilerStep#3"] == 1
    assert not _core._profiler_enabled()

    handler = tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w")
    with profile(schedule=schedule(wait=0, warmup=1, active=1), on_trace_ready=handler) as p:
        for _ in range(4):
            a + a
            p.step()
    files = sorted((tmp_path / "tb").glob("w.*.pt.trace.json"))
    assert len(files) == 2
    for f in files:
        _check_trace(f)


def test_cuda_activity_warns_and_profiles_cpu():
    with pytest.warns(UserWarning, match="CPU only"):
        p = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with p:
        fg.ones(2).exp()
    assert names(p.events())["aten::exp"] == 1
    assert prof_mod.supported_activities() == {ProfilerActivity.CPU}


def test_legacy_autograd_profiler():
    a = fg.ones(2)
    with fg.autograd.profiler.profile(record_shapes=True) as p:
        with fg.autograd.profiler.record_function("blk"):
            a + a
    assert names(p.function_events)["aten::add"] == 1
    assert "Self CPU time total" in p.table(sort_by="self_cpu_time_total")
    assert p.self_cpu_time_total >= 0
    with fg.autograd.profiler.profile(enabled=False) as q:
        a + a
    assert len(q.function_events or []) == 0


# ---- Paddle -------------------------------------------------------------------------


def test_make_scheduler_states():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = make_scheduler(closed=1, ready=1, record=2, repeat=1, skip_first=1)
    S = ProfilerState
    assert [s(i) for i in range(7)] == [
        S.CLOSED, S.CLOSED, S.READY, S.RECORD, S.RECORD_AND_RETURN, S.CLOSED, S.CLOSED,
    ]  # fmt: skip
    with pytest.raises(ValueError, match="record"):
        make_scheduler(closed=1, ready=1, record=0)


def test_paddle_profiler_with_tuple_scheduler(tmp_path, capsys):
    a = fg.ones(2)
    results = []
    p = Profiler(
        targets=[ProfilerTarget.CPU],
        scheduler=(2, 4),
        on_trace_ready=lambda pr: results.append(names(pr.events())),
    )
    p.start()
    for step in range(6):
        for _ in range(step + 1):
            a * a
        p.step()
    p.stop()
    # steps [2, 4) recorded: 3 + 4 multiplies, once
    assert len(results) == 1 and results[0]["aten::mul"] == 7
    assert results[0]["ProfileStep#2"] == 1
    p.summary(sorted_by=SortedKeys.CPUTotal, op_detail=True, thread_sep=False, time_unit="ms")
    out = capsys.readouterr().out
    assert "Operator Summary" in out and "aten::mul" in out and "Time unit: ms" in out
    with pytest.raises(ValueError, match="end_batch"):
        Profiler(scheduler=(3, 3), on_trace_ready=lambda pr: None)


def test_paddle_profiler_default_and_export(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = fg.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.warns(UserWarning, match="CPU only"):
        prof = Profiler(targets=[ProfilerTarget.CPU, ProfilerTarget.GPU])
    with prof:
        with RecordEvent("forward"):
            y = (x * x).sum()
        y.backward()
    files = list((tmp_path / "profiler_log").glob("*.paddle_trace.json"))
    assert len(files) == 1  # the default on_trace_ready
    evs = _check_trace(files[0])
    assert "forward" in {e["name"] for e in evs}
    prof.export(str(tmp_path / "out.json"))
    _check_trace(tmp_path / "out.json")
    with pytest.raises(ValueError, match="json"):
        prof.export(str(tmp_path / "out.pb"), format="pb")
    ch = export_chrome_tracing(str(tmp_path / "log2"), worker_name="wk")
    ch(prof)
    assert len(list((tmp_path / "log2").glob("wk_time_*.paddle_trace.json"))) == 1


def test_record_event_begin_end_and_summary_units(capsys):
    a = fg.ones(3)
    with Profiler(on_trace_ready=lambda pr: None) as p:
        ev = RecordEvent("blk")
        ev.begin()
        a + a
        ev.end()
        ev.end()  # a second end does nothing
    blk = [e for e in p.events() if e.name == "blk"]
    assert len(blk) == 1 and [c.name for c in blk[0].cpu_children] == ["aten::add"]
    for unit in ("s", "ms", "us", "ns"):
        p.summary(time_unit=unit, thread_sep=True, sorted_by=SortedKeys.CPUAvg)
    out = capsys.readouterr().out
    assert "UserDefined Summary" in out and "blk" in out
    with pytest.raises(ValueError, match="time_unit"):
        p.summary(time_unit="h")


def test_paddle_timer_only_step_info():
    p = Profiler(timer_only=True, on_trace_ready=lambda pr: None)
    p.start()
    for _ in range(3):
        fg.ones(2) + 1
        p.step(num_samples=8)
    info = p.step_info(unit="images")
    p.stop()
    assert info.startswith(" batch_cost: ") and "images/s" in info
    assert len(p.events()) == 0  # timer only: no ops recorded
    assert not _core._profiler_enabled()
