"""The gamma-function family: ``lgamma`` and ``digamma`` (unary table entries), ``zeta``
(a binary table entry), ``polygamma`` and ``mvlgamma`` / ``multigammaln`` (compositions).
Values against SciPy in float64 and float32, gradients (first and second), both
dialects' spellings, ``torch.special``, a static program."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from scipy import special as sp

# positive, small, large, negative non-integer (lgamma and digamma must handle all)
X = np.array(
    [
        1e-8,
        0.01,
        0.3,
        0.5,
        0.9,
        1.0,
        1.2,
        1.5,
        2.0,
        2.5,
        3.7,
        7.25,
        9.9,
        10.0,
        11.3,
        25.0,
        123.456,
        1e5,
        3e8,
        -0.5,
        -0.1,
        -1.3,
        -2.7,
        -10.4,
        -55.55,
    ]
)


def _close(got, want, rtol, atol=0.0):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_lgamma_matches_scipy_float64_and_poles():
    _close(fg.tensor(X).lgamma().numpy(), sp.gammaln(X), rtol=1e-13, atol=1e-15)
    poles = fg.tensor([0.0, -1.0, -2.0, -30.0]).lgamma().numpy()
    assert np.all(poles == np.inf)
    assert np.isnan(fg.tensor([np.nan]).lgamma().item())
    assert fg.tensor([np.inf, -np.inf]).lgamma().tolist() == [np.inf, np.inf]


def test_digamma_matches_scipy_float64():
    got = fg.tensor(X).digamma().numpy()
    # relative to the value, absolute near the root x0 = 1.4616... where psi crosses 0
    _close(got, sp.digamma(X), rtol=1e-13, atol=1e-15)
    # next to the root the result is a difference of O(1) terms: a few 1e-16 absolute
    # (as PyTorch's recurrence), not 1e-13 relative
    near_root = np.array([1.46, 1.4616321449683622, 1.47])
    _close(fg.tensor(near_root).digamma().numpy(), sp.digamma(near_root), rtol=0, atol=1e-15)


def test_digamma_special_points_follow_torch():
    got = fg.tensor([0.0, -0.0, -1.0, -4.0, np.inf, -np.inf, np.nan]).digamma().tolist()
    assert got[0] == -np.inf and got[1] == np.inf
    assert all(math.isnan(v) for v in got[2:4] + got[5:])
    assert got[4] == np.inf


def test_float32_and_integer_input():
    x32 = X[(X < 1e5) & (np.abs(X) > 1e-6)].astype(np.float32)
    lg = fg.tensor(x32).lgamma()
    assert lg.dtype == fg.float32
    _close(lg.numpy(), sp.gammaln(x32.astype(np.float64)), rtol=2e-6, atol=2e-6)
    dg = fg.tensor(x32).digamma()
    assert dg.dtype == fg.float32
    _close(dg.numpy(), sp.digamma(x32.astype(np.float64)), rtol=2e-6, atol=2e-6)
    ints = fg.tensor([1, 2, 5])
    assert ints.lgamma().dtype == fg.float32
    _close(ints.lgamma().numpy(), [0.0, 0.0, math.log(24.0)], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 12])
def test_polygamma_matches_scipy(n):
    got = fg.polygamma(n, fg.tensor(X[X < 1e8])).numpy()
    _close(got, sp.polygamma(n, X[X < 1e8]), rtol=1e-13, atol=1e-300)


def test_polygamma_float32_and_zero_order():
    x = np.array([0.25, 1.0, 3.5, -0.5, -2.25], dtype=np.float32)
    for n in (0, 1, 3):
        got = fg.polygamma(n, fg.tensor(x))
        assert got.dtype == fg.float32
        _close(got.numpy(), sp.polygamma(n, x.astype(np.float64)), rtol=3e-6)
    assert np.isinf(fg.polygamma(1, fg.tensor([0.0, -2.0])).numpy()).all()


def test_zeta_matches_scipy():
    s = np.array([1.5, 2.0, 3.0, 4.5, 10.0, 30.0])
    q = np.array([0.1, 1.0, 2.5, 10.0, 0.7, 3.0])
    _close(fg.tensor(s).zeta(fg.tensor(q)).numpy(), sp.zeta(s, q), rtol=1e-13)
    _close(fg.special.zeta(fg.tensor(s), 2.0).numpy(), sp.zeta(s, 2.0), rtol=1e-13)
    _close(fg.special.zeta(2.0, fg.tensor(q)).numpy(), sp.zeta(2.0, q), rtol=1e-13)
    edge = fg.tensor([1.0, 0.5, 2.0]).zeta(fg.tensor([1.0, 1.0, -1.0])).tolist()
    assert edge[0] == np.inf and math.isnan(edge[1]) and edge[2] == np.inf


def test_gradients_are_the_next_polygamma():
    x = fg.tensor([0.3, 1.7, 4.0, -0.6], dtype=fg.float64, requires_grad=True)
    x.lgamma().sum().backward()
    _close(x.grad.numpy(), sp.digamma(x.detach().numpy()), rtol=1e-13)
    x.grad = None
    x.digamma().sum().backward()
    _close(x.grad.numpy(), sp.polygamma(1, x.detach().numpy()), rtol=1e-13)
    x.grad = None
    fg.polygamma(2, x).sum().backward()
    _close(x.grad.numpy(), sp.polygamma(3, x.detach().numpy()), rtol=1e-13)
    assert x.lgamma().grad_fn.name() == "LgammaBackward0"
    assert x.digamma().grad_fn.name() == "DigammaBackward0"


def test_gradcheck_and_gradgradcheck():
    x = fg.tensor([0.3, 1.7, 4.0, 12.5, -0.6, -2.4], dtype=fg.float64, requires_grad=True)
    for fn in (
        lambda t: t.lgamma(),
        lambda t: t.digamma(),
        lambda t: fg.polygamma(1, t),
        lambda t: t.polygamma(3),
    ):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    q = fg.tensor([0.5, 2.0, 7.0], dtype=fg.float64, requires_grad=True)
    s = fg.tensor([2.5, 3.0, 4.0], dtype=fg.float64)
    assert gradcheck(lambda t: s.zeta(t), (q,))
    assert gradgradcheck(lambda t: s.zeta(t), (q,))


def test_zeta_exponent_gradient_is_a_clear_error():
    s = fg.tensor([2.5], requires_grad=True)
    with pytest.raises(NotImplementedError, match="zeta"):
        s.zeta(fg.tensor([1.0])).sum().backward()


def test_mvlgamma_matches_scipy_and_checks_domain():
    x = np.array([[1.6, 2.5], [4.0, 10.25]])
    for p in (1, 2, 3):
        want = np.vectorize(lambda v, p=p: sp.multigammaln(v, p))(x)
        _close(fg.mvlgamma(fg.tensor(x), p).numpy(), want, rtol=1e-13)
        _close(fg.tensor(x).mvlgamma(p).numpy(), want, rtol=1e-13)
        _close(fg.multigammaln(fg.tensor(x), p).numpy(), want, rtol=1e-13)
        _close(fg.special.multigammaln(fg.tensor(x), p).numpy(), want, rtol=1e-13)
    with pytest.raises(ValueError, match=r"\(p-1\)/2"):
        fg.mvlgamma(fg.tensor([0.9]), 3)
    t = fg.tensor([2.2, 3.1], dtype=fg.float64, requires_grad=True)
    assert gradcheck(lambda v: fg.mvlgamma(v, 3), (t,))


def test_both_dialects_and_special_names():
    import ferrograd as paddle
    import ferrograd as torch

    xv = np.array([0.7, 2.5])
    x = paddle.to_tensor(xv)
    for y in (paddle.lgamma(x), torch.lgamma(x), x.lgamma(), torch.special.gammaln(x)):
        _close(y.numpy(), sp.gammaln(xv), rtol=1e-14)
    for y in (paddle.digamma(x), torch.digamma(x), torch.special.digamma(x), torch.special.psi(x)):
        _close(y.numpy(), sp.digamma(xv), rtol=1e-14)
    want = sp.polygamma(2, xv)
    for y in (
        torch.polygamma(2, x),
        paddle.polygamma(x, 2),
        x.polygamma(2),
        torch.special.polygamma(2, x),
        torch.polygamma(n=2, input=x),
        paddle.polygamma(x=x, n=2),
    ):
        _close(y.numpy(), want, rtol=1e-14)


def test_bad_polygamma_order_is_a_clear_error():
    with pytest.raises(ValueError, match="non-negative"):
        fg.polygamma(-1, fg.tensor([1.0]))
    with pytest.raises(TypeError, match="int"):
        fg.polygamma(1.5, fg.tensor([1.0]))
    with pytest.raises(TypeError, match="complex"):
        fg.tensor([1 + 1j]).lgamma()


def test_static_graph_records_and_runs_them():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 3], "float64")
            y = fg.lgamma(x) + x.digamma()
    finally:
        fg.disable_static()
    xv = np.array([[0.5, 1.5, 4.0]])
    (got,) = st.Executor().run(main, feed={"x": xv}, fetch_list=[y])
    _close(got, sp.gammaln(xv) + sp.digamma(xv), rtol=1e-14)


def test_mvlgamma_refuses_a_huge_dimension_without_building_it():
    # found by the panic fuzzer: p = 2**63 - 1 on an empty tensor built a Python list of
    # p offsets (24 GB before the OOM killer); the offsets are now a fallible arange
    empty = fg.tensor([], dtype="float64")
    for p in (2**40, 2**63 - 1):
        with pytest.raises(MemoryError):
            fg.mvlgamma(empty, p)
