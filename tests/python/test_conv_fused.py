"""The fused convolution op (``_core._conv``, behind ``F.conv1d/2d/3d``): both kernels
(per-sample im2col + gemm, and the direct depthwise / few-channel kernel) against a
NumPy float64 reference and against the composed ``weight @ unfold(x)`` version, in
forward and in all three gradients; strides, padding (incl. "same"), dilation, groups,
1-D/2-D/3-D, 1x1 kernels, empty batches; gradcheck and gradgradcheck (double backward
goes through the composed version); thread-split sizes; clear errors."""

from __future__ import annotations

import itertools

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd import _core
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(22)
PATHS = ["auto", "gemm", "shift", "direct"]


def arr(*shape):
    return RNG.standard_normal(shape)


def t(a, grad=False, dtype=np.float64):
    return fg.tensor(np.asarray(a, dtype=dtype), requires_grad=grad)


def ref_conv(x, w, b, st, dl, lo, hi, groups):
    """NumPy float64 convolution over per-side padding (non-negative)."""
    nd = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    k = w.shape[2:]
    outs = [(xp.shape[2 + i] - dl[i] * (k[i] - 1) - 1) // st[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    out = np.zeros([n, o] + outs)
    for off in itertools.product(*[range(v) for v in k]):
        sl = tuple(
            slice(off[i] * dl[i], off[i] * dl[i] + (outs[i] - 1) * st[i] + 1, st[i])
            for i in range(nd)
        )
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(groups):
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + off]
            out[:, g * og : (g + 1) * og] += np.einsum(
                "nc...,oc->no...", patch[:, g * cg : (g + 1) * cg], wk
            )
    if b is not None:
        out += b.reshape([1, o] + [1] * nd)
    return out


