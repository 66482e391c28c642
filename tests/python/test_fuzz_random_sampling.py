"""Statistical fuzzer for random sampling, ``Generator`` objects and the dropout family.

Every sampler (``rand``, ``randn``, ``randint``, the ``_like`` forms, every ``normal``
overload, the in-place fills ``uniform_`` / ``normal_`` / ``exponential_`` /
``geometric_`` / ``cauchy_`` / ``log_normal_`` / ``random_`` / ``bernoulli_``,
``bernoulli``, ``multinomial``, ``randperm``) is called with random shapes (ints, tuples,
lists, ``Size``, 0-d / 1-element tensors, empty shapes), dtypes, bounds and seeds, and
its draws are checked against the distribution PyTorch documents with deterministic,
generous SciPy tests (Kolmogorov-Smirnov, chi-square, binomial) at ``ALPHA``: a correct
sampler fails one of them with probability ~1e-8 per check. Seeds make every example
reproducible; ``Generator`` state round trips, independence of generators and
``generator=`` on every sampler that takes it are checked exactly. The dropout family
(``F.dropout``, ``dropout1d/2d/3d``, ``alpha_dropout``, ``feature_alpha_dropout``, the
``nn`` modules, ``F.rrelu``, Paddle's ``mode=`` / ``axis=``) is checked element by element
against PyTorch's / Paddle's documented formulas (each output is the kept value times
the scale or the dropped value), with the dropped fraction tested against ``p`` and the
gradients against the same mask (and ``gradcheck`` of a re-seeded dropout). This module
is PyTorch code (``torch = fg`` below, docs/dialects.md); Paddle's spellings run in a
namespace whose globals name ferrograd ``paddle``. Bad arguments must raise a Python
exception. Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ, grad_ok, viewed
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's
nn = fg.nn

#: a correct sampler fails a check with about this probability
ALPHA = 1e-8
SEEDS = st.integers(0, 2**32 - 1)
FLOAT_DTYPES = ["float16", "float32", "float64"]
#: integers every dtype holds exactly: dtype -> (smallest, largest)
EXACT = {
    "bool": (0, 1),
    "uint8": (0, 255),
    "int8": (-128, 127),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    # int64 is limited to 2**53 here: randint / random_ round int64 values through a
    # float64 (test_randint_int64_exact_regression)
    "int64": (-(2**53), 2**53 - 1),
    "float16": (-2048, 2048),
    "float32": (-(2**24), 2**24),
    "float64": (-(2**53), 2**53 - 1),  # high = 2**53 + 1 would not compare exactly
}

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`), so
# ferrograd answers them as Paddle (docs/dialects.md).
_PADDLE_SRC = """
def call(name, *args, **kwargs):
    return getattr(paddle, name)(*args, **kwargs)

def functional(name, *args, **kwargs):
    return getattr(paddle.nn.functional, name)(*args, **kwargs)

def method(x, name, *args, **kwargs):
    return getattr(x, name)(*args, **kwargs)

def layer(name, *args, **kwargs):
    return getattr(paddle.nn, name)(*args, **kwargs)
"""
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_paddle_random_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)


# ---------------------------------------------------------------- statistics helpers
def ks(sample, cdf, what: str) -> None:
    """Kolmogorov-Smirnov test of a continuous sample against `cdf`."""
    x = np.asarray(sample, dtype=np.float64).ravel()
    p = stats.kstest(x, cdf).pvalue
    assert p > ALPHA, f"{what}: KS p-value {p:.3g} ({x.size} draws)"


def discrete_uniform(sample, lo: int, hi: int, what: str, seed: int = 0) -> None:
    """`sample` holds integers uniform in [lo, hi) (hi exclusive): range, integrality,
    and a chi-square (small spans) or a KS test of the jittered values (large spans)."""
    x = np.asarray(sample).ravel()
    # compare in float64 / int64 (float16(2049) rounds to 2048)
    x = x.astype(np.float64 if x.dtype.kind == "f" else np.int64)
    assert x.size == 0 or (x.min() >= lo and x.max() < hi), (
        f"{what}: values outside [{lo}, {hi}): min {x.min()}, max {x.max()}"
    )
    if x.dtype.kind == "f":
        assert (np.floor(x) == x).all(), f"{what}: non-integer values"
    span = hi - lo
    if span == 1 or x.size < 50:
        return
    if span <= max(2, x.size // 20):
        counts = np.bincount((x - lo).astype(np.int64), minlength=span)
        p = stats.chisquare(counts).pvalue
        assert p > ALPHA, f"{what}: chi-square p-value {p:.3g}, counts {counts}"
        return
    # x - lo + u (u uniform in [0, 1)) is exactly uniform in [0, span) when x is
    u = np.random.default_rng(seed).random(x.size)
    y = ((x.astype(np.float64) - float(lo)) + u) / float(span)
    ks(y, stats.uniform().cdf, what)


def categorical(sample, probs, what: str) -> None:
    """`sample` (ints) follows the category probabilities `probs` (zeros never drawn)."""
    x = np.asarray(sample).ravel().astype(np.int64)
    probs = np.asarray(probs, dtype=np.float64)
    probs = probs / probs.sum()
    assert x.min() >= 0 and x.max() < probs.size, f"{what}: category out of range"
    counts = np.bincount(x, minlength=probs.size)
    zero = probs == 0
    assert counts[zero].sum() == 0, f"{what}: drew zero-probability categories {counts}"
    exp = probs[~zero] * x.size
    obs = counts[~zero]
    if obs.size < 2:
        return
    p = stats.chisquare(obs, exp).pvalue
    assert p > ALPHA, f"{what}: chi-square p-value {p:.3g}, counts {obs}, expected {exp}"


def binom(k: int, n: int, p: float, what: str) -> None:
    """`k` successes in `n` trials is plausible for probability `p`."""
    if p < 1e-12 or p > 1 - 1e-12:  # (SciPy overflows there) all or nothing
        assert k == n * round(p), f"{what}: {k}/{n} with p={p}"
        return
    pv = stats.binomtest(int(k), int(n), p).pvalue
    assert pv > ALPHA, f"{what}: {k}/{n} successes, p={p}: binomial p-value {pv:.3g}"


def shape_forms(draw, shape):
    """`shape` spelt one of the ways the samplers accept (list, tuple, Size, ints)."""
    kind = draw(st.sampled_from(["tuple", "list", "size", "star", "tensor"]))
    if kind == "tuple":
        return (tuple(shape),), {}
    if kind == "list":
        return (list(shape),), {}
    if kind == "size":
        return (fg.Size(list(shape)),), {}
    if kind == "tensor" and len(shape) == 1:
        t = draw(st.sampled_from([fg.tensor(shape[0]), fg.tensor([shape[0]])]))
        return (t,), {}
    if kind == "tensor" and shape:
        return ([fg.tensor(d) for d in shape],), {}
    return tuple(shape), {}


small_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


def np_of(t):
    return np.asarray(t.detach().numpy())


def same(a, b) -> bool:
    """Exact equality of two tensors' values (NaNs equal) and dtypes."""
    x, y = np_of(a), np_of(b)
    return a.dtype == b.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)


