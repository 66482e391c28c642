"""``F.pad`` (constant, reflect, replicate, circular) and ``F.interpolate`` (nearest,
linear / bilinear / trilinear), in both dialects, composed from differentiable ops
(concat, slices, ``index_select``, products with constant weights), so gradients of any
order flow through them.

Pad order. PyTorch's ``pad`` lists ``(before, after)`` pairs from the *last* dimension
backwards. Paddle's does too, except that in ``constant`` mode a list of length
``2 * x.ndim`` goes from the *first* dimension forwards (``pad_from_left_axis=True``,
its default), and that with ``data_format`` (``NHWC`` ...) the pairs go to the spatial
axes. A call that could be either (constant mode, ``2 * ndim`` numbers, readings that
differ, no keyword that only one peer has) follows the calling module's import line
(``docs/dialects.md``); in code of neither dialect it raises and asks for
``pad_from_left_axis``.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Optional, Sequence

import numpy as np

from .. import _core
from .._dialect import caller_dialect

Tensor = _core.Tensor

_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_NP_MODES: dict[str, Any] = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
_CHANNELS_LAST = ("NLC", "NHWC", "NDHWC")


def _spatial_dims(ndim: int, data_format: Optional[str]) -> list[int]:
    """The spatial dimensions of an ``N, C, ...`` (or channels-last) tensor."""
    if data_format is not None and data_format.upper() in _CHANNELS_LAST:
        return list(range(1, ndim - 1))
    return list(range(2, ndim))


def _check_data_format(x: Tensor, data_format: Any) -> None:
    """Paddle's check (nn/functional/common.py ``pad``): a known layout whose length is
    the tensor's rank (an unknown one was read as channels-first)."""
    known = ("NCL", "NCHW", "NCDHW") + _CHANNELS_LAST
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    if fmt not in known:
        raise ValueError(f"pad: data_format must be one of {list(known)}, got {data_format!r}")
    if len(fmt) != x.ndim:
        raise ValueError(
            f"pad: data_format {data_format!r} describes a {len(fmt)}-D tensor, but the input "
            f"has {x.ndim} dimension(s) (shape {list(x.shape)})"
        )


def _pairs(
    x: Tensor,
    pad: list[int],
    mode: str,
    data_format: Optional[str],
    from_left: Optional[bool],
) -> dict[int, tuple[int, int]]:
    """``{dim: (before, after)}`` for a pad list, following the rules in the module docs."""
    nd = x.ndim
    if len(pad) % 2:
        raise ValueError(f"pad: the pad list needs an even length, got {len(pad)}: {pad}")
    if len(pad) > 2 * nd:
        raise ValueError(
            f"pad: {len(pad)} pad values for a tensor of {nd} dimension(s); at most {2 * nd}"
        )
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    # Paddle reads a constant list of 2 * ndim values from the first axis whatever the
    # data_format (common.py pad reverses it only when pad_from_left_axis is False); a
    # data_format (Paddle's argument) with no dialect and no flag means Paddle's order
    if (
        mode == "constant"
        and len(pad) == 2 * nd
        and (data_format is None or from_left is not False)
    ):
        left = True if data_format is not None and from_left is None else from_left
        if left is None:
            if nd > 1 and pairs != pairs[::-1]:
                raise ValueError(
                    f"pad: {len(pad)} values for a {nd}-d tensor in constant mode read "
                    "differently in PyTorch (from the last dimension) and Paddle (from the "
                    "first); pass pad_from_left_axis=False for PyTorch's order or "
                    "pad_from_left_axis=True for Paddle's"
                )
            left = False
        if left:
            return {d: p for d, p in enumerate(pairs)}
    if data_format is not None and len(pairs) == nd - 2:
        dims = _spatial_dims(nd, data_format)[::-1]
    else:
        dims = list(range(nd - 1, -1, -1))
    return {d: p for d, p in zip(dims, pairs)}


