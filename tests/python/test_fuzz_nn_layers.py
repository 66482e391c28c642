"""Differential fuzzer for ferrograd's convolution, recurrent and attention layers:
``F.conv1d/2d/3d`` (stride, int / tuple / ``"same"`` / ``"valid"`` padding, dilation,
groups, bias), ``F.conv_transpose1d/2d/3d`` (stride, padding, output_padding, dilation,
groups), ``nn.Conv2d``'s ``padding_mode``, ``F.unfold`` / ``F.fold``,
``F.pixel_shuffle`` / ``pixel_unshuffle``, ``F.linear`` / ``F.bilinear``,
``F.embedding_bag`` (sum / mean / max, offsets, per-sample weights, ``padding_idx``),
``F.scaled_dot_product_attention`` (bool / float masks, ``is_causal``, ``scale``),
``nn.MultiheadAttention`` (batch_first, kdim / vdim, key padding mask, weights averaged or
per head) and ``nn.RNN`` / ``LSTM`` / ``GRU`` and their cells (layers, directions,
batch_first, bias, ``proj_size``, given states), on random small shapes and parameters
(float64 and float32, inputs seen through random views), checked against float64 NumPy
references written from PyTorch's documented formulas (direct loops over kernel offsets
for the convolutions) with the modules' own weights read out, and their gradients with
respect to inputs and weights with ``ferrograd.autograd.gradcheck`` (``gradgradcheck``
for the cheap convolutions) on small float64 cases. This module is PyTorch code
(``torch = fg`` below, docs/dialects.md): weights in PyTorch's layouts (``[out,
in/groups, *k]``), and a query whose keys are all masked gets zero weights
(ferrograd's documented choice, docs/layers-sequence.md; PyTorch gives NaN).
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import hypothesis.extra.numpy as hnp
import numpy as np
from ferrograd.autograd import gradcheck, gradgradcheck
from fuzz_support import CALLS, FUZZ, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.special import expit

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

TOL = {"float64": (1e-10, 1e-12), "float32": (2e-5, 1e-5)}
DTYPES = st.sampled_from(["float32", "float64"])


def check(got, want, dtype, what, scale=1.0):
    """`got` (tensor) equals `want` (float64 NumPy): shape, dtype, finite values within
    rtol and an atol scaled by `scale` (the magnitudes summed into each value)."""
    g = npy(got)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
    g = g.astype(np.float64)
    assert np.isfinite(g).all(), f"{what}: not finite\n{g}"
    rtol, atol = TOL[dtype]
    bound = atol * (1 + np.broadcast_to(scale, w.shape)) + rtol * np.abs(w)
    bad = np.abs(g - w) > bound
    assert not bad.any(), f"{what}: got {g[bad]}, expected {w[bad]}"


def npy(t):
    return np.array(t.detach().numpy())


def leaf(a, dtype="float64"):
    t = fg.tensor(np.ascontiguousarray(a), dtype=dtype)
    t.requires_grad = True
    return t


def grad_ok(fn, *arrays):
    CALLS["gradcheck"] += 1
    assert gradcheck(fn, tuple(leaf(a) for a in arrays), eps=1e-6, atol=1e-6, rtol=1e-4)


def gradgrad_ok(fn, *arrays):
    CALLS["gradgradcheck"] += 1
    assert gradgradcheck(fn, tuple(leaf(a) for a in arrays), eps=1e-6, atol=1e-6, rtol=1e-4)


def arr(draw, shape, lo=-2.0, hi=2.0):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def tt(v, dtype=None):
    return None if v is None else fg.tensor(np.ascontiguousarray(v), dtype=dtype or v.dtype.name)


def ints(draw, n, lo, hi):
    return [draw(st.integers(lo, hi)) for _ in range(n)]


def spec(draw, vals):
    """A per-dim parameter as PyTorch takes it: an int when all equal (sometimes), else
    a tuple."""
    if len(set(vals)) == 1 and draw(st.booleans()):
        return vals[0]
    return tuple(vals)


# ---------------------------------------------------------------- convolutions
def conv_ref(x, w, b, stride, lo, hi, dil, groups):
    """PyTorch's convolution (cross-correlation) of x [N, C, *S] with w [O, C/g, *k]:
    zero padding lo/hi per dim, a sum over the kernel offsets."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    n, c = x.shape[:2]
    o, k = w.shape[0], w.shape[2:]
    outs = [(xp.shape[2 + i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    xg = xp.reshape(n, groups, c // groups, *xp.shape[2:])
    wg = w.reshape(groups, o // groups, c // groups, *k)
    out = np.zeros((n, groups, o // groups, *outs))
    for kid in np.ndindex(*k):
        sl = tuple(
            slice(dil[i] * kid[i], dil[i] * kid[i] + stride[i] * (outs[i] - 1) + 1, stride[i])
            for i in range(nd)
        )
        out += np.einsum("ngc...,goc->ngo...", xg[(slice(None),) * 3 + sl], wg[(Ellipsis, *kid)])
    out = out.reshape(n, o, *outs)
    return out if b is None else out + b.reshape(o, *[1] * nd)


def conv_grads_ref(x, w, gy, stride, lo, hi, dil, groups):
    """The gradients (dx, dw, db) of sum(conv_ref(x, w, b, ...) * gy): each kernel
    offset's product adjointed."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    n, c = x.shape[:2]
    o, k = w.shape[0], w.shape[2:]
    outs = gy.shape[2:]
    xg = xp.reshape(n, groups, c // groups, *xp.shape[2:])
    wg = w.reshape(groups, o // groups, c // groups, *k)
    gg = gy.reshape(n, groups, o // groups, *outs)
    dxp, dw = np.zeros_like(xg), np.zeros_like(wg)
    for kid in np.ndindex(*k):
        sl = tuple(
            slice(dil[i] * kid[i], dil[i] * kid[i] + stride[i] * (outs[i] - 1) + 1, stride[i])
            for i in range(nd)
        )
        at = (slice(None),) * 3 + sl
        dxp[at] += np.einsum("ngo...,goc->ngc...", gg, wg[(Ellipsis, *kid)])
        xs = xg[at].reshape(n, groups, c // groups, -1)
        dw[(Ellipsis, *kid)] = np.einsum("ngcl,ngol->goc", xs, gg.reshape(*gg.shape[:3], -1))
    crop = tuple(slice(a, a + s) for a, s in zip(lo, x.shape[2:]))
    dx = dxp.reshape(n, c, *xp.shape[2:])[(slice(None), slice(None), *crop)]
    return dx, dw.reshape(w.shape), gy.sum(axis=(0, *range(2, gy.ndim)))


def conv_out(size, k, s, lo, hi, d):
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


@st.composite
def conv_case(draw, nd, max_side=5):
    g = draw(st.integers(1, 3))
    # more than 2 outputs per group leave the direct kernel for im2col + gemm
    cg, og = draw(st.integers(1, 3)), draw(st.sampled_from([1, 2, 3, 4]))
    n = draw(st.integers(1, 2))
    k = ints(draw, nd, 1, 3)
    dil = ints(draw, nd, 1, 2)
    kind = draw(st.sampled_from(["int", "tuple", "same", "valid"]))
    stride = [1] * nd if kind == "same" else ints(draw, nd, 1, 3)
    if kind == "same":
        total = [d * (kk - 1) for d, kk in zip(dil, k)]
        lo, hi = [t // 2 for t in total], [t - t // 2 for t in total]
        pad = "same"
    elif kind == "valid":
        lo = hi = [0] * nd
        pad = "valid"
    else:
        lo = hi = ints(draw, nd, 0, 2)
        pad = spec(draw, lo) if kind == "int" else tuple(lo)
    side = max_side if nd < 3 else 4
    S = ints(draw, nd, 1, side)
    assume(all(conv_out(*a) >= 1 for a in zip(S, k, stride, lo, hi, dil)))
    return dict(
        g=g, c=g * cg, o=g * og, n=n, k=k, S=S, lo=lo, hi=hi, pad=pad, dil=dil, stride=stride
    )


@FUZZ
@given(st.sampled_from([1, 2, 3]), DTYPES, st.booleans(), st.data())
def test_conv(nd, dtype, with_bias, data):
    cs = data.draw(conv_case(nd))
    a, t = data.draw(viewed(dtype, shape=[cs["n"], cs["c"]] + cs["S"], special=False))
    x = np.asarray(a, np.float64)
    wa, wt = data.draw(viewed(dtype, shape=[cs["o"], cs["c"] // cs["g"]] + cs["k"], special=False))
    w = np.asarray(wa, np.float64)
    b = arr(data.draw, [cs["o"]]).astype(dtype).astype(np.float64) if with_bias else None
    fn = getattr(F, f"conv{nd}d")
    st_, dl_ = spec(data.draw, cs["stride"]), spec(data.draw, cs["dil"])
    kw = dict(stride=st_, padding=cs["pad"], dilation=dl_, groups=cs["g"])
    want = conv_ref(x, w, b, cs["stride"], cs["lo"], cs["hi"], cs["dil"], cs["g"])
    absb = None if b is None else np.abs(b)
    sc = conv_ref(np.abs(x), np.abs(w), absb, cs["stride"], cs["lo"], cs["hi"], cs["dil"], cs["g"])
    CALLS["conv"] += 1
    check(fn(t, wt, tt(b, dtype), **kw), want, dtype, f"conv{nd}d {kw}", sc)
    if data.draw(st.booleans()):  # unbatched [C, *S]
        CALLS["conv"] += 1
        got = fn(fg.tensor(x[0], dtype=dtype), tt(w, dtype), tt(b, dtype), **kw)
        check(got, want[0], dtype, f"conv{nd}d unbatched {kw}", sc[0])
    conv_backward_check(fn, x, w, b, kw, cs, data)


def conv_backward_check(fn, x, w, b, kw, cs, data):
    """The backward of a float64 conv against conv_grads_ref at any size, and gradcheck
    (gradgradcheck) on the small ones."""
    xl, wl = leaf(x), leaf(w)
    bl = None if b is None else leaf(b)
    out = fn(xl, wl, bl, **kw)
    gy = arr(data.draw, out.shape)
    (out * fg.tensor(gy)).sum().backward()
    dx, dw, db = conv_grads_ref(x, w, gy, cs["stride"], cs["lo"], cs["hi"], cs["dil"], cs["g"])
    CALLS["conv_backward"] += 1
    sc = 10 * (1 + np.abs(gy).sum())
    check(xl.grad, dx, "float64", f"conv dx {kw}", sc)
    check(wl.grad, dw, "float64", f"conv dw {kw}", sc)
    if b is not None:
        check(bl.grad, db, "float64", f"conv db {kw}", sc)
    size = x[:1].size + w.size
    if size <= 90:
        args = (x[:1], w) + (() if b is None else (b,))
        grad_ok(lambda *u: fn(*u, **kw), *args)
        if size <= 40 and data.draw(st.booleans()):
            gradgrad_ok(lambda *u: fn(*u, **kw), *args)


@FUZZ
@given(st.sampled_from([1, 2]), DTYPES, st.booleans(), st.data())
def test_conv_large_plane(nd, dtype, with_bias, data):
    """Planes of 512+ output positions at stride 1: the shifted-gemm kernel."""
    cs = data.draw(conv_case(nd, max_side=3))
    cs["stride"] = [1] * nd
    cs["S"] = [data.draw(st.integers(512, 700))] if nd == 1 else ints(data.draw, 2, 23, 28)
    cs["k"] = [max(kk, 2) for kk in cs["k"]]
    if cs["pad"] == "same":
        total = [d * (kk - 1) for d, kk in zip(cs["dil"], cs["k"])]
        cs["lo"], cs["hi"] = [t // 2 for t in total], [t - t // 2 for t in total]
    x = arr(data.draw, [1, cs["c"]] + cs["S"]).astype(dtype).astype(np.float64)
    w = arr(data.draw, [cs["o"], cs["c"] // cs["g"]] + cs["k"]).astype(dtype).astype(np.float64)
    b = arr(data.draw, [cs["o"]]).astype(dtype).astype(np.float64) if with_bias else None
    fn = getattr(F, f"conv{nd}d")
    kw = dict(padding=cs["pad"], dilation=tuple(cs["dil"]), groups=cs["g"])
    want = conv_ref(x, w, b, cs["stride"], cs["lo"], cs["hi"], cs["dil"], cs["g"])
    absb = None if b is None else np.abs(b)
    sc = conv_ref(np.abs(x), np.abs(w), absb, cs["stride"], cs["lo"], cs["hi"], cs["dil"], cs["g"])
    CALLS["conv"] += 1
    check(fn(tt(x, dtype), tt(w, dtype), tt(b, dtype), **kw), want, dtype, f"conv{nd}d {kw}", sc)
    if dtype == "float64":
        xl, wl = leaf(x), leaf(w)
        bl = None if b is None else leaf(b)
        out = fn(xl, wl, bl, **kw)
        gy = arr(data.draw, out.shape)
        (out * fg.tensor(gy)).sum().backward()
        dx, dw, db = conv_grads_ref(x, w, gy, cs["stride"], cs["lo"], cs["hi"], cs["dil"], cs["g"])
        CALLS["conv_backward"] += 1
        gsc = 10 * (1 + np.abs(gy).sum())
        check(xl.grad, dx, "float64", f"conv dx {kw}", gsc)
        check(wl.grad, dw, "float64", f"conv dw {kw}", gsc)
        if b is not None:
            check(bl.grad, db, "float64", f"conv db {kw}", gsc)


def convt_ref(x, w, b, stride, pad, opad, dil, groups):
    """PyTorch's transposed convolution of x [N, C, *S] with w [C, O/g, *k]: every input
    value scatters value * kernel at stride, then `pad` is cropped from each side (the
    high side widened by `opad`)."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    S, k, og = x.shape[2:], w.shape[2:], w.shape[1]
    full = [(S[i] - 1) * stride[i] + dil[i] * (k[i] - 1) + 1 + opad[i] for i in range(nd)]
    buf = np.zeros((n, groups, og, *full))
    xg = x.reshape(n, groups, c // groups, *S)
    wg = w.reshape(groups, c // groups, og, *k)
    for kid in np.ndindex(*k):
        sl = tuple(
            slice(dil[i] * kid[i], dil[i] * kid[i] + stride[i] * (S[i] - 1) + 1, stride[i])
            for i in range(nd)
        )
        buf[(slice(None),) * 3 + sl] += np.einsum("ngc...,gco->ngo...", xg, wg[(Ellipsis, *kid)])
    crop = tuple(slice(pad[i], full[i] - pad[i]) for i in range(nd))
    out = buf[(slice(None),) * 3 + crop].reshape(
        n, groups * og, *[f - 2 * p for f, p in zip(full, pad)]
    )
    return out if b is None else out + b.reshape(-1, *[1] * nd)


@FUZZ
@given(st.sampled_from([1, 2, 3]), DTYPES, st.booleans(), st.data())
def test_conv_transpose(nd, dtype, with_bias, data):
    g = data.draw(st.integers(1, 3))
    c, o = g * data.draw(st.integers(1, 2)), g * data.draw(st.integers(1, 2))
    n = data.draw(st.integers(1, 2))
    k, dil, stride = ints(data.draw, nd, 1, 3), ints(data.draw, nd, 1, 2), ints(data.draw, nd, 1, 3)
    S = ints(data.draw, nd, 1, 4 if nd < 3 else 3)
    pad = ints(data.draw, nd, 0, 2)
    opad = [data.draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dil)]
    outs = [
        (si - 1) * s - 2 * p + d * (kk - 1) + op + 1
        for si, s, p, d, kk, op in zip(S, stride, pad, dil, k, opad)
    ]
    assume(all(v >= 1 for v in outs))
    a, t = data.draw(viewed(dtype, shape=[n, c] + S, special=False))
    x = np.asarray(a, np.float64)
    wa, wt = data.draw(viewed(dtype, shape=[c, o // g] + k, special=False))
    w = np.asarray(wa, np.float64)
    b = arr(data.draw, [o]).astype(dtype).astype(np.float64) if with_bias else None
    fn = getattr(F, f"conv_transpose{nd}d")
    kw = dict(
        stride=spec(data.draw, stride),
        padding=spec(data.draw, pad),
        output_padding=spec(data.draw, opad),
        groups=g,
        dilation=spec(data.draw, dil),
    )
    want = convt_ref(x, w, b, stride, pad, opad, dil, g)
    absb = None if b is None else np.abs(b)
    sc = convt_ref(np.abs(x), np.abs(w), absb, stride, pad, opad, dil, g)
    CALLS["conv_transpose"] += 1
    check(fn(t, wt, tt(b, dtype), **kw), want, dtype, f"conv_transpose{nd}d {kw}", sc)
    size = x.size + w.size
    if size <= 80:
        args = (x[:1], w) + (() if b is None else (b,))
        grad_ok(lambda *u: fn(*u, **kw), *args)


NP_MODE = {"zeros": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@FUZZ
@given(st.sampled_from(sorted(NP_MODE)), st.booleans(), st.data())
def test_conv2d_module_padding_mode(mode, with_bias, data):
    cs = data.draw(conv_case(2))
    H, W = cs["S"]
    # reflect needs a pad below the size, circular at most the size
    top = [s - 1 if mode == "reflect" else s for s in cs["S"]]
    assume(all(max(lo, hi) <= tp for lo, hi, tp in zip(cs["lo"], cs["hi"], top)) or mode == "zeros")
    m = torch.nn.Conv2d(
        cs["c"],
        cs["o"],
        spec(data.draw, cs["k"]),
        stride=spec(data.draw, cs["stride"]),
        padding=cs["pad"],
        dilation=spec(data.draw, cs["dil"]),
        groups=cs["g"],
        bias=with_bias,
        padding_mode=mode,
        dtype=torch.float64,
    )
    w = npy(m.weight)
    b = npy(m.bias) if with_bias else None
    assert w.shape == (cs["o"], cs["c"] // cs["g"], *cs["k"])
    a, t = data.draw(viewed("float64", shape=[cs["n"], cs["c"], H, W], special=False))
    x = np.asarray(a, np.float64)
    width = [(0, 0), (0, 0)] + list(zip(cs["lo"], cs["hi"]))
    xp = np.pad(x, width, mode=NP_MODE[mode])
    want = conv_ref(xp, w, b, cs["stride"], [0, 0], [0, 0], cs["dil"], cs["g"])
    CALLS["conv_module"] += 1
    check(m(t), want, "float64", f"Conv2d {mode} {cs}", 10)
    if x.size + w.size <= 90:
        names = ["weight"] + (["bias"] if with_bias else [])

        def call(u, *ps):
            return fg.func.functional_call(m, dict(zip(names, ps)), (u,))

        grad_ok(call, x[:1], w, *([b] if with_bias else []))


# ---------------------------------------------------------------- unfold / fold
def unfold_ref(x, k, dil, pad, stride):
    n, c, H, W = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])])
    oh, ow = (
        conv_out(s, kk, st_, p, p, d) for s, kk, st_, p, d in zip((H, W), k, stride, pad, dil)
    )
    cols = np.empty((n, c, k[0], k[1], oh, ow))
    for i, j in np.ndindex(*k):
        r0, c0 = dil[0] * i, dil[1] * j
        cols[:, :, i, j] = xp[
            :,
            :,
            r0 : r0 + stride[0] * (oh - 1) + 1 : stride[0],
            c0 : c0 + stride[1] * (ow - 1) + 1 : stride[1],
        ]
    return cols.reshape(n, c * k[0] * k[1], oh * ow)


def fold_ref(cols, size, k, dil, pad, stride):
    n = cols.shape[0]
    c = cols.shape[1] // (k[0] * k[1])
    oh, ow = (conv_out(s, kk, st_, p, p, d) for s, kk, st_, p, d in zip(size, k, stride, pad, dil))
    cc = cols.reshape(n, c, k[0], k[1], oh, ow)
    buf = np.zeros((n, c, size[0] + 2 * pad[0], size[1] + 2 * pad[1]))
    for i, j in np.ndindex(*k):
        r0, c0 = dil[0] * i, dil[1] * j
        buf[
            :,
            :,
            r0 : r0 + stride[0] * (oh - 1) + 1 : stride[0],
            c0 : c0 + stride[1] * (ow - 1) + 1 : stride[1],
        ] += cc[:, :, i, j]
    return buf[:, :, pad[0] : pad[0] + size[0], pad[1] : pad[1] + size[1]]


@FUZZ
@given(DTYPES, st.data())
def test_unfold_fold(dtype, data):
    k, dil, stride = ints(data.draw, 2, 1, 3), ints(data.draw, 2, 1, 2), ints(data.draw, 2, 1, 3)
    pad = ints(data.draw, 2, 0, 2)
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    size = ints(data.draw, 2, 1, 6)
    outs = [conv_out(s, kk, st_, p, p, d) for s, kk, st_, p, d in zip(size, k, stride, pad, dil)]
    assume(min(outs) >= 1)
    kw = dict(
        kernel_size=spec(data.draw, k),
        dilation=spec(data.draw, dil),
        padding=spec(data.draw, pad),
        stride=spec(data.draw, stride),
    )
    a, t = data.draw(viewed(dtype, shape=[n, c] + size, special=False))
    x = np.asarray(a, np.float64)
    CALLS["unfold"] += 1
    check(F.unfold(t, **kw), unfold_ref(x, k, dil, pad, stride), dtype, f"unfold {kw}", 1)
    L = outs[0] * outs[1]
    b, tc = data.draw(viewed(dtype, shape=[n, c * k[0] * k[1], L], special=False))
    cols = np.asarray(b, np.float64)
    want = fold_ref(cols, size, k, dil, pad, stride)
    CALLS["fold"] += 1
    check(F.fold(tc, size, **kw), want, dtype, f"fold {kw}", 10)
    if x[:1].size <= 40:
        grad_ok(lambda u: F.unfold(u, **kw), x[:1])
    if cols[:1].size <= 60:
        grad_ok(lambda u: F.fold(u, size, **kw), cols[:1])


# ---------------------------------------------------------------- pixel shuffle
@FUZZ
@given(DTYPES, st.data())
def test_pixel_shuffle(dtype, data):
    r = data.draw(st.integers(1, 3))
    lead = ints(data.draw, data.draw(st.integers(0, 2)), 1, 2)
    c, h, w = (
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 3)),
    )
    a, t = data.draw(viewed(dtype, shape=lead + [c * r * r, h, w], special=False))
    x = np.asarray(a, np.float64)
    want = x.reshape(*lead, c, r, r, h, w)
    nl = len(lead)
    perm = list(range(nl)) + [nl, nl + 3, nl + 1, nl + 4, nl + 2]
    want = want.transpose(perm).reshape(*lead, c, h * r, w * r)
    CALLS["pixel_shuffle"] += 2
    check(F.pixel_shuffle(t, r), want, dtype, "pixel_shuffle", 1)
    b, tb = data.draw(viewed(dtype, shape=lead + [c, h * r, w * r], special=False))
    y = np.asarray(b, np.float64)
    inv = y.reshape(*lead, c, h, r, w, r)
    perm = list(range(nl)) + [nl, nl + 2, nl + 4, nl + 1, nl + 3]
    inv = inv.transpose(perm).reshape(*lead, c * r * r, h, w)
    check(F.pixel_unshuffle(tb, r), inv, dtype, "pixel_unshuffle", 1)
    grad_ok(lambda u: F.pixel_shuffle(u, r), x.reshape(-1, c * r * r, h, w)[:1])
    grad_ok(lambda u: F.pixel_unshuffle(u, r), y.reshape(-1, c, h * r, w * r)[:1])


# ---------------------------------------------------------------- linear / bilinear
@FUZZ
@given(DTYPES, st.booleans(), st.data())
def test_linear_bilinear(dtype, with_bias, data):
    lead = ints(data.draw, data.draw(st.integers(0, 2)), 0, 3)
    i1, i2, o = (data.draw(st.integers(1, 4)) for _ in range(3))
    a, t = data.draw(viewed(dtype, shape=lead + [i1], special=False))
    x = np.asarray(a, np.float64)
    wa, wt = data.draw(viewed(dtype, shape=[o, i1], special=False))
    w = np.asarray(wa, np.float64)
    b = arr(data.draw, [o]).astype(dtype).astype(np.float64) if with_bias else None
    want = x @ w.T + (0 if b is None else b)
    sc = np.abs(x) @ np.abs(w).T + (0 if b is None else np.abs(b))
    CALLS["linear"] += 1
    check(F.linear(t, wt, tt(b, dtype)), want, dtype, "linear", sc)
    c, tc = data.draw(viewed(dtype, shape=lead + [i2], special=False))
    x2 = np.asarray(c, np.float64)
    A = arr(data.draw, [o, i1, i2]).astype(dtype).astype(np.float64)
    want = np.einsum("...i,oij,...j->...o", x, A, x2) + (0 if b is None else b)
    sc = np.einsum("...i,oij,...j->...o", np.abs(x), np.abs(A), np.abs(x2))
    CALLS["bilinear"] += 1
    check(F.bilinear(t, tc, tt(A, dtype), tt(b, dtype)), want, dtype, "bilinear", sc + 1)
    xs, x2s = x.reshape(-1, i1)[:2], x2.reshape(-1, i2)[:2]
    bb = () if b is None else (b,)
    grad_ok(lambda *u: F.linear(*u), xs, w, *bb)
    grad_ok(lambda *u: F.bilinear(*u), xs, x2s, A, *bb)


# ---------------------------------------------------------------- embedding_bag
def bag_ref(w, bags, mode, psw, pad):
    """PyTorch's embedding_bag on explicit bags (lists of (id, per-sample weight))."""
    out = np.zeros((len(bags), w.shape[1]))
    for i, bag in enumerate(bags):
        kept = [(j, s) for j, s in bag if j != pad]
        if not kept:
            continue
        rows = np.stack([w[j] * (s if psw else 1.0) for j, s in kept])
        out[i] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0)}[mode]
    return out


@FUZZ
@given(st.sampled_from(["sum", "mean", "max"]), st.booleans(), st.data())
def test_embedding_bag(mode, with_offsets, data):
    num, d = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 3))
    w = arr(data.draw, [num, d])
    if mode == "max":  # distinct values: a tie between rows has no derivative
        w = np.asarray(data.draw(st.permutations(range(num * d)))).reshape(num, d) / 7.0 - 1
    dtype = data.draw(DTYPES)
    w = w.astype(dtype).astype(np.float64)
    pad = data.draw(st.sampled_from([None, 0, num - 1, -1]))
    padn = None if pad is None else pad % num
    psw_on = mode == "sum" and data.draw(st.booleans())
    include_last = False
    if with_offsets:
        n = data.draw(st.integers(0, 8))
        ids = data.draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, num - 1)))
        cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=1, max_size=4)))
        cuts[0] = 0
        include_last = data.draw(st.booleans())
        offsets = cuts + [n] if include_last else cuts
        ends = cuts[1:] + [n]
        bag_idx = [list(range(s, e)) for s, e in zip(cuts, ends)]
    else:
        B, L = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        ids = data.draw(hnp.arrays(np.int64, (B, L), elements=st.integers(0, num - 1)))
        offsets = None
        bag_idx = [list(range(r * L, (r + 1) * L)) for r in range(B)]
    psw = arr(data.draw, ids.shape, -2, 2) if psw_on else None
    flat_ids, flat_psw = ids.reshape(-1), (psw.reshape(-1) if psw_on else np.ones(ids.size))
    bags = [[(int(flat_ids[j]), flat_psw[j]) for j in b] for b in bag_idx]
    want = bag_ref(w, bags, mode, psw_on, padn)
    kw = dict(mode=mode, padding_idx=pad, include_last_offset=include_last)
    off = None if offsets is None else fg.tensor(np.asarray(offsets, np.int64))
    CALLS["embedding_bag"] += 1
    got = F.embedding_bag(
        fg.tensor(ids), tt(w, dtype), off, per_sample_weights=tt(psw, dtype), **kw
    )
    check(got, want, dtype, f"embedding_bag {kw}", 1 + (1 + np.abs(w).max()) * ids.size * 4)
    if psw_on:
        grad_ok(
            lambda u, s: F.embedding_bag(fg.tensor(ids), u, off, per_sample_weights=s, **kw), w, psw
        )
    else:
        grad_ok(lambda u: F.embedding_bag(fg.tensor(ids), u, off, **kw), w)


