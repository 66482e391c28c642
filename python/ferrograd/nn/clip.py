"""Gradient clipping: PyTorch's ``clip_grad_norm_`` / ``clip_grad_value_`` (in place, on
``p.grad``) and Paddle's ``ClipGradByGlobalNorm`` / ``ClipGradByNorm`` /
``ClipGradByValue`` (objects given to an optimizer as ``grad_clip=``, or called on
``[(param, grad), ...]`` to get the clipped pairs)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .. import _core
from ..grad_mode import no_grad

Tensor = _core.Tensor


def _params(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _norm(g: Tensor, p: float) -> float:
    """The ``p``-norm of one gradient (a sparse one: of its coalesced values, as
    PyTorch), accumulated in float64."""
    if not isinstance(g, Tensor):  # a sparse .grad
        g = g.coalesce().values()
    a = g.detach().abs()
    if a.dtype != _core.float64:
        a = a.astype("float64")
    if math.isinf(p):
        return float(a.max()) if a.numel() else 0.0
    if p == 2.0:
        return math.sqrt(float((a * a).sum()))
    if p == 1.0:
        return float(a.sum())
    return float(a.pow(p).sum()) ** (1.0 / p)


def _total_norm(grads: list[Tensor], norm_type: float) -> float:
    norms = [_norm(g, norm_type) for g in grads]
    if not norms:
        return 0.0
    if math.isinf(norm_type):
        return max(norms)
    return sum(n**norm_type for n in norms) ** (1.0 / norm_type)


def clip_grad_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Scales the gradients of ``parameters`` in place so that their total ``norm_type``
    norm (the norm of the per-gradient norms) is at most ``max_norm``: each is multiplied
    by ``min(1, max_norm / (total + 1e-6))`` (NaN when the total is NaN, as PyTorch).
    Returns the total norm before clipping (a 0-d tensor). Parameters without a gradient
    are skipped."""
    norm_type = float(norm_type)
    if norm_type <= 0 and not math.isinf(norm_type):
        raise ValueError(f"norm_type must be positive or inf, got {norm_type}")
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    total = _total_norm(grads, norm_type)
    dtype = grads[0].dtype if grads and grads[0].is_floating_point() else _core.float32
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coef = float(max_norm) / (total + 1e-6)
    if coef < 1.0 or math.isnan(coef):  # a NaN norm makes every gradient NaN, as PyTorch
        with no_grad():
            for g in grads:
                g.mul_(coef)
    return _core.tensor(total, dtype=dtype)


def get_total_norm(
    tensors: Iterable[Tensor] | Tensor,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """PyTorch's ``nn.utils.get_total_norm``: the ``norm_type`` norm of the norms of
    ``tensors`` (``None`` entries skipped), a 0-d tensor of the first one's dtype."""
    norm_type = float(norm_type)
    if norm_type <= 0 and not math.isinf(norm_type):
        raise ValueError(f"norm_type must be positive or inf, got {norm_type}")
    ts = [t for t in _params(tensors) if t is not None]
    total = _total_norm(ts, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} is non-finite")
    dtype = ts[0].dtype if ts and ts[0].is_floating_point() else _core.float32
    return _core.tensor(total, dtype=dtype)


def clip_grads_with_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    total_norm: Any,
    foreach: Any = None,
) -> None:
    """PyTorch's second half of ``clip_grad_norm_``: scales every gradient in place by
    ``min(1, max_norm / (total_norm + 1e-6))`` for a ``total_norm`` already computed
    (``get_total_norm``)."""
    coef = float(max_norm) / (float(total_norm) + 1e-6)
    if coef < 1.0 or math.isnan(coef):
        with no_grad():
            for p in _params(parameters):
                if p.grad is not None:
                    p.grad.mul_(coef)


