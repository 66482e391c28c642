"""Paddle's graph message passing: ``send_u_recv``, ``send_ue_recv`` and ``send_uv``
(python/paddle/geometric/message_passing/send_recv.py; kernels in
paddle/phi/kernels/cpu/send_u_recv*.cc, send_ue_recv*.cc, send_uv*.cc).

Each edge ``e`` carries a message built from the source row ``x[src_index[e]]`` (and, for
``send_ue_recv``, the edge row ``y[e]``; for ``send_uv``, the destination row
``y[dst_index[e]]``). ``send_*_recv`` reduce the messages into the rows ``dst_index``;
``send_uv`` returns them. Rows that receive nothing are 0. The output has
``out_size`` rows when ``out_size > 0``, else ``x.shape[0]``.

As in Paddle, ``message_op="sub"`` sends ``x + (-y)`` and ``"div"`` sends
``x * (1 / (y + 1e-12))`` (send_recv.py rewrites both before the kernel), a 1-D ``x`` or
``y`` is read as one column, and the feature dims of ``x`` and ``y`` broadcast
(right-aligned) after the row dim. Gradients are the chain rule through these messages,
with Paddle's tie rule for ``max`` / ``min`` (see ``_reduce.py``).
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from . import _checks
from ._reduce import reduce_rows

Tensor = _core.Tensor

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]

_REDUCE_OPS = ("sum", "mean", "max", "min")
_MESSAGE_OPS = ("add", "sub", "mul", "div")


def _check_reduce(reduce_op: Any) -> str:
    if reduce_op not in _REDUCE_OPS:
        raise ValueError(
            f"reduce_op should be `sum`, `mean`, `max` or `min`, but received {reduce_op!r}"
        )
    return str(reduce_op)


def _check_message(message_op: Any) -> str:
    if message_op not in _MESSAGE_OPS:
        raise ValueError(
            f"message_op should be `add`, `sub`, `mul`, `div`, but received {message_op!r}"
        )
    return str(message_op)


def _edges(src_index: Any, dst_index: Any, op: str) -> tuple[Tensor, Tensor]:
    src = _checks.index_vector(src_index, "src_index", op)
    dst = _checks.index_vector(dst_index, "dst_index", op)
    _checks.same_length(src, dst, ("src_index", "dst_index"), op)
    return src, dst


def _reshape_lhs_rhs(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Paddle's ``reshape_lhs_rhs``: a 1-D operand becomes one column, and the operand of
    fewer dims gets size-1 dims after its row dim."""
    if x.ndim == 1:
        x = x.reshape([-1, 1])
    if y.ndim == 1:
        y = y.reshape([-1, 1])
    if x.ndim != y.ndim:
        nd = max(x.ndim, y.ndim)
        x = x.reshape([x.shape[0]] + [1] * (nd - x.ndim) + list(x.shape[1:]))
        y = y.reshape([y.shape[0]] + [1] * (nd - y.ndim) + list(y.shape[1:]))
    return x, y


def _feature_shape(x: Tensor, y: Tensor, op: str) -> list[int]:
    """The broadcast of the two operands' feature dims (ValueError if they do not)."""
    out = []
    for a, b in zip(x.shape[1:], y.shape[1:]):
        if a != b and 1 not in (a, b):
            raise ValueError(
                f"{op}: the feature dims of x {list(x.shape)} and y {list(y.shape)} do "
                f"not broadcast (after the row dim)"
            )
        out.append(max(a, b) if 0 not in (a, b) else 0)
    return out


def _operands(x: Any, y: Any, message_op: str, op: str) -> tuple[Tensor, Tensor, str]:
    """``x`` and ``y`` checked and reshaped, with ``sub`` / ``div`` rewritten as Paddle
    does: ``("add", -y)`` and ``("mul", 1 / (y + 1e-12))``."""
    x = _checks.value_tensor(x, "x", op)
    y = _checks.value_tensor(y, "y", op)
    if x.dtype != y.dtype:
        raise TypeError(f"{op}: x and y must have one dtype, got {x.dtype} and {y.dtype}")
    if message_op == "div" and not x.is_floating_point():
        raise TypeError(
            f"{op}: message_op='div' needs floating-point x and y (Paddle sends "
            f"x * (1 / (y + 1e-12))), got {x.dtype}"
        )
    x, y = _reshape_lhs_rhs(x, y)
    _feature_shape(x, y, op)
    if message_op == "sub":
        return x, -y, "add"
    if message_op == "div":
        return x, 1.0 / (y + 1e-12), "mul"
    return x, y, message_op


