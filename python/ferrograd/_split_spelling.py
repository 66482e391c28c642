"""``split``, the function and the method: both peers spell it alike and answer
differently. ``split(x, 2)`` is Paddle's 2 equal sections and PyTorch's sections of size 2
(the same call silently gives other pieces when the length is not 4). The module function
is Paddle's unless PyTorch's keywords are given or the code is PyTorch code; the method
``x.split(2)`` is PyTorch's unless Paddle's keywords (``num_or_sections=``, ``axis=``) are
given or the code is Paddle code.

This module is *transparent* to the dialect rule (``_dialect.TRANSPARENT``, and the same
list in src/python/dialect.rs): when the Rust split below it asks which dialect called,
the answer is that of the code that called ``split``. So in PyTorch code the pieces are
marked as one op's several views, as ``unbind`` / ``chunk`` are (a later write that
requires grad into a piece of a tensor that needs none is refused, as PyTorch refuses
it); in Paddle code they are not (Paddle takes that write). Keep this module to calls
whose every Rust callee should see the caller's dialect.
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._core import _caller_dialect  # (the rule in Rust)

Tensor = _core.Tensor

_SPLIT_SECTIONS = _core.split  # Paddle's: an int is a number of sections
_SPLIT_SIZES = Tensor.split  # PyTorch's: an int is a section size


def split(
    x: Any,
    num_or_sections: Any = None,
    axis: Any = 0,
    name: Any = None,
    *,
    split_size_or_sections: Any = None,
    dim: Any = None,
) -> Any:
    """Splits ``x`` along ``axis``/``dim``: Paddle's ``split(x, num_or_sections, axis)``
    (an int is a number of equal sections), or PyTorch's ``split(x,
    split_size_or_sections, dim)`` (an int is a section size) with PyTorch's keywords or in
    PyTorch code; a list gives the sections' sizes in both."""
    torch_kw = split_size_or_sections is not None or dim is not None
    if isinstance(x, Tensor) and not torch_kw and _caller_dialect(2) == "torch":
        return _SPLIT_SIZES(x, num_or_sections, axis)
    return _SPLIT_SECTIONS(
        x, num_or_sections, axis, name, split_size_or_sections=split_size_or_sections, dim=dim
    )


def _split_method(
    self: Tensor,
    split_size_or_sections: Any = None,
    *axis_or_dim: Any,
    dim: Any = None,
    num_or_sections: Any = None,
    axis: Any = None,
) -> Any:
    """Splits along ``dim``/``axis``: PyTorch's ``x.split(split_size_or_sections, dim)``
    (an int is a section size), or Paddle's ``x.split(num_or_sections, axis)`` (an int is a
    number of equal sections) with Paddle's keywords or in Paddle code, where a positional
    second argument is Paddle's ``axis``."""
    if len(axis_or_dim) > 2:  # (Paddle's third positional argument is its unused name)
        raise TypeError(f"split() takes at most 3 positional arguments, got {len(axis_or_dim) + 1}")
    pos = axis_or_dim[0] if axis_or_dim else None
    if pos is not None and (dim is not None or axis is not None):
        raise TypeError("split(): got the dimension both positionally and as dim= / axis=")
    paddle_kw = num_or_sections is not None or axis is not None
    if paddle_kw and dim is not None:
        raise TypeError(
            "split(): got PyTorch's dim= with Paddle's num_or_sections= / axis=; use "
            "one peer's keywords"
        )
    if dim is None and (paddle_kw or _caller_dialect(2) == "paddle"):
        if num_or_sections is None:
            num_or_sections = split_size_or_sections
        elif split_size_or_sections is not None:
            raise TypeError("split(): got the sections both positionally and as num_or_sections=")
        ax = axis if axis is not None else pos
        return _SPLIT_SECTIONS(self, num_or_sections, 0 if ax is None else ax)
    d = dim if dim is not None else pos
    return _SPLIT_SIZES(self, split_size_or_sections, 0 if d is None else d)


__all__ = ["split"]
