"""Reductions: sum, mean, prod, max/min (amax/amin), argmax/argmin, var/std, logsumexp,
all/any, softmax/log_softmax; over one axis, several axes and all, with keepdim and the
``axis=``/``dim=`` keywords; values against NumPy in float64 and gradients against finite
differences."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad

RNG = np.random.default_rng(7)
A = RNG.standard_normal((2, 3, 4))


def f64(a):
    return fg.tensor(np.asarray(a, dtype=np.float64))


def _logsumexp(a, axis=None, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# name -> NumPy reference taking (array, axis, keepdims)
REDUCTIONS = {
    "sum": lambda a, ax, kd: np.sum(a, axis=ax, keepdims=kd),
    "mean": lambda a, ax, kd: np.mean(a, axis=ax, keepdims=kd),
    "prod": lambda a, ax, kd: np.prod(a, axis=ax, keepdims=kd),
    "max": lambda a, ax, kd: np.max(a, axis=ax, keepdims=kd),
    "min": lambda a, ax, kd: np.min(a, axis=ax, keepdims=kd),
    "amax": lambda a, ax, kd: np.max(a, axis=ax, keepdims=kd),
    "amin": lambda a, ax, kd: np.min(a, axis=ax, keepdims=kd),
    "var": lambda a, ax, kd: np.var(a, axis=ax, keepdims=kd, ddof=1),
    "std": lambda a, ax, kd: np.std(a, axis=ax, keepdims=kd, ddof=1),
    "logsumexp": lambda a, ax, kd: _logsumexp(a, axis=ax, keepdims=kd),
}

# (axis as passed to ferrograd, axis as passed to NumPy)
AXES = [
    (None, None),
    (0, 0),
    (1, 1),
    (-1, -1),
    ([0, 2], (0, 2)),
    ((1, 2), (1, 2)),
    ([-1, 0], (0, 2)),
    ([0, 1, 2], None),
]


def _ids(axes):
    return [str(a) for a, _ in axes]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize(("axis", "np_axis"), AXES, ids=_ids(AXES))
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_values(name, axis, np_axis, keepdim):
    ref = REDUCTIONS[name]
    expected = ref(A, np_axis, keepdim)
    x = f64(A)
    outs = [
        getattr(x, name)(axis, keepdim=keepdim),
        getattr(x, name)(axis=axis, keepdim=keepdim),
        getattr(fg, name)(x, axis, keepdim=keepdim),
    ]
    if axis is not None:
        by_dim = getattr(x, name)(dim=axis, keepdim=keepdim)
        if name in ("max", "min") and isinstance(axis, int):
            # PyTorch's keyword, one dimension: (values, indices) (test_shared_spellings.py)
            by_dim = by_dim.values
        outs.append(by_dim)
    for out in outs:
        assert out.dtype == fg.float64
        assert out.shape == np.shape(expected)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-14)


SMOOTH = ["sum", "mean", "prod", "var", "std", "logsumexp"]


@pytest.mark.parametrize(("axis", "np_axis"), AXES[:6], ids=_ids(AXES[:6]))
@pytest.mark.parametrize("name", SMOOTH)
def test_smooth_reduction_grads(name, axis, np_axis):
    a = RNG.uniform(0.5, 1.5, (2, 3, 4)) * RNG.choice([-1.0, 1.0], (2, 3, 4))
    check_grad(lambda t: getattr(t, name)(axis), a, second_order=True)
    check_grad(lambda t: getattr(t, name)(axis, keepdim=True) * 1.5, a)


@pytest.mark.parametrize(("axis", "np_axis"), AXES[:6], ids=_ids(AXES[:6]))
@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_max_min_grads_without_ties(name, axis, np_axis):
    a = RNG.permutation(24).reshape(2, 3, 4) / 7.0  # distinct values
    check_grad(lambda t: getattr(t, name)(axis), a)


def test_max_min_ties_split_gradient():
    x = fg.tensor([1.0, 3.0, 3.0, 2.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.max(), [x])
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.5, 0.5, 0.0])
    x = fg.tensor([[1.0, 0.0, 0.0], [2.0, 2.0, 2.0]], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.min(1).sum(), [x])
    np.testing.assert_allclose(g.numpy(), [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    (g,) = fg.grad(x.amax(dim=0).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    # max over all with a tie across rows
    (g,) = fg.grad(x.max(), [x])
    np.testing.assert_allclose(g.numpy(), [[0.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])


# ---------------------------------------------------------------------------------------
# prod with zeros
# ---------------------------------------------------------------------------------------

PROD_WITH_ZEROS = np.array([[1.5, 0.0, -1.2], [0.0, 0.0, 1.1], [0.5, 2.0, 3.0], [0.0, 0.7, 0.9]])


def test_prod_grad_with_zeros_first_order():
    check_grad(lambda t: t.prod(1), PROD_WITH_ZEROS)
    check_grad(lambda t: t.prod(0), PROD_WITH_ZEROS)
    x = f64(PROD_WITH_ZEROS).requires_grad_()
    (g,) = fg.grad(x.prod(1).sum(), [x])
    np.testing.assert_allclose(
        g.numpy(), [[0.0, -1.8, 0.0], [0.0, 0.0, 0.0], [6.0, 1.5, 1.0], [0.63, 0.0, 0.0]]
    )
    y = fg.tensor([2.0, 0.0, 3.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(y.prod(), [y])
    np.testing.assert_array_equal(g.numpy(), [0.0, 6.0, 0.0])


def test_prod_grad_with_zeros_second_order():
    check_grad(lambda t: t.prod(1), PROD_WITH_ZEROS, second_order=True)


def test_prod_hessian_with_one_zero():
    # d/dx_j of sum_i d(prod)/dx_i for x = [2, 0, 3]: [x1 + x2, x0 + x2, x0 + x1] = [3, 5, 2]
    x = fg.tensor([2.0, 0.0, 3.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.prod(), [x], create_graph=True)
    (gg,) = fg.grad(g.sum(), [x])
    np.testing.assert_array_equal(gg.numpy(), [3.0, 5.0, 2.0])


# ---------------------------------------------------------------------------------------
# argmax / argmin
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name, axis, keepdim):
    a = RNG.integers(0, 4, (3, 5)).astype(np.float64)  # plenty of ties
    ref = getattr(np, name)(a, axis=axis, keepdims=keepdim)
    x = f64(a)
    outs = [getattr(x, name)(axis, keepdim=keepdim), getattr(fg, name)(x, axis, keepdim=keepdim)]
    if axis is not None:
        outs.append(getattr(x, name)(dim=axis, keepdim=keepdim))
        outs.append(getattr(x, name)(axis=axis, keepdim=keepdim))
    for out in outs:
        assert out.dtype == fg.int64
        assert out.shape == np.shape(ref)
        np.testing.assert_array_equal(out.numpy(), ref)


def test_argmax_first_occurrence_and_nan():
    assert fg.tensor([3, 3, 1]).argmax().item() == 0
    assert fg.tensor([1, 1, 3]).argmin().item() == 0
    assert fg.tensor([np.nan, 1.0]).argmax().item() == 0
    assert fg.tensor(5.0).argmax().item() == 0
    assert not fg.tensor([1.0, 2.0], requires_grad=True).argmax().requires_grad


# ---------------------------------------------------------------------------------------
# var / std
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize(("axis", "np_axis"), [(None, None), (1, 1), ([0, 2], (0, 2))])
def test_var_std_bias_options(name, axis, np_axis):
    ref = getattr(np, name)
    x = f64(A)
    unbiased = ref(A, axis=np_axis, ddof=1)
    biased = ref(A, axis=np_axis, ddof=0)
    np.testing.assert_allclose(getattr(x, name)(axis).numpy(), unbiased, rtol=1e-12)
    np.testing.assert_allclose(getattr(x, name)(axis, unbiased=True).numpy(), unbiased, rtol=1e-12)
    np.testing.assert_allclose(getattr(x, name)(axis, unbiased=False).numpy(), biased, rtol=1e-12)
    np.testing.assert_allclose(getattr(x, name)(dim=axis, correction=0).numpy(), biased, rtol=1e-12)
    np.testing.assert_allclose(
        getattr(x, name)(dim=axis, correction=2).numpy(),
        ref(A, axis=np_axis, ddof=2),
        rtol=1e-12,
    )
    check_grad(lambda t: getattr(t, name)(axis, unbiased=False), A, second_order=True)


def test_var_known_gradient():
    x = fg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.var(), [x])
    np.testing.assert_allclose(g.numpy(), [-1.0, 0.0, 1.0])
    (g,) = fg.grad(x.std(unbiased=False), [x])
    np.testing.assert_allclose(g.numpy(), np.array([-1.0, 0.0, 1.0]) / 3 / np.sqrt(2 / 3))


# ---------------------------------------------------------------------------------------
# logsumexp
# ---------------------------------------------------------------------------------------


def test_logsumexp_with_neg_inf_entries():
    a = np.array([[-np.inf, 0.0, 1.0], [2.0, -np.inf, -np.inf], [-np.inf, -np.inf, -np.inf]])
    out = f64(a).logsumexp(1).numpy()
    np.testing.assert_allclose(out[:2], [np.log(1 + np.e), 2.0], rtol=1e-14)
    assert out[2] == -np.inf
    x = f64(a[:2]).requires_grad_()
    (g,) = fg.grad(x.logsumexp(dim=1).sum(), [x])
    np.testing.assert_allclose(
        g.numpy(), [[0.0, 1 / (1 + np.e), np.e / (1 + np.e)], [1.0, 0.0, 0.0]], rtol=1e-14
    )


def test_logsumexp_is_stable():
    np.testing.assert_allclose(
        fg.tensor([1000.0, 1000.0]).logsumexp().item(), 1000 + np.log(2), rtol=1e-6
    )
    np.testing.assert_allclose(
        f64([-1000.0, -1000.0]).logsumexp().item(), -1000 + np.log(2), rtol=1e-14
    )
    x = fg.tensor([1000.0, 1000.0], dtype="float64", requires_grad=True)
    (g,) = fg.grad(x.logsumexp(), [x])
    np.testing.assert_allclose(g.numpy(), [0.5, 0.5])


# ---------------------------------------------------------------------------------------
# all / any
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize(("axis", "np_axis"), [(None, None), (0, 0), (-1, -1), ([0, 1], (0, 1))])
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any(name, axis, np_axis, keepdim):
    ref = getattr(np, name)
    for a in (
        np.array([[True, False, True], [True, True, True]]),
        np.array([[1, 0, 2], [3, 4, 5]]),
        np.array([[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]),
    ):
        expected = ref(a, axis=np_axis, keepdims=keepdim)
        for out in (
            getattr(fg.tensor(a), name)(axis, keepdim=keepdim),
            getattr(fg, name)(fg.tensor(a), axis, keepdim=keepdim),
        ):
            assert out.dtype == fg.bool
            assert out.shape == np.shape(expected)
            np.testing.assert_array_equal(out.numpy(), expected)
    if axis is not None:
        t = fg.tensor([[True, False]])
        assert (
            getattr(t, name)(dim=axis).shape == ref(np.array([[True, False]]), axis=np_axis).shape
        )


def test_all_any_empty():
    assert fg.zeros(0).all().item() is True
    assert fg.zeros(0).any().item() is False


# ---------------------------------------------------------------------------------------
# softmax / log_softmax
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_log_softmax_values(axis):
    x = f64(A)
    expected = _softmax(A, axis)
    for out in (x.softmax(axis), x.softmax(dim=axis), fg.softmax(x, axis)):
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    for out in (x.log_softmax(axis), x.log_softmax(dim=axis), fg.log_softmax(x, axis)):
        np.testing.assert_allclose(out.numpy(), np.log(expected), rtol=1e-12)


def test_softmax_default_axis_is_last():
    np.testing.assert_allclose(f64(A).softmax().numpy(), _softmax(A, -1), rtol=1e-12)
    np.testing.assert_allclose(f64(A).log_softmax().numpy(), np.log(_softmax(A, -1)), rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_grads(name, axis):
    weights = RNG.standard_normal(A.shape)

    def fn(t):
        # weight the outputs: the plain sum of a softmax is constant
        return getattr(t, name)(axis) * f64(weights)

    check_grad(fn, A, second_order=True)


def test_softmax_stability_and_inf():
    np.testing.assert_array_equal(f64([1000.0, 0.0]).softmax().numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(f64([1000.0, 0.0]).log_softmax().numpy(), [0.0, -1000.0])
    np.testing.assert_array_equal(f64([-np.inf, 0.0]).softmax().numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(f64([-np.inf, 0.0]).log_softmax().numpy(), [-np.inf, 0.0])


def test_softmax_dtypes():
    assert fg.tensor([1, 2, 3]).softmax().dtype == fg.float32
    assert f64([1.0, 2.0]).log_softmax(dtype="float32").dtype == fg.float32
    assert fg.tensor([1.0, 2.0]).softmax(dtype=fg.float64).dtype == fg.float64


# ---------------------------------------------------------------------------------------
# dtypes, special sizes, accuracy
# ---------------------------------------------------------------------------------------


def test_reduction_result_dtypes():
    assert fg.tensor([True, True]).sum().dtype == fg.int64
    assert fg.tensor([True, True]).sum().item() == 2
    assert fg.tensor([1, 2], dtype="int32").sum().dtype == fg.int64
    assert fg.tensor([1, 2], dtype="int32").prod().dtype == fg.int64
    assert fg.tensor([1, 2]).max().dtype == fg.int64
    assert fg.tensor([1.0, 2.0], dtype="float16").sum().dtype == fg.float16
    assert fg.tensor([1, 2], dtype="int32").sum(dtype="float64").dtype == fg.float64
    assert fg.tensor([1, 2]).mean(dtype="float64").item() == 1.5
    assert fg.tensor([1 + 1j, 2]).sum().item() == 3 + 1j


def test_integer_reductions_are_exact():
    big = [2**53 + 1, 2, -3]
    assert fg.tensor(big).sum().item() == sum(big)
    assert fg.tensor([3, 5, 7]).prod().item() == 105
    assert fg.tensor([[1, 5], [7, 2]]).max(1).tolist() == [5, 7]
    assert fg.tensor([[1, 5], [7, 2]]).min(0).tolist() == [1, 2]


def test_zero_dim_and_empty_reductions():
    s = f64(3.0)
    assert s.sum().item() == 3.0
    assert s.sum(0).item() == 3.0
    assert s.max().item() == 3.0
    assert fg.zeros(0).sum().item() == 0.0
    assert fg.zeros(0).prod().item() == 1.0
    assert np.isnan(fg.zeros(0).mean().item())
    np.testing.assert_array_equal(fg.zeros(0, 3).sum(0).numpy(), [0.0, 0.0, 0.0])
    assert fg.zeros(3, 0).sum(1).shape == (3,)


def test_float32_sum_accuracy_on_large_array():
    a = np.full(10**6, 0.1, dtype=np.float32)
    exact = 10**6 * float(np.float32(0.1))
    t = fg.tensor(a)
    assert abs(t.sum().item() - exact) / exact < 1e-5
    assert abs(t.mean().item() - float(np.float32(0.1))) / 0.1 < 1e-5
    rows = fg.tensor(a.reshape(1000, 1000))
    np.testing.assert_allclose(rows.sum(0).numpy(), exact / 1000, rtol=1e-5)
    np.testing.assert_allclose(rows.sum(1).numpy(), exact / 1000, rtol=1e-5)
    # strided: the same sums through a transposed view
    np.testing.assert_allclose(rows.T.sum(0).numpy(), exact / 1000, rtol=1e-5)
    np.testing.assert_allclose(fg.tensor(a.reshape(-1, 2)).T.sum(1).numpy(), exact / 2, rtol=1e-5)


def test_reduction_of_non_contiguous_views():
    a = RNG.standard_normal((3, 4, 5))
    x = f64(a).permute(2, 0, 1)
    ap = a.transpose(2, 0, 1)
    np.testing.assert_allclose(x.sum([0, 2]).numpy(), ap.sum((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(x.max(1).numpy(), ap.max(1))
    np.testing.assert_array_equal(x.argmin(2).numpy(), ap.argmin(2))
    np.testing.assert_allclose(x.logsumexp(0).numpy(), _logsumexp(ap, 0), rtol=1e-12)
    check_grad(lambda t: t.permute(2, 0, 1).var([0, 2]), a, second_order=True)


def test_sum_and_mean_of_broadcast_view_gradient():
    x = fg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    y = x.expand(4, 3)
    (g,) = fg.grad(y.mean(), [x])
    np.testing.assert_allclose(g.numpy(), [1 / 3] * 3)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "bool", "int64"])
def test_explicit_integer_dtype_is_the_result_dtype(dtype):
    # PyTorch and Paddle: sum / prod / nansum / cumsum / cumprod with dtype= return that
    # dtype, wrapping as its arithmetic (ferrograd returned int64 for every integer dtype)
    a = np.array([[100, 100, 7], [-3, 120, 5]], dtype=np.int64)
    x = fg.tensor(a, dtype=fg.int32)
    want_np = a.astype(dtype)
    acc = np.int64 if dtype != "bool" else bool

    def narrow(v):
        return (
            np.asarray(v).astype(np.int64).astype(dtype) if dtype != "bool" else np.asarray(v) != 0
        )

    for name, got, want in [
        ("sum", x.sum(dtype=dtype), narrow(want_np.astype(acc).sum())),
        ("sum(0)", x.sum(0, dtype=dtype), narrow(want_np.astype(acc).sum(0))),
        ("fg.sum", fg.sum(x, 1, dtype=dtype), narrow(want_np.astype(acc).sum(1))),
        ("prod(1)", x.prod(1, dtype=dtype), narrow(want_np.astype(acc).prod(1))),
        ("nansum", fg.nansum(x, dtype=dtype), narrow(want_np.astype(acc).sum())),
        ("cumsum", x.cumsum(1, dtype=dtype), narrow(want_np.astype(acc).cumsum(1))),
        ("cumprod", x.cumprod(0, dtype=dtype), narrow(want_np.astype(acc).cumprod(0))),
    ]:
        assert got.dtype.name == dtype, name
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)
