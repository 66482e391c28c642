"""``_ops_compose_more``: addbmm/addr, combinations, float_power, fmax/fmin, heaviside,
sinc, ldexp, renorm, pdist, polar, the scatter-copies, windows, gcd/lcm, unravel_index and
``compile``: values against NumPy (or PyTorch 2.15's recorded values where NumPy has no
equivalent), gradcheck for the differentiable ones."""

import itertools

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(1)


def _t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_addbmm_addr():
    x, b1, b2 = (
        RNG.standard_normal((3, 4)),
        RNG.standard_normal((2, 3, 5)),
        RNG.standard_normal((2, 5, 4)),
    )
    np.testing.assert_allclose(
        fg.addbmm(_t(x), _t(b1), _t(b2), beta=0.5, alpha=2).numpy(),
        0.5 * x + 2 * np.einsum("bij,bjk->ik", b1, b2),
    )
    v1, v2 = RNG.standard_normal(3), RNG.standard_normal(4)
    np.testing.assert_allclose(_t(x).addr(_t(v1), _t(v2)).numpy(), x + np.outer(v1, v2))
    assert gradcheck(lambda a, b, c: fg.addbmm(a, b, c), (_t(x, True), _t(b1, True), _t(b2, True)))


def test_combinations():
    x = fg.tensor([1, 2, 3, 4])
    assert fg.combinations(x, 3).tolist() == [
        list(c) for c in itertools.combinations([1, 2, 3, 4], 3)
    ]
    assert fg.combinations(fg.tensor([1, 2]), 2, with_replacement=True).tolist() == [
        [1, 1],
        [1, 2],
        [2, 2],
    ]
    assert fg.combinations(fg.tensor([1]), 2).shape == [0, 2]
    v = _t([1.0, 2.0, 3.0], True)
    assert gradcheck(lambda t: fg.combinations(t, 2), (v,))


def test_float_power_fmax_fmin_heaviside():
    r = fg.float_power(fg.tensor([2, 3]), 3)
    assert r.dtype == fg.float64 and r.tolist() == [8.0, 27.0]
    a = np.array([1.0, np.nan, 3.0, np.nan])
    b = np.array([2.0, 0.5, np.nan, np.nan])
    np.testing.assert_array_equal(fg.fmax(_t(a), _t(b)).numpy(), np.fmax(a, b))
    np.testing.assert_array_equal(fg.fmin(_t(a), _t(b)).numpy(), np.fmin(a, b))
    assert fg.fmax(fg.tensor([1, 5]), fg.tensor([3, 2])).tolist() == [3, 5]
    x = np.array([-1.0, 0.0, 2.0, 0.0])
    np.testing.assert_array_equal(
        fg.heaviside(_t(x), _t([0.5, 0.5, 0.5, 0.25])).numpy(),
        np.heaviside(x, [0.5, 0.5, 0.5, 0.25]),
    )


def test_sinc_ldexp_renorm():
    x = np.array([-1.5, -0.25, 0.0, 0.3, 2.0])
    # (atol: sinc reduces x mod 2 exactly, so sinc(2) is exactly 0 where NumPy's
    # sin(2 pi) / (2 pi) leaves -3.9e-17; test_fuzz_special.py's _sinc reference)
    np.testing.assert_allclose(fg.sinc(_t(x)).numpy(), np.sinc(x), rtol=1e-14, atol=1e-16)
    g = _t(x, True)
    fg.sinc(g).sum().backward()
    assert np.isfinite(g.grad.numpy()).all() and g.grad.numpy()[2] == 0.0
    assert gradcheck(fg.sinc, (_t([0.2, -0.7], True),))
    np.testing.assert_array_equal(
        fg.ldexp(_t([1.0, 3.0]), fg.tensor([2, -1])).numpy(), np.ldexp([1.0, 3.0], [2, -1])
    )
    m = _t([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]])
    np.testing.assert_allclose(
        fg.renorm(m, 2, 0, 2.0).numpy(),
        [[0.8944271802902222, 1.7888543605804443], [1.2, 1.6], [0.0, 1.0]],
        rtol=1e-6,
    )


def test_pdist_and_polar():
    x = RNG.standard_normal((4, 3))
    i, j = np.triu_indices(4, 1)
    for p in (1.0, 2.0, np.inf):
        want = np.linalg.norm(x[i] - x[j], ord=p, axis=1)
        np.testing.assert_allclose(fg.pdist(_t(x), p).numpy(), want, rtol=1e-12)
    assert gradcheck(lambda t: fg.pdist(t), (_t(x, True),))
    r, th = RNG.random(3), RNG.standard_normal(3)
    np.testing.assert_allclose(fg.polar(_t(r), _t(th)).numpy(), r * np.exp(1j * th))


