"""Static ops that run their eager function when the program runs ("traced" ops).

The everyday functions with no op kind of their own in the Rust program — ``einsum``,
the scatter family, ``masked_select``/``nonzero``, ``cumprod``/``cummax``/...,
``median``/``mode``/``unique``/``kthvalue``, the diagonal ops, and the layers' functions
(``F.conv2d``, pooling, ``F.batch_norm``, ``F.dropout``, ...) — record one op that calls
the eager function on the input values when the program runs. The Rust executor hands
it the values as they are (``_Program.append_traced``): where a gradient is requested
the autograd engine records the eager ops the function runs, so values and gradients
are the eager ones by construction, with no second implementation to keep in step.
The price is one call into Python per op and run.

Shapes and dtypes are inferred when the op is recorded by running the eager function
once on zeros of the input shapes (``-1`` dimensions taken as 5), and again with those
dimensions taken as 9 and as 2 when there are any: an output dimension that differs
between them is ``-1`` (known at run time), and an error of the eager function
(mismatched shapes, a bad argument) in the first two is raised right then (the small
trial may fail: some ops need more elements; then the first two decide). Ops whose output size depends on the values
(``masked_select``, ``nonzero``, ``unique``, ``repeat_interleave`` with tensor repeats)
run a third time on ``arange`` values; a dimension that differs from the zeros' is
``-1``, as Paddle records them. These trial runs restore the random generator's state,
so building a program never changes the random stream. At run time every output is
checked against its recorded dtype and shape (a ``-1`` dimension takes any size).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .. import _core
from .._traced_op_names import (
    DATA_DEPENDENT,
    FUNCTIONAL_OPS,
)

if TYPE_CHECKING:
    from .variable import Variable

#: sizes given to ``-1`` dimensions in the two trial runs
_TRIAL_SIZES = (5, 9)
#: and in a third one, whose errors are ignored (an op may need more elements)
_SMALL_TRIAL = 2
#: traced ops whose result has the first input's dtype and shape, used when the trial
#: calls fail on the trial values (see record_eager)
_SHAPE_OF_FIRST = frozenset({"index_put"})

_FUNCTIONAL = frozenset(FUNCTIONAL_OPS)

#: arguments that test programs (``Program.clone(for_test=True)``) override when they run
TEST_OVERRIDES: dict[str, dict[str, Any]] = {
    "dropout": {"training": False},
    "batch_norm": {"training": False},
}

_state = threading.local()


@contextlib.contextmanager
def test_mode(on: bool) -> Iterator[None]:
    """Marks the programs run inside as test programs (the executor runs the traced
    ops on its own thread, with the GIL taken back for each)."""
    saved = getattr(_state, "test", False)
    _state.test = on
    try:
        yield
    finally:
        _state.test = saved


def _overriding(fn: Callable[..., Any], overrides: dict[str, Any]) -> Callable[..., Any]:
    """``fn`` that, while a test program runs, is called with ``overrides`` in place of
    the arguments of those names (however they were passed)."""
    sig = inspect.signature(getattr(fn, "__wrapped__", fn))

    def call(*args: Any, **kwargs: Any) -> Any:
        if getattr(_state, "test", False):
            bound = sig.bind(*args, **kwargs)
            bound.arguments.update(overrides)
            return fn(*bound.args, **bound.kwargs)
        return fn(*args, **kwargs)

    return call


def eager_function(name: str) -> Callable[..., Any]:
    """The eager callable behind the handler name ``name`` (a ``ferrograd.nn.functional``
    function of ``FUNCTIONAL_OPS`` or a ``ferrograd`` function); called with tensors it
    computes at once."""
    module = "ferrograd.nn.functional" if name in _FUNCTIONAL else "ferrograd"
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


class _Slot:
    """Where the k-th input value goes in the call's arguments."""

    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k


def _strip(value: Any, inputs: list[Variable], var_type: type, name: str = "") -> Any:
    """``value`` with every Variable (also inside lists, tuples and dicts) replaced by a
    slot; the Variables are appended to ``inputs``. An eager ``Parameter`` is refused
    (it would be a constant that training never updates)."""
    if isinstance(value, var_type):
        inputs.append(value)  # type: ignore[arg-type]
        return _Slot(len(inputs) - 1)
    if isinstance(value, (list, tuple)):
        items = [_strip(v, inputs, var_type, name) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _strip(v, inputs, var_type, name) for k, v in value.items()}
    if isinstance(value, _core.Tensor):
        from .layer_state import check_not_eager_parameter

        check_not_eager_parameter(value, name)
    return value


def _fill(value: Any, tensors: Sequence[Any]) -> Any:
    if isinstance(value, _Slot):
        return tensors[value.k]
    if isinstance(value, list):
        return [_fill(v, tensors) for v in value]
    if isinstance(value, tuple):
        return tuple(_fill(v, tensors) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, tensors) for k, v in value.items()}
    return value


