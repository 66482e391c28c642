"""Likelihood losses of ``nn.functional``: ``poisson_nll_loss`` and
``gaussian_nll_loss``, with PyTorch's formulas (Paddle's are the same), composed from
differentiable tensor ops. Paddle's argument names are accepted: ``label`` for
``target``, ``variance`` for ``var``, ``epsilon`` for ``eps``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from .. import _core
from ._reduction import legacy_get_string
from .fn_class_loss import _reduce
from .fn_loss import _check_reduction, _floating, _target

Tensor = _core.Tensor


def _eps(eps: Optional[float], epsilon: Optional[float], default: float, what: str) -> float:
    if eps is not None and epsilon is not None:
        raise TypeError(f"{what}: pass eps (torch) or epsilon (Paddle), not both")
    e = eps if eps is not None else epsilon
    return default if e is None else float(e)


def poisson_nll_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    log_input: bool = True,
    full: bool = False,
    epsilon: Optional[float] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    size_average: Optional[bool] = None,
    reduce: Optional[bool] = None,
    target: Optional[Tensor] = None,
    eps: Optional[float] = None,
) -> Tensor:
    """Poisson negative log-likelihood of ``label`` given the rate ``input``:
    ``exp(input) - label * input`` (``log_input=True``) or ``input - label * log(input +
    eps)``; ``full=True`` adds Stirling's ``y log y - y + log(2 pi y) / 2`` where
    ``y > 1``. Paddle's positional order (``epsilon`` fifth); torch passes ``eps=``."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    what = "poisson_nll_loss"
    _check_reduction(reduction, what)
    x = _floating(input, what)
    e = _eps(eps, epsilon, 1e-8, what)
    y = _target(label, target, what).astype(x.dtype)
    loss = x.exp() - y * x if log_input else x - y * (x + e).log()
    if full:
        big = y > 1
        safe = _core.where(big, y, _core.full_like(y, 2.0))
        stirling = safe * safe.log() - safe + 0.5 * (safe * (2 * math.pi)).log()
        loss = loss + _core.where(big, stirling, _core.zeros_like(stirling))
    return _reduce(loss, reduction, what)


def _var_shape(x: Tensor, var: Tensor, what: str) -> Tensor:
    """PyTorch's shape rules: ``var`` like ``input``, one dim short of it (homoscedastic
    over the last dim), or with one dim of size 1 where ``input`` has more."""
    xs, vs = list(x.shape), list(var.shape)
    if vs == xs:
        return var
    if vs == xs[:-1]:
        return var.unsqueeze(-1)
    if len(vs) == len(xs) and sum(v for a, v in zip(xs, vs) if a != v) == 1:
        return var
    raise ValueError(f"{what}: var of shape {vs} does not fit the input's shape {xs}")


def gaussian_nll_loss(
    input: Tensor,
    label: Optional[Tensor] = None,
    variance: Any = None,
    full: bool = False,
    epsilon: Optional[float] = None,
    reduction: str = "mean",
    name: Optional[str] = None,
    *,
    target: Optional[Tensor] = None,
    var: Any = None,
    eps: Optional[float] = None,
) -> Tensor:
    """Gaussian negative log-likelihood ``(log(var) + (input - label)^2 / var) / 2``
    (``full=True`` adds ``log(2 pi) / 2``). ``var`` (Paddle: ``variance``) is a tensor of
    the input's shape, of that shape less its last dim, or with one broadcast dim, or a
    float; negative entries raise. It is clamped at ``eps`` (default 1e-6) for the value
    only, the gradient passing through as in PyTorch."""
    what = "gaussian_nll_loss"
    if variance is not None and var is not None:
        raise TypeError(f"{what}: pass var (torch) or variance (Paddle), not both")
    v = var if var is not None else variance
    if v is None:
        raise TypeError(f"{what}: missing the variance (var=... / variance=...)")
    x = _floating(input, what)
    y = _target(label, target, what).astype(x.dtype)
    e = _eps(eps, epsilon, 1e-6, what)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if v < 0:
            raise ValueError(f"{what}: var has a negative entry ({v})")
        v = _core.full_like(x, float(v))
    if not isinstance(v, Tensor):
        raise TypeError(f"{what}: var must be a Tensor or a float, got {type(v).__name__}")
    if v.numel() and bool((v < 0).any()):
        raise ValueError(f"{what}: var has negative entries")
    v = _var_shape(x, v.astype(x.dtype), what)
    _check_reduction(reduction, what)
    # the clamp changes the value only; the gradient is var's own (PyTorch's no_grad clamp)
    v = v + (v.clip(min=e) - v).detach()
    loss = 0.5 * (v.log() + (x - y) * (x - y) / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, what)


__all__ = ["poisson_nll_loss", "gaussian_nll_loss"]