# ---------------------------------------------------------------- attention
def softmax_rows(s, keep):
    """Softmax over the last dim with `keep` (bool) positions only; a row with none kept
    gives zeros (ferrograd's documented choice)."""
    keep = np.broadcast_to(keep, s.shape)
    z = np.where(keep, s, -np.inf)
    m = np.max(np.where(keep, s, -1e300), -1, keepdims=True)
    e = np.where(keep, np.exp(z - m), 0.0)
    tot = e.sum(-1, keepdims=True)
    return np.where(tot > 0, e / np.where(tot > 0, tot, 1.0), 0.0)


@FUZZ
@given(DTYPES, st.sampled_from(["none", "bool", "float", "causal"]), st.data())
def test_scaled_dot_product_attention(dtype, mask_kind, data):
    lead = ints(data.draw, data.draw(st.integers(0, 2)), 1, 2)
    L, S = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    E, Ev = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    qa, q = data.draw(viewed(dtype, shape=lead + [L, E], special=False))
    ka, k = data.draw(viewed(dtype, shape=lead + [S, E], special=False))
    va, v = data.draw(viewed(dtype, shape=lead + [S, Ev], special=False))
    qa, ka, va = (np.asarray(u, np.float64) for u in (qa, ka, va))
    scale = data.draw(st.sampled_from([None, 0.5, 1.3]))
    sc = 1 / np.sqrt(E) if scale is None else scale
    s = qa @ np.swapaxes(ka, -1, -2) * sc
    # a mask broadcasting against [*lead, L, S]: some trailing dims of it, some of size 1
    mshape = [data.draw(st.sampled_from([1, d])) for d in lead + [L, S]]
    mshape = mshape[data.draw(st.integers(0, len(lead))) :]
    mask, keep, kw = None, np.ones(s.shape, bool), {}
    if mask_kind == "bool":
        keep = data.draw(hnp.arrays(bool, tuple(mshape)))
        mask = fg.tensor(keep)
    elif mask_kind == "float":
        fm = arr(data.draw, mshape).astype(dtype).astype(np.float64)
        s = s + fm
        mask = tt(fm, dtype)
    elif mask_kind == "causal":
        keep = np.tril(np.ones((L, S), bool))
        kw["is_causal"] = True
    p = softmax_rows(s, keep)
    want = p @ va
    CALLS["sdpa"] += 1
    got = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0, scale=scale, **kw)
    check(got, want, dtype, f"sdpa {mask_kind} {mshape}", 10 * (1 + np.abs(s).max()))
    if qa.size + ka.size + va.size > 60:
        return
    if mask_kind == "float":

        def fn(a, b, c, m):
            return F.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=scale)

        grad_ok(fn, qa, ka, va, fm)
    else:
        grad_ok(
            lambda a, b, c: F.scaled_dot_product_attention(
                a, b, c, attn_mask=mask, scale=scale, **kw
            ),
            qa,
            ka,
            va,
        )


