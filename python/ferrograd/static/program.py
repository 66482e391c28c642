"""Programs, blocks, the default programs and ``program_guard``, ``data`` and
``create_parameter``. A ``Program`` is a thin handle on the Rust program that records
ops and infers shapes; the Python objects only keep names and ``Variable`` handles."""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator, Sequence
from typing import Any

from .. import _core
from . import initializer as _init
from .variable import Variable


def foreign_variable(op: str, v: Variable) -> ValueError:
    """The error for variable ``v`` used in a program it does not belong to."""
    hint = ""
    if v.kind == "parameter":
        hint = (
            " (a parameter belongs to the default main program of the moment it was created, "
            "e.g. when its nn layer was built: build the layer inside the same "
            "program_guard as the ops that use it)"
        )
    return ValueError(
        f"{op}: variable '{v.name}' belongs to another program; a variable can only be used "
        f"in the program it was created in{hint}"
    )


class Block:
    """The (single) block of a program: creates and finds its variables."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.idx = 0
        self._vars: dict[int, Variable] = {}

    def _wrap(self, var_id: int) -> Variable:
        v = self._vars.get(var_id)
        if v is None:
            v = Variable(self, var_id)
            self._vars[var_id] = v
        return v

    def _append(self, op: str, inputs: Sequence[Variable], attrs: dict[str, Any]) -> Variable:
        ids = []
        for v in inputs:
            if v.block is not self:
                raise foreign_variable(op, v)
            ids.append(v.id)
        out = self.program._core.append_op(op, ids, **attrs)
        self.program._calls.append(
            {"call": "op", "op": op, "inputs": ids, "attrs": dict(attrs), "out": out}
        )
        return self._derived(self._wrap(out), inputs)

    @staticmethod
    def _derived(out: Variable, inputs: Sequence[Variable]) -> Variable:
        """Notes that ``out`` is computed from ``inputs``: its default ``stop_gradient``
        is False when an input's is (Paddle's rule), and the inputs are kept for the
        second-order check of ``gradients``."""
        out._inputs = tuple(v.id for v in inputs)
        out._stop_gradient_default = all(v.stop_gradient for v in inputs)
        return out

    def _as_variable(self, value: Any, like: Variable | None = None) -> Variable:
        """``value`` as a variable of this program: Variables pass through, tensors and
        arrays become constants, Python scalars constants typed like ``like``."""
        if isinstance(value, Variable):
            if value.block is not self:
                raise foreign_variable("an op", value)
            return value
        if isinstance(value, _core.Tensor):
            from .layer_state import check_not_eager_parameter

            check_not_eager_parameter(
                value, f"an op on '{like.name}'" if like is not None else "a static op"
            )
            return self._constant(value, None)
        if isinstance(value, (numbers.Number, bool)):
            return self._constant(value, like.id if like is not None else None)
        return self._constant(_core.to_tensor(value), None)

    def _constant(self, value: Any, like: int | None) -> Variable:
        """A constant (a scalar typed like variable ``like``), noted in the call log."""
        out = self.program._core.append_constant(value, like)
        self.program._calls.append({"call": "const", "value": value, "like": like, "out": out})
        return self._wrap(out)

    def create_var(
        self,
        name: str | None = None,
        dtype: Any = "float32",
        shape: Sequence[int | None] | None = None,
        persistable: bool = False,
        stop_gradient: bool | None = None,
        **kwargs: Any,
    ) -> Variable:
        """Declares a variable to be computed by an op later (e.g. a ``py_func`` output).
        ``-1``/``None`` in ``shape`` is a dimension given at run time. ``stop_gradient``:
        None follows the op that computes it (a ``py_func`` with a ``backward_func`` and
        an input that needs a gradient gives False); True cuts gradients there."""
        if name is None:
            name = f"_generated_var_{self.program._core.num_vars()}"
        if shape is None:
            raise ValueError(f"create_var('{name}'): a shape is needed")
        v = self._wrap(_new_var(self.program, name, dtype, shape, "declared"))
        if stop_gradient is not None:
            v.stop_gradient = stop_gradient
        return v

    def var(self, name: str) -> Variable:
        """The variable called ``name``."""
        var_id = self.program._core.find_var(name)
        if var_id is None:
            raise ValueError(f"variable '{name}' is not in this program")
        return self._wrap(var_id)

    def has_var(self, name: str) -> bool:
        """Whether a variable called ``name`` exists."""
        return self.program._core.find_var(name) is not None

    @property
    def vars(self) -> dict[str, Variable]:
        """All variables by name."""
        out = {}
        for i in range(self.program._core.num_vars()):
            v = self._wrap(i)
            out[v.name] = v
        return out

    @property
    def ops(self) -> list[str]:
        """The op names in execution order."""
        return list(self.program._core.op_types())

    def all_parameters(self) -> list[Variable]:
        """The parameters (layer statistics included, not the optimizer's state), in
        creation order."""
        return [v for v in self.vars.values() if v.kind == "parameter"]


class Program:
    """A static program: variables and the ops over them, recorded once and run many
    times by an ``Executor``. Held and executed in Rust."""

    def __init__(self) -> None:
        self._core = _core._Program()
        self._block = Block(self)
        self.random_seed = 0
        #: a test program (``clone(for_test=True)``): dropout and batch norm run in
        #: evaluation mode (see ``eager_ops.TEST_OVERRIDES``)
        self._for_test = False
        #: names of the optimizer's persistable state (moments, steps, learning rates)
        self._optimizer_vars: set[str] = set()
        #: every call that built the Rust program, in order (``static/program_log.py``:
        #: what ``save_inference_model`` prunes and writes; the Rust program does not
        #: describe its ops back)
        self._calls: list[dict[str, Any]] = []

    def current_block(self) -> Block:
        """The block ops are appended to."""
        return self._block

    def global_block(self) -> Block:
        """The program's block (ferrograd programs have one)."""
        return self._block

    def block(self, index: int) -> Block:
        """Block ``index`` (only 0 exists)."""
        if index != 0:
            raise IndexError(f"program has 1 block, asked for block {index}")
        return self._block

    @property
    def num_blocks(self) -> int:
        """Always 1."""
        return 1

    def list_vars(self) -> Iterator[Variable]:
        """All variables."""
        return iter(self._block.vars.values())

    def all_parameters(self) -> list[Variable]:
        """The parameters."""
        return self._block.all_parameters()

    def clone(self, for_test: bool = False) -> Program:
        """An independent copy (same variables and ops). ``for_test=True``: a test
        program, in which ``F.dropout`` and ``F.batch_norm`` (also ``static.nn.batch_norm``)
        run in evaluation mode — the identity, and the moving statistics, which are
        left unchanged — as in Paddle. (Clone before ``minimize``: a clone keeps the
        program's optimizer updates.)"""
        p = Program.__new__(Program)
        p._core = self._core.duplicate()
        p._block = Block(p)
        p.random_seed = self.random_seed
        p._for_test = bool(for_test) or self._for_test
        p._optimizer_vars = set(self._optimizer_vars)
        p._calls = list(self._calls)
        for var_id, v in self._block._vars.items():  # what Python keeps beside Rust
            w = p._block._wrap(var_id)
            w.trainable = v.trainable
            w._stop_gradient_set = v._stop_gradient_set
            w._stop_gradient_default = v._stop_gradient_default
            w._inputs = v._inputs
        return p

    def state_dict(self, mode: str = "all", scope: Scope | None = None) -> dict[str, Any]:
        """``{name: Tensor}`` of the persistable variables' values in ``scope`` (default
        the global scope): ``mode="param"`` the parameters and layer statistics,
        ``"opt"`` the optimizer's state, ``"all"`` both (``static/io.py``)."""
        from .io import program_state

        return program_state(self, mode, scope)

    def set_state_dict(self, state_dict: Any, scope: Scope | None = None) -> None:
        """Sets the persistable variables named in ``state_dict`` (Tensors or arrays,
        shapes checked, dtypes cast) in ``scope``; names the program lacks are skipped
        with a warning, as in Paddle."""
        from .io import set_program_state

        set_program_state(self, state_dict, scope)

    def to_string(self, throw_on_error: bool = True, with_details: bool = False) -> str:
        """A readable listing of variables and ops."""
        return str(self._core.describe())

    def __str__(self) -> str:
        return self.to_string()


_main_program = Program()
_startup_program = Program()


def default_main_program() -> Program:
    """The program ops are recorded into (changed by ``program_guard``)."""
    return _main_program


def default_startup_program() -> Program:
    """The program that initialises parameters (changed by ``program_guard``)."""
    return _startup_program


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Program | None = None) -> Iterator[None]:
    """Makes ``main_program`` (and ``startup_program``) the defaults inside the block."""
    global _main_program, _startup_program
    if not isinstance(main_program, Program):
        raise TypeError(
            f"program_guard: main_program must be a Program, got {type(main_program).__name__}"
        )
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(
            f"program_guard: startup_program must be a Program, got {type(startup_program).__name__}"
        )
    saved = (_main_program, _startup_program)
    _main_program = main_program
    if startup_program is not None:
        _startup_program = startup_program
    try:
        yield
    finally:
        _main_program, _startup_program = saved


