"""ferrograd.vision.ops.deform_conv2d / DeformConv2D against a per-sample NumPy loop.

(Values and all five gradients were also compared with Paddle 3.3.1 by hand: equal to
float64 rounding.)
"""

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from ferrograd.vision import ops


def _sample(img, y, x):
    """Deformable conv's bilinear read of a [H, W] plane: corners outside read 0."""
    h, w = img.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * img[yy, xx]
    return total


def _reference(x, off, wt, b, stride, pad, dil, dg, groups, mask):
    n, c, h, w = x.shape
    m, cg, kh, kw = wt.shape
    ho = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (w + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, m, ho, wo))
    for bi in range(n):
        for oc in range(m):
            g = oc // (m // groups)
            for i in range(ho):
                for j in range(wo):
                    acc = b[oc]
                    for ci in range(cg):
                        ch = g * cg + ci
                        d = ch // (c // dg)
                        for a in range(kh):
                            for e in range(kw):
                                k = a * kw + e
                                dy = off[bi, d * 2 * kh * kw + 2 * k, i, j]
                                dx = off[bi, d * 2 * kh * kw + 2 * k + 1, i, j]
                                y = i * stride[0] - pad[0] + a * dil[0] + dy
                                xx = j * stride[1] - pad[1] + e * dil[1] + dx
                                v = _sample(x[bi, ch], y, xx)
                                if mask is not None:
                                    v *= mask[bi, d * kh * kw + k, i, j]
                                acc += wt[oc, ci, a, e] * v
                    out[bi, oc, i, j] = acc
    return out


@pytest.mark.parametrize(
    "stride, pad, dil, dg, groups, with_mask",
    [((1, 1), (1, 1), (1, 1), 1, 1, False), ((2, 1), (1, 0), (1, 2), 2, 2, True)],
)
def test_deform_conv2d_matches_loop(stride, pad, dil, dg, groups, with_mask):
    rng = np.random.RandomState(0)
    x = rng.normal(size=(1, 4, 6, 5))
    wt = rng.normal(size=(4, 4 // groups, 3, 2))
    ho = (6 + 2 * pad[0] - dil[0] * 2 - 1) // stride[0] + 1
    wo = (5 + 2 * pad[1] - dil[1] - 1) // stride[1] + 1
    off = rng.normal(0, 1.5, size=(1, 2 * dg * 6, ho, wo))
    mask = rng.uniform(size=(1, dg * 6, ho, wo)) if with_mask else None
    b = rng.normal(size=4)
    got = ops.deform_conv2d(
        paddle.to_tensor(x), paddle.to_tensor(off), paddle.to_tensor(wt), paddle.to_tensor(b),
        stride, pad, dil, dg, groups, None if mask is None else paddle.to_tensor(mask),
    )  # fmt: skip
    want = _reference(x, off, wt, b, stride, pad, dil, dg, groups, mask)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)


def test_deform_conv2d_gradcheck_and_zero_offset_is_conv():
    rng = np.random.RandomState(1)

    def t(*shape, **kw):
        return paddle.to_tensor(rng.normal(size=shape), stop_gradient=False, **kw)

    x, w, b = t(1, 1, 3, 3), t(2, 1, 2, 2), t(2)
    # offsets away from integer positions, where bilinear sampling is smooth
    off = paddle.to_tensor(rng.uniform(0.1, 0.4, size=(1, 8, 2, 2)), stop_gradient=False)
    mask = paddle.to_tensor(rng.uniform(size=(1, 4, 2, 2)), stop_gradient=False)
    assert gradcheck(lambda *a: ops.deform_conv2d(a[0], a[1], a[2], a[3], mask=a[4]),
                     [x, off, w, b, mask])  # fmt: skip
    layer = ops.DeformConv2D(2, 3, 3, padding=1)
    assert list(layer.weight.shape) == [3, 2, 3, 3] and list(layer.bias.shape) == [3]
    xx = paddle.randn([2, 2, 5, 5])
    zero = paddle.zeros([2, 18, 5, 5])
    conv = paddle.nn.functional.conv2d(xx, layer.weight, layer.bias, padding=1)
    np.testing.assert_allclose(layer(xx, zero).numpy(), conv.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="offset must have shape"):
        layer(xx, paddle.zeros([2, 9, 5, 5]))
