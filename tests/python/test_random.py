"""Random sampling and Generator objects: randperm, multinomial, bernoulli, normal,
uniform, rand_like / randn_like / randint_like, the in-place samplers, Generator
(manual_seed, seed, initial_seed, get_state / set_state), generator= on every sampler,
default_generator, get_rng_state / set_rng_state. Statistical checks use fixed seeds and
generous bounds (several standard errors), so they are deterministic and not flaky."""

import ferrograd as fg
import numpy as np
import pytest


def _np(t):
    return t.numpy()


# ---- Generator objects ----------------------------------------------------------------


def test_manual_seed_returns_the_generator_and_reproduces_draws():
    g = fg.Generator().manual_seed(123)
    assert isinstance(g, fg.Generator)
    a = fg.rand(5, generator=g)
    g.manual_seed(123)
    b = fg.rand(5, generator=g)
    np.testing.assert_array_equal(_np(a), _np(b))
    assert g.initial_seed() == 123


def test_generators_are_independent_of_each_other_and_of_the_default():
    g1 = fg.Generator().manual_seed(7)
    g2 = fg.Generator().manual_seed(7)
    fg.manual_seed(0)
    x1 = fg.randn(4, generator=g1)
    fg.randn(100)  # draws from the default generator only
    x2 = fg.randn(4, generator=g2)
    np.testing.assert_array_equal(_np(x1), _np(x2))
    fg.manual_seed(0)
    d1 = fg.randn(3)
    fg.manual_seed(0)
    fg.randn(4, generator=g1)  # does not advance the default stream
    d2 = fg.randn(3)
    np.testing.assert_array_equal(_np(d1), _np(d2))


def test_get_state_set_state_round_trip():
    g = fg.Generator().manual_seed(5)
    fg.rand(3, generator=g)
    s = g.get_state()
    assert s.dtype == fg.int64 and s.shape == [5]
    a = fg.randint(0, 100, [6], generator=g)
    assert g.set_state(s) is g
    b = fg.randint(0, 100, [6], generator=g)
    np.testing.assert_array_equal(_np(a), _np(b))
    g.set_state(s.tolist())  # a sequence works too
    np.testing.assert_array_equal(_np(fg.randint(0, 100, [6], generator=g)), _np(a))
    with pytest.raises(ValueError, match="state"):
        g.set_state([0, 0, 0, 0])
    with pytest.raises(ValueError, match="5 words"):
        g.set_state([1, 2])


def test_seed_without_argument_picks_a_fresh_seed():
    g = fg.Generator()
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    assert fg.seed() == fg.initial_seed()  # torch.seed(): the default generator


def test_default_generator_and_rng_state():
    assert fg.manual_seed(42) is not None
    assert fg.default_generator.initial_seed() == 42
    assert fg.initial_seed() == 42
    state = fg.get_rng_state()
    a = fg.randn(4)
    fg.set_rng_state(state)
    np.testing.assert_array_equal(_np(fg.randn(4)), _np(a))
    fg.set_rng_state([state])  # Paddle's list form
    np.testing.assert_array_equal(_np(fg.randn(4)), _np(a))
    # utils.checkpoint's 4-word state is the same stream
    from ferrograd.utils.checkpoint import get_rng_state

    words = get_rng_state()
    b = fg.rand(2)
    fg.set_rng_state(words)
    np.testing.assert_array_equal(_np(fg.rand(2)), _np(b))


def test_paddle_seed_returns_a_generator():
    import ferrograd as paddle

    g = paddle.seed(2024)
    assert isinstance(g, paddle.Generator) and g.initial_seed() == 2024


def test_generator_argument_must_be_a_generator():
    with pytest.raises(TypeError):
        fg.rand(2, generator=3)
    with pytest.raises(TypeError, match="generator"):
        fg.randperm(3, generator="g")
    with pytest.raises(TypeError, match="seed"):
        fg.Generator().manual_seed(1.5)
    with pytest.raises(ValueError, match="device"):
        fg.Generator("cuda")


# ---- samplers ----------------------------------------------------------------------------


