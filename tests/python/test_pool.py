"""Pooling (max/avg/adaptive/unpool, 1d-3d) against NumPy float64 references written
here, gradcheck/gradgradcheck, both dialects' names and arguments, clear errors."""

from __future__ import annotations

import itertools

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)


def arr(*shape):
    # distinct values: the maximum of every window is unique (gradcheck is then valid)
    n = int(np.prod(shape))
    return (RNG.permutation(n).astype(np.float64) / n - 0.5).reshape(shape)


def t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def out_len(s, k, st, p, d, ceil):
    span = s + 2 * p - d * (k - 1) - 1
    o = (span + (st - 1 if ceil else 0)) // st + 1
    if ceil and (o - 1) * st >= s + p:
        o -= 1
    return o


def ref_pool(x, k, st, p, d=1, ceil=False, kind="max", include_pad=True):
    """Direct loop over output positions (any number of spatial dims)."""
    nd = x.ndim - 2
    d = (d,) * nd if isinstance(d, int) else d
    sp = x.shape[2:]
    outs = [out_len(sp[i], k[i], st[i], p[i], d[i], ceil) for i in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    idx = np.zeros(out.shape, dtype=np.int64)
    for pos in itertools.product(*[range(o) for o in outs]):
        vals, where, pool = [], [], 1
        for i in range(nd):
            start = pos[i] * st[i] - p[i]
            pool *= min(start + k[i], sp[i] + p[i]) - start
        for off in itertools.product(*[range(kk) for kk in k]):
            c = [pos[i] * st[i] - p[i] + off[i] * d[i] for i in range(nd)]
            if all(0 <= c[i] < sp[i] for i in range(nd)):
                vals.append(x[(slice(None), slice(None)) + tuple(c)])
                where.append(int(np.ravel_multi_index(c, sp)))
        v = np.stack(vals, -1)
        key = (slice(None), slice(None)) + pos
        if kind == "max":
            out[key] = v.max(-1)
            idx[key] = np.array(where)[v.argmax(-1)]
        else:
            out[key] = v.sum(-1) / (pool if include_pad else len(vals))
    return out, idx


MAX_CASES = [
    ((2, 3, 7, 6), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((1, 2, 7, 6), (3, 3), (2, 2), (1, 1), (1, 1), False),
    ((1, 2, 7, 6), (3, 2), (2, 2), (1, 1), (1, 1), True),
    ((2, 1, 8, 9), (2, 3), (1, 2), (1, 0), (2, 2), True),
    ((1, 1, 5, 5), (3, 3), (3, 3), (0, 0), (1, 1), True),
]


@pytest.mark.parametrize("xs,k,st,p,d,ceil", MAX_CASES)
def test_max_pool2d_matches_numpy(xs, k, st, p, d, ceil):
    x = arr(*xs)
    out, idx = F.max_pool2d(t(x), k, st, p, d, ceil, return_indices=True)
    want, want_idx = ref_pool(x, k, st, p, d, ceil)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    assert idx.dtype == fg.int64


def test_max_pool_1d_3d_and_paddle_forms():
    x = arr(2, 3, 9)
    np.testing.assert_array_equal(
        F.max_pool1d(t(x), 3, 2, 1).numpy(), ref_pool(x, (3,), (2,), (1,))[0]
    )
    x = arr(1, 2, 4, 5, 4)
    np.testing.assert_array_equal(
        F.max_pool3d(t(x), 2, (2, 1, 2)).numpy(), ref_pool(x, (2, 2, 2), (2, 1, 2), (0, 0, 0))[0]
    )
    x = arr(2, 6, 5, 3)  # NHWC
    out, mask = F.max_pool2d(t(x), 2, 2, 0, return_mask=True, data_format="NHWC")
    want, want_idx = ref_pool(x.transpose(0, 3, 1, 2), (2, 2), (2, 2), (0, 0))
    np.testing.assert_array_equal(out.numpy(), want.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(mask.numpy(), want_idx.transpose(0, 2, 3, 1))
    # Paddle's positional order: (x, kernel_size, stride, padding, return_mask, ...)
    out2, _ = F.max_pool2d(t(x.transpose(0, 3, 1, 2)), 2, 2, 0, True)
    np.testing.assert_array_equal(out2.numpy(), want)


def test_max_pool_nan_propagates():
    x = np.array([[[1.0, np.nan, 3.0, 2.0]]])
    assert np.isnan(F.max_pool1d(t(x), 2).numpy()[0, 0, 0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("xs,k,st,p,d,ceil", MAX_CASES[:4])
def test_max_pool_ties_and_nans_pick_the_first_in_window_order(xs, k, st, p, d, ceil, dtype):
    # few distinct values (many ties) and scattered NaNs: the kernel picks without
    # branches, and must still take the first maximum / the first NaN of each window
    x = RNG.integers(0, 3, xs).astype(np.float64)
    x[RNG.random(xs) < 0.1] = np.nan
    out, idx = F.max_pool2d(fg.tensor(x.astype(dtype)), k, st, p, d, ceil, return_indices=True)
    want, want_idx = ref_pool(x, k, st, p, d, ceil)
    np.testing.assert_array_equal(out.numpy(), want.astype(dtype))
    np.testing.assert_array_equal(idx.numpy(), want_idx)


@pytest.mark.parametrize("ceil", [False, True])
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool2d_matches_numpy(ceil, include_pad):
    x = arr(2, 3, 7, 6)
    got = F.avg_pool2d(t(x), (3, 2), (2, 2), (1, 1), ceil, include_pad).numpy()
    want = ref_pool(x, (3, 2), (2, 2), (1, 1), (1, 1), ceil, "avg", include_pad)[0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # Paddle's exclusive= is the opposite of count_include_pad
    ex = F.avg_pool2d(t(x), (3, 2), (2, 2), (1, 1), ceil, exclusive=not include_pad).numpy()
    np.testing.assert_allclose(ex, want, rtol=1e-12)


def test_avg_pool_1d_3d_and_divisor_override():
    x = arr(2, 2, 9)
    np.testing.assert_allclose(
        F.avg_pool1d(t(x), 4, 2, 2).numpy(), ref_pool(x, (4,), (2,), (2,), kind="avg")[0]
    )
    x = arr(1, 2, 4, 4, 5)
    np.testing.assert_allclose(
        F.avg_pool3d(t(x), 2).numpy(), ref_pool(x, (2,) * 3, (2,) * 3, (0,) * 3, kind="avg")[0]
    )
    x = arr(1, 1, 4, 4)
    got = F.avg_pool2d(t(x), 2, divisor_override=3).numpy()
    np.testing.assert_allclose(got, ref_pool(x, (2, 2), (2, 2), (0, 0), kind="avg")[0] * 4 / 3)


def adaptive_ref(x, outs, kind):
    nd = x.ndim - 2
    res = np.zeros(x.shape[:2] + tuple(outs))
    for pos in itertools.product(*[range(o) for o in outs]):
        sl = tuple(
            slice(
                (pos[i] * x.shape[2 + i]) // outs[i], -((-(pos[i] + 1) * x.shape[2 + i]) // outs[i])
            )
            for i in range(nd)
        )
        win = x[(slice(None), slice(None)) + sl].reshape(x.shape[0], x.shape[1], -1)
        res[(slice(None), slice(None)) + pos] = win.max(-1) if kind == "max" else win.mean(-1)
    return res


@pytest.mark.parametrize("outs", [(1, 1), (3, 2), (2, 3), (7, 5), (4, 4)])
def test_adaptive_pools_match_numpy(outs):
    x = arr(2, 3, 7, 5)
    np.testing.assert_allclose(
        F.adaptive_avg_pool2d(t(x), outs).numpy(), adaptive_ref(x, outs, "avg"), rtol=1e-12
    )
    out, idx = F.adaptive_max_pool2d(t(x), outs, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), adaptive_ref(x, outs, "max"))
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), 2).reshape(out.shape), out.numpy()
    )


def test_adaptive_1d_3d_and_none():
    x = arr(2, 2, 7)
    np.testing.assert_allclose(F.adaptive_avg_pool1d(t(x), 3).numpy(), adaptive_ref(x, (3,), "avg"))
    np.testing.assert_array_equal(
        F.adaptive_max_pool1d(t(x), 3).numpy(), adaptive_ref(x, (3,), "max")
    )
    x = arr(1, 2, 3, 4, 5)
    np.testing.assert_allclose(
        F.adaptive_avg_pool3d(t(x), (2, None, 3)).numpy(),
        adaptive_ref(x, (2, 4, 3), "avg"),
        rtol=1e-12,
    )


def test_max_unpool_inverts_max_pool():
    x = arr(2, 3, 6, 6)
    out, idx = F.max_pool2d(t(x), 2, return_indices=True)
    up = F.max_unpool2d(out, idx, 2).numpy()
    assert up.shape == (2, 3, 6, 6)
    want = np.zeros_like(x)
    flat = want.reshape(2, 3, -1)
    np.put_along_axis(flat, idx.numpy().reshape(2, 3, -1), out.numpy().reshape(2, 3, -1), 2)
    np.testing.assert_array_equal(up, want)
    assert F.max_unpool2d(out, idx, 2, output_size=[7, 7]).shape == [2, 3, 7, 7]
    o1, i1 = F.max_pool1d(t(arr(1, 2, 8)), 2, return_indices=True)
    assert F.max_unpool1d(o1, i1, 2).shape == [1, 2, 8]


GRAD_CASES = {
    "max_pool2d": lambda x: F.max_pool2d(x, 3, 2, 1),
    "max_pool2d_ceil_dilation": lambda x: F.max_pool2d(x, 2, 2, 1, 2, True),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 3, 2, 1, True, False),
    "adaptive_avg": lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
    "adaptive_max": lambda x: F.adaptive_max_pool2d(x, (2, 3)),
    "max_pool1d": lambda x: F.max_pool1d(x.reshape([2, 3, 20]), 3, 2),
    "avg_pool3d": lambda x: F.avg_pool3d(x.reshape([1, 2, 3, 4, 5]), 2, 1, 1),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_pool_gradcheck_and_gradgradcheck(name):
    x = t(arr(2, 3, 4, 5), True)
    assert gradcheck(GRAD_CASES[name], (x,))
    assert gradgradcheck(GRAD_CASES[name], (x,))


def test_max_pool_gradient_goes_to_one_element_per_window():
    x = t(np.ones((1, 1, 2, 4)), True)
    F.max_pool2d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[1, 0, 1, 0], [0, 0, 0, 0]]]])