# ---------------------------------------------------------------- rand / randn
@FUZZ
@given(st.sampled_from(["rand", "randn"]), st.data())
def test_rand_randn(name, data):
    """Shapes in every spelling, dtype defaults and the distributions of rand / randn
    (uniform [0, 1), standard normal), float16/32/64."""
    seed = data.draw(SEEDS)
    fn = getattr(fg, name)
    shape = data.draw(small_shapes)
    args, kw = shape_forms(data.draw, shape)
    fg.manual_seed(seed)
    out = fn(*args, **kw)
    CALLS[name] += 1
    assert tuple(out.shape) == shape and out.dtype == fg.float32, (name, args, out.shape)
    # size= / shape= keywords; requires_grad= makes a leaf
    kwname = data.draw(st.sampled_from(["size", "shape"]))
    rg = data.draw(st.booleans())
    out = fn(**{kwname: list(shape)}, requires_grad=rg)
    CALLS[name] += 1
    assert tuple(out.shape) == shape and out.dtype == fg.float32
    assert out.requires_grad == rg and out.grad_fn is None
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES + [None]))
    n = data.draw(st.sampled_from([1000, 3000]))
    big = (n // 10, 10) if data.draw(st.booleans()) else (n,)
    fg.manual_seed(seed)
    out = fn(*big) if dtype is None else fn(*big, dtype=dtype)
    CALLS[name] += 1
    assert out.dtype.name == (dtype or "float32") and tuple(out.shape) == big
    x = np_of(out).astype(np.float64)
    if name == "rand":
        assert (x >= 0).all() and (x < 1).all(), f"rand outside [0, 1): {x.min()}, {x.max()}"
        ks(x, stats.uniform().cdf, f"rand {dtype}")
    else:
        assert np.isfinite(x).all()
        ks(x, stats.norm().cdf, f"randn {dtype}")
    # the same seed repeats the same values
    fg.manual_seed(seed)
    again = fn(*big) if dtype is None else fn(*big, dtype=dtype)
    assert same(out, again), f"{name}: manual_seed({seed}) did not repeat the draws"


# ---------------------------------------------------------------- randint
@FUZZ
@given(st.data())
def test_randint(data):
    """Integers uniform in [low, high) (high excluded, high = low + 1 constant), negative
    bounds, integer and float dtypes, the default int64, the (high, size) form."""
    seed = data.draw(SEEDS)
    dtype = data.draw(
        st.sampled_from([None, "uint8", "int8", "int16", "int32", "int64"] + FLOAT_DTYPES)
    )
    lo_min, hi_max = EXACT[dtype or "int64"]
    span = data.draw(st.sampled_from([1, 2, 3, 7, 10, 50, 1000, 10**6, 2**31, 2**40]))
    span = min(span, hi_max - lo_min + 1)
    low = data.draw(st.integers(lo_min, hi_max + 1 - span))
    high = low + span
    n = data.draw(st.sampled_from([600, 2000]))
    g = fg.Generator().manual_seed(seed)
    kw = {} if dtype is None else {"dtype": dtype}
    form = data.draw(st.sampled_from(["pos", "kw", "high_only"]))
    if form == "high_only" and low == 0:
        out = fg.randint(high, (n,), generator=g, **kw)
    elif form == "kw":
        out = fg.randint(low=low, high=high, size=[n], generator=g, **kw)
    else:
        out = fg.randint(low, high, (n,), generator=g, **kw)
    CALLS["randint"] += 1
    assert out.dtype.name == (dtype or "int64") and tuple(out.shape) == (n,)
    discrete_uniform(np_of(out), low, high, f"randint({low}, {high}, {dtype})", seed)
    # shapes in other spellings
    shape = data.draw(small_shapes)
    args, _ = shape_forms(data.draw, shape)
    if len(args) == 1 and not isinstance(args[0], fg.Tensor):
        out = fg.randint(low, high, args[0], **kw)
        CALLS["randint"] += 1
        assert tuple(out.shape) == shape
        discrete_uniform(np_of(out), low, high, "randint (shape)")


@FUZZ
@given(st.data())
def test_like_samplers(data):
    """rand_like / randn_like / randint_like keep the input's shape and dtype (or take
    `dtype`), on tensors seen through random views."""
    seed = data.draw(SEEDS)
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    _, t = data.draw(viewed(dtype, special=False))
    fg.manual_seed(seed)
    name = data.draw(st.sampled_from(["rand_like", "randn_like", "randint_like"]))
    to = data.draw(st.sampled_from([None, "float16", "float32", "float64"]))
    kw = {} if to is None else {"dtype": to}
    if name == "randint_like":
        low, high = sorted(
            data.draw(st.lists(st.integers(-20, 20), min_size=2, max_size=2, unique=True))
        )
        if data.draw(st.booleans()) and high > 0:
            out, low = fg.randint_like(t, high, **kw), 0
        else:
            out = fg.randint_like(t, low, high, **kw)
        discrete_uniform(np_of(out), low, high, "randint_like")
    else:
        out = getattr(fg, name)(t, **kw)
        x = np_of(out)
        if name == "rand_like":
            assert ((x >= 0) & (x < 1)).all()
    CALLS[name] += 1
    assert out.shape == t.shape and out.dtype.name == (to or dtype), (name, out.dtype, to)
    assert not out.requires_grad
    # a large input: the distribution
    big = fg.zeros(2000, dtype=dtype)
    g = fg.Generator().manual_seed(seed)
    if name == "rand_like":
        ks(np_of(fg.rand_like(big, generator=g)), stats.uniform().cdf, "rand_like")
    elif name == "randn_like":
        ks(np_of(fg.randn_like(big, generator=g)), stats.norm().cdf, "randn_like")
    else:
        discrete_uniform(np_of(fg.randint_like(big, -3, 9, generator=g)), -3, 9, "randint_like")
    CALLS[name] += 1


# ---------------------------------------------------------------- normal
@FUZZ
@given(st.data())
def test_normal_overloads(data):
    """normal(Tensor, Tensor) broadcasting, normal(float, Tensor), normal(Tensor, float),
    normal(float, float, size): standardised draws are N(0, 1), std = 0 gives the mean."""
    seed = data.draw(SEEDS)
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    kind = data.draw(st.sampled_from(["tt", "ft", "tf", "ff", "ff_kw"]))
    rows = data.draw(st.sampled_from([1, 3]))
    cols = data.draw(st.sampled_from([1, 500]))
    mean = np.asarray(data.draw(st.lists(st.floats(-5, 5), min_size=rows, max_size=rows)))
    std = np.asarray(data.draw(st.lists(st.floats(0.1, 4), min_size=cols, max_size=cols)))
    if cols > 1 and data.draw(st.booleans()):
        std[0] = 0.0  # a zero std gives the mean itself
    m_t = fg.tensor(mean.reshape(rows, 1), dtype=dtype)
    s_t = fg.tensor(std.reshape(1, cols), dtype=dtype)
    g = fg.Generator().manual_seed(seed)
    m0, s0 = float(mean[0]), float(std[-1])
    if kind == "tt":
        out = fg.normal(m_t, s_t, generator=g)
        mu, sd = np.broadcast_arrays(mean.reshape(rows, 1), std.reshape(1, cols))
        want_shape, want_dtype = (rows, cols), dtype
    elif kind == "ft":
        out = fg.normal(m0, s_t, generator=g)
        mu, sd = np.broadcast_arrays(np.full((1, cols), m0), std.reshape(1, cols))
        want_shape, want_dtype = (1, cols), dtype
    elif kind == "tf":
        out = fg.normal(m_t.expand([rows, 400]), s0, generator=g)
        mu, sd = np.broadcast_arrays(mean.reshape(rows, 1), np.full((rows, 400), s0))
        want_shape, want_dtype = (rows, 400), dtype
    else:
        size = (rows, 700)
        if kind == "ff":
            out = fg.normal(m0, s0, size, generator=g)
        else:
            out = fg.normal(mean=m0, std=s0, size=list(size), generator=g, dtype=dtype)
        mu, sd = np.full(size, m0), np.full(size, s0)
        want_shape, want_dtype = size, (dtype if kind == "ff_kw" else "float32")
    CALLS["normal"] += 1
    assert tuple(out.shape) == want_shape and out.dtype.name == want_dtype, (kind, out.shape)
    assert out.grad_fn is None
    x = np_of(out).astype(np.float64)
    sd = np.asarray(sd, dtype=want_dtype).astype(np.float64)
    mu = np.asarray(mu, dtype=want_dtype).astype(np.float64)
    zero = sd == 0
    np.testing.assert_array_equal(x[zero], mu[zero], err_msg="normal with std 0")
    z = (x[~zero] - mu[~zero]) / sd[~zero]
    if z.size >= 300:
        ks(z, stats.norm().cdf, f"normal {kind} {dtype}")


# ---------------------------------------------------------------- in-place fills
FILLS = {
    # name: (parameter strategy, the defaults, call, Paddle's keywords, scipy distribution)
    "uniform_": (
        st.tuples(st.floats(-5, 5), st.floats(0.01, 10)),
        (0.0, 1.0),
        lambda t, a, g: t.uniform_(a[0], a[0] + a[1], generator=g),
        lambda a: {"min": a[0], "max": a[0] + a[1]},
        lambda a: stats.uniform(a[0], a[1]),
    ),
    "normal_": (
        st.tuples(st.floats(-5, 5), st.floats(0.1, 5)),
        (0.0, 1.0),
        lambda t, a, g: t.normal_(a[0], a[1], generator=g),
        lambda a: {"mean": a[0], "std": a[1]},
        lambda a: stats.norm(a[0], a[1]),
    ),
    "exponential_": (
        st.tuples(st.floats(0.1, 10)),
        (1.0,),
        lambda t, a, g: t.exponential_(a[0], generator=g),
        lambda a: {"lam": a[0]},
        lambda a: stats.expon(scale=1 / a[0]),
    ),
    "cauchy_": (
        st.tuples(st.floats(-5, 5), st.floats(0.1, 5)),
        (0.0, 1.0),
        lambda t, a, g: t.cauchy_(a[0], a[1], generator=g),
        lambda a: {"loc": a[0], "scale": a[1]},
        lambda a: stats.cauchy(a[0], a[1]),
    ),
    "log_normal_": (
        st.tuples(st.floats(-1, 1), st.floats(0.1, 1.5)),
        (1.0, 2.0),
        lambda t, a, g: t.log_normal_(a[0], a[1], generator=g),
        lambda a: {"mean": a[0], "std": a[1]},
        lambda a: stats.lognorm(s=a[1], scale=math.exp(a[0])),
    ),
}


@FUZZ
@given(st.sampled_from(sorted(FILLS)), st.data())
def test_inplace_continuous_fills(name, data):
    """uniform_ / normal_ / exponential_ / cauchy_ / log_normal_ fill the tensor in
    place (returning it; a strided view writes through to its base and nowhere else)
    with draws of PyTorch's documented distribution; the defaults (uniform [0, 1),
    N(0, 1), rate 1, Cauchy(0, 1), log-normal mean 1 std 2) and Paddle's keywords
    (min / max, lam, loc / scale) too."""
    seed = data.draw(SEEDS)
    params_st, defaults, call, paddle_kw, dist = FILLS[name]
    form = data.draw(st.sampled_from(["args", "defaults", "paddle"]))
    a = defaults if form == "defaults" else data.draw(params_st)
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    n = data.draw(st.sampled_from([1000, 2500]))
    g = fg.Generator().manual_seed(seed)
    if data.draw(st.booleans()):
        base = fg.full([2, n], 7.0, dtype=dtype)
        view, other = base[1], base[0]
    else:
        base = fg.full([n, 2], 7.0, dtype=dtype)
        view, other = base[:, 1], base[:, 0]
    if form == "defaults":
        res = getattr(view, name)(generator=g)
    elif form == "paddle":
        res = PADDLE["method"](view, name, **paddle_kw(a), generator=g)
    else:
        res = call(view, a, g)
    CALLS[name] += 1
    assert res is view and view.dtype.name == dtype and tuple(view.shape) == (n,)
    assert (np_of(other) == 7.0).all(), f"{name} wrote outside the view"
    x = np_of(view).astype(np.float64)
    d = dist(a)
    assert np.isfinite(x).all() or name == "cauchy_"
    if name == "uniform_":
        # the bounds as the dtype holds them (a float32 draw may round up to `to`'s
        # float32 value when that is below `to`)
        lo, hi = (float(np.asarray(b, dtype)) for b in (a[0], a[0] + a[1]))
        assert x.min() >= lo and (x.max() < hi or (dtype == "float32" and x.max() <= hi))
    if name in ("exponential_", "log_normal_"):
        assert (x >= 0).all()
    ks(x, d.cdf, f"{name}{a} {form} {dtype}")
    # the same generator state repeats the values
    g.manual_seed(seed)
    again = call(fg.empty(n, dtype=dtype), a, g)
    assert np.array_equal(np_of(again), x), f"{name}: seed did not repeat"


@FUZZ
@given(st.data())
def test_geometric_(data):
    """PyTorch's geometric_: the trial count of the first success, P(k) = (1-p)^(k-1) p,
    k = 1, 2, ... (float and integer tensors); in Paddle code Paddle's continuous
    log(u) / log(1-p), an exponential of rate -log(1-p) (docs/dialects.md)."""
    seed = data.draw(SEEDS)
    p = data.draw(st.floats(0.05, 0.95))
    dtype = data.draw(st.sampled_from(["float32", "float64", "int64", "int32"]))
    g = fg.Generator().manual_seed(seed)
    t = fg.zeros(3000, dtype=dtype)
    assert t.geometric_(p, generator=g) is t
    CALLS["geometric_"] += 1
    x = np_of(t).astype(np.int64)
    assert x.min() >= 1, "geometric_: counts start at 1"
    kmax = max(2, int(stats.geom(p).ppf(0.99)))
    probs = [stats.geom(p).pmf(k) for k in range(1, kmax)] + [stats.geom(p).sf(kmax - 1)]
    categorical(np.minimum(x, kmax) - 1, probs, f"geometric_({p})")
    # Paddle's continuous form
    if dtype.startswith("float"):
        g.manual_seed(seed)
        t = fg.zeros(3000, dtype=dtype)
        PADDLE["method"](t, "geometric_", probs=p, generator=g)
        CALLS["geometric_"] += 1
        x = np_of(t).astype(np.float64)
        ks(x, stats.expon(scale=-1 / math.log1p(-p)).cdf, f"paddle geometric_({p})")


RANDOM_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"] + FLOAT_DTYPES
#: random_()'s default range, [0, hi) (PyTorch: [0, 2**mantissa] for floats, [0, max]
#: for integers; int64's largest exclusive bound an int64 holds is 2**63 - 1)
RANDOM_DEFAULT = {
    "bool": 2,
    "uint8": 256,
    "int8": 128,
    "int16": 2**15,
    "int32": 2**31,
    "int64": 2**63 - 1,
    "float16": 2**11 + 1,
    "float32": 2**24 + 1,
    "float64": 2**53 + 1,
}


@FUZZ
@given(st.sampled_from(RANDOM_DTYPES), st.data())
def test_random_(dtype, data):
    """random_() (the dtype's whole default range: floats [0, 2^mantissa]), random_(to)
    and random_(from, to), integers uniform in [from, to), bool / uint8 / int8 / float16
    ... included."""
    seed = data.draw(SEEDS)
    g = fg.Generator().manual_seed(seed)
    t = fg.zeros(2000, dtype=dtype)
    form = data.draw(st.sampled_from(["default", "to", "from_to", "kw"]))
    lo_min, hi_max = EXACT[dtype]
    if form == "default":
        lo, hi = 0, RANDOM_DEFAULT[dtype]
        res = t.random_(generator=g)
    else:
        span = data.draw(st.sampled_from([1, 2, 5, 40, 1000, 2**20, 2**40]))
        lo = 0 if form == "to" else data.draw(st.integers(lo_min, max(lo_min, hi_max)))
        hi = min(lo + span, hi_max + 1)
        if form == "to":
            res = t.random_(hi, generator=g)
        elif form == "kw":
            res = t.random_(**{"from": lo, "to": hi}, generator=g)
        else:
            res = t.random_(lo, hi, generator=g)
    CALLS["random_"] += 1
    assert res is t and t.dtype.name == dtype
    x = np_of(t)
    if dtype == "int64" and form == "default":
        # uniform over [0, 2**63 - 1): checked on the scaled values (the exact low bits
        # are test_randint_int64_exact_regression's)
        ks(x.astype(np.float64) / 2.0**63, stats.uniform().cdf, "random_() int64")
        return
    discrete_uniform(x, lo, hi, f"random_ {form} [{lo}, {hi}) {dtype}", seed)


# ---------------------------------------------------------------- bernoulli
@FUZZ
@given(st.data())
def test_bernoulli(data):
    """bernoulli(p tensor) (values in {0, 1}, p's shape and dtype), bernoulli_(p float)
    and bernoulli_(p tensor, broadcast): the count of ones per probability is binomial;
    p = 0 and p = 1 are exact."""
    seed = data.draw(SEEDS)
    g = fg.Generator().manual_seed(seed)
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    ps = data.draw(
        st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0])), min_size=1, max_size=4)
    )
    reps = 1500
    probs = np.repeat(np.asarray(ps, dtype=dtype)[None, :], reps, axis=0)
    kind = data.draw(st.sampled_from(["fn", "method", "inplace_t", "inplace_f"]))
    if kind == "fn":
        out = fg.bernoulli(fg.tensor(probs), generator=g)
    elif kind == "method":
        out = fg.tensor(probs).bernoulli(generator=g)
    elif kind == "inplace_t":
        out = fg.zeros([reps, len(ps)], dtype=dtype)
        p_t = fg.tensor(np.asarray(ps, dtype=dtype))  # broadcast over the rows
        assert out.bernoulli_(p_t, generator=g) is out
    else:  # a float p into a tensor of any dtype
        dtype = data.draw(st.sampled_from([dtype, "float16", "int64", "uint8", "bool"]))
        out = fg.zeros([reps * len(ps)], dtype=dtype)
        assert out.bernoulli_(float(ps[0]), generator=g) is out
        probs = np.full((reps * len(ps), 1), float(ps[0]))
    CALLS["bernoulli"] += 1
    assert out.dtype.name == dtype
    x = np_of(out).astype(np.float64).reshape(probs.shape[0], -1)
    assert np.isin(x, [0.0, 1.0]).all(), f"bernoulli drew {np.unique(x)}"
    for j in range(x.shape[1]):
        # the probability as the sampler saw it (float32 or float64)
        binom(int(x[:, j].sum()), x.shape[0], float(probs[0, j]), f"bernoulli {kind}")