def composed(x, w, b, st, dl, lo, hi, groups):
    """The convolution as it was composed before the fused op: W @ unfold(x) (+ b)."""
    n, o = x.shape[0], w.shape[0]
    k = list(w.shape[2:])
    cols = _core._unfold(x, k, st, dl, lo, hi)
    rows, length = cols.shape[1], cols.shape[2]
    g = groups
    out = w.reshape([g, o // g, rows // g]).matmul(cols.reshape([n, g, rows // g, length]))
    outs = [
        (s + a + bb - d * (kk - 1) - 1) // tt + 1
        for s, a, bb, d, kk, tt in zip(x.shape[2:], lo, hi, dl, k, st)
    ]
    out = out.reshape([n, o] + outs)
    if b is not None:
        out = out + b.reshape([o] + [1] * len(k))
    return out


# (x shape, w shape, stride, dilation, pad_lo, pad_hi, groups)
CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), [1, 1], [1, 1], [0, 0], [0, 0], 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), [2, 1], [1, 1], [1, 2], [1, 2], 1),
    ((1, 4, 8, 8), (6, 2, 3, 3), [2, 2], [2, 1], [1, 1], [2, 0], 2),
    ((2, 4, 5, 5), (4, 1, 3, 3), [1, 1], [1, 1], [1, 1], [1, 1], 4),  # depthwise
    ((2, 4, 5, 5), (8, 1, 3, 3), [1, 2], [1, 1], [1, 0], [2, 1], 4),  # channel multiplier 2
    ((1, 2, 5, 4), (3, 2, 1, 1), [1, 1], [1, 1], [0, 0], [0, 0], 1),  # 1x1: no im2col
    ((1, 2, 5, 4), (3, 2, 1, 1), [2, 1], [1, 1], [1, 0], [0, 1], 1),  # 1x1 strided, padded
    ((1, 2, 3, 3), (2, 2, 3, 3), [1, 1], [1, 1], [0, 0], [0, 0], 1),  # one output position
    ((3, 1, 6, 7), (2, 1, 2, 3), [3, 2], [2, 2], [0, 0], [0, 0], 1),
    ((2, 3, 9), (4, 3, 3), [2], [1], [1], [1], 1),  # 1-D
    ((2, 4, 11), (4, 1, 5), [1], [2], [4], [4], 4),  # 1-D depthwise, dilated
    ((1, 2, 4, 5, 4), (2, 1, 2, 3, 2), [1, 2, 1], [1, 1, 2], [1, 0, 1], [0, 1, 1], 2),  # 3-D
    ((2, 1, 3, 4, 3), (3, 1, 3, 1, 2), [2, 1, 1], [1, 1, 1], [1, 0, 0], [1, 0, 0], 1),  # 3-D
]
IDS = [f"{len(c[0]) - 2}d-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("xs,ws,st,dl,lo,hi,groups", CASES, ids=IDS)
def test_forward_and_gradients_match_numpy_and_composed(xs, ws, st, dl, lo, hi, groups, path):
    xa, wa, ba = arr(*xs), arr(*ws), arr(ws[0])
    want = ref_conv(xa, wa, ba, st, dl, lo, hi, groups)
    x, w, b = t(xa, True), t(wa, True), t(ba, True)
    out = _core._conv(x, w, b, st, dl, lo, hi, groups, path)
    assert out.shape == list(want.shape)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    gy = arr(*want.shape)
    out.backward(t(gy))
    x2, w2, b2 = t(xa, True), t(wa, True), t(ba, True)
    composed(x2, w2, b2, st, dl, lo, hi, groups).backward(t(gy))
    for got, ref in ((x, x2), (w, w2), (b, b2)):
        np.testing.assert_allclose(got.grad.numpy(), ref.grad.numpy(), rtol=1e-12, atol=1e-12)
    # the bias gradient is the output gradient summed per channel
    np.testing.assert_allclose(
        b.grad.numpy(), gy.sum(axis=tuple(i for i in range(gy.ndim) if i != 1)), rtol=1e-12
    )


@pytest.mark.parametrize("path", PATHS)
def test_only_some_inputs_need_gradients(path):
    xa, wa = arr(2, 4, 6, 6), arr(4, 2, 3, 3)
    for need_x, need_w in ((True, False), (False, True)):
        x, w = t(xa, need_x), t(wa, need_w)
        _core._conv(x, w, None, [1, 1], [1, 1], [1, 1], [1, 1], 2, path).sum().backward()
        x2, w2 = t(xa, need_x), t(wa, need_w)
        composed(x2, w2, None, [1, 1], [1, 1], [1, 1], [1, 1], 2).sum().backward()
        for got, ref in ((x, x2), (w, w2)):
            assert (got.grad is None) == (ref.grad is None)
            if got.grad is not None:
                np.testing.assert_allclose(got.grad.numpy(), ref.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("path", PATHS)
def test_sizes_that_split_over_threads_are_deterministic(path):
    # big enough for the per-sample blocks / the direct kernel's tasks to go parallel
    groups = 16 if path == "direct" else 1
    xa, wa, ba = arr(9, 16, 12, 13), arr(16, 16 // groups, 3, 3), arr(16)
    args = ([1, 1], [1, 1], [1, 1], [1, 1], groups)
    want = ref_conv(xa, wa, ba, *args)
    grads = []
    for _ in range(2):
        x, w, b = t(xa, True), t(wa, True), t(ba, True)
        out = _core._conv(x, w, b, *args, path)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-11, atol=1e-11)
        (out * out).sum().backward()
        grads.append([v.grad.numpy() for v in (x, w, b)])
    x2, w2, b2 = t(xa, True), t(wa, True), t(ba, True)
    o2 = composed(x2, w2, b2, *args)
    (o2 * o2).sum().backward()
    for a, b_, ref in zip(grads[0], grads[1], (x2, w2, b2)):
        np.testing.assert_array_equal(a, b_)  # same bits on a second run
        np.testing.assert_allclose(a, ref.grad.numpy(), rtol=1e-11, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_auto_takes_the_shifted_gemm_on_large_images(dtype):
    # 23x25 outputs (575 >= 512 positions) with unit stride: "auto" runs the shifted
    # gemm (one product per kernel row over the padded planes); odd sizes, uneven
    # "same" padding and groups, forward and all three gradients, across threads
    xa, wa, ba = arr(5, 4, 23, 26), arr(6, 2, 3, 4), arr(6)
    args = ([1, 1], [1, 1], [1, 1], [1, 2], 2)
    want = ref_conv(xa, wa, ba, *args)
    gy = arr(*want.shape)
    x, w, b = t(xa, True, dtype), t(wa, True, dtype), t(ba, True, dtype)
    out = _core._conv(x, w, b, *args, "auto")
    tol = 1e-12 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(out.numpy(), want, rtol=tol, atol=tol)
    out.backward(t(gy, dtype=dtype))
    x2, w2, b2 = t(xa, True), t(wa, True), t(ba, True)
    composed(x2, w2, b2, *args).backward(t(gy))
    for got, ref in ((x, x2), (w, w2), (b, b2)):
        np.testing.assert_allclose(got.grad.numpy(), ref.grad.numpy(), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("groups", [1, 2])
def test_small_images_batched_into_one_gemm_with_a_narrower_last_batch(groups):
    # 4x5 images: the columns of up to ~26 samples go side by side into one gemm call;
    # 37 samples leave a narrower last batch (the zero padding entries move), with
    # stride, padding and groups on the gemm path
    xa, wa, ba = arr(37, 4, 4, 5), arr(6, 4 // groups, 3, 2), arr(6)
    args = ([1, 2], [1, 1], [1, 0], [1, 1], groups)
    want = ref_conv(xa, wa, ba, *args)
    gy = arr(*want.shape)
    for path in ("gemm", "auto"):
        x, w, b = t(xa, True), t(wa, True), t(ba, True)
        out = _core._conv(x, w, b, *args, path)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
        out.backward(t(gy))
        x2, w2, b2 = t(xa, True), t(wa, True), t(ba, True)
        composed(x2, w2, b2, *args).backward(t(gy))
        for got, ref in ((x, x2), (w, w2), (b, b2)):
            np.testing.assert_allclose(got.grad.numpy(), ref.grad.numpy(), rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("path", PATHS)
def test_float32_matches_float64(path):
    xa, wa, ba = arr(3, 4, 9, 8), arr(8, 2, 3, 3), arr(8)
    args = ([1, 2], [1, 1], [1, 1], [1, 1], 2)
    want = ref_conv(xa, wa, ba, *args)
    x, w, b = (t(a, True, np.float32) for a in (xa, wa, ba))
    out = _core._conv(x, w, b, *args, path)
    assert out.dtype == fg.float32
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    out.sum().backward()
    x2, w2, b2 = t(xa, True), t(wa, True), t(ba, True)
    composed(x2, w2, b2, *args).sum().backward()
    for got, ref in ((x, x2), (w, w2), (b, b2)):
        np.testing.assert_allclose(got.grad.numpy(), ref.grad.numpy(), rtol=1e-4, atol=1e-3)


PANEL_CASES = [
    # (x shape, w shape, dilation, pad_lo, pad_hi, groups): output channels short of and
    # past the packed kernel's 6-row blocks, rows of exactly two 16-wide panels (32) and
    # with a short last panel, batch 1, groups, dilation, uneven and no padding
    ((2, 64, 12, 32), (64, 64, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ((1, 5, 7, 37), (13, 5, 3, 3), [1, 1], [1, 1], [1, 1], 1),
    ((3, 6, 9, 21), (8, 3, 3, 3), [2, 1], [2, 0], [1, 2], 2),
    ((2, 4, 11, 17), (7, 4, 3, 2), [1, 1], [0, 0], [0, 0], 1),
]


@pytest.mark.parametrize("xs,ws,dl,lo,hi,groups", PANEL_CASES)
def test_float32_shifted_path_on_packed_panels(xs, ws, dl, lo, hi, groups):
    # float32 on the shifted path runs the packed-panel kernel (AVX2/FMA CPUs): forward
    # (bias added in the kernel's store) and all three gradients against float64
    xa, wa, ba = arr(*xs), arr(*ws), arr(ws[0])
    args = ([1, 1], dl, lo, hi, groups)
    want = ref_conv(xa, wa, ba, *args)
    gy = arr(*want.shape)
    x, w, b = (t(a, True, np.float32) for a in (xa, wa, ba))
    out = _core._conv(x, w, b, *args, "shift")
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    out.backward(t(gy, dtype=np.float32))
    x2, w2, b2 = t(xa, True), t(wa, True), t(ba, True)
    composed(x2, w2, b2, *args).backward(t(gy))
    for got, ref in ((x, x2), (w, w2), (b, b2)):
        np.testing.assert_allclose(got.grad.numpy(), ref.grad.numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("path", PATHS)
def test_empty_batch(path):
    x, w, b = t(np.zeros((0, 2, 5, 5)), True), t(arr(3, 2, 3, 3), True), t(arr(3), True)
    out = _core._conv(x, w, b, [1, 1], [1, 1], [1, 1], [1, 1], 1, path)
    assert out.shape == [0, 3, 5, 5]
    out.sum().backward()
    assert x.grad.shape == [0, 2, 5, 5]
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((3, 2, 3, 3)))
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(3))


def test_noncontiguous_operands():
    xa, wa = arr(2, 3, 6, 5), arr(4, 3, 3, 3)
    x = t(xa.transpose(0, 1, 3, 2).copy()).transpose(2, 3)  # a strided view of xa
    w = t(wa.transpose(1, 0, 2, 3).copy()).transpose(0, 1)
    out = F.conv2d(x, w, padding=1)
    np.testing.assert_allclose(
        out.numpy(), ref_conv(xa, wa, None, [1, 1], [1, 1], [1, 1], [1, 1], 1), rtol=1e-12
    )


@pytest.mark.parametrize(
    "kw",
    [
        dict(padding="same"),
        dict(padding="same", dilation=2),
        dict(padding="same", groups=4),
        dict(padding="valid", stride=2),
        dict(padding=[1, 2, 0, 1]),  # Paddle's per-side form: top, bottom, left, right
    ],
)
def test_functional_padding_forms(kw):
    xa = arr(2, 4, 7, 6)
    g = kw.get("groups", 1)
    wa = arr(4, 4 // g, 3, 2)
    out = F.conv2d(t(xa), t(wa), **kw)
    st = [kw.get("stride", 1)] * 2
    dl = [kw.get("dilation", 1)] * 2
    pad = kw["padding"]
    if pad == "same":
        tot = [d * (k - 1) for d, k in zip(dl, wa.shape[2:])]
        lo, hi = [v // 2 for v in tot], [v - v // 2 for v in tot]
    elif pad == "valid":
        lo = hi = [0, 0]
    else:
        lo, hi = [pad[0], pad[2]], [pad[1], pad[3]]
    want = ref_conv(xa, wa, None, st, dl, lo, hi, g)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
    if pad == "same":
        assert out.shape[2:] == [7, 6]


GRAD_CASES = [
    ("gemm", (2, 2, 5, 4), (3, 2, 3, 2), ([2, 1], [1, 1], [1, 0], [1, 0], 1)),
    ("direct", (2, 2, 5, 4), (4, 1, 3, 2), ([1, 2], [2, 1], [2, 1], [2, 0], 2)),
    ("auto", (1, 4, 4, 4), (4, 1, 3, 3), ([1, 1], [1, 1], [1, 1], [1, 1], 4)),
    ("gemm", (2, 2, 6), (2, 1, 3), ([2], [1], [1], [1], 2)),
    ("direct", (1, 1, 3, 3, 3), (2, 1, 2, 2, 2), ([1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 1, 0], 1)),
]


@pytest.mark.parametrize("path,xs,ws,args", GRAD_CASES)
def test_gradcheck_and_gradgradcheck(path, xs, ws, args):
    x, w, b = t(arr(*xs), True), t(arr(*ws), True), t(arr(ws[0]), True)

    def f(x, w, b):
        return _core._conv(x, w, b, *args, path)

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_create_graph_gives_a_differentiable_gradient():
    x, w = t(arr(2, 3, 5, 5), True), t(arr(4, 3, 3, 3), True)
    out = F.conv2d(x, w, padding=1)
    (gx,) = fg.autograd.grad(out.pow(2).sum(), [x], create_graph=True)
    assert gx.requires_grad
    gx.sum().backward()
    x2, w2 = t(x.numpy(), True), t(w.numpy(), True)
    out2 = composed(x2, w2, None, [1, 1], [1, 1], [1, 1], [1, 1], 1)
    (gx2,) = fg.autograd.grad(out2.pow(2).sum(), [x2], create_graph=True)
    gx2.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "call,exc,words",
    [
        (lambda: _core._conv(t(arr(1, 4, 5, 5)), t(arr(2, 3, 3, 3)), None, [1, 1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "do not match"),
        (lambda: _core._conv(t(arr(1, 4, 5, 5)), t(arr(3, 2, 3, 3)), None, [1, 1], [1, 1],
                             [0, 0], [0, 0], 2), ValueError, "divisible"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), t(arr(3)), [1, 1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "bias"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), None, [1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "stride"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), None, [0, 1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "positive"),
        (lambda: _core._conv(t(arr(1, 2, 2, 2)), t(arr(2, 2, 3, 3)), None, [1, 1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "smaller than the dilated kernel"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), None, [1, 1], [1, 1],
                             [-1, 0], [0, 0], 1, "direct"), ValueError, "non-negative"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), None, [1, 1], [1, 1],
                             [0, 0], [0, 0], 1, "fast"), ValueError, "path"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3), dtype=np.float32), None,
                             [1, 1], [1, 1], [0, 0], [0, 0], 1), TypeError, "dtype"),
        (lambda: _core._conv(t(arr(5, 5)), t(arr(2, 2, 3, 3)), None, [1, 1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "3-D to"),
        (lambda: _core._conv(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3)), None, [1, 1], [1, 1],
                             [0, 0], [0, 0], 1), ValueError, "weight must be 4-D"),
    ],
)  # fmt: skip
def test_bad_input_is_a_clear_error(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_negative_padding_crops_on_the_gemm_path():
    xa, wa = arr(1, 2, 6, 6), arr(3, 2, 3, 3)
    out = _core._conv(t(xa), t(wa), None, [1, 1], [1, 1], [-1, 0], [0, -1], 1)
    want = ref_conv(xa[:, :, 1:, :5], wa, None, [1, 1], [1, 1], [0, 0], [0, 0], 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
