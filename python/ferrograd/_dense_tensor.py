"""Paddle's ``Tensor.get_tensor()``: the tensor's storage as a ``DenseTensor`` handle.

Static-graph code reads and writes parameters through the scope this way
(``np.array(static.global_scope().find_var(name).get_tensor())``,
``...get_tensor().set(array, place)``); dygraph code calls ``x.get_tensor()`` too. The
handle shares the tensor's storage: reads see later updates and ``set`` writes in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core

Tensor = _core.Tensor


class DenseTensor:
    """Paddle's ``DenseTensor`` (``LoDTensor``) handle on a ferrograd tensor's storage:
    ``np.array(handle)``, ``set(array, place)``, ``shape()``, ``_dtype()``."""

    def __init__(self, tensor: Tensor) -> None:
        self._t = tensor

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self._t.detach().numpy()
        return arr.astype(dtype) if dtype is not None else arr

    def set(self, array: Any, place: Any = None) -> None:
        """Writes ``array`` into the tensor (same shape; cast to the tensor's dtype)."""
        value = np.asarray(array)
        shape = [int(s) for s in self._t.shape]
        if list(value.shape) != shape:
            raise ValueError(
                f"DenseTensor.set: the array's shape {list(value.shape)} differs from the "
                f"tensor's {shape}; ferrograd writes values in place and cannot reshape a "
                "held tensor (create a new one instead)"
            )
        self._t.set_value(value)

    def shape(self) -> list[int]:
        """The shape as a list of ints."""
        return [int(s) for s in self._t.shape]

    def _dtype(self) -> Any:
        return self._t.dtype

    def _is_initialized(self) -> bool:
        return True

    def __len__(self) -> int:
        return int(self._t.shape[0]) if self._t.ndim else 0

    def __repr__(self) -> str:
        return f"DenseTensor(shape={self.shape()}, dtype={self._t.dtype})"


def _get_tensor(self: Tensor) -> DenseTensor:
    """Paddle: the tensor's storage as a ``DenseTensor`` handle (``np.array(h)``,
    ``h.set(array, place)``), sharing memory with the tensor."""
    return DenseTensor(self)


def install_tensor_methods() -> None:
    """Adds ``Tensor.get_tensor``."""
    setattr(Tensor, "get_tensor", _get_tensor)  # noqa: B010  (stubbed in _core.pyi)
