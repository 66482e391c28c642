"""``F.pad`` (constant, reflect, replicate, circular; both peers' pad orders) and
``F.interpolate`` / ``nn.Upsample`` (nearest, linear, bilinear, trilinear; align_corners)
against NumPy float64 references and the peers' documented results, with gradcheck /
gradgradcheck and bad input."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)
A = RNG.standard_normal((2, 3, 4, 5))


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def grads_ok(fn, *arrays):
    ins = tuple(t64(a, True) for a in arrays)
    assert gradcheck(fn, ins)
    assert gradgradcheck(fn, ins)


NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_match_numpy(mode):
    got = F.pad(t64(A), [1, 2, 3, 0], mode=mode).numpy()
    np.testing.assert_array_equal(got, np.pad(A, ((0, 0), (0, 0), (3, 0), (1, 2)), NP_MODE[mode]))
    got = F.pad(t64(A[0]), (2, 1), mode=mode).numpy()
    np.testing.assert_array_equal(got, np.pad(A[0], ((0, 0), (0, 0), (2, 1)), NP_MODE[mode]))
    grads_ok(lambda a: F.pad(a, [1, 2, 2, 1], mode=mode), A[:1, :1])


def test_pad_constant_orders_and_crop():
    got = F.pad(t64(A), [1, 2], value=7.0).numpy()
    np.testing.assert_array_equal(got, np.pad(A, ((0, 0),) * 3 + ((1, 2),), constant_values=7.0))
    # Paddle: 2 * ndim values go first dimension first (pad_from_left_axis=True)
    got = F.pad(t64(A), [1, 0, 0, 0, 0, 2, 0, 0], pad_from_left_axis=True).numpy()
    np.testing.assert_array_equal(got, np.pad(A, ((1, 0), (0, 0), (0, 2), (0, 0))))
    # PyTorch's order for the same list
    got = F.pad(input=t64(A), pad=[1, 0, 0, 0, 0, 2, 0, 0]).numpy()
    np.testing.assert_array_equal(got, np.pad(A, ((0, 0), (0, 2), (0, 0), (1, 0))))
    with pytest.raises(ValueError, match="pad_from_left_axis"):
        F.pad(t64(A), [1, 0, 0, 0, 0, 2, 0, 0])
    # a symmetric list reads the same either way
    got = F.pad(t64(A[0, 0]), [1, 1, 1, 1]).numpy()
    np.testing.assert_array_equal(got, np.pad(A[0, 0], 1))
    # negative pads crop
    np.testing.assert_array_equal(
        F.pad(t64(A), [-1, 2]).numpy(), np.pad(A[..., 1:], ((0, 0),) * 3 + ((0, 2),))
    )
    # Paddle's data_format: pairs go to the spatial axes of an NHWC tensor
    got = F.pad(t64(A), [1, 1, 2, 0], mode="replicate", data_format="NHWC").numpy()
    np.testing.assert_array_equal(got, np.pad(A, ((0, 0), (2, 0), (1, 1), (0, 0)), "edge"))
    grads_ok(lambda a: F.pad(a, [1, -1, 0, 2], value=3.0), A[0])


def test_pad_bad_input():
    with pytest.raises(ValueError, match="even"):
        F.pad(t64(A), [1])
    with pytest.raises(ValueError, match="at most"):
        F.pad(t64([1.0]), [1, 1, 1, 1])
    with pytest.raises(ValueError, match="smaller than dimension"):
        F.pad(t64(A), [5, 0], mode="reflect")
    with pytest.raises(ValueError, match="mode"):
        F.pad(t64(A), [1, 1], mode="symmetric")


def ref_linear_1d(a, axis, n_out, align_corners, scale=None):
    """PyTorch's linear resampling along one axis (direct formula)."""
    n_in = a.shape[axis]
    out = []
    for j in range(n_out):
        if align_corners:
            s = j * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            r = 1.0 / scale if scale else n_in / n_out
            s = max((j + 0.5) * r - 0.5, 0.0)
        i0 = min(int(np.floor(s)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        w = s - i0
        out.append(np.take(a, i0, axis) * (1 - w) + np.take(a, i1, axis) * w)
    return np.stack(out, axis)


def test_bilinear_matches_the_documented_values():
    x = t64(np.array([[[[1.0, 2.0], [3.0, 4.0]]]]))
    got = F.interpolate(x, scale_factor=2, mode="bilinear").numpy()[0, 0]
    want = [[1, 1.25, 1.75, 2], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5], [3, 3.25, 3.75, 4]]
    np.testing.assert_allclose(got, want)
    got = F.interpolate(x, size=(4, 4), mode="bilinear", align_corners=True).numpy()[0, 0]
    third = 1 / 3
    want = [
        [1, 1 + third, 1 + 2 * third, 2],
        [1 + 2 * third, 2, 2 + third, 2 + 2 * third],
        [2 + third, 2 + 2 * third, 3, 3 + third],
        [3, 3 + third, 3 + 2 * third, 4],
    ]
    np.testing.assert_allclose(got, want)
    got = F.interpolate(x, scale_factor=2).numpy()[0, 0]
    np.testing.assert_array_equal(got, [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]])


