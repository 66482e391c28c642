"""Elementwise math (isnan/isinf/isfinite/isposinf/isneginf, fmod, hypot, logaddexp,
logaddexp2, xlogy, lerp, clamp/clip with tensor bounds, nan_to_num, isclose/allclose) and
nn.functional's normalize / cosine_similarity / pairwise_distance: values against NumPy
in float64 (0-d, 0-size, broadcast, special values), gradcheck and gradgradcheck, both
dialects' names, bad input."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

F = fg.nn.functional
SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e308, -1e-310])


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


# ---- classification ops (op registry entries) -----------------------------------------


@pytest.mark.parametrize(
    "name,ref",
    [
        ("isnan", np.isnan),
        ("isinf", np.isinf),
        ("isfinite", np.isfinite),
        ("isposinf", np.isposinf),
        ("isneginf", np.isneginf),
    ],
)
def test_classification_ops_match_numpy(name, ref):
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        x = fg.tensor(SPECIAL.astype("float32") if dtype != "float64" else SPECIAL, dtype=dtype)
        got = getattr(x, name)()
        assert got.dtype == fg.bool
        np.testing.assert_array_equal(got.numpy(), ref(x.astype("float64").numpy()))
        np.testing.assert_array_equal(getattr(fg, name)(x).numpy(), got.numpy())
    ints = fg.tensor([1, -2, 0])
    np.testing.assert_array_equal(getattr(ints, name)().numpy(), ref(np.array([1, -2, 0])))
    assert getattr(fg.tensor(2.0), name)().shape == []  # 0-d
    assert getattr(fg.zeros([0, 3]), name)().shape == [0, 3]  # 0-size


def test_complex_nan_and_inf_look_at_both_parts():
    z = fg.tensor([complex(1, np.nan), complex(np.inf, 0), 1 + 2j])
    np.testing.assert_array_equal(z.isnan().numpy(), [True, False, False])
    np.testing.assert_array_equal(z.isinf().numpy(), [False, True, False])
    np.testing.assert_array_equal(z.isfinite().numpy(), [False, False, True])
    with pytest.raises(TypeError):
        z.isposinf()


def test_classification_ops_in_a_static_program():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 3], "float64")
            y = fg.isnan(x)
    finally:
        fg.disable_static()
    (got,) = st.Executor().run(main, feed={"x": np.array([[1.0, np.nan, np.inf]])}, fetch_list=[y])
    np.testing.assert_array_equal(got, [[False, True, False]])


# ---- fmod ---------------------------------------------------------------------------------


def test_fmod_takes_the_sign_of_the_dividend_unlike_remainder():
    a = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, 3.0, 1e20, -1e-30, np.inf, 2.0, 7.0])
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 3.0, 1.0, 2.0, np.inf, np.nan])
    got = fg.fmod(t64(a), t64(b)).numpy()
    want = np.fmod(a, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])  # exact
    np.testing.assert_array_equal(np.signbit(got[:6]), np.signbit(want[:6]))
    # remainder follows the divisor's sign (Python's %)
    np.testing.assert_array_equal(fg.remainder(t64([-5.5]), t64([2.0])).numpy(), [0.5])
    np.testing.assert_array_equal(fg.fmod(t64([-5.5]), t64([2.0])).numpy(), [-1.5])


def test_fmod_integers_scalars_broadcast_and_method():
    a = np.array([[7, -7], [9, -9]])
    got = fg.tensor(a).fmod(fg.tensor([3, -4]))
    assert got.dtype == fg.int64
    np.testing.assert_array_equal(got.numpy(), np.fmod(a, np.array([3, -4])))
    np.testing.assert_array_equal(fg.fmod(fg.tensor(a), 4).numpy(), np.fmod(a, 4))
    x = t64(np.linspace(-3, 3, 7))
    np.testing.assert_allclose(fg.fmod(x, 1.25).numpy(), np.fmod(np.linspace(-3, 3, 7), 1.25))
    assert fg.fmod(t64(2.5), t64(2.0)).shape == []
    assert fg.fmod(t64(np.zeros((0, 2))), t64([1.0, 2.0])).shape == [0, 2]


def test_fmod_gradients():
    x = t64([5.3, -5.3, 0.7, -2.9], grad=True)
    y = t64([2.0, 2.0, -0.3, 1.1], grad=True)
    fg.fmod(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(4))
    np.testing.assert_allclose(
        y.grad.numpy(),
        -np.trunc(np.array([5.3, -5.3, 0.7, -2.9]) / np.array([2.0, 2.0, -0.3, 1.1])),
    )
    assert gradcheck(fg.fmod, (x, y))
    assert gradgradcheck(fg.fmod, (x, y))
    z = t64([0.0], grad=True)  # the gradient at x = 0 is 1 too
    fg.fmod(z, 2.0).sum().backward()
    assert z.grad.item() == 1.0


# ---- hypot, logaddexp, logaddexp2, xlogy --------------------------------------------------


def test_hypot_values_incl_overflow_and_specials():
    a = np.array([3.0, 1e200, 1e-200, 0.0, np.inf, np.nan, -np.inf, -4.0])
    b = np.array([4.0, 1e200, 1e-200, 0.0, np.nan, 1.0, 2.0, 0.0])
    got = fg.hypot(t64(a), t64(b)).numpy()
    np.testing.assert_allclose(got, np.hypot(a, b), rtol=1e-15)
    f32 = fg.hypot(fg.tensor([3e30], dtype="float32"), fg.tensor([4e30], dtype="float32"))
    np.testing.assert_allclose(f32.numpy(), [5e30], rtol=1e-6)  # the squares would overflow
    np.testing.assert_allclose(
        fg.tensor([[3.0], [6.0]]).hypot(fg.tensor([4.0, 8.0])).numpy(),
        np.hypot([[3.0], [6.0]], [4.0, 8.0]),
        rtol=1e-6,
    )
    assert fg.hypot(fg.tensor([3, 5]), 4).dtype == fg.float32  # integers: the default float


def test_logaddexp_values_incl_extremes():
    a = np.array([0.0, 1000.0, -1000.0, -np.inf, np.inf, -np.inf, 2.0, np.nan, 1e-20])
    b = np.array([0.0, 1000.5, -1001.0, -np.inf, np.inf, 3.0, -800.0, 1.0, -1e-20])
    np.testing.assert_allclose(fg.logaddexp(t64(a), t64(b)).numpy(), np.logaddexp(a, b), rtol=1e-15)
    np.testing.assert_allclose(
        fg.logaddexp2(t64(a), t64(b)).numpy(), np.logaddexp2(a, b), rtol=1e-14
    )
    assert fg.logaddexp(t64(1.0), 2.0).shape == []
    assert fg.logaddexp(t64(np.zeros((2, 0))), t64(np.zeros((1, 0)))).shape == [2, 0]


def test_xlogy_zero_times_log_zero_is_zero():
    x = np.array([0.0, 0.0, 2.0, 3.0, 0.0, 1.0])
    y = np.array([0.0, np.nan, 3.0, 0.0, 5.0, np.inf])
    got = fg.xlogy(t64(x), t64(y)).numpy()
    want = np.array([0.0, np.nan, 2 * np.log(3.0), -np.inf, 0.0, np.inf])
    np.testing.assert_allclose(got, want, rtol=1e-15)
    np.testing.assert_allclose(fg.xlogy(2.0, t64([4.0])).numpy(), [2 * np.log(4.0)])
    xs = t64([0.0, 1.5], grad=True)
    ys = t64([0.0, 2.0], grad=True)
    fg.xlogy(xs, ys).sum().backward()
    assert np.isfinite(ys.grad.numpy()).all() and ys.grad.numpy()[0] == 0.0  # no NaN from log(0)


def test_xlogy_gradient_for_x_at_zero_is_log_y():
    # found by test_properties_shape_math: the gradient for x at x == 0 was 0 (torch 2.15:
    # log(y) where y > 0; 0 where y <= 0 or infinite, whose log is not finite)
    xs = t64([0.0, 0.0, 0.0, 2.0], grad=True)
    ys = t64([0.5, 0.0, -1.0, 3.0], grad=True)
    fg.xlogy(xs, ys).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), [np.log(0.5), 0.0, 0.0, np.log(3.0)], rtol=1e-15)
    np.testing.assert_allclose(ys.grad.numpy(), [0.0, 0.0, 0.0, 2.0 / 3.0], rtol=1e-15)


@pytest.mark.parametrize("op", ["hypot", "logaddexp", "logaddexp2", "xlogy"])
def test_binary_math_gradcheck_and_gradgradcheck(op):
    rng = np.random.default_rng(1)
    x = t64(rng.uniform(0.2, 2.0, (3, 4)), grad=True)
    y = t64(rng.uniform(0.2, 2.0, (4,)), grad=True)  # broadcast
    f = getattr(fg, op)
    assert gradcheck(f, (x, y))
    assert gradgradcheck(f, (x, y))
    assert getattr(x, op)(y).shape == [3, 4]


def test_logaddexp_gradient_at_ties_is_one_half():
    x = t64([1.0], grad=True)
    y = t64([1.0], grad=True)
    fg.logaddexp(x, y).sum().backward()
    assert x.grad.item() == pytest.approx(0.5) and y.grad.item() == pytest.approx(0.5)


# ---- lerp ---------------------------------------------------------------------------------


def test_lerp_scalar_and_tensor_weights():
    a = np.array([1.0, -2.0, 3.0])
    b = np.array([5.0, 4.0, -1.0])
    for w in (0.0, 0.25, 0.5, 1.0, 1.7, -0.3):
        np.testing.assert_allclose(fg.lerp(t64(a), t64(b), w).numpy(), a + w * (b - a), rtol=1e-15)
    np.testing.assert_array_equal(fg.lerp(t64(a), t64(b), 1.0).numpy(), b)  # exact at the end
    w = np.array([[0.1], [0.9]])
    np.testing.assert_allclose(t64(a).lerp(t64(b), t64(w)).numpy(), a + w * (b - a), rtol=1e-15)
    assert fg.lerp(t64(1.0), t64(3.0), 0.5).item() == 2.0


def test_lerp_gradients():
    a = t64([1.0, -2.0, 3.0], grad=True)
    b = t64([5.0, 4.0, -1.0], grad=True)
    w = t64([0.2, 0.7, 0.5], grad=True)
    assert gradcheck(fg.lerp, (a, b, w))
    assert gradgradcheck(fg.lerp, (a, b, w))
    assert gradcheck(lambda s, e: fg.lerp(s, e, 0.3), (a, b))


# ---- clamp / clip with tensor bounds -----------------------------------------------------


def test_clamp_with_tensor_bounds_broadcasts():
    x = np.array([[-3.0, 0.5, 4.0], [1.0, 2.0, np.nan]])
    lo = np.array([-1.0, 1.0, 0.0])
    hi = np.array([[0.0], [1.5]])
    got = fg.clamp(t64(x), t64(lo), t64(hi)).numpy()
    np.testing.assert_array_equal(got, np.minimum(np.maximum(x, lo), hi))
    np.testing.assert_array_equal(t64(x).clip(min=t64(lo)).numpy(), np.maximum(x, lo))
    np.testing.assert_array_equal(fg.clip(t64(x), max=t64(hi)).numpy(), np.minimum(x, hi))
    # min > max gives max, as torch
    np.testing.assert_array_equal(
        fg.clamp(t64([0.0, 5.0]), t64([2.0, 2.0]), t64([1.0, 1.0])).numpy(), [1.0, 1.0]
    )
    # numbers keep working (the core kernel)
    np.testing.assert_array_equal(fg.clamp(t64([-2.0, 2.0]), -1, 1).numpy(), [-1.0, 1.0])


def test_clamp_tensor_bound_gradients_follow_torch():
    x = t64([-3.0, 0.5, 4.0, 1.0], grad=True)
    lo = t64([-1.0, 0.5, 0.0, 0.0], grad=True)
    hi = t64([2.0, 2.0, 2.0, 2.0], grad=True)
    fg.clamp(x, lo, hi).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.0, 1.0])  # tie at min -> x
    np.testing.assert_array_equal(lo.grad.numpy(), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(hi.grad.numpy(), [0.0, 0.0, 1.0, 0.0])
    xs = t64([-3.0, 0.4, 4.0], grad=True)
    los = t64([-1.0, 0.0, 0.0], grad=True)
    assert gradcheck(lambda a, b: fg.clamp(a, b, 2.0), (xs, los))
    assert gradgradcheck(lambda a, b: fg.clamp(a, b, 2.0), (xs, los))


# ---- nan_to_num ---------------------------------------------------------------------------


def test_nan_to_num_defaults_per_dtype():
    x = np.array([np.nan, np.inf, -np.inf, 1.5])
    np.testing.assert_array_equal(fg.nan_to_num(t64(x)).numpy(), np.nan_to_num(x))
    f32 = fg.tensor(x.astype("float32")).nan_to_num()
    np.testing.assert_array_equal(f32.numpy(), np.nan_to_num(x.astype("float32")))
    f16 = fg.tensor(x, dtype="float16").nan_to_num().astype("float64").numpy()
    np.testing.assert_array_equal(f16, [0.0, 65504.0, -65504.0, 1.5])
    got = fg.nan_to_num(t64(x), nan=1.0, posinf=2.0, neginf=-3.0).numpy()
    np.testing.assert_array_equal(got, [1.0, 2.0, -3.0, 1.5])
    ints = fg.tensor([1, 2])
    np.testing.assert_array_equal(fg.nan_to_num(ints).numpy(), [1, 2])
    assert fg.nan_to_num(t64(np.nan)).item() == 0.0


def test_nan_to_num_gradient_passes_where_finite():
    x = t64([np.nan, 2.0, np.inf], grad=True)
    fg.nan_to_num(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.0])
    y = t64([0.3, -1.2], grad=True)
    assert gradcheck(fg.nan_to_num, (y,))
    assert gradgradcheck(fg.nan_to_num, (y,))


# ---- isclose / allclose / equal ---------------------------------------------------------


def test_isclose_matches_numpy():
    a = np.array([1.0, 1.0, np.nan, np.inf, -np.inf, 1e-9, 100.0])
    b = np.array([1.0 + 1e-6, 1.1, np.nan, np.inf, np.inf, 0.0, 100.001])
    for kw in ({}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 0.2}, {"equal_nan": True}):
        got = fg.isclose(t64(a), t64(b), **kw)
        assert got.dtype == fg.bool
        np.testing.assert_array_equal(got.numpy(), np.isclose(a, b, **kw))
    np.testing.assert_array_equal(
        t64([[1.0], [2.0]]).isclose(t64([1.0, 2.0])).numpy(), np.isclose([[1.0], [2.0]], [1.0, 2.0])
    )
    np.testing.assert_array_equal(
        fg.isclose(fg.tensor([1, 2]), fg.tensor([1, 3])).numpy(), [True, False]
    )


def test_allclose_returns_a_bool_as_torch():
    a = t64([1.0, 2.0])
    assert fg.allclose(a, a + 1e-9) is True
    assert fg.allclose(a, a + 1.0) is False
    assert a.allclose(a + 0.5, rtol=0.0, atol=0.6) is True
    assert fg.allclose(t64([np.nan]), t64([np.nan]), equal_nan=True) is True
    with pytest.raises(ValueError, match="rtol"):
        fg.allclose(a, a, rtol=-1.0)


def test_equal_keeps_paddles_elementwise_meaning_and_equal_all_is_whole_tensor():
    a, b = fg.tensor([1, 2]), fg.tensor([1, 3])
    np.testing.assert_array_equal(fg.equal(a, b).numpy(), [True, False])
    assert not bool(fg.equal_all(a, b)) and bool(fg.equal_all(a, a))
    assert not bool(fg.equal_all(fg.ones([1]), fg.ones([1, 1])))  # shapes differ


# ---- nn.functional: normalize, cosine_similarity, pairwise_distance ----------------------


def _np_norm(x, p, axis, keepdims):
    return np.linalg.norm(x, ord=p, axis=axis, keepdims=keepdims)


def test_normalize_values_and_zero_vectors():
    x = np.array([[3.0, 4.0], [0.0, 0.0], [-1.0, 2.0]])
    for p, dim in ((2.0, 1), (1.0, 0), (3.0, -1), (math.inf, 1)):
        want = x / np.maximum(_np_norm(x, p, dim, True), 1e-12)
        np.testing.assert_allclose(F.normalize(t64(x), p=p, dim=dim).numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(
        F.normalize(t64(x), axis=1, epsilon=1e-12).numpy(),
        x / np.maximum(_np_norm(x, 2, 1, True), 1e-12),
    )
    xt = t64(x, grad=True)
    F.normalize(xt).sum().backward()
    # the zero row's denominator is the constant eps: a finite gradient 1/eps, as torch
    np.testing.assert_allclose(xt.grad.numpy()[1], [1e12, 1e12])
    assert F.normalize(t64(np.zeros((0, 3))), dim=1).shape == [0, 3]


def test_normalize_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(2)
    x = t64(rng.normal(size=(3, 4)), grad=True)
    for p in (2.0, 3.0, 1.0):
        assert gradcheck(lambda t, p=p: F.normalize(t, p=p, dim=1), (x,))
        assert gradgradcheck(lambda t, p=p: F.normalize(t, p=p, dim=1), (x,))


def test_cosine_similarity_values_broadcast_and_grads():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 5))
    b = rng.normal(size=(1, 5))
    want = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(F.cosine_similarity(t64(a), t64(b)).numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(
        F.cosine_similarity(t64(a), t64(b), axis=1).numpy(), want, rtol=1e-13
    )
    z = F.cosine_similarity(t64(np.zeros((1, 3))), t64(np.ones((1, 3))))
    assert z.item() == 0.0
    at, bt = t64(a, grad=True), t64(b, grad=True)
    assert gradcheck(lambda u, v: F.cosine_similarity(u, v, dim=1), (at, bt))
    assert gradgradcheck(lambda u, v: F.cosine_similarity(u, v, dim=1), (at, bt))


def test_pairwise_distance_values_keepdim_and_grads():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(3, 4))
    b = rng.normal(size=(3, 4))
    for p in (2.0, 1.0, 3.0, math.inf):
        want = _np_norm(a - b + 1e-6, p, -1, False)
        np.testing.assert_allclose(
            F.pairwise_distance(t64(a), t64(b), p=p).numpy(), want, rtol=1e-13
        )
    assert F.pairwise_distance(t64(a), t64(b), keepdim=True).shape == [3, 1]
    at, bt = t64(a, grad=True), t64(b, grad=True)
    assert gradcheck(F.pairwise_distance, (at, bt))
    assert gradgradcheck(F.pairwise_distance, (at, bt))


# ---- both dialects, bad input -------------------------------------------------------------


def test_dialect_spellings():
    import ferrograd as paddle
    import ferrograd as torch

    x, y = torch.tensor([5.0, -5.0]), torch.tensor([3.0, 3.0])
    np.testing.assert_array_equal(torch.fmod(x, other=y).numpy(), [2.0, -2.0])
    np.testing.assert_array_equal(torch.fmod(input=x, other=y).numpy(), [2.0, -2.0])
    np.testing.assert_array_equal(
        paddle.hypot(x=x, y=y).numpy(), np.hypot([5.0, -5.0], 3.0).astype("float32")
    )
    np.testing.assert_array_equal(torch.lerp(x, y, weight=0.5).numpy(), [4.0, -1.0])
    np.testing.assert_array_equal(torch.clamp(x, min=y).numpy(), [5.0, 3.0])
    np.testing.assert_array_equal(paddle.clip(x, min=-1.0, max=1.0).numpy(), [1.0, -1.0])
    assert torch.isnan(x).dtype == torch.bool
    assert paddle.nn.functional.normalize(paddle.ones([2, 2]), axis=1).shape == [2, 2]


def test_bad_input_is_a_clear_error():
    with pytest.raises(TypeError, match="fmod"):
        fg.fmod("a", 1)
    with pytest.raises(TypeError, match="complex"):
        fg.fmod(fg.tensor([1j]), fg.tensor([1j]))
    with pytest.raises(TypeError, match="lerp"):
        fg.lerp(t64([1.0]), t64([2.0]))
    with pytest.raises(TypeError, match="weight"):
        fg.lerp(t64([1.0]), t64([2.0]), "x")
    with pytest.raises(ValueError, match="atol"):
        fg.isclose(t64([1.0]), t64([1.0]), atol=-1)
    with pytest.raises(ValueError, match="p must"):
        F.normalize(t64([[1.0]]), p=float("nan"))
    with pytest.raises(TypeError, match="Tensor"):
        F.cosine_similarity([1.0], [1.0])
