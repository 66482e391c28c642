"""``ferrograd.nn.init``: fill tensors in place with initial values (under ``no_grad``).

Random fills draw from ferrograd's generator, so ``ferrograd.seed(n)`` makes them
reproducible. Fans follow PyTorch's weight layout: a ``[out, in, *kernel]`` tensor has
``fan_in = in * prod(kernel)`` and ``fan_out = out * prod(kernel)``.

Paddle's initializer classes (``Uniform``, ``Normal``, ``XavierUniform``, ...) are here
too, as callables that fill the parameter they are given (also reachable as
``ferrograd.nn.initializer``); on a ``Linear`` weight in Paddle's layout ``[in, out]``
(built by Paddle code) they read the fans as Paddle does (``fan_in = in``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

import numpy as np

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
    convs = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d")
    linear = ("linear", *convs, "conv_transpose3d", "sigmoid", "identity")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        # PyTorch takes an int (not a bool) or a float (torch/nn/init.py, calculate_gain)
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(
                f"calculate_gain: negative_slope {param!r} not a valid number (give an int "
                "or a float)"
            )
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


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fills with samples uniform in ``[a, b)`` (from ``generator`` when given)."""
    _check(tensor, "uniform_")
    if b < a:
        raise ValueError(f"nn.init.uniform_: need a <= b, got a={a}, b={b}")
    r = _core.rand(list(tensor.shape), dtype=tensor.dtype, generator=generator)
    return _fill_from(tensor, r * (b - a) + a)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fills with samples from N(``mean``, ``std``²) (from ``generator`` when given)."""
    _check(tensor, "normal_")
    if std < 0:
        raise ValueError(f"nn.init.normal_: std must be non-negative, got {std}")
    r = _core.randn(list(tensor.shape), dtype=tensor.dtype, generator=generator)
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


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: ``±gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: std ``gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def _no_elements(tensor: Tensor) -> bool:
    """PyTorch's rule for the He fills: a tensor without elements (whose fan may be 0) is
    returned as it is, with a warning."""
    if 0 not in tuple(tensor.shape):
        return False
    warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
    return True


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He uniform: ``±gain * sqrt(3 / fan)`` with ``gain = calculate_gain(nonlinearity, a)``."""
    if _no_elements(tensor):
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """He normal: std ``gain / sqrt(fan)``."""
    if _no_elements(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


# ------------------------------------------------------------------ Paddle initializer classes


def _paddle_mode(param: Tensor, mode: str) -> str:
    """The fan to read, from the torch-layout rule, for Paddle's initializer classes: a
    weight in Paddle's layout ``[in, out]`` (a ``Linear`` built by Paddle code) has its
    fans the other way round."""
    if getattr(param, "_in_out_layout", False) and param.ndim == 2:
        return {"fan_in": "fan_out", "fan_out": "fan_in"}.get(mode, mode)
    return mode


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
    """Glorot uniform (its bound is the same in either weight layout)."""

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
        return kaiming_uniform_(param, self.a, _paddle_mode(param, self.mode), self.nonlinearity)


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
        return kaiming_normal_(param, self.a, _paddle_mode(param, self.mode), self.nonlinearity)


# ------------------------------------------------------------------ less common fills


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fills with samples from N(``mean``, ``std``²) conditioned on ``[a, b]`` (absolute
    bounds, as in PyTorch): values outside are drawn again until all fall inside."""
    _check(tensor, "trunc_normal_")
    if std < 0 or not a < b:
        raise ValueError(f"nn.init.trunc_normal_: need std >= 0 and a < b, got {std}, {a}, {b}")
    if b < mean - 6 * std or a > mean + 6 * std:
        raise ValueError(
            f"nn.init.trunc_normal_: [a, b] = [{a}, {b}] lies more than 6 std from the mean "
            f"{mean}; nearly no sample would fall inside"
        )
    n = tensor.numel()
    out = np.empty(n)
    todo = np.arange(n)
    while todo.size:
        sample = _core.randn([int(todo.size)], dtype=_core.float64, generator=generator)
        draw = sample.numpy() * std + mean
        ok = (draw >= a) & (draw <= b)
        out[todo[ok]] = draw[ok]
        todo = todo[~ok]
    values = _core.tensor(out.reshape(list(tensor.shape))).astype(tensor.dtype)
    return _fill_from(tensor, values)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fills a tensor of 2 or more dims with a (semi-)orthogonal matrix of its
    ``[shape[0], numel / shape[0]]`` view, times ``gain`` (Saxe et al.; the QR of a
    normal draw with the signs of ``R``'s diagonal, as PyTorch does)."""
    _check(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError(
            "nn.init.orthogonal_: only tensors with 2 or more dimensions are supported"
        )
    rows = tensor.shape[0]
    cols = tensor.numel() // rows if rows else 0
    if rows == 0 or cols == 0:
        return tensor
    flat = _core.randn([rows, cols], dtype=_core.float64, generator=generator).numpy()
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    values = _core.tensor(gain * q.reshape(list(tensor.shape))).astype(tensor.dtype)
    return _fill_from(tensor, values)


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D tensor with the identity (ones on the diagonal of a non-square one)."""
    _check(tensor, "eye_")
    if tensor.ndim != 2:
        raise ValueError(f"nn.init.eye_: only 2-D tensors are supported, got {tensor.ndim}-D")
    values = _core.tensor(np.eye(*tensor.shape)).astype(tensor.dtype)
    return _fill_from(tensor, values)


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fills a ``[out, in, *kernel]`` convolution weight (3 to 5 dims) so that the
    convolution passes its input through: in each of ``groups``, output channel ``i``
    copies input channel ``i`` at the kernel's centre."""
    _check(tensor, "dirac_")
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("nn.init.dirac_: only 3, 4 or 5-D tensors are supported")
    out_per = tensor.shape[0] // groups
    if groups < 1 or tensor.shape[0] % groups:
        raise ValueError(
            f"nn.init.dirac_: dim 0 ({tensor.shape[0]}) must divide into {groups} groups"
        )
    w = np.zeros(list(tensor.shape))
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for i in range(min(out_per, tensor.shape[1])):
            w[(g * out_per + i, i, *centre)] = 1.0
    return _fill_from(tensor, _core.tensor(w).astype(tensor.dtype))


class TruncatedNormal(Initializer):
    """Paddle: N(``mean``, ``std``²) truncated to ``[a, b]`` (absolute bounds, as in
    Paddle 3)."""

    def __init__(
        self,
        mean: float = 0.0,
        std: float = 1.0,
        a: float = -2.0,
        b: float = 2.0,
        name: Optional[str] = None,
    ) -> None:
        self.mean, self.std, self.a, self.b = mean, std, a, b

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return trunc_normal_(param, self.mean, self.std, self.a, self.b)


class Orthogonal(Initializer):
    """Paddle: a (semi-)orthogonal matrix times ``gain``."""

    def __init__(self, gain: float = 1.0, name: Optional[str] = None) -> None:
        self.gain = gain

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return orthogonal_(param, self.gain)


class Dirac(Initializer):
    """Paddle: the identity convolution kernel (``dirac_``)."""

    def __init__(self, groups: int = 1, name: Optional[str] = None) -> None:
        self.groups = groups

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        return dirac_(param, self.groups)


class Assign(Initializer):
    """Paddle: fills with the given values (a NumPy array, list or tensor of the
    parameter's shape)."""

    def __init__(self, value: Any, name: Optional[str] = None) -> None:
        self.value = value

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        v = self.value.numpy() if isinstance(self.value, Tensor) else np.asarray(self.value)
        if list(v.shape) != list(param.shape):
            raise ValueError(
                f"nn.initializer.Assign: the value has shape {list(v.shape)}, the parameter "
                f"{list(param.shape)}"
            )
        return _fill_from(param, _core.tensor(v).astype(param.dtype))


# PyTorch's deprecated spellings without the trailing underscore: they warn and fill in place
def _deprecated(old: str, new: Any, args: tuple, kwargs: dict) -> Any:
    import warnings

    warnings.warn(
        f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`.",
        FutureWarning,
        stacklevel=3,
    )
    return new(*args, **kwargs)


def uniform(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``uniform_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("uniform", uniform_, args, kwargs)


def normal(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``normal_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("normal", normal_, args, kwargs)


def constant(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``constant_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("constant", constant_, args, kwargs)


def xavier_uniform(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``xavier_uniform_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("xavier_uniform", xavier_uniform_, args, kwargs)


def xavier_normal(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``xavier_normal_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("xavier_normal", xavier_normal_, args, kwargs)


def kaiming_uniform(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``kaiming_uniform_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("kaiming_uniform", kaiming_uniform_, args, kwargs)


def kaiming_normal(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``kaiming_normal_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("kaiming_normal", kaiming_normal_, args, kwargs)


def orthogonal(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``orthogonal_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("orthogonal", orthogonal_, args, kwargs)


def eye(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``eye_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("eye", eye_, args, kwargs)


def dirac(*args: Any, **kwargs: Any) -> Tensor:
    """Deprecated spelling of ``dirac_`` (warns ``FutureWarning``, as PyTorch)."""
    return _deprecated("dirac", dirac_, args, kwargs)


# sparse_ and Paddle's legacy *Initializer names (init_legacy.py)
from .init_legacy import ConstantInitializer as ConstantInitializer  # noqa: E402
from .init_legacy import MSRAInitializer as MSRAInitializer  # noqa: E402
from .init_legacy import NormalInitializer as NormalInitializer  # noqa: E402
from .init_legacy import NumpyArrayInitializer as NumpyArrayInitializer  # noqa: E402
from .init_legacy import TruncatedNormalInitializer as TruncatedNormalInitializer  # noqa: E402
from .init_legacy import UniformInitializer as UniformInitializer  # noqa: E402
from .init_legacy import XavierInitializer as XavierInitializer  # noqa: E402
from .init_legacy import sparse_ as sparse_  # noqa: E402
from .param_attr import set_global_initializer as set_global_initializer  # noqa: E402