def mha_ref(q, k, v, ps, heads, kpm, am, avg):
    """PyTorch's multi_head_attention_forward on batch-first [N, L, E] inputs; `kpm` /
    `am` are additive float masks (-inf for a bool True), broadcast to [N, H, L, S]."""
    wq, bq, wk, bk, wv, bv, wo, bo = ps
    N, L, E = q.shape
    S = k.shape[1]
    hd = E // heads

    def split(a, n):
        return a.reshape(N, n, heads, hd).transpose(0, 2, 1, 3)

    Q, K, V = split(q @ wq.T + bq, L), split(k @ wk.T + bk, S), split(v @ wv.T + bv, S)
    s = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(hd)
    add = np.zeros((N, heads, L, S))
    if kpm is not None:
        add = add + kpm[:, None, None, :]
    if am is not None:
        add = add + (am if am.ndim == 2 else am.reshape(N, heads, L, S))
    keep = ~np.isneginf(add)
    p = softmax_rows(s + np.where(keep, add, 0.0), keep)
    o = (p @ V).transpose(0, 2, 1, 3).reshape(N, L, E) @ wo.T + bo
    return o, (p.mean(1) if avg else p)


@FUZZ
@given(st.booleans(), st.booleans(), st.booleans(), st.data())
def test_multihead_attention(batch_first, with_bias, separate, data):
    heads = data.draw(st.integers(1, 3))
    E = heads * data.draw(st.integers(1, 2))
    kdim = data.draw(st.integers(1, 4)) if separate else E
    vdim = data.draw(st.integers(1, 4)) if separate else E
    m = torch.nn.MultiheadAttention(
        E, heads, bias=with_bias, kdim=kdim, vdim=vdim, batch_first=batch_first, dtype=torch.float64
    )
    if with_bias:  # random biases, not the zeros of the initialisation
        with torch.no_grad():
            m.in_proj_bias.copy_(fg.tensor(arr(data.draw, [3 * E])))
            m.out_proj.bias.copy_(fg.tensor(arr(data.draw, [E])))
    if m.in_proj_weight is not None:
        wi = npy(m.in_proj_weight)
        wq, wk, wv = wi[:E], wi[E : 2 * E], wi[2 * E :]
    else:
        wq, wk, wv = npy(m.q_proj_weight), npy(m.k_proj_weight), npy(m.v_proj_weight)
    bi = npy(m.in_proj_bias) if with_bias else np.zeros(3 * E)
    bo = npy(m.out_proj.bias) if with_bias else np.zeros(E)
    ps = [wq, bi[:E], wk, bi[E : 2 * E], wv, bi[2 * E :], npy(m.out_proj.weight), bo]
    batched = data.draw(st.booleans())
    N = data.draw(st.integers(1, 3)) if batched else 1
    L, S = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    q, k, v = arr(data.draw, [N, L, E]), arr(data.draw, [N, S, kdim]), arr(data.draw, [N, S, vdim])
    kpm_kind = data.draw(st.sampled_from(["none", "bool", "float"]))
    am_kind = data.draw(st.sampled_from(["none", "bool", "float"]))
    am_3d = batched and data.draw(st.booleans())
    kpm = kpm_t = am = am_t = None
    if kpm_kind == "bool":
        mk = data.draw(hnp.arrays(bool, (N, S)))
        kpm, kpm_t = np.where(mk, -np.inf, 0.0), fg.tensor(mk if batched else mk[0])
    elif kpm_kind == "float":
        kpm = arr(data.draw, [N, S])
        kpm_t = fg.tensor(kpm if batched else kpm[0])
    ashape = [N * heads, L, S] if am_3d else [L, S]
    if am_kind == "bool":
        ma = data.draw(hnp.arrays(bool, tuple(ashape)))
        am, am_t = np.where(ma, -np.inf, 0.0), fg.tensor(ma)
    elif am_kind == "float":
        am = arr(data.draw, ashape)
        am_t = fg.tensor(am)
    need, avg = data.draw(st.booleans()), data.draw(st.booleans())
    want_o, want_w = mha_ref(q, k, v, ps, heads, kpm, am, avg)

    def lay(a):  # [N, L, E] reference layout -> the layer's
        if not batched:
            return a[0]
        return a if batch_first else a.transpose(1, 0, 2)

    kw = dict(key_padding_mask=kpm_t, need_weights=need, attn_mask=am_t, average_attn_weights=avg)
    CALLS["multihead_attention"] += 1
    out, wts = m(fg.tensor(lay(q)), fg.tensor(lay(k)), fg.tensor(lay(v)), **kw)
    what = f"MHA bf={batch_first} batched={batched} {kpm_kind}/{am_kind} need={need} avg={avg}"
    check(out, lay(want_o), "float64", what, 100)
    if need:
        check(wts, want_w if batched else want_w[0], "float64", what + " weights", 1)
    else:
        assert wts is None
    names = (
        ["in_proj_weight"] if not separate else ["q_proj_weight", "k_proj_weight", "v_proj_weight"]
    )
    names = [n for n in names if getattr(m, n) is not None]
    if not batched and N * L * E <= 16:
        pvals = [npy(getattr(m, n)) for n in names]

        def call(a, b, c, *pw):
            r = fg.func.functional_call(m, dict(zip(names, pw)), (a, b, c), kw)
            return r[0] if not need else (r[0], r[1])

        grad_ok(call, lay(q), lay(k), lay(v), *pvals)


