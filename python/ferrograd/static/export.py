"""Writing a static ``Program`` as data and building it again: what ``jit.save`` /
``jit.load`` store (``python/ferrograd/jit_save.py``).

The Rust program does not describe its ops back to Python, so a program to be saved is
built through a ``Recorder``: a stand-in for ``Program._core`` that forwards every call
to the real program and notes it (``create_var``, ``append_op``, ``append_op_multi``,
``append_constant``, ``append_assign``, and ``append_traced`` for the ops that run an
eager function, with that function's name and arguments). Replaying the notes on a new
program rebuilds the same variables (the same ids, checked) and ops, whose shapes and
dtypes Rust infers and checks again. What cannot be written as data is refused at the
call that records it, with a ``CaptureError`` naming it: a ``py_func`` or another Python
callback, gradients, optimizer updates, an argument of a type the format lacks.

The notes are JSON: ``{"call": "op", "op": "matmul", "inputs": [0, 1], "attrs": {...},
"out": 2}`` and so on (``ferrograd.jit.program/1``, docs/static.md). Values are JSON
numbers, strings, booleans, null and lists; other values are tagged objects:
``{"tuple": [...]}``, ``{"dict": [[key, value], ...]}``, ``{"float": "nan"}``,
``{"dtype": "float32"}``, ``{"slot": k}`` (the k-th input of a traced op) and
``{"const": k}`` (the k-th constant tensor, stored as ``{"dtype", "shape", "data"}`` with
the raw little-endian bytes in base64). Nothing is pickled, and loading runs no code
from the file: a traced op names a ``ferrograd`` function or ``Tensor`` method, looked
up among ferrograd's own traced ops.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _core
from .._traced_op_names import FUNCTIONAL_OPS, TENSOR_OPS
from . import creation as _creation
from . import eager_ops as _eager_ops
from .program import Program

FORMAT = "ferrograd.jit.program"
VERSION = 1

#: ``_Program`` methods that only read: passed through unrecorded
_READERS = frozenset({"num_vars", "find_var", "var_info", "op_types", "describe", "id", "version"})
#: what each refused ``_Program`` method is, for the error
_REFUSED = {
    "append_py_func": "a static.nn.py_func (a Python callback)",
    "append_gradients": "gradients (static.gradients / append_backward)",
    "append_optimizer_step": "an optimizer update (minimize)",
    "append_init": "a parameter initialisation",
    "duplicate": "a copy of the program being captured",
}
_TRACEABLE = frozenset(TENSOR_OPS) | frozenset(FUNCTIONAL_OPS)


class CaptureError(NotImplementedError):
    """A forward that cannot be written as a saved program (an op or value the format
    lacks); raised where it is recorded."""


# ---- values <-> JSON ---------------------------------------------------------------


class _Encoder:
    """Turns recorded arguments into JSON values; tensors become numbered constants."""

    def __init__(self) -> None:
        self.constants: list[dict[str, Any]] = []

    def constant(self, t: Any, where: str) -> int:
        """Stores tensor ``t`` (its values, detached) and returns its number."""
        name = t.dtype.name
        arr = np.ascontiguousarray(t.detach().numpy())
        if arr.dtype.kind not in "biufc":
            raise CaptureError(f"{where}: a constant tensor of dtype {name} cannot be saved")
        self.constants.append(
            {
                "dtype": name,
                "array_dtype": arr.dtype.str,
                "shape": list(arr.shape),
                "data": base64.b64encode(arr.tobytes()).decode("ascii"),
            }
        )
        return len(self.constants) - 1

    def value(self, v: Any, where: str) -> Any:
        """``v`` as a JSON value (``CaptureError`` for a type the format lacks)."""
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v) if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, _eager_ops._Slot):
            return {"slot": v.k}
        if isinstance(v, _core.Tensor):
            return {"const": self.constant(v, where)}
        if isinstance(v, np.generic):
            return self.value(v.item(), where)
        if isinstance(v, np.ndarray):
            return {"ndarray": self.constant(_core.to_tensor(v), where)}
        if type(v).__name__ == "dtype" and type(v).__module__ == "ferrograd":
            return {"dtype": v.name}
        if isinstance(v, list):
            return [self.value(x, where) for x in v]
        if isinstance(v, tuple):
            return {"tuple": [self.value(x, where) for x in v]}
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"dict": [[k, self.value(x, where)] for k, x in v.items()]}
        raise CaptureError(
            f"{where}: an argument of type {type(v).__name__} ({v!r:.60}) cannot be written "
            "into a saved program (numbers, strings, dtypes, tensors and lists/tuples/dicts "
            "of them can)"
        )


def _tensor_of(c: dict[str, Any]) -> Any:
    kind = np.dtype(c["array_dtype"])
    if kind.kind not in "biufc":
        raise ValueError(f"a constant of NumPy dtype {kind} is not a saved tensor")
    arr = np.frombuffer(base64.b64decode(c["data"]), dtype=kind)
    t = _core.to_tensor(arr.reshape(c["shape"]).copy())
    return t if t.dtype.name == c["dtype"] else t.astype(c["dtype"])


class _Decoder:
    def __init__(self, constants: Sequence[dict[str, Any]]) -> None:
        self.constants = constants

    def value(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            return v
        (tag, x), *rest = v.items()
        if rest:
            raise ValueError(f"malformed value {v!r}")
        if tag == "tuple":
            return tuple(self.value(i) for i in x)
        if tag == "dict":
            return {str(k): self.value(i) for k, i in x}
        if tag == "float":
            return float(x)
        if tag == "slot":
            return _eager_ops._Slot(int(x))
        if tag == "const":
            return _tensor_of(self.constants[int(x)])
        if tag == "ndarray":
            return _tensor_of(self.constants[int(x)]).numpy()
        if tag == "dtype":
            import ferrograd

            dt = getattr(ferrograd, str(x), None)
            if not isinstance(dt, type(ferrograd.float32)):
                raise ValueError(f"unknown dtype {x!r}")
            return dt
        raise ValueError(f"unknown value tag {tag!r}")


# ---- recording ---------------------------------------------------------------------


class Recorder:
    """Stands for a program's ``_core`` while a forward is captured: forwards each call
    and notes it (see the module docs)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: list[dict[str, Any]] = []
        self._enc = _Encoder()

    @property
    def constants(self) -> list[dict[str, Any]]:
        """The constant tensors the notes refer to."""
        return self._enc.constants

    def __getattr__(self, name: str) -> Any:
        if name in _READERS:
            return getattr(self._inner, name)
        what = _REFUSED.get(name, f"the program call {name}")
        raise CaptureError(f"the forward records {what}, which a saved program cannot hold")

    def create_var(self, name: str, dtype: Any, shape: Any, kind: str) -> int:
        """``_Program.create_var``, noted with the dtype and shape as Rust parsed them."""
        out = self._inner.create_var(name, dtype, shape, kind)
        _, dname, dims, _ = self._inner.var_info(out)
        self.calls.append(
            {
                "call": "var",
                "name": name,
                "dtype": dname,
                "shape": list(dims),
                "kind": kind,
                "out": out,
            }
        )
        return int(out)

    def append_op(self, op: str, inputs: list[int], **attrs: Any) -> int:
        """``_Program.append_op``, noted."""
        enc = self._enc.value(attrs, f"op '{op}'")
        out = self._inner.append_op(op, inputs, **attrs)
        self.calls.append(
            {"call": "op", "op": op, "inputs": list(inputs), "attrs": enc, "out": out}
        )
        return int(out)

    def append_op_multi(self, op: str, inputs: list[int], **attrs: Any) -> list[int]:
        """``_Program.append_op_multi``, noted."""
        enc = self._enc.value(attrs, f"op '{op}'")
        outs = list(self._inner.append_op_multi(op, inputs, **attrs))
        self.calls.append(
            {"call": "op_multi", "op": op, "inputs": list(inputs), "attrs": enc, "out": outs}
        )
        return outs

    def append_constant(self, value: Any, like: int | None = None) -> int:
        """``_Program.append_constant``, noted (a tensor's values are stored)."""
        enc = self._enc.value(value, "a constant")
        out = self._inner.append_constant(value, like)
        self.calls.append({"call": "const", "value": enc, "like": like, "out": out})
        return int(out)

    def append_assign(self, src: int, dst: int) -> None:
        """``_Program.append_assign``, noted."""
        self._inner.append_assign(src, dst)
        self.calls.append({"call": "assign", "src": src, "dst": dst})

    def append_traced(self, func: Any, inputs: list[int], outputs: list[int]) -> None:
        """``_Program.append_traced``, noted as the eager function's name and arguments;
        a callback that is not one of ferrograd's traced ops is refused."""
        meta = getattr(func, "_fg_export", None)
        name = getattr(func, "__name__", "?")
        if meta is None:
            raise CaptureError(
                f"the forward records '{name}' as a Python callback, which a saved program "
                "cannot hold"
            )
        kind, fname, sargs, skwargs = meta
        where = f"op '{fname}'"
        note = {
            "call": "traced",
            "kind": kind,
            "name": fname,
            "args": self._enc.value(sargs, where),
            "kwargs": self._enc.value(skwargs, where),
            "inputs": list(inputs),
            "outputs": list(outputs),
        }
        self._inner.append_traced(func, inputs, outputs)
        self.calls.append(note)


