"""Differential fuzzer for spatial sampling and pooling in ``ferrograd.nn.functional``:
``grid_sample`` (2-D / 3-D, bilinear / nearest / bicubic, zeros / border / reflection,
``align_corners``, grid points on pixel centres and edges, outside ``[-1, 1]``, NaN / inf),
``affine_grid``, ``interpolate`` in every mode (1-D to 3-D, ``size`` or ``scale_factor``,
``recompute_scale_factor``, ``align_corners``, ``antialias``), the ``upsample`` aliases,
``max_pool1d/2d/3d`` (indices, ``ceil_mode``, dilation, padding, NaN), ``max_unpool``,
``avg_pool`` (``count_include_pad``, ``divisor_override``, ceil-mode edge windows), the
adaptive pools (sizes not dividing the input, ``None`` entries, indices), ``lp_pool``,
``local_response_norm``, ``fractional_max_pool2d/3d`` (given ``_random_samples``) and
Paddle's spellings (``interpolate`` with ``data_format='NHWC'`` / ``align_mode``,
``adaptive_avg_pool2d`` NHWC, ``max_pool2d`` positional ``return_mask``, ``avg_pool``'s
``exclusive`` default) -- against float64 NumPy references written from PyTorch's (and
Paddle's) documented formulas, edge cases checked against PyTorch 2.15, and gradients
with ``ferrograd.autograd.gradcheck`` on small float64 inputs away from kinks and ties.
This module is PyTorch code (``torch = fg``); the Paddle calls run in a namespace that
names ferrograd ``paddle``. Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import itertools
import math
import warnings

import ferrograd as fg
import ferrograd.nn.functional as F
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ, assert_same, assert_scaled, grad_ok, viewed
from hypothesis import assume, given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

TOL = {"float64": (1e-10, 1e-12), "float32": (3e-6, 2e-6)}
DTYPES = st.sampled_from(["float32", "float64"])

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`).
_PADDLE_SRC = """
def functional(name, *args, **kwargs):
    return getattr(paddle.nn.functional, name)(*args, **kwargs)