def data(
    name: str, shape: Sequence[int | None], dtype: Any = "float32", lod_level: int = 0
) -> Variable:
    """Declares a variable fed at run time (``feed={name: array}``); ``-1``/``None``
    dimensions take any size."""
    block = _main_program.current_block()
    return block._wrap(_new_var(_main_program, name, dtype, shape, "data"))


def _new_var(program: Program, name: str, dtype: Any, shape: Any, kind: str) -> int:
    """``program._core.create_var``, noted in the program's call log."""
    out = program._core.create_var(name, dtype, list(shape), kind)
    program._calls.append({"call": "var", "kind": kind, "out": out})
    return int(out)


_param_counter = [0]


def _init_spec(
    init: Any, shape: Sequence[int], is_bias: bool, dtype: Any = "float32"
) -> tuple[str, float, float, Any]:
    if init is None:
        init = _init.Constant(0.0) if is_bias else _init.XavierUniform()
    if hasattr(init, "_static_init"):
        spec: tuple[str, float, float, Any] = init._static_init(list(shape))
        return spec
    from ..nn import init as _nn_init

    if isinstance(init, _nn_init.Initializer):
        # an eager ``nn.initializer`` fills a tensor in place: its values, drawn now
        from .. import zeros

        value = zeros(list(shape), dtype=dtype)
        init(value)
        return ("value", 0.0, 0.0, value.detach())
    if isinstance(init, numbers.Number):
        return ("constant", float(init), 0.0, None)  # type: ignore[arg-type]
    if callable(init):
        return ("value", 0.0, 0.0, init(list(shape)))
    return ("value", 0.0, 0.0, init)


