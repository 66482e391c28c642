"""``ferrograd.nn.init``: fill tensors in place with initial values (under ``no_grad``).

Random fills draw from ferrograd's generator, so ``ferrograd.seed(n)`` makes them
reproducible. Fans follow PyTorch's weight layout: a ``[out, in, *kernel]`` tensor has
``fan_in = in * prod(kernel)`` and ``fan_out = out * prod(kernel)``.

Paddle's initializer classes (``Uniform``, ``Normal``, ``XavierUniform``, ...) are here
too, as callables that fill the parameter they are given (also reachable as
``ferrograd.nn.initializer``).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from .. import _core
from ..grad_mode import no_grad

Tensor = _core.Tensor


def _check(tensor: Any, what: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{what}: expected a Tensor, got {type(tensor).__name__}")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise TypeError(f"nn.init.{what}: the tensor must be floating, got {tensor.dtype}")


def _fill_from(tensor: Tensor, values: Tensor) -> Tensor:
    with no_grad():
        tensor.copy_(values)
    return tensor


def _fill_row_(tensor: Tensor, row: int, value: float) -> None:
    with no_grad():
        tensor[row] = value


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The recommended gain for ``nonlinearity`` (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "sigmoid", "identity")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of shape ``[out, in, *kernel]``."""
    shape = list(tensor.shape)
    if len(shape) < 2:
        raise ValueError(
            f"fan in and fan out need a tensor with at least 2 dims, got shape {shape}"
        )
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fills with samples uniform in ``[a, b)``."""
    _check(tensor, "uniform_")
    if b < a:
        raise ValueError(f"nn.init.uniform_: need a <= b, got a={a}, b={b}")
    r = _core.rand(list(tensor.shape), dtype=tensor.dtype)
    return _fill_from(tensor, r * (b - a) + a)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fills with samples from N(``mean``, ``std``²)."""
    _check(tensor, "normal_")
    if std < 0:
        raise ValueError(f"nn.init.normal_: std must be non-negative, got {std}")
    r = _core.randn(list(tensor.shape), dtype=tensor.dtype)
    return _fill_from(tensor, r * std + mean)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills with ``val``."""
    _check(tensor, "constant_")
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    """Fills with zeros."""
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fills with ones."""
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """Glorot uniform: ``±gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """Glorot normal: std ``gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """He uniform: ``±gain * sqrt(3 / fan)`` with ``gain = calculate_gain(nonlinearity, a)``."""
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """He normal: std ``gain / sqrt(fan)``."""
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode)))


# ------------------------------------------------------------------ Paddle initializer classes


class Initializer:
    """Base of Paddle-style initializers: ``init(param)`` fills ``param`` in place."""

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        raise NotImplementedError


class Constant(Initializer):
    """Fills with ``value``."""

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return constant_(param, self.value)


class Uniform(Initializer):
    """Uniform in ``[low, high)``."""

    def __init__(self, low: float = -1.0, high: float = 1.0, name: Optional[str] = None) -> None:
        self.low, self.high = low, high

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return uniform_(param, self.low, self.high)


class Normal(Initializer):
    """N(``mean``, ``std``²)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name: Optional[str] = None) -> None:
        self.mean, self.std = mean, std

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return normal_(param, self.mean, self.std)


class XavierUniform(Initializer):
    """Glorot uniform (fans from the torch layout ``[out, in]``)."""

    def __init__(self, gain: float = 1.0, name: Optional[str] = None, **_: Any) -> None:
        self.gain = gain

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return xavier_uniform_(param, self.gain)


class XavierNormal(Initializer):
    """Glorot normal."""

    def __init__(self, gain: float = 1.0, name: Optional[str] = None, **_: Any) -> None:
        self.gain = gain

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return xavier_normal_(param, self.gain)


class KaimingUniform(Initializer):
    """He uniform."""

    def __init__(
        self,
        negative_slope: float = 0.0,
        nonlinearity: str = "relu",
        mode: str = "fan_in",
        **_: Any,
    ) -> None:
        self.a, self.nonlinearity, self.mode = negative_slope, nonlinearity, mode

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return kaiming_uniform_(param, self.a, self.mode, self.nonlinearity)


class KaimingNormal(Initializer):
    """He normal."""

    def __init__(
        self,
        negative_slope: float = 0.0,
        nonlinearity: str = "relu",
        mode: str = "fan_in",
        **_: Any,
    ) -> None:
        self.a, self.nonlinearity, self.mode = negative_slope, nonlinearity, mode

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return kaiming_normal_(param, self.a, self.mode, self.nonlinearity)