def clip_grad_value_(
    parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: Any = None
) -> None:
    """Clamps every gradient of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    v = float(clip_value)
    with no_grad():
        for p in _params(parameters):
            g = p.grad
            if g is not None and not isinstance(g, Tensor):
                raise RuntimeError(
                    "clip_grad_value_: a parameter's .grad is sparse; clamp "
                    "p.grad.coalesce().values() yourself, or make it dense first"
                )
            if g is not None:
                g.clamp_(-v, v)


class _Clip:
    """Base of Paddle's clip objects: ``clip(params_grads)`` returns new
    ``(param, grad)`` pairs; the inputs are not modified."""

    def __call__(self, params_grads: list[tuple[Tensor, Tensor]]) -> list[tuple[Tensor, Any]]:
        pairs = list(params_grads)
        with no_grad():
            return self._clip(pairs)

    def _clip(self, pairs: list[tuple[Tensor, Any]]) -> list[tuple[Tensor, Any]]:
        raise NotImplementedError


def _needs_clip(p: Tensor) -> bool:
    return getattr(p, "need_clip", True)


class ClipGradByGlobalNorm(_Clip):
    """Paddle: ``ClipGradByGlobalNorm(clip_norm, group_name='default_group',
    auto_skip_clip=False)``. With ``g_norm = sqrt(sum of all squared gradient
    entries)``, every gradient is multiplied by ``clip_norm / max(g_norm, clip_norm)``."""

    def __init__(
        self, clip_norm: float, group_name: str = "default_group", auto_skip_clip: bool = False
    ) -> None:
        if float(clip_norm) <= 0:
            raise ValueError(f"clip_norm must be positive, got {clip_norm}")
        self.clip_norm = float(clip_norm)
        self.group_name = group_name

    def _clip(self, pairs: list[tuple[Tensor, Any]]) -> list[tuple[Tensor, Any]]:
        grads = [g for p, g in pairs if g is not None and _needs_clip(p)]
        g_norm = _total_norm(grads, 2.0)
        scale = self.clip_norm / max(g_norm, self.clip_norm)
        if scale == 1.0:
            return pairs
        return [(p, g * scale if g is not None and _needs_clip(p) else g) for p, g in pairs]

    def __repr__(self) -> str:
        return f"ClipGradByGlobalNorm(global_clip_norm={self.clip_norm})"


class ClipGradByNorm(_Clip):
    """Paddle: ``ClipGradByNorm(clip_norm)``: each gradient on its own is scaled to L2
    norm ``clip_norm`` when its norm is larger (``g * clip_norm / norm(g)``)."""

    def __init__(self, clip_norm: float) -> None:
        if float(clip_norm) <= 0:
            raise ValueError(f"clip_norm must be positive, got {clip_norm}")
        self.clip_norm = float(clip_norm)

    def _clip(self, pairs: list[tuple[Tensor, Any]]) -> list[tuple[Tensor, Any]]:
        out = []
        for p, g in pairs:
            if g is not None and _needs_clip(p):
                n = _norm(g, 2.0)
                if n > self.clip_norm:
                    g = g * (self.clip_norm / n)
            out.append((p, g))
        return out

    def __repr__(self) -> str:
        return f"ClipGradByNorm(clip_norm={self.clip_norm})"


class ClipGradByValue(_Clip):
    """Paddle: ``ClipGradByValue(max, min=None)``: every gradient entry clamped to
    ``[min, max]`` (``min`` defaults to ``-max``)."""

    def __init__(self, max: float, min: float | None = None) -> None:  # noqa: A002
        self.max = float(max)
        self.min = -self.max if min is None else float(min)
        if self.min > self.max:
            raise ValueError(f"ClipGradByValue: min ({self.min}) is larger than max ({self.max})")

    def _clip(self, pairs: list[tuple[Tensor, Any]]) -> list[tuple[Tensor, Any]]:
        return [
            (p, g.clamp(self.min, self.max) if g is not None and _needs_clip(p) else g)
            for p, g in pairs
        ]

    def __repr__(self) -> str:
        return f"ClipGradByValue(min={self.min}, max={self.max})"