def test_unpool_gradcheck():
    x = arr(1, 2, 4, 4)
    out, idx = F.max_pool2d(t(x), 2, return_indices=True)
    v = t(out.numpy(), True)
    assert gradgradcheck(lambda v: F.max_unpool2d(v, idx, 2), (v,))


def test_modules_both_dialects():
    x = t(arr(2, 3, 6, 6))
    assert nn.MaxPool2d(2)(x).shape == [2, 3, 3, 3]
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert nn.MaxUnpool2d(2)(out, idx).shape == [2, 3, 6, 6]
    out, mask = nn.MaxPool2D(2, return_mask=True)(x)
    assert nn.MaxUnPool2D(2)(out, mask).shape == [2, 3, 6, 6]
    # the peers' default divisors differ near padding: torch counts it, Paddle does not
    a = nn.AvgPool2d(3, 1, 1)(x).numpy()
    b = nn.AvgPool2D(3, 1, 1)(x).numpy()
    np.testing.assert_allclose(a[..., 0, 0] * 9 / 4, b[..., 0, 0])
    assert nn.AvgPool1D(2, exclusive=False)(t(arr(1, 2, 4))).shape == [1, 2, 2]
    assert nn.AdaptiveAvgPool2d((1, 1))(x).shape == [2, 3, 1, 1]
    assert nn.AdaptiveAvgPool2D(2, data_format="NHWC")(x).shape == [2, 2, 2, 6]
    assert nn.AdaptiveMaxPool2d(3)(x).shape == [2, 3, 3, 3]
    assert nn.AdaptiveMaxPool2D(3, return_mask=True)(x)[1].dtype == fg.int64
    assert nn.MaxPool1d(2)(t(arr(1, 2, 6))).shape == [1, 2, 3]
    assert nn.AvgPool3d(2)(t(arr(1, 1, 4, 4, 4))).shape == [1, 1, 2, 2, 2]
    assert "kernel_size=2" in repr(nn.MaxPool2d(2))