@pytest.mark.parametrize("align_corners", [False, True])
def test_linear_modes_match_reference(align_corners):
    got = F.interpolate(t64(A), size=[7, 3], mode="bilinear", align_corners=align_corners)
    want = ref_linear_1d(ref_linear_1d(A, 2, 7, align_corners), 3, 3, align_corners)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    got = F.interpolate(
        t64(A[:, :, 0]), scale_factor=1.5, mode="linear", align_corners=align_corners
    )
    want = ref_linear_1d(A[:, :, 0], 2, 7, align_corners, None if align_corners else 1.5)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    vol = A[:1, :1, :, :, None] * np.ones(2)
    got = F.interpolate(t64(vol), size=[3, 2, 4], mode="trilinear", align_corners=align_corners)
    want = ref_linear_1d(
        ref_linear_1d(ref_linear_1d(vol, 2, 3, align_corners), 3, 2, align_corners),
        4,
        4,
        align_corners,
    )
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    grads_ok(
        lambda a: F.interpolate(a, size=[5, 3], mode="bilinear", align_corners=align_corners),
        A[:1, :1],
    )


def test_nearest_rules_and_channels_last():
    a = A[:1, :1]
    got = F.interpolate(t64(a), size=[6, 2]).numpy()
    rows = np.minimum(np.floor(np.arange(6) * 4 / 6).astype(int), 3)
    cols = np.minimum(np.floor(np.arange(2) * 5 / 2).astype(int), 4)
    np.testing.assert_array_equal(got, a[:, :, rows][:, :, :, cols])
    got = F.interpolate(t64(a), size=[6, 2], mode="nearest", align_corners=True).numpy()  # Paddle
    rows = np.floor(np.arange(6) * 3 / 5 + 0.5).astype(int)
    cols = np.floor(np.arange(2) * 4 / 1 + 0.5).astype(int)
    np.testing.assert_array_equal(got, a[:, :, rows][:, :, :, cols])
    nhwc = np.moveaxis(A, 1, -1)
    got = F.interpolate(t64(nhwc), scale_factor=2, mode="bilinear", data_format="NHWC").numpy()
    want = np.moveaxis(F.interpolate(t64(A), scale_factor=2, mode="bilinear").numpy(), 1, -1)
    np.testing.assert_allclose(got, want)
    grads_ok(lambda x: F.interpolate(x, scale_factor=(2, 0.5)), a)


def test_upsample_layers():
    x = t64(A)
    np.testing.assert_array_equal(
        fg.nn.Upsample(scale_factor=2)(x).numpy(), F.interpolate(x, scale_factor=2).numpy()
    )
    np.testing.assert_allclose(
        fg.nn.UpsamplingBilinear2d(size=(3, 3))(x).numpy(),
        F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True).numpy(),
    )
    assert fg.nn.UpsamplingNearest2D is fg.nn.UpsamplingNearest2d
    assert "scale_factor=2" in repr(fg.nn.Upsample(scale_factor=2))