def create_parameter(
    shape: Sequence[int],
    dtype: Any,
    name: str | None = None,
    attr: Any = None,
    is_bias: bool = False,
    default_initializer: Any = None,
) -> Variable:
    """Creates a parameter in the default main program and its initialisation in the
    default startup program (run the startup program once to give it a value).

    ``default_initializer``: None (Xavier uniform for weights, zeros for biases), a number,
    an array/Tensor, a callable ``shape -> array``, or an initializer object from
    ``ferrograd.static.initializer`` (anything with ``_static_init``) or ``nn.initializer``.

    ``attr``: a ``ParamAttr`` (its ``name``, its ``initializer``, which takes precedence
    over ``default_initializer``, and ``trainable=False``: the parameter is kept but not
    trained); a ``learning_rate`` other than 1 is refused (use a parameter group)."""
    trainable = True
    if attr is not None and not isinstance(attr, str):
        scale = float(getattr(attr, "learning_rate", 1.0))
        if scale != 1.0:
            raise NotImplementedError(
                f"create_parameter: ParamAttr(learning_rate={scale}) is not carried into static "
                "programs; give the optimizer a parameter group instead: "
                "parameters=[{'params': [...], 'learning_rate': scale}, ...]"
            )
        if getattr(attr, "regularizer", None) is not None:
            raise NotImplementedError(
                "create_parameter: ParamAttr(regularizer=...) is not carried into static "
                "programs yet; give the optimizer weight_decay= (per parameter group), or "
                "train eagerly"
            )
        if getattr(attr, "initializer", None) is not None:
            default_initializer = attr.initializer
        trainable = bool(getattr(attr, "trainable", True))
    if isinstance(attr, str) and name is None:
        name = attr
    if name is None and attr is not None and getattr(attr, "name", None):
        name = attr.name
    if name is None:
        name = f"create_parameter_{_param_counter[0]}.{'b' if is_bias else 'w'}_0"
        _param_counter[0] += 1
    shape = [int(d) for d in shape]
    main, startup = _main_program, _startup_program
    pid = _new_var(main, name, dtype, shape, "parameter")
    sid = _new_var(startup, name, dtype, shape, "parameter")
    kind, a, b, value = _init_spec(default_initializer, shape, is_bias, dtype)
    if kind == "value":
        value = value if isinstance(value, _core.Tensor) else _core.to_tensor(value)
    startup._core.append_init(sid, kind, a, b, value)
    twin = startup.current_block()._wrap(sid)
    var = main.current_block()._wrap(pid)
    if not trainable:
        var.trainable = twin.trainable = False
        var._stop_gradient_default = twin._stop_gradient_default = True
    return var


def assign(x: Any, output: Variable | None = None) -> Variable:
    """``output = x`` recorded in the program (a new variable when ``output`` is None).
    Assigning to a parameter updates it in the scope when the program runs."""
    if output is None:
        if not isinstance(x, Variable):
            return _main_program.current_block()._as_variable(x)
        return x.scale(1.0)
    block = output.block
    src = block._as_variable(x, like=output)
    output.program._core.append_assign(src.id, output.id)
    output.program._calls.append({"call": "assign", "src": src.id, "dst": output.id})
    if not output.persistable:  # (a parameter's update is not what its readers compute)
        first = not output._inputs
        output._stop_gradient_default = src.stop_gradient and (
            first or output._stop_gradient_default
        )
        output._inputs = (*output._inputs, src.id)
    return output


class Scope:
    """Named parameter values shared by the programs run in it."""

    def __init__(self) -> None:
        self._core = _core._Scope()

    def find_var(self, name: str) -> Any:
        """The value of ``name`` as a Tensor, or None."""
        return self._core.get(name)

    def set(self, name: str, value: Any) -> None:
        """Sets ``name`` to ``value`` (copied)."""
        self._core.set(name, value)

    def names(self) -> list[str]:
        """The names held."""
        return list(self._core.names())

    def clear(self) -> None:
        """Forgets every value."""
        self._core.clear()


_global_scope = Scope()


def global_scope() -> Scope:
    """The scope executors use by default."""
    return _global_scope


@contextlib.contextmanager
def scope_guard(scope: Scope) -> Iterator[None]:
    """Makes ``scope`` the default scope inside the block."""
    global _global_scope
    saved = _global_scope
    _global_scope = scope
    try:
        yield
    finally:
        _global_scope = saved
