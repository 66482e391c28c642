"""Tensor methods and top-level functions both peers' ordinary code calls (session 22):

- PyTorch: ``split_with_sizes``, ``sum_to_size``, ``retains_grad``, ``H`` / ``mH`` /
  ``adjoint()``, the random fills ``cauchy_`` / ``log_normal_`` / ``geometric_``;
- Paddle: ``cast_`` (an in-place dtype change), ``gammaln`` / ``gammainc`` /
  ``gammaincc`` methods and their ``_`` forms, ``multiplex``, ``reverse``, ``vecdot``,
  ``stanh``, ``tolist``;
- the top-level spellings of the in-place methods (``torch.sqrt_(x)``,
  ``paddle.tanh_(x)``, ...): each calls the method of the same name (``install_top_level``
  lists them).
"""

from __future__ import annotations

import math
from typing import Any

from . import _core
from ._dialect import caller_dialect
from ._inplace_math import write_inplace
from ._ops_gammainc import gammainc, gammaincc
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor


def _sizes(op: str, size: tuple) -> list[int]:
    if len(size) == 1 and not isinstance(size[0], int):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(f"{op}: sizes must be ints, got {s!r}")
        out.append(int(s))
    return out


def _split_with_sizes(self: Tensor, split_sizes: Any, dim: int = 0) -> list:
    """Splits along ``dim`` into pieces of the given sizes (which must add up to the
    dimension's size)."""
    sizes = _sizes("split_with_sizes", (split_sizes,))
    nd = max(self.ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"split_with_sizes: dim {dim} is out of range for {self.ndim} dims")
    d = dim % nd
    total = int(self.shape[d]) if self.ndim else 1
    if any(s < 0 for s in sizes) or sum(sizes) != total:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {total} (input tensor's "
            f"size at dimension {d}), but got split_sizes={sizes}"
        )
    return list(self.split(sizes, d))


def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """Sums ``self`` down to ``size`` (which must broadcast to ``self``'s shape): the
    gradient of a broadcast."""
    target = _sizes("sum_to_size", size)
    shape = [int(s) for s in self.shape]
    lead = len(shape) - len(target)
    if lead < 0 or any(t not in (1, s) for t, s in zip(target, shape[lead:])):
        raise RuntimeError(f"size {{{target}}} is not expandable to size {{{shape}}}.")
    out = self
    if lead:
        out = out.sum(list(range(lead)))
    dims = [i for i, (t, s) in enumerate(zip(target, shape[lead:])) if t == 1 and s != 1]
    if dims:
        out = out.sum(dims, keepdim=True)
    return out.reshape(target) if out is not self else out


# retain_grad() marks the tensor in Python too, so that retains_grad can answer
_native_retain_grad = Tensor.retain_grad


def _retain_grad(self: Tensor) -> None:
    """Keeps ``.grad`` of this non-leaf tensor after ``backward`` (a leaf keeps it anyway)."""
    _native_retain_grad(self)
    if self.grad_fn is not None:
        self._fg_retains_grad = True  # type: ignore[attr-defined]


def _retains_grad(self: Tensor) -> bool:
    """Whether ``retain_grad()`` was called on this non-leaf tensor (False for a leaf)."""
    return bool(getattr(self, "_fg_retains_grad", False)) and self.grad_fn is not None