# ---------------------------------------------------------------- recurrent layers
def cell_ref(kind, x, h, c, wih, whh, bih, bhh, nonlin="tanh", whr=None):
    """One step of PyTorch's RNN / LSTM / GRU cell (documented gate order: LSTM i, f, g, o;
    GRU r, z, n); returns (h', c')."""
    gi = x @ wih.T + bih
    gh = h @ whh.T + bhh
    if kind == "RNN":
        z = gi + gh
        return (np.tanh(z) if nonlin == "tanh" else np.maximum(z, 0)), None
    if kind == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c2 = expit(f) * c + expit(i) * np.tanh(g)
        h2 = expit(o) * np.tanh(c2)
        return (h2 if whr is None else h2 @ whr.T), c2
    ir, iz, inn = np.split(gi, 3, axis=-1)
    hr, hz, hn = np.split(gh, 3, axis=-1)
    r, z = expit(ir + hr), expit(iz + hz)
    n = np.tanh(inn + r * hn)
    return (1 - z) * n + z * h, None


def rnn_ref(kind, m, x, h0, c0, nonlin, bias):
    """A stacked (bi)directional layer on time-major x [T, N, I]: (output, h_n, c_n)."""
    D = 2 if m.bidirectional else 1
    H = m.hidden_size
    hout = m.proj_size or H
    inp = x
    hn, cn = [], []
    for layer in range(m.num_layers):
        outs = []
        for d in range(D):
            sfx = f"_l{layer}" + ("_reverse" if d else "")

            def p(name, sfx=sfx):
                t = getattr(m, name + sfx, None)
                return None if t is None else npy(t)

            wih, whh = p("weight_ih"), p("weight_hh")
            bih = p("bias_ih") if bias else np.zeros(wih.shape[0])
            bhh = p("bias_hh") if bias else np.zeros(whh.shape[0])
            whr = p("weight_hr") if m.proj_size else None
            h, c = h0[layer * D + d], c0[layer * D + d]
            seq = range(inp.shape[0] - 1, -1, -1) if d else range(inp.shape[0])
            o = np.zeros((inp.shape[0], inp.shape[1], hout))
            for t in seq:
                h, c = cell_ref(kind, inp[t], h, c, wih, whh, bih, bhh, nonlin, whr)
                o[t] = h
            outs.append(o)
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hn), (np.stack(cn) if kind == "LSTM" else None)


