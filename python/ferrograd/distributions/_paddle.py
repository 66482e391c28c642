"""Paddle's ``paddle.distribution.Categorical``, which differs from PyTorch's in what its
argument means (the only class whose spelling and meaning the two peers do not share).

Paddle's ``Categorical(logits)`` reads ``logits`` two ways, and this class reproduces
both so that ported code gets Paddle's numbers: ``probs(value)`` / ``log_prob(value)``
use ``logits / logits.sum(-1)`` (the argument taken as non-negative weights), while
``sample``, ``entropy`` and ``kl_divergence`` use ``softmax(logits)``. ``probs`` is a
method (PyTorch's is a property), and ``kl_divergence`` keeps the reduced dim as Paddle
does (shape ``batch_shape + [1]``).
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .bounded import ContinuousBernoulli as _TorchContinuousBernoulli
from .discrete import Categorical as _TorchCategorical
from .kl import register_kl

Tensor = _core.Tensor

__all__ = ["Categorical", "ContinuousBernoulli"]


class Categorical(_TorchCategorical):
    """Paddle's categorical distribution over ``logits.shape[-1]`` categories (see the
    module docstring for how Paddle reads ``logits``)."""

    def __init__(self, logits: Any, name: Any = None) -> None:
        super().__init__(logits=logits, validate_args=False)
        raw = logits if isinstance(logits, Tensor) else None
        self._raw = (
            raw if raw is not None and raw.dtype.is_floating_point else self._raw_from(logits)
        )
        self._weights = self._raw / self._raw.sum(-1, keepdim=True)
        self.name = name if name is not None else "Categorical"

    def _raw_from(self, logits: Any) -> Tensor:
        from ._utils import as_float_tensor

        return as_float_tensor(logits, self._logits.dtype)

    @property
    def logits(self) -> Tensor:
        """The ``logits`` given (not normalised)."""
        return self._raw

    def probs(self, value: Any) -> Tensor:  # type: ignore[override]
        """``logits / logits.sum(-1)`` at the category indices ``value`` (a 1-D ``value``
        with batched logits is looked up in every distribution of the batch)."""
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=_core.int64)
        idx = value.astype(_core.int64)
        w = self._weights
        if w.ndim == 1:
            return w.gather(0, idx.reshape([-1])).reshape(list(idx.shape))
        if idx.ndim == 1:
            idx = idx.reshape([1] * (w.ndim - 1) + [-1])
            idx = idx.broadcast_to(list(w.shape[:-1]) + [int(idx.shape[-1])])
        return w.gather(-1, idx)

    def prob(self, value: Any) -> Tensor:
        """Same as :meth:`probs`."""
        return self.probs(value)

    def log_prob(self, value: Any) -> Tensor:
        """``log(probs(value))``."""
        return self.probs(value).log()


@register_kl(Categorical, Categorical)
def _kl_paddle_categorical(p: Categorical, q: Categorical) -> Tensor:
    pp = p._logits.exp()
    return (pp * (p._logits - q._logits)).sum(-1, keepdim=True)


class ContinuousBernoulli(_TorchContinuousBernoulli):
    """Paddle's ``ContinuousBernoulli(probs, lims=(0.48, 0.52))``: PyTorch's distribution
    with Paddle's signature (no ``logits``) and its wider Taylor window around 1/2."""

    def __init__(self, probs: Any, lims: Any = (0.48, 0.52), name: Any = None) -> None:
        super().__init__(probs=probs, lims=lims)
        self.name = name if name is not None else "ContinuousBernoulli"
