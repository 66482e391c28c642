"""Differential fuzzer for Paddle's ``nn`` layers and their ``nn.functional`` counterparts,
written as Paddle code (``import ferrograd as paddle``: the shared spellings are Paddle's,
docs/dialects.md): ``Linear`` (weight ``[in, out]``, Xavier-uniform weight, zero bias),
``Conv1D/2D/3D`` (int / per-dim / ``2*nd`` / pair paddings, ``'SAME'`` / ``'VALID'``,
stride, dilation, groups, ``padding_mode``, channels-last ``NLC`` / ``NHWC`` / ``NDHWC``),
``Conv2DTranspose`` (``output_padding``, ``output_size``, groups, dilation, NHWC),
``BatchNorm1D/2D/3D`` and the old ``BatchNorm`` (Paddle's keep-fraction ``momentum``, the
biased running variance, ``use_global_stats``, eval mode, NHWC, ``weight_attr=False``),
``LayerNorm``, ``GroupNorm`` (NHWC), ``InstanceNorm1D/2D/3D``, ``LocalResponseNorm``,
``Embedding`` (``padding_idx`` incl. negative, ``sparse``), ``Dropout`` (both modes, train
and eval), ``AlphaDropout``, ``MaxPool2D`` / ``AvgPool2D`` (``exclusive=True`` by default,
``ceil_mode``, ``return_mask``), ``AdaptiveAvgPool2D``, ``Upsample`` (nearest / bilinear,
``align_corners``, ``align_mode``), ``Pad2D`` (four modes, NHWC), ``PixelShuffle``,
``Flatten(start_axis, stop_axis)``, ``Softmax(axis)``, ``PReLU`` (``num_parameters``,
NHWC), ``Hardswish``, ``GELU(approximate)``, ``Maxout`` and ``LSTM`` / ``GRU`` /
``SimpleRNN`` (batch- or time-major, ``direction='bidirect'``, ``sequence_length``,
``initial_states``) — against float64 NumPy references written from Paddle's documented
formulas (Paddle 3.3.1's python/paddle/nn/layer and nn/functional, and its kernels where the
docs are silent), with the layers' own parameters read out; plus parameter shapes, default
initialisers' ranges and ``stop_gradient``, running statistics after train-mode steps, and
gradients (``backward()`` then ``param.grad`` against the NumPy adjoint, ``gradcheck`` on
small float64 inputs). Where ferrograd documents a choice of its own (convolution layers
start as PyTorch's, docs/layers-conv-pool.md; pooling masks are int64), that is what is
checked. Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import math

import ferrograd as paddle
import hypothesis.extra.numpy as hnp
import numpy as np
from ferrograd.autograd import gradcheck, gradgradcheck
from fuzz_support import CALLS, FUZZ, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.special import erf, expit

# this module names ferrograd `paddle` only: its shared spellings are Paddle's
nn = paddle.nn
F = paddle.nn.functional
TOL = {"float64": (1e-10, 1e-12), "float32": (2e-5, 2e-5)}
DTYPES = st.sampled_from(["float32", "float64"])


# ---------------------------------------------------------------- helpers
def npy(t):
    return np.array(t.detach().numpy(), dtype=np.float64)


def check(got, want, dtype, what, scale=1.0, tol=None):
    """`got` (tensor) equals `want` (float64 NumPy): shape, dtype, values within rtol and
    an atol scaled by `scale` (the magnitudes summed into each value)."""
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
    g = npy(got)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert np.isfinite(g).all() == np.isfinite(w).all(), f"{what}: not finite\n{g}"
    rtol, atol = tol or TOL[dtype]
    bound = atol * (1 + np.broadcast_to(scale, w.shape)) + rtol * np.abs(w)
    bad = ~(np.abs(g - w) <= bound)
    assert not bad.any(), f"{what}: got {g[bad]}, expected {w[bad]}"


def arr(data, shape, lo=-2.0, hi=2.0):
    return data.draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def tensor(a, dtype="float64", grad=False):
    return paddle.to_tensor(np.ascontiguousarray(a), dtype=dtype, stop_gradient=not grad)


def viewed_input(data, shape, dtype, lo=-2.0, hi=2.0):
    """(float64 NumPy array, tensor of `dtype` seen through a random view): the array is
    the float64 value of the tensor (float32 inputs rounded first)."""
    a, t = data.draw(viewed(dtype, shape=shape, special=False, lo=lo, hi=hi))
    return np.asarray(a, dtype=np.float64), t


def jittered(a, x, dtype):
    """`a` and `x` plus a fixed non-constant pattern, so that a normalised group is rarely
    constant (hypothesis likes constant arrays)."""
    jit = 0.1 * (np.arange(a.size) % 7).reshape(a.shape)
    jit = jit.astype(dtype).astype(np.float64)
    return (a + jit).astype(dtype).astype(np.float64), x + tensor(jit, dtype)


def set_params(layer, dtype, data, lo=-1.0, hi=1.0):
    """Cast `layer` to `dtype` and give each parameter random values; returns them as
    float64 NumPy arrays (rounded to `dtype`), by name."""
    layer.to(dtype=dtype)
    out = {}
    for name, p in layer.named_parameters():
        v = arr(data, list(p.shape), lo, hi).astype(dtype)
        p.set_value(v)
        out[name] = v.astype(np.float64)
    return out


def grad_ok(fn, *arrays, second=False):
    CALLS["gradcheck"] += 1
    inputs = tuple(tensor(a, grad=True) for a in arrays)
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-6, rtol=1e-4)
    if second:
        CALLS["gradgradcheck"] += 1
        assert gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def to_last(a, nd):
    """[N, C, *S] -> [N, *S, C]."""
    return np.moveaxis(a, 1, -1) if nd else a


def to_first(a):
    return np.moveaxis(a, -1, 1)


CHANNELS_LAST = {1: "NLC", 2: "NHWC", 3: "NDHWC"}
CHANNELS_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


# ---------------------------------------------------------------- Linear
@FUZZ
@given(st.data())
def test_linear(data):
    dtype = data.draw(DTYPES)
    fin, fout = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    has_bias = data.draw(st.booleans())
    lin = nn.Linear(fin, fout, bias_attr=None if has_bias else False)
    CALLS["Linear init"] += 1
    # Paddle: weight [in, out], Xavier uniform (limit sqrt(6 / (in + out))), bias zeros
    assert list(lin.weight.shape) == [fin, fout]
    assert lin.weight.stop_gradient is False
    limit = math.sqrt(6.0 / (fin + fout))
    assert float(lin.weight.abs().max()) <= limit * (1 + 1e-6)
    if has_bias:
        assert list(lin.bias.shape) == [fout] and lin.bias.stop_gradient is False
        assert float(lin.bias.abs().max()) == 0.0
    else:
        assert lin.bias is None
    if fin * fout >= 200:  # enough draws to fill the range
        assert float(lin.weight.abs().max()) > 0.8 * limit
    p = set_params(lin, dtype, data)
    lead = data.draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    a, x = viewed_input(data, [*lead, fin], dtype)
    w = p["weight"]
    b = p.get("bias", np.zeros(fout))
    want = a @ w + b
    CALLS["Linear"] += 1
    check(lin(x), want, dtype, "Linear", scale=np.abs(a) @ np.abs(w) + 1)
    CALLS["F.linear"] += 1
    check(
        F.linear(x, lin.weight, lin.bias if has_bias else None),
        want,
        dtype,
        "F.linear",
        scale=np.abs(a) @ np.abs(w) + 1,
    )
    # parameter gradients of sum(out * g) after backward
    g = arr(data, want.shape)
    lin.clear_gradients()
    (lin(x) * tensor(g, dtype)).sum().backward()
    a2, g2 = a.reshape(-1, fin), g.reshape(-1, fout)
    CALLS["Linear grad"] += 1
    check(lin.weight.grad, a2.T @ g2, dtype, "dW", scale=np.abs(a2).T @ np.abs(g2))
    if has_bias:
        check(lin.bias.grad, g2.sum(0), dtype, "db", scale=np.abs(g2).sum(0))
    if dtype == "float64":
        grad_ok(lambda x, w, b: F.linear(x, w, b), a, w, b, second=True)


# ---------------------------------------------------------------- convolutions
def conv_ref(x, w, b, stride, lo, hi, dil, groups):
    """Cross-correlation of x [N, C, *S] with w [O, C/g, *k], zero padding lo/hi."""
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


def same_pads(sizes, k, stride, dil):
    """Paddle's 'SAME' (UpdatePaddingAndDilation): ceil(in / stride) outputs, the odd pad
    after. (Paddle's kernel then drops the dilation; only dilation 1 is drawn with it.)"""
    lo, hi = [], []
    for s, kk, st_, d in zip(sizes, k, stride, dil):
        out = -(-s // st_)
        total = max((out - 1) * st_ + (kk - 1) * d + 1 - s, 0)
        lo.append(total // 2)
        hi.append(total - total // 2)
    return lo, hi


@st.composite
def padding_spec(draw, nd, k, dil, channels_last, allow_str=True):
    """A Paddle padding argument and the (lo, hi) pads it means (None for a string)."""
    forms = ["int", "per_dim", "flat", "pairs", "pairs_full"]
    if allow_str:
        forms += ["SAME", "VALID"]
    form = draw(st.sampled_from(forms))
    if form in ("SAME", "VALID"):
        return draw(st.sampled_from([form, form.lower()])), None
    lo = [draw(st.integers(0, 2)) for _ in range(nd)]
    if form == "int":
        return lo[0], ([lo[0]] * nd, [lo[0]] * nd)
    if form == "per_dim":
        return list(lo), (lo, lo)
    hi = [draw(st.integers(0, 2)) for _ in range(nd)]
    if form == "flat":
        return [v for pair in zip(lo, hi) for v in pair], (lo, hi)
    pairs = [[a, b] for a, b in zip(lo, hi)]
    if form == "pairs":
        return pairs, (lo, hi)
    full = [[0, 0], *pairs, [0, 0]] if channels_last else [[0, 0], [0, 0], *pairs]
    return full, (lo, hi)


@FUZZ
@given(st.data())
def test_conv_nd(data):
    nd = data.draw(st.sampled_from([1, 2, 2, 3]))
    dtype = data.draw(DTYPES)
    g = data.draw(st.integers(1, 3))
    cin, cout = g * data.draw(st.integers(1, 2)), g * data.draw(st.integers(1, 2))
    k = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    stride = [data.draw(st.integers(1, 2)) for _ in range(nd)]
    dil = [data.draw(st.integers(1, 2)) for _ in range(nd)]
    channels_last = data.draw(st.booleans())
    mode = data.draw(st.sampled_from(["zeros", "zeros", "reflect", "replicate", "circular"]))
    pad_arg, pads = data.draw(padding_spec(nd, k, dil, channels_last, allow_str=mode == "zeros"))
    if isinstance(pad_arg, str) and pad_arg.upper() == "SAME":
        # Paddle's kernel silently uses dilation 1 with 'SAME' (UpdatePaddingAndDilation),
        # ferrograd keeps the dilation: that difference is in the report, not drawn here
        dil = [1] * nd
    sizes = [data.draw(st.integers(1, 5)) for _ in range(nd)]
    if isinstance(pad_arg, str):
        lo, hi = (
            same_pads(sizes, k, stride, dil)
            if pad_arg.upper() == "SAME"
            else (
                [0] * nd,
                [0] * nd,
            )
        )
    else:
        lo, hi = pads
    if mode == "reflect":
        assume(all(max(a, b) < s for a, b, s in zip(lo, hi, sizes)))
    if mode == "circular":
        assume(all(max(a, b) <= s for a, b, s in zip(lo, hi, sizes)))
    assume(all(s + a + b >= d * (kk - 1) + 1 for s, a, b, d, kk in zip(sizes, lo, hi, dil, k)))
    has_bias = data.draw(st.booleans())
    cls = {1: nn.Conv1D, 2: nn.Conv2D, 3: nn.Conv3D}[nd]
    fmt = CHANNELS_LAST[nd] if channels_last else CHANNELS_FIRST[nd]
    conv = cls(
        cin,
        cout,
        k if data.draw(st.booleans()) or len(set(k)) > 1 else k[0],
        stride=stride,
        padding=pad_arg,
        dilation=dil,
        groups=g,
        padding_mode=mode,
        bias_attr=None if has_bias else False,
        data_format=fmt,
    )
    CALLS["Conv init"] += 1
    assert list(conv.weight.shape) == [cout, cin // g, *k]
    assert conv.weight.stop_gradient is False
    # Paddle's start (nn/layer/conv.py _ConvNd; docs/layers-conv-pool.md): a normal weight
    # (its statistics: test_leftovers_s42.py) and a zero bias
    assert bool(conv.weight.isfinite().all())
    if has_bias:
        assert list(conv.bias.shape) == [cout]
        assert float(conv.bias.abs().max()) == 0
    else:
        assert conv.bias is None
    p = set_params(conv, dtype, data)
    w, b = p["weight"], p.get("bias")
    n = data.draw(st.integers(1, 2))
    shape_first = [n, cin, *sizes]
    shape = [n, *sizes, cin] if channels_last else shape_first
    a, x = viewed_input(data, shape, dtype)
    af = to_first(a) if channels_last else a
    if mode == "zeros":
        want = conv_ref(af, w, b, stride, lo, hi, dil, g)
    else:
        np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
        xp = np.pad(af, [(0, 0), (0, 0)] + list(zip(lo, hi)), mode=np_mode)
        want = conv_ref(xp, w, b, stride, [0] * nd, [0] * nd, dil, g)
    scale = conv_ref(
        np.abs(np.pad(af, [(0, 0), (0, 0)] + list(zip(lo, hi)), mode="edge")),
        np.abs(w),
        None,
        stride,
        [0] * nd,
        [0] * nd,
        dil,
        g,
    )
    scale = np.maximum(scale, 1.0)
    if channels_last:
        want, scale = to_last(want, nd), to_last(scale, nd)
    CALLS["Conv"] += 1
    out = conv(x)
    check(out, want, dtype, f"Conv{nd}D {fmt} pad={pad_arg} mode={mode}", scale=scale)
    if mode == "zeros":
        f = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]
        CALLS["F.conv"] += 1
        got = f(
            x,
            conv.weight,
            conv.bias,
            stride=stride,
            padding=pad_arg,
            dilation=dil,
            groups=g,
            data_format=fmt,
        )
        check(got, want, dtype, f"F.conv{nd}d", scale=scale)
    # parameter gradients against finite differences of the NumPy reference (one entry)
    if dtype == "float64" and out.size <= 200:
        gy = arr(data, list(out.shape))
        conv.clear_gradients()
        (out * tensor(gy)).sum().backward()
        idx = tuple(data.draw(st.integers(0, s - 1)) for s in w.shape)

        def ref_loss(wv):
            if mode == "zeros":
                r = conv_ref(af, wv, b, stride, lo, hi, dil, g)
            else:
                r = conv_ref(xp, wv, b, stride, [0] * nd, [0] * nd, dil, g)
            return ((to_last(r, nd) if channels_last else r) * gy).sum()

        wp, wm = w.copy(), w.copy()
        wp[idx] += 1e-6
        wm[idx] -= 1e-6
        num = (ref_loss(wp) - ref_loss(wm)) / 2e-6
        CALLS["Conv weight grad"] += 1
        assert abs(float(conv.weight.grad[idx]) - num) <= 1e-6 * (1 + abs(num)), (
            f"dW{idx}: {float(conv.weight.grad[idx])} vs {num}"
        )
        if has_bias:
            axes = tuple(i for i in range(gy.ndim) if i != (gy.ndim - 1 if channels_last else 1))
            check(conv.bias.grad, gy.sum(axes), "float64", "db")
        if out.size <= 60 and mode == "zeros":
            f = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]
            grad_ok(
                lambda x, w: f(
                    x,
                    w,
                    None,
                    stride=stride,
                    padding=pad_arg,
                    dilation=dil,
                    groups=g,
                    data_format=fmt,
                ),
                a,
                w,
            )


def conv_t_ref(x, w, b, stride, lo, hi, dil, groups, extra):
    """Transposed convolution of x [N, C, *S] with w [C, O/g, *k]: each input element
    scatters its kernel, then `lo` cropped before, `hi` after, `extra` added at the end."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    og, k = w.shape[1], w.shape[2:]
    sizes = x.shape[2:]
    full = [(s - 1) * st_ + d * (kk - 1) + 1 for s, st_, d, kk in zip(sizes, stride, dil, k)]
    outs = [fl - a - bb + e for fl, a, bb, e in zip(full, lo, hi, extra)]
    big = [max(fl, a + o) for fl, a, o in zip(full, lo, outs)]
    y = np.zeros((n, groups, og, *big))
    xg = x.reshape(n, groups, c // groups, *sizes)
    wg = w.reshape(groups, c // groups, og, *k)
    for kid in np.ndindex(*k):
        sl = tuple(
            slice(dil[i] * kid[i], dil[i] * kid[i] + stride[i] * (sizes[i] - 1) + 1, stride[i])
            for i in range(nd)
        )
        y[(slice(None),) * 3 + sl] += np.einsum("ngc...,gco->ngo...", xg, wg[(Ellipsis, *kid)])
    y = y.reshape(n, groups * og, *big)
    y = y[(slice(None), slice(None), *[slice(a, a + o) for a, o in zip(lo, outs)])]
    return y if b is None else y + b.reshape(-1, *[1] * nd)


@FUZZ
@given(st.data())
def test_conv2d_transpose(data):
    nd = 2
    dtype = data.draw(DTYPES)
    g = data.draw(st.integers(1, 2))
    cin, cout = g * data.draw(st.integers(1, 2)), g * data.draw(st.integers(1, 2))
    k = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    stride = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    dil = [data.draw(st.integers(1, 2)) for _ in range(nd)]
    channels_last = data.draw(st.booleans())
    pad_arg, pads = data.draw(padding_spec(nd, k, dil, channels_last, allow_str=False))
    lo, hi = pads
    sizes = [data.draw(st.integers(1, 4)) for _ in range(nd)]
    full = [(s - 1) * st_ + d * (kk - 1) + 1 for s, st_, d, kk in zip(sizes, stride, dil, k)]
    assume(all(f_ - a - b >= 1 for f_, a, b in zip(full, lo, hi)))
    # the extra rows at the end: output_padding (< max(stride, dilation)) or output_size
    extra = [data.draw(st.integers(0, max(st_, d) - 1)) for st_, d in zip(stride, dil)]
    how = data.draw(st.sampled_from(["none", "output_padding", "output_size", "output_size"]))
    if how == "none":
        extra = [0] * nd
    kw = {}
    if how == "output_padding":
        kw["output_padding"] = extra if len(set(extra)) > 1 else extra[0]
    has_bias = data.draw(st.booleans())
    fmt = "NHWC" if channels_last else "NCHW"
    conv = nn.Conv2DTranspose(
        cin,
        cout,
        k,
        stride=stride,
        padding=pad_arg,
        dilation=dil,
        groups=g,
        bias_attr=None if has_bias else False,
        data_format=fmt,
        **kw,
    )
    CALLS["Conv2DTranspose init"] += 1
    assert list(conv.weight.shape) == [cin, cout // g, *k]
    p = set_params(conv, dtype, data)
    w, b = p["weight"], p.get("bias")
    n = data.draw(st.integers(1, 2))
    shape = [n, *sizes, cin] if channels_last else [n, cin, *sizes]
    a, x = viewed_input(data, shape, dtype)
    af = to_first(a) if channels_last else a
    want = conv_t_ref(af, w, b, stride, lo, hi, dil, g, extra)
    scale = np.maximum(conv_t_ref(np.abs(af), np.abs(w), None, stride, lo, hi, dil, g, extra), 1)
    if channels_last:
        want, scale = to_last(want, nd), to_last(scale, nd)
    out_size = [f_ - a_ - b_ + e for f_, a_, b_, e in zip(full, lo, hi, extra)]
    CALLS["Conv2DTranspose"] += 1
    if how == "output_size":
        got = conv(x, output_size=out_size)
    else:
        got = conv(x)
    check(got, want, dtype, f"Conv2DTranspose pad={pad_arg} {how} {extra}", scale=scale)
    CALLS["F.conv2d_transpose"] += 1
    fkw = {"output_size": out_size} if how == "output_size" else kw
    got = F.conv2d_transpose(
        x,
        conv.weight,
        conv.bias,
        stride=stride,
        padding=pad_arg,
        dilation=dil,
        groups=g,
        data_format=fmt,
        **fkw,
    )
    check(got, want, dtype, "F.conv2d_transpose", scale=scale)
    if dtype == "float64" and want.size <= 80:
        grad_ok(
            lambda x, w: F.conv2d_transpose(
                x,
                w,
                None,
                stride=stride,
                padding=pad_arg,
                dilation=dil,
                groups=g,
                data_format=fmt,
                **fkw,
            ),
            a,
            w,
        )


# ---------------------------------------------------------------- normalisation
def bn_stats(a, channels_last):
    axes = tuple(i for i in range(a.ndim) if i != (a.ndim - 1 if channels_last else 1))
    return a.mean(axes), a.var(axes), axes


def bcast(v, ndim, channels_last):
    shape = [1] * ndim
    shape[ndim - 1 if channels_last else 1] = -1
    return v.reshape(shape)


@FUZZ
@given(st.data())
def test_batch_norm(data):
    dtype = data.draw(DTYPES)
    kind = data.draw(st.sampled_from(["1D", "1D3", "2D", "3D", "BatchNorm"]))
    c = data.draw(st.integers(1, 3))
    momentum = data.draw(st.sampled_from([None, 0.9, 0.5, 0.99, 0.0]))
    eps = data.draw(st.sampled_from([None, 1e-5, 1e-3, 0.5]))
    channels_last = data.draw(st.booleans())
    use_global = data.draw(st.sampled_from([None, None, False, True]))
    affine = data.draw(st.booleans())
    kw = {}
    if momentum is not None:
        kw["momentum"] = momentum
    if eps is not None:
        kw["epsilon"] = eps
    if use_global is not None:
        kw["use_global_stats"] = use_global
    n = data.draw(st.integers(1, 3))
    if kind == "BatchNorm":
        spatial = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2)))]
        if channels_last:
            kw["data_layout"] = "NHWC"
        if not affine:
            kw["param_attr"], kw["bias_attr"] = False, False
        layer = nn.BatchNorm(c, **kw)
    else:
        nd = {"1D": 0, "1D3": 1, "2D": 2, "3D": 3}[kind]
        spatial = [data.draw(st.integers(1, 3)) for _ in range(nd)]
        cls = {
            "1D": nn.BatchNorm1D,
            "1D3": nn.BatchNorm1D,
            "2D": nn.BatchNorm2D,
            "3D": nn.BatchNorm3D,
        }[kind]
        if channels_last:
            kw["data_format"] = {0: "NC", 1: "NLC", 2: "NHWC", 3: "NDHWC"}[nd]
            if nd == 0:
                kw.pop("data_format")
        if not affine:
            kw["weight_attr"], kw["bias_attr"] = False, False
        layer = cls(c, **kw)
    if len(spatial) == 0:
        channels_last = False
    m = 0.9 if momentum is None else momentum
    e = 1e-5 if eps is None else eps
    CALLS["BatchNorm init"] += 1
    sd = layer.state_dict()
    assert "_mean" in sd and "_variance" in sd
    np.testing.assert_array_equal(npy(sd["_mean"]), np.zeros(c))
    np.testing.assert_array_equal(npy(sd["_variance"]), np.ones(c))
    assert layer._mean.stop_gradient and layer._variance.stop_gradient
    if affine:
        assert list(layer.weight.shape) == [c] and list(layer.bias.shape) == [c]
        np.testing.assert_array_equal(npy(layer.weight), np.ones(c))
        np.testing.assert_array_equal(npy(layer.bias), np.zeros(c))
        assert layer.weight.stop_gradient is False and layer.bias.stop_gradient is False
    layer.to(dtype=dtype)
    wv = arr(data, [c], 0.5, 2.0).astype(dtype).astype(np.float64) if affine else np.ones(c)
    bv = arr(data, [c]).astype(dtype).astype(np.float64) if affine else np.zeros(c)
    if affine:
        layer.weight.set_value(wv.astype(dtype))
        layer.bias.set_value(bv.astype(dtype))
    rm = np.zeros(c)
    rv = np.ones(c)
    shape = [n, *spatial, c] if channels_last else [n, c, *spatial]
    count = n * int(np.prod(spatial))
    # Paddle (and ferrograd's docs): one value per channel in training leaves x unchanged
    assume(count > 1 or use_global)
    steps = data.draw(st.integers(1, 3))
    for step in range(steps):
        a, x = viewed_input(data, shape, dtype, -3.0, 3.0)
        mean, var, axes = bn_stats(a, channels_last)
        if use_global:
            mu, v = rm, rv
        else:
            mu, v = mean, var
        want = (a - bcast(mu, a.ndim, channels_last)) / np.sqrt(
            bcast(v, a.ndim, channels_last) + e
        ) * bcast(wv, a.ndim, channels_last) + bcast(bv, a.ndim, channels_last)
        CALLS["BatchNorm train"] += 1
        tol = (1e-9, 1e-9) if dtype == "float64" else (1e-4, 1e-4)
        if dtype == "float32" and not use_global and var.min() < 1e-4:
            tol = (1e-2, 1e-2)  # normalising a near-constant channel in float32
        check(layer(x), want, dtype, f"BatchNorm{kind} train step {step}", scale=3, tol=tol)
        if not use_global:
            # Paddle: running = momentum * running + (1 - momentum) * batch (biased var)
            rm = m * rm + (1 - m) * mean
            rv = m * rv + (1 - m) * var
        CALLS["BatchNorm running stats"] += 1
        check(
            layer._mean,
            rm,
            dtype,
            "_mean",
            scale=3,
            tol=(1e-5, 1e-6) if dtype == "float32" else None,
        )
        check(
            layer._variance,
            rv,
            dtype,
            "_variance",
            scale=9,
            tol=(1e-5, 1e-6) if dtype == "float32" else None,
        )
    layer.eval()
    a, x = viewed_input(data, shape, dtype, -3.0, 3.0)
    rm0, rv0 = rm, rv
    # Paddle's F.batch_norm: an explicit use_global_stats=False sets trainable_statistics,
    # so the 2.x layers keep normalising with the batch in eval (the old nn.BatchNorm
    # passes trainable_statistics=False itself). Paddle's kernel then also updates the
    # running statistics; ferrograd's fn_norm.batch_norm documents "only updated in
    # training" (a divergence named in the report), which is what is checked here
    eval_batch = use_global is False and kind != "BatchNorm"
    if eval_batch:
        mean, var, _ = bn_stats(a, channels_last)
        rm0, rv0 = mean, var
    want = (a - bcast(rm0, a.ndim, channels_last)) / np.sqrt(
        bcast(rv0, a.ndim, channels_last) + e
    ) * bcast(wv, a.ndim, channels_last) + bcast(bv, a.ndim, channels_last)
    CALLS["BatchNorm eval"] += 1
    tol = (1e-9, 1e-9) if dtype == "float64" else (1e-4, 1e-4)
    if dtype == "float32" and eval_batch and rv0.min() < 1e-4:
        tol = (1e-2, 1e-2)
    out = layer(x)
    check(out, want, dtype, f"BatchNorm{kind} eval", scale=3 / np.sqrt(rv0.min() + e), tol=tol)
    check(
        layer._mean,
        rm,
        dtype,
        "_mean after eval",
        scale=3,
        tol=(1e-5, 1e-6) if dtype == "float32" else None,
    )
    if eval_batch:
        return
    want = (a - bcast(rm, a.ndim, channels_last)) / np.sqrt(
        bcast(rv, a.ndim, channels_last) + e
    ) * bcast(wv, a.ndim, channels_last) + bcast(bv, a.ndim, channels_last)
    # functional form with Paddle's keywords, eval: the running statistics
    CALLS["F.batch_norm"] += 1
    fmt = None
    if channels_last:
        fmt = {1: "NLC", 2: "NHWC", 3: "NDHWC"}[len(spatial)]
    fkw = {"epsilon": e}
    if fmt:
        fkw["data_format"] = fmt
    got = F.batch_norm(
        x,
        tensor(rm, dtype),
        tensor(rv, dtype),
        tensor(wv, dtype),
        tensor(bv, dtype),
        training=False,
        **fkw,
    )
    check(got, want, dtype, "F.batch_norm eval", scale=3 / np.sqrt(rv.min() + e), tol=tol)
    if dtype == "float64" and count > 1 and int(np.prod(shape)) <= 24:
        rm_t, rv_t = tensor(rm), tensor(rv)
        grad_ok(
            lambda x, w, b: F.batch_norm(x, rm_t, rv_t, w, b, training=True, momentum=m, **fkw),
            a,
            wv,
            bv,
        )


def layer_norm_ref(a, k, w, b, eps):
    axes = tuple(range(a.ndim - k, a.ndim))
    mu = a.mean(axes, keepdims=True)
    var = a.var(axes, keepdims=True)
    return (a - mu) / np.sqrt(var + eps) * w + b


@FUZZ
@given(st.data())
def test_layer_group_instance_norm(data):
    dtype = data.draw(DTYPES)
    which = data.draw(st.sampled_from(["LayerNorm", "GroupNorm", "InstanceNorm", "LRN"]))
    tol = (1e-9, 1e-10) if dtype == "float64" else (2e-4, 2e-4)
    eps = data.draw(st.sampled_from([None, 1e-5, 1e-2]))
    e = 1e-5 if eps is None else eps
    kw = {} if eps is None else {"epsilon": eps}
    if which == "LayerNorm":
        shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
        k = data.draw(st.integers(1, len(shape)))
        norm_shape = shape[len(shape) - k :]
        assume(int(np.prod(norm_shape)) > 1)
        arg = norm_shape[0] if k == 1 and data.draw(st.booleans()) else norm_shape
        layer = nn.LayerNorm(arg, **kw)
        CALLS["LayerNorm init"] += 1
        size = int(np.prod(norm_shape))
        assert list(layer.weight.shape) == [size] and list(layer.bias.shape) == [size]
        np.testing.assert_array_equal(npy(layer.weight), np.ones(size))
        np.testing.assert_array_equal(npy(layer.bias), np.zeros(size))
        p = set_params(layer, dtype, data)
        a, x = jittered(*viewed_input(data, shape, dtype), dtype)
        assume(a.reshape(-1, size).var(1).min() > 1e-3)
        w = p["weight"].reshape(norm_shape)
        bb = p["bias"].reshape(norm_shape)
        want = layer_norm_ref(a, k, w, bb, e)
        CALLS["LayerNorm"] += 1
        check(layer(x), want, dtype, "LayerNorm", scale=4, tol=tol)
        CALLS["F.layer_norm"] += 1
        got = F.layer_norm(x, norm_shape, tensor(w, dtype), tensor(bb, dtype), epsilon=e)
        check(got, want, dtype, "F.layer_norm", scale=4, tol=tol)
        if dtype == "float64" and a.size <= 24:
            grad_ok(lambda x, w, b: F.layer_norm(x, norm_shape, w, b, epsilon=e), a, w, bb)
    elif which == "GroupNorm":
        groups = data.draw(st.integers(1, 3))
        c = groups * data.draw(st.integers(1, 2))
        spatial = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2)))]
        channels_last = data.draw(st.booleans()) and len(spatial) > 0
        fmt = {0: "NCHW", 1: "NCL", 2: "NCHW"}[len(spatial)]
        if channels_last:
            fmt = {1: "NLC", 2: "NHWC"}[len(spatial)]
        layer = nn.GroupNorm(groups, c, data_format=fmt, **kw)
        CALLS["GroupNorm init"] += 1
        np.testing.assert_array_equal(npy(layer.weight), np.ones(c))
        np.testing.assert_array_equal(npy(layer.bias), np.zeros(c))
        p = set_params(layer, dtype, data)
        n = data.draw(st.integers(1, 2))
        shape = [n, *spatial, c] if channels_last else [n, c, *spatial]
        a, x = jittered(*viewed_input(data, shape, dtype), dtype)
        af = to_first(a) if channels_last else a
        grp = af.reshape(n, groups, -1)
        assume(grp.shape[-1] > 1 and grp.var(-1).min() > 1e-3)
        norm = (grp - grp.mean(-1, keepdims=True)) / np.sqrt(grp.var(-1, keepdims=True) + e)
        want = norm.reshape(af.shape) * bcast(p["weight"], af.ndim, False) + bcast(
            p["bias"], af.ndim, False
        )
        if channels_last:
            want = to_last(want, 1)
        CALLS["GroupNorm"] += 1
        check(layer(x), want, dtype, f"GroupNorm {fmt}", scale=4, tol=tol)
        if dtype == "float64" and a.size <= 24:
            grad_ok(
                lambda x, w, b: F.group_norm(
                    x, groups, epsilon=e, weight=w, bias=b, data_format=fmt
                ),
                a,
                p["weight"],
                p["bias"],
            )
    elif which == "InstanceNorm":
        nd = data.draw(st.integers(1, 3))
        c = data.draw(st.integers(1, 3))
        spatial = [data.draw(st.integers(1, 3)) for _ in range(nd)]
        assume(int(np.prod(spatial)) > 1)
        layer = {1: nn.InstanceNorm1D, 2: nn.InstanceNorm2D, 3: nn.InstanceNorm3D}[nd](c, **kw)
        CALLS["InstanceNorm init"] += 1
        # Paddle's InstanceNorm*D learn a per-channel scale (1) and bias (0)
        names = {k_: list(v.shape) for k_, v in layer.state_dict().items()}
        assert names == {"scale": [c], "bias": [c]}, names
        np.testing.assert_array_equal(npy(layer.scale), np.ones(c))
        np.testing.assert_array_equal(npy(layer.bias), np.zeros(c))
        p = set_params(layer, dtype, data)
        n = data.draw(st.integers(1, 2))
        a, x = jittered(*viewed_input(data, [n, c, *spatial], dtype), dtype)
        axes = tuple(range(2, a.ndim))
        assume(a.var(axes).min() > 1e-3)
        want = (a - a.mean(axes, keepdims=True)) / np.sqrt(a.var(axes, keepdims=True) + e)
        want = want * bcast(p["scale"], a.ndim, False) + bcast(p["bias"], a.ndim, False)
        CALLS["InstanceNorm"] += 1
        check(layer(x), want, dtype, f"InstanceNorm{nd}D", scale=4, tol=tol)
        layer.eval()  # no running statistics are used: the same in eval
        check(layer(x), want, dtype, f"InstanceNorm{nd}D eval", scale=4, tol=tol)
        if dtype == "float64" and a.size <= 24:
            grad_ok(
                lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=e),
                a,
                p["scale"],
                p["bias"],
            )
    else:
        size = data.draw(st.integers(1, 5))
        alpha = data.draw(st.sampled_from([1e-4, 0.5, 2.0]))
        beta = data.draw(st.sampled_from([0.75, 0.5, 1.0]))
        kk = data.draw(st.sampled_from([1.0, 2.0, 0.5]))
        nd = data.draw(st.integers(1, 3))
        c = data.draw(st.integers(1, 5))
        spatial = [data.draw(st.integers(1, 3)) for _ in range(nd)]
        channels_last = data.draw(st.booleans())
        fmt = (CHANNELS_LAST if channels_last else CHANNELS_FIRST)[nd]
        n = data.draw(st.integers(1, 2))
        shape = [n, *spatial, c] if channels_last else [n, c, *spatial]
        a, x = viewed_input(data, shape, dtype)
        af = to_first(a) if channels_last else a
        # Paddle: x / (k + alpha / size * sum of x^2 over channels [c - size//2,
        # c + (size-1)//2], zero padded) ** beta
        sq = np.pad(af**2, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * nd)
        s = sum(sq[:, i : i + c] for i in range(size))
        want = af / (kk + alpha / size * s) ** beta
        if channels_last:
            want = to_last(want, nd)
        layer = nn.LocalResponseNorm(size, alpha, beta, kk, data_format=fmt)
        CALLS["LocalResponseNorm"] += 1
        check(layer(x), want, dtype, f"LocalResponseNorm {fmt}", scale=2, tol=tol)
        CALLS["F.local_response_norm"] += 1
        got = F.local_response_norm(x, size, alpha=alpha, beta=beta, k=kk, data_format=fmt)
        check(got, want, dtype, "F.local_response_norm", scale=2, tol=tol)
        if dtype == "float64" and a.size <= 30:
            grad_ok(lambda x: F.local_response_norm(x, size, alpha, beta, kk, data_format=fmt), a)


# ---------------------------------------------------------------- embedding, dropout
@FUZZ
@given(st.data())
def test_embedding(data):
    dtype = data.draw(DTYPES)
    num, dim = data.draw(st.integers(1, 8)), data.draw(st.integers(1, 4))
    pad = data.draw(st.one_of(st.none(), st.integers(-num, num - 1)))
    sparse = data.draw(st.booleans())
    emb = nn.Embedding(num, dim, padding_idx=pad, sparse=sparse)
    CALLS["Embedding init"] += 1
    assert list(emb.weight.shape) == [num, dim] and emb.weight.stop_gradient is False
    pad_row = None if pad is None else pad % num
    if pad_row is not None:
        np.testing.assert_array_equal(npy(emb.weight)[pad_row], np.zeros(dim))
    p = set_params(emb, dtype, data)
    w = p["weight"]
    ids = data.draw(
        hnp.arrays(
            np.int64,
            data.draw(st.lists(st.integers(0, 3), max_size=3)),
            elements=st.integers(0, num - 1),
        )
    )
    idt = data.draw(st.sampled_from(["int64", "int32"]))
    x = paddle.to_tensor(ids.astype(idt))
    # Paddle: the rows of padding_idx (negative: num + padding_idx) come out as zeros
    want = w[ids]
    if pad_row is not None:
        want = np.where((ids == pad_row)[..., None], 0.0, want)
    CALLS["F.embedding"] += 1
    check(F.embedding(x, emb.weight, padding_idx=pad, sparse=sparse), want, dtype, "F.embedding")
    # nn.Embedding built by Paddle code gives zeros there too, whatever the row holds
    # (Paddle 3.3.1 python/paddle/nn/layer/common.py Embedding.forward: F.embedding)
    CALLS["Embedding"] += 1
    out = emb(x)
    check(out, want, dtype, "Embedding")
    g = arr(data, list(want.shape))
    emb.clear_gradients()
    (out * tensor(g, dtype)).sum().backward()
    dw = np.zeros_like(w)
    np.add.at(dw, ids.reshape(-1), g.reshape(-1, dim))
    if pad_row is not None:
        dw[pad_row] = 0.0
    CALLS["Embedding grad"] += 1
    gw = emb.weight.grad
    if not isinstance(gw, paddle.Tensor) or getattr(gw, "is_sparse", lambda: False)():
        gw = gw.to_dense()
    # Paddle code keeps a dense gradient also with sparse=True (docs/layers-sequence.md)
    check(gw, dw, dtype, "Embedding dW", scale=np.abs(g).sum() + 1)


@FUZZ
@given(st.data())
def test_dropout(data):
    dtype = data.draw(DTYPES)
    shape = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    p = data.draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
    which = data.draw(st.sampled_from(["Dropout", "F.dropout", "AlphaDropout"]))
    a = arr(data, shape, 0.5, 2.0) * data.draw(st.sampled_from([1.0, -1.0]))
    a = a.astype(dtype).astype(np.float64)
    x = tensor(a, dtype, grad=True)
    paddle.seed(data.draw(st.integers(0, 2**31 - 1)))
    if which == "AlphaDropout":
        assume(p < 1.0)
        layer = nn.AlphaDropout(p)
        out = layer(x)
        CALLS["AlphaDropout"] += 1
        # Paddle: alpha_p = -alpha * scale, a = ((1-p)(1 + p alpha_p^2))^-0.5,
        # b = -a alpha_p p; kept: a x + b, dropped: a alpha_p + b
        alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
        alpha_p = -alpha * scale
        aa = ((1 - p) * (1 + p * alpha_p**2)) ** -0.5
        bb = -aa * alpha_p * p
        g = npy(out)
        kept = np.isclose(g, aa * a + bb, rtol=1e-5, atol=1e-5)
        dropped = np.isclose(g, aa * alpha_p + bb, rtol=1e-5, atol=1e-5)
        assert (kept | dropped).all(), f"AlphaDropout p={p}: {g} from {a}"
        if p == 0.0:
            assert kept.all()
        out.sum().backward()
        check(
            x.grad,
            np.where(kept & ~dropped, aa, np.where(kept, x.grad.numpy(), 0.0)),
            dtype,
            "AlphaDropout grad",
            tol=(1e-5, 1e-6),
        )
        layer.eval()
        CALLS["AlphaDropout eval"] += 1
        check(layer(x), a, dtype, "AlphaDropout eval", tol=(0, 0))
        return
    mode = data.draw(st.sampled_from([None, "upscale_in_train", "downscale_in_infer"]))
    kw = {} if mode is None else {"mode": mode}
    if which == "Dropout":
        layer = nn.Dropout(p=p, **kw)
        out = layer(x)
    else:
        out = F.dropout(x, p=p, training=True, **kw)
    CALLS[which] += 1
    upscale = mode != "downscale_in_infer"
    g = npy(out)
    keep_val = a / (1 - p) if (upscale and p < 1) else a
    kept = np.isclose(g, keep_val, rtol=1e-6, atol=0)
    zero = g == 0
    assert (kept | zero).all(), f"{which} {mode} p={p}: {g} from {a}"
    if p == 0.0:
        assert kept.all(), "p=0 keeps everything"
    if p == 1.0:
        assert zero.all(), "p=1 drops everything"
    if g.size >= 40 and 0 < p < 1:
        frac = zero.mean()
        assert abs(frac - p) < 5 * math.sqrt(p * (1 - p) / g.size) + 0.02, (frac, p)
    out.sum().backward()
    scale = 1 / (1 - p) if (upscale and p < 1) else 1.0
    CALLS[f"{which} grad"] += 1
    check(x.grad, np.where(kept, scale, 0.0), dtype, f"{which} grad", tol=(1e-6, 0))
    # eval: upscale_in_train is the identity, downscale_in_infer scales by (1 - p)
    want = a if upscale else a * (1 - p)
    CALLS[f"{which} eval"] += 1
    if which == "Dropout":
        layer.eval()
        check(layer(x), want, dtype, "Dropout eval", tol=(1e-6, 0))
    else:
        check(F.dropout(x, p=p, training=False, **kw), want, dtype, "F.dropout eval", tol=(1e-6, 0))


# ---------------------------------------------------------------- pooling
def pool_windows(size, k, s, pad, ceil_mode):
    """Paddle's windows along one dim: (start, end) in padded coordinates, and the
    PyTorch-style count, for an `assume` that the peers' ceil rules agree."""
    if ceil_mode:
        out = (size - k + 2 * pad + s - 1) // s + 1
    else:
        out = (size - k + 2 * pad) // s + 1
    return [(i * s, i * s + k) for i in range(out)]


def pool_ref(a, k, s, pad, ceil_mode, kind, exclusive=True, divisor=None):
    """Max or average pooling of a [N, C, H, W] float64 array, Paddle's rules: windows
    clipped to the input (max; average with exclusive) or to the padded input."""
    n, c, h, w = a.shape
    wins = [pool_windows(sz, kk, ss, pp, ceil_mode) for sz, kk, ss, pp in zip((h, w), k, s, pad)]
    out = np.zeros((n, c, len(wins[0]), len(wins[1])))
    idx = np.zeros(out.shape, dtype=np.int64)
    for i, (h0, h1) in enumerate(wins[0]):
        for j, (w0, w1) in enumerate(wins[1]):
            hs, he = max(h0 - pad[0], 0), min(h1 - pad[0], h)
            ws, we = max(w0 - pad[1], 0), min(w1 - pad[1], w)
            block = a[:, :, hs:he, ws:we].reshape(n, c, -1)
            if kind == "max":
                arg = block.argmax(-1)
                out[:, :, i, j] = block.max(-1)
                bh, bw = np.divmod(arg, we - ws)
                idx[:, :, i, j] = (hs + bh) * w + ws + bw
            else:
                if divisor:
                    cnt = divisor
                elif exclusive:
                    cnt = (he - hs) * (we - ws)
                else:
                    cnt = (min(h1, h + 2 * pad[0]) - h0) * (min(w1, w + 2 * pad[1]) - w0)
                out[:, :, i, j] = block.sum(-1) / cnt
    return out, idx


@FUZZ
@given(st.data())
def test_pool2d(data):
    dtype = data.draw(DTYPES)
    kind = data.draw(st.sampled_from(["max", "avg", "adaptive"]))
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    h, w = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    channels_last = data.draw(st.booleans())
    fmt = "NHWC" if channels_last else "NCHW"
    shape = [n, h, w, c] if channels_last else [n, c, h, w]
    # distinct values: no ties for max pooling
    vals = data.draw(st.permutations(list(range(n * c * h * w))))
    a = (np.array(vals, dtype=np.float64).reshape(shape) - 10) / 4
    x = tensor(a, dtype)
    af = to_first(a) if channels_last else a
    if kind == "adaptive":
        oh = data.draw(st.one_of(st.integers(1, h + 1), st.none()))
        ow = data.draw(st.integers(1, w + 1))
        out_h = h if oh is None else oh
        want = np.zeros((n, c, out_h, ow))
        for i in range(out_h):
            for j in range(ow):
                h0, h1 = (i * h) // out_h, -(-(i + 1) * h // out_h)
                w0, w1 = (j * w) // ow, -(-(j + 1) * w // ow)
                want[:, :, i, j] = af[:, :, h0:h1, w0:w1].mean((2, 3))
        arg = [oh, ow] if oh is None or data.draw(st.booleans()) or oh != ow else oh
        if channels_last:
            want = to_last(want, 2)
        CALLS["AdaptiveAvgPool2D"] += 1
        check(
            nn.AdaptiveAvgPool2D(arg, data_format=fmt)(x), want, dtype, f"adaptive {arg}", scale=10
        )
        CALLS["F.adaptive_avg_pool2d"] += 1
        check(F.adaptive_avg_pool2d(x, arg, data_format=fmt), want, dtype, "F.adaptive", scale=10)
        if dtype == "float64" and a.size <= 40:
            grad_ok(lambda x: F.adaptive_avg_pool2d(x, arg, data_format=fmt), a)
        return
    k = [data.draw(st.integers(1, 3)) for _ in range(2)]
    s = [data.draw(st.integers(1, 3)) for _ in range(2)]
    pad = [data.draw(st.integers(0, kk // 2)) for kk in k]
    assume(h + 2 * pad[0] >= k[0] and w + 2 * pad[1] >= k[1])
    ceil_mode = data.draw(st.booleans())
    if ceil_mode:
        # Paddle's ceil rule has no PyTorch-style drop of a window starting in the right
        # padding (it would pool padding only); keep to cases where the peers agree
        for sz, kk, ss, pp in zip((h, w), k, s, pad):
            last = (sz - kk + 2 * pp + ss - 1) // ss
            assume(last * ss < sz + pp)
    k_arg = k if len(set(k)) > 1 or data.draw(st.booleans()) else k[0]
    s_arg = s if len(set(s)) > 1 or data.draw(st.booleans()) else s[0]
    p_arg = pad if len(set(pad)) > 1 or data.draw(st.booleans()) else pad[0]
    if kind == "max":
        want, idx = pool_ref(af, k, s, pad, ceil_mode, "max")
        return_mask = not channels_last  # (the mask is drawn with NCHW only)
        layer = nn.MaxPool2D(
            k_arg, s_arg, p_arg, return_mask=return_mask, ceil_mode=ceil_mode, data_format=fmt
        )
        got = layer(x)
        CALLS["MaxPool2D"] += 1
        if return_mask:
            got, mask = got
            # the mask: the flat h * W + w position in each input plane (ferrograd: int64)
            CALLS["MaxPool2D mask"] += 1
            np.testing.assert_array_equal(mask.numpy(), idx, err_msg="MaxPool2D mask")
        check(got, to_last(want, 2) if channels_last else want, dtype, "MaxPool2D")
        CALLS["F.max_pool2d"] += 1
        got = F.max_pool2d(x, k_arg, s_arg, p_arg, ceil_mode=ceil_mode, data_format=fmt)
        check(got, to_last(want, 2) if channels_last else want, dtype, "F.max_pool2d")
        if dtype == "float64" and a.size <= 40:
            grad_ok(
                lambda x: F.max_pool2d(
                    x, k_arg, s_arg, p_arg, ceil_mode=ceil_mode, data_format=fmt
                ),
                a,
            )
    else:
        exclusive = data.draw(st.sampled_from([None, True, False]))
        divisor = data.draw(st.sampled_from([None, None, 2]))
        ekw = {} if exclusive is None else {"exclusive": exclusive}
        want, _ = pool_ref(af, k, s, pad, ceil_mode, "avg", exclusive is not False, divisor)
        if channels_last:
            want = to_last(want, 2)
        layer = nn.AvgPool2D(
            k_arg,
            s_arg,
            p_arg,
            ceil_mode=ceil_mode,
            divisor_override=divisor,
            data_format=fmt,
            **ekw,
        )
        CALLS["AvgPool2D"] += 1
        check(layer(x), want, dtype, f"AvgPool2D exclusive={exclusive} ceil={ceil_mode}", scale=10)
        # F.avg_pool2d follows Paddle when given exclusive= (docs/layers-conv-pool.md)
        CALLS["F.avg_pool2d"] += 1
        got = F.avg_pool2d(
            x,
            k_arg,
            s_arg,
            p_arg,
            ceil_mode=ceil_mode,
            divisor_override=divisor,
            exclusive=exclusive is not False,
            data_format=fmt,
        )
        check(got, want, dtype, "F.avg_pool2d", scale=10)
        if dtype == "float64" and a.size <= 40:
            grad_ok(
                lambda x: F.avg_pool2d(
                    x,
                    k_arg,
                    s_arg,
                    p_arg,
                    ceil_mode=ceil_mode,
                    exclusive=exclusive is not False,
                    divisor_override=divisor,
                    data_format=fmt,
                ),
                a,
            )


# ---------------------------------------------------------------- resize, pad, shape layers
def interp_axis(size_in, size_out, mode, align_corners, align_mode, ratio=None):
    """The [out, in] matrix of Paddle's 1-D nearest / linear interpolation."""
    m = np.zeros((size_out, size_in))
    if ratio is None:
        ratio = size_in / size_out
    if align_corners:
        ratio = (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
    for o in range(size_out):
        if mode == "nearest":
            src = int(ratio * o + 0.5) if align_corners else int(ratio * o)
            m[o, min(src, size_in - 1)] = 1.0
            continue
        if align_corners or align_mode == 1:
            src = ratio * o
        else:
            src = max(ratio * (o + 0.5) - 0.5, 0.0)
        i0 = min(int(src), size_in - 1)
        i1 = min(i0 + 1, size_in - 1)
        lam = src - i0
        m[o, i0] += 1 - lam
        m[o, i1] += lam
    return m


@FUZZ
@given(st.data())
def test_upsample(data):
    dtype = data.draw(DTYPES)
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    h, w = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    mode = data.draw(st.sampled_from(["nearest", "bilinear"]))
    align_corners = mode == "bilinear" and data.draw(st.booleans())
    align_mode = data.draw(st.sampled_from([0, 1]))
    channels_last = data.draw(st.booleans())
    fmt = "NHWC" if channels_last else "NCHW"
    by = data.draw(st.sampled_from(["size", "scale"]))
    if by == "size":
        oh, ow = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7))
        kw = {"size": [oh, ow]}
        ratios = (None, None)
    else:
        sh, sw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        oh, ow = h * sh, w * sw
        kw = {"scale_factor": [sh, sw] if sh != sw or data.draw(st.booleans()) else sh}
        ratios = (1 / sh, 1 / sw)
    shape = [n, h, w, c] if channels_last else [n, c, h, w]
    a, x = viewed_input(data, shape, dtype)
    af = to_first(a) if channels_last else a
    mh = interp_axis(h, oh, mode, align_corners, align_mode, ratios[0])
    mw = interp_axis(w, ow, mode, align_corners, align_mode, ratios[1])
    want = np.einsum("oh,nchw,pw->ncop", mh, af, mw)
    if channels_last:
        want = to_last(want, 2)
    extra = {"align_corners": align_corners, "align_mode": align_mode} if mode == "bilinear" else {}
    layer = nn.Upsample(mode=mode, data_format=fmt, **kw, **extra)
    CALLS["Upsample"] += 1
    check(layer(x), want, dtype, f"Upsample {mode} {kw} {extra}", scale=2)
    CALLS["F.interpolate"] += 1
    check(
        F.interpolate(x, mode=mode, data_format=fmt, **kw, **extra),
        want,
        dtype,
        "F.interpolate",
        scale=2,
    )
    if dtype == "float64" and a.size <= 24:
        grad_ok(lambda x: F.interpolate(x, mode=mode, data_format=fmt, **kw, **extra), a)


@FUZZ
@given(st.data())
def test_pad2d(data):
    dtype = data.draw(DTYPES)
    mode = data.draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    h, w = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    channels_last = data.draw(st.booleans())
    fmt = "NHWC" if channels_last else "NCHW"
    lim_h = h - 1 if mode == "reflect" else (h if mode == "circular" else 3)
    lim_w = w - 1 if mode == "reflect" else (w if mode == "circular" else 3)
    pads = [data.draw(st.integers(0, lim_w)) for _ in range(2)] + [
        data.draw(st.integers(0, lim_h)) for _ in range(2)
    ]
    as_int = len(set(pads)) == 1 and data.draw(st.booleans())
    value = data.draw(st.sampled_from([0.0, 1.5, -2.0]))
    shape = [n, h, w, c] if channels_last else [n, c, h, w]
    a, x = viewed_input(data, shape, dtype)
    af = to_first(a) if channels_last else a
    # Paddle: padding [left, right, top, bottom] on the last two spatial dims
    spec = [(0, 0), (0, 0), (pads[2], pads[3]), (pads[0], pads[1])]
    if mode == "constant":
        want = np.pad(af, spec, mode="constant", constant_values=value)
    else:
        want = np.pad(
            af, spec, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
        )
    if channels_last:
        want = to_last(want, 2)
    layer = nn.Pad2D(pads[0] if as_int else pads, mode=mode, value=value, data_format=fmt)
    CALLS["Pad2D"] += 1
    check(layer(x), want, dtype, f"Pad2D {mode} {pads}", tol=(0, 0))
    CALLS["F.pad"] += 1
    check(F.pad(x, pads, mode=mode, value=value, data_format=fmt), want, dtype, "F.pad", tol=(0, 0))
    if dtype == "float64" and a.size <= 24:
        grad_ok(lambda x: F.pad(x, pads, mode=mode, value=value, data_format=fmt), a)


@FUZZ
@given(st.data())
def test_shape_layers(data):
    dtype = data.draw(DTYPES)
    which = data.draw(st.sampled_from(["PixelShuffle", "Flatten", "Softmax", "Maxout"]))
    if which == "PixelShuffle":
        r = data.draw(st.integers(1, 3))
        n, c = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
        h, w = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        channels_last = data.draw(st.booleans())
        fmt = "NHWC" if channels_last else "NCHW"
        shape = [n, h, w, c * r * r] if channels_last else [n, c * r * r, h, w]
        a, x = viewed_input(data, shape, dtype)
        af = to_first(a) if channels_last else a
        # out[n, c, h r + i, w r + j] = x[n, c r^2 + i r + j, h, w]
        want = af.reshape(n, c, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h * r, w * r)
        if channels_last:
            want = to_last(want, 2)
        CALLS["PixelShuffle"] += 1
        check(nn.PixelShuffle(r, data_format=fmt)(x), want, dtype, "PixelShuffle", tol=(0, 0))
        check(F.pixel_shuffle(x, r, data_format=fmt), want, dtype, "F.pixel_shuffle", tol=(0, 0))
    elif which == "Flatten":
        shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=5))
        nd = len(shape)
        start = data.draw(st.integers(-nd, nd - 1))
        stop = data.draw(st.integers(-nd, nd - 1))
        assume(start % nd <= stop % nd)
        a, x = viewed_input(data, shape, dtype)
        s0, s1 = start % nd, stop % nd
        want = a.reshape(*shape[:s0], -1, *shape[s1 + 1 :])
        kw = {}
        if start != 1 or data.draw(st.booleans()):
            kw["start_axis"] = start
        if stop != -1 or data.draw(st.booleans()):
            kw["stop_axis"] = stop
        CALLS["Flatten"] += 1
        check(nn.Flatten(**kw)(x), want, dtype, f"Flatten {kw}", tol=(0, 0))
        CALLS["paddle.flatten"] += 1
        check(
            paddle.flatten(x, start_axis=start, stop_axis=stop),
            a.reshape(*shape[:s0], -1, *shape[s1 + 1 :]),
            dtype,
            "paddle.flatten",
            tol=(0, 0),
        )
    elif which == "Softmax":
        shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
        axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
        a, x = viewed_input(data, shape, dtype, -5, 5)
        ax = -1 if axis is None else axis
        e_ = np.exp(a - a.max(ax, keepdims=True))
        want = e_ / e_.sum(ax, keepdims=True)
        layer = nn.Softmax() if axis is None else nn.Softmax(axis=axis)
        CALLS["Softmax"] += 1
        check(layer(x), want, dtype, f"Softmax axis={axis}")
        CALLS["F.softmax"] += 1
        check(F.softmax(x, axis=ax), want, dtype, "F.softmax")
        if dtype == "float64" and a.size <= 24:
            grad_ok(lambda x: F.softmax(x, axis=ax), a, second=True)
    else:
        groups = data.draw(st.integers(1, 3))
        n, c = data.draw(st.integers(1, 2)), groups * data.draw(st.integers(1, 3))
        h, w = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        axis = data.draw(st.sampled_from([1, -1, 3]))
        shape = [n, c, h, w] if axis == 1 else [n, h, w, c]
        vals = data.draw(st.permutations(list(range(n * c * h * w))))
        a = (np.array(vals, dtype=np.float64).reshape(shape) - 7) / 3
        x = tensor(a, dtype)
        ac = a if axis == 1 else to_first(a)
        # Paddle: out[:, i] = max over k < groups of x[:, i * groups + k]
        want = ac.reshape(n, c // groups, groups, h, w).max(2)
        if axis != 1:
            want = to_last(want, 2)
        CALLS["Maxout"] += 1
        check(nn.Maxout(groups, axis=axis)(x), want, dtype, f"Maxout axis={axis}")
        check(F.maxout(x, groups, axis=axis), want, dtype, "F.maxout")
        if dtype == "float64" and a.size <= 36:
            grad_ok(lambda x: F.maxout(x, groups, axis=axis), a)


# ---------------------------------------------------------------- activations
@FUZZ
@given(st.data())
def test_activations(data):
    dtype = data.draw(DTYPES)
    which = data.draw(st.sampled_from(["PReLU", "Hardswish", "GELU"]))
    tol = (1e-12, 1e-14) if dtype == "float64" else (2e-6, 2e-6)
    if which == "PReLU":
        c = data.draw(st.integers(1, 3))
        nump = data.draw(st.sampled_from([1, c]))
        spatial = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2)))]
        channels_last = data.draw(st.booleans()) and len(spatial) > 0
        init = data.draw(st.sampled_from([None, 0.25, -0.5, 2.0]))
        kw = {} if init is None else {"init": init}
        fmt = "NHWC" if channels_last else "NCHW"
        layer = nn.PReLU(nump, data_format=fmt, **kw)
        CALLS["PReLU init"] += 1
        assert list(layer._weight.shape) == [nump]
        assert "_weight" in layer.state_dict()
        np.testing.assert_allclose(
            npy(layer._weight), np.full(nump, 0.25 if init is None else init), rtol=1e-7
        )
        assert layer._weight.stop_gradient is False
        p = set_params(layer, dtype, data)
        n = data.draw(st.integers(1, 2))
        shape = [n, *spatial, c] if channels_last else [n, c, *spatial]
        a, x = viewed_input(data, shape, dtype)
        wv = p["_weight"]
        slope = wv[0] if nump == 1 else bcast(wv, a.ndim, channels_last)
        want = np.where(a > 0, a, slope * a)
        CALLS["PReLU"] += 1
        out = layer(x)
        check(out, want, dtype, f"PReLU {fmt}", tol=tol)
        g = arr(data, list(want.shape))
        (out * tensor(g, dtype)).sum().backward()
        axes = tuple(i for i in range(a.ndim) if i != (a.ndim - 1 if channels_last else 1))
        dw = np.where(a > 0, 0.0, a) * g
        dw = np.array([dw.sum()]) if nump == 1 else dw.sum(axes)
        CALLS["PReLU grad"] += 1
        check(layer._weight.grad, dw, dtype, "PReLU dW", scale=np.abs(a * g).sum())
        if dtype == "float64" and a.size <= 24:
            # away from the kink at 0
            grad_ok(
                lambda x, w: F.prelu(x, w, data_format=fmt), np.where(np.abs(a) < 1e-2, 0.5, a), wv
            )
        return
    shape = data.draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    a, x = viewed_input(data, shape, dtype, -5, 5)
    if which == "Hardswish":
        assume(np.abs(np.abs(a) - 3).min() > 1e-4 if a.size else True)
        want = a * np.clip(a + 3, 0, 6) / 6
        CALLS["Hardswish"] += 1
        check(nn.Hardswish()(x), want, dtype, "Hardswish", tol=tol)
        check(F.hardswish(x), want, dtype, "F.hardswish", tol=tol)
        if dtype == "float64" and a.size:
            grad_ok(F.hardswish, a)
    else:
        approx = data.draw(st.sampled_from([None, False, True]))
        if approx:
            want = 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))
        else:
            want = 0.5 * a * (1 + erf(a / math.sqrt(2)))
        layer = nn.GELU() if approx is None else nn.GELU(approximate=approx)
        CALLS["GELU"] += 1
        check(layer(x), want, dtype, f"GELU approximate={approx}", tol=tol)
        check(F.gelu(x, approximate=bool(approx)), want, dtype, "F.gelu", tol=tol)
        if dtype == "float64" and a.size:
            grad_ok(lambda x: F.gelu(x, approximate=bool(approx)), a, second=True)


