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
import threading
import weakref
from typing import Any, Callable

import numpy as np

from .. import _core

__all__ = [
    "saved_tensors_hooks",
    "disable_saved_tensors_hooks",
    "save_on_cpu",
    "save_on_disk",
    "save_compressed",
    "save_lossless",
    "memory_budget",
]


class saved_tensors_hooks:
    """Context manager installing ``(pack_hook, unpack_hook)`` on this thread. Nested
    contexts stack: the innermost wins and the outer pair is restored on exit (also when
    an exception leaves the block)."""

    #: pack a view that this level already packed only once (the compressing hooks)
    _pack_once = False
    #: save parameters (leaves requiring grad) as they are instead of packing them
    _keep_leaves = False
    #: the thread of each active ``__enter__``, innermost last (per instance once entered)
    _threads: list[int] | None = None
    #: what the pack hook returns stays in RAM (checkpoint handles, compressed copies):
    #: its saves then leave ferrograd's buffer cache on, which other hooks suspend (see
    #: ``buffer_cache_info`` and docs/memory.md)
    _in_memory = False
    #: the cache-suspend setting each active ``__enter__`` replaced, innermost last
    _suspends: list[bool] | None = None

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._threads = []

    def __enter__(self) -> saved_tensors_hooks:
        if self._pack_once or self._keep_leaves:
            _push_hooks(
                self.pack_hook,
                self.unpack_hook,
                once=self._pack_once,
                keep_leaves=self._keep_leaves,
            )
        else:
            _push_hooks(self.pack_hook, self.unpack_hook)
        # (None from the class when a subclass did not call this class's __init__; read as
        # an attribute, not through ``__dict__``, which would build the instance's dict)
        threads = self._threads
        if threads is None:
            threads = self._threads = []
        threads.append(_get_ident())
        suspends = self._suspends
        if suspends is None:
            suspends = self._suspends = []
        suspends.append(_set_suspend(not self._in_memory))
        return self

    def __exit__(self, *exc: Any) -> None:
        # The hook stack is per thread: exiting on another thread would pop nothing there
        # and leave the hooks installed on the entering thread, so refuse clearly.
        here = _get_ident()
        threads = self._threads
        if not threads or threads[-1] != here:
            entered = f"thread {threads[-1]}" if threads else "no thread"
            raise RuntimeError(
                f"saved_tensors_hooks.__exit__ on thread {here}, but this context was "
                f"entered on {entered}; the hooks are installed per thread, so enter and "
                f"exit the context on the same thread (one `with` block per thread)"
            )
        threads.pop()
        _pop_hooks()
        _set_suspend(self._suspends.pop())  # type: ignore[union-attr]


# bound once: ``with saved_tensors_hooks(...)`` runs these on every forward step
_get_ident = threading.get_ident
_push_hooks = _core._push_saved_tensors_hooks
_pop_hooks = _core._pop_saved_tensors_hooks
_set_suspend = _core._set_packs_suspend_cache


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
