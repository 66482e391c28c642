"""Turning module functions into ``Tensor`` methods without a wrapper call."""

from __future__ import annotations

import types
from typing import Any


def as_method(fn: Any) -> Any:
    """``fn`` (whose first parameter is the peers' ``x``) as a method: the same code with
    that parameter named ``self``, so signatures read as methods (``help``, stubs) and a
    method call costs no extra Python frame."""
    code = fn.__code__
    names = ("self",) + code.co_varnames[1:]
    defaults = fn.__defaults__
    if defaults and len(defaults) == code.co_argcount:
        # ``x=None`` (so that Paddle's ``x=`` keyword works) must not make ``self`` optional
        defaults = defaults[1:] or None
    method = types.FunctionType(
        code.replace(co_varnames=names), fn.__globals__, fn.__name__, defaults
    )
    method.__kwdefaults__ = fn.__kwdefaults__
    method.__doc__ = fn.__doc__
    method.__qualname__ = "Tensor." + fn.__name__
    method.__module__ = fn.__module__
    ann = dict(fn.__annotations__)
    ann["self"] = ann.pop(code.co_varnames[0], "Tensor")
    method.__annotations__ = ann
    return method
