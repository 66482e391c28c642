"""A static program's call log, and pruning a program to what its fetch variables need
(``normalize_program`` / ``save_inference_model``, ``static/inference_model.py``).

The Rust program does not describe its ops back to Python, so every ``Program`` keeps,
in ``Program._calls``, the calls that built it, in order, with their Python arguments:
``{"call": "var", "kind", "out"}`` (``create_var``), ``"op"`` / ``"op_multi"`` (the op
name, input ids, attributes and output id(s)), ``"const"`` (the value and the
``like`` variable that types a scalar), ``"assign"`` (``src`` -> ``dst``),
``"traced"`` (the eager function an op runs, see ``eager_ops.py``) and ``"py_func"``.
The calls the log does not note are the training ones (``gradients``, the optimizer's
updates and state, the startup program's initialisations); ``check_complete`` makes
sure nothing else was built past the log.

``prune`` rebuilds the part of a program the fetch variables need into a new program:
walking the log backwards, a call is kept when it writes a variable still needed (not
a feed variable, not a persistable one: an update of a parameter is training, and
the inference program reads the parameter's saved value), and then its inputs are
needed. Kept calls are replayed in their original order, so every value read is the
one the original program computes. ``encode`` writes a (pruned) program as the JSON
notes ``jit.save`` writes (``static/export.py``), so both loaders read both files.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from . import eager_ops as _eager_ops
from . import export as _export
from .program import Program

#: Rust op kinds whose calls the log does not note (training and initialisation)
UNLOGGED_OPS = frozenset({"gradients", "optimizer_step", "init"})
_CALLBACKS = ("traced", "py_func")


def writes(e: dict[str, Any]) -> list[int]:
    """The variable ids call ``e`` creates or writes."""
    c = e["call"]
    if c in ("op", "const", "var"):
        return [int(e["out"])]
    if c == "op_multi":
        return [int(i) for i in e["out"]]
    if c == "assign":
        return [int(e["dst"])]
    return [int(i) for i in e["outputs"]]


def creates(e: dict[str, Any]) -> list[int]:
    """The variable ids call ``e`` creates (in its order)."""
    return writes(e) if e["call"] in ("op", "op_multi", "const", "var") else []


def reads(e: dict[str, Any]) -> list[int]:
    """The variable ids whose values call ``e`` reads."""
    c = e["call"]
    if c == "assign":
        return [int(e["src"])]
    if c in ("op", "op_multi", "traced", "py_func"):
        return [int(i) for i in e["inputs"]]
    return []


def check_complete(program: Program, where: str) -> None:
    """Raises unless the log notes every op of ``program`` but the training ones."""
    ops = [t for t in program._core.op_types() if t not in UNLOGGED_OPS]
    logged = [e for e in program._calls if e["call"] != "var"]
    if len(ops) != len(logged) or any(
        (t == "py_func") != (e["call"] in _CALLBACKS) for t, e in zip(ops, logged)
    ):
        raise RuntimeError(
            f"{where}: the program holds ops its call log did not note (built by code that "
            "appends to the Rust program directly); build it with ferrograd.static's "
            "functions and Variable methods"
        )


def apply(p: Program, e: dict[str, Any]) -> list[int]:
    """Performs call ``e`` (ids of ``p``) on ``p`` and notes it in ``p``'s log; returns
    the ids it created. A ``var`` call carries ``name``, ``dtype`` and ``shape``."""
    core, c = p._core, e["call"]
    if c == "var":
        out: Any = core.create_var(e["name"], e["dtype"], list(e["shape"]), e["kind"])
        p._calls.append({"call": "var", "kind": e["kind"], "out": out})
        return [int(out)]
    if c == "op":
        out = core.append_op(e["op"], list(e["inputs"]), **e["attrs"])
    elif c == "op_multi":
        out = [int(i) for i in core.append_op_multi(e["op"], list(e["inputs"]), **e["attrs"])]
    elif c == "const":
        out = core.append_constant(e["value"], e["like"])
    elif c == "assign":
        core.append_assign(e["src"], e["dst"])
        out = None
    elif c == "traced":
        core.append_traced(e["func"], list(e["inputs"]), list(e["outputs"]))
        out = None
    elif c == "py_func":
        core.append_py_func(
            e["func"], e["backward_func"], list(e["inputs"]), list(e["outputs"]), list(e["skip"])
        )
        out = None
    else:
        raise ValueError(f"unknown program call {c!r}")
    p._calls.append(dict(e, out=out) if out is not None else dict(e))
    return [] if out is None else ([int(out)] if isinstance(out, int) else list(out))


def _remap(e: dict[str, Any], vmap: dict[int, int]) -> dict[str, Any]:
    """Call ``e`` with its variable ids replaced through ``vmap`` (outputs are left out:
    ``apply`` gives new ones)."""
    new = dict(e)
    for key in ("inputs", "outputs", "skip"):
        if key in e:
            new[key] = [vmap[int(i)] for i in e[key]]
    if e["call"] == "assign":
        new["src"], new["dst"] = vmap[int(e["src"])], vmap[int(e["dst"])]
    new.pop("out", None)
    return new


class _Pruner:
    """State of one ``prune``: the source program's variables and the new program."""

    def __init__(self, program: Program, where: str) -> None:
        self.src, self.where = program, where
        core = program._core
        self.info = [core.var_info(i) for i in range(core.num_vars())]
        self.created: dict[int, int] = {}
        for k, e in enumerate(program._calls):
            for v in creates(e):
                self.created.setdefault(v, k)
        self.new = Program()
        self.new._for_test = True  # (Paddle's inference programs run ops in test mode)
        self.vmap: dict[int, int] = {}

    def name(self, v: int) -> str:
        return str(self.info[v][0])

    def persistable(self, v: int) -> bool:
        return self.info[v][3] == "parameter"

    def make_var(self, v: int, kind: str, suffix: str = "") -> int:
        """A variable of the new program shaped like source variable ``v``."""
        name, dtype, shape, _ = self.info[v]
        (out,) = apply(
            self.new,
            {"call": "var", "name": name + suffix, "dtype": dtype, "shape": shape, "kind": kind},
        )
        src_var = self.src._block._vars.get(v)
        if kind == "parameter" and src_var is not None and not src_var.trainable:
            self.new._block._wrap(out).trainable = False
        return out

    def ensure(self, v: int) -> int:
        """The new id of ``v``, creating a variable the log did not see being created (the
        optimizer's state, a captured layer's parameters)."""
        if v not in self.vmap:
            kind = self.info[v][3]
            if kind == "grad":
                raise _export.CaptureError(
                    f"{self.where}: '{self.name(v)}' is a gradient (static.gradients, "
                    "append_backward or minimize), which an inference program cannot hold; "
                    "fetch forward values only"
                )
            if kind != "parameter" or v in self.created:
                raise RuntimeError(
                    f"{self.where}: the variable '{self.name(v)}' is used before it is created"
                )
            self.vmap[v] = self.make_var(v, "parameter")
        return self.vmap[v]