def test_scatter_copies():
    x = np.zeros((4, 3))
    src = RNG.standard_normal((2, 3))
    got = fg.index_copy(_t(x), 0, fg.tensor([3, 1]), _t(src)).numpy()
    want = x.copy()
    want[[3, 1]] = src
    np.testing.assert_array_equal(got, want)
    y = _t(x)
    y.index_copy_(1, fg.tensor([0]), _t(np.ones((4, 1))))
    assert y.numpy()[:, 0].tolist() == [1.0] * 4
    np.testing.assert_array_equal(
        fg.select_scatter(_t(x), _t([7.0, 8.0, 9.0]), 0, -1).numpy()[3], [7.0, 8.0, 9.0]
    )
    got = fg.slice_scatter(fg.zeros(4, 2), fg.ones(2, 2), 0, 1, 4, 2)
    assert got.tolist() == [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    got = fg.diagonal_scatter(fg.zeros(3, 3), fg.ones(2), 1)
    assert got.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    assert fg.narrow_copy(_t(x), 0, 1, 2).shape == [2, 3]
    s = _t(src, True)
    assert gradcheck(lambda t: fg.index_copy(_t(x), 0, fg.tensor([3, 1]), t), (s,))


def test_windows_match_pytorch():
    np.testing.assert_allclose(
        fg.hann_window(5).numpy(),
        [0.0, 0.34549152851104736, 0.9045084714889526, 0.9045084714889526, 0.3454914391040802],
        atol=1e-7,
    )
    np.testing.assert_allclose(
        fg.hann_window(5, periodic=False).numpy(), [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-7
    )
    np.testing.assert_allclose(fg.hamming_window(4).numpy(), [0.08, 0.54, 1.0, 0.54], atol=1e-7)
    np.testing.assert_allclose(fg.blackman_window(4).numpy(), [0.0, 0.34, 1.0, 0.34], atol=1e-7)
    np.testing.assert_allclose(fg.bartlett_window(5).numpy(), [0.0, 0.4, 0.8, 0.8, 0.4], atol=1e-7)
    assert fg.hann_window(0).shape == [0] and fg.hann_window(1).tolist() == [1.0]
    assert fg.hann_window(4, dtype=fg.float64).dtype == fg.float64


def test_integer_helpers_and_compile():
    assert fg.gcd(fg.tensor([12, 18]), fg.tensor([8, 27])).tolist() == [4, 9]
    assert fg.lcm(fg.tensor([4, 6]), fg.tensor([6, 4])).tolist() == [12, 12]
    with pytest.raises(TypeError, match="integer"):
        fg.gcd(fg.ones(2), fg.ones(2))
    r, c = fg.unravel_index(fg.tensor([5, 0, 7]), (2, 4))
    assert r.tolist() == [1, 0, 1] and c.tolist() == [1, 0, 3]
    with pytest.raises(ValueError, match="out of bounds"):
        fg.unravel_index(fg.tensor([8]), (2, 4))
    lin = fg.nn.Linear(2, 2)
    assert fg.compile(lin) is lin and fg.compile(mode="max-autotune")(lin) is lin
    assert fg.typename(fg.ones(1)) == "torch.FloatTensor" and fg.typename(1) == "int"
    assert not fg.is_storage(fg.ones(1))


def test_diagonal_scatter_any_planes_match_torch():
    """N-d inputs and any (dim1, dim2) planes (issue #17: only 2-d was built); values are
    torch 2.15's for x = arange(24).reshape(2, 3, 4) and src = -1."""
    x = fg.arange(24.0, dtype=fg.float64).reshape(2, 3, 4)
    want = {
        (1, 1, 2): [1, 6, 11, 13, 18, 23],
        (-1, 2, 0): [1, 5, 9, 14, 18, 22],
        (0, -1, -2): [0, 5, 10, 12, 17, 22],
        (0, 0, 1): [0, 1, 2, 3, 16, 17, 18, 19],
    }
    for (off, d1, d2), flat in want.items():
        src = -fg.ones_like(x.diagonal(off, d1, d2))
        got = fg.diagonal_scatter(x, src, off, d1, d2).numpy().reshape(-1)
        expect = np.arange(24.0)
        expect[flat] = -1
        np.testing.assert_array_equal(got, expect)
    s = _t(np.random.default_rng(1).standard_normal((2, 3)), True)
    xt = _t(np.random.default_rng(2).standard_normal((2, 3, 4)), True)
    assert gradcheck(lambda x, s: fg.diagonal_scatter(x, s, 1, 1, 2), (xt, s))
    with pytest.raises(ValueError, match="diagonal's shape \\[2, 3\\]"):
        fg.diagonal_scatter(x, fg.ones(3), 1, 1, 2)
    with pytest.raises(ValueError, match="must differ"):
        fg.diagonal_scatter(x, fg.ones(3), 0, 1, -2)
