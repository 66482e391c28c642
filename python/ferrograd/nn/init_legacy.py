"""PyTorch's ``nn.init.sparse_`` and Paddle's legacy initializer names
(``ConstantInitializer``, ``NormalInitializer``, ``UniformInitializer``,
``TruncatedNormalInitializer``, ``XavierInitializer``, ``MSRAInitializer``,
``NumpyArrayInitializer``: the Paddle 1.x / 2.0 spellings that Paddle 3 still exports),
re-exported by ``nn.init`` (which is also ``nn.initializer``)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

from .. import _core
from . import init as _init

Tensor = _core.Tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fills a 2-D tensor with N(0, ``std``²) samples, then zeros ``ceil(sparsity *
    rows)`` randomly chosen entries of each column (PyTorch's ``sparse_``)."""
    if not isinstance(tensor, Tensor) or tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if not 0.0 <= float(sparsity) <= 1.0:
        raise ValueError(f"sparse_: sparsity must be in [0, 1], got {sparsity}")
    rows, cols = int(tensor.shape[0]), int(tensor.shape[1])
    zeros = int(math.ceil(float(sparsity) * rows))
    values = _core.randn([rows, cols], dtype=tensor.dtype, generator=generator) * std
    if zeros:
        # each column's zeroed rows: the first `zeros` of a random permutation
        keys = _core.rand([rows, cols], dtype=_core.float64, generator=generator)
        order = keys.argsort(0)
        mask = _core.ones([rows, cols], dtype=tensor.dtype)
        drop = order[:zeros]
        mask = mask.scatter(0, drop, _core.zeros([zeros, cols], dtype=tensor.dtype))
        values = values * mask
    return _init._fill_from(tensor, values)


class ConstantInitializer(_init.Constant):
    """Paddle's legacy ``ConstantInitializer(value=0.0, force_cpu=False)``."""

    def __init__(self, value: float = 0.0, force_cpu: bool = False) -> None:
        super().__init__(value)


class NormalInitializer(_init.Normal):
    """Paddle's legacy ``NormalInitializer(loc=0.0, scale=1.0, seed=0)``."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0) -> None:
        super().__init__(loc, scale)


class UniformInitializer(_init.Uniform):
    """Paddle's legacy ``UniformInitializer(low=-1.0, high=1.0, seed=0, diag_num=0,
    diag_step=0, diag_val=1.0)``: uniform in ``[low, high)``, then, with ``diag_num > 0``,
    the elements at flat positions ``i * (diag_step + 1)`` for ``i < diag_num`` (the
    diagonal of a matrix ``diag_step`` wide) set to ``diag_val``. That is Paddle's
    documented rule (its static-graph ``uniform_random`` op); Paddle 3's eager mode
    ignores the ``diag_*`` arguments."""

    def __init__(
        self,
        low: float = -1.0,
        high: float = 1.0,
        seed: int = 0,
        diag_num: int = 0,
        diag_step: int = 0,
        diag_val: float = 1.0,
    ) -> None:
        if not high >= low:
            raise ValueError(f"UniformInitializer: high ({high}) must be >= low ({low})")
        for arg, v in (("diag_num", diag_num), ("diag_step", diag_step)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
                raise ValueError(f"UniformInitializer: {arg} must be an int >= 0, got {v!r}")
        if (diag_num > 0) != (diag_step > 0):
            raise ValueError(
                "UniformInitializer: diag_num and diag_step must both be > 0 (a diagonal) "
                f"or both 0, got diag_num={diag_num}, diag_step={diag_step}"
            )
        super().__init__(low, high)
        self.diag_num, self.diag_step = int(diag_num), int(diag_step)
        self.diag_val = float(diag_val)

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        out = super().__call__(param, block)
        if not self.diag_num:
            return out
        size = int(param.numel())
        last = (self.diag_num - 1) * (self.diag_step + 1)  # Python ints: no overflow
        if last >= size:
            raise ValueError(
                f"UniformInitializer: the diagonal's last element (position {last} = "
                f"(diag_num - 1) * (diag_step + 1)) lies outside the parameter's {size} "
                "elements"
            )
        flat = param.detach().reshape([-1]).clone()
        flat[_core.tensor(list(range(0, last + 1, self.diag_step + 1)))] = self.diag_val
        return _init._fill_from(param, flat.reshape(list(param.shape)))


class TruncatedNormalInitializer(_init.TruncatedNormal):
    """Paddle's legacy ``TruncatedNormalInitializer(loc=0.0, scale=1.0, seed=0, a=-2.0,
    b=2.0)``."""

    def __init__(
        self, loc: float = 0.0, scale: float = 1.0, seed: int = 0, a: float = -2.0, b: float = 2.0
    ) -> None:
        super().__init__(loc, scale, a, b)


class NumpyArrayInitializer(_init.Assign):
    """Paddle's legacy ``NumpyArrayInitializer(value)``: fills with the array."""

    def __init__(self, value: Any) -> None:
        super().__init__(value)


