"""Creation functions in static mode: ``paddle.zeros`` / ``full`` / ``arange`` / ``rand``
/ ``randint`` / ... called while ``enable_static()`` is in effect return a ``Variable``
of the default main program, as in Paddle, instead of an eager tensor.

- The creation functions (``ferrograd.zeros``, ``paddle.tensor.fill_constant``,
  ``paddle.tensor.random.gaussian``, ...) are wrapped once, when ``ferrograd`` is
  imported (``install``; ``enable_static()`` sets no attribute, see
  ``static/mode_switch.py``). In dynamic mode a wrapper reads the mode flag and calls the
  original function: one Python call more, no other work.
- A wrapper records only for user code building a program: a call from ferrograd's own
  modules (an initializer, a traced op's eager function, a trial run), from a layer's
  ``__init__`` (its eager parameters and buffers are converted when it returns,
  ``nn/static_build.py``) or from inside ``Executor.run`` (a ``py_func`` callback) runs
  the original function and returns its tensor.
- A result that does not depend on the run (no random draw, no run-time argument) is a
  constant op holding the value computed now. A random one (``rand``, ``randn``,
  ``randint``, ``uniform``, ``normal``, ``randperm``, ``gaussian``) is a traced op with
  no inputs that calls the original function at every ``Executor.run``, so each run
  draws anew from ferrograd's generator (``seed(n)`` before a run gives the draw that
  eager code gives after ``seed(n)``).
- Arguments may be Variables: a constant made by these functions is read now (its
  value is known), any other Variable (a ``static.data`` shape fed at run time) becomes
  an input of a traced op that calls the original function with its value when the
  program runs; output dimensions that depend on it are ``-1``.
- ``zeros_like`` / ``ones_like`` / ``full_like`` / ``empty_like`` / ``rand_like`` /
  ``randn_like`` / ``randint_like`` of a Variable (in either mode) are traced ops on it
  (``LIKE_FUNCTIONS``, used by ``static/dispatch.py``).
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import _core
from . import eager_ops as _eager_ops
from .mode_switch import _static
from .variable import Variable

#: (module, attribute, key, random): the creation functions swapped in static mode; the
#: key names the original in saved programs (``export.py``, traced ops of kind "creation")
_TARGETS: tuple[tuple[str, str, str, bool], ...] = (
    *(("ferrograd", n, n, False) for n in ("zeros", "ones", "full", "empty", "eye")),
    *(("ferrograd", n, n, False) for n in ("arange", "linspace", "logspace")),
    *(("ferrograd", n, n, True) for n in ("rand", "randn", "randint", "randperm")),
    *(("ferrograd", n, n, True) for n in ("uniform", "normal", "standard_normal")),
    *(("ferrograd", n, n, False) for n in ("zeros_like", "ones_like", "full_like")),
    *(("ferrograd", n, n, False) for n in ("empty_like", "rand_like", "randn_like")),
    ("ferrograd", "randint_like", "randint_like", False),
    ("ferrograd._paddle_tensor", "fill_constant", "fill_constant", False),
    ("ferrograd._paddle_tensor.creation", "fill_constant", "fill_constant", False),
    *(
        ("ferrograd._paddle_tensor.random", n, "tensor.random." + n, True)
        for n in ("gaussian", "uniform", "randn", "rand", "randint")
    ),
)
#: the ``*_like`` functions recorded as traced ops of a Variable
_LIKE = ("zeros_like", "ones_like", "full_like", "empty_like")
_RANDOM_LIKE = ("rand_like", "randn_like", "randint_like")

#: where the shape argument is: (position, keywords); Variables there must be integers
_SHAPE_ARG: dict[str, tuple[int, tuple[str, ...]]] = {
    **{
        k: (0, ("shape", "size"))
        for k in ("zeros", "ones", "full", "empty", "rand", "randn", "uniform")
        + ("standard_normal", "fill_constant", "tensor.random.gaussian")
        + ("tensor.random.uniform", "tensor.random.randn", "tensor.random.rand")
    },
    **{k: (2, ("shape", "size")) for k in ("randint", "tensor.random.randint", "normal")},
}
_by_key: dict[str, Callable[..., Any]] = {}
#: the dtype names whose meaning depends on the dialect (src/python/dtype.rs): Paddle
#: code reads them as NumPy does
_PADDLE_DTYPE_NAMES = {"float": "float64", "int": "int64", "byte": "int8"}


def install() -> None:
    """Wraps the creation functions of ``_TARGETS`` (once, when ``ferrograd`` has been
    imported: ``ferrograd/__init__.py``)."""
    if _by_key:
        return
    for module, attr, key, random in _TARGETS:
        mod = importlib.import_module(module)
        fn = getattr(mod, attr, None)
        if fn is None:
            continue
        fn = _by_key.setdefault(key, fn)
        setattr(mod, attr, _wrapper(key, fn, random))


def original(key: str) -> Callable[..., Any]:
    """The eager creation function a saved traced op of kind "creation" names."""
    fn = _by_key.get(key)
    if fn is None:
        raise ValueError(f"unknown creation op '{key}'")
    return fn


def _user_call(frame: Any) -> bool:
    """Whether the creation call made from ``frame`` builds a program: user code, not
    inside a layer's construction nor a running program."""
    name = str(frame.f_globals.get("__name__", ""))
    if name == "ferrograd" or name.startswith("ferrograd."):
        return False
    build = sys.modules.get("ferrograd.nn.static_build")
    if build is not None and getattr(build._state, "depth", False):
        return False
    f = frame.f_back
    while f is not None:  # a py_func callback runs under Executor.run
        if f.f_globals.get("__name__") == "ferrograd.static.executor":
            return False
        f = f.f_back
    return True