def prune(
    program: Program, feeds: Sequence[int], fetches: Sequence[int], keep_all: bool, where: str
) -> tuple[Program, list[str], list[int]]:
    """The part of ``program`` that computes ``fetches`` from ``feeds`` (every forward
    call when ``keep_all``) as a new test-mode program; returns it, its feed names (the
    feeds first, then any other ``data`` variable the fetches need) and the new ids of
    the fetches. See the module docs."""
    check_complete(program, where)
    pr = _Pruner(program, where)
    calls, feed_set = program._calls, set(feeds)
    keep = [False] * len(calls)
    need = set(fetches)
    for k in range(len(calls) - 1, -1, -1):
        e = calls[k]
        if e["call"] == "var":
            continue
        w = [v for v in writes(e) if v not in feed_set and not pr.persistable(v)]
        if w and (keep_all or any(v in need for v in w)):
            keep[k] = True
            need.update(reads(e))
    for v in sorted(need):  # (a gradient first: the walk cannot see what it reads)
        if v not in pr.created and v not in feed_set and pr.info[v][3] == "grad":
            pr.ensure(v)
    if not keep_all:
        for f in feeds:
            if f not in need:
                raise ValueError(
                    f"{where}: the feed var '{pr.name(f)}' is not involved in computing the "
                    "fetch vars; remove it from feed_vars"
                )
    refs = set(need)
    for k, e in enumerate(calls):
        if keep[k]:
            refs.update(writes(e))
    for f in feeds:
        pr.vmap[f] = pr.make_var(f, "data")
    extra_inputs: list[str] = []
    for k, e in enumerate(calls):
        if e["call"] == "var":
            v = int(e["out"])
            if v in refs and v not in pr.vmap:
                pr.vmap[v] = pr.make_var(v, e["kind"])
                if e["kind"] == "data":
                    extra_inputs.append(pr.name(v))
            continue
        if not keep[k]:
            continue
        for v in reads(e):
            pr.ensure(v)
        vmap = pr.vmap
        if e["call"] in _CALLBACKS and any(v in feed_set for v in writes(e)):
            # a feed written by a kept callback: it writes a stand-in, readers see the feed
            vmap = dict(vmap)
            for v in writes(e):
                if v in feed_set:
                    vmap[v] = pr.make_var(v, "declared", f"@pruned_{v}")
        new_e = _remap(e, vmap)
        if e["call"] == "const" and e["like"] is not None:
            new_e["like"] = _like(pr, int(e["like"]))
        for old, new in zip(creates(e), apply(pr.new, new_e)):
            if old not in feed_set:
                pr.vmap[old] = new
    out_ids = [pr.ensure(v) for v in fetches]
    _check_same(pr)
    return pr.new, [pr.name(f) for f in feeds] + extra_inputs, out_ids


