"""Convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d, unfold/fold) against NumPy
float64 references written here, gradcheck/gradgradcheck on small shapes, both dialects'
names and argument forms, and clear errors for bad input."""

from __future__ import annotations

import itertools
import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(20)


def arr(*shape):
    return RNG.standard_normal(shape)


def t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def ref_conv(x, w, b=None, stride=1, pad=0, dil=1, groups=1):
    """Direct convolution: loop over kernel offsets, pads given per side as (lo, hi)."""
    nd = x.ndim - 2
    st = [stride] * nd if isinstance(stride, int) else list(stride)
    dl = [dil] * nd if isinstance(dil, int) else list(dil)
    if isinstance(pad, int):
        pads = [(pad, pad)] * nd
    else:
        pads = [(p, p) if isinstance(p, int) else tuple(p) for p in pad]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    k = w.shape[2:]
    outs = [(xp.shape[2 + i] - dl[i] * (k[i] - 1) - 1) // st[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    o = w.shape[0]
    cg, og = c // groups, o // groups
    out = np.zeros([n, o] + outs)
    for off in itertools.product(*[range(kk) for kk in k]):
        sl = tuple(
            slice(off[i] * dl[i], off[i] * dl[i] + (outs[i] - 1) * st[i] + 1, st[i])
            for i in range(nd)
        )
        patch = xp[(slice(None), slice(None)) + sl]  # [N, C, *outs]
        for g in range(groups):
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + off]  # [og, cg]
            out[:, g * og : (g + 1) * og] += np.einsum(
                "nc...,oc->no...", patch[:, g * cg : (g + 1) * cg], wk
            )
    if b is not None:
        out += b.reshape([1, o] + [1] * nd)
    return out


def ref_conv_transpose(x, w, b=None, stride=1, pad=0, out_pad=0, dil=1, groups=1):
    """Direct transposed convolution: scatter every input with the kernel, then crop."""
    nd = x.ndim - 2
    st = [stride] * nd if isinstance(stride, int) else list(stride)
    dl = [dil] * nd if isinstance(dil, int) else list(dil)
    pd = [pad] * nd if isinstance(pad, int) else list(pad)
    op = [out_pad] * nd if isinstance(out_pad, int) else list(out_pad)
    n, c = x.shape[:2]
    k = w.shape[2:]
    og = w.shape[1]
    cg = c // groups
    full = [(x.shape[2 + i] - 1) * st[i] + dl[i] * (k[i] - 1) + 1 + op[i] for i in range(nd)]
    out = np.zeros([n, og * groups] + full)
    for pos in itertools.product(*[range(s) for s in x.shape[2:]]):
        for off in itertools.product(*[range(kk) for kk in k]):
            tgt = tuple(pos[i] * st[i] + off[i] * dl[i] for i in range(nd))
            for g in range(groups):
                xv = x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos]  # [N, cg]
                wk = w[(slice(g * cg, (g + 1) * cg), slice(None)) + off]  # [cg, og]
                out[(slice(None), slice(g * og, (g + 1) * og)) + tgt] += xv @ wk
    sl = tuple(slice(pd[i], full[i] - pd[i]) for i in range(nd))
    out = out[(slice(None), slice(None)) + sl]
    if b is not None:
        out = out + b.reshape([1, -1] + [1] * nd)
    return out


CONV2D_CASES = [
    # (x shape, w shape, stride, padding, dilation, groups)
    ((2, 3, 7, 6), (4, 3, 3, 3), 1, 0, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 1), (1, 2), 1, 1),
    ((1, 4, 8, 8), (6, 2, 3, 3), 2, 1, (2, 1), 2),
    ((2, 4, 5, 5), (4, 1, 3, 3), 1, 1, 1, 4),  # depthwise
    ((1, 2, 5, 4), (3, 2, 1, 1), 1, 0, 1, 1),  # 1x1
    ((1, 2, 3, 3), (2, 2, 3, 3), 1, 0, 1, 1),  # one output position
    ((3, 1, 6, 7), (2, 1, 2, 3), (3, 2), 0, (2, 2), 1),
]


@pytest.mark.parametrize("xs,ws,stride,pad,dil,groups", CONV2D_CASES)
def test_conv2d_matches_numpy(xs, ws, stride, pad, dil, groups):
    x, w, b = arr(*xs), arr(*ws), arr(ws[0])
    got = F.conv2d(t(x), t(w), t(b), stride, pad, dil, groups).numpy()
    np.testing.assert_allclose(
        got, ref_conv(x, w, b, stride, pad, dil, groups), rtol=1e-10, atol=1e-12
    )