# ---------------------------------------------------------------- multinomial
@FUZZ
@given(st.data())
def test_multinomial(data):
    """multinomial with / without replacement, 1-D and 2-D, unnormalised weights with
    zero classes (never drawn), rows of one class: counts follow the weights
    (replacement: every draw; without: the first draw), draws of a row distinct."""
    seed = data.draw(SEEDS)
    g = fg.Generator().manual_seed(seed)
    k = data.draw(st.integers(1, 6))
    w = np.asarray(
        data.draw(st.lists(st.one_of(st.floats(0.05, 10), st.just(0.0)), min_size=k, max_size=k))
    )
    if not (w > 0).any():
        w[data.draw(st.integers(0, k - 1))] = data.draw(st.floats(0.05, 10))
    nonzero = int((w > 0).sum())
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    replacement = data.draw(st.booleans())
    two_d = data.draw(st.booleans())
    if replacement:
        n = data.draw(st.sampled_from([1, 3]))
        rows = 1500 // n if two_d else 1
        per_row = n if two_d else 1500
        weights = fg.tensor(np.tile(w, (rows, 1)) if two_d else w, dtype=dtype)
        per_row = data.draw(st.sampled_from([int, np.int64, fg.tensor]))(per_row)
        out = fg.multinomial(weights, per_row, replacement=True, generator=g)
        CALLS["multinomial"] += 1
        assert out.dtype == fg.int64
        assert tuple(out.shape) == ((rows, int(per_row)) if two_d else (int(per_row),))
        categorical(np_of(out), w.astype(dtype), f"multinomial replacement w={w}")
        return
    n = data.draw(st.integers(1, nonzero))
    rows = 1200
    weights = fg.tensor(np.tile(w, (rows, 1)), dtype=dtype)
    out = (
        weights.multinomial(n, generator=g)
        if data.draw(st.booleans())
        else (fg.multinomial(weights, n, False, generator=g))
    )
    CALLS["multinomial"] += 1
    assert tuple(out.shape) == (rows, n) and out.dtype == fg.int64
    x = np_of(out)
    assert all(len(set(r)) == n for r in x.tolist()), "multinomial repeated a category"
    assert (w[x] > 0).all(), "multinomial drew a zero-weight category"
    categorical(x[:, 0], w.astype(dtype), f"multinomial first draw w={w}")
    if n >= 2 and nonzero > 2:
        # the ordered pair of the first two draws: P(i, j) = w_i / W * w_j / (W - w_i)
        wd = w.astype(dtype).astype(np.float64)
        tot = wd.sum()
        pair = np.outer(wd / tot, wd) / (tot - wd)[:, None]
        np.fill_diagonal(pair, 0.0)
        codes = x[:, 0] * k + x[:, 1]
        probs = pair.ravel()
        # cells expected fewer than 5 times are pooled into one
        big = probs * rows >= 5
        obs = np.bincount(codes, minlength=k * k)
        o = np.append(obs[big], obs[~big].sum())
        e = np.append(probs[big], probs[~big].sum()) * rows
        keep = e > 0
        pv = stats.chisquare(o[keep], e[keep] * o.sum() / e[keep].sum()).pvalue
        assert pv > ALPHA, f"multinomial pair order w={w}: p-value {pv:.3g}"
    if nonzero == n:
        # every positive category once per row
        np.testing.assert_array_equal(np.sort(x, axis=1), np.tile(np.flatnonzero(w), (rows, 1)))
    # a 1-D row
    one = fg.multinomial(fg.tensor(w, dtype=dtype), n, generator=g)
    CALLS["multinomial"] += 1
    assert tuple(one.shape) == (n,) and len(set(one.tolist())) == n
    # more samples than positive categories without replacement is an error
    with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
        fg.multinomial(fg.tensor(w, dtype=dtype), nonzero + 1)
    bad = w.copy()
    bad[data.draw(st.integers(0, k - 1))] = data.draw(st.sampled_from([-1.0, np.inf, np.nan]))
    with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
        fg.multinomial(fg.tensor(bad, dtype=dtype), 1, data.draw(st.booleans()))


