"""PyTorch's ``torch._foreach_*`` functions: one op applied to every tensor of a list.

Optimizers and EMA code call them (timm's ``ModelEmaV3``: ``torch._foreach_lerp_(ema,
model, weight=1 - decay)``; ``swa_utils.get_ema_multi_avg_fn``; ``_foreach_mul_`` /
``_foreach_add_(..., alpha=)``; ``_foreach_norm`` for gradient norms). PyTorch documents
them under "Foreach Operations" (``docs/source/torch.rst``) and declares their overloads in
``aten/src/ATen/native/native_functions.yaml`` (``_foreach_add.Scalar`` / ``.List`` /
``.ScalarList`` / ``.Tensor``, ...). Each is, by definition, the per-tensor op at every list
position; here it is exactly that loop (ferrograd has no fused multi-tensor kernels), so the
results, dtypes, broadcasting and gradients are those of the single-tensor ops.

The out-of-place forms return a tuple (PyTorch's ``Tensor[]`` results); the in-place forms
(``_``) change the tensors of the first list and return ``None`` (their schema returns
``()``). The second operand may be one number (``scalar=``), a list of numbers
(``scalars=``), a list of tensors (``other=``) or, for the arithmetic ones, one tensor that
every position uses. Lists must be non-empty and of one length (PyTorch's ``RuntimeError``
messages, ``ForeachUtils.h``).
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Optional

from . import _core

Tensor = _core.Tensor


def _tensor_list(name: str, xs: Any, what: str = "self") -> list[Tensor]:
    """``xs`` as a non-empty list of Tensors, or a clear error naming ``name``."""
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)):
        raise TypeError(
            f"{name}: {what} must be a list or tuple of Tensors, got {type(xs).__name__}"
        )
    if not xs:
        raise RuntimeError(f"{name}: Tensor list must have at least one tensor.")
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{name}: {what}[{i}] must be a Tensor, got {type(t).__name__} (pass a "
                "list of Tensors; a list of numbers is only accepted as the second operand)"
            )
    return list(xs)


def _same_length(name: str, a: list, b: list, kind: str = "tensors") -> None:
    if len(a) != len(b):
        if kind == "tensors":
            msg = f"Tensor lists must have the same number of tensors, got {len(a)} and {len(b)}"
        else:
            msg = (
                "Tensor list must have same number of elements as scalar list, got "
                f"{len(a)} and {len(b)}"
            )
        raise RuntimeError(f"{name}: {msg}")


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Number)


def _operands(name: str, xs: list[Tensor], other: Any) -> list[Any]:
    """The second operand at every position: a number, a list (numbers or tensors), or one
    tensor broadcast to every position."""
    if isinstance(other, Tensor) or _is_number(other):
        return [other] * len(xs)
    if isinstance(other, (list, tuple)):
        if not other:
            raise RuntimeError(f"{name}: Tensor list must have at least one tensor.")
        tensors = [isinstance(o, Tensor) for o in other]
        if all(tensors):
            _same_length(name, xs, list(other))
        elif not any(tensors) and all(_is_number(o) for o in other):
            _same_length(name, xs, list(other), kind="scalars")
        else:
            raise TypeError(
                f"{name}: the second operand must be all Tensors or all numbers, got "
                f"{[type(o).__name__ for o in other]}"
            )
        return list(other)
    raise TypeError(
        f"{name}: the second operand must be a number, a Tensor, or a list of Tensors or "
        f"numbers, got {type(other).__name__}"
    )


def _pick(name: str, args: tuple, kwargs: dict, names: tuple[str, ...]) -> Any:
    """The one operand given positionally or under one of ``names`` (the overloads'
    keyword spellings: ``scalar`` / ``other`` / ``scalars``)."""
    given = [kwargs.pop(k) for k in names if k in kwargs]
    if len(args) + len(given) != 1 or len(args) > 1:
        raise TypeError(
            f"{name}: expected exactly one second operand (positionally or as one of "
            f"{', '.join(names)}), got {len(args)} positional and {len(given)} keyword"
        )
    if kwargs:
        raise TypeError(f"{name}: unexpected keyword argument(s) {sorted(kwargs)}")
    return args[0] if args else given[0]


def _binary(op: str, has_alpha: bool) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The out-of-place and in-place ``_foreach_<op>``."""
    name = f"_foreach_{op}"

    def prepare(fname: str, self: Any, args: tuple, kwargs: dict) -> tuple:
        kwargs = dict(kwargs)
        alpha = kwargs.pop("alpha", 1) if has_alpha else 1
        xs = _tensor_list(fname, self)
        other = _pick(fname, args, kwargs, ("scalar", "other", "scalars"))
        ops = _operands(fname, xs, other)
        if alpha != 1 and not all(isinstance(o, Tensor) for o in ops):
            # PyTorch's .Scalar / .ScalarList overloads take no alpha
            raise TypeError(f"{fname}: alpha is only accepted with Tensor second operands")
        return xs, ops, alpha

    def out_of_place(self: Any, *args: Any, **kwargs: Any) -> tuple:
        xs, ops, alpha = prepare(name, self, args, kwargs)
        fn = getattr(Tensor, op)
        if alpha != 1:
            return tuple(fn(x, o, alpha=alpha) for x, o in zip(xs, ops))
        return tuple(fn(x, o) for x, o in zip(xs, ops))

    def in_place(self: Any, *args: Any, **kwargs: Any) -> None:
        xs, ops, alpha = prepare(name + "_", self, args, kwargs)
        fn = getattr(Tensor, op + "_")
        for x, o in zip(xs, ops):
            if alpha != 1:
                fn(x, o, alpha=alpha)
            else:
                fn(x, o)

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = (
        f"PyTorch's ``torch.{name}(tensors, other{', *, alpha=1' if has_alpha else ''})``: "
        f"``{op}`` at every list position (other: a number, numbers, Tensors or one Tensor); "
        "returns a tuple."
    )
    in_place.__doc__ = f"In-place ``torch.{name}_``: ``{op}_`` at every list position."
    return out_of_place, in_place