def test_conv2d_float32_and_noncontiguous_input():
    x, w = arr(2, 3, 6, 5), arr(4, 3, 3, 3)
    got = F.conv2d(fg.tensor(x.astype(np.float32)), fg.tensor(w.astype(np.float32)), padding=1)
    assert got.dtype == fg.float32
    np.testing.assert_allclose(got.numpy(), ref_conv(x, w, pad=1), rtol=1e-4, atol=1e-4)
    xt = t(x.transpose(0, 1, 3, 2).copy()).transpose(2, 3)  # a strided view
    np.testing.assert_allclose(F.conv2d(xt, t(w)).numpy(), ref_conv(x, w), rtol=1e-10)


def test_conv1d_and_conv3d_match_numpy():
    x, w, b = arr(2, 4, 9), arr(6, 2, 3), arr(6)
    got = F.conv1d(t(x), t(w), t(b), stride=2, padding=2, dilation=2, groups=2).numpy()
    np.testing.assert_allclose(got, ref_conv(x, w, b, 2, 2, 2, 2), rtol=1e-10)
    x, w = arr(1, 2, 4, 5, 3), arr(3, 2, 2, 3, 2)
    got = F.conv3d(t(x), t(w), None, (1, 2, 1), (1, 0, 1)).numpy()
    np.testing.assert_allclose(got, ref_conv(x, w, None, (1, 2, 1), (1, 0, 1)), rtol=1e-10)


def test_padding_forms_same_valid_and_per_side():
    x, w = arr(1, 2, 6, 7), arr(3, 2, 3, 4)
    xt, wt = t(x), t(w)
    same = F.conv2d(xt, wt, padding="same").numpy()
    assert same.shape == (1, 3, 6, 7)
    # total pad (k-1)*d: 2 -> (1, 1); 3 -> (1, 2), the odd one after (as both peers)
    np.testing.assert_allclose(same, ref_conv(x, w, pad=[(1, 1), (1, 2)]), rtol=1e-10)
    np.testing.assert_allclose(F.conv2d(xt, wt, padding="VALID").numpy(), ref_conv(x, w))
    want = ref_conv(x, w, pad=[(0, 2), (1, 0)])
    np.testing.assert_allclose(F.conv2d(xt, wt, padding=[0, 2, 1, 0]).numpy(), want, rtol=1e-10)
    pairs = [[0, 0], [0, 0], [0, 2], [1, 0]]
    np.testing.assert_allclose(F.conv2d(xt, wt, padding=pairs).numpy(), want, rtol=1e-10)
    # Paddle's "SAME" with stride 2: output ceil(in / stride)
    assert F.conv2d(xt, wt, stride=2, padding="SAME").shape == [1, 3, 3, 4]


def test_nhwc_data_format_and_unbatched_input():
    x, w, b = arr(2, 5, 6, 3), arr(4, 3, 3, 3), arr(4)
    got = F.conv2d(t(x), t(w), t(b), padding=1, data_format="NHWC").numpy()
    want = ref_conv(x.transpose(0, 3, 1, 2), w, b, pad=1).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    one = F.conv2d(t(x[0].transpose(2, 0, 1)), t(w), t(b), padding=1).numpy()
    np.testing.assert_allclose(
        one, ref_conv(x[:1].transpose(0, 3, 1, 2), w, b, pad=1)[0], rtol=1e-10
    )


def test_zero_size_batch():
    out = F.conv2d(t(np.zeros((0, 2, 5, 5))), t(arr(3, 2, 3, 3)))
    assert out.shape == [0, 3, 3, 3]


