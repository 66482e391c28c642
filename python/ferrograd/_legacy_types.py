"""PyTorch's legacy typed tensor constructors: ``FloatTensor``, ``DoubleTensor``,
``LongTensor``, ``BoolTensor``, ``ByteTensor``, ...

Old PyTorch code (and PyTorch's own older tests) builds tensors with them:
``torch.FloatTensor(2, 3)`` is a tensor of that shape (PyTorch leaves it uninitialised;
here it is zeros, so results never depend on stale memory), ``torch.LongTensor([1, 2])``
a tensor of that data, ``torch.FloatTensor()`` an empty one. They are also type tests:
``isinstance(t, torch.FloatTensor)`` is true for a float32 tensor, and
``t.type(torch.DoubleTensor)`` casts. Each name is a class whose metaclass implements
the calls; no tensor is ever an instance of the class itself.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

from . import _core

Tensor = _core.Tensor

#: the legacy names, by dtype name (as ``Tensor.type()`` spells them)
LEGACY_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor",
    "uint8": "ByteTensor",
    "int8": "CharTensor",
    "int16": "ShortTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "bool": "BoolTensor",
    "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor",
}

__all__ = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
    "ComplexFloatTensor",
    "ComplexDoubleTensor",
]


def _is_size(args: tuple) -> bool:
    """True when the positional arguments are sizes: ints, or one ``Size``."""
    if len(args) == 1 and type(args[0]).__name__ == "Size":
        return True
    return all(
        isinstance(a, builtins.int) or (hasattr(a, "__index__") and not hasattr(a, "shape"))
        for a in args
    ) and not any(isinstance(a, builtins.bool) for a in args)


class LegacyTensorType(type):
    """The metaclass of the legacy names: calling one builds a tensor of its dtype, and
    ``isinstance`` tests the dtype."""

    dtype: Any

    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:  # type: ignore[override]
        if device is not None and str(device) != "cpu":
            raise ValueError(
                f"{cls.__name__}: ferrograd runs on the CPU only, got device={device!r}"
            )
        if not args:
            return _core.zeros([0], dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], Tensor):
            other = args[0]
            if other.dtype != cls.dtype:
                raise TypeError(
                    f"{cls.__name__}(tensor): expected a tensor of dtype {cls.dtype}, got "
                    f"{other.dtype}; cast it with .to() / .astype()"
                )
            return other.detach()  # an alias of the same memory, as PyTorch
        if _is_size(args):
            dims = args[0] if type(args[0]).__name__ == "Size" else args
            sizes = [operator.index(a) for a in dims]
            if any(s < 0 for s in sizes):
                raise ValueError(f"{cls.__name__}: negative dimension in size {sizes}")
            return _core.zeros(sizes, dtype=cls.dtype)
        if len(args) == 1 and not isinstance(args[0], (builtins.float, builtins.complex, str)):
            return _core.tensor(args[0], dtype=cls.dtype)
        raise TypeError(
            f"{cls.__name__}: expects sizes (ints), a Size, a sequence of data or a tensor, "
            f"got ({', '.join(type(a).__name__ for a in args)})"
        )


def _make(name: str, dtype_name: str) -> LegacyTensorType:
    doc = (
        f"PyTorch's legacy ``{name}``: ``{name}(*sizes)`` is a zero tensor of that shape, "
        f"``{name}(data)`` a tensor of the data, of dtype {dtype_name}; "
        f"``isinstance(t, {name})`` tests the dtype."
    )
    return LegacyTensorType(
        name, (), {"dtype": getattr(_core, dtype_name), "__doc__": doc, "__module__": "ferrograd"}
    )


FloatTensor = _make("FloatTensor", "float32")
DoubleTensor = _make("DoubleTensor", "float64")
HalfTensor = _make("HalfTensor", "float16")
BFloat16Tensor = _make("BFloat16Tensor", "bfloat16")
ByteTensor = _make("ByteTensor", "uint8")
CharTensor = _make("CharTensor", "int8")
ShortTensor = _make("ShortTensor", "int16")
IntTensor = _make("IntTensor", "int32")
LongTensor = _make("LongTensor", "int64")
BoolTensor = _make("BoolTensor", "bool")
ComplexFloatTensor = _make("ComplexFloatTensor", "complex64")
ComplexDoubleTensor = _make("ComplexDoubleTensor", "complex128")