class XavierInitializer(_init.Initializer):
    """Paddle's legacy ``XavierInitializer(uniform=True, fan_in=None, fan_out=None,
    seed=0, gain=1.0)``: Glorot uniform (bound ``gain * sqrt(6 / (fan_in + fan_out))``)
    or normal (std ``gain * sqrt(2 / (fan_in + fan_out))``); fans not given are read
    from the parameter."""

    def __init__(
        self,
        uniform: bool = True,
        fan_in: Optional[float] = None,
        fan_out: Optional[float] = None,
        seed: int = 0,
        gain: float = 1.0,
    ) -> None:
        self.uniform, self.fan_in, self.fan_out, self.gain = uniform, fan_in, fan_out, gain

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        if self.fan_in is None and self.fan_out is None:
            cls = _init.XavierUniform if self.uniform else _init.XavierNormal
            return cls(self.gain)(param)
        f_in, f_out = _fans(param)
        fi = f_in if self.fan_in is None else float(self.fan_in)
        fo = f_out if self.fan_out is None else float(self.fan_out)
        if self.uniform:
            bound = self.gain * math.sqrt(6.0 / (fi + fo))
            return _init.uniform_(param, -bound, bound)
        return _init.normal_(param, 0.0, self.gain * math.sqrt(2.0 / (fi + fo)))


class MSRAInitializer(_init.Initializer):
    """Paddle's legacy ``MSRAInitializer(uniform=True, fan_in=None, seed=0,
    negative_slope=0, nonlinearity='relu', mode='fan_in')``: He uniform (bound ``gain *
    sqrt(3 / fan)``) or normal (std ``gain / sqrt(fan)``)."""

    def __init__(
        self,
        uniform: bool = True,
        fan_in: Optional[float] = None,
        seed: int = 0,
        negative_slope: float = 0,
        nonlinearity: str = "relu",
        mode: str = "fan_in",
    ) -> None:
        self.uniform, self.fan_in = uniform, fan_in
        self.negative_slope, self.nonlinearity, self.mode = negative_slope, nonlinearity, mode

    def __call__(self, param: Tensor, block: Any = None) -> Tensor:
        if self.fan_in is None:
            cls = _init.KaimingUniform if self.uniform else _init.KaimingNormal
            return cls(self.negative_slope, self.nonlinearity, self.mode)(param)
        gain = _init.calculate_gain(self.nonlinearity, self.negative_slope)
        fan = float(self.fan_in)
        if self.uniform:
            bound = gain * math.sqrt(3.0 / fan)
            return _init.uniform_(param, -bound, bound)
        return _init.normal_(param, 0.0, gain / math.sqrt(fan))


def _fans(param: Tensor) -> tuple[float, float]:
    f_in, f_out = _init._calculate_fan_in_and_fan_out(param)
    if getattr(param, "_in_out_layout", False):  # Paddle's Linear weight is [in, out]
        f_in, f_out = f_out, f_in
    return float(f_in), float(f_out)


__all__ = [
    "sparse_", "ConstantInitializer", "NormalInitializer", "UniformInitializer",
    "TruncatedNormalInitializer", "NumpyArrayInitializer", "XavierInitializer",
    "MSRAInitializer",
]  # fmt: skip