GRAD_CASES = [
    ("plain", (1, 2, 4, 4), (2, 2, 2, 2), dict()),
    ("stride_pad", (2, 2, 5, 4), (3, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
    ("dilation_groups", (1, 4, 5, 5), (4, 2, 2, 2), dict(dilation=2, groups=2, padding=1)),
    ("depthwise_same", (1, 3, 4, 4), (3, 1, 3, 3), dict(groups=3, padding="same")),
]


@pytest.mark.parametrize("name,xs,ws,kw", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_conv2d_gradcheck_and_gradgradcheck(name, xs, ws, kw):
    x, w, b = t(arr(*xs), True), t(arr(*ws), True), t(arr(ws[0]), True)

    def f(x, w, b):
        return F.conv2d(x, w, b, **kw)

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_conv1d_conv3d_gradcheck():
    x, w = t(arr(2, 2, 5), True), t(arr(2, 1, 3), True)
    assert gradgradcheck(lambda x, w: F.conv1d(x, w, stride=2, padding=1, groups=2), (x, w))
    x, w = t(arr(1, 1, 3, 3, 3), True), t(arr(2, 1, 2, 2, 2), True)
    assert gradcheck(lambda x, w: F.conv3d(x, w, padding=(1, 0, 0)), (x, w))


TRANSPOSE_CASES = [
    # (x shape, w shape, stride, padding, output_padding, dilation, groups)
    ((2, 3, 4, 3), (3, 2, 3, 3), 1, 0, 0, 1, 1),
    ((1, 2, 3, 4), (2, 3, 3, 2), 2, 1, 1, 1, 1),
    ((2, 4, 3, 3), (4, 1, 2, 3), (2, 3), (0, 1), (1, 2), 1, 2),
    ((1, 2, 4, 4), (2, 2, 2, 2), 1, 1, 0, 2, 1),
    ((1, 1, 2, 2), (1, 1, 3, 3), 3, 0, 2, 1, 1),  # output_padding beyond padding
]


@pytest.mark.parametrize("xs,ws,stride,pad,op,dil,groups", TRANSPOSE_CASES)
def test_conv_transpose2d_matches_numpy(xs, ws, stride, pad, op, dil, groups):
    x, w, b = arr(*xs), arr(*ws), arr(ws[1] * groups)
    got = F.conv_transpose2d(t(x), t(w), t(b), stride, pad, op, groups, dil).numpy()
    want = ref_conv_transpose(x, w, b, stride, pad, op, dil, groups)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_conv_transpose_is_the_input_gradient_of_conv():
    x, w = t(arr(2, 3, 7, 6), True), t(arr(4, 3, 3, 2))
    y = F.conv2d(x, w, stride=2, padding=1)
    g = t(arr(*y.shape))
    (gx,) = fg.autograd.grad(y, x, g)
    back = F.conv_transpose2d(g, w, stride=2, padding=1, output_size=[7, 6])
    np.testing.assert_allclose(back.numpy(), gx.numpy(), rtol=1e-10)


def test_conv_transpose_1d_3d_and_gradcheck():
    x, w = arr(2, 2, 4), arr(2, 3, 3)
    np.testing.assert_allclose(
        F.conv_transpose1d(t(x), t(w), stride=2, padding=1).numpy(),
        ref_conv_transpose(x, w, stride=2, pad=1),
        rtol=1e-10,
    )
    x, w = arr(1, 2, 2, 3, 2), arr(2, 1, 2, 2, 2)
    np.testing.assert_allclose(
        F.conv_transpose3d(t(x), t(w), stride=2).numpy(),
        ref_conv_transpose(x, w, stride=2),
        rtol=1e-10,
    )
    xt, wt, bt = t(arr(1, 2, 3, 3), True), t(arr(2, 2, 2, 2), True), t(arr(2), True)

    def f(x, w, b):
        return F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)

    assert gradcheck(f, (xt, wt, bt))
    assert gradgradcheck(f, (xt, wt, bt))


def test_unfold_fold_torch_names():
    x = arr(2, 3, 5, 4)
    cols = F.unfold(t(x), kernel_size=(2, 3), padding=1, stride=(2, 1))
    kh, kw = 2, 3
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    oh, ow = (xp.shape[2] - kh) // 2 + 1, xp.shape[3] - kw + 1
    want = np.stack(
        [xp[:, :, i : i + 2 * (oh - 1) + 1 : 2, j : j + ow] for i in range(kh) for j in range(kw)],
        axis=2,
    ).reshape(2, 3 * kh * kw, oh * ow)
    np.testing.assert_allclose(cols.numpy(), want)
    back = F.fold(cols, (5, 4), (2, 3), padding=1, stride=(2, 1))
    assert back.shape == [2, 3, 5, 4]
    c = t(arr(*cols.shape), True)
    assert gradgradcheck(lambda c: F.fold(c, (5, 4), (2, 3), padding=1, stride=(2, 1)), (c,))


def test_modules_both_dialects():
    fg.seed(0)
    m = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
    assert m.weight.shape == [6, 2, 3, 3] and m.bias.shape == [6]
    bound = 1.0 / math.sqrt(2 * 9)
    assert np.abs(m.weight.numpy()).max() <= bound and np.abs(m.bias.numpy()).max() <= bound
    x = arr(2, 4, 7, 7)
    want = ref_conv(x, m.weight.numpy(), m.bias.numpy(), 2, 1, 1, 2)
    np.testing.assert_allclose(m(t(x).astype("float32")).numpy(), want, rtol=1e-4, atol=1e-5)
    p = nn.Conv2D(4, 6, (3, 3), padding=[1, 1], data_format="NHWC", bias_attr=False)
    assert p.bias is None
    y = p(t(x.transpose(0, 2, 3, 1)).astype("float32"))
    assert y.shape == [2, 7, 7, 6]
    assert nn.Conv1d(2, 3, 3).weight.shape == [3, 2, 3]
    assert nn.Conv3D(2, 3, 2).weight.shape == [3, 2, 2, 2, 2]
    assert nn.Conv1D(2, 3, 3, bias_attr=False).bias is None
    ct = nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2)
    assert ct.weight.shape == [4, 3, 3, 3]
    assert ct(t(arr(1, 4, 3, 3)).astype("float32")).shape == [1, 6, 7, 7]
    assert ct(t(arr(1, 4, 3, 3)).astype("float32"), output_size=[8, 8]).shape == [1, 6, 8, 8]
    pt = nn.Conv2DTranspose(4, 6, 3, stride=2)
    assert pt.weight.shape == [4, 6, 3, 3]
    assert "Conv2d(4, 6" in repr(m)


@pytest.mark.parametrize(
    "mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]
)
def test_padding_modes(mode, np_mode):
    m = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode, dtype="float64")
    x = arr(1, 2, 4, 5)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 2)], mode=np_mode)
    want = ref_conv(xp, m.weight.numpy(), m.bias.numpy())
    np.testing.assert_allclose(m(t(x)).numpy(), want, rtol=1e-10)
    xt = t(x, True)
    assert gradcheck(lambda x: m(x), (xt,))


