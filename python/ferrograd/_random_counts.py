"""The samplers both peers expose as plain functions: ``poisson`` (``torch.poisson`` /
``paddle.poisson``), ``binomial`` (``torch.binomial`` / ``paddle.binomial``),
``standard_gamma`` (``paddle.standard_gamma``, PyTorch's ``torch._standard_gamma``) and
Paddle's ``log_normal``; and Paddle's in-place ``where_``.

The draws reuse the samplers of ``ferrograd.distributions`` (``Poisson``, ``Binomial``,
``_standard_gamma``), so one definition of each distribution serves both. Where the
peers differ the calling module's import name decides (docs/dialects.md):
``binomial`` gives PyTorch's float result of ``count``'s dtype (``count`` and ``prob``
both floating, of one dtype) or Paddle's int64 (``count`` integer or float, broadcast
with ``prob``).
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._dialect import caller_dialect

Tensor = _core.Tensor


def _real_float(x: Any, op: str, what: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): `{what}` must be a Tensor, got {type(x).__name__}")
    if not x.is_floating_point() or x.is_complex():
        raise TypeError(
            f"{op}(): `{what}` must be a real floating tensor, got {x.dtype} "
            f"(convert it first, e.g. {what}.astype('float32'))"
        )
    return x


def _check_generator(generator: Any, op: str) -> Any:
    if generator is None or isinstance(generator, _core.Generator):
        return generator
    raise TypeError(
        f"{op}(): generator must be a ferrograd.Generator or None, got {type(generator).__name__}"
    )


def _all(mask: Tensor) -> bool:
    return bool(mask.all().item()) if mask.numel() else True


def poisson(input: Any = None, generator: Any = None, *, x: Any = None, name: Any = None) -> Tensor:
    """Draws ``out_i ~ Poisson(rate = input_i)``, of ``input``'s shape and dtype (Paddle's
    ``x=`` also accepted). Rates must be finite and ``>= 0`` (a ``ValueError``
    otherwise). Sampling inverts the CDF with vectorised steps up to the largest rate, so
    it costs O(max rate) tensor operations."""
    from .distributions.discrete import Poisson

    rate = _real_float(input if x is None else x, "poisson", "input")
    generator = _check_generator(generator, "poisson")
    r = rate.detach()
    if not _all((r >= 0) & (r < float("inf"))):
        raise ValueError("poisson(): rates must be finite and >= 0 (found a negative, inf or NaN)")
    draw = Poisson(r, validate_args=False)._draw(tuple(r.shape), generator)
    return draw.astype(rate.dtype)


def binomial(count: Any, prob: Any, generator: Any = None, name: Any = None) -> Tensor:
    """Draws ``out_i ~ Binomial(n = count_i, p = prob_i)``. PyTorch (``import ferrograd as
    torch``): ``count`` and ``prob`` floating tensors of one dtype, the result in that
    dtype. Paddle: ``count`` an integer (or float) tensor broadcast with ``prob``, an int64
    result. Counts must be non-negative integers and ``0 <= prob <= 1`` (a ``ValueError``
    otherwise). Draws sum ``max(count)`` Bernoulli trials per element."""
    from .distributions.counts import Binomial

    paddle = caller_dialect() == "paddle"
    generator = _check_generator(generator, "binomial")
    if not isinstance(count, Tensor):
        raise TypeError(f"binomial(): `count` must be a Tensor, got {type(count).__name__}")
    prob = _real_float(prob, "binomial", "prob")
    if not paddle:
        _real_float(count, "binomial", "count")
        if count.dtype != prob.dtype:
            raise TypeError(
                f"binomial(): `count` and `prob` must have one dtype, got {count.dtype} and "
                f"{prob.dtype}"
            )
    elif count.dtype == _core.bool or count.is_complex():
        raise TypeError(
            f"binomial(): `count` must be an integer or float tensor, got {count.dtype}"
        )
    from ._ops_shape import broadcast_tensors

    n, p = broadcast_tensors(count.detach().astype(prob.dtype), prob.detach())
    if not _all((n >= 0) & (n == n.floor()) & (n < float("inf"))):
        raise ValueError("binomial(): `count` must hold non-negative integers")
    if not _all((p >= 0) & (p <= 1)):
        raise ValueError("binomial(): `prob` must lie in [0, 1]")
    draw = Binomial(n, probs=p, validate_args=False)._draw(tuple(n.shape), generator)
    return draw.astype(_core.int64 if paddle else count.dtype)


def standard_gamma(x: Any, name: Any = None) -> Tensor:
    """Draws ``out_i ~ Gamma(alpha = x_i, beta = 1)``, of ``x``'s shape and dtype
    (Paddle's ``standard_gamma``; differentiable in ``x`` by the implicit
    reparameterisation gradient, as PyTorch's ``_standard_gamma``)."""
    from .distributions.standard_gamma import _standard_gamma

    alpha = _real_float(x, "standard_gamma", "x")
    if not _all(alpha.detach() > 0):
        raise ValueError("standard_gamma(): `x` (the concentration) must be > 0")
    return _standard_gamma(alpha)


def log_normal(mean: Any = 1.0, std: Any = 2.0, shape: Any = None, name: Any = None) -> Tensor:
    """Paddle's ``log_normal``: ``exp(normal(mean, std, shape))``, ``mean`` and ``std``
    those of the underlying normal distribution (numbers or tensors; a tensor gives the
    result its shape, as ``paddle.normal``)."""
    from .random_gen import normal

    if not isinstance(mean, Tensor) and not isinstance(std, Tensor) and shape is None:
        raise TypeError("log_normal(): pass `shape` when `mean` and `std` are numbers")
    if not isinstance(std, Tensor) and std < 0:
        raise ValueError(f"log_normal(): std must be >= 0, got {std}")
    return normal(mean, std, shape=shape).exp()


def where_(condition: Any, x: Any = None, y: Any = None, name: Any = None) -> Tensor:
    """Paddle's in-place ``where``: writes ``where(condition, x, y)`` into ``x`` and returns
    it (the broadcast result must have ``x``'s shape)."""
    from ._inplace_math import write_inplace

    if x is None or y is None:
        raise TypeError("where_(): pass both `x` (written in place) and `y`")
    if not isinstance(x, Tensor):
        raise TypeError(
            f"where_(): `x` must be a Tensor (it is written in place), got {type(x).__name__}"
        )

    def compute(src: Tensor, cond: Any, other: Any) -> Tensor:
        return _core.where(cond, src, other)

    return write_inplace(x, compute, (condition, y), {}, "where_")


__all__ = ["binomial", "log_normal", "poisson", "standard_gamma", "where_"]