def _int_fill(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether ``full(*args, **kwargs)`` has an integer fill value and no dtype."""
    if kwargs.get("dtype") is not None or len(args) > 2:
        return False
    fill = kwargs.get("fill_value", args[1] if len(args) > 1 else None)
    return isinstance(fill, int) and not isinstance(fill, bool)


def _wrapper(key: str, fn: Callable[..., Any], random: bool) -> Callable[..., Any]:
    static = _static

    if key in LIKE_FUNCTIONS:
        static_like = LIKE_FUNCTIONS[key]

        @functools.wraps(fn)
        def like(*args: Any, **kwargs: Any) -> Any:
            if args and isinstance(args[0], Variable):
                return static_like(*args, **kwargs)
            if static[0] and isinstance(kwargs.get("x", kwargs.get("input")), Variable):
                return static_like(*args, **kwargs)
            return fn(*args, **kwargs)

        return like

    if key == "full":

        @functools.wraps(fn)
        def full(*args: Any, **kwargs: Any) -> Any:
            if static[0]:
                frame = sys._getframe(1)
                if _user_call(frame):
                    return record_creation(key, fn, args, kwargs, random, frame)
            plain = not kwargs and len(args) == 2 and type(args[1]) is not int
            if not plain and _int_fill(args, kwargs) and _core._caller_dialect(2) == "paddle":
                # Paddle's full(shape, 3) is float: the Rust function asks its caller's
                # dialect, and its caller is this wrapper (creation_full.rs)
                import ferrograd

                kwargs = dict(kwargs, dtype=ferrograd.get_default_dtype())
            return fn(*args, **kwargs)

        return full

    @functools.wraps(fn)
    def create(*args: Any, **kwargs: Any) -> Any:
        if static[0]:
            frame = sys._getframe(1)
            if _user_call(frame):
                return record_creation(key, fn, args, kwargs, random, frame)
        return fn(*args, **kwargs)

    return create


# ---- recording ------------------------------------------------------------------------


def _constant_value(v: Variable) -> Any:
    """The value of ``v`` when it is a constant of its program (None otherwise)."""
    for e in reversed(v.program._calls):
        if e["call"] == "assign" and e["dst"] == v.id:
            return None
        if e["call"] == "const" and e["out"] == v.id:
            value = e["value"]
            return value if isinstance(value, _core.Tensor) else None
    return None


def _resolve(value: Any, inputs: list[Variable], paddle: bool) -> Any:
    """``value`` with constant Variables replaced by their values, other Variables by
    slots (appended to ``inputs``), and Paddle's dtype names made explicit."""
    if isinstance(value, Variable):
        known = _constant_value(value)
        if known is not None:
            return known
        inputs.append(value)
        return _eager_ops._Slot(len(inputs) - 1)
    if isinstance(value, (list, tuple)):
        items = [_resolve(v, inputs, paddle) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if paddle and isinstance(value, str) and value in _PADDLE_DTYPE_NAMES:
        return _PADDLE_DTYPE_NAMES[value]
    return value


def _check_shape(key: str, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    """A Variable given as the shape or one of its entries must be an integer (Paddle's
    TypeError)."""
    pos, names = _SHAPE_ARG.get(key, (-1, ()))
    shape = (
        args[pos] if 0 <= pos < len(args) else next((kwargs[n] for n in names if n in kwargs), None)
    )
    items = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    for v in items:
        if isinstance(v, Variable) and v._dtype_name not in ("int32", "int64"):
            raise TypeError(
                f"{key}: a shape given as a Variable must be int32 or int64, got "
                f"'{v.name}' of dtype {v._dtype_name}"
            )


def _main_block() -> Any:
    from . import program

    return program.default_main_program().current_block()


def _probe(v: Variable, k: int) -> Any:
    """A stand-in value for run-time input ``v`` (every element ``k``)."""
    if any(d < 0 for d in v.shape):
        raise ValueError(
            f"creation functions in static programs: the argument '{v.name}' has a "
            f"dimension known only at run time ({v.shape}); give it a fixed shape"
        )
    return _core.full(list(v.shape), k, dtype=v._dtype_name)


def _trial(fn: Callable[..., Any], sargs: Any, skwargs: Any, tensors: Sequence[Any]) -> Any:
    import ferrograd

    state = ferrograd.get_rng_state()
    try:
        with ferrograd.no_grad():
            return fn(*_eager_ops._fill(sargs, tensors), **_eager_ops._fill(skwargs, tensors))
    finally:
        ferrograd.set_rng_state(state)


def record_creation(
    key: str,
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    random: bool,
    frame: Any = None,
) -> Variable:
    """Records ``fn(*args, **kwargs)`` into the default main program (see the module
    docs): a constant, or a traced op run at every ``Executor.run`` when ``random`` or
    when an argument is a Variable computed at run time."""
    from .._dialect import frame_dialect

    paddle = frame is not None and frame_dialect(frame) == "paddle"
    kwargs = dict(kwargs)
    _check_shape(key, args, kwargs)
    if (
        paddle
        and key == "full"
        and kwargs.get("dtype") is None
        and len(args) < 3
        and isinstance(kwargs.get("fill_value", args[1] if len(args) > 1 else None), int)
    ):
        # Paddle's full(shape, 3) is float (src/python/creation_full.rs asks the caller)
        import ferrograd

        kwargs["dtype"] = ferrograd.get_default_dtype()
    inputs: list[Variable] = []
    sargs = _resolve(tuple(args), inputs, paddle)
    skwargs = {k: _resolve(v, inputs, paddle) for k, v in kwargs.items()}
    block = inputs[0].block if inputs else _main_block()
    for v in inputs:
        if v.block is not block:
            from .program import foreign_variable

            raise foreign_variable(key, v)
    if not inputs and not random:
        value = _trial(fn, sargs, skwargs, [])
        if not isinstance(value, _core.Tensor):
            raise TypeError(f"{key}: expected a tensor result, got {type(value).__name__}")
        out: Variable = block._constant(value.detach(), None)
        return out
    try:
        first = _trial(fn, sargs, skwargs, [_probe(v, 1) for v in inputs])
        second = _trial(fn, sargs, skwargs, [_probe(v, 2) for v in inputs])
    except Exception as e:
        note = getattr(e, "add_note", None)
        if note is not None:
            note(f"(while recording ferrograd.{key} into a static program)")
        raise
    if first.dtype != second.dtype or first.dim() != second.dim():
        raise ValueError(
            f"{key}: the dtype or rank of its result depends on a run-time argument, which "
            "a static program cannot record"
        )
    shape = [a if a == b else -1 for a, b in zip(first.shape, second.shape)]
    dtype = str(first.dtype).replace("ferrograd.", "")
    return _append(block, key, fn, sargs, skwargs, inputs, dtype, shape)


def _append(
    block: Any,
    key: str,
    fn: Callable[..., Any],
    sargs: Any,
    skwargs: Any,
    inputs: list[Variable],
    dtype: str,
    shape: list[int],
) -> Variable:
    """A traced op computing ``fn`` at every run into a new variable."""
    base = block.program._core.num_vars()
    name = key.rpartition(".")[2]
    out = block.create_var(name=f"{name}_{base}.tmp_0", dtype=dtype, shape=shape)

    def forward(*tensors: Any) -> Any:
        return [fn(*_eager_ops._fill(sargs, tensors), **_eager_ops._fill(skwargs, tensors))]

    forward.__name__ = name
    forward._fg_export = ("creation", key, sargs, skwargs)  # type: ignore[attr-defined]
    in_ids = [v.id for v in inputs]
    block.program._core.append_traced(forward, in_ids, [out.id])
    block.program._calls.append(  # (static/program_log.py)
        {"call": "traced", "func": forward, "inputs": in_ids, "outputs": [out.id]}
    )
    block._derived(out, inputs)
    out._stop_gradient_default = True  # (a created value has no gradient, as in Paddle)
    return out


def _like(name: str) -> Callable[..., Any]:
    def like(*args: Any, **kwargs: Any) -> Any:
        outs = _eager_ops.record_eager(name, original(name), args, kwargs, ("creation", name))
        outs._stop_gradient_default = True
        return outs

    like.__name__ = name
    like.__doc__ = f"``{name}`` of a static Variable, recorded as a traced op."
    return like


#: name -> the static form of ``<name>(variable, ...)`` (``static/dispatch.py``)
LIKE_FUNCTIONS: dict[str, Callable[..., Any]] = {n: _like(n) for n in _LIKE + _RANDOM_LIKE}


def is_creation_key(key: str) -> bool:
    """Whether ``key`` names a creation function a saved traced op may call."""
    return any(key == t[2] for t in _TARGETS) or key in LIKE_FUNCTIONS


__all__ = ["LIKE_FUNCTIONS", "install", "is_creation_key", "original", "record_creation"]