def _mH(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two dimensions (``x.mT.conj()``)."""
    if self.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices.")
    t = self.mT
    return t.conj() if t.is_complex() else t


def _H(self: Tensor) -> Tensor:
    """The conjugate transpose of a matrix (a 0-D tensor is returned as it is)."""
    if self.ndim not in (0, 2):
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
        )
    return self if self.ndim == 0 else _mH(self)


def _adjoint(self: Tensor) -> Tensor:
    """``self.mH``: the conjugate transpose of the last two dimensions."""
    return _mH(self)


def _check_float(op: str, x: Tensor) -> None:
    if not x.is_floating_point():
        raise TypeError(f"{op}: expects a floating-point tensor, got {x.dtype}")


def _uniform64(x: Tensor, generator: Any, op: str) -> Tensor:
    from .random_gen import _gen

    # open interval (0, 1): the transforms below take log / tan of it
    u = _core._uniform(list(x.shape), 0.0, 1.0, _core.float64, _gen(generator, op))
    return u.clamp(min=2.0**-53, max=1.0 - 2.0**-53)


def _cauchy_(
    self: Tensor,
    median: float = 0.0,
    sigma: float = 1.0,
    *,
    generator: Any = None,
    loc: Any = None,
    scale: Any = None,
    name: Any = None,
) -> Tensor:
    """Fills with Cauchy samples ``median + sigma * tan(pi * (u - 1/2))`` (Paddle's
    names ``loc`` / ``scale``)."""
    _check_float("cauchy_", self)
    m = float(median if loc is None else loc)
    s = float(sigma if scale is None else scale)
    if not s > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={s}")
    u = _uniform64(self, generator, "cauchy_")
    self.copy_(((u - 0.5) * math.pi).tan() * s + m)
    return self


def _log_normal_(
    self: Tensor,
    mean: float = 1.0,
    std: float = 2.0,
    *,
    generator: Any = None,
    name: Any = None,
) -> Tensor:
    """Fills with ``exp(N(mean, std**2))`` samples (both peers: mean 1, std 2)."""
    from .random_gen import _gen

    _check_float("log_normal_", self)
    if not float(std) > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    n = _core._normal(
        list(self.shape), float(mean), float(std), _core.float64, _gen(generator, "log_normal_")
    )
    self.copy_(n.exp())
    return self


def _geometric_(
    self: Tensor, p: Any = None, *, generator: Any = None, probs: Any = None, name: Any = None
) -> Tensor:
    """Fills with geometric samples of success probability ``p``: PyTorch's are the
    number of trials up to the first success (1, 2, ...: ``ceil(log(u) / log1p(-p))``);
    Paddle's ``geometric_(probs)`` gives the continuous ``log(u) / log1p(-p)`` as Paddle
    does, and needs a float tensor (``docs/dialects.md``)."""
    prob = p if probs is None else probs
    if prob is None:
        raise TypeError("geometric_() missing the probability argument p")
    if isinstance(prob, Tensor):
        prob = float(prob.item())
    prob = float(prob)
    if not 0.0 < prob < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={prob}")
    paddle = caller_dialect(2, through_layers=True) == "paddle"
    if paddle:
        _check_float("geometric_", self)
    u = _uniform64(self, generator, "geometric_")
    v = u.log() / math.log1p(-prob)
    if not paddle:
        v = v.ceil().clamp(min=1.0)
    self.copy_(v.astype(self.dtype))
    return self


def cast_(x: Any, dtype: Any) -> Tensor:
    """Paddle's in-place ``cast``: ``x`` takes ``dtype`` (returned). A tensor that
    requires grad is refused while autograd records (ferrograd cannot re-type a recorded
    tensor in place; use ``x = x.astype(dtype)``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"cast_: expected a Tensor, got {type(x).__name__}")
    if x.requires_grad and is_grad_enabled():
        raise RuntimeError(
            "cast_: cannot change the dtype in place of a tensor that requires grad while "
            "autograd records; use x = x.astype(dtype) (or cast) instead"
        )
    x.data = x.astype(dtype).detach()
    return x


def _gammaln(self: Tensor, name: Any = None) -> Tensor:
    """``lgamma(self)`` (Paddle's name)."""
    return self.lgamma()


def _gammainc(self: Tensor, y: Any, name: Any = None) -> Tensor:
    """``gammainc(self, y)``: the regularized lower incomplete gamma function."""
    return gammainc(self, y)


def _gammaincc(self: Tensor, y: Any, name: Any = None) -> Tensor:
    """``gammaincc(self, y)``: the regularized upper incomplete gamma function."""
    return gammaincc(self, y)


def _igamma(self: Tensor, other: Any) -> Tensor:
    """``igamma(self, other)``: the regularized lower incomplete gamma function."""
    return gammainc(self, other)


def _igammac(self: Tensor, other: Any) -> Tensor:
    """``igammac(self, other)``: the regularized upper incomplete gamma function."""
    return gammaincc(self, other)


def _gammaln_(self: Tensor, name: Any = None) -> Tensor:
    """``gammaln`` written into this tensor in place (returns it)."""
    return write_inplace(self, lambda t: t.lgamma(), (), {}, "gammaln_")


def _gammainc_(self: Tensor, y: Any, name: Any = None) -> Tensor:
    """``gammainc(self, y)`` written into this tensor in place (returns it)."""
    return write_inplace(self, gammainc, (y,), {}, "gammainc_")


def _gammaincc_(self: Tensor, y: Any, name: Any = None) -> Tensor:
    """``gammaincc(self, y)`` written into this tensor in place (returns it)."""
    return write_inplace(self, gammaincc, (y,), {}, "gammaincc_")


def multiplex(inputs: Any, index: Any, name: Any = None) -> Tensor:
    """Paddle's ``multiplex``: row ``i`` of the result is row ``i`` of
    ``inputs[index[i]]`` (``inputs``: at least two tensors of one shape; ``index``: an
    integer ``[rows, 1]`` tensor). Differentiable in ``inputs``."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
        raise ValueError("multiplex: inputs must be a list of at least two tensors")
    if not isinstance(index, Tensor) or index.is_floating_point() or index.is_complex():
        raise TypeError("multiplex: index must be an integer Tensor")
    if any(not isinstance(t, Tensor) or t.ndim < 2 for t in inputs):
        raise ValueError("multiplex: the rank of candidate tensors must be not less than 2")
    rows = int(inputs[0].shape[0])
    idx = index.reshape([-1])
    if int(idx.shape[0]) != rows:
        raise ValueError(
            f"multiplex: index has {int(idx.shape[0])} entries, the inputs {rows} rows"
        )
    lo, hi = int(idx.min().item()), int(idx.max().item())
    if lo < 0 or hi >= len(inputs):
        raise IndexError(f"multiplex: index values must be in [0, {len(inputs)}), got {lo}..{hi}")
    stacked = _core.stack(list(inputs), 0)  # [k, rows, ...]
    rest = [1] * (stacked.ndim - 2)
    sel = idx.astype(_core.int64).reshape([1, rows, *rest]).expand([1, *stacked.shape[1:]])
    return stacked.take_along_dim(sel, 0).squeeze(0)


def reverse(x: Any, axis: Any, name: Any = None) -> Tensor:
    """Paddle's ``reverse``: ``flip(x, axis)``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"reverse: expected a Tensor, got {type(x).__name__}")
    return x.flip(axis if isinstance(axis, (list, tuple)) else [axis])


def vecdot(x: Any, y: Any, axis: int = -1, name: Any = None) -> Tensor:
    """Paddle's ``vecdot``: ``sum(conj(x) * y, axis)`` (``linalg.vecdot``)."""
    from .linalg import vecdot as _vecdot

    return _vecdot(x, y, dim=axis)


def stanh(x: Any, scale_a: float = 0.67, scale_b: float = 1.7159, name: Any = None) -> Tensor:
    """Paddle's scaled tanh ``scale_b * tanh(scale_a * x)`` (a composite)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"stanh: expected a Tensor, got {type(x).__name__}")
    return (x * scale_a).tanh() * scale_b


def tolist(x: Any) -> Any:
    """Paddle's ``tolist(x)``: ``x.tolist()``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"tolist: expected a Tensor, got {type(x).__name__}")
    return x.tolist()


def view_as(x: Any, other: Any, name: Any = None) -> Tensor:
    """Paddle's ``view_as(x, other)``: ``x`` reshaped to ``other``'s shape (a view)."""
    if not isinstance(x, Tensor) or not isinstance(other, Tensor):
        raise TypeError("view_as: x and other must be Tensors")
    return x.view_as(other)


def broadcast_shape(x_shape: Any, y_shape: Any) -> list:
    """Paddle's ``broadcast_shape(x_shape, y_shape)``: the broadcast shape, as a list."""
    from ._ops_more_math import broadcast_shapes

    return [int(s) for s in broadcast_shapes(list(x_shape), list(y_shape))]


def unfold(x: Any, axis: int, size: int, step: int, name: Any = None) -> Tensor:
    """Paddle's ``unfold(x, axis, size, step)``: ``x.unfold(axis, size, step)`` (windows
    of ``size`` every ``step`` along ``axis``, as a new last dimension)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"unfold: expected a Tensor, got {type(x).__name__}")
    return x.unfold(axis, size, step)


def _top_level(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("name", None)  # Paddle's unused name=
        if args:
            input, args = args[0], args[1:]
        else:  # the tensor by keyword: PyTorch's input=, Paddle's x=
            input = kwargs.pop("input", kwargs.pop("x", None))
            if input is None:
                raise TypeError(f"{name}() missing the tensor argument (input / x)")
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(...)``: the in-place method as a function (returns ``input``)."
    return fn


#: the peers' top-level spellings of in-place methods (torch 2.15's and Paddle 3.3.1's
#: ``dir()`` names whose method ferrograd has)
TOP_LEVEL_INPLACE = """abs_ acos_ acosh_ addmm_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_
arctan_ arctanh_ asin_ asinh_ atan_ atanh_ baddbmm_ bernoulli_ bitwise_and_ bitwise_not_
bitwise_or_ bitwise_xor_ bitwise_left_shift_ bitwise_right_shift_ cauchy_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ copysign_ cos_
cosh_ cumprod_ cumsum_ deg2rad_ detach_ digamma_ div_ divide_ equal_ erf_ erfc_ exp2_ exp_
expm1_ fill_ fix_ floor_ floor_divide_ floor_mod_ frac_ gammainc_ gammaincc_ gammaln_ gcd_
geometric_ greater_equal_ greater_than_ hypot_ i0_ lcm_ ldexp_ less_ less_equal_ less_than_
lgamma_ log10_ log1p_ log2_ log_ log_normal_ logical_and_ logical_not_ logical_or_
logical_xor_ logit_ mod_ multigammaln_ multiply_ nan_to_num_ neg_ negative_ normal_
not_equal_ polygamma_ pow_ rad2deg_ reciprocal_ relu_ remainder_ renorm_ resize_as_ round_
rsqrt_ scatter_add_ selu_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ sub_ subtract_ tan_
tanh_ tril_ triu_ trunc_ xlogy_ zero_""".split()


def install_tensor_methods() -> None:
    """Adds the methods and properties to ``Tensor`` (the stub lists them)."""
    from . import _ops_shift

    _ops_shift.install_tensor_methods()
    Tensor.split_with_sizes = _split_with_sizes  # type: ignore[method-assign,assignment]
    Tensor.sum_to_size = _sum_to_size  # type: ignore[method-assign,assignment]
    Tensor.retain_grad = _retain_grad  # type: ignore[method-assign]
    Tensor.retains_grad = property(_retains_grad)  # type: ignore[method-assign,assignment]
    Tensor.H = property(_H)  # type: ignore[method-assign,assignment]
    Tensor.mH = property(_mH)  # type: ignore[method-assign,assignment]
    Tensor.adjoint = _adjoint  # type: ignore[method-assign]
    Tensor.cauchy_ = _cauchy_  # type: ignore[method-assign,assignment]
    Tensor.log_normal_ = _log_normal_  # type: ignore[method-assign,assignment]
    Tensor.geometric_ = _geometric_  # type: ignore[method-assign,assignment]
    Tensor.cast_ = cast_  # type: ignore[method-assign,assignment]
    Tensor.gammaln = _gammaln  # type: ignore[method-assign,assignment]
    Tensor.gammainc = _gammainc  # type: ignore[method-assign,assignment]
    Tensor.gammaincc = _gammaincc  # type: ignore[method-assign,assignment]
    Tensor.igamma = _igamma  # type: ignore[method-assign,assignment]
    Tensor.igammac = _igammac  # type: ignore[method-assign,assignment]
    Tensor.igamma_ = _gammainc_  # type: ignore[method-assign,assignment]
    Tensor.igammac_ = _gammaincc_  # type: ignore[method-assign,assignment]
    Tensor.gammaln_ = _gammaln_  # type: ignore[method-assign,assignment]
    Tensor.gammainc_ = _gammainc_  # type: ignore[method-assign,assignment]
    Tensor.gammaincc_ = _gammaincc_  # type: ignore[method-assign,assignment]
    Tensor.reverse = reverse  # type: ignore[method-assign,assignment]
    Tensor.stanh = stanh  # type: ignore[method-assign,assignment]


def install_top_level(namespace: dict[str, Any]) -> list[str]:
    """Adds the top-level in-place spellings the namespace lacks; returns their names."""
    added = []
    for n in TOP_LEVEL_INPLACE:
        if n not in namespace and hasattr(Tensor, n):
            namespace[n] = _top_level(n)
            added.append(n)
    return added


__all__ = [
    "cast_", "multiplex", "reverse", "vecdot", "stanh", "tolist", "view_as",
    "broadcast_shape", "unfold",
]  # fmt: skip
