"""Paddle names session 42's count found missing: ``Tensor`` methods listed in Paddle 3's
``python/paddle/tensor/__init__.py`` ``tensor_method_func`` whose functions ferrograd
already has (``x.isin(y)``, ``x.floor_mod(y)``, ``x.rank()``, ``x.atleast_2d()`` ...), and
``paddle.bitwise_invert`` / ``bitwise_invert_`` (Paddle 3's aliases of ``bitwise_not``).

Paddle binds each name in ``tensor_method_func`` to the ``Tensor`` class as the function
itself (``python/paddle/base/dygraph/math_op_patch.py``), so ``x.name(*args)`` is
``paddle.name(x, *args)``; the methods here do the same, looking the function up at call
time so that every wrapper ferrograd puts on it applies.
"""

from __future__ import annotations

from typing import Any

from . import _core

Tensor = _core.Tensor

# tensor_method_func names ferrograd has as functions but not yet as methods. Left out on
# purpose: those whose first argument is a list (concat, stack, block_diag, add_n,
# multiplex, broadcast_tensors, broadcast_shape), static-graph ones (create_parameter,
# create_tensor), the linear-algebra wrappers (owned by the linalg helper), slicing
# (slice, strided_slice) and the GPU sampler top_p_sampling.
METHOD_NAMES = (
    "floor_mod",
    "isin",
    "equal_all",
    "is_empty",
    "is_tensor",
    "tensordot",
    "index_sample",
    "rank",
    "as_complex",
    "as_real",
    "trapezoid",
    "cumulative_trapezoid",
    "polar",
    "vander",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "combinations",
    "reduce_as",
    "increment",
    "cdist",
    "histogram_bin_edges",
    "histogramdd",
    "where_",
    "scatter_nd",
    "bitwise_invert_",
)


def bitwise_invert(x: Tensor, out: Any = None, name: Any = None) -> Tensor:
    """``paddle.bitwise_invert(x)``: Paddle 3's alias of ``bitwise_not`` (``~x``)."""
    from . import bitwise_not

    if out is not None:
        raise TypeError("bitwise_invert: out= is not supported; assign the result instead")
    return bitwise_not(x)


def bitwise_invert_(x: Tensor, name: Any = None) -> Tensor:
    """``paddle.bitwise_invert_(x)``: ``~x`` written into ``x`` (returns ``x``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"bitwise_invert_: expected a Tensor, got {type(x).__name__}")
    return x.bitwise_not_()


def _method(fname: str) -> Any:
    """``x.fname(*args, **kwargs)`` as ``ferrograd.fname(x, *args, **kwargs)``."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        import ferrograd

        return getattr(ferrograd, fname)(self, *args, **kwargs)

    method.__name__ = fname
    method.__qualname__ = f"Tensor.{fname}"
    method.__doc__ = f"``x.{fname}(...)`` is ``paddle.{fname}(x, ...)`` (Paddle's Tensor method)."
    return method


def install_tensor_methods() -> None:
    """Adds the methods of ``METHOD_NAMES`` to ``Tensor`` where it has none of that name."""
    for fname in METHOD_NAMES:
        if not hasattr(Tensor, fname):
            setattr(Tensor, fname, _method(fname))


__all__ = ["bitwise_invert", "bitwise_invert_"]