def test_randperm_is_a_permutation_and_reproducible():
    g = fg.Generator().manual_seed(1)
    p = fg.randperm(50, generator=g)
    assert p.dtype == fg.int64
    assert sorted(p.tolist()) == list(range(50))
    g.manual_seed(1)
    np.testing.assert_array_equal(_np(fg.randperm(50, generator=g)), _np(p))
    assert fg.randperm(0).shape == [0]
    assert fg.randperm(5, dtype="float32").dtype == fg.float32
    assert fg.randperm(4, "int32").dtype == fg.int32  # Paddle's positional dtype
    with pytest.raises(ValueError, match="non-negative"):
        fg.randperm(-1)
    # every position takes every value about equally often
    fg.manual_seed(3)
    counts = np.zeros((4, 4))
    for _ in range(4000):
        counts[np.arange(4), _np(fg.randperm(4))] += 1
    assert np.all(np.abs(counts - 1000) < 150)


def test_multinomial_with_and_without_replacement():
    fg.manual_seed(0)
    w = fg.tensor([1.0, 2.0, 0.0, 7.0])
    s = fg.multinomial(w, 20000, replacement=True)
    assert s.dtype == fg.int64 and s.shape == [20000]
    freq = np.bincount(_np(s), minlength=4) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.0, 0.7], atol=0.02)
    rows = fg.multinomial(fg.tensor([[1.0, 1.0, 1.0], [0.0, 5.0, 1.0]]), 2)
    assert rows.shape == [2, 2]
    for r in rows.tolist():
        assert len(set(r)) == 2
    assert 0 not in rows.tolist()[1]
    # without replacement, the first draw follows the weights
    firsts = [fg.multinomial(w, 3).tolist()[0] for _ in range(3000)]
    np.testing.assert_allclose(
        np.bincount(firsts, minlength=4) / 3000, [0.1, 0.2, 0.0, 0.7], atol=0.04
    )


def test_multinomial_bad_input():
    with pytest.raises(ValueError, match="without replacement"):
        fg.multinomial(fg.tensor([1.0, 0.0]), 2)
    with pytest.raises(ValueError, match="non-negative"):
        fg.multinomial(fg.tensor([1.0, -1.0]), 1)
    with pytest.raises(ValueError, match="sum to 0"):
        fg.multinomial(fg.tensor([0.0, 0.0]), 1, True)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        fg.multinomial(fg.ones([2, 2, 2]), 1)


def test_bernoulli_probabilities_tensor_and_scalar_p():
    fg.manual_seed(1)
    p = fg.tensor([0.0, 0.25, 1.0]).expand([20000, 3])
    s = fg.bernoulli(p)
    assert s.dtype == fg.float32 and s.shape == [20000, 3]
    np.testing.assert_allclose(_np(s).mean(0), [0.0, 0.25, 1.0], atol=0.02)
    q = fg.bernoulli(fg.zeros([10000]), p=0.5)
    assert abs(_np(q).mean() - 0.5) < 0.03
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fg.bernoulli(fg.tensor([1.5]))
    assert fg.tensor([0.3, 0.6]).bernoulli().shape == [2]


def test_normal_with_numbers_tensors_and_size():
    g = fg.Generator().manual_seed(11)
    x = fg.normal(2.0, 3.0, size=(40000,), generator=g)
    assert abs(_np(x).mean() - 2.0) < 0.06 and abs(_np(x).std() - 3.0) < 0.06
    m = fg.tensor([0.0, 10.0, -10.0], dtype="float64")
    y = fg.normal(m, 0.5)
    assert y.dtype == fg.float64 and y.shape == [3]
    assert np.all(np.abs(_np(y) - _np(m)) < 5)
    z = fg.normal(m.expand([20000, 3]), fg.tensor([1.0, 2.0, 0.0], dtype="float64"))
    np.testing.assert_allclose(_np(z).std(0), [1.0, 2.0, 0.0], atol=0.05)
    assert fg.normal(mean=1.0, std=2.0, shape=[2, 3]).shape == [2, 3]  # Paddle
    mr = fg.tensor([1.0], requires_grad=True)
    assert fg.normal(mr, 1.0).grad_fn is None  # not differentiable
    with pytest.raises(ValueError, match="std"):
        fg.normal(0.0, -1.0, size=(2,))


