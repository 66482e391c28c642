"""Everyday PyTorch / Paddle functions composed of other ops (``_ops_stack_split``,
``_ops_stats``, ``_ops_more_math``, ``_dtype_info``): values against NumPy in float64,
gradcheck where the peers differentiate, and the errors for bad input."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def _t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_atleast_nd_shapes():
    s, v, m = fg.tensor(1.0), fg.ones(3), fg.ones(2, 3)
    assert fg.atleast_1d(s).shape == [1] and fg.atleast_1d(v) is v
    assert [t.shape for t in fg.atleast_2d(s, v, m)] == [[1, 1], [1, 3], [2, 3]]
    assert [t.shape for t in fg.atleast_3d([s, v, m])] == [[1, 1, 1], [1, 3, 1], [2, 3, 1]]


@pytest.mark.parametrize(
    "fn,npfn",
    [
        (fg.hstack, np.hstack),
        (fg.vstack, np.vstack),
        (fg.dstack, np.dstack),
        (fg.column_stack, np.column_stack),
        (fg.row_stack, np.vstack),
    ],
)
def test_stacks_match_numpy(fn, npfn):
    for parts in (
        [RNG.standard_normal(3), RNG.standard_normal(3)],
        [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))],
    ):
        np.testing.assert_array_equal(fn([_t(p) for p in parts]).numpy(), npfn(parts))
    a, b = _t(RNG.standard_normal((2, 3)), True), _t(RNG.standard_normal((2, 3)), True)
    assert gradcheck(lambda x, y: fn([x, y]), (a, b))


def test_concatenate_is_cat():
    a, b = RNG.standard_normal((2, 2)), RNG.standard_normal((1, 2))
    np.testing.assert_array_equal(fg.concatenate([_t(a), _t(b)]).numpy(), np.concatenate([a, b]))
    np.testing.assert_array_equal(
        fg.concatenate([_t(a), _t(a)], axis=1).numpy(), np.concatenate([a, a], 1)
    )


@pytest.mark.parametrize("spec", [3, 4, [1, 4], [2, -1], [0, 0, 5], [7]])
def test_tensor_split_matches_numpy(spec):
    a = RNG.standard_normal((6, 2))
    got = fg.tensor_split(_t(a), spec)
    want = np.array_split(a, spec) if isinstance(spec, int) else np.split(a, spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
    assert [p.shape for p in _t(a).tensor_split(2, dim=1)] == [[6, 1], [6, 1]]


def test_hsplit_vsplit_dsplit():
    a = RNG.standard_normal((4, 6, 2))
    for fn, npfn in ((fg.hsplit, np.hsplit), (fg.vsplit, np.vsplit), (fg.dsplit, np.dsplit)):
        for g, w in zip(fn(_t(a), 2), npfn(a, 2)):
            np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(ValueError, match="equal"):
        fg.hsplit(_t(a), 4)
    with pytest.raises(ValueError, match="at least 2"):
        fg.vsplit(fg.ones(3), 3)


def test_block_diag_and_cartesian_prod():
    a, b = RNG.standard_normal((2, 2)), RNG.standard_normal(3)
    got = fg.block_diag(_t(a), _t(b), fg.tensor(5.0, dtype=fg.float64))
    want = np.zeros((4, 6))
    want[:2, :2], want[2, 2:5], want[3, 5] = a, b, 5.0
    np.testing.assert_array_equal(got.numpy(), want)
    x, y = _t(a, True), _t(b, True)
    assert gradcheck(lambda p, q: fg.block_diag(p, q), (x, y))
    cp = fg.cartesian_prod(fg.tensor([1, 2]), fg.tensor([3, 4, 5]))
    assert cp.tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]


def test_flips_and_take_along_dim():
    a = RNG.standard_normal((3, 4))
    np.testing.assert_array_equal(fg.flipud(_t(a)).numpy(), np.flipud(a))
    np.testing.assert_array_equal(_t(a).fliplr().numpy(), np.fliplr(a))
    idx = np.argsort(a, axis=1)
    np.testing.assert_array_equal(
        fg.take_along_dim(_t(a), fg.tensor(idx), dim=1).numpy(), np.take_along_axis(a, idx, 1)
    )
    np.testing.assert_array_equal(
        fg.take_along_dim(_t(a), fg.tensor([0, 5])).numpy(), a.reshape(-1)[[0, 5]]
    )
    x = _t(a, True)
    assert gradcheck(lambda t: fg.take_along_dim(t, fg.tensor(idx[:, :2]), dim=1), (x,))


def test_var_mean_std_mean_aminmax():
    a = RNG.standard_normal((3, 5))
    v, m = fg.var_mean(_t(a), 1)
    np.testing.assert_allclose(v.numpy(), a.var(1, ddof=1))
    np.testing.assert_allclose(m.numpy(), a.mean(1))
    s, m = fg.std_mean(_t(a), dim=0, correction=0, keepdim=True)
    np.testing.assert_allclose(s.numpy(), a.std(0, keepdims=True))
    mn, mx = fg.aminmax(_t(a), dim=1)
    np.testing.assert_array_equal(mn.numpy(), a.min(1))
    assert _t(a).aminmax().max.item() == a.max()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_diff_matches_numpy(n):
    a = RNG.standard_normal((4, 5))
    np.testing.assert_allclose(fg.diff(_t(a), n=n).numpy(), np.diff(a, n=n))
    np.testing.assert_allclose(
        _t(a).diff(dim=0, prepend=_t(a[:1]), append=_t(a[-1:])).numpy(),
        np.diff(a, axis=0, prepend=a[:1], append=a[-1:]),
    )
    assert gradcheck(lambda t: fg.diff(t, n=n), (_t(a, True),))
    b = np.array([True, False, False, True])
    assert fg.diff(fg.tensor(b)).tolist() == np.diff(b).tolist()


def test_cov_corrcoef():
    a = RNG.standard_normal((3, 7))
    np.testing.assert_allclose(fg.cov(_t(a)).numpy(), np.cov(a))
    np.testing.assert_allclose(fg.cov(_t(a), correction=0).numpy(), np.cov(a, bias=True))
    fw, aw = np.array([1, 2, 1, 3, 1, 1, 2]), RNG.random(7)
    np.testing.assert_allclose(
        fg.cov(_t(a), fweights=fg.tensor(fw), aweights=_t(aw)).numpy(),
        np.cov(a, fweights=fw, aweights=aw),
    )
    np.testing.assert_allclose(fg.corrcoef(_t(a)).numpy(), np.corrcoef(a), atol=1e-12)
    np.testing.assert_allclose(fg.cov(_t(a[0])).numpy(), np.cov(a[0]))
    assert gradcheck(lambda t: fg.cov(t), (_t(a, True),))
    assert gradgradcheck(lambda t: fg.corrcoef(t), (_t(a, True),))


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(method):
    a = RNG.standard_normal((4, 9))
    q = [0.0, 0.25, 0.5, 0.9, 1.0]
    got = fg.quantile(_t(a), fg.tensor(q, dtype=fg.float64), dim=1, interpolation=method)
    np.testing.assert_allclose(got.numpy(), np.quantile(a, q, axis=1, method=method))
    got = fg.quantile(_t(a), 0.3, interpolation=method)
    np.testing.assert_allclose(got.numpy(), np.quantile(a, 0.3, method=method))
    got = fg.quantile(_t(a), 0.3, dim=0, keepdim=True, interpolation=method)
    np.testing.assert_allclose(
        got.numpy(), np.quantile(a, 0.3, axis=0, keepdims=True, method=method)
    )


def test_quantile_nan_and_gradient():
    a = RNG.standard_normal((3, 6))
    a[1, 2] = np.nan
    a[2, :] = np.nan
    np.testing.assert_allclose(
        fg.quantile(_t(a), 0.4, dim=1).numpy(), np.quantile(a, 0.4, axis=1), equal_nan=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy warns on the all-NaN row
        want = np.nanquantile(a, [0.1, 0.7], axis=1)
    np.testing.assert_allclose(
        fg.nanquantile(_t(a), fg.tensor([0.1, 0.7], dtype=fg.float64), dim=1).numpy(),
        want,
        equal_nan=True,
    )
    b = _t(RNG.standard_normal((2, 5)), True)
    assert gradcheck(lambda t: fg.quantile(t, 0.35, dim=1), (b,))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fg.quantile(b, 1.5)
    with pytest.raises(TypeError, match="float"):
        fg.quantile(fg.tensor([1, 2]), 0.5)


def test_trapezoid():
    y, x = RNG.standard_normal((3, 6)), np.cumsum(RNG.random(6))
    np.testing.assert_allclose(fg.trapezoid(_t(y)).numpy(), np.trapezoid(y))
    np.testing.assert_allclose(fg.trapz(_t(y), _t(x)).numpy(), np.trapezoid(y, x))
    np.testing.assert_allclose(
        fg.trapezoid(_t(y), dx=0.5, dim=0).numpy(), np.trapezoid(y, dx=0.5, axis=0)
    )
    want = np.cumsum((y[:, 1:] + y[:, :-1]) / 2 * np.diff(x), axis=1)
    np.testing.assert_allclose(fg.cumulative_trapezoid(_t(y), _t(x)).numpy(), want)
    assert gradcheck(lambda t: fg.trapezoid(t, _t(x)), (_t(y, True),))


def test_bincount():
    x = np.array([0, 1, 1, 3, 2, 1, 7])
    assert fg.bincount(fg.tensor(x)).tolist() == np.bincount(x).tolist()
    w = RNG.random(7)
    np.testing.assert_allclose(
        fg.bincount(fg.tensor(x), _t(w), minlength=10).numpy(), np.bincount(x, w, minlength=10)
    )
    with pytest.raises(ValueError, match="non-negative"):
        fg.bincount(fg.tensor([-1, 2]))
    with pytest.raises(TypeError, match="integer"):
        fg.bincount(fg.tensor([1.0]))


def test_addcmul_addcdiv_clamp_logit():
    a, b, c = (RNG.standard_normal((2, 3)) for _ in range(3))
    np.testing.assert_allclose(fg.addcmul(_t(a), _t(b), _t(c), value=0.5).numpy(), a + 0.5 * b * c)
    np.testing.assert_allclose(_t(a).addcdiv(_t(b), _t(c), value=2).numpy(), a + 2 * b / c)
    x = _t(a)
    x.addcmul_(_t(b), _t(c))
    np.testing.assert_allclose(x.numpy(), a + b * c)
    with pytest.raises(TypeError, match="integer division"):
        fg.addcdiv(fg.ones(2), fg.tensor([1, 2]), fg.tensor([3, 4]))
    assert gradcheck(
        lambda p, q, r: fg.addcdiv(p, q, r, value=0.3), (_t(a, True), _t(b, True), _t(c, True))
    )
    np.testing.assert_array_equal(fg.clamp_min(_t(a), 0.1).numpy(), np.maximum(a, 0.1))
    np.testing.assert_array_equal(fg.clamp_max(_t(a), 0.1).numpy(), np.minimum(a, 0.1))
    p = RNG.random(5)
    np.testing.assert_allclose(fg.logit(_t(p)).numpy(), np.log(p / (1 - p)))
    q = np.array([0.0, 0.5, 1.0])
    np.testing.assert_allclose(
        fg.logit(_t(q), eps=1e-6).numpy(),
        np.log(np.clip(q, 1e-6, 1 - 1e-6) / (1 - np.clip(q, 1e-6, 1 - 1e-6))),
    )
    assert gradcheck(lambda t: fg.logit(t), (_t(p * 0.8 + 0.1, True),))


def test_small_helpers():
    a = RNG.standard_normal((3, 4))
    assert fg.isin(fg.tensor([1, 2, 3, 4]), fg.tensor([2, 4])).tolist() == [
        False,
        True,
        False,
        True,
    ]
    assert fg.isin(fg.tensor([1, 2]), [2], invert=True).tolist() == [True, False]
    assert fg.argwhere(fg.tensor([[0, 1], [2, 0]])).tolist() == [[0, 1], [1, 0]]
    np.testing.assert_array_equal(fg.msort(_t(a)).numpy(), np.sort(a, 0))
    u, v = RNG.standard_normal(4) + 1j * RNG.standard_normal(4), RNG.standard_normal(4) + 0j
    np.testing.assert_allclose(fg.vdot(fg.tensor(u), fg.tensor(v)).numpy(), np.vdot(u, v))
    np.testing.assert_allclose(fg.logspace(0, 2, 3, dtype=fg.float64).numpy(), [1.0, 10.0, 100.0])
    np.testing.assert_allclose(
        fg.logspace(0, 3, 4, base=2, dtype=fg.float64).numpy(), [1.0, 2.0, 4.0, 8.0]
    )
    assert fg.tril_indices(3, 4, 1).tolist() == [list(r) for r in np.tril_indices(3, 1, 4)]
    assert fg.triu_indices(4, 3).tolist() == [list(r) for r in np.triu_indices(4, 0, 3)]
    np.testing.assert_array_equal(
        fg.vander(_t([1.0, 2.0, 3.0])).numpy(), np.vander([1.0, 2.0, 3.0])
    )
    np.testing.assert_array_equal(
        fg.vander(_t([1.0, 2.0]), N=3, increasing=True).numpy(),
        np.vander([1.0, 2.0], 3, increasing=True),
    )
    np.testing.assert_array_equal(
        fg.diagflat(_t([[1.0, 2.0]]), 1).numpy(), np.diagflat([1.0, 2.0], 1)
    )
    assert fg.select(_t(a), 1, 2).tolist() == a[:, 2].tolist()
    assert fg.broadcast_shapes((2, 1), (3,), [1, 1, 3]) == (1, 2, 3)
    with pytest.raises(ValueError, match="broadcast"):
        fg.broadcast_shapes((2,), (3,))
    assert fg.isreal(fg.tensor([1 + 0j, 1j])).tolist() == [True, False]
    assert fg.is_floating_point(fg.ones(1)) and not fg.is_floating_point(fg.tensor([1]))
    assert fg.is_nonzero(fg.tensor([2])) and not fg.is_nonzero(fg.tensor(0.0))
    with pytest.raises(RuntimeError, match="single truth value"):
        fg.is_nonzero(fg.ones(2))
    with pytest.raises(TypeError, match="bool"):
        fg.positive(fg.tensor([True]))


def test_tensor_method_spellings():
    x = fg.arange(6).reshape([2, 3])
    assert x.new_empty(2, 2).shape == [2, 2] and x.new_empty((3,)).dtype == fg.int64
    assert x.new_full((2,), 7).tolist() == [7, 7]
    assert x.new_tensor([1.5], dtype=fg.float32).dtype == fg.float32
    assert x.reshape_as(fg.ones(3, 2)).shape == [3, 2]
    assert x.view_as(fg.ones(6)).shape == [6]
    assert x.where(x > 2, fg.zeros_like(x)).tolist() == [[0, 0, 0], [3, 4, 5]]
    assert x.nelement() == 6 and x.ndimension() == 2
    m = fg.zeros(3, 3)
    m.fill_diagonal_(2.0)
    np.testing.assert_array_equal(m.numpy(), np.diag([2.0, 2.0, 2.0]))
    tall = np.zeros((7, 3))
    np.fill_diagonal(tall, 1.0, wrap=True)
    np.testing.assert_array_equal(
        fg.zeros(7, 3, dtype=fg.float64).fill_diagonal_(1.0, wrap=True).numpy(), tall
    )


def test_data_property():
    w = fg.ones(3, requires_grad=True)
    d = w.data
    assert not d.requires_grad and d.data_ptr() == w.data_ptr()
    w.data = fg.full([3], 2.0)
    assert w.tolist() == [2.0, 2.0, 2.0] and w.requires_grad and w.is_leaf
    w.grad = fg.ones(3)
    w.data -= 0.5 * w.grad  # a hand-written SGD step
    assert w.tolist() == [1.5, 1.5, 1.5]
    w.data = fg.ones(4)  # another shape: re-pointed (tests/python/test_repoint.py)
    assert w.tolist() == [1.0] * 4 and w.requires_grad and w.is_leaf


def test_dtype_queries():
    assert fg.finfo(fg.float32).eps == np.finfo(np.float32).eps
    assert fg.finfo().max == np.finfo(np.float32).max  # the default dtype
    assert fg.finfo(fg.float64).tiny == np.finfo(np.float64).tiny
    assert fg.finfo(fg.bfloat16).eps == 2.0**-7 and fg.finfo(fg.bfloat16).bits == 16
    assert fg.iinfo(fg.int16).min == -32768 and fg.iinfo(fg.uint8).max == 255
    with pytest.raises(TypeError, match="iinfo"):
        fg.finfo(fg.int32)
    with pytest.raises(TypeError, match="finfo"):
        fg.iinfo(fg.float32)
    assert fg.promote_types(fg.uint8, fg.int8) == fg.int16
    assert fg.promote_types(fg.int64, fg.float16) == fg.float16
    assert fg.result_type(fg.ones(2, dtype=fg.int32), 2.5) == fg.float32
    # what ferrograd's own arithmetic gives (its 0-d rule is Paddle's: see semantics.md)
    a, b = fg.ones(2, dtype=fg.int32), fg.tensor(2, dtype=fg.int64)
    assert fg.result_type(a, b) == (a + b).dtype
    assert fg.result_type(fg.tensor([True]), True) == fg.bool
    assert fg.can_cast(fg.int32, fg.float32) and not fg.can_cast(fg.float64, fg.int32)


def test_process_settings():
    n = fg.get_num_threads()
    assert n >= 1
    fg.set_num_threads(n)  # the pool's own size: silent
    with pytest.warns(RuntimeWarning, match="RAYON_NUM_THREADS"):
        fg.set_num_threads(n + 1)
    with pytest.raises(ValueError):
        fg.set_num_threads(0)
    fg.use_deterministic_algorithms(True)
    assert fg.are_deterministic_algorithms_enabled()
    fg.use_deterministic_algorithms(False)
    fg.set_float32_matmul_precision("high")
    assert fg.get_float32_matmul_precision() == "high"
    fg.set_float32_matmul_precision("highest")
    with pytest.raises(ValueError):
        fg.set_float32_matmul_precision("low")


def test_huge_counts_are_refused_not_attempted():
    # found by the panic fuzzer: hsplit(2**62) of an empty tensor built a list of 2**62 views
    with pytest.raises(ValueError, match="sections"):
        fg.tensor_split(fg.zeros(0), 2**62)
    with pytest.raises(ValueError, match="sections"):
        fg.zeros(0).hsplit(2**40)
    assert len(fg.tensor_split(fg.zeros(3), 5)) == 5  # more sections than elements: empty pieces
    with pytest.raises(ValueError, match="would not fit"):
        fg.combinations(fg.tensor([1, 2, 3]), 2**40, with_replacement=True)
    with pytest.raises(ValueError, match="65536"):
        fg.vander(fg.ones(2), N=2**40)
