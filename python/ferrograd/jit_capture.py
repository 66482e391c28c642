"""Capturing a layer's (or a function's) forward as a static program, for ``jit.save``.

The forward runs once on static ``Variable``s (``static.data`` built from the input
specs) while every parameter and buffer of the layer stands in as a static variable of
the same name as its ``state_dict`` key: the ops it calls record themselves into a new
program (``static/dispatch.py``), noted by ``static/export.py``'s recorder so the program
can be written as data. The layer is put in evaluation mode for the capture (dropout the
identity, batch norm on its running statistics) and everything is restored afterwards,
also when the capture fails. Nothing the layer holds changes: the ops do not run (only
the traced ops' shape trials do, on zeros) and the parameters keep their values.

What static programs cannot record stops the capture with a Python exception naming it:
an op the static layer lacks, the truth value of a Variable (Python control flow on
tensor values), a ``py_func``; ``static/export.py``'s ``CaptureError`` for what the
saved format cannot hold.
"""

from __future__ import annotations

import inspect
from typing import Any, Sequence

from . import _core
from ._input_spec import InputSpec
from .static.export import CaptureError


class DataDependentCaptureError(CaptureError, TypeError):
    """A forward whose Python code depends on a tensor's value (a branch, ``item()``): a
    ``CaptureError``, and a ``TypeError`` as the static Variable's own refusal was."""


def _value_read(e: BaseException) -> str | None:
    """What the forward asked of a static Variable's value, if ``e`` says it did (its
    truth value, ``len``, ``numpy()``, ``item()`` / ``tolist()``, ``float()`` / ``int()``):
    data-dependent Python, which a program does not record; ``None`` for other errors."""
    from .static.variable import Variable

    if isinstance(e, AttributeError):
        if isinstance(getattr(e, "obj", None), Variable) and e.name in ("item", "tolist"):
            return f"called .{e.name}() on a tensor"
        return None
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    if code is Variable.__bool__.__code__:
        return "branched on a tensor's value (`if` / `while` / `and` / `or` / `bool()`)"
    if code is Variable.__len__.__code__:
        return "took len() of a tensor whose first dimension is not fixed"
    if code is Variable.numpy.__code__:
        return "read a tensor's values (.numpy() / np.asarray)"
    if "'Variable'" in str(e) and ("float()" in str(e) or "int()" in str(e)):
        return "converted a tensor to a Python number (float() / int())"
    return None


def _branch_message(read: str, e: BaseException) -> str:
    """The ``CaptureError`` text for data-dependent Python in the forward: what it did,
    where (the innermost frame outside ferrograd), and how to write it instead."""
    import os

    package = os.path.dirname(os.path.abspath(__file__))
    where = ""
    tb = e.__traceback__
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if not os.path.abspath(f).startswith(package + os.sep):
            where = f" at {f}:{tb.tb_lineno}"
        tb = tb.tb_next
    return (
        f"the forward {read}{where} ({e}): data-dependent Python control flow, which a saved "
        "program cannot hold (the capture runs the forward once on symbolic inputs that "
        "have no values); compute both results and pick one with where(cond, a, b), or "
        "make the decision outside forward"
    )


def _forward_names(obj: Any) -> list[str]:
    """The positional parameter names of ``obj``'s forward (or of the function)."""
    from .nn import Module

    fn = obj.forward if isinstance(obj, Module) else obj
    fn = getattr(fn, "__wrapped__", fn)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds and p.name != "self"]


def required_inputs(obj: Any) -> int:
    """How many positional arguments ``obj``'s forward needs (no default)."""
    from .nn import Module

    fn = obj.forward if isinstance(obj, Module) else obj
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(
        1
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    )


