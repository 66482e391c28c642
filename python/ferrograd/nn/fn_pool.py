"""Pooling of ``ferrograd.nn.functional``: ``max_pool1d/2d/3d`` (``return_indices`` /
Paddle's ``return_mask``), ``avg_pool1d/2d/3d`` (``ceil_mode``, ``count_include_pad`` /
Paddle's ``exclusive``, ``divisor_override``), ``adaptive_avg_pool1d/2d/3d``,
``adaptive_max_pool1d/2d/3d``, ``max_unpool1d/2d/3d``.

Max pooling finds each window's largest element in a Rust kernel (no gradient) and reads
the values with a differentiable take, so its gradient (a put-add) and second derivative
(a take) are exact, the gradient going to one element per window as in both peers.
Average pooling is a sum over ``unfold`` (im2col, Rust) divided by the window counts;
adaptive average pooling is a product with averaging matrices. All are differentiable to
any order.

Positional arguments follow PyTorch; Paddle's differing ones are taken by keyword
(``return_mask=``, ``exclusive=``, ``data_format=``). A bool in ``max_pool``'s
``dilation`` place is Paddle's positional ``return_mask``. Note the peers' defaults
differ for ``avg_pool`` with padding: PyTorch counts the padding in the divisor
(``count_include_pad=True``), Paddle does not (``exclusive=True``); the functions here
follow PyTorch unless ``exclusive=`` is given, ``nn.AvgPool2D`` follows Paddle.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from .._dialect import caller_dialect
from . import _window as W

Tensor = _core.Tensor


def _prepare(x: Tensor, nd: int, op: str, data_format: Any) -> Tuple[Tensor, bool, bool]:
    unbatched = W.check_input(x, nd, op)
    last = W.is_channels_last(data_format, nd, op)
    if unbatched:
        x = x.unsqueeze(0)
    if last:
        x = W.to_channels_first(x, nd)
    return x, unbatched, last


def _finish(out: Tensor, nd: int, unbatched: bool, last: bool) -> Tensor:
    if last:
        out = W.to_channels_last(out, nd)
    return out.squeeze(0) if unbatched else out


def _geometry(
    x: Tensor,
    nd: int,
    op: str,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    last: bool,
) -> Tuple[List[int], List[int], List[int], List[int], List[int], List[int]]:
    """kernel, stride, dilation, pads before/after (after incl. ceil mode's extra), outs."""
    k = W.ints(kernel_size, nd, "kernel_size", op)
    st = k if stride is None else W.ints(stride, nd, "stride", op)
    dl = W.ints(dilation, nd, "dilation", op)
    spatial = list(x.shape[2:])
    lo, hi = W.padding(padding, nd, op, spatial, k, st, dl, last)
    for a, b, kk, d in zip(lo, hi, k, dl):
        if max(a, b) > ((kk - 1) * d + 1) // 2:
            raise ValueError(
                f"{op}: padding {max(a, b)} must be at most half the (dilated) kernel size "
                f"{(kk - 1) * d + 1}, got padding={padding!r}, kernel_size={kernel_size!r}"
            )
    outs, hi2 = [], []
    for s, kk, t, d, a, b in zip(spatial, k, st, dl, lo, hi):
        # PyTorch's pooling_output_shape (Pool.h): floor division (div_rtn), so with
        # ceil_mode a padded input shorter than the kernel still has one window, clipped
        # at the end; the last window must start inside the input or the left padding
        span = s + a + b - d * (kk - 1) - 1
        o = (span + (t - 1 if ceil_mode else 0)) // t + 1
        if ceil_mode and (o - 1) * t >= s + a:
            o -= 1
        if o < 1:
            raise ValueError(
                f"{op}: input size {spatial} (padded) is smaller than the kernel {k} "
                f"(dilation {dl}) and leaves no output window (stride {st}, "
                f"ceil_mode={ceil_mode}); use a smaller kernel_size or more padding"
            )
        outs.append(o)
        hi2.append(b + max(0, (o - 1) * t + d * (kk - 1) + 1 - (s + a + b)))
    return k, st, dl, lo, hi2, outs


def _max_pool(
    nd: int,
    op: str,
    x: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    return_indices: bool,
    return_mask: Optional[bool],
    data_format: Any,
) -> Union[Tensor, Tuple[Tensor, Tensor]]:
    if isinstance(dilation, bool):  # Paddle's positional return_mask
        dilation, return_mask = 1, dilation
    if isinstance(return_indices, str):  # Paddle's positional data_format
        return_indices, data_format = False, return_indices
    want = bool(return_indices) or bool(return_mask)
    x, unbatched, last = _prepare(x, nd, op, data_format)
    k, st, dl, lo, hi, _ = _geometry(
        x, nd, op, kernel_size, stride, padding, dilation, ceil_mode, last
    )
    idx = _core._max_pool_indices(x, k, st, dl, lo, hi)
    out = _finish(_core._take_in_planes(x, idx), nd, unbatched, last)
    if want:
        return out, _finish(idx, nd, unbatched, last)
    return out


def _avg_pool(
    nd: int,
    op: str,
    x: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Optional[int],
    exclusive: Optional[bool],
    data_format: Any,
) -> Tensor:
    if exclusive is not None:
        count_include_pad = not exclusive
    if divisor_override is not None and (
        isinstance(divisor_override, bool) or int(divisor_override) <= 0
    ):
        raise ValueError(f"{op}: divisor_override must be a positive int, got {divisor_override!r}")
    x, unbatched, last = _prepare(x, nd, op, data_format)
    spatial = list(x.shape[2:])
    k, st, dl, lo, hi2, outs = _geometry(
        x, nd, op, kernel_size, stride, padding, 1, ceil_mode, last
    )
    _, hi = W.padding(padding, nd, op, spatial, k, st, dl, last)
    n, c = x.shape[0], x.shape[1]
    cols = _core._unfold(x, k, st, dl, lo, hi2)
    total = cols.reshape([n, c, math.prod(k), cols.shape[2]]).sum(2).reshape([n, c] + outs)
    if divisor_override is not None:
        return _finish(total / float(divisor_override), nd, unbatched, last)
    div = np.ones(outs, dtype=np.float64)
    for d, (s, kk, t, a, b, o) in enumerate(zip(spatial, k, st, lo, hi, outs)):
        start = np.arange(o) * t - a
        end = np.minimum(start + kk, s + b)
        counts = end - start if count_include_pad else np.minimum(end, s) - np.maximum(start, 0)
        shape = [1] * nd
        shape[d] = o
        div = div * counts.reshape(shape)
    inv = _core.tensor(1.0 / div, dtype=x.dtype)
    return _finish(total * inv, nd, unbatched, last)


def _adaptive_bounds(size: int, out: int) -> List[Tuple[int, int]]:
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _output_size(output_size: Any, spatial: Sequence[int], nd: int, op: str) -> List[int]:
    raw = [output_size] * nd if isinstance(output_size, int) else list(output_size)
    if len(raw) == 1:
        raw = raw * nd
    if len(raw) != nd:
        raise ValueError(f"{op}: output_size needs {nd} value(s), got {output_size!r}")
    outs = [s if v is None else int(v) for v, s in zip(raw, spatial)]
    if any(o <= 0 for o in outs):
        raise ValueError(f"{op}: output_size must be positive, got {output_size!r}")
    if any(s == 0 for s in spatial):
        raise ValueError(f"{op}: the input's spatial size {list(spatial)} is empty")
    return outs


def _adaptive_avg(nd: int, op: str, x: Tensor, output_size: Any, data_format: Any) -> Tensor:
    x, unbatched, last = _prepare(x, nd, op, data_format)
    spatial = list(x.shape[2:])
    outs = _output_size(output_size, spatial, nd, op)
    n, c = x.shape[0], x.shape[1]
    y = x
    for d in range(nd):
        s, o = spatial[d], outs[d]
        if s == o:
            continue
        a = np.zeros((o, s))
        for i, (lo, hi) in enumerate(_adaptive_bounds(s, o)):
            a[i, lo:hi] = 1.0 / (hi - lo)
        mat = _core.tensor(a, dtype=x.dtype)
        # average along dim d: [o, s] @ [..., s, rest] with the later dims flattened
        lead = list(y.shape[: 2 + d])
        rest = list(y.shape[3 + d :])
        y = mat.matmul(y.reshape([n * c] + lead[2:] + [s, math.prod(rest)]))
        y = y.reshape(lead + [o] + rest)
    return _finish(y, nd, unbatched, last)


def _adaptive_max(
    nd: int,
    op: str,
    x: Tensor,
    output_size: Any,
    return_indices: bool,
    return_mask: Optional[bool],
    data_format: Any,
) -> Union[Tensor, Tuple[Tensor, Tensor]]:
    want = bool(return_indices) or bool(return_mask)
    x, unbatched, last = _prepare(x, nd, op, data_format)
    spatial = list(x.shape[2:])
    outs = _output_size(output_size, spatial, nd, op)
    if all(s % o == 0 for s, o in zip(spatial, outs)):
        k = [s // o for s, o in zip(spatial, outs)]
        idx = _core._max_pool_indices(x, k, k, [1] * nd, [0] * nd, [0] * nd)
    else:
        # windows of varying size: positions found per output cell over all planes at once
        xs = x.detach().numpy().reshape([x.shape[0] * x.shape[1]] + spatial)
        pos = np.arange(math.prod(spatial)).reshape(spatial)
        ids = np.zeros([xs.shape[0]] + outs, dtype=np.int64)
        for cell in np.ndindex(*outs):
            sl = tuple(slice(*_adaptive_bounds(s, o)[i]) for s, o, i in zip(spatial, outs, cell))
            win = xs[(slice(None),) + sl].reshape(xs.shape[0], -1)
            best = win.argmax(1)  # the first maximum; NumPy's argmax picks the first NaN
            ids[(slice(None),) + cell] = pos[sl].reshape(-1)[best]
        idx = _core.tensor(ids.reshape([x.shape[0], x.shape[1]] + outs), dtype="int64")
    out = _finish(_core._take_in_planes(x, idx), nd, unbatched, last)
    if want:
        return out, _finish(idx, nd, unbatched, last)
    return out


def _max_unpool(
    nd: int,
    op: str,
    x: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    output_size: Any,
    data_format: Any,
) -> Tensor:
    x, unbatched, last = _prepare(x, nd, op, data_format)
    if not isinstance(indices, Tensor):
        raise TypeError(f"{op}: indices must be a Tensor, got {type(indices).__name__}")
    if unbatched:
        indices = indices.unsqueeze(0)
    if last:
        indices = W.to_channels_first(indices, nd)
    k = W.ints(kernel_size, nd, "kernel_size", op)
    st = k if stride is None else W.ints(stride, nd, "stride", op)
    pad = W.ints(padding, nd, "padding", op, minimum=0)
    spatial = list(x.shape[2:])
    if output_size is None:
        size = [(s - 1) * t - 2 * p + kk for s, t, p, kk in zip(spatial, st, pad, k)]
    else:
        raw = [output_size] * nd if isinstance(output_size, int) else list(output_size)
        size = [int(v) for v in raw][-nd:]
        if len(size) != nd:
            raise ValueError(f"{op}: output_size needs {nd} value(s), got {output_size!r}")
    if any(s <= 0 for s in size):
        raise ValueError(f"{op}: the output size {size} would be empty")
    return _finish(_core._unpool_put(x, indices, size), nd, unbatched, last)


# The public functions: one factory per family, instantiated for 1, 2 and 3 spatial dims
# (they differ only in the dimension count and the default data_format).


def _max_pool_fn(nd: int) -> Any:
    first, last = W.LAYOUTS[nd]
    op = f"max_pool{nd}d"

    def max_pool(
        x: Tensor,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        return_indices: Any = False,
        *,
        return_mask: Optional[bool] = None,
        data_format: str = first,
        name: Optional[str] = None,
    ) -> Any:
        return _max_pool(
            nd, op, x, kernel_size, stride, padding, dilation, ceil_mode,
            return_indices, return_mask, data_format,
        )  # fmt: skip

    return W.named(
        max_pool,
        op,
        f"""{nd}-D max pooling of ``[N, C, *S]`` (``data_format="{last}"``: channels last);
    with ``return_indices=True`` (Paddle: ``return_mask=True``) also the int64 positions of
    the maxima within each ``[N, C]`` plane.""",
    )


def _avg_pool_fn(nd: int) -> Any:
    first, _ = W.LAYOUTS[nd]
    op = f"avg_pool{nd}d"

    def avg_pool(
        x: Tensor,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: Optional[bool] = None,
        divisor_override: Optional[int] = None,
        *,
        exclusive: Optional[bool] = None,
        data_format: str = first,
        name: Optional[str] = None,
    ) -> Tensor:
        if exclusive is None and caller_dialect() == "paddle":
            # Paddle's sixth parameter is ``exclusive`` (default True), torch's
            # ``count_include_pad`` (default True): opposite meanings, same position
            exclusive = True if count_include_pad is None else bool(count_include_pad)
        if count_include_pad is None:
            count_include_pad = True
        return _avg_pool(
            nd, op, x, kernel_size, stride, padding, ceil_mode,
            count_include_pad, divisor_override, exclusive, data_format,
        )  # fmt: skip

    return W.named(
        avg_pool,
        op,
        f"""{nd}-D average pooling; ``count_include_pad`` (PyTorch, default True) or
    ``exclusive`` (Paddle: True = padding not counted) choose the divisor near the border;
    in Paddle code the sixth positional argument is ``exclusive`` and defaults to True.""",
    )


def _adaptive_avg_fn(nd: int) -> Any:
    first, _ = W.LAYOUTS[nd]
    op = f"adaptive_avg_pool{nd}d"

    def adaptive_avg_pool(
        x: Tensor, output_size: Any, data_format: str = first, name: Optional[str] = None
    ) -> Tensor:
        return _adaptive_avg(nd, op, x, output_size, data_format)

    return W.named(
        adaptive_avg_pool,
        op,
        f"""{nd}-D adaptive average pooling to ``output_size`` (``None`` keeps a dim):
    output cell ``i`` averages input ``floor(i*S/out) .. ceil((i+1)*S/out)``.""",
    )


def _adaptive_max_fn(nd: int) -> Any:
    first, _ = W.LAYOUTS[nd]
    op = f"adaptive_max_pool{nd}d"

    def adaptive_max_pool(
        x: Tensor,
        output_size: Any,
        return_indices: bool = False,
        name: Optional[str] = None,
        *,
        return_mask: Optional[bool] = None,
        data_format: str = first,
    ) -> Any:
        return _adaptive_max(nd, op, x, output_size, return_indices, return_mask, data_format)

    return W.named(
        adaptive_max_pool,
        op,
        f"""{nd}-D adaptive max pooling to ``output_size`` (windows as in
    adaptive_avg_pool); ``return_indices`` / ``return_mask`` as in max_pool.""",
    )


def _max_unpool_fn(nd: int) -> Any:
    first, _ = W.LAYOUTS[nd]
    op = f"max_unpool{nd}d"

    def max_unpool(
        x: Tensor,
        indices: Tensor,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        output_size: Any = None,
        data_format: str = first,
        name: Optional[str] = None,
    ) -> Tensor:
        return _max_unpool(
            nd, op, x, indices, kernel_size, stride, padding, output_size, data_format
        )

    return W.named(
        max_unpool,
        op,
        f"""{nd}-D max unpooling: zeros of the output size with ``x`` written at
    ``indices`` (from max_pool with ``return_indices=True``).""",
    )


max_pool1d = _max_pool_fn(1)
max_pool2d = _max_pool_fn(2)
max_pool3d = _max_pool_fn(3)
avg_pool1d = _avg_pool_fn(1)
avg_pool2d = _avg_pool_fn(2)
avg_pool3d = _avg_pool_fn(3)
adaptive_avg_pool1d = _adaptive_avg_fn(1)
adaptive_avg_pool2d = _adaptive_avg_fn(2)
adaptive_avg_pool3d = _adaptive_avg_fn(3)
adaptive_max_pool1d = _adaptive_max_fn(1)
adaptive_max_pool2d = _adaptive_max_fn(2)
adaptive_max_pool3d = _adaptive_max_fn(3)
max_unpool1d = _max_unpool_fn(1)
max_unpool2d = _max_unpool_fn(2)
max_unpool3d = _max_unpool_fn(3)


__all__ = [
    "max_pool1d",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "max_unpool1d",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "max_unpool2d",
    "max_pool3d",
    "avg_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "max_unpool3d",
]