# ---------------------------------------------------------------- recurrent layers
def cell_step(kind, x, h, c, wih, whh, bih, bhh, act):
    gi = x @ wih.T + bih
    gh = h @ whh.T + bhh
    if kind == "LSTM":
        i, f, gg, o = np.split(gi + gh, 4, axis=-1)
        c2 = expit(f) * c + expit(i) * np.tanh(gg)
        return expit(o) * np.tanh(c2), c2
    if kind == "GRU":
        xr, xz, xc = np.split(gi, 3, axis=-1)
        hr, hz, hc = np.split(gh, 3, axis=-1)
        r, z = expit(xr + hr), expit(xz + hz)
        cand = np.tanh(xc + r * hc)
        return (h - cand) * z + cand, None
    pre = gi + gh
    return (np.tanh(pre) if act == "tanh" else np.maximum(pre, 0)), None


def rnn_ref(kind, x, params, layers, dirs, h0, c0, lengths, act):
    """Paddle's multi-layer RNN on batch-major x [B, T, I]: each sequence runs over its
    own steps (the backward direction starts at its last valid step), outputs past a
    length are zero, final states at the length; layer-major, direction-minor states."""
    b, t, _ = x.shape
    inp = x
    hs, cs = [], []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            wih, whh = params["weight_ih" + sfx], params["weight_hh" + sfx]
            bih, bhh = params["bias_ih" + sfx], params["bias_hh" + sfx]
            k = layer * dirs + d
            out = np.zeros((b, t, whh.shape[1]))
            hf, cf = h0[k].copy(), None if c0 is None else c0[k].copy()
            for s in range(b):
                h = h0[k][s : s + 1]
                c = None if c0 is None else c0[k][s : s + 1]
                steps = range(lengths[s]) if d == 0 else range(lengths[s] - 1, -1, -1)
                for ti in steps:
                    h, c = cell_step(kind, inp[s : s + 1, ti], h, c, wih, whh, bih, bhh, act)
                    out[s, ti] = h[0]
                hf[s] = h[0]
                if c is not None:
                    cf[s] = c[0]
            outs.append(out)
            hs.append(hf)
            cs.append(cf)
        inp = np.concatenate(outs, axis=-1)
    return inp, np.stack(hs), (None if c0 is None else np.stack(cs))


