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

if TYPE_CHECKING:
    from .program import Block, Program


def _dtype_object(name: str) -> Any:
    return getattr(_core, name)


class Variable(
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

    # unary math
    # BEGIN generated: unary Variable methods (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
    def neg(self, name: str | None = None) -> Variable:
        """Elementwise negation ``-self``."""
        return self._op("neg", [self])

    def negative(self, name: str | None = None) -> Variable:
        """Elementwise negation ``-self``."""
        return self._op("neg", [self])

    def abs(self, name: str | None = None) -> Variable:
        """Elementwise absolute value (the modulus for complex tensors)."""
        return self._op("abs", [self])

    def absolute(self, name: str | None = None) -> Variable:
        """Elementwise absolute value (the modulus for complex tensors)."""
        return self._op("abs", [self])

    def sign(self, name: str | None = None) -> Variable:
        """Elementwise sign: -1, 0 or 1."""
        return self._op("sign", [self])

    def sgn(self, name: str | None = None) -> Variable:
        """Elementwise sign: -1, 0 or 1."""
        return self._op("sign", [self])

    def exp(self, name: str | None = None) -> Variable:
        """Elementwise ``e ** self``."""
        return self._op("exp", [self])

    def log(self, name: str | None = None) -> Variable:
        """Elementwise natural logarithm."""
        return self._op("log", [self])

    def log1p(self, name: str | None = None) -> Variable:
        """Elementwise ``log(1 + self)``, accurate near zero."""
        return self._op("log1p", [self])

    def expm1(self, name: str | None = None) -> Variable:
        """Elementwise ``exp(self) - 1``, accurate near zero."""
        return self._op("expm1", [self])

    def sqrt(self, name: str | None = None) -> Variable:
        """Elementwise square root."""
        return self._op("sqrt", [self])

    def rsqrt(self, name: str | None = None) -> Variable:
        """Elementwise reciprocal square root ``1 / sqrt(self)``."""
        return self._op("rsqrt", [self])

    def square(self, name: str | None = None) -> Variable:
        """Elementwise ``self * self``."""
        return self._op("square", [self])

    def reciprocal(self, name: str | None = None) -> Variable:
        """Elementwise ``1 / self``."""
        return self._op("reciprocal", [self])

    def sin(self, name: str | None = None) -> Variable:
        """Elementwise sine."""
        return self._op("sin", [self])

    def cos(self, name: str | None = None) -> Variable:
        """Elementwise cosine."""
        return self._op("cos", [self])

    def tan(self, name: str | None = None) -> Variable:
        """Elementwise tangent."""
        return self._op("tan", [self])

    def tanh(self, name: str | None = None) -> Variable:
        """Elementwise hyperbolic tangent."""
        return self._op("tanh", [self])

    def sigmoid(self, name: str | None = None) -> Variable:
        """Elementwise logistic sigmoid ``1 / (1 + exp(-self))``."""
        return self._op("sigmoid", [self])

    def relu(self, name: str | None = None) -> Variable:
        """Elementwise ``max(self, 0)``."""
        return self._op("relu", [self])

    def gelu(self, name: str | None = None) -> Variable:
        """Elementwise GELU (the exact, erf-based form)."""
        return self._op("gelu", [self])

    def gelu_tanh(self, name: str | None = None) -> Variable:
        """Elementwise GELU, tanh approximation ``0.5 * self * (1 + tanh(sqrt(2/pi) * (self + 0.044715 * self**3)))``."""
        return self._op("gelu_tanh", [self])

    def softplus(self, name: str | None = None) -> Variable:
        """Elementwise ``log(1 + exp(self))`` (linear above 20, as torch)."""
        return self._op("softplus", [self])

    def mish(self, name: str | None = None) -> Variable:
        """Elementwise Mish ``self * tanh(softplus(self))``."""
        return self._op("mish", [self])

    def erf(self, name: str | None = None) -> Variable:
        """Elementwise Gauss error function."""
        return self._op("erf", [self])

    def floor(self, name: str | None = None) -> Variable:
        """Elementwise rounding down."""
        return self._op("floor", [self])

    def ceil(self, name: str | None = None) -> Variable:
        """Elementwise rounding up."""
        return self._op("ceil", [self])

    def round(self, decimals: Any = None, name: str | None = None) -> Variable:
        """Elementwise rounding to the nearest integer, or with ``decimals`` to that many decimal places (halves to even, as NumPy)."""
        return self._unary_extra("round", decimals=decimals)

    def silu(self, name: str | None = None) -> Variable:
        """Elementwise SiLU (swish) ``self * sigmoid(self)``."""
        return self._op("silu", [self])

    def selu(self, name: str | None = None) -> Variable:
        """Elementwise SELU ``scale * (self if self > 0 else alpha * (exp(self) - 1))``."""
        return self._op("selu", [self])

    def relu6(self, name: str | None = None) -> Variable:
        """Elementwise ``min(max(self, 0), 6)``."""
        return self._op("relu6", [self])

    def hardsigmoid(self, name: str | None = None) -> Variable:
        """Elementwise hard sigmoid ``relu6(self + 3) / 6``."""
        return self._op("hardsigmoid", [self])

    def hardswish(self, name: str | None = None) -> Variable:
        """Elementwise hard swish ``self * relu6(self + 3) / 6``."""
        return self._op("hardswish", [self])

    def softsign(self, name: str | None = None) -> Variable:
        """Elementwise ``self / (1 + |self|)``."""
        return self._op("softsign", [self])

    def tanhshrink(self, name: str | None = None) -> Variable:
        """Elementwise ``self - tanh(self)``."""
        return self._op("tanhshrink", [self])

    def log_sigmoid(self, name: str | None = None) -> Variable:
        """Elementwise ``log(sigmoid(self))``, computed stably."""
        return self._op("log_sigmoid", [self])

    def logical_not(self, name: str | None = None) -> Variable:
        """Elementwise logical NOT of the truth values, as a bool tensor."""
        return self._op("logical_not", [self])

    def bitwise_not(self, name: str | None = None) -> Variable:
        """Elementwise bitwise NOT ``~self`` of integers (logical NOT of bools)."""
        return self._op("bitwise_not", [self])

    def isnan(self, name: str | None = None) -> Variable:
        """Elementwise test for NaN, as a bool tensor (complex: either part)."""
        return self._op("isnan", [self])

    def isinf(self, name: str | None = None) -> Variable:
        """Elementwise test for +inf or -inf, as a bool tensor (complex: either part)."""
        return self._op("isinf", [self])

    def isfinite(self, name: str | None = None) -> Variable:
        """Elementwise test for a finite value (not NaN, not infinite), as a bool tensor."""
        return self._op("isfinite", [self])

    def isposinf(self, name: str | None = None) -> Variable:
        """Elementwise test for +inf, as a bool tensor."""
        return self._op("isposinf", [self])

    def isneginf(self, name: str | None = None) -> Variable:
        """Elementwise test for -inf, as a bool tensor."""
        return self._op("isneginf", [self])

    def asin(self, name: str | None = None) -> Variable:
        """Elementwise inverse sine (NaN outside [-1, 1])."""
        return self._op("asin", [self])

    def arcsin(self, name: str | None = None) -> Variable:
        """Elementwise inverse sine (NaN outside [-1, 1])."""
        return self._op("asin", [self])

    def acos(self, name: str | None = None) -> Variable:
        """Elementwise inverse cosine (NaN outside [-1, 1])."""
        return self._op("acos", [self])

    def arccos(self, name: str | None = None) -> Variable:
        """Elementwise inverse cosine (NaN outside [-1, 1])."""
        return self._op("acos", [self])

    def atan(self, name: str | None = None) -> Variable:
        """Elementwise inverse tangent."""
        return self._op("atan", [self])

    def arctan(self, name: str | None = None) -> Variable:
        """Elementwise inverse tangent."""
        return self._op("atan", [self])

    def sinh(self, name: str | None = None) -> Variable:
        """Elementwise hyperbolic sine."""
        return self._op("sinh", [self])

    def cosh(self, name: str | None = None) -> Variable:
        """Elementwise hyperbolic cosine."""
        return self._op("cosh", [self])

    def asinh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic sine."""
        return self._op("asinh", [self])

    def arcsinh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic sine."""
        return self._op("asinh", [self])

    def acosh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic cosine (NaN below 1)."""
        return self._op("acosh", [self])

    def arccosh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic cosine (NaN below 1)."""
        return self._op("acosh", [self])

    def atanh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1])."""
        return self._op("atanh", [self])

    def arctanh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1])."""
        return self._op("atanh", [self])

    def log2(self, name: str | None = None) -> Variable:
        """Elementwise base-2 logarithm."""
        return self._op("log2", [self])

    def log10(self, name: str | None = None) -> Variable:
        """Elementwise base-10 logarithm."""
        return self._op("log10", [self])

    def exp2(self, name: str | None = None) -> Variable:
        """Elementwise ``2 ** self``."""
        return self._op("exp2", [self])

    def erfc(self, name: str | None = None) -> Variable:
        """Elementwise complementary error function ``1 - erf(self)``, accurate for large inputs."""
        return self._op("erfc", [self])

    def erfinv(self, name: str | None = None) -> Variable:
        """Elementwise inverse error function (NaN outside [-1, 1], +-inf at +-1)."""
        return self._op("erfinv", [self])

    def trunc(self, name: str | None = None) -> Variable:
        """Elementwise rounding toward zero."""
        return self._op("trunc", [self])

    def fix(self, name: str | None = None) -> Variable:
        """Elementwise rounding toward zero."""
        return self._op("trunc", [self])

    def frac(self, name: str | None = None) -> Variable:
        """Elementwise fractional part ``self - trunc(self)`` (keeps the sign; 0 for integers)."""
        return self._op("frac", [self])

    def deg2rad(self, name: str | None = None) -> Variable:
        """Elementwise conversion of degrees to radians."""
        return self._op("deg2rad", [self])

    def rad2deg(self, name: str | None = None) -> Variable:
        """Elementwise conversion of radians to degrees."""
        return self._op("rad2deg", [self])

    def lgamma(self, name: str | None = None) -> Variable:
        """Elementwise natural logarithm of the absolute value of the gamma function (+inf at the poles 0, -1, -2, ...)."""
        return self._op("lgamma", [self])

    def digamma(self, name: str | None = None) -> Variable:
        """Elementwise digamma function, the derivative of ``lgamma`` (-inf at 0, NaN at negative integers)."""
        return self._op("digamma", [self])

    def i0(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the first kind of order 0."""
        return self._op("i0", [self])

    def i0e(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled modified Bessel function ``i0(self) * exp(-|self|)``."""
        return self._op("i0e", [self])

    def i1(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the first kind of order 1."""
        return self._op("i1", [self])

    def i1e(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled modified Bessel function ``i1(self) * exp(-|self|)``."""
        return self._op("i1e", [self])

    def erfcx(self, name: str | None = None) -> Variable:
        """Elementwise scaled complementary error function ``exp(self**2) * erfc(self)``, accurate for large inputs."""
        return self._op("erfcx", [self])

    def bessel_j0(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the first kind of order 0 (not differentiable)."""
        return self._op("bessel_j0", [self])

    def bessel_j1(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the first kind of order 1 (not differentiable)."""
        return self._op("bessel_j1", [self])

    def bessel_y0(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the second kind of order 0 (-inf at 0, NaN below; not differentiable)."""
        return self._op("bessel_y0", [self])

    def bessel_y1(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the second kind of order 1 (-inf at 0, NaN below; not differentiable)."""
        return self._op("bessel_y1", [self])

    def modified_bessel_k0(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the second kind of order 0 (+inf at 0, NaN below; not differentiable)."""
        return self._op("modified_bessel_k0", [self])

    def modified_bessel_k1(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the second kind of order 1 (+inf at 0, NaN below; not differentiable)."""
        return self._op("modified_bessel_k1", [self])

    def scaled_modified_bessel_k0(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled ``modified_bessel_k0(self) * exp(self)`` (not differentiable)."""
        return self._op("scaled_modified_bessel_k0", [self])

    def scaled_modified_bessel_k1(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled ``modified_bessel_k1(self) * exp(self)`` (not differentiable)."""
        return self._op("scaled_modified_bessel_k1", [self])

    def spherical_bessel_j0(self, name: str | None = None) -> Variable:
        """Elementwise spherical Bessel function of the first kind of order 0, ``sin(self) / self`` (not differentiable)."""
        return self._op("spherical_bessel_j0", [self])

    def airy_ai(self, name: str | None = None) -> Variable:
        """Elementwise Airy function of the first kind ``Ai(self)`` (not differentiable)."""
        return self._op("airy_ai", [self])

    def signbit(self, name: str | None = None) -> Variable:
        """Elementwise test of the sign bit (true for negative numbers and -0.0), as a bool tensor."""
        return self._op("signbit", [self])

    # END generated: unary Variable methods

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
