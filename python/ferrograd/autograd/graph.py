"""Saved-tensor hooks: move the tensors that forward keeps for backward elsewhere and
bring them back when backward needs them.

The hook stack is thread-local and lives in Rust. ``pack_hook(tensor)`` runs once when a
recorded node saves a tensor (built-in ops and ``ctx.save_for_backward``) and may return
any object; ``unpack_hook(obj)`` runs each time backward needs the tensor and must return
a Tensor of the saved shape and dtype. Grad mode is off inside both.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from typing import Any, Callable

import numpy as np

from .. import _core

__all__ = ["saved_tensors_hooks", "disable_saved_tensors_hooks", "save_on_cpu", "save_on_disk"]


class saved_tensors_hooks:
    """Context manager installing ``(pack_hook, unpack_hook)`` on this thread. Nested
    contexts stack: the innermost wins and the outer pair is restored on exit (also when
    an exception leaves the block)."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        _core._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        _core._pop_saved_tensors_hooks()


class disable_saved_tensors_hooks:
    """Inside this block, entering ``saved_tensors_hooks`` raises ``RuntimeError(message)``
    (and entering it while hooks are active raises too)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message
        self._prev: str | None = None

    def __enter__(self) -> None:
        self._prev = _core._set_saved_tensors_hooks_disabled(self.error_message)

    def __exit__(self, *exc: Any) -> None:
        _core._set_saved_tensors_hooks_disabled(self._prev)


def _restore(array: np.ndarray, dtype: Any) -> Any:
    t = _core.from_numpy(array)
    return t if t.dtype == dtype else t.astype(dtype)


class save_on_cpu(saved_tensors_hooks):
    """Packs every saved tensor into a NumPy array (a copy in host memory) and unpacks it
    back into a tensor of the same dtype. ``pin_memory`` is accepted for PyTorch
    compatibility and ignored (everything is on the CPU)."""

    def __init__(self, pin_memory: bool = False) -> None:
        def pack(t):
            return (t.numpy(), t.dtype)

        def unpack(packed):
            array, dtype = packed
            return _restore(array, dtype)

        super().__init__(pack, unpack)


# dtypes whose raw bytes NumPy reads back as the same type
_NUMPY_NATIVE = frozenset(
    ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]
)


class _DiskTensor:
    """One tensor saved to a file; the file is removed when this handle is freed (when
    the graph that saved it is freed)."""

    __slots__ = ("path", "shape", "np_dtype", "dtype", "_finalizer", "__weakref__")

    def __init__(self, path: str, shape: tuple, np_dtype: Any, dtype: Any) -> None:
        self.path, self.shape, self.np_dtype, self.dtype = path, shape, np_dtype, dtype
        self._finalizer = weakref.finalize(self, _remove_file, path)


def _remove_file(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class save_on_disk(saved_tensors_hooks):
    """Writes every saved tensor to a raw file in ``directory`` (a fresh temporary
    directory by default) and memory-maps it back on unpack, so saved activations leave
    RAM during forward. Files are removed when the graph that saved them is freed; a
    temporary directory created here is removed when this object is."""

    def __init__(self, directory: str | None = None) -> None:
        owned = directory is None
        self.directory: str = (
            directory if directory is not None else tempfile.mkdtemp(prefix="ferrograd-saved-")
        )
        os.makedirs(self.directory, exist_ok=True)
        if owned:
            self._dir_finalizer = weakref.finalize(
                self, shutil.rmtree, self.directory, ignore_errors=True
            )
        counter = iter(range(1 << 62))
        directory_ = self.directory

        def pack(t):
            path = os.path.join(directory_, f"saved-{os.getpid()}-{id(self):x}-{next(counter)}.bin")
            if t.dtype.name in _NUMPY_NATIVE:
                _core._tofile(t, path)  # straight from the tensor's memory: no copy in RAM
                return _DiskTensor(path, tuple(t.shape), np.dtype(t.dtype.name), t.dtype)
            array = t.numpy()  # bfloat16: NumPy has no such type; store its float32 values
            array.tofile(path)
            return _DiskTensor(path, array.shape, array.dtype, t.dtype)

        def unpack(handle):
            array = np.memmap(handle.path, dtype=handle.np_dtype, mode="r", shape=handle.shape)
            return _restore(np.asarray(array) if array.ndim == 0 else array, handle.dtype)

        super().__init__(pack, unpack)