def _pad_dim(x: Tensor, d: int, before: int, after: int, mode: str, value: Any) -> Tensor:
    n = x.shape[d]
    if before < 0 or after < 0:  # negative pads crop (PyTorch)
        lo, hi = max(-before, 0), n - max(-after, 0)
        if hi < lo:
            raise ValueError(
                f"pad: negative pads ({before}, {after}) crop more than dimension {d} of size {n}"
            )
        x = x[tuple([slice(None)] * d + [slice(lo, hi)])]
        before, after, n = max(before, 0), max(after, 0), hi - lo
    if before == 0 and after == 0:
        return x
    if mode == "constant":
        parts = []
        for k in (before, after):
            shape = list(x.shape)
            shape[d] = k
            parts.append(_core.full(shape, value, dtype=x.dtype))
        return _core.concat([parts[0], x, parts[1]], d)
    if n == 0:
        raise ValueError(f"pad: {mode} padding needs a non-empty dimension {d}")
    if mode == "reflect" and max(before, after) >= n:
        raise ValueError(
            f"pad: reflect padding ({before}, {after}) must be smaller than dimension {d} of size {n}"
        )
    if mode == "circular" and max(before, after) > n:
        raise ValueError(
            f"pad: circular padding ({before}, {after}) must be at most dimension {d} of size {n}"
        )
    idx = np.pad(np.arange(n, dtype=np.int64), (before, after), mode=_NP_MODES[mode])
    return x.index_select(d, _core.tensor(idx))