@FUZZ
@given(st.data())
def test_rnn_layers(data):
    dtype = data.draw(DTYPES)
    kind = data.draw(st.sampled_from(["LSTM", "GRU", "SimpleRNN"]))
    isz, hsz = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    layers = data.draw(st.integers(1, 2))
    direction = data.draw(st.sampled_from(["forward", "bidirect", "bidirectional"]))
    dirs = 1 if direction == "forward" else 2
    time_major = data.draw(st.sampled_from([None, False, True]))
    act = data.draw(st.sampled_from(["tanh", "relu"])) if kind == "SimpleRNN" else "tanh"
    kw = {"num_layers": layers, "direction": direction}
    if time_major is not None:
        kw["time_major"] = time_major
    if kind == "SimpleRNN" and act != "tanh":
        kw["activation"] = act
    cls = {"LSTM": nn.LSTM, "GRU": nn.GRU, "SimpleRNN": nn.SimpleRNN}[kind]
    layer = cls(isz, hsz, **kw)
    gates = {"LSTM": 4, "GRU": 3, "SimpleRNN": 1}[kind]
    CALLS[f"{kind} init"] += 1
    bound = 1 / math.sqrt(hsz)
    for lyr in range(layers):
        for d in range(dirs):
            sfx = f"_l{lyr}" + ("_reverse" if d else "")
            wi = getattr(layer, "weight_ih" + sfx)
            assert list(wi.shape) == [gates * hsz, isz if lyr == 0 else hsz * dirs]
            assert list(getattr(layer, "weight_hh" + sfx).shape) == [gates * hsz, hsz]
            for nm in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                prm = getattr(layer, nm + sfx)
                assert prm.stop_gradient is False
                assert float(prm.abs().max()) <= bound + 1e-7, (nm, sfx)
    p = set_params(layer, dtype, data, -0.8, 0.8)
    b, t = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    a = arr(data, [b, t, isz]).astype(dtype).astype(np.float64)
    use_len = data.draw(st.booleans())
    lengths = [data.draw(st.integers(1, t)) for _ in range(b)] if use_len else [t] * b
    use_init = data.draw(st.booleans())
    nstate = layers * dirs
    h0 = (
        arr(data, [nstate, b, hsz]).astype(dtype).astype(np.float64)
        if use_init
        else np.zeros((nstate, b, hsz))
    )
    c0 = None
    if kind == "LSTM":
        c0 = (
            arr(data, [nstate, b, hsz]).astype(dtype).astype(np.float64)
            if use_init
            else np.zeros((nstate, b, hsz))
        )
    want, hn, cn = rnn_ref(kind, a, p, layers, dirs, h0, c0, lengths, act)
    xin = np.swapaxes(a, 0, 1) if time_major else a
    x = tensor(xin, dtype, grad=True)
    fkw = {}
    if use_init:
        fkw["initial_states"] = (
            (tensor(h0, dtype), tensor(c0, dtype)) if kind == "LSTM" else tensor(h0, dtype)
        )
    if use_len:
        fkw["sequence_length"] = paddle.to_tensor(np.array(lengths, dtype="int64"))
    out, states = layer(x, **fkw)
    CALLS[kind] += 1
    tol = (1e-10, 1e-12) if dtype == "float64" else (2e-5, 2e-5)
    what = f"{kind} {direction} layers={layers} time_major={time_major} len={lengths}"
    check(out, np.swapaxes(want, 0, 1) if time_major else want, dtype, what, scale=4, tol=tol)
    if kind == "LSTM":
        h_got, c_got = states
        check(c_got, cn, dtype, what + " c_n", scale=4, tol=tol)
    else:
        h_got = states
    check(h_got, hn, dtype, what + " h_n", scale=4, tol=tol)
    # gradients: backward of sum(out * g) against a finite difference of the reference
    if dtype == "float64":
        g = arr(data, list(out.shape))
        layer.clear_gradients()
        (out * tensor(g)).sum().backward()
        name = data.draw(st.sampled_from(sorted(p)))
        prm = dict(layer.named_parameters())[name]
        idx = tuple(data.draw(st.integers(0, s - 1)) for s in p[name].shape)

        def loss(delta, which=name, at=idx):
            q = dict(p)
            q[which] = p[which].copy()
            q[which][at] += delta
            o, _, _ = rnn_ref(kind, a, q, layers, dirs, h0, c0, lengths, act)
            return ((np.swapaxes(o, 0, 1) if time_major else o) * g).sum()

        num = (loss(1e-6) - loss(-1e-6)) / 2e-6
        CALLS[f"{kind} param grad"] += 1
        got = float(prm.grad[idx])
        assert abs(got - num) <= 1e-5 * (1 + abs(num)), f"{what} d{name}{idx}: {got} vs {num}"
        ax = (1, 0) if time_major else (0, 1)
        bi, ti = data.draw(st.integers(0, b - 1)), data.draw(st.integers(0, t - 1))
        xi = data.draw(st.integers(0, isz - 1))

        def loss_x(delta):
            aa = a.copy()
            aa[bi, ti, xi] += delta
            o, _, _ = rnn_ref(kind, aa, p, layers, dirs, h0, c0, lengths, act)
            return ((np.swapaxes(o, 0, 1) if time_major else o) * g).sum()

        num = (loss_x(1e-6) - loss_x(-1e-6)) / 2e-6
        pos = (bi, ti, xi) if ax == (0, 1) else (ti, bi, xi)
        CALLS[f"{kind} input grad"] += 1
        got = float(x.grad[pos])
        assert abs(got - num) <= 1e-5 * (1 + abs(num)), f"{what} dx{pos}: {got} vs {num}"


