"""Saved-tensor hooks: move the tensors that forward keeps for backward elsewhere and
bring them back when backward needs them.

The hook stack is thread-local and lives in Rust. ``pack_hook(tensor)`` runs once when a
recorded node saves a tensor (built-in ops and ``ctx.save_for_backward``) and may return
any object; ``unpack_hook(obj)`` runs each time backward needs the tensor and must return
a Tensor of the saved shape and dtype. Grad mode is off inside both.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import weakref
from typing import Any

import numpy as np

from .. import _core
from .gradient_edge import GradientEdge, get_gradient_edge

__all__ = [
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "saved_tensors_hooks",
    "disable_saved_tensors_hooks",
    "save_on_cpu",
    "save_on_disk",
    "save_compressed",
    "save_lossless",
    "memory_budget",
]


#: Context manager installing ``(pack_hook, unpack_hook)`` on this thread. Nested
#: contexts stack: the innermost wins and the outer pair is restored on exit (also when
#: an exception leaves the block). The class is native (construction, ``__enter__`` and
#: ``__exit__`` run no Python frame); subclasses call ``super().__init__(pack, unpack)``
#: and may override the settings ``_pack_once`` (pack a view this level already packed
#: only once), ``_keep_leaves`` (save parameters as they are), ``_keep_held_leaves``
#: (save leaves without grad that a Python object holds as they are) and ``_in_memory``
#: (what pack returns stays in RAM: the buffer cache stays on) as class attributes; an
#: instance may set them too. ``__exit__`` on another thread than the one that entered
#: raises ``RuntimeError``.
saved_tensors_hooks = _core.saved_tensors_hooks


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


def increment_version(tensor: Any) -> None:
    """Adds one to the version counter of ``tensor`` (a Tensor, or an iterable of them)
    without touching its values: the way to tell autograd that code outside it (a NumPy
    view, a C extension) changed the memory, so backward refuses a saved copy of it as it
    does after an in-place op (PyTorch's ``torch.autograd.graph.increment_version``)."""
    if isinstance(tensor, _core.Tensor):
        tensors = [tensor]
    else:
        try:
            tensors = list(tensor)
        except TypeError:
            tensors = [tensor]  # refused below, with the message
    for t in tensors:
        if not isinstance(t, _core.Tensor):
            raise TypeError(
                f"increment_version expects a Tensor or an iterable of Tensors, got an "
                f"item of type {type(t).__name__}"
            )
    for t in tensors:
        t._increment_version()


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
    [
        "bool",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)


class _Directory:
    """The directory the saved files go to. A temporary one made here is removed when the
    last holder lets go of this object: the ``save_on_disk`` hook *and* every saved file's
    handle hold it, so a graph whose activations are on disk keeps its directory alive
    even after the hook object itself is gone (collected with a reference cycle, say)."""

    __slots__ = ("path", "_finalizer", "__weakref__")

    def __init__(self, directory: str | None) -> None:
        if directory is None:
            self.path = tempfile.mkdtemp(prefix="ferrograd-saved-")  # 0700, random name
            self._finalizer: weakref.finalize | None = weakref.finalize(
                self, shutil.rmtree, self.path, ignore_errors=True
            )
        else:
            self.path = os.fspath(directory)
            os.makedirs(self.path, mode=0o700, exist_ok=True)
            self._finalizer = None


class _DiskTensor:
    """One tensor saved to a file; the file is removed when this handle is freed (when
    the graph that saved it is freed)."""

    __slots__ = ("path", "shape", "np_dtype", "dtype", "directory", "_finalizer", "__weakref__")

    def __init__(
        self, path: str, shape: tuple, np_dtype: Any, dtype: Any, directory: _Directory
    ) -> None:
        self.path, self.shape, self.np_dtype, self.dtype = path, shape, np_dtype, dtype
        self.directory = directory  # keeps a temporary directory alive while the file is
        self._finalizer = weakref.finalize(self, _remove_file, path)


def _create_exclusive(path: str) -> Any:
    """Opens a new file at ``path`` for writing: created exclusively, never through a
    symlink, readable and writable by the owner only."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    return os.fdopen(os.open(path, flags, 0o600), "wb")


def _remove_file(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class save_on_disk(saved_tensors_hooks):
    """Writes every saved tensor to a raw file in ``directory`` (a fresh temporary
    directory by default) and memory-maps it back on unpack, so saved activations leave
    RAM during forward. Files are removed when the graph that saved them is freed; a
    temporary directory created here is removed once this object and every graph that
    saved into it are gone.

    Files are created exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``) under unpredictable
    names with owner-only permissions (0600), so a shared ``directory`` cannot redirect
    them through planted symlinks; a directory created here is 0700."""

    def __init__(self, directory: str | None = None) -> None:
        # The hooks close over `where` (not over self), so no reference cycle holds self
        # and nothing here depends on when the cyclic garbage collector runs.
        where = _Directory(directory)
        self._where = where
        self.directory = where.path

        def pack(t):
            # 128 random bits: no name another user can predict and plant in advance
            path = os.path.join(where.path, f"saved-{secrets.token_hex(16)}.bin")
            if t.dtype.name in _NUMPY_NATIVE:
                _core._tofile(t, path)  # straight from the tensor's memory: no copy in RAM
                return _DiskTensor(path, tuple(t.shape), np.dtype(t.dtype.name), t.dtype, where)
            array = t.numpy()  # bfloat16: NumPy has no such type; store its float32 values
            with _create_exclusive(path) as f:
                array.tofile(f)
            return _DiskTensor(path, array.shape, array.dtype, t.dtype, where)

        def unpack(handle):
            array = np.memmap(handle.path, dtype=handle.np_dtype, mode="r", shape=handle.shape)
            return _restore(np.asarray(array) if array.ndim == 0 else array, handle.dtype)

        super().__init__(pack, unpack)


# the compressing hooks build on the classes above
from .budget import memory_budget  # noqa: E402
from .compress import save_compressed, save_lossless  # noqa: E402