def as_specs(items: Any, what: str) -> list[Any]:
    """``items`` (InputSpecs, example tensors, Python values) as a list of InputSpecs and
    Python values (a tensor becomes the spec of its exact shape and dtype)."""
    if items is None:
        return []
    if isinstance(items, (_core.Tensor, InputSpec)):
        items = [items]
    if not isinstance(items, (list, tuple)):
        raise TypeError(
            f"{what}: expected a list or tuple of InputSpec or example tensors, got "
            f"{type(items).__name__}"
        )
    out: list[Any] = []
    for s in items:
        if isinstance(s, _core.Tensor):
            s = InputSpec(list(s.shape), s.dtype.name)
        elif isinstance(s, (list, tuple)) and s and all(isinstance(t, _core.Tensor) for t in s):
            raise TypeError(
                f"{what}: a nested list of tensors is not a supported input; give one tensor "
                "(or InputSpec) per forward argument"
            )
        out.append(s)
    return out


class _Swap:
    """Stands static variables in for a layer's parameters and buffers (and its modules'
    evaluation mode), and restores everything on exit."""

    def __init__(self, layer: Any, program: Any) -> None:
        self.layer, self.program = layer, program
        self.undo: list[tuple[Any, str, str, Any, bool]] = []
        self.modes: list[tuple[Any, bool]] = []
        self.attrs: list[tuple[Any, dict[str, Any]]] = []
        #: one entry per distinct tensor: (variable name, tensor, kind, all its names)
        self.persistables: list[tuple[str, Any, str, list[str]]] = []

    def __enter__(self) -> _Swap:
        from .static.variable import Variable

        block = self.program.global_block()
        by_tensor: dict[int, tuple[Any, list[str]]] = {}
        seen_modules: set[int] = set()
        try:
            # every path of a shared sublayer: its tensors get each path as a name
            for mname, m in self.layer.named_modules(remove_duplicate=False):
                first = id(m) not in seen_modules
                if first:
                    seen_modules.add(id(m))
                    self.modes.append((m, bool(m.__dict__.get("training", False))))
                    self.attrs.append((m, dict(m.__dict__)))
                for reg, kind in (("_parameters", "parameter"), ("_buffers", "buffer")):
                    for n, t in list(m.__dict__[reg].items()):
                        full = f"{mname}.{n}" if mname else n
                        if not first:
                            if t is not None:  # (already standing in: a variable)
                                by_tensor[id(t)][1].append(full)
                            continue
                        if t is None:
                            continue
                        if isinstance(t, Variable):
                            raise TypeError(
                                f"jit.save: '{full}' is a static variable (the layer was built "
                                "in static mode); build the layer in dynamic mode to save it"
                            )
                        # a non-persistent buffer: not in state_dict, still read by forward
                        what = "buffer_np" if kind == "buffer" and n in m._non_persistent else kind
                        seen = by_tensor.get(id(t))
                        if seen is None:
                            var = block._wrap(
                                self.program._core.create_var(
                                    full, t.dtype.name, list(t.shape), "parameter"
                                )
                            )
                            names = [full]
                            by_tensor[id(t)] = by_tensor[id(var)] = (var, names)
                            self.persistables.append((full, t, what, names))
                        else:
                            var, names = seen
                            names.append(full)
                        in_dict = m.__dict__.get(n) is t
                        self.undo.append((m, reg, n, t, in_dict))
                        m.__dict__[reg][n] = var
                        if in_dict:
                            m.__dict__[n] = var
            for m, _ in self.modes:
                m.__dict__["training"] = False
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        from .static.variable import Variable

        for m, reg, n, t, in_dict in reversed(self.undo):
            m.__dict__[reg][n] = t
            if in_dict:
                m.__dict__[n] = t
        for m, mode in self.modes:
            m.__dict__["training"] = mode
        # attributes the forward (or a hook: weight_norm's) set to static variables
        for m, before in self.attrs:
            for k, v in list(m.__dict__.items()):
                if isinstance(v, Variable):
                    if k in before:
                        m.__dict__[k] = before[k]
                    else:
                        del m.__dict__[k]
        self.undo, self.modes, self.attrs = [], [], []


