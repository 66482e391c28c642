"""The in-place spellings of elementwise math (``x.sqrt_()``, ``x.pow_(2)``,
``x.clamp_min_(0)``, ``x.lt_(y)``, ``torch.sigmoid_(x)``, ``F.relu_(x)``, ...) that both
peers offer for their out-of-place ops.

Each computes the out-of-place result and writes it into ``x`` (``copy_``), so the
version counter moves, views of ``x`` see the new values and autograd records the write
(gradients flow to what ``x`` was before). As with ``inplace=True`` (``nn/_inplace.py``),
when autograd records through ``x`` the result is computed from a copy of ``x``, so no
memory is saved, but values, gradients and errors are the peers'. The result is cast to
``x``'s dtype when the peers allow it (a boolean comparison written into a float tensor
gives 1.0 / 0.0; float64 into float32), and refused otherwise (a float result into an
integer tensor), as PyTorch's ``result type Float can't be cast to the desired output
type Long``. A result of another shape (an operand that broadcasts ``x`` up) is refused.

Paddle's in-place comparisons and logical ops (``equal_``, ``greater_than_``,
``logical_not_`` ... in Paddle code) give ``x`` the result's bool dtype, as Paddle does;
PyTorch's keep ``x``'s dtype (``docs/dialects.md``).
"""

from __future__ import annotations

from typing import Any, Callable

from . import _core
from ._dialect import caller_dialect
from ._errors import AutogradUsageError
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor

#: in-place name -> the out-of-place Tensor method it writes back
#: bases that take no argument (their in-place method is ``x.name_()``)
UNARY = """abs absolute acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan
atanh ceil cos cosh deg2rad digamma erf erfc erfinv exp2 expm1 fix floor frac i0 lgamma log
log10 log1p log2 neg negative rad2deg reciprocal relu rsqrt selu sgn sigmoid sign sin sinc
sinh sqrt square tan tanh trunc bitwise_not""".split()
_WITH_ARGS = """round addbmm addmm addmv addr baddbmm arctan2 atan2 bitwise_and bitwise_or
bitwise_xor clamp_max clamp_min copysign cumprod cumsum divide float_power floor_divide fmod
gcd heaviside hypot lcm ldexp lerp logit mvlgamma nan_to_num nextafter polygamma pow
remainder renorm subtract true_divide xlogy eq ne lt le gt ge""".split()
INPLACE: dict[str, str] = {f"{n}_": n for n in (*UNARY, *_WITH_ARGS)}
INPLACE.update(
    {
        "multigammaln_": "mvlgamma",  # Paddle's name
        "mod_": "remainder",  # Paddle's floor_mod: the sign of the divisor
        "floor_mod_": "remainder",
        "not_equal_": "ne",
        "greater_equal_": "ge",
        "less_equal_": "le",
        "greater_": "gt",  # PyTorch's aliases
        "less_": "lt",
        "equal_": "eq",  # Paddle's (elementwise; torch.equal is a whole-tensor bool)
        "greater_than_": "gt",
        "less_than_": "lt",
        "logical_not_": "logical_not",
        "logical_and_": "logical_and",
        "logical_or_": "logical_or",
        "logical_xor_": "logical_xor",
    }
)
#: whose result is bool: Paddle's code gets a bool ``x``, PyTorch's keeps ``x``'s dtype
_BOOL_RESULT = {
    *("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_"),
    *("not_equal_", "greater_equal_", "less_equal_", "equal_", "greater_than_"),
    *("less_than_", "logical_not_", "logical_and_", "logical_or_", "logical_xor_"),
}
#: PyTorch's only: never Paddle's rule
_TORCH_ONLY = {"eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_"}
#: Paddle's only: always Paddle's rule
_PADDLE_ONLY = {"equal_", "greater_than_", "less_than_"}


def _kind(dtype: Any) -> int:
    """bool < integer < floating < complex: PyTorch casts a result in place only downwards
    or within its kind."""
    if dtype == _core.bool:
        return 0
    if dtype.is_complex:
        return 3
    return 2 if dtype.is_floating_point else 1


def write_inplace(x: Any, compute: Callable[..., Any], args: tuple, kwargs: dict, what: str) -> Any:
    """Writes ``compute(x, *args, **kwargs)`` into ``x`` and returns ``x`` (see the
    module docs); an operand that is ``x`` itself is read before the write."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    recording = x.requires_grad and is_grad_enabled()
    if recording and x.is_leaf:
        # copy_ below would refuse it under its own name; the user called `what`
        raise AutogradUsageError(
            f"{what}: a leaf tensor that requires grad cannot be modified in place; use the "
            f"out-of-place op instead (x = x.{what[:-1]}(...)), or do it under no_grad() if "
            "you mean to change the parameter itself (with ferrograd.no_grad(): ...)"
        )
    source = x.clone() if recording else x
    if source is not x:
        args = tuple(source if a is x else a for a in args)
    out = compute(source, *args, **kwargs)
    if not isinstance(out, Tensor):
        out = _core.tensor(out, dtype=x.dtype)
    if list(out.shape) != list(x.shape):
        raise RuntimeError(
            f"{what}: output with shape {list(x.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    if out.dtype != x.dtype:
        if what in _BOOL_RESULT and _paddle_rule(what):
            x.data = out.detach()  # Paddle: x becomes the bool result
            return x
        if what == "float_power_" or _kind(out.dtype) > _kind(x.dtype):
            raise RuntimeError(
                f"{what}: result type {out.dtype} can't be cast to the desired output type "
                f"{x.dtype} (convert x first, e.g. x = x.double(), or use the out-of-place "
                f"{what[:-1]})"
            )
        out = out.astype(x.dtype)
    try:
        x.copy_(out)
    except RuntimeError as e:  # (a view of a leaf): named after the op the user called
        if not str(e).startswith("copy_: "):
            raise
        raise type(e)(f"{what}: {str(e)[len('copy_: ') :]}") from None
    return x


def _paddle_rule(what: str) -> bool:
    if what in _PADDLE_ONLY:
        return True
    if what in _TORCH_ONLY:
        return False
    return caller_dialect(4, through_layers=True) == "paddle"


def _make(name: str, base: str) -> Callable[..., Any]:
    def compute(t: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(t, base)(*args, **kwargs)

    if base in UNARY or base == "logical_not":

        def method(self: Any) -> Any:
            return write_inplace(self, compute, (), {}, name)

    else:

        def method(self: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            return write_inplace(self, compute, args, kwargs, name)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"``{base}`` written into this tensor in place (returns it)."
    return method


def install() -> None:
    """Adds the methods to ``Tensor`` (those it lacks)."""
    for name, base in INPLACE.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _make(name, base))