def test_training_step_reduces_loss():
    fg.seed(1)
    m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
    opt = fg.optim.SGD(m.parameters(), lr=0.1)
    x = fg.tensor(RNG.standard_normal((8, 1, 4, 4)).astype(np.float32))
    y = fg.tensor(np.array([0, 1] * 4))
    losses = []
    for _ in range(20):
        loss = F.cross_entropy(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


@pytest.mark.parametrize(
    "call,exc,words",
    [
        (lambda: F.conv2d(t(arr(1, 3, 5, 5)), t(arr(2, 2, 3, 3))), ValueError, "do not match"),
        (
            lambda: F.conv2d(t(arr(1, 4, 5, 5)), t(arr(3, 2, 3, 3)), groups=2),
            ValueError,
            "divisible",
        ),
        (
            lambda: F.conv2d(t(arr(3, 5, 5)).reshape([1, 3, 5, 5, 1]), t(arr(2, 3, 3, 3))),
            ValueError,
            "4-D",
        ),
        (
            lambda: F.conv2d(t(arr(1, 2, 2, 2)), t(arr(2, 2, 3, 3))),
            ValueError,
            "smaller than the dilated kernel",
        ),
        (lambda: F.conv2d(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), stride=0), ValueError, "stride"),
        (
            lambda: F.conv2d(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), padding=-1),
            ValueError,
            "padding",
        ),
        (
            lambda: F.conv2d(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), padding="full"),
            ValueError,
            "same",
        ),
        (lambda: F.conv2d(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), t(arr(3))), ValueError, "bias"),
        (
            lambda: F.conv2d(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)), data_format="NWHC"),
            ValueError,
            "data_format",
        ),
        (
            lambda: F.conv2d(t(arr(1, 2, 5, 5)), t(arr(2, 2, 3, 3)).astype("float32")),
            TypeError,
            "dtype",
        ),
        (
            lambda: F.conv2d(
                fg.tensor(np.ones((1, 2, 5, 5), dtype=np.int64)),
                fg.tensor(np.ones((2, 2, 3, 3), dtype=np.int64)),
            ),
            TypeError,
            "float32 or float64",
        ),
        (lambda: F.conv2d(np.ones((1, 2, 5, 5)), t(arr(2, 2, 3, 3))), TypeError, "Tensor"),
        (
            lambda: F.conv_transpose2d(
                t(arr(1, 2, 3, 3)), t(arr(2, 2, 3, 3)), stride=2, output_padding=2
            ),
            ValueError,
            "output_padding",
        ),
        (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "divisible"),
        (lambda: nn.Conv2d(3, 4, 3, padding_mode="mirror"), ValueError, "padding_mode"),
    ],
)
def test_bad_input_is_a_clear_error(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_top_level_names_and_missing_list():
    assert fg.conv2d is F.conv2d and fg.conv_transpose2d is F.conv_transpose2d
    from ferrograd import _missing

    # (ferrograd.sparse.nn lists Paddle's *sparse* Conv2D / conv2d, a different layer)
    listed = {
        n
        for module, names in _missing._PEER_NAMES.items()
        if not module.startswith("ferrograd.sparse")
        for n in names
    }
    for name in ("conv1d", "conv2d", "Conv2d", "Conv2D", "MaxPool2d", "AvgPool2D", "max_pool2d"):
        assert name not in listed
