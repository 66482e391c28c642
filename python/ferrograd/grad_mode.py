"""Grad-mode switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``.

The mode itself lives in Rust, per thread. Each switch works as a context manager and as
a decorator, with or without parentheses; on a generator function only the generator's
own steps run in the mode (the consumer's code between ``yield``s does not).
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from typing import Any, Callable, TypeVar

from . import _core

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]

is_grad_enabled = _core.is_grad_enabled


class _DecoratorContextManager:
    """Base: subclasses define ``__enter__``/``__exit__`` and ``clone``."""

    def clone(self):
        return self.__class__()

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            # as in PyTorch: the mode holds while the class is constructed, not in its
            # methods, which is rarely what was meant
            warnings.warn(
                "Decorating classes is deprecated: the grad mode only applies while the "
                "class is constructed, not in its methods. Decorate __init__ (or the "
                "methods) instead.",
                FutureWarning,
                stacklevel=2,
            )
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)  # type: ignore[return-value]

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return decorated  # type: ignore[return-value]

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Allows ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disables gradient recording on this thread inside the block.

    Factory functions given ``requires_grad=True`` / ``stop_gradient=False`` explicitly still
    create tensors that require grad.
    """

    def __init__(self, orig_func=None) -> None:
        self.prev = True

    def __enter__(self) -> None:
        self.prev = _core._set_grad_enabled(False)

    def __exit__(self, *exc) -> None:
        _core._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Enables gradient recording on this thread inside the block."""

    def __init__(self, orig_func=None) -> None:
        self.prev = True

    def __enter__(self) -> None:
        self.prev = _core._set_grad_enabled(True)

    def __exit__(self, *exc) -> None:
        _core._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode to ``mode``: immediately when called (it stays in force as a plain
    call), and restores the previous mode when used as a context manager exits."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self.prev = _core._set_grad_enabled(self.mode)

    def __call__(self, func):
        # used as a decorator: undo the immediate switch made by __init__
        _core._set_grad_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _core._set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, for code that will never be differentiated."""

    def __new__(cls, mode=True):
        if callable(mode):
            return cls(True)(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._prev = (False, True)

    def __enter__(self) -> None:
        self._prev = _core._set_inference_mode(self.mode)

    def __exit__(self, *exc) -> None:
        _core._restore_inference_mode(*self._prev)

    def clone(self):
        return self.__class__(self.mode)