# ---------------------------------------------------------------- randperm
@FUZZ
@given(st.data())
def test_randperm(data):
    """randperm(n): a permutation of 0..n-1 (n = 0, 1, large), int64 unless `dtype`;
    the position of each value is uniform."""
    seed = data.draw(SEEDS)
    g = fg.Generator().manual_seed(seed)
    n = data.draw(st.one_of(st.integers(0, 10), st.sampled_from([100, 2049, 10**5])))
    dtype = data.draw(st.sampled_from([None, "int32", "int64", "float32", "float64", "int16"]))
    if dtype == "int16":
        n = min(n, 2**15)
    # n spelt as anything with __index__, as PyTorch takes it
    spelled = data.draw(st.sampled_from([int, np.int64, np.int32, fg.tensor]))(n)
    out = (
        fg.randperm(spelled, generator=g)
        if dtype is None
        else fg.randperm(spelled, dtype=dtype, generator=g)
    )
    CALLS["randperm"] += 1
    assert out.dtype.name == (dtype or "int64") and tuple(out.shape) == (n,)
    np.testing.assert_array_equal(np.sort(np_of(out)), np.arange(n), err_msg="not a permutation")
    # where 0 lands over many small permutations
    m = data.draw(st.integers(2, 6))
    first = [fg.randperm(m, generator=g).tolist().index(0) for _ in range(300)]
    CALLS["randperm"] += 1
    categorical(first, np.ones(m), f"randperm({m}) position of 0")
    with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
        fg.randperm(-data.draw(st.integers(1, 5)))


# ---------------------------------------------------------------- generators
def _samplers():
    """Every sampler that takes generator=: name -> call(g) returning a tensor."""
    x = fg.zeros(6)
    w = fg.tensor([0.2, 0.0, 0.5, 0.3])
    return {
        "rand": lambda g: fg.rand(6, generator=g),
        "randn": lambda g: fg.randn(2, 3, generator=g),
        "randint": lambda g: fg.randint(-5, 5, (6,), generator=g),
        "rand_like": lambda g: fg.rand_like(x, generator=g),
        "randn_like": lambda g: fg.randn_like(x, generator=g),
        "randint_like": lambda g: fg.randint_like(x, 0, 9, generator=g),
        "normal_tt": lambda g: fg.normal(fg.zeros(6), fg.ones(6), generator=g),
        "normal_ff": lambda g: fg.normal(1.0, 2.0, (6,), generator=g),
        "bernoulli": lambda g: fg.bernoulli(fg.full([6], 0.5), generator=g),
        "multinomial": lambda g: fg.multinomial(w, 5, True, generator=g),
        "multinomial_norep": lambda g: fg.multinomial(w, 3, generator=g),
        "randperm": lambda g: fg.randperm(8, generator=g),
        "uniform_": lambda g: fg.zeros(6).uniform_(-1, 1, generator=g),
        "normal_": lambda g: fg.zeros(6).normal_(generator=g),
        "exponential_": lambda g: fg.zeros(6).exponential_(generator=g),
        "geometric_": lambda g: fg.zeros(6).geometric_(0.3, generator=g),
        "cauchy_": lambda g: fg.zeros(6).cauchy_(generator=g),
        "log_normal_": lambda g: fg.zeros(6).log_normal_(generator=g),
        "random_": lambda g: fg.zeros(6).random_(0, 100, generator=g),
        "bernoulli_": lambda g: fg.zeros(6).bernoulli_(0.5, generator=g),
        "bernoulli_t": lambda g: fg.zeros(6).bernoulli_(fg.full([6], 0.3), generator=g),
        "paddle.uniform": lambda g: fg.uniform([6], min=-2.0, max=2.0, generator=g),
    }


SAMPLERS = _samplers()


