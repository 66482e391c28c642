"""Convolutions of ``ferrograd.nn.functional``: ``conv1d/2d/3d`` and
``conv_transpose1d/2d/3d`` (both dialects' arguments), plus torch's ``unfold``/``fold``.

A convolution is one Rust op (``_core._conv``: per-sample im2col + the project's gemm,
or a direct kernel for depthwise / few channels per group), its three gradients
computed in one backward node; with ``create_graph=True`` that backward differentiates
``weight @ unfold(x)`` instead, so gradients of every order exist (gradgradcheck
passes). A transposed convolution is ``fold(weight.T @ x)``, composed from the
differentiable ``unfold``/``fold`` (im2col/col2im) pair and the matrix product.
Weights use the peers' layouts: ``[out, in/groups, *k]`` for a convolution,
``[in, out/groups, *k]`` for a transposed one.
"""

from __future__ import annotations

from typing import Any, List, Optional

from .. import _core
from .._dialect import caller_dialect
from ..amp.auto_cast import conv_autocast
from . import _window as W

Tensor = _core.Tensor


def _check_weight(x: Tensor, weight: Any, nd: int, groups: int, op: str, transposed: bool) -> None:
    if not isinstance(weight, Tensor):
        raise TypeError(f"{op}: weight must be a Tensor, got {type(weight).__name__}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{op}: groups must be a positive int, got {groups!r}")
    layout = "[in_channels, out_channels/groups" if transposed else "[out_channels, in/groups"
    if weight.ndim != nd + 2:
        raise ValueError(
            f"{op}: weight must be {nd + 2}-D {layout}, *kernel], got shape {list(weight.shape)}"
        )
    c = x.shape[1]
    if transposed:
        ok = weight.shape[0] == c and c % groups == 0
        want = f"weight.shape[0] == {c} input channels, divisible by groups={groups}"
    else:
        ok = c == weight.shape[1] * groups and weight.shape[0] % groups == 0
        want = (
            f"input channels {c} == weight.shape[1] * groups = {weight.shape[1]} * {groups}, "
            f"and out_channels {weight.shape[0]} divisible by groups"
        )
    if not ok:
        raise ValueError(
            f"{op}: input {list(x.shape)} and weight {list(weight.shape)} do not match: "
            f"needs {want}"
        )
    if weight.dtype != x.dtype:
        raise TypeError(
            f"{op}: input ({x.dtype}) and weight ({weight.dtype}) must have the same dtype"
        )