"""
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_paddle_spatial_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)


def check(got, want, dtype, what, scale=1.0):
    assert_scaled(got, want, dtype, what, scale, TOL[dtype])


def arr(draw, shape, lo=-3.0, hi=3.0):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def distinct(draw, shape):
    """Distinct values (no max ties), well apart for finite differences."""
    n = int(np.prod(shape))
    return np.asarray(draw(st.permutations(range(n)))).reshape(shape) / 7.0 - n / 14.0


# ---------------------------------------------------------------- grid_sample
def _unnorm(c, size, ac):
    return (c + 1) / 2 * (size - 1) if ac else ((c + 1) * size - 1) / 2


def _reflect(c, twice_lo, twice_hi):
    if twice_lo == twice_hi:
        return np.zeros_like(c)
    lo, span = twice_lo / 2, (twice_hi - twice_lo) / 2
    a = np.abs(c - lo)
    extra = np.fmod(a, span)
    flips = np.floor(a / span)
    return np.where(flips % 2 == 0, extra + lo, span - extra + lo)


def _pad_coord(c, size, pad, ac):
    """PyTorch's padding of pixel coordinates; NaN (and under reflection +-inf, whose
    reflection is NaN) clipped to 0, as its 2-D CPU kernel's clip_coordinates
    (GridSamplerKernel.cpp: ``clamp_max(max, clamp_min(0, in))``, "to clamp Nans to
    zero") and CUDA's (fmax) do, and as its docs say ("NaN values in grid would be
    interpreted as -1")."""
    if pad == "border":
        return np.where(np.isnan(c), 0.0, np.clip(c, 0, size - 1))
    if pad == "reflection":
        r = _reflect(c, 0, 2 * (size - 1)) if ac else _reflect(c, -1, 2 * size - 1)
        return np.where(np.isnan(r), 0.0, np.clip(r, 0, size - 1))
    return c


def _cubic(t, a=-0.75):
    """Keys' weights of the taps at -1, 0, 1, 2 from floor for fractions t."""

    def near(z):
        return ((a + 2) * z - (a + 3)) * z * z + 1

    def far(z):
        return ((a * z - 5 * a) * z + 8 * a) * z - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample_ref(x, g, mode, pad, ac, dtype="float64"):
    """PyTorch's grid_sample in float64 NumPy (x [N, C, *S], g [N, *O, d]), the grid
    unnormalised in ``dtype`` as PyTorch does (a float32 0.5 + 6e-9 is a tie)."""
    n, c, *sp = x.shape
    d = len(sp)
    pts = g.reshape(n, -1, d)
    flat = x.reshape(n, c, -1)
    strides = [int(np.prod(sp[j + 1 :])) for j in range(d)]

    def read(idx):  # idx: per dim float arrays [N, P] of integer positions
        inside = np.ones(idx[0].shape, bool)
        for j in range(d):
            inside &= (idx[j] >= 0) & (idx[j] <= sp[j] - 1)
        lin = sum(np.where(inside, idx[j], 0).astype(np.int64) * strides[j] for j in range(d))
        vals = np.take_along_axis(flat, np.broadcast_to(lin[:, None, :], (n, c, lin.shape[1])), 2)
        return np.where(inside[:, None, :], vals, 0.0)

    with np.errstate(invalid="ignore"):
        pts_t = pts.astype(dtype)
        raw = [_unnorm(pts_t[..., d - 1 - j], sp[j], ac).astype(np.float64) for j in range(d)]
        if mode == "bicubic":
            y, xx = raw
            y0, x0 = np.floor(y), np.floor(xx)
            wy, wx = _cubic(y - y0), _cubic(xx - x0)
            out = 0.0
            for a, b in itertools.product(range(4), range(4)):
                iy = _pad_coord(y0 + a - 1, sp[0], pad, ac)
                ix = _pad_coord(x0 + b - 1, sp[1], pad, ac)
                out = out + read([iy, ix]) * (wy[a] * wx[b])[:, None, :]
            return out.reshape(n, c, *g.shape[1:-1])
        cs = [_pad_coord(raw[j], sp[j], pad, ac) for j in range(d)]
        if mode == "nearest":
            out = read([np.rint(cj) for cj in cs])
            return out.reshape(n, c, *g.shape[1:-1])
        lows = [np.floor(cj) for cj in cs]
        out = 0.0
        for bits in itertools.product((0, 1), repeat=d):
            w = 1.0
            for j in range(d):
                fr = cs[j] - lows[j]
                w = w * (fr if bits[j] else 1 - fr)
            out = out + read([lows[j] + bits[j] for j in range(d)]) * w[:, None, :]
    return out.reshape(n, c, *g.shape[1:-1])


# special grid values with one answer in PyTorch (its 2-D CPU and CUDA kernels; for NaN
# with border / reflection and +-inf with reflection its 3-D CPU kernel, scalar, reads
# the last pixel instead of the documented -1: test_grid_sample_nan_border_regression)
# and ferrograd
_SPECIAL_OK = {
    ("nearest", "zeros"): [np.nan, np.inf, -np.inf, 1e30, -1e30],
    ("nearest", "border"): [np.nan, np.inf, -np.inf, 1e30, -1e30],
    ("nearest", "reflection"): [np.nan, np.inf, -np.inf],
    ("bilinear", "zeros"): [1e30, -1e30],
    ("bilinear", "border"): [np.nan, np.inf, -np.inf, 1e30, -1e30],
    ("bilinear", "reflection"): [np.nan, np.inf, -np.inf],
    ("bicubic", "zeros"): [np.nan, np.inf, -np.inf, 1e30, -1e30],
    ("bicubic", "border"): [np.nan, np.inf, -np.inf, 1e30, -1e30],
    ("bicubic", "reflection"): [np.nan, np.inf, -np.inf],
}
# Not drawn: NaN / inf with bilinear zeros (PyTorch's 2-D kernel gives NaN, its 3-D 0)


@FUZZ
@given(
    st.sampled_from([2, 3]),
    st.sampled_from(["bilinear", "nearest", "bicubic"]),
    st.sampled_from(["zeros", "border", "reflection"]),
    st.booleans(),
    st.data(),
)
def test_grid_sample(nd, mode, pad, ac, data):
    assume(not (nd == 3 and mode == "bicubic"))
    dtype = data.draw(DTYPES)
    sp = [data.draw(st.integers(1, 4)) for _ in range(nd)]
    osp = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    a, t = data.draw(viewed(dtype, shape=[n, c, *sp], special=False))
    x = np.asarray(a, np.float64)
    # grid: random in [-1.5, 1.5], or exactly on pixel centres / edges
    g = arr(data.draw, [n, *osp, nd], -1.5, 1.5)
    sizes = np.asarray(sp[::-1], np.float64)
    kind = data.draw(hnp.arrays(np.int64, g.shape, elements=st.integers(0, 3)))
    k = data.draw(hnp.arrays(np.int64, g.shape, elements=st.integers(-1, 4)))
    centre = 2 * k / np.maximum(sizes - 1, 1) - 1 if ac else (2 * k + 1) / sizes - 1
    edge = 2 * k / sizes - 1
    g = np.where(kind == 1, centre, np.where(kind == 2, edge, g))
    if pad == "reflection":  # far out only a little: fmod vs floor rounding differ for huge
        g = np.clip(g, -6, 6)
    specials = _SPECIAL_OK.get((mode, pad), [])
    if specials and data.draw(st.booleans()):
        mask = data.draw(hnp.arrays(bool, g.shape))
        g[mask] = data.draw(st.sampled_from(specials))
    g = g.astype(dtype).astype(np.float64)
    gt = fg.tensor(g, dtype=dtype)
    want = grid_sample_ref(x, g, mode, pad, ac, dtype)
    CALLS["grid_sample"] += 1
    got = F.grid_sample(t, gt, mode=mode, padding_mode=pad, align_corners=ac)
    check(got, want, dtype, f"grid_sample {nd}d {mode} {pad} ac={ac}", 10 * (1 + np.abs(x).max()))
    # gradients: points at fractions in [0.15, 0.4] u [0.6, 0.85] of a pixel (no floor,
    # round or clamp kinks), strictly inside for border / reflection
    gs = [min(s, 3) for s in sp]
    assume(pad == "zeros" or min(gs) >= 2)
    go = [1, 2][: nd - 1] + [2]
    pos = []
    for j in range(nd):
        lo, hi = (-1, gs[j]) if pad == "zeros" else (0, gs[j] - 2)
        base = data.draw(hnp.arrays(np.int64, [1, *go], elements=st.integers(lo, hi)))
        fr = data.draw(hnp.arrays(np.float64, [1, *go], elements=st.floats(0.15, 0.35)))
        fr = np.where(data.draw(hnp.arrays(bool, [1, *go])), 1 - fr, fr)
        p = base + fr
        if ac and gs[j] == 1:  # every coordinate is pixel 0 (2 * p / 0 would be +-inf)
            pos.append(0.0 * p)
        else:
            pos.append(2 * p / (gs[j] - 1) - 1 if ac else (2 * p + 1) / gs[j] - 1)
    gg = np.stack(pos[::-1], -1)
    xg = arr(data.draw, [1, 1, *gs])
    if mode == "nearest":
        grad_ok(lambda u: F.grid_sample(u, fg.tensor(gg), "nearest", pad, ac), xg)
    else:
        grad_ok(lambda u, v: F.grid_sample(u, v, mode, pad, ac), xg, gg, second=nd == 2)


def test_grid_sample_3d_grads():
    # a fixed 3-D trilinear gradcheck with both inputs (the fuzz draws few 3-D grids)
    rs = np.random.RandomState(0)
    x = rs.randn(1, 2, 2, 3, 2)
    g = np.asarray([[[[[0.13, -0.41, 0.27], [-0.62, 0.33, -0.18]]]]])
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            grad_ok(lambda u, v, pad=pad, ac=ac: F.grid_sample(u, v, "bilinear", pad, ac), x, g)


# ---------------------------------------------------------------- affine_grid
def _base(n, ac):
    if n <= 1:
        return np.zeros(n)
    v = np.linspace(-1, 1, n)
    return v if ac else v * (n - 1) / n


@FUZZ
@given(st.sampled_from([2, 3]), st.booleans(), DTYPES, st.data())
def test_affine_grid(nd, ac, dtype, data):
    n = data.draw(st.integers(1, 2))
    sp = [data.draw(st.integers(1, 4)) for _ in range(nd)]
    theta = arr(data.draw, [n, nd, nd + 1]).astype(dtype).astype(np.float64)
    axes = np.meshgrid(*[_base(s, ac) for s in sp], indexing="ij")  # (z,) y, x
    base = np.stack([*axes[::-1], np.ones(sp)], -1)  # [*sp, nd + 1]: x, y, (z), 1
    want = np.einsum("...k,nik->n...i", base, theta)
    CALLS["affine_grid"] += 1
    got = F.affine_grid(fg.tensor(theta, dtype=dtype), [n, 2, *sp], align_corners=ac)
    check(got, want, dtype, f"affine_grid {nd}d", 10)
    th = arr(data.draw, [1, nd, nd + 1])
    grad_ok(lambda u: F.affine_grid(u, [1, 1, *[min(s, 3) for s in sp]], align_corners=ac), th)
    # identity theta samples the input back (the two compose)
    x = arr(data.draw, [1, 1, *sp])
    eye = np.eye(nd, nd + 1)[None]
    grid = F.affine_grid(fg.tensor(eye), [1, 1, *sp], align_corners=ac)
    back = F.grid_sample(fg.tensor(x), grid, "bilinear", "zeros", ac)
    check(back, x, "float64", "grid_sample(affine_grid(identity))", 10)


# ---------------------------------------------------------------- interpolate
def _ratio(n_in, n_out, scale, ac):
    if ac:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale is not None else n_in / n_out


def _linear_matrix(n_in, n_out, scale, ac):
    r = _ratio(n_in, n_out, scale, ac)
    dst = np.arange(n_out)
    src = r * dst if ac else np.maximum(r * (dst + 0.5) - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.where(i0 < n_in - 1, i0 + 1, i0)
    lam = np.clip(src - i0, 0, 1)
    m = np.zeros((n_out, n_in))
    np.add.at(m, (dst, i0), 1 - lam)
    np.add.at(m, (dst, i1), lam)
    return m


def _cubic_matrix(n_in, n_out, scale, ac):
    r = _ratio(n_in, n_out, scale, ac)
    dst = np.arange(n_out)
    src = r * dst if ac else r * (dst + 0.5) - 0.5
    base = np.floor(src)
    m = np.zeros((n_out, n_in))
    for k, w in enumerate(_cubic(src - base)):
        np.add.at(m, (dst, np.clip(base.astype(np.int64) + k - 1, 0, n_in - 1)), w)
    return m


def _area_matrix(n_in, n_out):
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        lo, hi = i * n_in // n_out, -(-(i + 1) * n_in // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def _aa_matrix(n_in, n_out, scale, ac, mode):
    """PyTorch's antialiased weights: a triangle (bilinear) or Keys' cubic with a = -0.5
    (bicubic) stretched by the downscale factor, normalised per output."""
    s = _ratio(n_in, n_out, scale, ac)
    radius = 1.0 if mode == "bilinear" else 2.0
    stretch = max(s, 1.0)
    support = radius * stretch
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        centre = s * (i + 0.5)
        lo = max(int(centre - support + 0.5), 0)
        hi = min(int(centre + support + 0.5), n_in)
        z = np.abs((np.arange(lo, hi) - centre + 0.5) / stretch)
        if mode == "bilinear":
            w = np.maximum(1 - z, 0)
        else:
            a = -0.5
            w = np.where(
                z < 1,
                ((a + 2) * z - (a + 3)) * z * z + 1,
                np.where(z < 2, ((a * z - 5 * a) * z + 8 * a) * z - 4 * a, 0.0),
            )
        if w.sum() != 0:
            m[i, lo:hi] = w / w.sum()
    return m


def _nearest_index(n_in, n_out, scale, exact):
    """PyTorch's nearest source indices, in float32 (UpSample.h nearest_idx /
    nearest_exact_idx: ``floorf(dst * float32(scale))``)."""
    ft = np.float32
    r = ft(1.0 / scale) if scale is not None else ft(n_in) / ft(n_out)
    dst = np.arange(n_out, dtype=ft) + (ft(0.5) if exact else ft(0))
    return np.minimum(np.floor(dst * r).astype(np.int64), n_in - 1)


def _apply(x, dims, mats):
    for d, m in zip(dims, mats):
        x = np.moveaxis(np.tensordot(m, np.moveaxis(x, d, 0), axes=1), 0, d)
    return x


def _take(x, dims, idxs):
    for d, i in zip(dims, idxs):
        x = np.take(x, i, axis=d)
    return x


MODES = {
    "nearest": (1, 2, 3),
    "nearest-exact": (1, 2, 3),
    "linear": (1,),
    "bilinear": (2,),
    "bicubic": (2,),
    "trilinear": (3,),
    "area": (1, 2, 3),
}
SCALES = [0.3, 0.5, 0.6, 0.75, 0.9, 1.0, 1.2, 1.5, 1.7, 2.0, 2.5, 3.0, 3.7, 1 / 3]


def interp_setup(data, mode, nd, dtype, antialias=False):
    ins = [data.draw(st.integers(1, 6)) for _ in range(nd)]
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + ins
    kw: dict = {}
    if data.draw(st.booleans()):
        outs = [data.draw(st.integers(1, 10)) for _ in range(nd)]
        kw["size"] = outs if data.draw(st.booleans()) or nd == 1 else outs
        scales = [None] * nd
    else:
        sf = [data.draw(st.sampled_from(SCALES)) for _ in range(nd)]
        outs = [int(math.floor(n * s)) for n, s in zip(ins, sf)]
        assume(min(outs) >= 1)
        rec = data.draw(st.sampled_from([None, False, True]))
        kw.update(scale_factor=sf[0] if len(set(sf)) == 1 else sf, recompute_scale_factor=rec)
        scales = [None] * nd if rec else sf
    ac = False
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        ac = data.draw(st.booleans())
        kw["align_corners"] = ac
    if antialias:
        kw["antialias"] = True
    return shape, ins, outs, scales, ac, kw


@FUZZ
@given(st.sampled_from(sorted(MODES)), st.data())
def test_interpolate(mode, data):
    nd = data.draw(st.sampled_from(MODES[mode]))
    dtype = data.draw(DTYPES)
    shape, ins, outs, scales, ac, kw = interp_setup(data, mode, nd, dtype)
    nearest = mode.startswith("nearest")
    # An output size equal to the input's with a scale_factor != 1 kept: PyTorch copies
    # along that dimension for the linear modes (UpSample.h compute_source_index_and_lambda;
    # the reference below too; test_interpolate_same_size_scale_factor_regression). Its
    # 2-D nearest copies there, and shifts for out == 2 * in whatever the scale, only in
    # its channels-last kernel (UpSampleKernel.cpp nearest_idx, also taken for C == 1 or
    # C > 3), not in the generic one: no one answer to test there.
    same = [s is not None and o == n and s != 1.0 for n, o, s in zip(ins, outs, scales)]
    if mode == "nearest" and nd == 2:
        assume(not any(same))
        assume(not any(s is not None and o == 2 * n for n, o, s in zip(ins, outs, scales)))
    a, t = data.draw(viewed(dtype, shape=shape, special=nearest))
    x = np.asarray(a, np.float64)
    dims = list(range(2, 2 + nd))
    if nearest:
        exact = mode == "nearest-exact"
        # in float32, as PyTorch (test_interpolate_nearest_float64_index_regression)
        idx = [_nearest_index(n, o, s, exact) for n, o, s in zip(ins, outs, scales)]
        want = _take(x, dims, idx)
    elif mode == "area":
        want = _apply(x, dims, [_area_matrix(n, o) for n, o in zip(ins, outs)])
    elif mode == "bicubic":
        want = _apply(x, dims, [_cubic_matrix(n, o, s, ac) for n, o, s in zip(ins, outs, scales)])
    else:  # a kept size: PyTorch's copy along that dimension
        mats = [
            np.eye(n) if o == n else _linear_matrix(n, o, s, ac)
            for n, o, s in zip(ins, outs, scales)
        ]
        want = _apply(x, dims, mats)
    CALLS["interpolate"] += 1
    got = F.interpolate(t, mode=mode, **kw)
    sc = 10 * (1 + np.abs(x[np.isfinite(x)]).max(initial=0))
    if nearest:
        assert_same(got, want, dtype, f"interpolate {mode} {kw}")
    else:
        check(got, want, dtype, f"interpolate {mode} {kw}", sc)
    # the layer and the alias give the same
    if mode != "bicubic" and data.draw(st.booleans()):
        CALLS["interpolate"] += 1
        lkw = {k: v for k, v in kw.items() if k != "size"}
        layer = fg.nn.Upsample(size=kw.get("size"), mode=mode, **lkw)
        check(layer(t), got.numpy().astype(np.float64), dtype, "Upsample", sc)
    small = [min(n, 3) for n in ins]
    gshape = [1, 1] + small
    gkw = dict(kw)
    if "size" in gkw:
        gkw["size"] = [min(o, 4) for o in outs]
    else:
        assume(
            all(math.floor(n * s) >= 1 for n, s in zip(small, np.atleast_1d(kw["scale_factor"])))
        )
    grad_ok(lambda u: F.interpolate(u, mode=mode, **gkw), arr(data.draw, gshape))


@FUZZ
@given(st.sampled_from(["bilinear", "bicubic"]), st.data())
def test_interpolate_antialias(mode, data):
    dtype = data.draw(DTYPES)
    shape, ins, outs, scales, ac, kw = interp_setup(data, mode, 2, dtype, antialias=True)
    a, t = data.draw(viewed(dtype, shape=shape, special=False))
    x = np.asarray(a, np.float64)
    # a kept size, whatever the scale: PyTorch skips that dimension (UpSampleKernel.cpp
    # separable_upsample_generic_Nd_kernel_impl)
    mats = [
        np.eye(n) if o == n else _aa_matrix(n, o, s, ac, mode) for n, o, s in zip(ins, outs, scales)
    ]
    want = _apply(x, [2, 3], mats)
    CALLS["interpolate_aa"] += 1
    got = F.interpolate(t, mode=mode, **kw)
    check(got, want, dtype, f"interpolate aa {mode} {kw}", 10 * (1 + np.abs(x).max()))
    gkw = dict(kw)
    gkw.pop("scale_factor", None)
    gkw.pop("recompute_scale_factor", None)
    gkw["size"] = [min(o, 3) for o in outs]
    grad_ok(lambda u: F.interpolate(u, mode=mode, **gkw), arr(data.draw, [1, 1, 5, 4]))


@FUZZ
@given(st.data())
def test_upsample_aliases(data):
    ins = [data.draw(st.integers(1, 5)) for _ in range(2)]
    outs = [data.draw(st.integers(1, 8)) for _ in range(2)]
    x = arr(data.draw, [1, 2, *ins])
    t = fg.tensor(x)
    idx = [_nearest_index(n, o, None, False) for n, o in zip(ins, outs)]
    lin = _apply(x, [2, 3], [_linear_matrix(n, o, None, True) for n, o in zip(ins, outs)])
    CALLS["upsample"] += 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(
            F.upsample_nearest(t, outs), _take(x, [2, 3], idx), "float64", "upsample_nearest"
        )
        check(F.upsample_bilinear(t, outs), lin, "float64", "upsample_bilinear", 10)
        check(
            F.upsample(t, outs, mode="bilinear", align_corners=True), lin, "float64", "upsample", 10
        )
    check(fg.nn.UpsamplingBilinear2d(size=outs)(t), lin, "float64", "UpsamplingBilinear2d", 10)


# ---------------------------------------------------------------- max / avg pooling
def _out_len(n, k, s, p, d, ceil):
    num = n + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _windows(n, k, s, p, d, ceil):
    """Per output position: (in-range input positions, PyTorch's avg divisor with the
    padding counted, without)."""
    res = []
    for o in range(_out_len(n, k, s, p, d, ceil)):
        st0 = o * s - p
        pos = [q for q in range(st0, st0 + (k - 1) * d + 1, d) if 0 <= q < n]
        full = min(st0 + k, n + p) - st0
        res.append((pos, full, min(st0 + k, n) - max(st0, 0)))
    return res


def pool_ref(x, nd, k, s, p, d, ceil, kind, cip=True, div=None):
    """Max (values, flat indices, NaN count per window) or avg of the last `nd` dims."""
    sp = x.shape[-nd:]
    wins = [_windows(sp[i], k[i], s[i], p[i], d[i], ceil) for i in range(nd)]
    outs = [len(w) for w in wins]
    lead = x.shape[:-nd]
    val = np.empty(lead + tuple(outs))
    arg = np.zeros(val.shape, np.int64)
    nans = np.zeros(val.shape, np.int64)
    for cell in np.ndindex(*outs):
        pos = [wins[i][cell[i]][0] for i in range(nd)]
        if not all(pos):
            return None
        win = x[(Ellipsis, *np.ix_(*pos))].reshape(lead + (-1,))
        flat = np.ravel_multi_index(np.meshgrid(*pos, indexing="ij"), sp).reshape(-1)
        if kind == "max":
            isn = np.isnan(win)
            first = np.where(
                isn.any(-1), isn.argmax(-1), np.argmax(np.where(isn, -np.inf, win), -1)
            )
            val[(Ellipsis, *cell)] = np.where(isn.any(-1), np.nan, win.max(-1))
            arg[(Ellipsis, *cell)] = flat[first]
            nans[(Ellipsis, *cell)] = isn.sum(-1)
        else:
            full = math.prod(wins[i][cell[i]][1] for i in range(nd))
            clip = math.prod(wins[i][cell[i]][2] for i in range(nd))
            val[(Ellipsis, *cell)] = win.sum(-1) / (div if div else (full if cip else clip))
    return val, arg, nans


def pool_params(data, nd, dilate):
    sp = [data.draw(st.integers(1, 5)) for _ in range(nd)]
    k = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    s = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    d = [data.draw(st.integers(1, 2)) if dilate else 1 for _ in range(nd)]
    p = [data.draw(st.integers(0, ((ki - 1) * di + 1) // 2)) for ki, di in zip(k, d)]
    ceil = data.draw(st.booleans())
    # no window at all: refused, as PyTorch does ("Output size is too small"); a padded
    # input shorter than the kernel with ceil_mode has one, clipped
    # (test_pool_ceil_mode_short_input_regression)
    assume(all(_out_len(n, ki, si, pi, di, ceil) >= 1 for n, ki, si, pi, di in zip(sp, k, s, p, d)))
    return sp, k, s, p, d, ceil


@FUZZ
@given(st.sampled_from([1, 2, 3]), st.data())
def test_max_pool_and_unpool(nd, data):
    sp, k, s, p, d, ceil = pool_params(data, nd, dilate=True)
    dtype = data.draw(DTYPES)
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + sp
    a, t = data.draw(viewed(dtype, shape=shape))
    x = np.asarray(a, np.float64)
    ref = pool_ref(x, nd, k, s, p, d, ceil, "max")
    assume(ref is not None)  # a dilated window wholly in the padding: refused (PyTorch: -inf)
    fn = getattr(F, f"max_pool{nd}d")
    CALLS["max_pool"] += 1
    out, idx = fn(t, k, s, p, d, ceil_mode=ceil, return_indices=True)
    assert_same(out, ref[0], dtype, f"max_pool{nd}d")
    # indices: windows of several NaN differ (PyTorch: the last NaN, ferrograd the first)
    ok = ref[2] <= 1
    assert idx.dtype.name == "int64"
    np.testing.assert_array_equal(idx.numpy()[ok], ref[1][ok], err_msg=f"max_pool{nd}d indices")
    # gradients and unpooling on distinct values
    gx = distinct(data.draw, shape)
    grad_ok(lambda u: fn(u, k, s, p, d, ceil_mode=ceil), gx)
    assume(d == [1] * nd)
    vals, ind = fn(fg.tensor(gx), k, s, p, ceil_mode=ceil, return_indices=True)
    default = [(o - 1) * si - 2 * pi + ki for o, si, pi, ki in zip(vals.shape[2:], s, p, k)]
    extra = [data.draw(st.integers(0, si - 1)) for si in s]
    size = [a_ + b for a_, b in zip(default, extra)]
    assume(min(size) >= 1)
    flat = ind.numpy().reshape(shape[0], shape[1], -1)
    assume(flat.max(initial=0) < math.prod(size))
    unp = getattr(F, f"max_unpool{nd}d")
    want = np.zeros((shape[0], shape[1], math.prod(size)))
    np.put_along_axis(want, flat, vals.numpy().reshape(flat.shape), 2)
    CALLS["max_unpool"] += 1
    osz = None if extra == [0] * nd else size
    got = unp(vals, ind, k, s, p, output_size=osz)
    assert_same(got, want.reshape(shape[:2] + size), "float64", f"max_unpool{nd}d")
    grad_ok(lambda u: unp(u, ind, k, s, p, output_size=osz), vals.numpy())


@FUZZ
@given(st.sampled_from([1, 2, 3]), st.data())
def test_avg_pool(nd, data):
    sp, k, s, p, d, ceil = pool_params(data, nd, dilate=False)
    cip = data.draw(st.booleans())
    div = data.draw(st.sampled_from([None, None, 2, 5])) if nd > 1 else None
    dtype = data.draw(DTYPES)
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + sp
    a, t = data.draw(viewed(dtype, shape=shape, special=False))
    x = np.asarray(a, np.float64)
    want = pool_ref(x, nd, k, s, p, d, ceil, "avg", cip, div)[0]
    fn = getattr(F, f"avg_pool{nd}d")
    kw = dict(divisor_override=div) if div else {}
    CALLS["avg_pool"] += 1
    got = fn(t, k, s, p, ceil, cip, **kw)
    check(got, want, dtype, f"avg_pool{nd}d cip={cip} div={div}", 10 * (1 + np.abs(x).max()))
    grad_ok(lambda u: fn(u, k, s, p, ceil, cip, **kw), arr(data.draw, [1, 1] + sp))


def _adaptive_ref(x, nd, outs, kind):
    sp = x.shape[-nd:]
    lead = x.shape[:-nd]
    val = np.empty(lead + tuple(outs))
    arg = np.zeros(val.shape, np.int64)
    for cell in np.ndindex(*outs):
        rng = [range(o * n // m, -(-(o + 1) * n // m)) for o, n, m in zip(cell, sp, outs)]
        win = x[(Ellipsis, *np.ix_(*rng))].reshape(lead + (-1,))
        flat = np.ravel_multi_index(np.meshgrid(*rng, indexing="ij"), sp).reshape(-1)
        val[(Ellipsis, *cell)] = win.max(-1) if kind == "max" else win.mean(-1)
        arg[(Ellipsis, *cell)] = flat[win.argmax(-1)]
    return val, arg


@FUZZ
@given(st.sampled_from(["avg", "max"]), st.sampled_from([1, 2, 3]), st.data())
def test_adaptive_pools(kind, nd, data):
    sp = [data.draw(st.integers(1, 7)) for _ in range(nd)]
    raw = [data.draw(st.sampled_from([None, 1, 2, 3, 4, 5])) for _ in range(nd)]
    if nd == 1:
        raw = [raw[0] or 3]
    outs = [s if o is None else o for s, o in zip(sp, raw)]
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + sp
    unbatched = data.draw(st.booleans())
    dtype = data.draw(DTYPES)
    a, t = data.draw(viewed(dtype, shape=shape, special=False))
    x = np.asarray(a, np.float64)
    if kind == "max":
        x = distinct(data.draw, shape)
        t = fg.tensor(x, dtype=dtype)
        x = x.astype(dtype).astype(np.float64)
    val, arg = _adaptive_ref(x, nd, outs, kind)
    fn = getattr(F, f"adaptive_{kind}_pool{nd}d")
    osz = raw[0] if nd == 1 else (tuple(raw) if data.draw(st.booleans()) else list(raw))
    if unbatched:
        t, val, arg = t[0], val[0], arg[0]
    CALLS["adaptive_pool"] += 1
    if kind == "max":
        got, idx = fn(t, osz, return_indices=True)
        assert_same(idx, arg, "int64", f"adaptive_max_pool{nd}d indices")
    else:
        got = fn(t, osz)
    check(got, val, dtype, f"adaptive_{kind}_pool{nd}d {osz}", 10 * (1 + np.abs(x).max()))
    small = [min(s_, 4) for s_ in sp]
    gx = distinct(data.draw, [1, 1] + small)
    gosz = [min(o, s_) for o, s_ in zip(outs, small)]
    grad_ok(lambda u: fn(u, gosz), gx)


# ---------------------------------------------------------------- lp_pool, LRN
@FUZZ
@given(st.sampled_from([1, 2, 3]), st.sampled_from([1.0, 2.0, 3.0, 1.5, math.inf]), st.data())
def test_lp_pool(nd, p, data):
    sp = [data.draw(st.integers(1, 5)) for _ in range(nd)]
    k = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    s = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    ceil = data.draw(st.booleans())
    assume(all(_out_len(n, ki, si, 0, 1, ceil) >= 1 for n, ki, si in zip(sp, k, s)))
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + sp
    positive = p == 1.5 or data.draw(st.booleans())
    x = arr(data.draw, shape, 0.1 if positive else -3.0, 3.0)
    wins = [_windows(sp[i], k[i], s[i], 0, 1, ceil) for i in range(nd)]
    outs = [len(w) for w in wins]
    want = np.empty(shape[:2] + outs)
    for cell in np.ndindex(*outs):
        pos = [wins[i][cell[i]][0] for i in range(nd)]
        win = x[(Ellipsis, *np.ix_(*pos))].reshape(shape[:2] + [-1])
        cnt = win.shape[-1]
        with np.errstate(invalid="ignore"):
            if math.isinf(p):
                want[(Ellipsis, *cell)] = np.abs(win).max(-1)
            else:  # PyTorch: avg_pool(x^p) * prod(k), the ceil-mode edge windows included
                want[(Ellipsis, *cell)] = np.power((win**p).sum(-1) * math.prod(k) / cnt, 1 / p)
    fn = getattr(F, f"lp_pool{nd}d")
    ks = k if nd > 1 or data.draw(st.booleans()) else k[0]
    CALLS["lp_pool"] += 1
    got = fn(fg.tensor(x), p, ks, s, ceil)
    check(got, want, "float64", f"lp_pool{nd}d p={p}", 100)
    gx = distinct(data.draw, [1, 1] + sp)
    gx = gx - gx.min() + 0.5  # positive and distinct: no |x| ties, no kink at 0
    grad_ok(lambda u: fn(u, p, ks, s, ceil), gx)


@FUZZ
@given(st.data())
def test_local_response_norm(data):
    nsp = data.draw(st.integers(1, 3))
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 5))]
    shape += [data.draw(st.integers(1, 3)) for _ in range(nsp)]
    size = data.draw(st.integers(1, 6))
    alpha = data.draw(st.sampled_from([1e-4, 0.5, 2.0]))
    beta = data.draw(st.sampled_from([0.75, 0.5, 1.3]))
    k = data.draw(st.sampled_from([1.0, 2.0, 0.5]))
    dtype = data.draw(DTYPES)
    a, t = data.draw(viewed(dtype, shape=shape, special=False))
    x = np.asarray(a, np.float64)
    c = shape[1]
    sq = np.concatenate(
        [
            np.zeros([shape[0], size // 2] + shape[2:]),
            x * x,
            np.zeros([shape[0], (size - 1) // 2] + shape[2:]),
        ],
        1,
    )
    win = sum(sq[:, i : i + c] for i in range(size))
    want = x / (k + alpha / size * win) ** beta
    CALLS["local_response_norm"] += 1
    check(F.local_response_norm(t, size, alpha, beta, k), want, dtype, "local_response_norm", 10)
    grad_ok(lambda u: F.local_response_norm(u, size, alpha, beta, k), arr(data.draw, [1, c, 2]))


# ---------------------------------------------------------------- fractional max pooling
def _frac_starts(n, o, k, u):
    if o == 1:
        return [n - k]
    alpha = (n - k) / (o - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(o - 1)] + [n - k]


@FUZZ
@given(st.sampled_from([2, 3]), st.data())
def test_fractional_max_pool(nd, data):
    sp = [data.draw(st.integers(1, 6)) for _ in range(nd)]
    ks = [data.draw(st.integers(1, min(3, n))) for n in sp]
    outs = [data.draw(st.integers(1, n - k + 1)) for n, k in zip(sp, ks)]
    shape = [data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))] + sp
    x = distinct(data.draw, shape)
    u = arr(data.draw, [shape[0], shape[1], nd], 0.0, 0.999)
    order = (1, 0) if nd == 2 else (0, 1, 2)  # PyTorch's sample order: (w, h) / (t, h, w)
    val = np.empty(shape[:2] + outs)
    arg = np.zeros(val.shape, np.int64)
    for b, ch in np.ndindex(*shape[:2]):
        starts = [_frac_starts(sp[j], outs[j], ks[j], u[b, ch, order[j]]) for j in range(nd)]
        for cell in np.ndindex(*outs):
            rng = [range(starts[j][cell[j]], starts[j][cell[j]] + ks[j]) for j in range(nd)]
            win = x[(b, ch, *np.ix_(*rng))].reshape(-1)
            flat = np.ravel_multi_index(np.meshgrid(*rng, indexing="ij"), sp).reshape(-1)
            val[(b, ch, *cell)] = win.max()
            arg[(b, ch, *cell)] = flat[win.argmax()]
    fn = getattr(F, f"fractional_max_pool{nd}d")
    CALLS["fractional_max_pool"] += 1
    got, idx = fn(
        fg.tensor(x), ks, output_size=outs, return_indices=True, _random_samples=fg.tensor(u)
    )
    check(got, val, "float64", f"fractional_max_pool{nd}d", 10)
    assert_same(idx, arg, "int64", f"fractional_max_pool{nd}d indices")
    grad_ok(lambda w: fn(w, ks, output_size=outs, _random_samples=fg.tensor(u)), x)


# ---------------------------------------------------------------- Paddle's spellings
def _paddle_linear_matrix(n_in, n_out, scale, ac, align_mode):
    """Paddle's linear weights (float64 here): ratio 0 for one output, align_mode=1 maps
    dst * ratio."""
    r = 0.0 if n_out <= 1 else _ratio(n_in, n_out, scale, ac)
    dst = np.arange(n_out)
    flag = align_mode == 0 and not ac
    src = np.maximum(r * (dst + 0.5) - 0.5, 0) if flag else r * dst
    i0 = np.maximum(np.floor(src).astype(np.int64), 0)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    m = np.zeros((n_out, n_in))
    np.add.at(m, (dst, i0), 1 - lam)
    np.add.at(m, (dst, i1), lam)
    return m


@FUZZ
@given(st.sampled_from(["bilinear", "nearest"]), st.data())
def test_paddle_interpolate_nhwc(mode, data):
    ins = [data.draw(st.integers(1, 5)) for _ in range(2)]
    ac = data.draw(st.booleans())
    align_mode = data.draw(st.sampled_from([0, 1]))
    if data.draw(st.booleans()):
        outs = [data.draw(st.integers(2, 8)) for _ in range(2)]  # (1: Paddle's ratio is 0)
        kw, scales = dict(size=outs), [None, None]
    else:  # dyadic scales: Paddle's float32 size and ratio are exact
        sf = [data.draw(st.sampled_from([0.5, 1.5, 2.0, 2.5, 3.0])) for _ in range(2)]
        outs = [int(n * s) for n, s in zip(ins, sf)]
        assume(min(outs) >= 2)
        kw, scales = dict(scale_factor=sf), sf
    x = arr(data.draw, [data.draw(st.integers(1, 2)), *ins, data.draw(st.integers(1, 3))])
    if outs == ins:  # Paddle copies (interpolate_kernel.cc Interpolate2DCPUFwd)
        want = x
    elif mode == "nearest":
        idx = []
        for n, o, s in zip(ins, outs, scales):
            if ac:
                # Paddle's float32 ratio (NearestNeighborInterpolate)
                r32 = np.float32(n - 1) / np.float32(o - 1)
                i32 = (np.arange(o, dtype=np.float32) * r32 + np.float32(0.5)).astype(np.int64)
                idx.append(np.minimum(i32, n - 1))
            else:
                idx.append(_nearest_index(n, o, s, False))
        want = _take(x, [1, 2], idx)
    else:
        mats = [
            _paddle_linear_matrix(n, o, s, ac, align_mode) for n, o, s in zip(ins, outs, scales)
        ]
        want = _apply(x, [1, 2], mats)
    CALLS["paddle_interpolate"] += 1
    got = PADDLE["functional"](
        "interpolate", fg.tensor(x), mode=mode, align_corners=ac, align_mode=align_mode,
        data_format="NHWC", **kw,
    )  # fmt: skip
    check(got, want, "float64", f"paddle interpolate {mode} ac={ac} am={align_mode} {kw}", 10)
    if mode == "bilinear":
        grad_ok(
            lambda u: PADDLE["functional"](
                "interpolate",
                u,
                size=[3, 2],
                mode="bilinear",
                align_corners=ac,
                align_mode=align_mode,
                data_format="NHWC",
            ),  # fmt: skip
            arr(data.draw, [1, 2, 3, 2]),
        )


@FUZZ
@given(st.data())
def test_paddle_pools(data):
    sp = [data.draw(st.integers(1, 6)) for _ in range(2)]
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    x = distinct(data.draw, [n, c, *sp])
    xl = np.ascontiguousarray(np.moveaxis(x, 1, -1))  # NHWC
    # adaptive_avg_pool2d with data_format='NHWC'
    outs = [data.draw(st.sampled_from([None, 1, 2, 3, 4])) for _ in range(2)]
    full = [s if o is None else o for s, o in zip(sp, outs)]
    want = np.moveaxis(_adaptive_ref(x, 2, full, "avg")[0], 1, -1)
    CALLS["paddle_pool"] += 1
    got = PADDLE["functional"]("adaptive_avg_pool2d", fg.tensor(xl), outs, data_format="NHWC")
    check(got, want, "float64", "paddle adaptive_avg_pool2d NHWC", 10)
    # max_pool2d(x, k, s, p, return_mask, ceil_mode): Paddle's positional order
    k = [data.draw(st.integers(1, 3)) for _ in range(2)]
    s = [data.draw(st.integers(1, 3)) for _ in range(2)]
    p = [data.draw(st.integers(0, ki // 2)) for ki in k]
    ceil = data.draw(st.booleans())
    assume(all(m + 2 * pi >= ki for m, ki, pi in zip(sp, k, p)))
    # Paddle's ceil-mode size has no "last window starts inside" rule: keep where they agree
    paddle_len = [
        (m - ki + 2 * pi + (si - 1 if ceil else 0)) // si + 1 for m, ki, si, pi in zip(sp, k, s, p)
    ]
    assume(paddle_len == [_out_len(m, ki, si, pi, 1, ceil) for m, ki, si, pi in zip(sp, k, s, p)])
    ref = pool_ref(x, 2, k, s, p, [1, 1], ceil, "max")
    assume(ref is not None)
    CALLS["paddle_pool"] += 1
    out, mask = PADDLE["functional"]("max_pool2d", fg.tensor(x), k, s, p, True, ceil)
    check(out, ref[0], "float64", "paddle max_pool2d", 10)
    np.testing.assert_array_equal(mask.numpy(), ref[1], err_msg="paddle max_pool2d mask")
    # avg_pool2d in Paddle code: exclusive=True (padding not counted) by default
    CALLS["paddle_pool"] += 1
    got = PADDLE["functional"]("avg_pool2d", fg.tensor(x), k, s, p, ceil_mode=ceil)
    want = pool_ref(x, 2, k, s, p, [1, 1], ceil, "avg", cip=False)[0]
    check(got, want, "float64", "paddle avg_pool2d exclusive", 10)
    grad_ok(lambda u: PADDLE["functional"]("max_pool2d", u, k, s, p, False, ceil), x)


# ------------------------------------------------- regressions: bugs this fuzzer found
def test_interpolate_same_size_scale_factor_regression():
    """A kept size with a scale_factor != 1 (floor(4 * 1.2) == 4). PyTorch: the linear
    modes copy along that dimension (UpSample.h compute_source_index_and_lambda,
    ``output_size == input_size``), antialias skips it (UpSampleKernel.cpp
    separable_upsample_generic_Nd_kernel_impl), nearest and bicubic resample at
    1 / scale (HelperInterpNearest / HelperInterpCubic). Paddle: a copy when every
    spatial size is kept (interpolate_kernel.cc Interpolate1D/2D/3DCPUFwd), in every mode."""
    x = np.arange(4.0) ** 1.5
    got = F.interpolate(fg.tensor(x.reshape(1, 1, 4)), scale_factor=1.2, mode="linear")
    np.testing.assert_allclose(got.numpy().ravel(), x, rtol=1e-12)  # PyTorch: x itself
    x2 = np.arange(16.0).reshape(1, 1, 4, 4) ** 1.5
    t2 = fg.tensor(x2)
    for ac in (False, True):
        got = F.interpolate(t2, scale_factor=1.2, mode="bilinear", align_corners=ac)
        np.testing.assert_allclose(got.numpy(), x2, rtol=1e-12)
    x3 = np.arange(27.0).reshape(1, 1, 3, 3, 3) ** 1.5
    got = F.interpolate(fg.tensor(x3), scale_factor=1.2, mode="trilinear")
    np.testing.assert_allclose(got.numpy(), x3, rtol=1e-12)
    # one size kept, one doubled: the kept one is copied, the other resampled at 1/2
    got = F.interpolate(t2, scale_factor=(1.2, 2.0), mode="bilinear")
    want = F.interpolate(t2, size=(4, 8), mode="bilinear")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    for sf, size in ((1.2, (4, 4)), ((1.2, 0.5), (4, 2))):
        got = F.interpolate(t2, scale_factor=sf, mode="bicubic", antialias=True)
        want = F.interpolate(t2, size=size, mode="bicubic", antialias=True)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    # PyTorch's nearest and bicubic resample: index floor(i * float32(1 / 1.2))
    got = F.interpolate(fg.tensor(x.reshape(1, 1, 4)), scale_factor=1.2, mode="nearest")
    np.testing.assert_array_equal(got.numpy().ravel(), x[[0, 0, 1, 2]])
    got = F.interpolate(t2, scale_factor=1.2, mode="bicubic")
    assert not np.allclose(got.numpy(), x2)
    got = F.interpolate(t2, scale_factor=1.2, mode="nearest", recompute_scale_factor=True)
    np.testing.assert_array_equal(got.numpy(), x2)
    grad_ok(lambda u: F.interpolate(u, scale_factor=(1.2, 2.0), mode="bilinear"), x2)
    # Paddle code: every size kept: a copy, whatever the mode
    for mode in ("nearest", "bilinear", "bicubic"):
        got = PADDLE["functional"]("interpolate", t2, scale_factor=1.2, mode=mode)
        np.testing.assert_array_equal(got.numpy(), x2)
    # ... one kept: both resampled, the kept one at Paddle's ratio 1 / 1.2
    got = PADDLE["functional"]("interpolate", t2, scale_factor=[1.2, 2.0], mode="bilinear")
    mats = [_paddle_linear_matrix(4, 4, 1.2, False, 0), _paddle_linear_matrix(4, 8, 2.0, False, 0)]
    np.testing.assert_allclose(got.numpy(), _apply(x2, [2, 3], mats), rtol=1e-6)


def test_interpolate_nearest_float64_index_regression():
    """Nearest indices in float32, as PyTorch (UpSample.h nearest_idx: ``floorf(dst *
    float32(in / out))``; nearest_exact_idx with ``dst + 0.5``) and Paddle
    (NearestNeighborInterpolate, a float ratio), for float32 and float64 inputs."""
    for dtype in ("float32", "float64"):
        x = fg.arange(18.0, dtype=dtype).reshape([1, 1, 18])
        got = F.interpolate(x, size=66, mode="nearest").numpy().ravel()
        assert got[55] == 15.0  # floor(55 * 18 / 66) = 15 exactly; float64: 14.999...
        # nearest-exact: float32(2 / 41) * 20.5 < 1 (float64: exactly 1)
        x = fg.tensor([[[10.0, 20.0]]], dtype=dtype)
        got = F.interpolate(x, size=41, mode="nearest-exact").numpy().ravel()
        assert got[20] == 10.0 and got[21] == 20.0


def test_pool_ceil_mode_short_input_regression():
    """A padded input shorter than the kernel has one clipped window with ceil_mode
    (Pool.h pooling_output_shape: div_rtn, then the last window must start inside the
    input or the left padding); the average counts the window up to the padded end
    (count_include_pad) or the input (AvgPoolKernel.cpp: pool_size = hend - hstart with
    hend = min(hstart + k, H + pad)). No window at all is refused, as PyTorch does."""
    x = fg.tensor([[[1.0, 2.0]]])
    assert F.avg_pool1d(x, 3, 3, 0, True).tolist() == [[[1.5]]]  # PyTorch: 1.5
    out, idx = F.max_pool1d(x, 3, 3, 0, 1, True, return_indices=True)
    assert out.tolist() == [[[2.0]]] and idx.tolist() == [[[1]]]  # PyTorch: 2, index 1
    # 2-D, width 1 padded by 1 against a kernel of 4: the window is [-1, 3), padded end 2
    x2 = fg.tensor([[[[5.0], [7.0]]]])
    got = F.avg_pool2d(x2, (2, 4), (2, 4), (0, 1), True, True)
    np.testing.assert_allclose(got.numpy(), [[[[12.0 / 6.0]]]], rtol=1e-6)  # 2 x 3 counted
    got = F.avg_pool2d(x2, (2, 4), (2, 4), (0, 1), True, False)
    np.testing.assert_allclose(got.numpy(), [[[[6.0]]]], rtol=1e-6)  # 2 x 1 inside
    out, idx = F.max_pool2d(x2, (2, 4), (2, 4), (0, 1), 1, True, return_indices=True)
    assert out.tolist() == [[[[7.0]]]] and idx.tolist() == [[[[1]]]]
    # PyTorch: (avg_pool(x^2) * 3) ** 0.5 = (2.5 * 3) ** 0.5
    np.testing.assert_allclose(F.lp_pool1d(x, 2.0, 3, 3, True).numpy(), [[[7.5**0.5]]], 1e-6)
    xs = np.array([[[0.3, -1.1]]])
    for pad, cip in itertools.product((0, 1), (True, False)):
        grad_ok(lambda u, pad=pad, cip=cip: F.avg_pool1d(u, 3, 3, pad, True, cip), xs)
    grad_ok(lambda u: F.max_pool1d(u, 3, 3, 0, 1, True), xs)
    with pytest.raises(ValueError, match="no output window"):
        F.avg_pool1d(x, 3, 3, 0, False)  # PyTorch: "Output size is too small"
    with pytest.raises(ValueError, match="no output window"):
        F.max_pool1d(fg.tensor([[[1.0]]]), 3, 1, 0, 1, True)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("pad", ["border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample_nan_border_regression(nd, mode, pad, ac):
    """A NaN grid coordinate (and under reflection +-inf) reads as -1 (PyTorch's docs;
    its 2-D CPU clip_coordinates, GridSamplerKernel.cpp ``clamp_min(Vec(0), in)`` "to
    clamp Nans to zero", and CUDA's fmax). The input's gradient is that of -1, the
    grid's is 0 there."""
    if nd == 2 and not ac and pad == "border":
        x = fg.arange(1.0, 10.0).reshape([1, 1, 3, 3])
        got = F.grid_sample(x, fg.tensor([[[[np.nan, 0.0]]]]), mode, pad, align_corners=False)
        assert got.item() == 4.0  # PyTorch: 4.0, as at x = -1
    sp = [3, 4, 2][:nd]
    x = np.arange(1.0, 1.0 + math.prod(sp)).reshape([1, 1, *sp]) ** 1.3
    g = np.array([[0.3, -0.4, 0.1], [-0.7, 0.6, 0.2], [0.5, 0.25, -0.9]])[:, :nd]
    g = g.reshape([1] + [1] * (nd - 1) + [3, nd])
    bad = g.copy()
    bad[..., 0, 0] = np.nan
    bad[..., 1, -1] = np.nan
    if pad == "reflection":
        bad[..., 2, 0] = np.inf
        bad[..., 2, -1] = -np.inf
    ok = np.where(np.isfinite(bad), bad, -1.0)
    xt = fg.tensor(x, requires_grad=True)
    gt = fg.tensor(bad, requires_grad=True)
    out = F.grid_sample(xt, gt, mode=mode, padding_mode=pad, align_corners=ac)
    want = F.grid_sample(fg.tensor(x), fg.tensor(ok), mode=mode, padding_mode=pad, align_corners=ac)
    np.testing.assert_allclose(out.detach().numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        out.detach().numpy(), grid_sample_ref(x, ok, mode, pad, ac), rtol=1e-12
    )
    w = np.arange(1.0, 1.0 + out.numel()).reshape(out.shape)
    (out * fg.tensor(w)).sum().backward()
    xr = fg.tensor(x, requires_grad=True)
    ref = F.grid_sample(xr, fg.tensor(ok), mode=mode, padding_mode=pad, align_corners=ac)
    (ref * fg.tensor(w)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), xr.grad.numpy(), rtol=1e-12)
    gg = gt.grad.numpy()
    assert np.isfinite(gg).all() and (gg[~np.isfinite(bad)] == 0).all()
