"""``ferrograd.tensor``: PyTorch's ``torch.tensor`` creation function and Paddle's
``paddle.tensor`` package in one object, as Paddle 3.3.1's own ``paddle.tensor`` is.

Calling it creates a tensor (``ferrograd.tensor([1, 2])``, the function
``ferrograd._core.tensor``); its attributes are Paddle's package
(``paddle.tensor.fill_constant(...)``, ``paddle.tensor.random.gaussian(...)``,
``from paddle.tensor import random``). It is registered as the module
``ferrograd.tensor``."""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any

from .. import _core
from . import creation as creation
from . import random as random
from .creation import fill_constant as fill_constant

__all__ = ["creation", "fill_constant", "random"]


def __getattr__(name: str) -> Any:
    """Paddle's ``paddle.tensor`` package re-exports the tensor functions (its
    ``__init__`` imports ``normal``, ``matmul``, ``reshape``, ``concat``, ... from its
    submodules), and PaddleNLP-style code calls them there
    (``paddle.tensor.normal(mean=0.0, std=0.02, shape=w.shape)``,
    ``paddle.tensor.matmul(q, k, transpose_y=True)``): the top-level function of that
    name is returned itself (so it still sees its caller's dialect). Submodules and
    classes are not re-exported."""
    if not name.startswith("_"):
        import ferrograd

        obj = getattr(ferrograd, name, None)
        if callable(obj) and not isinstance(obj, (type, types.ModuleType)):
            return obj
    raise AttributeError(f"module 'paddle.tensor' has no attribute {name!r}")


def _function_module(sub: str) -> types.ModuleType:
    """``paddle.tensor.<sub>`` (``stat``, ``math``, ``manipulation``, ...): Paddle's code
    and tests reach its functions there (``paddle.tensor.stat.nanmedian``); each name is
    the top-level function of that name, as with the package itself."""
    module = types.ModuleType(f"{__name__}.{sub}", f"Paddle's ``paddle.tensor.{sub}``.")

    def getattr_(name: str) -> Any:
        try:
            return __getattr__(name)
        except AttributeError:
            raise AttributeError(
                f"module 'paddle.tensor.{sub}' has no attribute {name!r}"
            ) from None

    module.__getattr__ = getattr_  # type: ignore[method-assign]
    sys.modules[f"ferrograd.tensor.{sub}"] = module
    return module


# (creation and random are modules of their own, above; ``paddle.tensor.einsum`` is the
# function, which shadows its submodule in Paddle's package too)
attribute = _function_module("attribute")
linalg = _function_module("linalg")
logic = _function_module("logic")
manipulation = _function_module("manipulation")
math = _function_module("math")
search = _function_module("search")
stat = _function_module("stat")


class _CreationFunctionPackage(types.ModuleType):
    """The type of this package: calling it calls ``_core.tensor`` directly (no Python
    frame in between, so the creation function still sees its caller's dialect)."""

    __call__ = staticmethod(_core.tensor)

    def __repr__(self) -> str:
        return repr(_core.tensor)


sys.modules[__name__].__class__ = _CreationFunctionPackage
# inspect.signature(ferrograd.tensor) is the creation function's
__signature__ = inspect.signature(_core.tensor)