def recording_program() -> tuple[Program, Recorder]:
    """A new program whose calls are noted by the returned recorder; call ``finish``
    when the capture is over."""
    p = Program()
    rec = Recorder(p._core)
    p._core = rec  # type: ignore[assignment]
    return p, rec


def finish(program: Program, rec: Recorder) -> None:
    """Gives ``program`` its real core back (the executor needs it)."""
    program._core = rec._inner


# ---- replaying ---------------------------------------------------------------------


def _traced_forward(kind: str, name: str, sargs: Any, skwargs: Any) -> Any:
    """The function a traced op runs, as ``eager_ops.record_eager`` (or
    ``creation.record_creation``, kind "creation") builds it."""
    if kind == "creation" and _creation.is_creation_key(name):
        fn = _creation.original(name)
    elif kind not in ("function", "method") or name not in _TRACEABLE:
        raise ValueError(f"unknown traced op {kind} '{name}'")
    else:
        fn = _eager_ops.export_callable(kind, name)

    def forward(*tensors: Any) -> Any:
        call = fn(*_eager_ops._fill(sargs, tensors), **_eager_ops._fill(skwargs, tensors))
        return _eager_ops._flatten(call, name)

    forward.__name__ = name
    forward._fg_export = (kind, name, sargs, skwargs)  # type: ignore[attr-defined]
    return forward


