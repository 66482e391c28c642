"""Dtype queries and process-wide settings in PyTorch's spelling: ``finfo``/``iinfo``,
``result_type``/``promote_types``/``can_cast``, ``get_num_threads``/``set_num_threads``,
``use_deterministic_algorithms`` and ``set_float32_matmul_precision``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import _core

__all__ = [
    "are_deterministic_algorithms_enabled",
    "can_cast",
    "finfo",
    "get_float32_matmul_precision",
    "get_num_threads",
    "iinfo",
    "promote_types",
    "result_type",
    "set_float32_matmul_precision",
    "set_num_threads",
    "use_deterministic_algorithms",
]

# bfloat16's limits (NumPy has no bfloat16): 8 exponent bits, 7 mantissa bits
_BF16 = {
    "bits": 16,
    "eps": 2.0**-7,
    "max": 3.3895313892515355e38,
    "tiny": 1.1754943508222875e-38,
    "resolution": 0.01,
}


def _dtype(d: Any) -> Any:
    if d is None:
        return _core._get_default_dtype()
    return _core.tensor([0], dtype=d).dtype if not isinstance(d, _core.dtype) else d


class finfo:  # noqa: N801  (torch's name)
    """Limits of a floating dtype (the default dtype when none is given): ``bits``,
    ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution``, ``dtype``."""

    def __init__(self, dtype: Any = None) -> None:
        d = _dtype(dtype)
        if not (d.is_floating_point or d in (_core.complex64, _core.complex128)):
            raise TypeError(f"finfo: {d} is not a floating-point dtype (use iinfo for integers)")
        name = str(d).split(".")[-1]
        real = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        if real == "bfloat16":
            info: dict[str, Any] = dict(_BF16)
        else:
            f = np.finfo(real)
            info = {
                "bits": int(f.bits),
                "eps": float(f.eps),
                "max": float(f.max),
                "tiny": float(f.tiny),
                "resolution": float(str(f.resolution)),
            }
        self.bits: int = info["bits"]
        self.eps: float = info["eps"]
        self.max: float = info["max"]
        self.min: float = -info["max"]
        self.tiny: float = info["tiny"]
        self.smallest_normal: float = info["tiny"]
        self.resolution: float = info["resolution"]
        self.dtype: str = real

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:  # noqa: N801  (torch's name)
    """Limits of an integer dtype: ``bits``, ``min``, ``max``, ``dtype``."""

    def __init__(self, dtype: Any) -> None:
        d = _dtype(dtype)
        name = str(d).split(".")[-1]
        if name == "bool" or d.is_floating_point or name.startswith("complex"):
            raise TypeError(f"iinfo: {d} is not an integer dtype (use finfo for floats)")
        i = np.iinfo(name)
        self.bits, self.min, self.max, self.dtype = int(i.bits), int(i.min), int(i.max), name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def _probe(v: Any) -> Any:
    """An empty stand-in for ``v`` that promotes as ``v`` does (0-d tensors like numbers)."""
    if isinstance(v, _core.Tensor):
        return _core.zeros([0] if v.ndim else [], dtype=v.dtype)
    return v


def result_type(tensor1: Any, tensor2: Any) -> Any:
    """The dtype ``tensor1 + tensor2`` would have (tensors or Python numbers), by the
    promotion rules ferrograd's arithmetic uses."""
    if (
        isinstance(tensor1, _core.Tensor)
        and isinstance(tensor2, _core.Tensor)
        and tensor1.dtype == tensor2.dtype
    ):
        # one dtype: nothing to promote (skips the two probes and their add, which the
        # two-operand math functions would otherwise pay on every call)
        return tensor1.dtype
    a, b = _probe(tensor1), _probe(tensor2)
    if not isinstance(a, _core.Tensor) and not isinstance(b, _core.Tensor):
        a = _core.tensor(a)
    if all(
        isinstance(v, _core.Tensor) and v.dtype == _core.bool or isinstance(v, bool) for v in (a, b)
    ):
        return _core.bool
    return (a + b).dtype


def promote_types(type1: Any, type2: Any) -> Any:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing range."""
    a, b = _dtype(type1), _dtype(type2)
    if a == _core.bool and b == _core.bool:
        return _core.bool
    return (_core.zeros([1], dtype=a) + _core.zeros([1], dtype=b)).dtype


_KIND = {
    "bool": 0,
    "uint8": 1,
    "int8": 1,
    "int16": 1,
    "int32": 1,
    "int64": 1,
    "float16": 2,
    "bfloat16": 2,
    "float32": 2,
    "float64": 2,
    "complex64": 3,
    "complex128": 3,
}


def can_cast(from_: Any, to: Any) -> bool:
    """PyTorch's casting rule for in-place ops and ``out=``: allowed unless it lowers the
    kind (complex -> float -> integer -> bool)."""
    a, b = str(_dtype(from_)).split(".")[-1], str(_dtype(to)).split(".")[-1]
    return _KIND[a] <= _KIND[b]


def get_num_threads() -> int:
    """The number of threads ferrograd's kernels use (fixed when ferrograd is imported:
    ``RAYON_NUM_THREADS`` or the available cores)."""
    return int(_core._num_threads())


def set_num_threads(n: int) -> None:
    """Accepted for PyTorch code; ferrograd's kernel pool is sized once, at import, so a
    different ``n`` only warns (set ``RAYON_NUM_THREADS`` before importing ferrograd)."""
    n = int(n)
    if n <= 0:
        raise ValueError(f"set_num_threads: expects a positive number, got {n}")
    if n != get_num_threads():
        warnings.warn(
            f"set_num_threads({n}): ferrograd's thread pool has {get_num_threads()} threads, "
            f"fixed at import; set RAYON_NUM_THREADS={n} in the environment before importing "
            "ferrograd to change it",
            RuntimeWarning,
            stacklevel=2,
        )


_deterministic = [False]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Records the flag (``are_deterministic_algorithms_enabled``). ferrograd's CPU kernels
    are deterministic for a fixed thread count already: reductions split work the same
    way on every run, and scatter-adds apply updates in index order."""
    _deterministic[0] = bool(mode)


def are_deterministic_algorithms_enabled() -> bool:
    """The flag set by ``use_deterministic_algorithms``."""
    return _deterministic[0]


_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """Accepts ``"highest"``, ``"high"`` or ``"medium"``; ferrograd's float32 matmul always
    computes in float32 ("highest"), which every setting allows."""
    if precision not in ("highest", "high", "medium"):
        raise ValueError(
            f"set_float32_matmul_precision: expects 'highest', 'high' or 'medium', got {precision!r}"
        )
    _matmul_precision[0] = precision


def get_float32_matmul_precision() -> str:
    """The value last given to ``set_float32_matmul_precision`` (default ``"highest"``)."""
    return _matmul_precision[0]