@pytest.mark.parametrize(
    "call,exc,words",
    [
        (lambda: F.max_pool2d(t(arr(1, 1, 4, 4)), 2, padding=2), ValueError, "at most half"),
        (lambda: F.max_pool2d(t(arr(1, 1, 2, 2)), 3), ValueError, "smaller than the kernel"),
        (lambda: F.max_pool2d(t(arr(1, 4, 4)).reshape([4, 4]), 2), ValueError, "4-D"),
        (lambda: F.avg_pool2d(t(arr(1, 1, 4, 4)), 0), ValueError, "kernel_size"),
        (lambda: F.avg_pool2d(t(arr(1, 1, 4, 4)), 2, divisor_override=0), ValueError, "divisor"),
        (lambda: F.adaptive_avg_pool2d(t(arr(1, 1, 4, 4)), (0, 2)), ValueError, "positive"),
        (
            lambda: F.max_unpool2d(t(arr(1, 1, 2, 2)), fg.tensor(np.full((1, 1, 2, 2), 99)), 2),
            IndexError,
            "out of range",
        ),
        (
            lambda: F.max_pool2d(fg.tensor(np.ones((1, 1, 4, 4), dtype=np.int64)), 2),
            TypeError,
            "float32 or float64",
        ),
    ],
)
def test_bad_input_is_a_clear_error(call, exc, words):
    with pytest.raises(exc, match=words):
        call()
