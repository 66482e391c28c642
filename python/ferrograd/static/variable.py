"""``Variable``: a symbolic value of a static ``Program``.

Operators and methods on a Variable record an op into its program instead of
computing; the op's output shape and dtype are inferred (in Rust) right away, so a
mismatch is an error while building, naming the op. The op names and their arguments
are the eager ones (``x.sum(axis=1)``, ``x.reshape([-1, 4])``, ``x @ w``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import _core
from .eager_ops import VariableEagerOpsMixin
from .variable_binary import VariableBinaryMixin
from .variable_index_split_reduce import VariableOpsMixin
from .variable_layout_scan import VariableLayoutScanMixin
from .variable_operators import VariableOperatorsMixin
from .variable_reductions import VariableReductionsMixin
from .variable_shapes import VariableShapesMixin
from .variable_unary import VariableUnaryMixin

if TYPE_CHECKING:
    from .program import Block, Program


def _dtype_object(name: str) -> Any:
    return getattr(_core, name)


class Variable(
    VariableUnaryMixin,  # (first: its methods were in this class body)
    VariableOpsMixin,
    VariableLayoutScanMixin,
    VariableReductionsMixin,
    VariableShapesMixin,
    VariableBinaryMixin,
    VariableEagerOpsMixin,
    VariableOperatorsMixin,
):
    """A variable of a static program: data (fed at run time), parameter (held in a
    scope), or the result of an op. ``shape`` uses ``-1`` for dimensions known only at
    run time."""

    __slots__ = (
        "block",
        "id",
        "name",
        "_dtype_name",
        "shape",
        "kind",
        "trainable",
        "_stop_gradient_set",
        "_stop_gradient_default",
        "_inputs",
    )

    def __init__(self, block: Block, var_id: int) -> None:
        name, dtype, shape, kind = block.program._core.var_info(var_id)
        if kind == "parameter" and name in block.program._optimizer_vars:
            # the optimizer's state is held in the scope like a parameter (Rust kind
            # Parameter) but is a persistable variable, not a Parameter, as in Paddle
            kind = "persistable"
        self.block = block
        self.id: int = var_id
        self.name: str = name
        self._dtype_name: str = dtype
        self.shape: list[int] = list(shape)
        self.kind: str = kind
        self.trainable: bool = kind == "parameter"
        #: ``stop_gradient`` as the user set it (None: never set; only a set True blocks
        #: gradients, see ``static/backward.py``)
        self._stop_gradient_set: bool | None = None
        #: Paddle's default: False for parameters, gradients, declared variables and ops
        #: with an input that needs a gradient (set when the op is recorded), else True
        self._stop_gradient_default: bool = kind in ("data", "temp", "persistable")
        #: ids of the variables this one is computed from (for the second-order check)
        self._inputs: tuple[int, ...] = ()

    # ----------------------------------------------------------------- properties
    @property
    def program(self) -> Program:
        """The program this variable belongs to."""
        return self.block.program

    @property
    def dtype(self) -> Any:
        """The element type (a ferrograd dtype)."""
        return _dtype_object(self._dtype_name)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def persistable(self) -> bool:
        """Whether the value lives in the scope between runs (parameters, layer
        statistics and the optimizer's state)."""
        return self.kind in ("parameter", "persistable")

    @property
    def stop_gradient(self) -> bool:
        """Whether no gradient is computed for (or through) this variable. By default, as
        in Paddle: True for ``data``, constants, the optimizer's state and frozen
        parameters; False for trainable parameters, gradient variables and op results with
        an input whose ``stop_gradient`` is False. Setting it True cuts the gradient here:
        ``gradients`` / ``append_backward`` treat the variable as a constant (a default
        True does not: a ``data`` variable gets a gradient when asked for one, where
        Paddle needs ``x.stop_gradient = False`` first)."""
        if self._stop_gradient_set is not None:
            return self._stop_gradient_set
        return self._stop_gradient_default

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        self._stop_gradient_set = bool(value)

    def __repr__(self) -> str:
        return f"Variable(name={self.name!r}, shape={self.shape}, dtype={self._dtype_name}, kind={self.kind})"

    def __hash__(self) -> int:
        return hash((id(self.block), self.id))

    def __bool__(self) -> bool:
        raise TypeError(
            f"the truth value of static variable '{self.name}' is not known while the program is "
            "being built; run it with an Executor to get values"
        )

    def __len__(self) -> int:
        if not self.shape or self.shape[0] < 0:
            raise TypeError(
                f"len() of static variable '{self.name}' with shape {self.shape} is not known"
            )
        return self.shape[0]

    def numpy(self) -> Any:
        """Not available while building: values exist only when an Executor runs."""
        raise TypeError(
            f"static variable '{self.name}' has no value while the program is being built; fetch it "
            "with Executor.run(..., fetch_list=[var])"
        )

    __array__ = numpy

    @staticmethod
    def __ferrograd_function__(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``ferrograd.<name>(*args, **kwargs)`` called with a Variable among the
        arguments: records the op (see ``static/dispatch.py``)."""
        from .dispatch import record_call

        return record_call(name, args, kwargs)

    # ----------------------------------------------------------------- recording
    def _op(self, op: str, inputs: Sequence[Variable], **attrs: Any) -> Variable:
        for key, value in attrs.items():
            # an attribute is fixed when the program is built; a Variable (whose value
            # comes only when the program runs) would be read as a sequence without end
            items = value if isinstance(value, (list, tuple)) else (value,)
            if any(isinstance(v, Variable) for v in items):
                raise TypeError(
                    f"{op}: '{key}' is a static Variable, whose value is known only when the "
                    f"program runs; static programs take '{key}' as a Python int or a list "
                    "of ints here"
                )
        return self.block._append(op, inputs, attrs)

    def _operand(self, other: Any) -> Variable:
        return self.block._as_variable(other, like=self)

    def _unary_extra(self, op: str, decimals: Any = None) -> Variable:
        """A unary op with the extra keyword its table entry declares (``round``'s
        ``decimals``), composed as the eager method computes it."""
        if decimals is None or decimals == 0:
            return self._op(op, [self])
        scale = 10.0 ** abs(int(decimals))
        scaled = self * scale if decimals > 0 else self / scale
        rounded = scaled._op(op, [scaled])
        return rounded / scale if decimals > 0 else rounded * scale

    def _binary(self, op: str, other: Any) -> Variable:
        return self._op(op, [self, self._operand(other)])

    def _rbinary(self, op: str, other: Any) -> Variable:
        return self._op(op, [self._operand(other), self])

    # arithmetic and comparisons (eager names)

    def matmul(
        self, y: Any, transpose_x: bool = False, transpose_y: bool = False, name: str | None = None
    ) -> Variable:
        """Matrix product (NumPy rules); Paddle's ``transpose_x/transpose_y`` swap the last two axes first."""
        x = self.swapaxes(-1, -2) if transpose_x else self
        yv = self._operand(y)
        if transpose_y:
            yv = yv.swapaxes(-1, -2)
        return x._op("matmul", [x, yv])

    mm = matmul

    # unary math (generated from src/op_defs/unary.rs): variable_unary.py

    def clip(
        self, min: float | None = None, max: float | None = None, name: str | None = None
    ) -> Variable:  # noqa: A002
        """Clamps into ``[min, max]`` (numbers, or Paddle's 1-element tensors / variables,
        whose values are read when the program runs)."""
        if isinstance(min, (Variable, _core.Tensor)) or isinstance(max, (Variable, _core.Tensor)):
            from .eager_ops import record_eager

            return record_eager(  # type: ignore[no-any-return]
                "clip", _core.Tensor.clip, (self, min, max), {}, export=("method", "clip")
            )
        return self._op("clip", [self], min=min, max=max)

    clamp = clip

    def scale(
        self,
        scale: float = 1.0,
        bias: float = 0.0,
        bias_after_scale: bool = True,
        name: str | None = None,
    ) -> Variable:
        """Paddle's ``scale``: ``scale * x + bias`` (or ``scale * (x + bias)``)."""
        if bias_after_scale:
            return self * scale + bias
        return (self + bias) * scale

    def astype(self, dtype: Any) -> Variable:
        """Conversion to ``dtype``."""
        return self._op("cast", [self], dtype=dtype)

    cast = astype

    # reductions and normalisations
    # the reductions (generated from src/op_defs/reduce.rs): variable_reductions.py

    def softmax(self, axis: int = -1, dtype: Any = None, name: str | None = None) -> Variable:
        """Softmax along ``axis``."""
        x = self.astype(dtype) if dtype is not None else self
        return x._op("softmax", [x], axis=axis)

    def log_softmax(self, axis: int = -1, dtype: Any = None, name: str | None = None) -> Variable:
        """Log-softmax along ``axis``."""
        x = self.astype(dtype) if dtype is not None else self
        return x._op("log_softmax", [x], axis=axis)

    # the shape table's ops (reshape, permute, transpose, ...): variable_shapes.py
    def swapaxes(self, dim0: int, dim1: int) -> Variable:
        """Swaps two axes."""
        return self._op("transpose", [self], dim0=int(dim0), dim1=int(dim1))

    def t(self) -> Variable:
        """Transpose of a matrix (1-D and 0-D unchanged)."""
        return self if self.ndim < 2 else self.swapaxes(0, 1)

    @property
    def T(self) -> Variable:  # noqa: N802
        """All axes reversed."""
        return self.permute(list(range(self.ndim - 1, -1, -1)))