@FUZZ
@given(st.sampled_from(["RNN", "LSTM", "GRU"]), DTYPES, st.data())
def test_rnn_layers(kind, dtype, data):
    nin, H = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    layers = data.draw(st.integers(1, 2))
    bidir, bf, bias = (data.draw(st.booleans()) for _ in range(3))
    kw = dict(num_layers=layers, bias=bias, batch_first=bf, bidirectional=bidir)
    nonlin = "tanh"
    if kind == "RNN":
        nonlin = data.draw(st.sampled_from(["tanh", "relu"]))
        kw["nonlinearity"] = nonlin
    if kind == "LSTM" and H > 1 and data.draw(st.booleans()):
        kw["proj_size"] = data.draw(st.integers(1, H - 1))
    m = getattr(torch.nn, kind)(nin, H, dtype=getattr(torch, dtype), **kw)
    hout = kw.get("proj_size", H)
    D = 2 if bidir else 1
    T, N = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    batched = data.draw(st.booleans())  # unbatched: [T, H_in] whatever batch_first says
    x = arr(data.draw, [T, N, nin]).astype(dtype).astype(np.float64)
    given_h = data.draw(st.booleans())
    h0 = arr(data.draw, [layers * D, N, hout]) if given_h else np.zeros((layers * D, N, hout))
    c0 = arr(data.draw, [layers * D, N, H]) if given_h else np.zeros((layers * D, N, H))
    h0, c0 = h0.astype(dtype).astype(np.float64), c0.astype(dtype).astype(np.float64)
    assert m.bias is bias
    want, hn, cn = rnn_ref(kind, m, x, h0, c0, nonlin, bias)

    def lay(a):
        if not batched:
            return a[:, 0]
        return a.transpose(1, 0, 2) if bf else a

    def st_(a):
        return a if batched else a[:, 0]

    xt = fg.tensor(np.ascontiguousarray(lay(x)), dtype=dtype)
    args = (xt,)
    if given_h:
        hx = (tt(st_(h0), dtype), tt(st_(c0), dtype)) if kind == "LSTM" else tt(st_(h0), dtype)
        args = (xt, hx)
    CALLS["rnn"] += 1
    out, state = m(*args)
    what = f"{kind} {kw} batched={batched} h0={given_h}"
    check(out, lay(want), dtype, what, 10)
    if kind == "LSTM":
        check(state[0], st_(hn), dtype, what + " h_n", 10)
        check(state[1], st_(cn), dtype, what + " c_n", 10)
    else:
        check(state, st_(hn), dtype, what + " h_n", 10)
    if dtype == "float64" and T * N * nin <= 8 and layers * D * H * (nin + H) <= 40:
        names = [n for n, _ in m.named_parameters()]
        pvals = [npy(p) for _, p in m.named_parameters()]

        def call(u, h, *pw):
            hx = (h, fg.tensor(st_(c0))) if kind == "LSTM" else h
            r = fg.func.functional_call(m, dict(zip(names, pw)), (u, hx))
            return (r[0], r[1][0], r[1][1]) if kind == "LSTM" else r

        if nonlin != "relu":  # relu: kinks
            grad_ok(call, lay(x), st_(h0), *pvals)


