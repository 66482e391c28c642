"""``F.affine_grid`` and ``F.grid_sample`` (2-D and 3-D), composed from differentiable ops:
the sampling positions are computed from ``grid`` with elementwise ops, the corner values
are gathered with ``take_along_axis`` and weighted, so gradients of any order flow to both
``input`` and ``grid`` (``mode='bilinear'`` and, 2-D only, ``'bicubic'``; ``'nearest'``
gives ``grid`` no gradient).

The two peers differ in one default: PyTorch's ``align_corners`` is False, Paddle's is
True. A call that leaves it out gets Paddle's True in Paddle code (``import ferrograd as
paddle``; docs/dialects.md) or with Paddle's keywords (``x=``, ``out_shape=``, ``name=``),
and otherwise PyTorch's False with a ``UserWarning`` saying so (PyTorch warns in the same
case).
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, Optional

from .. import _core
from .._dialect import caller_dialect
from ..autograd.py_layer import Function

Tensor = _core.Tensor

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _align(align_corners: Optional[bool], paddle: bool, what: str) -> bool:
    """The dialect's ``align_corners`` default when the caller left it out."""
    if align_corners is not None:
        return bool(align_corners)
    if paddle or caller_dialect(3) == "paddle":  # (3: the user's frame, above the op)
        return True
    warnings.warn(
        f"{what}: align_corners not given; using False (PyTorch's default). Paddle's default "
        "is True: pass align_corners explicitly to silence this warning",
        UserWarning,
        stacklevel=3,
    )
    return False


def _float_tensor(t: Any, arg: str, what: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {arg} must be a Tensor, got {type(t).__name__}")
    if not t.dtype.is_floating_point:
        raise TypeError(f"{what}: {arg} must be a floating-point tensor, got {t.dtype}")
    return t


def _base_coords(n: int, align_corners: bool, dtype: Any) -> Tensor:
    """The normalised centres of ``n`` pixels along one axis (PyTorch's and Paddle's)."""
    if n <= 1:
        return _core.zeros([n], dtype=dtype)
    coords = _core.linspace(-1.0, 1.0, n, dtype=dtype)
    return coords if align_corners else coords * ((n - 1) / n)


def affine_grid(
    theta: Tensor,
    size: Any = None,
    align_corners: Optional[bool] = None,
    name: Optional[str] = None,
    *,
    out_shape: Any = None,
) -> Tensor:
    """The sampling grid of the affine maps ``theta`` for an output of ``size``.

    ``theta`` is ``[N, 2, 3]`` for ``size = [N, C, H, W]`` (result ``[N, H, W, 2]``, the
    last dim ``(x, y)``) or ``[N, 3, 4]`` for ``size = [N, C, D, H, W]`` (result
    ``[N, D, H, W, 3]``, ``(x, y, z)``). Paddle's ``out_shape`` (a list or a tensor) is
    ``size``. ``align_corners``: see the module docstring (PyTorch: False, Paddle: True).
    """
    what = "affine_grid"
    paddle = out_shape is not None or name is not None
    if out_shape is not None:
        if size is not None:
            raise TypeError(f"{what}: pass one of size and out_shape, not both")
        size = out_shape
    if isinstance(size, Tensor):
        size = [int(v) for v in size.tolist()]
    if not isinstance(size, (list, tuple)) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in size
    ):
        raise TypeError(f"{what}: size must be a list of ints, got {size!r}")
    theta = _float_tensor(theta, "theta", what)
    ac = _align(align_corners, paddle, what)
    d = len(size) - 2
    if d not in (2, 3):
        raise ValueError(f"{what}: size must have 4 ([N, C, H, W]) or 5 entries, got {list(size)}")
    if any(v < 0 for v in size):
        raise ValueError(f"{what}: size must not be negative, got {list(size)}")
    n = size[0]
    if list(theta.shape) != [n, d, d + 1]:
        raise ValueError(
            f"{what}: theta must have shape [{n}, {d}, {d + 1}] for size {list(size)}, got "
            f"{list(theta.shape)}"
        )
    spatial = list(size[2:])  # [H, W] or [D, H, W]
    # coordinates in the grid's order (x, y[, z]) = reversed spatial dims, each broadcast
    axes = []
    for k, s in enumerate(reversed(spatial)):
        shape = [1] * d
        shape[d - 1 - k] = s
        axes.append(_base_coords(s, ac, theta.dtype).reshape(shape).expand(spatial))
    axes.append(_core.ones(spatial, dtype=theta.dtype))
    base = _core.stack(axes, -1).reshape([1, -1, d + 1])  # [1, P, d + 1]
    grid = base.matmul(theta.transpose(1, 2))  # [N, P, d]
    return grid.reshape([n, *spatial, d])