@FUZZ
@given(st.lists(st.sampled_from(sorted(SAMPLERS)), min_size=1, max_size=4), st.data())
def test_generator_streams(names, data):
    """Every sampler's generator=: seeding repeats the draws, the default generator is
    not advanced, two generators are independent, get_state / set_state round trips
    (also into another generator), initial_seed reports the seed."""
    seed = data.draw(st.integers(-(2**63), 2**64 - 1))
    g = fg.Generator()
    assert g.manual_seed(seed) is g
    assert g.initial_seed() == seed % 2**64
    default_before = fg.get_rng_state()
    first = [SAMPLERS[n](g) for n in names]
    CALLS["generator"] += len(names)
    assert same(fg.get_rng_state(), default_before), "generator= advanced the default"
    # reseeding repeats; draws from another generator and the default in between do not
    # change this one's stream
    g.manual_seed(seed)
    other = fg.Generator().manual_seed(seed)
    for n, want in zip(names, first):
        SAMPLERS[n](other)
        SAMPLERS[n](None)
        got = SAMPLERS[n](g)
        CALLS["generator"] += 1
        assert same(got, want), f"{n}: the stream changed after reseeding"
    # get_state / set_state
    state = g.get_state()
    assert state.dtype == fg.int64
    a = [SAMPLERS[n](g) for n in names]
    g.set_state(state)
    b = [SAMPLERS[n](g) for n in names]
    h = fg.Generator().manual_seed(seed ^ 12345)
    h.set_state(state)
    c = [SAMPLERS[n](h) for n in names]
    CALLS["generator"] += 3 * len(names)
    for n, x, y, z in zip(names, a, b, c):
        assert same(x, y) and same(x, z), f"{n}: set_state did not rewind"
    assert h.initial_seed() == seed % 2**64
    # the same generator stream under the default: manual_seed reproduces it
    fg.manual_seed(seed)
    d = [SAMPLERS[n](None) for n in names]
    fg.manual_seed(seed)
    e = [SAMPLERS[n](None) for n in names]
    assert fg.initial_seed() == seed % 2**64
    for n, x, y in zip(names, d, e):
        assert same(x, y), f"{n}: manual_seed did not repeat"


@FUZZ
@given(st.data())
def test_rng_state_and_seed(data):
    """get_rng_state / set_rng_state rewind the default generator (Paddle's one-element
    list too), seed() returns the seed it used, paddle.seed(n) reseeds; draws of every
    dtype repeat under the same seed; a Generator's state survives a set_state with its
    own state even when the words are negative int64s."""
    seed = data.draw(SEEDS)
    fg.manual_seed(seed)
    fg.rand(data.draw(st.integers(0, 5)))
    state = fg.get_rng_state()
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    a = fg.randn(50, dtype=dtype)
    b = fg.randint(0, 10, (5,))
    fg.set_rng_state(state if data.draw(st.booleans()) else [state])
    CALLS["rng_state"] += 1
    assert same(fg.randn(50, dtype=dtype), a) and same(fg.randint(0, 10, (5,)), b)
    s = fg.seed()
    assert isinstance(s, int) and fg.initial_seed() == s
    g = fg.Generator()
    gs = g.seed()
    assert isinstance(gs, int) and g.initial_seed() == gs
    r = fg.rand(4, generator=g)
    assert same(fg.rand(4, generator=fg.Generator().manual_seed(gs)), r)
    x = fg.rand(10)
    fg.manual_seed(s)
    assert same(fg.rand(10), x), "seed() did not report the seed it used"
    gen = PADDLE["call"]("seed", seed)
    CALLS["rng_state"] += 1
    assert gen is fg.default_generator and fg.initial_seed() == seed
    y = PADDLE["call"]("rand", [7], dtype)
    PADDLE["call"]("seed", seed)
    assert same(PADDLE["call"]("rand", [7], dtype), y)
    # the state tensor holds words >= 2**63 as negative int64s: they must round trip
    g = fg.Generator().manual_seed(seed)
    st_words = g.get_state()
    g2 = fg.Generator()
    g2.set_state(fg.tensor(st_words.tolist(), dtype=fg.int64))
    assert same(fg.rand(5, generator=g), fg.rand(5, generator=g2))
    # torch.random: the same functions; fork_rng restores the default stream on exit
    # (an exception inside too), enabled=False forks nothing
    torch.random.manual_seed(seed)
    assert torch.random.initial_seed() == seed
    enabled = data.draw(st.booleans())
    raise_inside = data.draw(st.booleans())
    devices = data.draw(st.sampled_from([None, [], [0]]))
    inside = None
    try:
        with torch.random.fork_rng(devices, enabled=enabled):
            inside = fg.rand(data.draw(st.integers(1, 20)))
            if raise_inside:
                raise KeyError("inside fork_rng")
    except KeyError:
        assert raise_inside
    CALLS["fork_rng"] += 1
    after = fg.rand(6)
    torch.random.set_rng_state(torch.random.get_rng_state())
    fg.manual_seed(seed)
    if not enabled:
        fg.rand(inside.numel())  # the draws inside advanced the default stream
    assert same(fg.rand(6), after), f"fork_rng(enabled={enabled}) did not restore the state"


# ---------------------------------------------------------------- Paddle's spellings
@FUZZ
@given(st.data())
def test_paddle_samplers(data):
    """Paddle's rand / randn / randint / uniform / normal / randint_like / multinomial /
    bernoulli / randperm with Paddle's argument names (shape, min / max, mean / std,
    dtype) and defaults (float32, int64; randint's shape [1]; randint(high))."""
    seed = data.draw(SEEDS)
    call = PADDLE["call"]
    call("seed", seed)
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    spelled = data.draw(st.sampled_from([list, tuple]))(shape)
    if data.draw(st.booleans()):
        spelled = fg.tensor(shape, dtype=data.draw(st.sampled_from(["int32", "int64"])))
    name = data.draw(
        st.sampled_from(
            ["rand", "randn", "standard_normal", "uniform", "randint", "normal", "randperm"]
        )
    )
    dtype = data.draw(st.sampled_from([None, "float32", "float64"]))
    if name in ("rand", "randn", "standard_normal"):
        if dtype is None:
            out = call(name, spelled)
        elif isinstance(spelled, fg.Tensor):
            # a tensor shape with a positional dtype is refused
            # (test_paddle_tensor_shape_positional_dtype_regression)
            out = call(name, spelled, dtype=dtype)
        else:
            out = call(name, spelled, dtype)
        assert out.dtype.name == (dtype or "float32") and list(out.shape) == shape
        n = 2000
        big = call(name, shape=[n], dtype=dtype)
        ks(np_of(big), (stats.uniform() if name == "rand" else stats.norm()).cdf, f"paddle {name}")
    elif name == "uniform":
        lo = data.draw(st.floats(-5, 5))
        hi = lo + data.draw(st.floats(0.1, 5))
        out = call("uniform", spelled, dtype=dtype, min=lo, max=hi)
        if not isinstance(spelled, fg.Tensor):
            out = call("uniform", spelled, dtype, lo, hi)
        assert out.dtype.name == (dtype or "float32") and list(out.shape) == shape
        big = call("uniform", shape=[2000], dtype=dtype or "float64", min=lo, max=hi)
        ks(np_of(big), stats.uniform(lo, hi - lo).cdf, f"paddle uniform({lo}, {hi})")
        # a non-zero seed repeats the same values on every call
        s = data.draw(st.integers(1, 2**31))
        assert same(
            call("uniform", [50], min=lo, max=hi, seed=s),
            call("uniform", [50], min=lo, max=hi, seed=s),
        )
    elif name == "randint":
        lo = data.draw(st.integers(-50, 50))
        hi = lo + data.draw(st.integers(1, 60))
        idt = data.draw(st.sampled_from([None, "int32", "int64"]))
        out = call("randint", lo, hi, spelled, idt)
        assert out.dtype.name == (idt or "int64") and list(out.shape) == shape
        discrete_uniform(np_of(out), lo, hi, "paddle randint")
        one = call("randint", low=lo, high=hi)
        assert list(one.shape) == [1] and one.dtype == fg.int64
        top = data.draw(st.integers(1, 30))
        big = call("randint", top, shape=[1500])  # high=None: [0, low)
        discrete_uniform(np_of(big), 0, top, "paddle randint(high)")
        big = call("randint", low=lo, high=hi, shape=[1500], dtype=idt)
        discrete_uniform(np_of(big), lo, hi, "paddle randint(low, high)")
    elif name == "normal":
        mean = data.draw(st.floats(-5, 5))
        std = data.draw(st.floats(0.1, 4))
        out = call("normal", mean, std, spelled)
        assert out.dtype == fg.float32 and list(out.shape) == shape
        big = call("normal", mean=mean, std=std, shape=[2000])
        ks(np_of(big), stats.norm(mean, std).cdf, f"paddle normal({mean}, {std})")
        m = fg.full([2000], mean, dtype=dtype or "float64")
        big = call("normal", mean=m, std=std)
        assert big.dtype == m.dtype and list(big.shape) == [2000]
        ks(np_of(big), stats.norm(mean, std).cdf, "paddle normal(Tensor mean)")
        s = fg.full([2000], std, dtype=dtype or "float64")
        big = call("normal", mean, s)
        assert big.dtype == s.dtype and list(big.shape) == [2000]
        ks(np_of(big), stats.norm(mean, std).cdf, "paddle normal(Tensor std)")
    else:
        n = data.draw(st.integers(0, 50))
        idt = data.draw(st.sampled_from([None, "int32", "int64", "float32"]))
        out = call("randperm", n) if idt is None else call("randperm", n, idt)
        assert out.dtype.name == (idt or "int64")
        np.testing.assert_array_equal(np.sort(np_of(out)), np.arange(n))
    CALLS["paddle." + name] += 1
    # randint_like (x's dtype by default), bernoulli, multinomial
    x = fg.zeros(shape, dtype=data.draw(st.sampled_from(["float32", "float64", "int32", "int64"])))
    lo, hi = -3, data.draw(st.integers(-2, 20))
    to = data.draw(st.sampled_from([None, "int32", "int64", "float64"]))
    out = call("randint_like", x, lo, hi) if to is None else call("randint_like", x, lo, hi, to)
    assert out.dtype.name == (to or x.dtype.name) and out.shape == x.shape
    discrete_uniform(np_of(out), lo, hi, "paddle randint_like")
    p = data.draw(st.floats(0, 1))
    out = call("bernoulli", fg.full([3000], p, dtype="float64"))
    assert out.dtype == fg.float64 and np.isin(np_of(out), [0, 1]).all()
    binom(int(np_of(out).sum()), 3000, p, "paddle bernoulli")
    w = np.asarray([0.0, 2.0, 1.0, 0.0, 3.0])
    out = call("multinomial", fg.tensor(w), 2000, True)
    assert out.dtype == fg.int64
    categorical(np_of(out), w, "paddle multinomial")
    CALLS["paddle.randint_like"] += 1
    CALLS["paddle.bernoulli"] += 1
    CALLS["paddle.multinomial"] += 1