def _like(pr: _Pruner, v: int) -> int:
    """A variable of the new program with ``v``'s dtype, to type a scalar constant."""
    if v in pr.vmap:
        return pr.vmap[v]
    return pr.make_var(v, "declared", f"@dtype_{v}")


def _check_same(pr: _Pruner) -> None:
    """Every rebuilt variable has its source's dtype and shape (Rust inferred them again)."""
    for old, new in pr.vmap.items():
        _, dtype, shape, _ = pr.new._core.var_info(new)
        if dtype != pr.info[old][1] or list(shape) != list(pr.info[old][2]):
            raise RuntimeError(
                f"{pr.where}: the pruned program does not rebuild '{pr.name(old)}' "
                f"({pr.info[old][1]} {list(pr.info[old][2])}, rebuilt as {dtype} {list(shape)})"
            )


def _test_mode_args(kind: str, name: str, sargs: Any, skwargs: Any) -> tuple[Any, Any]:
    """A traced op's arguments with the test programs' overrides written in
    (``F.dropout`` and ``F.batch_norm`` with ``training=False``)."""
    overrides = _eager_ops.TEST_OVERRIDES.get(name)
    if kind != "function" or not overrides:
        return sargs, skwargs
    fn = _eager_ops.eager_function(name)
    bound = inspect.signature(getattr(fn, "__wrapped__", fn)).bind(*sargs, **skwargs)
    bound.arguments.update(overrides)
    return tuple(bound.args), dict(bound.kwargs)


def encode(p: Program, where: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``p``'s log as ``jit.save``'s JSON notes and constants (``static/export.py``);
    traced ops get their test-mode arguments. ``CaptureError`` names a call the format
    cannot hold."""
    check_complete(p, where)
    enc = _export._Encoder()
    out: list[dict[str, Any]] = []
    for e in p._calls:
        c = e["call"]
        if c == "var":
            name, dtype, shape, _ = p._core.var_info(e["out"])
            note = {"name": name, "dtype": dtype, "shape": list(shape), "kind": e["kind"]}
            out.append({"call": "var", **note, "out": e["out"]})
        elif c in ("op", "op_multi"):
            attrs = enc.value(e["attrs"], f"{where}: op '{e['op']}'")
            out.append({"call": c, "op": e["op"], "inputs": list(e["inputs"]), "attrs": attrs})
            out[-1]["out"] = e["out"]
        elif c == "const":
            value = enc.value(e["value"], f"{where}: a constant")
            out.append({"call": "const", "value": value, "like": e["like"], "out": e["out"]})
        elif c == "assign":
            out.append({"call": "assign", "src": e["src"], "dst": e["dst"]})
        elif c == "traced":
            meta = getattr(e["func"], "_fg_export", None)
            if meta is None:
                raise _export.CaptureError(
                    f"{where}: the program computes {_names(p, e['outputs'])} with "
                    f"'{getattr(e['func'], '__name__', '?')}', a Python callback, which a saved "
                    "program cannot hold; nothing was saved"
                )
            kind, fname, sargs, skwargs = meta
            sargs, skwargs = _test_mode_args(kind, fname, sargs, skwargs)
            note = {"kind": kind, "name": fname}
            note["args"] = enc.value(sargs, f"{where}: op '{fname}'")
            note["kwargs"] = enc.value(skwargs, f"{where}: op '{fname}'")
            out.append({"call": "traced", **note, "inputs": e["inputs"], "outputs": e["outputs"]})
        else:
            raise _export.CaptureError(
                f"{where}: the program computes {_names(p, e['outputs'])} with a "
                "static.nn.py_func (a Python callback), which a saved program cannot hold; "
                "nothing was saved"
            )
    return out, enc.constants


def _names(p: Program, ids: Sequence[int]) -> str:
    return ", ".join(repr(p._core.var_info(i)[0]) for i in ids)


__all__ = ["apply", "check_complete", "encode", "prune"]
