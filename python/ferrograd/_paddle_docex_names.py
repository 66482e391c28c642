"""Paddle names its own docstring examples call that ferrograd lacked (session 41):
``floor_mod`` (``remainder``), ``reduce_as``, ``as_complex`` / ``as_real``
(``view_as_complex`` / ``view_as_real``), ``eigvalsh`` at the top level, ``is_empty``, and
the methods ``bitwise_invert`` / ``bucketize``."""

from __future__ import annotations

from typing import Any

from . import _core

Tensor = _core.Tensor


def floor_mod(x: Any, y: Any, name: Any = None) -> Tensor:
    """Paddle's ``floor_mod``: ``remainder`` (the sign of ``y``), as ``paddle.mod``."""
    return x.remainder(y)


def reduce_as(x: Tensor, target: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``reduce_as``: ``x`` summed down to ``target``'s shape, which must
    broadcast to ``x``'s (leading dimensions ``x`` has more are summed away; a size-1
    dimension of ``target`` sums that dimension, keeping it)."""
    xs, ts = list(x.shape), list(target.shape)
    lead = len(xs) - len(ts)
    if lead < 0 or any(t not in (1, s) for t, s in zip(ts, xs[lead:])):
        raise ValueError(
            f"reduce_as: target shape {ts} does not broadcast to x's shape {xs}; each of "
            "its dimensions must be 1 or equal x's trailing one"
        )
    out = x.sum(axis=list(range(lead))) if lead else x
    keep = [d for d, (t, s) in enumerate(zip(ts, xs[lead:])) if t == 1 and s != 1]
    out = out.sum(axis=keep, keepdim=True) if keep else out
    # a bool or small int x sums to int64 (Paddle: the input's dtype) ...
    return out.astype(x.dtype) if out.dtype != x.dtype else out


def as_complex(x: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``as_complex``: a ``[..., 2]`` float tensor read as complex
    (``view_as_complex``)."""
    from ._ops_special_more import view_as_complex

    return view_as_complex(x)


def as_real(x: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``as_real``: a complex tensor as ``[..., 2]`` (real, imaginary) floats
    (``view_as_real``)."""
    from ._ops_special_more import view_as_real

    return view_as_real(x)


def eigvalsh(x: Tensor, UPLO: str = "L", name: Any = None) -> Tensor:  # noqa: N803
    """Paddle's top-level ``eigvalsh``: ``linalg.eigvalsh`` (ascending eigenvalues of a
    symmetric / Hermitian matrix, read from the ``UPLO`` triangle)."""
    from .linalg import eigvalsh as _eigvalsh

    return _eigvalsh(x, UPLO)


def is_empty(x: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``is_empty``: a 0-d bool tensor, True when ``x`` has no elements."""
    return _core.tensor(x.size == 0)


def _bitwise_invert(self: Tensor, out: Any = None, name: Any = None) -> Tensor:
    """``bitwise_invert()``: Paddle's alias of ``bitwise_not`` (``~x``)."""
    if out is not None:
        raise TypeError("bitwise_invert: out= is not supported; assign the result instead")
    return self.bitwise_not()


def _bucketize(
    self: Tensor,
    sorted_sequence: Tensor,
    out_int32: bool = False,
    right: bool = False,
    name: Any = None,
) -> Tensor:
    """``x.bucketize(sorted_sequence)``: the bucket of each element among the 1-D
    ``sorted_sequence`` (``paddle.bucketize``)."""
    from . import bucketize

    return bucketize(self, sorted_sequence, out_int32=out_int32, right=right)


def install_tensor_methods() -> None:
    """Adds ``bitwise_invert`` and ``bucketize`` to ``Tensor`` (the stub lists them)."""
    Tensor.bitwise_invert = _bitwise_invert  # type: ignore[method-assign]
    Tensor.bucketize = _bucketize  # type: ignore[method-assign]


__all__ = ["floor_mod", "reduce_as", "as_complex", "as_real", "eigvalsh", "is_empty"]