# ---------------------------------------------------------------- dropout
def _dropout_check(x, out, p, scale, what, dropped_value=0.0):
    """`out` is `x * scale` where kept and `dropped_value` where dropped; returns the
    kept mask."""
    xs, ys = np_of(x).astype(np.float64), np_of(out).astype(np.float64)
    kept_val = xs * scale
    tol = (
        1e-6 * (1 + np.abs(kept_val)) if out.dtype == fg.float32 else 1e-12 * (1 + np.abs(kept_val))
    )
    if out.dtype == fg.float16:
        tol = 2e-3 * (1 + np.abs(kept_val))
    is_kept = np.abs(ys - kept_val) <= tol
    is_dropped = np.abs(ys - dropped_value) <= tol
    assert (is_kept | is_dropped).all(), f"{what}: values neither kept nor dropped\n{xs}\n{ys}"
    assert not (is_kept & is_dropped).any(), f"{what}: inputs must stay away from 0"
    return is_kept


@FUZZ
@given(st.data())
def test_dropout(data):
    """F.dropout: p = 0 is the identity, p = 1 zeroes, otherwise each element is dropped
    with probability p and kept ones scaled by 1/(1-p); training=False is the identity;
    inplace writes the input; nn.Dropout in train / eval; the gradient is the same mask
    times the scale."""
    seed = data.draw(SEEDS)
    dtype = data.draw(st.sampled_from(["float16", "float32", "float64"]))
    p = data.draw(st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0.01, 0.99)))
    a, t = data.draw(viewed(dtype, special=False, lo=0.5, hi=4.0))
    fg.manual_seed(seed)
    form = data.draw(st.sampled_from(["F", "module", "inplace"]))
    if form == "F":
        out = F.dropout(t, p, training=True)
    elif form == "module":
        m = nn.Dropout(p)
        assert m.training
        out = m(t)
    else:
        src = t.clone()
        out = F.dropout(src, p, True, True)
        assert out is src
    CALLS["dropout"] += 1
    assert out.shape == t.shape and out.dtype.name == dtype
    if p == 1.0:
        np.testing.assert_array_equal(np_of(out), np.zeros(a.shape))
    elif p == 0.0:
        np.testing.assert_array_equal(np_of(out), a)
    else:
        _dropout_check(t, out, p, 1 / (1 - p), "dropout")
    # eval / training=False: the identity
    m = nn.Dropout(p)
    m.eval()
    np.testing.assert_array_equal(np_of(m(t)), a)
    np.testing.assert_array_equal(np_of(F.dropout(t, p, training=False)), a)
    CALLS["dropout"] += 2
    # the dropped fraction on a large input
    if 0 < p < 1:
        big = fg.ones(4000, dtype=dtype) * 1.5
        kept = _dropout_check(big, F.dropout(big, p), p, 1 / (1 - p), "dropout (large)")
        binom(int((~kept).sum()), 4000, p, f"dropout({p}) dropped count")
        CALLS["dropout"] += 1
    # the gradient: the same mask times the scale
    xs = np.asarray(data.draw(st.lists(st.floats(0.5, 3), min_size=1, max_size=30)))
    u = fg.tensor(xs, dtype="float64", requires_grad=True)
    fg.manual_seed(seed)
    y = F.dropout(u, p)
    gout = np.asarray(data.draw(st.lists(st.floats(-2, 2), min_size=xs.size, max_size=xs.size)))
    y.backward(fg.tensor(gout))
    scale = 0.0 if p == 1.0 else 1 / (1 - p)
    keep = np_of(y) != 0
    np.testing.assert_allclose(np_of(y), xs * keep * scale, rtol=1e-14)
    np.testing.assert_allclose(np_of(u.grad), gout * keep * scale, rtol=1e-14)
    CALLS["dropout grad"] += 1
    if 0 < p < 1:
        grad_ok(lambda v: (fg.manual_seed(seed), F.dropout(v, p))[1], xs[:5], second=True)


@FUZZ
@given(st.sampled_from([1, 2, 3]), st.data())
def test_dropout_nd(k, data):
    """dropout1d / 2d / 3d (and nn.Dropout1d/2d/3d) zero whole channels of [N, C, *]
    (or unbatched [C, *]; dropout2d reads a 3-D input as [N, C, L]) and scale the rest
    by 1/(1-p); the fraction of dropped channels is near p; eval is the identity."""
    seed = data.draw(SEEDS)
    p = data.draw(st.floats(0.05, 0.95))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    unbatched = data.draw(st.booleans())
    spatial = data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k))
    if k == 2 and unbatched:
        spatial = spatial[:1]  # [N, C, L]: PyTorch's 3-D reading of dropout2d
    n, c = 40, data.draw(st.integers(1, 6))
    shape = ([] if unbatched and k != 2 else [n]) + [c] + spatial
    x = np.abs(np.random.default_rng(seed).standard_normal(shape)) + 0.5
    t = fg.tensor(x, dtype=dtype)
    fg.manual_seed(seed)
    if data.draw(st.booleans()):
        out = getattr(F, f"dropout{k}d")(t, p, True)
    else:
        out = getattr(nn, f"Dropout{k}d")(p)(t)
    CALLS[f"dropout{k}d"] += 1
    assert out.shape == t.shape and out.dtype.name == dtype
    kept = _dropout_check(t, out, p, 1 / (1 - p), f"dropout{k}d")
    lead = 1 if (unbatched and k != 2) else 2
    per_channel = kept.reshape(int(np.prod(shape[:lead])), -1)
    assert (per_channel.all(axis=1) | ~per_channel.any(axis=1)).all(), "channel split"
    dropped = int((~per_channel[:, 0]).sum())
    binom(dropped, per_channel.shape[0], p, f"dropout{k}d dropped channels")
    m = getattr(nn, f"Dropout{k}d")(p)
    m.eval()
    np.testing.assert_array_equal(np_of(m(t)), np_of(t))
    np.testing.assert_array_equal(np_of(getattr(F, f"dropout{k}d")(t, p, False)), np_of(t))
    # the gradient is the same channel mask times the scale
    u = fg.tensor(x, dtype="float64", requires_grad=True)
    fg.manual_seed(seed)
    y = getattr(F, f"dropout{k}d")(u, p)
    y.sum().backward()
    np.testing.assert_allclose(np_of(u.grad), (np_of(y) != 0) / (1 - p), rtol=1e-14)
    CALLS[f"dropout{k}d grad"] += 1
    if k == 1:
        return
    # Paddle's data_format: channels last ("NHWC" / "NDHWC") drops x[n, ..., c] whole
    last = data.draw(st.booleans())
    fmt = ("NHWC" if k == 2 else "NDHWC") if last else ("NCHW" if k == 2 else "NCDHW")
    pshape = [n] + data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k)) + [c]
    xp = np.abs(np.random.default_rng(seed + 1).standard_normal(pshape)) + 0.5
    if not last:
        xp = np.moveaxis(xp, -1, 1)
    tp = fg.tensor(xp, dtype=dtype)
    if data.draw(st.booleans()):
        out = PADDLE["functional"](f"dropout{k}d", tp, p, True, fmt)
    else:
        out = PADDLE["layer"](f"Dropout{k}D", p, data_format=fmt)(tp)
    CALLS[f"paddle dropout{k}d"] += 1
    kept = _dropout_check(tp, out, p, 1 / (1 - p), f"paddle dropout{k}d {fmt}")
    if not last:
        kept = np.moveaxis(kept, 1, -1)
    per_channel = np.moveaxis(kept, -1, 1).reshape(n * c, -1)
    assert (per_channel.all(axis=1) | ~per_channel.any(axis=1)).all(), f"{fmt}: channel split"
    binom(int((~per_channel[:, 0]).sum()), n * c, p, f"paddle dropout{k}d {fmt} channels")