@FUZZ
@given(st.sampled_from(["RNNCell", "LSTMCell", "GRUCell"]), DTYPES, st.data())
def test_rnn_cells(kind, dtype, data):
    nin, H = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    bias = data.draw(st.booleans())
    kw = dict(bias=bias)
    nonlin = "tanh"
    if kind == "RNNCell":
        nonlin = data.draw(st.sampled_from(["tanh", "relu"]))
        kw["nonlinearity"] = nonlin
    m = getattr(torch.nn, kind)(nin, H, dtype=getattr(torch, dtype), **kw)
    wih, whh = npy(m.weight_ih), npy(m.weight_hh)
    bih = npy(m.bias_ih) if bias else np.zeros(wih.shape[0])
    bhh = npy(m.bias_hh) if bias else np.zeros(whh.shape[0])
    N = data.draw(st.integers(1, 3))
    batched = data.draw(st.booleans())
    x = arr(data.draw, [N, nin]).astype(dtype).astype(np.float64)
    given_h = data.draw(st.booleans())
    h0 = arr(data.draw, [N, H]).astype(dtype).astype(np.float64) if given_h else np.zeros((N, H))
    c0 = arr(data.draw, [N, H]).astype(dtype).astype(np.float64) if given_h else np.zeros((N, H))
    h1, c1 = cell_ref(kind[:-4], x, h0, c0, wih, whh, bih, bhh, nonlin)

    def lay(a):
        return a if batched else a[0]

    args = [tt(lay(x), dtype)]
    if given_h:
        args.append(
            (tt(lay(h0), dtype), tt(lay(c0), dtype)) if kind == "LSTMCell" else tt(lay(h0), dtype)
        )
    CALLS["rnn_cell"] += 1
    got = m(*args)
    what = f"{kind} {kw} batched={batched} h0={given_h}"
    if kind == "LSTMCell":
        check(got[0], lay(h1), dtype, what + " h", 10)
        check(got[1], lay(c1), dtype, what + " c", 10)
    else:
        check(got, lay(h1), dtype, what, 10)
    if dtype == "float64" and nonlin == "tanh":
        names = [n for n, _ in m.named_parameters()]
        pvals = [npy(p) for _, p in m.named_parameters()]

        def call(u, h, c, *pw):
            hx = (h, c) if kind == "LSTMCell" else h
            r = fg.func.functional_call(m, dict(zip(names, pw)), (u, hx))
            return r if kind != "LSTMCell" else (r[0], r[1])

        grad_ok(call, lay(x), lay(h0), lay(c0), *pvals)