def _check(got: Any, want: Any, note: dict[str, Any]) -> None:
    if got != want:
        raise ValueError(
            f"the saved program does not rebuild: {note.get('call')} "
            f"{note.get('op') or note.get('name') or ''} gave variable {got}, the file says {want}"
        )


def replay(calls: Sequence[dict[str, Any]], constants: Sequence[dict[str, Any]]) -> Program:
    """A new program built from the notes ``calls`` (see the module docs). The calls
    are noted in the program's log, so it can be saved again (``save_inference_model``)."""
    p = Program()
    core, dec, log = p._core, _Decoder(constants), p._calls
    for c in calls:
        kind = c.get("call")
        out: Any
        if kind == "var":
            out = core.create_var(c["name"], c["dtype"], c["shape"], c["kind"])
            _check(out, c["out"], c)
            log.append({"call": "var", "kind": c["kind"], "out": out})
        elif kind in ("op", "op_multi"):
            attrs = dec.value(c["attrs"])
            if kind == "op":
                out = core.append_op(c["op"], c["inputs"], **attrs)
            else:
                out = list(core.append_op_multi(c["op"], c["inputs"], **attrs))
            _check(out, c["out"], c)
            log.append(
                {"call": kind, "op": c["op"], "inputs": c["inputs"], "attrs": attrs, "out": out}
            )
        elif kind == "const":
            value = dec.value(c["value"])
            out = core.append_constant(value, c["like"])
            _check(out, c["out"], c)
            log.append({"call": "const", "value": value, "like": c["like"], "out": out})
        elif kind == "assign":
            core.append_assign(c["src"], c["dst"])
            log.append({"call": "assign", "src": c["src"], "dst": c["dst"]})
        elif kind == "traced":
            fwd = _traced_forward(
                c["kind"], c["name"], dec.value(c["args"]), dec.value(c["kwargs"])
            )
            core.append_traced(fwd, c["inputs"], c["outputs"])
            log.append(
                {"call": "traced", "func": fwd, "inputs": c["inputs"], "outputs": c["outputs"]}
            )
        else:
            raise ValueError(f"unknown program call {kind!r}")
    return p


__all__ = ["FORMAT", "VERSION", "CaptureError", "Recorder", "finish", "recording_program", "replay"]