ALPHA_P = 1.7580993408473766  # SELU's scale * alpha


@FUZZ
@given(st.sampled_from(["alpha_dropout", "feature_alpha_dropout"]), st.data())
def test_alpha_dropout(name, data):
    """alpha_dropout / feature_alpha_dropout (and nn.AlphaDropout / FeatureAlphaDropout)
    per PyTorch's formula: kept x -> a x + a alpha p, dropped -> a alpha (p - 1) with
    a = ((1-p)(1 + p alpha^2))^-1/2; standard-normal input keeps mean 0 and variance 1;
    training=False (the functional default) and eval are the identity."""
    seed = data.draw(SEEDS)
    p = data.draw(st.floats(0.05, 0.9))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    feature = name == "feature_alpha_dropout"
    shape = [500, 8, 2] if feature else [data.draw(st.sampled_from([4000, 8000]))]
    x = np.random.default_rng(seed).standard_normal(shape)
    t = fg.tensor(x, dtype=dtype)
    fg.manual_seed(seed)
    if data.draw(st.booleans()):
        out = getattr(F, name)(t, p, True)
    else:
        out = getattr(nn, "FeatureAlphaDropout" if feature else "AlphaDropout")(p)(t)
    CALLS[name] += 1
    assert out.shape == t.shape and out.dtype.name == dtype
    a = 1.0 / math.sqrt((ALPHA_P**2 * p + 1) * (1 - p))
    xs = np_of(t).astype(np.float64)
    ys = np_of(out).astype(np.float64)
    kept_val = a * xs + a * ALPHA_P * p
    drop_val = a * ALPHA_P * (p - 1)
    tol = 1e-5 if dtype == "float32" else 1e-12
    is_kept = np.abs(ys - kept_val) <= tol * (1 + np.abs(kept_val))
    is_drop = np.abs(ys - drop_val) <= tol * (1 + abs(drop_val))
    assert (is_kept | is_drop).all(), f"{name}: values off the formula"
    if feature:
        ch = is_kept.reshape(500 * 8, -1)
        chd = is_drop.reshape(500 * 8, -1)
        whole = ch.all(axis=1) | chd.all(axis=1)
        assert whole.all(), f"{name}: a channel was split"
        binom(int((~ch.all(axis=1)).sum()), ch.shape[0], p, f"{name} dropped channels")
    else:
        binom(int((~is_kept).sum()), is_kept.size, p, f"{name} dropped count")
        # mean 0 and variance 1 are preserved (generous bounds: sd of the sample mean is
        # 1/sqrt(n), of the sample variance about sqrt(2/n) times the kurtosis factor)
        nn_ = ys.size
        assert abs(ys.mean()) < 8 / math.sqrt(nn_), f"{name}: mean {ys.mean()}"
        assert abs(ys.var() - 1) < 12 * math.sqrt(2 / nn_) * (1 + p), f"{name}: var {ys.var()}"
    # identity when not training
    np.testing.assert_array_equal(np_of(getattr(F, name)(t, p)), np_of(t))
    m = getattr(nn, "FeatureAlphaDropout" if feature else "AlphaDropout")(p)
    m.eval()
    np.testing.assert_array_equal(np_of(m(t)), np_of(t))
    # gradient: a where kept, 0 where dropped
    small = [3, 2, 2] if feature else [12]
    u = fg.tensor(x.ravel()[: int(np.prod(small))].reshape(small), requires_grad=True)
    fg.manual_seed(seed)
    y = getattr(F, name)(u, p, True)
    y.sum().backward()
    keep = np.abs(np_of(y) - drop_val) > 1e-12
    np.testing.assert_allclose(np_of(u.grad), keep * a, rtol=1e-12)
    CALLS[name + " grad"] += 1


@FUZZ
@given(st.data())
def test_rrelu(data):
    """F.rrelu / nn.RReLU: in training each negative element is scaled by a slope drawn
    uniformly in [lower, upper] (positive ones unchanged); in eval by (lower+upper)/2;
    the gradient is that slope."""
    seed = data.draw(SEEDS)
    # PyTorch code: any lower <= upper (Paddle's 0..1 limits: BAD, "paddle rrelu ...")
    lower = data.draw(st.floats(-0.5, 1.5))
    upper = lower + data.draw(st.floats(0.01, 1.5))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    n = 3000
    x = -np.abs(np.random.default_rng(seed).standard_normal(n)) - 0.1
    x[::7] *= -1  # some positive ones
    t = fg.tensor(x, dtype=dtype)
    fg.manual_seed(seed)
    out = F.rrelu(t, lower, upper, True) if data.draw(st.booleans()) else nn.RReLU(lower, upper)(t)
    CALLS["rrelu"] += 1
    assert out.shape == t.shape and out.dtype.name == dtype
    xs, ys = np_of(t).astype(np.float64), np_of(out).astype(np.float64)
    pos = xs >= 0
    np.testing.assert_array_equal(ys[pos], xs[pos])
    slope = ys[~pos] / xs[~pos]
    eps = 1e-6 if dtype == "float32" else 1e-12
    assert (slope >= lower - eps).all() and (slope <= upper + eps).all(), (slope.min(), slope.max())
    if upper - lower > 1e-3 and dtype == "float64":  # float32 rounds the slope
        ks(slope, stats.uniform(lower, upper - lower).cdf, f"rrelu slopes [{lower}, {upper}]")
    # eval: the fixed mean slope
    mid = (lower + upper) / 2
    m = nn.RReLU(lower, upper)
    m.eval()
    for got in (m(t), F.rrelu(t, lower, upper, False), F.rrelu(t, lower, upper)):
        want = np.where(pos, xs, xs * np.asarray(mid, dtype).astype(np.float64))
        np.testing.assert_allclose(np_of(got).astype(np.float64), want, rtol=2 * eps, atol=0)
    CALLS["rrelu"] += 3
    # the gradient in training is the drawn slope
    u = fg.tensor(x[:50], dtype="float64", requires_grad=True)
    fg.manual_seed(seed)
    y = F.rrelu(u, lower, upper, True)
    y.sum().backward()
    want = np.where(x[:50] >= 0, 1.0, np_of(y) / x[:50])
    np.testing.assert_allclose(np_of(u.grad), want, rtol=1e-12)
    CALLS["rrelu grad"] += 1