def test_interpolate_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        F.interpolate(t64(A))
    with pytest.raises(ValueError, match="spatial"):
        F.interpolate(t64(A), size=4, mode="linear")
    with pytest.raises(ValueError, match="not supported"):
        F.interpolate(t64(A), size=4, mode="lanczos")
    with pytest.raises(ValueError, match="3 to 5"):
        F.interpolate(t64(A[0, 0]), size=4)


def ref_bicubic(a, n_h, n_w, align_corners):
    """Bicubic resize of the last two axes, one output pixel at a time (4x4 taps, Keys'
    a = -0.75, border pixels repeated): PyTorch's and Paddle's rule, written directly."""

    def kernel(z):
        z, c = abs(z), -0.75
        if z <= 1:
            return ((c + 2) * z - (c + 3)) * z * z + 1
        return ((c * z - 5 * c) * z + 8 * c) * z - 4 * c if z < 2 else 0.0

    def src(i, n_in, n_out):
        if align_corners:
            return i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        return (i + 0.5) * n_in / n_out - 0.5

    h, w = a.shape[-2:]
    out = np.zeros(a.shape[:-2] + (n_h, n_w))
    for i in range(n_h):
        for j in range(n_w):
            y, x = src(i, h, n_h), src(j, w, n_w)
            y0, x0 = math.floor(y), math.floor(x)
            for p in range(y0 - 1, y0 + 3):
                for q in range(x0 - 1, x0 + 3):
                    wt = kernel(y - p) * kernel(x - q)
                    out[..., i, j] += wt * a[..., min(max(p, 0), h - 1), min(max(q, 0), w - 1)]
    return out


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(7, 3), (2, 9), (1, 1)])
def test_bicubic_matches_reference_and_gradchecks(size, align_corners):
    got = F.interpolate(t64(A), size=size, mode="bicubic", align_corners=align_corners)
    want = ref_bicubic(A, *size, align_corners)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    if size == (7, 3):
        grads_ok(
            lambda x: F.interpolate(x, size=size, mode="bicubic", align_corners=align_corners),
            A[:1, :1],
        )


def test_bicubic_channels_last_and_torch_values():
    # weights sum to one: a constant image stays constant, borders included
    np.testing.assert_allclose(
        F.interpolate(fg.full([1, 1, 3, 4], 2.5, dtype=fg.float64), scale_factor=2.5,
                      mode="bicubic").numpy(),
        np.full((1, 1, 7, 10), 2.5), rtol=1e-14,
    )  # fmt: skip
    last = F.interpolate(
        t64(A.transpose(0, 2, 3, 1)), size=(6, 2), mode="bicubic", data_format="NHWC"
    )
    np.testing.assert_allclose(
        last.numpy().transpose(0, 3, 1, 2), ref_bicubic(A, 6, 2, False), rtol=1e-12
    )
    # torch 2.15: F.interpolate(torch.arange(16.).reshape(1, 1, 4, 4), size=(3, 3),
    # mode="bicubic")[0, 0, 0]
    x = fg.arange(16, dtype=fg.float64).reshape([1, 1, 4, 4])
    row = F.interpolate(x, size=(3, 3), mode="bicubic")[0, 0, 0].numpy()
    np.testing.assert_allclose(row, [0.6307870370, 2.0046296296, 3.3784722222], rtol=1e-9)


def test_area_mode_is_adaptive_average_pooling():
    got = F.interpolate(t64(A), size=(2, 3), mode="area")
    np.testing.assert_allclose(got.numpy(), F.adaptive_avg_pool2d(t64(A), (2, 3)).numpy())
    np.testing.assert_allclose(got.numpy()[..., 0, 0], A[..., :2, :2].mean(axis=(-1, -2)))
    one = F.interpolate(t64(A[:, :, 0]), scale_factor=0.5, mode="area")
    # width 5 -> 2: windows [0, 3) and [2, 5) (floor / ceil of i * 5 / 2)
    np.testing.assert_allclose(one.numpy()[..., 0], A[:, :, 0, 0:3].mean(-1))
    np.testing.assert_allclose(one.numpy()[..., 1], A[:, :, 0, 2:5].mean(-1))