def pad(
    x: Optional[Tensor] = None,
    pad: Any = None,
    mode: str = "constant",
    value: Any = None,
    data_format: Optional[str] = None,
    pad_from_left_axis: Optional[bool] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """``x`` padded by ``pad`` (``(before, after)`` pairs; see the module docs for their
    order) with ``mode`` = ``constant`` (``value``, default 0), ``reflect`` (mirror without
    the edge), ``replicate`` (the edge repeated) or ``circular`` (wrap around). Negative
    pads crop."""
    # PyTorch's keyword input= says the pad list is in PyTorch's order
    from_left: Optional[bool] = pad_from_left_axis
    if input is not None:
        if x is not None:
            raise TypeError("pad() got the tensor both as x and as input=")
        x = input
        from_left = False if pad_from_left_axis is None else pad_from_left_axis
    if x is None or pad is None:
        raise TypeError("pad() needs a tensor and a pad list")
    if from_left is None:
        # an ambiguous list follows the import line (Paddle: from the first axis)
        dialect = caller_dialect()
        from_left = True if dialect == "paddle" else False if dialect == "torch" else None
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {_PAD_MODES}, got {mode!r}")
    if data_format is not None:
        _check_data_format(x, data_format)
    pads = (
        [int(p) for p in pad.reshape([-1]).tolist()]
        if isinstance(pad, Tensor)
        else [operator.index(p) for p in pad]
    )
    out = x
    for d, (b, a) in sorted(_pairs(x, pads, mode, data_format, from_left).items()):
        out = _pad_dim(out, d, b, a, mode, 0.0 if value is None else value)
    return out


def _out_sizes(
    x: Tensor, dims: list[int], size: Any, scale_factor: Any
) -> tuple[list[int], list[Optional[float]]]:
    ins = [x.shape[d] for d in dims]
    k = len(dims)
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if size is not None:
        if isinstance(size, Tensor):
            size = size.tolist()
        sizes = [int(s) for s in size] if isinstance(size, (list, tuple)) else [int(size)] * k
        if len(sizes) != k:
            raise ValueError(
                f"interpolate: size has {len(sizes)} entries for {k} spatial dimension(s)"
            )
        return sizes, [None] * k
    if isinstance(scale_factor, Tensor):
        scale_factor = scale_factor.tolist()
    scales = (
        [float(s) for s in scale_factor]
        if isinstance(scale_factor, (list, tuple))
        else [float(scale_factor)] * k
    )
    if len(scales) != k:
        raise ValueError(
            f"interpolate: scale_factor has {len(scales)} entries for {k} spatial dimension(s)"
        )
    if any(s <= 0 for s in scales):
        raise ValueError(f"interpolate: scale_factor must be positive, got {scales}")
    given: list[Optional[float]] = list(scales)
    return [int(math.floor(n * s)) for n, s in zip(ins, scales)], given


def _ratio(n_in: int, n_out: int, scale: Optional[float], align_corners: bool) -> float:
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None else n_in / n_out


def _nearest_index(
    n_in: int, n_out: int, scale: Optional[float], align_corners: bool, exact: bool
) -> np.ndarray:
    """The source index of each output position for ``nearest`` / ``nearest-exact``, in
    float32 as both peers compute it (a float64 ratio can land just below an integer the
    float32 one reaches: ``55 * (18 / 66)``). PyTorch (UpSample.h ``nearest_idx`` /
    ``nearest_exact_idx``): ``scale = float32(1 / scale_factor)`` or ``float32(in) /
    out``, index ``floor(float32(dst * scale))`` (``dst + 0.5`` for nearest-exact), at
    most ``in - 1``. Paddle's ``align_corners=True`` (interpolate_kernel.cc
    ``NearestNeighborInterpolate``): ``int(float32((in - 1) / (out - 1)) * dst + 0.5)``."""
    f32 = np.float32
    dst = np.arange(n_out, dtype=f32)
    if align_corners:
        r = f32(n_in - 1) / f32(n_out - 1) if n_out > 1 else f32(0.0)
        src = dst * r + f32(0.5)
    else:
        r = f32(1.0 / scale) if scale is not None else f32(n_in) / f32(n_out)
        src = (dst + f32(0.5)) * r if exact else dst * r
    return np.minimum(np.floor(src).astype(np.int64), n_in - 1)


def _resize_dim(
    x: Tensor,
    d: int,
    n_out: int,
    scale: Optional[float],
    mode: str,
    align_corners: bool,
    align_mode: int,
) -> Tensor:
    n_in = x.shape[d]
    if n_out <= 0:
        raise ValueError(f"interpolate: output size {n_out} along dimension {d} must be positive")
    if n_in == 0:
        raise ValueError(f"interpolate: dimension {d} of the input is empty")
    if mode in ("nearest", "nearest-exact"):
        idx = _nearest_index(n_in, n_out, scale, align_corners, mode == "nearest-exact")
        return x.index_select(d, _core.tensor(idx))
    r = _ratio(n_in, n_out, scale, align_corners)
    dst = np.arange(n_out, dtype=np.float64)
    if mode == "bicubic":
        return _cubic_dim(x, d, n_in, dst, r, align_corners)
    if align_corners or align_mode == 1:
        src = dst * r
    else:
        src = np.maximum((dst + 0.5) * r - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    w = src - i0
    shape = [1] * x.ndim
    shape[d] = n_out
    w1 = _core.tensor(w.reshape(shape), dtype=x.dtype)
    w0 = _core.tensor((1.0 - w).reshape(shape), dtype=x.dtype)
    return x.index_select(d, _core.tensor(i0)) * w0 + x.index_select(d, _core.tensor(i1)) * w1


_CUBIC_A = -0.75  # the cubic-convolution constant PyTorch and Paddle both use


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """Keys' cubic-convolution weights of the 4 taps at offsets -1, 0, 1, 2 from
    ``floor(src)``, for fractional positions ``t`` (they sum to 1)."""
    a = _CUBIC_A

    def near(z: np.ndarray) -> np.ndarray:  # |z| <= 1
        return ((a + 2) * z - (a + 3)) * z * z + 1

    def far(z: np.ndarray) -> np.ndarray:  # 1 < |z| < 2
        return ((a * z - 5 * a) * z + 8 * a) * z - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_dim(
    x: Tensor, d: int, n_in: int, dst: np.ndarray, r: float, align_corners: bool
) -> Tensor:
    """Bicubic resampling along ``d``: PyTorch's and Paddle's rule (source position
    ``dst * r``, or ``(dst + 0.5) * r - 0.5`` without align_corners and *not* clamped at
    0; taps outside the input read the border pixel). Four gathers and a weighted sum, so
    the gradient is exact through ``index_select``."""
    src = dst * r if align_corners else (dst + 0.5) * r - 0.5
    base = np.floor(src)
    shape = [1] * x.ndim
    shape[d] = len(dst)
    out: Optional[Tensor] = None
    for k, w in enumerate(_cubic_weights(src - base)):
        idx = np.clip(base.astype(np.int64) + (k - 1), 0, n_in - 1)
        term = x.index_select(d, _core.tensor(idx)) * _core.tensor(w.reshape(shape), dtype=x.dtype)
        out = term if out is None else out + term
    assert out is not None
    return out


_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def interpolate(
    x: Optional[Tensor] = None,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: Optional[bool] = None,
    align_mode: int = 0,
    data_format: Optional[str] = None,
    recompute_scale_factor: Optional[bool] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
    antialias: bool = False,
) -> Tensor:
    """Resizes the spatial dimensions of an ``N, C, ...`` tensor (``data_format``:
    channels last) to ``size`` or by ``scale_factor``: ``nearest`` (PyTorch's rule
    ``floor(dst * in / out)``; with Paddle's ``align_corners=True``, rounded), or
    ``linear`` / ``bilinear`` / ``trilinear`` (half-pixel centres; ``align_corners=True``
    maps the corner pixels onto each other; Paddle's ``align_mode=1`` uses ``dst * in /
    out``), or ``bicubic`` (Keys' cubic convolution with a = -0.75 over 4x4 pixels, border
    pixels repeated, as both peers compute it), or ``area`` (adaptive average pooling to
    the output size).

    An output size equal to the input's along a dimension, with a ``scale_factor`` that
    is not 1 (``floor(4 * 1.2) == 4``): PyTorch code (and code of no dialect) gets
    PyTorch's copy along that dimension for the linear modes (UpSample.h
    ``compute_source_index_and_lambda``: ``output_size == input_size`` copies) and with
    ``antialias=True`` (UpSampleKernel.cpp ``separable_upsample_generic_Nd_kernel_impl``
    skips such dimensions), and a resampling at ``1 / scale_factor`` for ``nearest``,
    ``nearest-exact`` and ``bicubic`` (its generic kernels); Paddle code gets Paddle's
    copy of the whole input when every spatial size is kept, in every mode, and the
    resampling otherwise (interpolate_kernel.cc ``Interpolate2DCPUFwd``...)."""
    if input is not None:
        x = input
    if x is None:
        raise TypeError("interpolate() needs an input tensor")
    mode = mode.lower()
    if mode not in ("nearest", "nearest-exact", "area", *_LINEAR):
        raise ValueError(
            f"interpolate: mode {mode!r} is not supported; use 'nearest', 'nearest-exact', "
            "'linear', 'bilinear', 'bicubic', 'trilinear' or 'area'"
        )
    if x.ndim < 3:
        raise ValueError(
            f"interpolate: expects an N, C, ... tensor of 3 to 5 dimensions, got {x.ndim}"
        )
    dims = _spatial_dims(x.ndim, data_format)
    if mode in _LINEAR and _LINEAR[mode] != len(dims):
        raise ValueError(
            f"interpolate: mode {mode!r} needs {_LINEAR[mode]} spatial dimension(s), the input "
            f"has {len(dims)} (shape {list(x.shape)})"
        )
    sizes, scales = _out_sizes(x, dims, size, scale_factor)
    if recompute_scale_factor:
        scales = [None] * len(dims)
    if mode == "area":  # both peers: adaptive average pooling to the output size
        from . import _window as W
        from .fn_pool import _adaptive_avg

        nd = len(dims)
        first, last = W.LAYOUTS[nd]
        fmt = last if dims[0] == 1 else first
        return _adaptive_avg(nd, "interpolate(mode='area')", x, sizes, fmt)
    ac = bool(align_corners)
    same = [n == x.shape[d] for d, n in zip(dims, sizes)]
    if any(same):
        # a size kept along some dims: the peers copy there whatever the scale (see the
        # docstring); the dialect is asked only then
        paddle = caller_dialect(through_layers=True) == "paddle"
        if paddle and all(same):
            return x.clone()
        if not paddle and (antialias or mode in ("linear", "bilinear", "trilinear")):
            keep = [i for i, kept in enumerate(same) if not kept]
            dims, sizes = [dims[i] for i in keep], [sizes[i] for i in keep]
            scales = [scales[i] for i in keep]
            if not keep and not antialias:
                return x.clone()
    if antialias:
        from .fn_resize_aa import resize_aa

        out = resize_aa(x, list(dims), list(sizes), list(scales), mode, ac)
        return x.clone() if out is x else out
    out = x
    for d, n, s in zip(dims, sizes, scales):
        out = _resize_dim(out, d, n, s, mode, ac, align_mode)
    return out


def upsample(*args: Any, **kwargs: Any) -> Tensor:
    """Paddle's / PyTorch's ``upsample``: the same as :func:`interpolate`."""
    return interpolate(*args, **kwargs)


__all__: Sequence[str] = ["pad", "interpolate", "upsample"]