def _add_bias(out: Tensor, bias: Optional[Tensor], channels: int, nd: int, op: str) -> Tensor:
    if bias is None:
        return out
    if not isinstance(bias, Tensor) or list(bias.shape) != [channels]:
        shape = list(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(f"{op}: bias must be a Tensor of shape [{channels}], got {shape}")
    return out + bias.reshape([channels] + [1] * nd)


def _conv(
    nd: int,
    op: str,
    x: Tensor,
    weight: Tensor,
    bias: Optional[Tensor],
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
    data_format: Any,
) -> Tensor:
    unbatched = W.check_input(x, nd, op)
    last = W.is_channels_last(data_format, nd, op)
    if unbatched:
        x = x.unsqueeze(0)
    if last:
        x = W.to_channels_first(x, nd)
    _check_weight(x, weight, nd, groups, op, transposed=False)
    st = W.ints(stride, nd, "stride", op)
    dl = W.ints(dilation, nd, "dilation", op)
    k = list(weight.shape[2:])
    spatial = list(x.shape[2:])
    lo, hi = W.padding(padding, nd, op, spatial, k, st, dl, last)
    o = weight.shape[0]
    if bias is not None and (not isinstance(bias, Tensor) or list(bias.shape) != [o]):
        shape = list(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(f"{op}: bias must be a Tensor of shape [{o}], got {shape}")
    out = _core._conv(x, weight, bias, st, dl, lo, hi, groups)
    if last:
        out = W.to_channels_last(out, nd)
    return out.squeeze(0) if unbatched else out


def _widen(t: Any, low: str) -> Any:
    """An operand under autocast: rounded to ``low`` (the autocast dtype; a float32 or
    float64 operand too, as PyTorch casts it first), then as float32 for the fused kernel,
    which has no half path."""
    if not isinstance(t, Tensor) or not t.dtype.is_floating_point:
        return t
    return t.astype(getattr(_core, low)).astype(_core.float32)


def _conv_fn(nd: int) -> Any:
    first, last = W.LAYOUTS[nd]
    op = f"conv{nd}d"

    def conv(
        x: Tensor,
        weight: Tensor,
        bias: Optional[Tensor] = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        data_format: str = first,
        name: Optional[str] = None,
    ) -> Tensor:
        low, restore = conv_autocast()
        try:
            if low is not None:
                x, weight, bias = (_widen(t, low) for t in (x, weight, bias))
            out = _conv(nd, op, x, weight, bias, stride, padding, dilation, groups, data_format)
            return out if low is None else out.astype(getattr(_core, low))
        finally:
            if restore is not None:
                _core._set_autocast(*restore)

    return W.named(
        conv,
        op,
        f"""{nd}-D convolution (cross-correlation, as in both peers) of ``x`` ``[N, C, *S]``
    (``data_format="{last}"``: channels last) with ``weight`` ``[out, C/groups, *k]`` and
    optional ``bias`` ``[out]``. ``padding``: an int, ints per dim, Paddle's per-side
    lists, ``"same"`` or ``"valid"``.""",
    )


conv1d = _conv_fn(1)
conv2d = _conv_fn(2)
conv3d = _conv_fn(3)


def _conv_transpose(
    nd: int,
    op: str,
    x: Tensor,
    weight: Tensor,
    bias: Optional[Tensor],
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
    output_size: Any,
    data_format: Any,
) -> Tensor:
    if isinstance(output_size, str):  # Paddle's positional data_format
        output_size, data_format = None, output_size
    unbatched = W.check_input(x, nd, op)
    last = W.is_channels_last(data_format, nd, op)
    if unbatched:
        x = x.unsqueeze(0)
    if last:
        x = W.to_channels_first(x, nd)
    _check_weight(x, weight, nd, groups, op, transposed=True)
    st = W.ints(stride, nd, "stride", op)
    dl = W.ints(dilation, nd, "dilation", op)
    k = list(weight.shape[2:])
    spatial = list(x.shape[2:])
    if isinstance(padding, str):
        if padding.lower() != "valid":
            raise ValueError(f"{op}: padding must be 'valid', an int or ints, got {padding!r}")
        padding = 0
    lo, hi = W.padding(padding, nd, op, spatial, k, st, dl, last)
    base = [
        (s - 1) * t - a - b + d * (kk - 1) + 1
        for s, t, a, b, d, kk in zip(spatial, st, lo, hi, dl, k)
    ]
    if output_size is not None:
        raw = [output_size] * nd if isinstance(output_size, int) else list(output_size)
        size = [int(v) for v in raw][-nd:]  # torch accepts [N, C, *S] too
        if len(size) != nd:
            raise ValueError(f"{op}: output_size needs {nd} value(s), got {output_size!r}")
        extra = [s - b for s, b in zip(size, base)]
        if any(e < 0 or e >= max(t, d) for e, t, d in zip(extra, st, dl)):
            raise ValueError(
                f"{op}: output_size {list(size)} is not reachable from input size {spatial}: "
                f"it must lie in [{base}, base + max(stride, dilation))"
            )
    else:
        extra = W.ints(output_padding, nd, "output_padding", op, minimum=0)
        if any(e >= max(t, d) for e, t, d in zip(extra, st, dl)):
            raise ValueError(
                f"{op}: output_padding {extra} must be smaller than stride {st} or dilation {dl}"
            )
    outs = [b + e for b, e in zip(base, extra)]
    if any(s <= 0 for s in outs):
        raise ValueError(f"{op}: the output size {outs} would be empty; reduce padding")
    n, c = x.shape[0], x.shape[1]
    g = groups
    o = weight.shape[1] * g
    kk = 1
    for v in k:
        kk *= v
    length = 1
    for v in spatial:
        length *= v
    w = weight.reshape([g, c // g, o // g * kk]).transpose(1, 2)
    cols = w.matmul(x.reshape([n, g, c // g, length])).reshape([n, o * kk, length])
    hi2: List[int] = [b - e for b, e in zip(hi, extra)]
    out = _core._fold(cols, outs, k, st, dl, lo, hi2)
    out = _add_bias(out, bias, o, nd, op)
    if last:
        out = W.to_channels_last(out, nd)
    return out.squeeze(0) if unbatched else out


def _transpose_fn(nd: int) -> Any:
    first, _ = W.LAYOUTS[nd]
    op = f"conv_transpose{nd}d"

    def conv_transpose(
        x: Tensor,
        weight: Tensor,
        bias: Optional[Tensor] = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
        output_size: Any = None,
        data_format: str = first,
        name: Optional[str] = None,
    ) -> Tensor:
        return _conv_transpose(
            nd, op, x, weight, bias, stride, padding, output_padding, groups, dilation,
            output_size, data_format,
        )  # fmt: skip

    return W.named(
        conv_transpose,
        op,
        f"{nd}-D transposed convolution (the gradient of conv{nd}d with respect to its "
        f"input) of ``x`` ``[N, in, *S]`` with ``weight`` ``[in, out/groups, *k]``. "
        f"``output_padding`` (or ``output_size``) picks among the output sizes that "
        f"stride > 1 leaves open. Argument order as in PyTorch (Paddle's ``groups`` and "
        f"``dilation`` come after ``output_padding`` as well).",
    )


conv_transpose1d = _transpose_fn(1)
conv_transpose2d = _transpose_fn(2)
conv_transpose3d = _transpose_fn(3)
conv1d_transpose = conv_transpose1d  # Paddle's names
conv2d_transpose = conv_transpose2d
conv3d_transpose = conv_transpose3d


def unfold(
    x: Tensor,
    kernel_size: Any = None,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
    *,
    kernel_sizes: Any = None,
    strides: Any = None,
    paddings: Any = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Tensor:
    """im2col (torch ``F.unfold``; Paddle's plural keywords too): ``[N, C, H, W]`` →
    ``[N, C*kh*kw, L]``, one column per window position. Paddle's positional order is
    ``(x, kernel_sizes, strides, paddings, dilations)``: in Paddle code the third and fifth
    positional arguments are the strides and the dilations."""
    op = "unfold"
    if caller_dialect() == "paddle":
        dilation, stride = stride, dilation
    if kernel_sizes is not None:
        kernel_size = kernel_sizes
    stride = strides if strides is not None else stride
    padding = paddings if paddings is not None else padding
    dilation = dilations if dilations is not None else dilation
    unbatched = isinstance(x, Tensor) and x.ndim == 3  # PyTorch's [C, H, W] -> [C*K, L]
    if unbatched:
        x = x.unsqueeze(0)
    if W.check_input(x, 2, op):
        raise ValueError(
            f"{op}: the input must be 4-D [N, C, H, W] (or 3-D [C, H, W]), got shape "
            f"{list(x.shape)}"
        )
    k = W.ints(kernel_size, 2, "kernel_size", op)
    st, dl = W.ints(stride, 2, "stride", op), W.ints(dilation, 2, "dilation", op)
    lo, hi = W.padding(padding, 2, op, list(x.shape[2:]), k, st, dl)
    out = _core._unfold(x, k, st, dl, lo, hi)
    return out.squeeze(0) if unbatched else out


def fold(
    x: Tensor,
    output_size: Any = None,
    kernel_size: Any = None,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
    *,
    output_sizes: Any = None,
    kernel_sizes: Any = None,
    strides: Any = None,
    paddings: Any = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Tensor:
    """col2im (torch ``F.fold``): ``[N, C*kh*kw, L]`` → ``[N, C, *output_size]``,
    summing where windows overlap; the adjoint of :func:`unfold`."""
    op = "fold"
    unbatched = isinstance(x, Tensor) and x.ndim == 2  # PyTorch's [C*K, L] -> [C, H, W]
    if unbatched:
        x = x.unsqueeze(0)
    if not isinstance(x, Tensor) or x.ndim != 3:
        shape = list(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(
            f"{op}: the input must be a 3-D Tensor [N, C*K, L] (or 2-D [C*K, L]), got {shape}"
        )
    # PyTorch's output_size / kernel_size or Paddle's output_sizes / kernel_sizes
    size_arg = output_sizes if output_sizes is not None else output_size
    k_arg = kernel_sizes if kernel_sizes is not None else kernel_size
    if size_arg is None or k_arg is None:
        raise TypeError(
            "fold() needs output_size and kernel_size (Paddle: output_sizes and kernel_sizes)"
        )
    size = W.ints(size_arg, 2, "output_size", op)
    k = W.ints(k_arg, 2, "kernel_size", op)
    st = W.ints(strides if strides is not None else stride, 2, "stride", op)
    dl = W.ints(dilations if dilations is not None else dilation, 2, "dilation", op)
    pad = paddings if paddings is not None else padding
    lo, hi = W.padding(pad, 2, op, size, k, st, dl)
    out = _core._fold(x, size, k, st, dl, lo, hi)
    return out.squeeze(0) if unbatched else out


__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "conv1d_transpose",
    "conv2d_transpose",
    "conv3d_transpose",
    "unfold",
    "fold",
]
