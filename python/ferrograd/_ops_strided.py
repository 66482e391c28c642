"""``as_strided`` in both dialects: a view of a tensor's memory with any sizes and
strides, over the Rust core ``Tensor._as_strided`` (src/autograd/ops/as_strided.rs).

Sizes, strides and the offset count from the start of the input's memory, not from the
input's own first element or layout (so ``x[1:].as_strided((2,), (1,), 0)`` reads
``x[0]``). The result shares memory and version counter with the input, follows the
view rules of in-place ops, and is differentiable (double backward included).

The dialects differ in the offset: PyTorch's ``storage_offset`` counts elements and
defaults to the input's own offset (``x.storage_offset()``); Paddle's ``offset`` counts
bytes (it must be a multiple of the element size) and defaults to 0, the memory's start.
The keywords always mean their peer's unit; a positional offset is read in the calling
module's dialect (elements outside Paddle code).
"""

from __future__ import annotations

import operator
from typing import Any, Optional

from . import _core
from ._dialect import caller_dialect

Tensor = _core.Tensor

__all__ = ["as_strided"]


def _ints(v: Any, what: str) -> list[int]:
    if not isinstance(v, (list, tuple)):
        raise TypeError(
            f"as_strided(): argument '{what}' must be a tuple or list of ints, got "
            f"{type(v).__name__}"
        )
    out = []
    for i, e in enumerate(v):
        try:
            out.append(operator.index(e))
        except TypeError:
            raise TypeError(
                f"as_strided(): argument '{what}' must be a tuple or list of ints, but found "
                f"an element of type {type(e).__name__} at position {i}"
            ) from None
    return out


def _offset(x: Tensor, elements: Any, nbytes: Any, dialect: Optional[str]) -> Optional[int]:
    """The offset in elements (None: the input's own), from whichever spelling was given."""
    if elements is not None and nbytes is not None:
        raise TypeError("as_strided(): got both storage_offset= (elements) and offset= (bytes)")
    if elements is not None:
        try:
            return operator.index(elements)
        except TypeError:
            raise TypeError(
                "as_strided(): argument 'storage_offset' must be an int, not "
                f"{type(elements).__name__}"
            ) from None
    if nbytes is None:
        return 0 if dialect == "paddle" else None
    try:
        b = operator.index(nbytes)
    except TypeError:
        raise TypeError(
            f"as_strided(): argument 'offset' must be an int, not {type(nbytes).__name__}"
        ) from None
    item = x.element_size()
    if b % item:
        raise ValueError(
            f"as_strided: offset {b} is in bytes (Paddle's unit) and must be a multiple of "
            f"the element size {item} of {x.dtype}"
        )
    return b // item


def _strided(
    x: Any, size: Any, stride: Any, elements: Any, nbytes: Any, dialect: Optional[str]
) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"as_strided(): expects a Tensor input, got {type(x).__name__}")
    if size is None or stride is None:
        raise TypeError("as_strided() missing required arguments: size (shape) and stride")
    sizes, strides = _ints(size, "size"), _ints(stride, "stride")
    return x._as_strided(sizes, strides, _offset(x, elements, nbytes, dialect))


def _positional(args: tuple[Any, ...], storage_offset: Any, offset: Any, d: Optional[str]) -> Any:
    """``(storage_offset, offset)`` with the positional fourth argument (and Paddle's
    ``name`` after it) read in the dialect: bytes in Paddle code, elements elsewhere."""
    if len(args) > 2:
        raise TypeError(
            f"as_strided() takes at most 5 positional arguments ({len(args) + 3} given)"
        )
    if args and (storage_offset is not None or offset is not None):
        raise TypeError("as_strided() got the offset both positionally and by keyword")
    if args and args[0] is not None:
        if d == "paddle":
            return storage_offset, args[0]
        return args[0], offset
    return storage_offset, offset


def as_strided(
    input: Any = None,
    size: Any = None,
    stride: Any = None,
    *args: Any,
    storage_offset: Any = None,
    name: Optional[str] = None,
    x: Any = None,
    shape: Any = None,
    offset: Any = None,
) -> Tensor:
    """``torch.as_strided(input, size, stride, storage_offset=None)`` /
    ``paddle.as_strided(x, shape, stride, offset=0)``: the view of ``input``'s memory
    with sizes ``size`` and strides ``stride`` (in elements, from the memory's start;
    negative strides refused, zero strides allowed), its first element at
    ``storage_offset`` elements (default: where ``input``'s is) or Paddle's ``offset``
    bytes (default 0). A positional fourth argument is read in the calling module's
    dialect. A view reaching past the memory is an error. Differentiable."""
    del name
    d = caller_dialect(2)
    elements, nbytes = _positional(args, storage_offset, offset, d)
    src = x if input is None else input
    return _strided(src, size if shape is None else shape, stride, elements, nbytes, d)


def _method(
    self: Tensor,
    size: Any = None,
    stride: Any = None,
    *args: Any,
    storage_offset: Any = None,
    name: Optional[str] = None,
    shape: Any = None,
    offset: Any = None,
) -> Tensor:
    del name
    d = caller_dialect(2)
    elements, nbytes = _positional(args, storage_offset, offset, d)
    return _strided(self, size if shape is None else shape, stride, elements, nbytes, d)


_method.__name__ = _method.__qualname__ = "as_strided"
_method.__doc__ = (
    "``x.as_strided(size, stride, storage_offset=None)`` (Paddle: ``(shape, stride, "
    "offset=0)``, offset in bytes): the view of ``x``'s memory with those sizes and "
    "strides; see ``ferrograd.as_strided``."
)


def install() -> None:
    """Adds ``Tensor.as_strided``."""
    Tensor.as_strided = _method  # type: ignore[method-assign]