# ---------------------------------------------------------------- regressions
def test_embedding_layer_padding_row_regression():
    # Paddle 3.3.1 python/paddle/nn/layer/common.py Embedding.forward calls F.embedding
    # with padding_idx, whose output is zeros at those positions
    emb = nn.Embedding(3, 2, padding_idx=-1)
    emb.weight.set_value(np.ones((3, 2), dtype="float32"))  # e.g. a loaded table
    ids = paddle.to_tensor([[2, 0]])
    np.testing.assert_array_equal(F.embedding(ids, emb.weight, padding_idx=-1).numpy()[0, 0], 0)
    np.testing.assert_array_equal(emb(ids).numpy(), [[[0.0, 0.0], [1.0, 1.0]]])


def test_embedding_paddle_init_regression():
    # Paddle 3.3.1 Embedding.__init__: create_parameter(attr=None, is_bias=False), whose
    # default initializer is XavierUniform (LayerHelperBase._get_default_initializer)
    paddle.seed(0)
    emb = nn.Embedding(100, 20)
    limit = math.sqrt(6.0 / (100 + 20))  # Paddle: XavierUniform on [num, dim]
    w = emb.weight.numpy()
    assert np.abs(w).max() <= limit * (1 + 1e-6)
    assert np.abs(w).max() > 0.9 * limit
