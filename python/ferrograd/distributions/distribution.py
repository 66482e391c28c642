"""The ``Distribution`` base class: shapes, sampling entry points, validation.

Subclasses build every density, entropy and moment from differentiable ferrograd ops, so
``log_prob`` and ``rsample`` carry gradients to the parameters with no extra code. They
implement ``_draw(shape, generator)`` (a sample of the full ``shape``; reparameterised
where ``has_rsample``), and the public ``sample`` / ``rsample`` wrap it: ``sample`` runs
under ``no_grad`` and returns a tensor with no history, as in both peers.
"""

from __future__ import annotations

from typing import Any, ClassVar, Optional

from .. import _core
from .._size import Size
from ..grad_mode import no_grad
from . import constraints
from ._utils import generator_for, size_tuple

Tensor = _core.Tensor

__all__ = ["Distribution"]


class Distribution:
    """A batch of probability distributions (PyTorch's ``torch.distributions.Distribution``
    and Paddle's ``paddle.distribution.Distribution``)."""

    #: whether ``rsample`` is available (samples are a differentiable function of the parameters)
    has_rsample: ClassVar[bool] = False
    #: whether ``enumerate_support`` is available
    has_enumerate_support: ClassVar[bool] = False
    #: the constraint each parameter must satisfy (checked when ``validate_args``)
    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}
    #: the set samples lie in (``log_prob``'s argument is checked against it when validating)
    support: Any = None
    #: validation default for new instances (``set_default_validate_args``)
    _validate_default: ClassVar[bool] = True

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns parameter / value validation on or off for distributions created later
        without an explicit ``validate_args`` (on by default, as in PyTorch)."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args expects True or False, got {value!r}")
        Distribution._validate_default = value

    def __init__(
        self,
        batch_shape: Any = (),
        event_shape: Any = (),
        validate_args: Optional[bool] = None,
    ) -> None:
        self._batch_shape = Size(size_tuple(batch_shape, "batch_shape"))
        self._event_shape = Size(size_tuple(event_shape, "event_shape"))
        self._validate = (
            Distribution._validate_default if validate_args is None else bool(validate_args)
        )

    # ---- shapes --------------------------------------------------------------------------

    @property
    def batch_shape(self) -> Size:
        """The shape of the batch of independent distributions."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one draw (``[]`` for scalar distributions, ``[k]`` for a k-vector)."""
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> tuple[int, ...]:
        return size_tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    # Paddle's spelling
    _extend_shape = _extended_shape

    # ---- validation ----------------------------------------------------------------------

    def _check_params(self, **params: Tensor) -> None:
        """Raises ValueError naming the first parameter outside its constraint."""
        if not self._validate:
            return
        for name, value in params.items():
            constraint = self.arg_constraints.get(name)
            if constraint is None or value is None:
                continue
            ok = constraint.check(value.detach())
            if not bool(ok.all()):
                raise ValueError(
                    f"{type(self).__name__}: parameter {name} (shape {list(value.shape)}) must "
                    f"satisfy {constraint!r}, but it has invalid values: {value.tolist()}"
                )

    def _validate_sample(self, value: Tensor) -> None:
        """With validation on, refuses a ``value`` outside the support."""
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{type(self).__name__}: expected a Tensor value, got {type(value).__name__}"
            )
        if not self._validate or self.support is None:
            return
        if not bool(self.support.check(value.detach()).all()):
            raise ValueError(
                f"{type(self).__name__}: the value must lie in the support {self.support!r}; "
                "pass validate_args=False to get -inf / nan there instead"
            )

    # ---- sampling ------------------------------------------------------------------------

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} cannot draw samples")

    def sample(
        self,
        sample_shape: Any = (),
        seed: int = 0,
        *,
        shape: Any = None,
        generator: Any = None,
    ) -> Tensor:
        """Samples of shape ``sample_shape + batch_shape + event_shape``, with no gradient.
        Paddle's ``shape=`` and ``seed=`` (a non-zero seed: the same draw on every call)
        and a ``generator=`` are accepted."""
        full = self._extended_shape(sample_shape if shape is None else shape)
        with no_grad():
            return self._draw(full, generator_for(seed, generator)).detach()

    def rsample(
        self, sample_shape: Any = (), *, shape: Any = None, generator: Any = None
    ) -> Tensor:
        """Reparameterised samples: differentiable with respect to the parameters."""
        if not self.has_rsample:
            raise NotImplementedError(
                f"{type(self).__name__} has no rsample (its samples are not a differentiable "
                "function of its parameters); use sample"
            )
        full = self._extended_shape(sample_shape if shape is None else shape)
        return self._draw(full, generator)

    def sample_n(self, n: int) -> Tensor:
        """``n`` samples (``sample((n,))``)."""
        return self.sample((n,))

    # ---- densities and moments (subclasses fill these in) ---------------------------------

    def log_prob(self, value: Any) -> Tensor:
        """Log density (or log mass) at ``value``."""
        raise NotImplementedError(f"{type(self).__name__}.log_prob is not implemented")

    def prob(self, value: Any) -> Tensor:
        """Density (or mass) at ``value``: ``log_prob(value).exp()`` (Paddle's ``prob``)."""
        return self.log_prob(value).exp()

    def cdf(self, value: Any) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError(f"{type(self).__name__}.cdf is not implemented")

    def icdf(self, value: Any) -> Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError(f"{type(self).__name__}.icdf is not implemented")

    def entropy(self) -> Tensor:
        """Entropy in nats, one per distribution of the batch."""
        raise NotImplementedError(f"{type(self).__name__}.entropy is not implemented")

    def perplexity(self) -> Tensor:
        """``exp(entropy())``."""
        return self.entropy().exp()

    @property
    def mean(self) -> Tensor:
        """The mean."""
        raise NotImplementedError(f"{type(self).__name__}.mean is not implemented")

    @property
    def mode(self) -> Tensor:
        """The mode."""
        raise NotImplementedError(f"{type(self).__name__}.mode is not implemented")

    @property
    def variance(self) -> Tensor:
        """The variance."""
        raise NotImplementedError(f"{type(self).__name__}.variance is not implemented")

    @property
    def stddev(self) -> Tensor:
        """The standard deviation (``variance.sqrt()``)."""
        return self.variance.sqrt()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All values of a finite discrete support."""
        raise NotImplementedError(f"{type(self).__name__} has no finite support to enumerate")

    def kl_divergence(self, other: Distribution) -> Tensor:
        """KL(self || other) (Paddle's method form of ``kl_divergence(p, q)``)."""
        from .kl import kl_divergence

        return kl_divergence(self, other)

    # ---- expand ---------------------------------------------------------------------------

    #: the tensor attributes whose leading dims are the batch shape (used by ``expand``)
    _params: ClassVar[tuple[str, ...]] = ()

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A view of this distribution with its parameters broadcast to ``batch_shape``."""
        new_batch = size_tuple(batch_shape, "batch_shape")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        nb = len(self._batch_shape)
        for name in self._params:
            value = self.__dict__.get(name)
            if isinstance(value, Tensor):
                tail = tuple(value.shape)[nb:]
                setattr(new, name, value.broadcast_to(list(new_batch + tail)))
        new._batch_shape = Size(new_batch)
        return new

    def __repr__(self) -> str:
        parts = []
        for name in self._params:
            value = self.__dict__.get(name)
            if isinstance(value, Tensor):
                parts.append(
                    f"{name}: {value.tolist() if value.numel() == 1 else list(value.shape)}"
                )
        return f"{type(self).__name__}({', '.join(parts)})"