def test_uniform_paddle_signature_and_seed():
    u = fg.uniform([20000], min=-2.0, max=3.0)
    v = _np(u)
    assert v.min() >= -2.0 and v.max() < 3.0 and abs(v.mean() - 0.5) < 0.05
    a = fg.uniform([4], "float64", seed=9)
    b = fg.uniform([4], "float64", seed=9)
    assert a.dtype == fg.float64
    np.testing.assert_array_equal(_np(a), _np(b))  # a seed gives the same values each call


def test_rand_never_returns_one_in_narrow_dtypes():
    fg.manual_seed(0)
    for dt in ("float16", "bfloat16", "float32"):
        v = fg.rand(200000, dtype=dt).astype("float64").numpy()
        assert v.min() >= 0.0 and v.max() < 1.0


def test_like_samplers():
    x = fg.zeros([3, 4], dtype="float64")
    assert fg.rand_like(x).dtype == fg.float64 and fg.rand_like(x).shape == [3, 4]
    assert fg.randn_like(x, dtype="float32").dtype == fg.float32
    r = fg.randint_like(x, 5)
    assert r.dtype == fg.float64 and set(np.unique(_np(r))) <= {0, 1, 2, 3, 4}
    r2 = fg.randint_like(fg.zeros([1000], dtype="int64"), 3, 6)
    assert set(np.unique(_np(r2))) == {3, 4, 5}


def test_in_place_samplers_fill_and_reproduce():
    g = fg.Generator().manual_seed(3)
    x = fg.zeros([20000], dtype="float64")
    assert x.normal_(1.0, 2.0, generator=g) is x
    assert abs(_np(x).mean() - 1.0) < 0.06 and abs(_np(x).std() - 2.0) < 0.06
    x.uniform_(-1.0, 1.0)
    assert _np(x).min() >= -1.0 and _np(x).max() < 1.0
    x.uniform_(min=2.0, max=3.0)  # Paddle's keywords
    assert _np(x).min() >= 2.0
    x.exponential_(2.0)
    assert _np(x).min() >= 0.0 and abs(_np(x).mean() - 0.5) < 0.02
    x.bernoulli_(0.3)
    assert set(np.unique(_np(x))) <= {0.0, 1.0} and abs(_np(x).mean() - 0.3) < 0.02
    x.bernoulli_(fg.tensor([0.0, 1.0]).expand([10000, 2]).reshape([20000]))
    assert _np(x)[0::2].sum() == 0 and _np(x)[1::2].min() == 1
    x.random_(0, 10)
    assert set(np.unique(_np(x))) == set(range(10))
    x.random_(3)
    assert set(np.unique(_np(x))) == {0.0, 1.0, 2.0}
    ints = fg.zeros([100], dtype="int64").random_()
    assert _np(ints).min() >= 0
    g.manual_seed(8)
    a = fg.zeros([5]).normal_(generator=g).numpy().copy()
    g.manual_seed(8)
    np.testing.assert_array_equal(fg.zeros([5]).normal_(generator=g).numpy(), a)


def test_in_place_sampler_on_a_leaf_that_requires_grad():
    w = fg.zeros([3], requires_grad=True)
    with pytest.raises(RuntimeError):
        w.normal_()
    with fg.no_grad():
        w.normal_()
    assert w.requires_grad and w.is_leaf


def test_in_place_samplers_bad_input():
    with pytest.raises(TypeError, match="float"):
        fg.zeros([2], dtype="int64").normal_()
    with pytest.raises(ValueError, match="lambd"):
        fg.zeros([2]).exponential_(0.0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fg.zeros([2]).bernoulli_(2.0)


def test_randint_generator_and_dropout_follow_the_seed():
    g = fg.Generator().manual_seed(2)
    a = fg.randint(0, 10, [8], generator=g)
    g.manual_seed(2)
    np.testing.assert_array_equal(_np(fg.randint(0, 10, [8], generator=g)), _np(a))
    x = fg.ones([100])
    fg.manual_seed(5)
    d1 = fg.nn.functional.dropout(x, 0.5)
    fg.manual_seed(5)
    np.testing.assert_array_equal(_np(fg.nn.functional.dropout(x, 0.5)), _np(d1))