# ------------------------------------------ regressions: bugs this fuzzer found (fixed)
def test_rnn_unbatched_batch_first_regression():
    m = torch.nn.GRU(1, 2, batch_first=True, dtype=torch.float64)
    x = fg.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64)  # unbatched [L=3, H_in=1]
    out, h = m(x)
    want, hw = m(x.unsqueeze(0))  # the same sequence as a batch of one
    assert out.shape == (3, 2) and h.shape == (1, 2)
    np.testing.assert_allclose(npy(out), npy(want[0]), rtol=1e-12)
    np.testing.assert_allclose(npy(h), npy(hw[:, 0]), rtol=1e-12)


def test_rnn_bias_attribute_regression():
    assert torch.nn.LSTM(2, 3, bias=False).bias is False
    assert torch.nn.GRU(2, 3).bias is True


def test_unfold_fold_unbatched_regression():
    x = fg.tensor(np.arange(24.0).reshape(2, 3, 4))
    cols = F.unfold(x, 2)
    np.testing.assert_array_equal(npy(cols), npy(F.unfold(x.unsqueeze(0), 2)[0]))
    np.testing.assert_array_equal(
        npy(F.fold(cols, (3, 4), 2)), npy(F.fold(cols[None], (3, 4), 2)[0])
    )


def test_linear_1d_weight_regression():
    got = F.linear(fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), fg.tensor([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(npy(got), [-2.0, -2.0])