def _flatten_outputs(out: Any, block: Any) -> tuple[dict[str, Any], list[Any]]:
    """The forward's result as a structure note and its Variables (an eager tensor that
    does not depend on the inputs becomes a constant of the program)."""
    from .static.variable import Variable

    def one(v: Any, where: str) -> Any:
        if isinstance(v, Variable):
            return v
        if isinstance(v, _core.Tensor):
            return block._as_variable(v.detach())
        raise TypeError(
            f"jit.save: the forward returned {type(v).__name__} at {where}; a saved program "
            "returns tensors (one, or a tuple/list/dict of them)"
        )

    if isinstance(out, dict):
        keys = list(out)
        if not all(isinstance(k, str) for k in keys):
            raise TypeError("jit.save: a dict returned by forward must have str keys")
        return {"kind": "dict", "keys": keys}, [one(out[k], f"key {k!r}") for k in keys]
    if isinstance(out, (tuple, list)):
        kind = "list" if isinstance(out, list) else "tuple"
        return {"kind": kind}, [one(v, f"position {i}") for i, v in enumerate(out)]
    return {"kind": "single"}, [one(out, "the result")]


def capture(obj: Any, specs: Sequence[Any]) -> dict[str, Any]:
    """Runs ``obj`` (a Layer or a function) on static inputs built from ``specs`` and
    returns the program description and the parameter values:
    ``{"program": {...JSON...}, "params": {name: Tensor}}``."""
    from .nn import Module
    from .static import export, mode_switch
    from .static import program as _program

    if not mode_switch.in_dynamic_mode():
        raise RuntimeError(
            "jit.save: call it in dynamic mode (paddle.disable_static() first); it captures "
            "a layer built in dynamic mode"
        )
    layer = obj if isinstance(obj, Module) else None
    if layer is None and not callable(obj):
        raise TypeError(
            f"jit.save: expected a Layer/Module or a function, got {type(obj).__name__}"
        )
    names = _forward_names(obj)
    prog, rec = export.recording_program()
    inputs: list[dict[str, Any]] = []
    with _program.program_guard(prog, _program.Program()):
        swap = _Swap(layer, prog) if layer is not None else None
        try:
            if swap is not None:
                swap.__enter__()
            taken = {p[0] for p in swap.persistables} if swap is not None else set()
            args: list[Any] = []
            for i, s in enumerate(specs):
                if not isinstance(s, InputSpec):
                    args.append(s)  # a Python value: fixed in the program
                    continue
                name = s.name or (names[i] if i < len(names) else f"input_{i}")
                while name in taken:
                    name += "_input"
                taken.add(name)
                v = _program.data(name, list(s.shape), s.dtype)
                inputs.append({"name": name, "dtype": v._dtype_name, "shape": list(v.shape)})
                args.append(v)
            try:
                out = obj(*args)
            except (TypeError, AttributeError) as e:
                read = _value_read(e)
                if read is None:
                    raise
                raise DataDependentCaptureError(_branch_message(read, e)) from e
            structure, outs = _flatten_outputs(out, prog.global_block())
        finally:
            export.finish(prog, rec)
            if swap is not None:
                swap.__exit__(None, None, None)
    known = {p[0] for p in swap.persistables} if swap is not None else set()
    made = [c["name"] for c in rec.calls if c["call"] == "var" and c["kind"] == "parameter"]
    if any(n not in known for n in made):
        raise export.CaptureError(
            f"the forward creates the parameter(s) {[n for n in made if n not in known][:5]} "
            "(static.nn layers or create_parameter inside forward), which are not the layer's "
            "and would have no saved value; make them parameters of the layer"
        )
    params: dict[str, Any] = {}
    persist = []
    for name, t, kind, all_names in swap.persistables if swap is not None else []:
        params[name] = t.detach().clone()
        persist.append(
            {
                "name": name,
                "kind": kind,
                "requires_grad": bool(getattr(t, "requires_grad", False)),
                "names": all_names,
            }
        )
    program = {
        "format": export.FORMAT,
        "version": export.VERSION,
        "inputs": inputs,
        "outputs": dict(structure, ids=[v.id for v in outs]),
        "persistables": persist,
        "calls": rec.calls,
        "constants": rec.constants,
    }
    return {"program": program, "params": params}


__all__ = ["as_specs", "capture", "required_inputs"]