def _unnormalize(c: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (c + 1.0) * ((size - 1) / 2.0)
    return ((c + 1.0) * size - 1.0) / 2.0


def _reflect(c: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Folds ``c`` into ``[twice_low / 2, twice_high / 2]`` by reflecting at both ends."""
    if twice_low == twice_high:
        return c * 0.0
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    a = (c - low).abs()
    flips = (a / span).detach().floor()
    extra = a - flips * span
    even = (flips % 2.0) == 0.0
    return _core.where(even, extra + low, (span - extra) + low)


def _source_index(c: Tensor, size: int, padding: str, align_corners: bool) -> Tensor:
    """The pixel coordinate the normalised ``c`` samples along an axis of ``size``."""
    c = _unnormalize(c, size, align_corners)
    if padding == "border":
        c = c.clamp(0.0, float(size - 1))
    elif padding == "reflection":
        if align_corners:
            c = _reflect(c, 0, 2 * (size - 1))
        else:
            c = _reflect(c, -1, 2 * size - 1)
        c = c.clamp(0.0, float(size - 1))
    return c


def grid_sample(
    input: Optional[Tensor] = None,
    grid: Optional[Tensor] = None,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: Optional[bool] = None,
    name: Optional[str] = None,
    *,
    x: Optional[Tensor] = None,
) -> Tensor:
    """Samples ``input`` ``[N, C, H, W]`` at the normalised positions ``grid``
    ``[N, Ho, Wo, 2]`` (``(x, y)`` in ``[-1, 1]``), giving ``[N, C, Ho, Wo]``; likewise
    ``[N, C, D, H, W]`` with ``grid`` ``[N, Do, Ho, Wo, 3]``.

    ``mode``: ``'bilinear'`` (trilinear for 5-D), ``'nearest'`` (the nearest pixel,
    ties to even) or, for 4-D input, ``'bicubic'`` (PyTorch's: 4x4 taps, a = -0.75, the
    padding rule applied to each tap). ``padding_mode``: ``'zeros'`` (outside pixels are 0), ``'border'``
    (positions clamped to the edge) or ``'reflection'`` (reflected at the edges).
    ``align_corners``: whether -1 and 1 are the centres of the corner pixels (True) or
    their outer edges (False); see the module docstring for the default. Paddle's
    ``x=`` is ``input``.
    """
    what = "grid_sample"
    paddle = x is not None or name is not None
    if x is not None:
        if input is not None:
            raise TypeError(f"{what}: pass one of input and x, not both")
        input = x
    inp = _float_tensor(input, "input", what)
    g = _float_tensor(grid, "grid", what)
    if mode == "bicubic" and inp.ndim != 4:
        raise ValueError(f"{what}: mode='bicubic' needs a 4-D input, got shape {list(inp.shape)}")
    if mode not in _MODES:
        raise ValueError(f"{what}: mode must be one of {_MODES}, got {mode!r}")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"{what}: padding_mode must be one of {_PADDINGS}, got {padding_mode!r}")
    ac = _align(align_corners, paddle, what)
    if inp.ndim not in (4, 5):
        raise ValueError(
            f"{what}: input must be 4-D [N, C, H, W] or 5-D [N, C, D, H, W], got shape "
            f"{list(inp.shape)}"
        )
    d = inp.ndim - 2
    if g.ndim != inp.ndim or g.shape[0] != inp.shape[0] or g.shape[-1] != d:
        raise ValueError(
            f"{what}: for input {list(inp.shape)} grid must have shape "
            f"[{inp.shape[0]}, {', '.join('*' * d)}, {d}], got {list(g.shape)}"
        )
    if g.dtype != inp.dtype:
        raise TypeError(
            f"{what}: input and grid must have one dtype, got {inp.dtype} and {g.dtype}"
        )
    spatial = list(inp.shape[2:])
    if any(s == 0 for s in spatial) and g.numel() > 0:
        raise ValueError(f"{what}: the input's spatial dims must be non-empty, got {spatial}")
    if mode != "bicubic" and padding_mode != "zeros":
        g = _non_finite_to_low_edge(g, padding_mode, spatial, ac)
    if d == 2 and mode != "bicubic":
        return _GridSample2d.apply(inp, g, mode, padding_mode, ac)
    return _composed(inp, g, mode, padding_mode, ac)


def _non_finite_to_low_edge(g: Tensor, padding: str, spatial: list[int], ac: bool) -> Tensor:
    """``grid`` with the coordinates PyTorch reads as -1 replaced by -1 (bilinear and
    nearest with ``border`` / ``reflection`` padding): those whose pixel coordinate is
    NaN before the clip to the input -- NaN; +-inf under reflection (reflected: NaN) and
    along a size-1 axis with ``align_corners`` (``inf * 0``). PyTorch documents "NaN
    values in grid would be interpreted as -1": its 2-D CPU kernel (GridSamplerKernel.cpp,
    ``ComputeLocationBase::clip_coordinates``: ``clamp_max(max, clamp_min(0, in))``,
    ordered "to clamp Nans to zero") and its CUDA ``clip_coordinates`` (``fmax``) send
    such a coordinate to pixel 0, exactly where -1 lands. (Its 3-D CPU kernel, scalar
    ``std::min(max, std::max(in, 0))`` in GridSampler.h, gives the last pixel instead;
    ferrograd follows the documented -1 in 2-D and 3-D.) The replaced entries take no
    gradient, as a clamped coordinate; bicubic keeps NaN (its weights are NaN in PyTorch
    too)."""
    d = len(spatial)
    # per grid component (x first: the last spatial dim), whether +-inf also gives NaN
    inf_bad = [padding == "reflection" or (ac and spatial[d - 1 - k] == 1) for k in range(d)]
    bad = g.isnan()
    if any(inf_bad):
        bad = bad.logical_or(g.isinf().logical_and(_core.tensor(inf_bad)))
    if not bool(bad.any()):
        return g
    return _core.where(bad, -1.0, g)


class _GridSample2d(Function):
    """2-D sampling on the Rust kernels (forward and both first-order gradients); under
    ``create_graph=True`` the backward differentiates :func:`_composed` instead, so
    gradients of gradients are exact too."""

    @staticmethod
    def forward(ctx: Any, inp: Tensor, grid: Tensor, mode: str, padding: str, ac: bool) -> Tensor:
        ctx.save_for_backward(inp, grid)
        ctx.opts = (mode, padding, ac)
        return _core._grid_sample_2d(inp, grid, mode, padding, ac)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Optional[Tensor], ...]:
        inp, grid = ctx.saved_tensors
        mode, padding, ac = ctx.opts
        need_x, need_g = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        if _core.is_grad_enabled():
            # create_graph=True: the kernels' gradients are not differentiable; the
            # composed formula is (same values, up to rounding)
            wanted = [t for t, need in ((inp, need_x), (grid, need_g)) if need]
            got = iter(
                _core.grad(
                    [_composed(inp, grid, mode, padding, ac)],
                    wanted,
                    [grad],
                    create_graph=True,
                    allow_unused=True,
                )
            )
            gx = next(got) if need_x else None
            gg = next(got) if need_g else None
            return gx, gg, None, None, None
        gx, gg = _core._grid_sample_2d_backward(grad, inp, grid, mode, padding, ac, need_x, need_g)
        return gx, gg, None, None, None


def _composed(inp: Tensor, g: Tensor, mode: str, padding_mode: str, ac: bool) -> Tensor:
    """``grid_sample`` composed from differentiable ops (any order of gradients; 2-D
    and 3-D)."""
    d = inp.ndim - 2
    n, c = inp.shape[0], inp.shape[1]
    spatial = list(inp.shape[2:])
    out_spatial = list(g.shape[1:-1])
    flat = inp.reshape([n, c, -1])  # [N, C, prod(spatial)]
    pts = g.reshape([n, 1, -1, d])  # [N, 1, P, d]
    # coordinate per spatial dim j (grid's last dim lists them in reverse: x is W)
    coords = [_source_index(pts[..., d - 1 - j], spatial[j], padding_mode, ac) for j in range(d)]
    strides = [1] * d
    for j in range(d - 2, -1, -1):
        strides[j] = strides[j + 1] * spatial[j + 1]

    def gather(idx: list[Tensor]) -> tuple[Tensor, Tensor]:
        """Values ``[N, C, K, P]`` at the integer positions ``idx`` (per dim, each
        ``[N, 1, K, P]``: ``K`` corners per output point), one gather for all corners,
        and the mask of the positions inside the input (the others read as 0)."""
        inside = (idx[0] >= 0.0).logical_and(idx[0] <= float(spatial[0] - 1))
        for j in range(1, d):
            inside = inside.logical_and(
                (idx[j] >= 0.0).logical_and(idx[j] <= float(spatial[j] - 1))
            )
        flat_idx = _core.where(inside, idx[0], 0.0).astype("int64") * strides[0]
        for j in range(1, d):
            flat_idx = flat_idx + _core.where(inside, idx[j], 0.0).astype("int64") * strides[j]
        k, p = flat_idx.shape[2], flat_idx.shape[3]
        vals = flat.take_along_axis(flat_idx.reshape([n, 1, k * p]).expand([n, c, k * p]), 2)
        return vals.reshape([n, c, k, p]), inside.astype(inp.dtype)

    pts4 = [cj.unsqueeze(2) for cj in coords]  # [N, 1, 1, P]
    if mode == "nearest":
        vals, inside = gather([cj.detach().round() for cj in pts4])
        out = (vals * inside).sum(2)
        if g.requires_grad:
            # the grid gets a zero gradient (PyTorch's), not none: round's gradient is 0
            for cj in coords:
                out = out + cj.round() * 0.0
        return out.reshape([n, c, *out_spatial])
    if mode == "bicubic":
        return _bicubic(inp, g, padding_mode, ac, gather)
    # the 2**d corners around each point: corner k has offset bits[k][j] along dim j
    bits = list(itertools.product((0.0, 1.0), repeat=d))
    lows = [cj.detach().floor() for cj in pts4]
    idx, weight = [], None
    for j in range(d):
        off = _core.tensor([b[j] for b in bits], dtype=inp.dtype).reshape([1, 1, len(bits), 1])
        idx.append(lows[j] + off)
        frac = pts4[j] - lows[j]
        # frac where the corner is the upper neighbour, 1 - frac where it is the lower
        w = (1.0 - frac) + (frac * 2.0 - 1.0) * off
        weight = w if weight is None else weight * w
    assert weight is not None
    vals, inside = gather(idx)
    return (vals * (weight * inside)).sum(2).reshape([n, c, *out_spatial])


def _cubic_weights(t: Tensor) -> Tensor:
    """Keys' cubic-convolution weights (a = -0.75, as both peers) of the taps at offsets
    -1, 0, 1, 2 from ``floor``, for fractions ``t`` ``[N, 1, 1, P]``: ``[N, 1, 4, P]``."""
    a = -0.75

    def near(z: Tensor) -> Tensor:
        return ((z * (a + 2) - (a + 3)) * z) * z + 1.0

    def far(z: Tensor) -> Tensor:
        return ((z * a - 5 * a) * z + 8 * a) * z - 4 * a

    return _core.concat([far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)], 2)


def _pad_taps(c: Tensor, size: int, padding: str, align_corners: bool) -> Tensor:
    """Integer tap positions moved inside by ``padding`` (PyTorch's bicubic applies the
    padding rule to each of the 16 taps, not to the sampled point)."""
    if padding == "border":
        return c.clamp(0.0, float(size - 1))
    if padding == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        return c.clamp(0.0, float(size - 1))
    return c


def _bicubic(inp: Tensor, g: Tensor, padding: str, ac: bool, gather: Any) -> Tensor:
    """PyTorch's 2-D bicubic ``grid_sample``: 4x4 taps around the unnormalised point,
    each tap padded on its own, weights differentiable in the grid."""
    n, c = inp.shape[0], inp.shape[1]
    h, w = inp.shape[2], inp.shape[3]
    pts = g.reshape([n, 1, 1, -1, 2])
    y = _unnormalize(pts[..., 1], h, ac)  # [N, 1, 1, P]
    x = _unnormalize(pts[..., 0], w, ac)
    y0, x0 = y.detach().floor(), x.detach().floor()
    offs = [(ky - 1.0, kx - 1.0) for ky in range(4) for kx in range(4)]
    off_y = _core.tensor([o[0] for o in offs], dtype=inp.dtype).reshape([1, 1, 16, 1])
    off_x = _core.tensor([o[1] for o in offs], dtype=inp.dtype).reshape([1, 1, 16, 1])
    iy = _pad_taps(y0 + off_y, h, padding, ac)
    ix = _pad_taps(x0 + off_x, w, padding, ac)
    wy, wx = _cubic_weights(y - y0), _cubic_weights(x - x0)  # [N, 1, 4, P]
    weight = (wy.unsqueeze(3) * wx.unsqueeze(2)).reshape([n, 1, 16, -1])
    vals, inside = gather([iy, ix])
    return (vals * (weight * inside)).sum(2).reshape([n, c, *g.shape[1:3]])


__all__ = ["affine_grid", "grid_sample"]