def _flatten(result: Any, name: str) -> list[Any]:
    """The tensors of an eager result (a tensor, or a tuple/list of them)."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    for t in items:
        if not isinstance(t, _core.Tensor):
            raise TypeError(
                f"{name}: static programs record results that are tensors or tuples of "
                f"tensors, got {type(t).__name__}"
            )
    return items


def _rebuild(like: Any, outs: list[Variable]) -> Any:
    if not isinstance(like, (tuple, list)):
        return outs[0]
    if isinstance(like, list):
        return outs
    if hasattr(like, "_fields"):  # a named tuple (e.g. values/indices)
        return type(like)(*outs)
    return type(like)(outs) if type(like) is not tuple else tuple(outs)


def _trial_value(v: Variable, size: int, arange: bool) -> Any:
    shape = [size if d < 0 else d for d in v.shape]
    if not arange:
        return _core.zeros(shape, dtype=v._dtype_name)
    n = math.prod(shape)
    return _core.arange(n).reshape(shape).astype(v._dtype_name)


def _trial(
    call: Callable[[Sequence[Any]], Any], inputs: list[Variable], size: int, arange: bool
) -> Any:
    import ferrograd

    state = ferrograd.get_rng_state()
    try:
        with ferrograd.no_grad():
            return call([_trial_value(v, size, arange) for v in inputs])
    finally:
        ferrograd.set_rng_state(state)


def _shapes(name: str, result: Any) -> list[tuple[str, list[int]]]:
    return [(str(t.dtype).replace("ferrograd.", ""), list(t.shape)) for t in _flatten(result, name)]


def _merge(
    name: str, a: list[tuple[str, list[int]]], b: list[tuple[str, list[int]]], why: str
) -> list[tuple[str, list[int]]]:
    """Dimensions that differ between two trials become ``-1``."""
    if len(a) != len(b) or any(da != db or len(sa) != len(sb) for (da, sa), (db, sb) in zip(a, b)):
        raise ValueError(
            f"{name}: the number, rank or dtype of its results depends on {why}, which a "
            "static program cannot record; give those dimensions fixed sizes in static.data"
        )
    return [(d, [x if x == y else -1 for x, y in zip(sa, sb)]) for (d, sa), (_, sb) in zip(a, b)]


def _describe(inputs: list[Variable]) -> str:
    return ", ".join(f"'{v.name}' {v.shape} {v._dtype_name}" for v in inputs)


def _note_and_raise(e: Exception, name: str, inputs: list[Variable], dynamic: bool) -> NoReturn:
    note = getattr(e, "add_note", None)  # (Python 3.11+)
    if note is not None:
        note(
            f"(while recording ferrograd.{name} into a static program, with inputs "
            f"{_describe(inputs)}; -1 dimensions tried as {_TRIAL_SIZES[0]}"
            f"{' and ' + str(_TRIAL_SIZES[1]) if dynamic else ''})"
        )
    raise e


def record_eager(
    name: str,
    fn: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    export: tuple[str, str] | None = None,
) -> Any:
    """Records ``fn(*args, **kwargs)`` (``fn`` eager, some arguments static Variables)
    as one traced op of the Variables' program; returns its result as Variables, in
    the eager result's structure. ``export``: ``("function" | "method", name)``, how
    ``export_callable`` finds ``fn`` again (``jit.save`` writes it with the arguments)."""
    from .variable import Variable

    inputs: list[Variable] = []
    sargs = _strip(tuple(args), inputs, Variable, name)
    skwargs = _strip(dict(kwargs), inputs, Variable, name)
    if not inputs:
        raise TypeError(f"{name}: expected a static Variable among the arguments")
    block = inputs[0].block
    for v in inputs:
        if v.block is not block:
            from .program import foreign_variable

            raise foreign_variable(name, v)

    def call(tensors: Sequence[Any]) -> Any:
        return fn(*_fill(sargs, tensors), **_fill(skwargs, tensors))

    dynamic = any(d < 0 for v in inputs for d in v.shape)
    try:
        first = _trial(call, inputs, _TRIAL_SIZES[0], arange=False)
        specs = _shapes(name, first)
        if dynamic:
            second = _trial(call, inputs, _TRIAL_SIZES[1], arange=False)
            specs = _merge(name, specs, _shapes(name, second), "the run-time sizes")
            try:  # a small size catches results that saturate (min(n, 4) of diagonal)
                small = _shapes(name, _trial(call, inputs, _SMALL_TRIAL, arange=False))
            except Exception:  # (the op may need more elements: the two trials decide)
                small = None
            if small is not None:
                specs = _merge(name, specs, small, "the run-time sizes")
        if name in DATA_DEPENDENT:
            valued = _trial(call, inputs, _TRIAL_SIZES[0], arange=True)
            specs = _merge(name, specs, _shapes(name, valued), "the values")
    except Exception as e:
        if not (name in _SHAPE_OF_FIRST and args and isinstance(args[0], Variable)):
            _note_and_raise(e, name, inputs, dynamic)
        # trial values (zeros) can make a valid call fail (a bool index with no True
        # entry selects nothing, so a value of the run-time row count does not fit); the
        # result is shaped as the first input whatever the values
        first, specs = None, [(args[0]._dtype_name, list(args[0].shape))]
    base = block.program._core.num_vars()
    outs = [
        block.create_var(name=f"{name}_{base}.out_{k}", dtype=d, shape=s)
        for k, (d, s) in enumerate(specs)
    ]

    def forward(*tensors: Any) -> Any:
        return _flatten(call(tensors), name)

    forward.__name__ = name
    # what jit.save needs to write the op (static/export.py); None: a callback it refuses
    forward._fg_export = None if export is None else (*export, sargs, skwargs)  # type: ignore[attr-defined]
    in_ids, out_ids = [v.id for v in inputs], [o.id for o in outs]
    block.program._core.append_traced(forward, in_ids, out_ids)
    block.program._calls.append(  # (static/program_log.py)
        {"call": "traced", "func": forward, "inputs": in_ids, "outputs": out_ids}
    )
    for o in outs:
        block._derived(o, inputs)
    return _rebuild(first, outs)


def record_function(name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """The module function ``name`` (of ``TENSOR_OPS`` or ``FUNCTIONAL_OPS``) called
    with static Variables: recorded as a traced op."""
    return record_eager(
        name, export_callable("function", name), args, kwargs, export=("function", name)
    )


def export_callable(kind: str, name: str) -> Callable[..., Any]:
    """The eager callable a traced op runs: the module function ``name`` (``kind``
    "function", with the test programs' overrides) or the ``Tensor`` method ``name``
    ("method")."""
    if kind == "method":
        return getattr(_core.Tensor, name)  # type: ignore[no-any-return]
    fn = eager_function(name)
    overrides = TEST_OVERRIDES.get(name)
    return fn if overrides is None else _overriding(fn, overrides)


def _method(name: str) -> Callable[..., Any]:
    def method(self: Variable, *args: Any, **kwargs: Any) -> Any:
        # (looked up when called: some Tensor methods are installed by the package)
        return record_eager(
            name, getattr(_core.Tensor, name), (self, *args), kwargs, export=("method", name)
        )

    method.__name__ = name
    method.__doc__ = (
        f"``Tensor.{name}`` recorded as a traced op: the eager method runs on the values "
        "when the program runs (see ``ferrograd/static/eager_ops.py``)."
    )
    return method


class VariableEagerOpsMixin:
    """The ``TENSOR_OPS`` that are ``Tensor`` methods, as ``Variable`` methods, each
    recording a traced op (the eager method's arguments; spelled out for type checkers,
    tests/python/test_static_traced_ops.py checks the list against ``TENSOR_OPS``)."""

    __slots__ = ()

    scatter = _method("scatter")
    scatter_add = _method("scatter_add")
    scatter_reduce = _method("scatter_reduce")
    index_add = _method("index_add")
    index_fill = _method("index_fill")
    index_put = _method("index_put")
    masked_scatter = _method("masked_scatter")
    scatter_nd_add = _method("scatter_nd_add")
    gather_nd = _method("gather_nd")
    take = _method("take")
    put_along_axis = _method("put_along_axis")
    masked_select = _method("masked_select")
    nonzero = _method("nonzero")
    cumprod = _method("cumprod")
    cummax = _method("cummax")
    cummin = _method("cummin")
    logcumsumexp = _method("logcumsumexp")
    median = _method("median")
    nanmedian = _method("nanmedian")
    mode = _method("mode")
    unique = _method("unique")
    unique_consecutive = _method("unique_consecutive")
    kthvalue = _method("kthvalue")
    diag = _method("diag")
    diagonal = _method("diagonal")
    diag_embed = _method("diag_embed")
    trace = _method("trace")
    rot90 = _method("rot90")
    repeat_interleave = _method("repeat_interleave")
    histogram = _method("histogram")
    cross = _method("cross")
    lerp = _method("lerp")
    logit = _method("logit")
    isclose = _method("isclose")
    allclose = _method("allclose")
    diff = _method("diff")
    bucketize = _method("bucketize")
    dist = _method("dist")


__all__ = [
    "TEST_OVERRIDES",
    "VariableEagerOpsMixin",
    "eager_function",
    "export_callable",
    "record_eager",
    "record_function",
    "test_mode",
]