def _combine(a: Tensor, b: Tensor, message_op: str) -> Tensor:
    return a + b if message_op == "add" else a * b


def send_u_recv(
    x: Any,
    src_index: Any,
    dst_index: Any,
    reduce_op: str = "sum",
    out_size: Any = None,
    name: Optional[str] = None,
) -> Tensor:
    """Paddle's ``paddle.geometric.send_u_recv``: gathers ``x[src_index]`` and reduces the
    rows into ``out[dst_index]`` with ``reduce_op`` (``sum`` / ``mean`` / ``max`` /
    ``min``); rows receiving nothing are 0.

    ``x``: float16/bfloat16/float32/float64/int32/int64, at least 1-D. ``src_index``,
    ``dst_index``: int32/int64, ``[E]`` or ``[E, 1]``, one length. ``out_size`` (int or
    one-element int tensor): the output's row count when above 0, else ``x.shape[0]``;
    every ``dst_index`` must be below it. Returns ``x``'s dtype, shape
    ``[rows, *x.shape[1:]]``."""
    op = "send_u_recv"
    reduce_op = _check_reduce(reduce_op)
    x = _checks.value_tensor(x, "x", op)
    src, dst = _edges(src_index, dst_index, op)
    n = _checks.out_rows(out_size, x.shape[0], op)
    _checks.check_range(src, x.shape[0], "src_index", op, "the rows of x")
    _checks.check_range(dst, n, "dst_index", op, "the output rows; raise out_size")
    return reduce_rows(x.index_select(0, src), dst, n, reduce_op)


def send_ue_recv(
    x: Any,
    y: Any,
    src_index: Any,
    dst_index: Any,
    message_op: str = "add",
    reduce_op: str = "sum",
    out_size: Any = None,
    name: Optional[str] = None,
) -> Tensor:
    """Paddle's ``paddle.geometric.send_ue_recv``: the message of edge ``e`` is
    ``x[src_index[e]] <message_op> y[e]`` (``add`` / ``sub`` / ``mul`` / ``div``), reduced
    into ``out[dst_index[e]]`` with ``reduce_op``; rows receiving nothing are 0.

    ``y`` has one row per edge (``y.shape[0] == len(src_index)``); its feature dims
    broadcast with ``x``'s. A 1-D ``x`` or ``y`` is one column, so the result is then 2-D.
    ``out_size`` as in ``send_u_recv``. Returns shape ``[rows, *broadcast features]``."""
    op = "send_ue_recv"
    message_op = _check_message(message_op)
    reduce_op = _check_reduce(reduce_op)
    x, y, mop = _operands(x, y, message_op, op)
    src, dst = _edges(src_index, dst_index, op)
    if y.shape[0] != src.shape[0]:
        raise ValueError(
            f"{op}: y must have one row per edge: expected {src.shape[0]} rows (the "
            f"length of src_index), got {y.shape[0]}"
        )
    n = _checks.out_rows(out_size, x.shape[0], op)
    _checks.check_range(src, x.shape[0], "src_index", op, "the rows of x")
    _checks.check_range(dst, n, "dst_index", op, "the output rows; raise out_size")
    return reduce_rows(_combine(x.index_select(0, src), y, mop), dst, n, reduce_op)


def send_uv(
    x: Any,
    y: Any,
    src_index: Any,
    dst_index: Any,
    message_op: str = "add",
    name: Optional[str] = None,
) -> Tensor:
    """Paddle's ``paddle.geometric.send_uv``: one row per edge,
    ``x[src_index[e]] <message_op> y[dst_index[e]]`` (``add`` / ``sub`` / ``mul`` /
    ``div``), the feature dims broadcast. A 1-D ``x`` or ``y`` is one column. Returns
    shape ``[E, *broadcast features]``."""
    op = "send_uv"
    message_op = _check_message(message_op)
    x, y, mop = _operands(x, y, message_op, op)
    src, dst = _edges(src_index, dst_index, op)
    _checks.check_range(src, x.shape[0], "src_index", op, "the rows of x")
    _checks.check_range(dst, y.shape[0], "dst_index", op, "the rows of y")
    return _combine(x.index_select(0, src), y.index_select(0, dst), mop)