def _bound(op: str, scalar_op: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``_foreach_maximum`` / ``minimum`` / ``clamp_min`` / ``clamp_max``: a number bound
    is ``clamp_min`` / ``clamp_max``, a tensor bound the elementwise ``maximum`` /
    ``minimum``."""
    name = f"_foreach_{op}"
    tensor_op = {"clamp_min": "maximum", "clamp_max": "minimum"}.get(op, op)

    def pairs(fname: str, self: Any, args: tuple, kwargs: dict) -> tuple:
        xs = _tensor_list(fname, self)
        other = _pick(fname, args, dict(kwargs), ("scalar", "other", "scalars"))
        return xs, _operands(fname, xs, other)

    def one(x: Tensor, o: Any) -> Tensor:
        if isinstance(o, Tensor):
            return getattr(Tensor, tensor_op)(x, o)
        return getattr(Tensor, scalar_op)(x, o)

    def out_of_place(self: Any, *args: Any, **kwargs: Any) -> tuple:
        xs, ops = pairs(name, self, args, kwargs)
        return tuple(one(x, o) for x, o in zip(xs, ops))

    def in_place(self: Any, *args: Any, **kwargs: Any) -> None:
        xs, ops = pairs(name + "_", self, args, kwargs)
        for x, o in zip(xs, ops):
            if isinstance(o, Tensor):
                x.copy_(one(x, o))
            else:
                getattr(Tensor, scalar_op + "_")(x, o)

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = f"PyTorch's ``torch.{name}(tensors, other)``; returns a tuple."
    in_place.__doc__ = f"In-place ``torch.{name}_``."
    return out_of_place, in_place


def _unary(op: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The out-of-place and in-place ``_foreach_<op>`` of a one-argument op."""
    name = f"_foreach_{op}"

    def out_of_place(self: Any) -> tuple:
        return tuple(getattr(Tensor, op)(x) for x in _tensor_list(name, self))

    def in_place(self: Any) -> None:
        for x in _tensor_list(name + "_", self):
            getattr(Tensor, op + "_")(x)

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = f"PyTorch's ``torch.{name}(tensors)``: ``{op}`` of each; a tuple."
    in_place.__doc__ = f"In-place ``torch.{name}_(tensors)``."
    return out_of_place, in_place


_foreach_add, _foreach_add_ = _binary("add", has_alpha=True)
_foreach_sub, _foreach_sub_ = _binary("sub", has_alpha=True)
_foreach_mul, _foreach_mul_ = _binary("mul", has_alpha=False)
_foreach_div, _foreach_div_ = _binary("div", has_alpha=False)
_foreach_maximum, _foreach_maximum_ = _bound("maximum", "clamp_min")
_foreach_minimum, _foreach_minimum_ = _bound("minimum", "clamp_max")
_foreach_clamp_min, _foreach_clamp_min_ = _bound("clamp_min", "clamp_min")
_foreach_clamp_max, _foreach_clamp_max_ = _bound("clamp_max", "clamp_max")

_UNARY = (
    *("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1"),
    *("floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal"),
    *("round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"),
)
_foreach_abs, _foreach_abs_ = _unary("abs")
_foreach_acos, _foreach_acos_ = _unary("acos")
_foreach_asin, _foreach_asin_ = _unary("asin")
_foreach_atan, _foreach_atan_ = _unary("atan")
_foreach_ceil, _foreach_ceil_ = _unary("ceil")
_foreach_cos, _foreach_cos_ = _unary("cos")
_foreach_cosh, _foreach_cosh_ = _unary("cosh")
_foreach_erf, _foreach_erf_ = _unary("erf")
_foreach_erfc, _foreach_erfc_ = _unary("erfc")
_foreach_exp, _foreach_exp_ = _unary("exp")
_foreach_expm1, _foreach_expm1_ = _unary("expm1")
_foreach_floor, _foreach_floor_ = _unary("floor")
_foreach_frac, _foreach_frac_ = _unary("frac")
_foreach_lgamma, _foreach_lgamma_ = _unary("lgamma")
_foreach_log, _foreach_log_ = _unary("log")
_foreach_log10, _foreach_log10_ = _unary("log10")
_foreach_log1p, _foreach_log1p_ = _unary("log1p")
_foreach_log2, _foreach_log2_ = _unary("log2")
_foreach_neg, _foreach_neg_ = _unary("neg")
_foreach_reciprocal, _foreach_reciprocal_ = _unary("reciprocal")
_foreach_round, _foreach_round_ = _unary("round")
_foreach_rsqrt, _foreach_rsqrt_ = _unary("rsqrt")
_foreach_sigmoid, _foreach_sigmoid_ = _unary("sigmoid")
_foreach_sign, _foreach_sign_ = _unary("sign")
_foreach_sin, _foreach_sin_ = _unary("sin")
_foreach_sinh, _foreach_sinh_ = _unary("sinh")
_foreach_sqrt, _foreach_sqrt_ = _unary("sqrt")
_foreach_tan, _foreach_tan_ = _unary("tan")
_foreach_tanh, _foreach_tanh_ = _unary("tanh")
_foreach_trunc, _foreach_trunc_ = _unary("trunc")


def _weights(name: str, xs: list[Tensor], weight: Any) -> list[Any]:
    if isinstance(weight, Tensor) and weight.ndim > 0:
        raise TypeError(
            f"{name}: weight must be a number, a list of numbers or a list of Tensors; "
            "for one tensor of weights pass a list with one Tensor per position"
        )
    return _operands(name, xs, weight)


def _foreach_lerp(self: Any, tensors1: Any, weight: Any = None, *, weights: Any = None) -> tuple:
    """PyTorch's ``torch._foreach_lerp(self, tensors1, weight)``: ``lerp(self[i],
    tensors1[i], weight[i])`` (weight: a number, numbers or Tensors); returns a tuple."""
    xs, ends, ws = _lerp_args("_foreach_lerp", self, tensors1, weight, weights)
    return tuple(x.lerp(e, w) for x, e, w in zip(xs, ends, ws))


def _foreach_lerp_(self: Any, tensors1: Any, weight: Any = None, *, weights: Any = None) -> None:
    """In-place ``torch._foreach_lerp_(self, tensors1, weight)`` (EMA updates)."""
    xs, ends, ws = _lerp_args("_foreach_lerp_", self, tensors1, weight, weights)
    for x, e, w in zip(xs, ends, ws):
        x.lerp_(e, w)


def _lerp_args(name: str, self: Any, tensors1: Any, weight: Any, weights: Any) -> tuple:
    if (weight is None) == (weights is None):
        raise TypeError(f"{name}: pass the weight once (positionally, weight= or weights=)")
    xs = _tensor_list(name, self)
    ends = _tensor_list(name, tensors1, "tensors1")
    _same_length(name, xs, ends)
    return xs, ends, _weights(name, xs, weight if weights is None else weights)


def _addc_args(name: str, self: Any, t1: Any, t2: Any, value: Any, scalars: Any) -> tuple:
    xs = _tensor_list(name, self)
    a = _tensor_list(name, t1, "tensor1")
    b = _tensor_list(name, t2, "tensor2")
    _same_length(name, xs, a)
    _same_length(name, xs, b)
    v = value if scalars is None else scalars
    if isinstance(v, Tensor):  # the .Tensor overload: one value per position, 1-D
        if v.ndim != 1 or v.shape[0] != len(xs):
            raise RuntimeError(
                f"{name}: a Tensor of scalars must be 1-D with one value per list position "
                f"({len(xs)}), got shape {list(v.shape)}"
            )
        v = v.tolist()
    vs = _operands(name, xs, v)
    if any(isinstance(s, Tensor) for s in vs):
        raise TypeError(f"{name}: value must be a number, a list of numbers or a 1-D Tensor")
    return xs, a, b, vs


def _make_addc(op: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    name = f"_foreach_{op}"

    def out_of_place(
        self: Any, tensor1: Any, tensor2: Any, value: Any = 1, *, scalars: Any = None
    ) -> tuple:
        xs, a, b, vs = _addc_args(name, self, tensor1, tensor2, value, scalars)
        return tuple(getattr(Tensor, op)(x, p, q, value=s) for x, p, q, s in zip(xs, a, b, vs))

    def in_place(
        self: Any, tensor1: Any, tensor2: Any, value: Any = 1, *, scalars: Any = None
    ) -> None:
        xs, a, b, vs = _addc_args(name + "_", self, tensor1, tensor2, value, scalars)
        for x, p, q, s in zip(xs, a, b, vs):
            getattr(Tensor, op + "_")(x, p, q, value=s)

    out_of_place.__name__, in_place.__name__ = name, name + "_"
    out_of_place.__doc__ = (
        f"PyTorch's ``torch.{name}(self, tensor1, tensor2, value=1)`` (value: a number, "
        "numbers, or a 1-D Tensor of one value per position); returns a tuple."
    )
    in_place.__doc__ = f"In-place ``torch.{name}_`` (Adam-style optimizer updates)."
    return out_of_place, in_place


_foreach_addcmul, _foreach_addcmul_ = _make_addc("addcmul")
_foreach_addcdiv, _foreach_addcdiv_ = _make_addc("addcdiv")


def _foreach_pow(self: Any, exponent: Any) -> tuple:
    """PyTorch's ``torch._foreach_pow(self, exponent)``: ``self`` a list (exponent a number,
    numbers or Tensors) or a number (exponent a list of Tensors); returns a tuple."""
    if _is_number(self):
        es = _tensor_list("_foreach_pow", exponent, "exponent")
        return tuple(self**e for e in es)
    xs = _tensor_list("_foreach_pow", self)
    return tuple(x.pow(e) for x, e in zip(xs, _operands("_foreach_pow", xs, exponent)))


def _foreach_pow_(self: Any, exponent: Any) -> None:
    """In-place ``torch._foreach_pow_(self, exponent)``."""
    xs = _tensor_list("_foreach_pow_", self)
    for x, e in zip(xs, _operands("_foreach_pow_", xs, exponent)):
        x.pow_(e)


def _foreach_norm(self: Any, ord: Any = 2, dtype: Optional[Any] = None) -> tuple:  # noqa: A002
    """PyTorch's ``torch._foreach_norm(tensors, ord=2, dtype=None)``: the vector norm of
    each tensor (all its elements), a tuple of 0-d tensors."""
    from .linalg import vector_norm

    xs = _tensor_list("_foreach_norm", self)
    return tuple(vector_norm(x, ord, dtype=dtype) for x in xs)


def _foreach_max(self: Any) -> tuple:
    """PyTorch's ``torch._foreach_max(tensors)``: the largest element of each tensor."""
    return tuple(x.max() for x in _tensor_list("_foreach_max", self))


def _foreach_zero_(self: Any) -> None:
    """``torch._foreach_zero_(tensors)``: fills every tensor with zeros."""
    for x in _tensor_list("_foreach_zero_", self):
        x.zero_()


def _foreach_copy_(self: Any, src: Any, non_blocking: bool = False) -> None:
    """``torch._foreach_copy_(self, src, non_blocking=False)``: ``self[i].copy_(src[i])``."""
    xs = _tensor_list("_foreach_copy_", self)
    ss = _tensor_list("_foreach_copy_", src, "src")
    _same_length("_foreach_copy_", xs, ss)
    for x, s in zip(xs, ss):
        x.copy_(s)


__all__ = [
    *(f"_foreach_{op}{s}" for op in ("add", "sub", "mul", "div") for s in ("", "_")),
    *(
        f"_foreach_{op}{s}"
        for op in ("maximum", "minimum", "clamp_min", "clamp_max")
        for s in ("", "_")
    ),
    *(f"_foreach_{op}{s}" for op in _UNARY for s in ("", "_")),
    *(f"_foreach_{op}{s}" for op in ("lerp", "addcmul", "addcdiv", "pow") for s in ("", "_")),
    *("_foreach_norm", "_foreach_max", "_foreach_zero_", "_foreach_copy_"),
]