@FUZZ
@given(st.data())
def test_paddle_dropout(data):
    """Paddle's F.dropout: mode='upscale_in_train' (kept x/(1-p) in training, identity
    in inference) and 'downscale_in_infer' (kept x in training, x*(1-p) in inference);
    axis= draws one mask value per index of those dims."""
    seed = data.draw(SEEDS)
    p = data.draw(st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.05, 0.95)))
    mode = data.draw(st.sampled_from(["upscale_in_train", "downscale_in_infer"]))
    shape = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    shape = [40] + shape
    axis = data.draw(
        st.one_of(
            st.none(),
            st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True),
        )
    )
    if axis is not None and 0 not in axis and data.draw(st.booleans()):
        axis = axis + [0]
    x = np.abs(np.random.default_rng(seed).standard_normal(shape)) + 0.5
    t = fg.tensor(x, dtype="float64")
    fn = PADDLE["functional"]
    fg.manual_seed(seed)
    kw = {"p": p, "mode": mode, "training": True}
    if axis is not None:
        kw["axis"] = axis if len(axis) > 1 or data.draw(st.booleans()) else axis[0]
    if data.draw(st.booleans()):
        out = fn("dropout", t, **kw)
    else:  # the layer: paddle.nn.Dropout(p, axis, mode), in training by default
        kw.pop("training")
        out = PADDLE["layer"]("Dropout", **kw)(t)
    CALLS["paddle dropout"] += 1
    scale = (1 / (1 - p) if p < 1 else 0.0) if mode == "upscale_in_train" else 1.0
    if p == 1.0:
        np.testing.assert_array_equal(np_of(out), np.zeros(shape))
    elif p == 0.0:
        np.testing.assert_array_equal(np_of(out), x)
    else:
        kept = _dropout_check(t, out, p, scale, f"paddle dropout {mode} axis={axis}")
        if axis is not None:
            axes = sorted(set(axis))
            other = tuple(i for i in range(len(shape)) if i not in axes)
            # constant along the dims outside `axis`
            assert (kept.all(axis=other) | ~kept.any(axis=other)).all(), "mask varies"
            m = kept.all(axis=other) if other else kept
            binom(int((~m).sum()), m.size, p, "paddle dropout axis mask")
        else:
            binom(int((~kept).sum()), kept.size, p, "paddle dropout count")
    infer = fn(
        "dropout", t, p=p, training=False, mode=mode, **({} if axis is None else {"axis": axis})
    )
    CALLS["paddle dropout"] += 1
    want = x * (1 - p) if mode == "downscale_in_infer" else x
    np.testing.assert_allclose(np_of(infer), want, rtol=1e-15)


# ---------------------------------------------------------------- bad arguments
BAD = {
    "dropout p>1": lambda v: F.dropout(fg.ones(3), 1.0 + v),
    "dropout p<0": lambda v: F.dropout(fg.ones(3), -v),
    "dropout2d p": lambda v: F.dropout2d(fg.ones(2, 2, 2, 2), 1.0 + v),
    "dropout1d p": lambda v: F.dropout1d(fg.ones(2, 2, 2), -v),
    "dropout3d p": lambda v: F.dropout3d(fg.ones(2, 2, 2, 2, 2), 1.0 + v),
    "alpha_dropout p": lambda v: F.alpha_dropout(fg.ones(3), 1.0 + v, True),
    "feature_alpha_dropout p": lambda v: F.feature_alpha_dropout(fg.ones(2, 2, 2), -v, True),
    "nn.Dropout p": lambda v: nn.Dropout(1.0 + v)(fg.ones(3)),
    "rrelu lower>upper": lambda v: F.rrelu(fg.ones(3), 0.5, 0.5 - v / 4, True),
    "paddle rrelu upper>1": lambda v: PADDLE["functional"]("rrelu", fg.ones(3), 0.5, 1 + v, True),
    "paddle rrelu lower<0": lambda v: PADDLE["functional"]("rrelu", fg.ones(3), -v, 0.5, True),
    "paddle RReLU upper>1": lambda v: PADDLE["method"](  # (called by Paddle code)
        PADDLE["layer"]("RReLU", 0.5, 1 + v), "__call__", fg.ones(3)
    ),
    "randperm float": lambda v: fg.randperm(3.0 + v),
    "randperm bool tensor": lambda v: fg.randperm(fg.tensor(v > 1)),
    "multinomial float count": lambda v: fg.multinomial(fg.ones(3), 1.0 + v / 10),
    "randint low>=high": lambda v: fg.randint(int(v * 10), int(v * 10) - int(v), (3,)),
    "randint low==high": lambda v: fg.randint(3, 3, (2,)),
    "random_ from>=to": lambda v: fg.zeros(3).random_(5, 5 - int(v)),
    "uniform_ from>to": lambda v: fg.zeros(3).uniform_(1.0, 1.0 - v),
    "normal negative std": lambda v: fg.normal(0.0, -v, (3,)),
    "normal tensor negative std": lambda v: fg.normal(fg.zeros(3), fg.full([3], -v)),
    "normal_ negative std": lambda v: fg.zeros(3).normal_(0.0, -v),
    "log_normal_ negative std": lambda v: fg.zeros(3).log_normal_(0.0, -v),
    "cauchy_ negative sigma": lambda v: fg.zeros(3).cauchy_(0.0, -v),
    "exponential_ lambda<=0": lambda v: fg.zeros(3).exponential_(-v),
    "geometric_ p>1": lambda v: fg.zeros(3).geometric_(1.0 + v),
    "bernoulli p>1": lambda v: fg.bernoulli(fg.full([3], 1.0 + v)),
    "bernoulli_ p<0": lambda v: fg.zeros(3).bernoulli_(-v),
    "bernoulli nan": lambda v: fg.bernoulli(fg.tensor([0.5, float("nan")])),
    "randperm negative": lambda v: fg.randperm(-max(1, int(v))),
    "rand negative dim": lambda v: fg.rand(2, -max(1, int(v))),
    "randn negative dim": lambda v: fg.randn([-max(1, int(v))]),
    "randint negative dim": lambda v: fg.randint(0, 3, (-max(1, int(v)),)),
    "multinomial 0 samples": lambda v: fg.multinomial(fg.ones(3), 0),
    "multinomial too many": lambda v: fg.multinomial(fg.ones(3), 4),
    "multinomial zero row": lambda v: fg.multinomial(fg.tensor([[1.0, 2.0], [0.0, 0.0]]), 1),
    "multinomial 3-D": lambda v: fg.multinomial(fg.ones(2, 2, 2), 1),
    "randint range beyond int8": lambda v: fg.randint(0, 200 + int(v), (3,), dtype=fg.int8),
    "random_ beyond uint8": lambda v: fg.zeros(3, dtype=fg.uint8).random_(-1 - int(v), 3),
    "rand int dtype": lambda v: fg.rand(3, dtype=fg.int64),
    "paddle dropout bad mode": lambda v: PADDLE["functional"](
        "dropout", fg.ones(3), 0.5, mode="up"
    ),
    "paddle dropout axis out of range": lambda v: PADDLE["functional"](
        "dropout", fg.ones(3), 0.5, axis=1 + int(v)
    ),
}


@FUZZ
@given(st.sampled_from(sorted(BAD)), st.floats(0.001, 5))
def test_bad_arguments_raise(name, v):
    """Invalid arguments raise a Python exception (never a Rust panic, which is not an
    Exception subclass and so escapes pytest.raises)."""
    CALLS["bad arguments"] += 1
    with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
        BAD[name](v)


# ---------------------------------------------------------------- regressions
def test_randint_int64_exact_regression():
    low = 2**60 + 1
    out = fg.randint(low, low + 1, (4,))
    assert out.tolist() == [low] * 4  # gives 2**60, below low
    odd = fg.randint(2**62, 2**62 + 2**40, (1000,)).numpy() % 2
    assert 0 < odd.sum() < 1000  # every draw is even today


def test_randint_bool_range_regression():
    with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
        fg.randint(0, 5, (100,), dtype=fg.bool)  # silently P(True) = 0.8


def test_paddle_randint_like_positional_dtype_regression():
    out = PADDLE["call"]("randint_like", fg.zeros([3]), 0, 10, "int32")
    assert out.dtype == fg.int32


def test_paddle_standard_normal_regression():
    out = PADDLE["call"]("standard_normal", [2, 3])
    assert list(out.shape) == [2, 3] and out.dtype == fg.float32


def test_torch_random_fork_rng_regression():
    fg.manual_seed(3)
    with torch.random.fork_rng():
        torch.rand(5)
    assert same(fg.rand(3), (fg.manual_seed(3), fg.rand(3))[1])


def test_rrelu_upper_above_one_regression():
    fg.manual_seed(0)
    x = -fg.ones(1000, dtype=fg.float64)
    slope = -F.rrelu(x, 0.5, 1.5, training=True)
    assert 0.5 <= float(slope.min()) and float(slope.max()) <= 1.5


def test_paddle_tensor_shape_positional_dtype_regression():
    shape = fg.tensor([2, 3])
    out = PADDLE["call"]("rand", shape, "float64")
    assert list(out.shape) == [2, 3] and out.dtype == fg.float64
    assert PADDLE["call"]("randn", fg.tensor(3), "float64").dtype == fg.float64


def test_int_then_tensor_dims_regression():
    assert list(fg.rand(2, fg.tensor(3)).shape) == [2, 3]  # TypeError today


def test_numpy_int_counts_regression():
    assert sorted(fg.randperm(np.int64(5)).tolist()) == [0, 1, 2, 3, 4]
    assert list(fg.multinomial(fg.tensor([1.0, 2.0]), np.int64(3), True).shape) == [3]
