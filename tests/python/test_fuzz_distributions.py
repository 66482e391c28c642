"""Differential fuzzer for ``ferrograd.distributions`` (``torch.distributions``): every
family on random batch shapes and parameters in float64, checked against ``scipy.stats``
(or, where SciPy has no such family, float64 NumPy/SciPy references written from
PyTorch's documented formulas and checked by numeric integration): ``log_prob`` inside
the support, at and near its edges and outside it (``validate_args=True`` must raise
``ValueError`` there, ``validate_args=False`` must not), ``cdf``, ``icdf``, ``entropy``,
``mean``, ``mode``, ``variance``, ``stddev``; ``sample`` / ``rsample`` shapes with a
``sample_shape``, the support of the draws and a coarse moment / quantile check on many
draws under ``fg.manual_seed`` with generous deterministic bounds; gradients of
``log_prob`` and of ``rsample`` (under a fixed seed) with ``fg.autograd.gradcheck``;
``kl_divergence`` of the registered pairs against closed forms, numeric integration or
sums; and the transforms' round trips and ``log_abs_det_jacobian`` against a
finite-difference ``log |det J|``. This module is PyTorch code (``torch = fg`` below,
docs/dialects.md). Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import ferrograd as fg
import ferrograd.distributions as D
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from ferrograd.distributions import transforms as T
from fuzz_support import CALLS, FUZZ
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import integrate, special, stats

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

F64 = "float64"
batch_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


def t64(a, grad=False):
    t = fg.tensor(np.array(a, dtype=np.float64, order="C"), dtype=F64)  # keeps 0-d
    if grad:
        t.requires_grad = True
    return t


def check(got, want, what, rtol=1e-8, atol=1e-9, dtype=F64):
    """`got` (tensor) equals `want` (NumPy, float64): shape, dtype, NaN / inf positions
    exactly, finite values within rtol and atol."""
    assert isinstance(got, fg.Tensor), f"{what}: {type(got).__name__}, not a Tensor"
    g = got.detach().numpy().astype(np.float64)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    if dtype is not None:
        assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
    assert (np.isnan(g) == np.isnan(w)).all(), f"{what}: NaN positions\n{g}\n{w}"
    inf = np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf], err_msg=f"{what}: infinities")
    fin = np.isfinite(w)
    np.testing.assert_allclose(g[fin], w[fin], rtol=rtol, atol=atol, err_msg=what)


def grad_ok(fn, *arrays, eps=1e-6, atol=1e-5, rtol=1e-4):
    CALLS["gradcheck"] += 1
    inputs = tuple(t64(a, grad=True) for a in arrays)
    assert gradcheck(fn, inputs, eps=eps, atol=atol, rtol=rtol)


def param(draw, shape, lo, hi):
    """A float64 parameter array of `shape` or of a broadcastable part of it."""
    kind = draw(st.sampled_from(["full", "full", "scalar", "ones"]))
    if kind == "scalar":
        shape = ()
    elif kind == "ones" and shape:
        shape = tuple(1 if draw(st.booleans()) else d for d in shape)
    els = st.floats(lo, hi, allow_nan=False)
    return draw(hnp.arrays(np.float64, tuple(shape), elements=els))


# ---------------------------------------------------------------- scalar families
@dataclass
class Fam:
    """A scalar family: parameter ranges (name: (lo, hi)), ferrograd's constructor from
    tensors, SciPy's frozen distribution (or None) from arrays, and PyTorch's conventions
    where they differ from SciPy's (``mean`` / ``mode`` / ``variance`` / ``entropy``
    overrides from the parameter arrays)."""

    params: dict
    make: Callable
    ref: Callable | None
    discrete: bool = False
    support: Callable = lambda p: (-np.inf, np.inf)  # closed ends as PyTorch's support
    open_ends: tuple = (False, False)  # an end outside the support (validate raises)
    over: dict = field(default_factory=dict)
    methods: tuple = ("cdf", "icdf", "entropy", "mean", "mode", "variance")
    edge_ok: bool = True  # log_prob at the support's ends is SciPy's


def _nan_if(cond, v):
    return np.where(cond, np.nan, v)


def _gamma_mode(a, r):
    return np.clip((a - 1) / r, 0, None)


def _beta_mode(a, b):
    """PyTorch's: (a - 1) / (a + b - 2) where both exceed 1, else the end where the density
    peaks (1 when a > 1 >= b or both are below 1, 0 when b > 1 >= a); NaN at a = b = 1."""
    am, bm = np.maximum(a - 1, 0), np.maximum(b - 1, 0)
    with np.errstate(all="ignore"):
        inner = am / (am + bm)
    return np.where((a < 1) & (b < 1), 1.0, inner)


def _kuma_moment(a, b, n):
    return b * np.exp(special.betaln(1 + n / a, b))


def _kuma_entropy(a, b):
    """The published closed form (1 - 1/b) + (1 - 1/a) H_b - log(a b), H_b the harmonic
    number (quadrature loses ~1e-6 where both exponents are below 1)."""
    return (1 - 1 / b) + (1 - 1 / a) * (special.digamma(b + 1) + np.euler_gamma) - np.log(a * b)


def _kuma_mode(a, b):
    with np.errstate(all="ignore"):
        m = ((a - 1) / (a * b - 1)) ** (1 / a)
    return np.where((a < 1) | (b < 1), np.nan, m)


class Kumaraswamy:
    """SciPy-like frozen Kumaraswamy (PyTorch's formulas)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def logpdf(self, x):
        a, b = self.a, self.b
        with np.errstate(all="ignore"):
            return (
                np.log(a)
                + np.log(b)
                + special.xlogy(a - 1, x)
                + special.xlogy(b - 1, 1 - x**a)
                + np.where((x < 0) | (x > 1), -np.inf, 0)
            )

    def cdf(self, x):
        return 1 - (1 - x**self.a) ** self.b

    def ppf(self, u):
        return (1 - (1 - u) ** (1 / self.b)) ** (1 / self.a)

    def mean(self):
        return _kuma_moment(self.a, self.b, 1)

    def var(self):
        return _kuma_moment(self.a, self.b, 2) - _kuma_moment(self.a, self.b, 1) ** 2

    def entropy(self):
        return _kuma_entropy(self.a, self.b)


def _cb_lognorm(p):
    """log C(p) of the continuous Bernoulli, exactly (no Taylor band)."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(all="ignore"):
        exact = np.log(np.abs(2 * np.arctanh(1 - 2 * p))) - np.log(np.abs(1 - 2 * p))
    return np.where(np.abs(p - 0.5) < 1e-8, np.log(2.0), exact)


class ContinuousBernoulli:
    """SciPy-like frozen continuous Bernoulli from its density ``C(p) p^x (1-p)^(1-x)``
    (mean / variance / cdf in closed form, entropy by quadrature)."""

    def __init__(self, p):
        self.p = np.asarray(p, dtype=np.float64)

    def logpdf(self, x):
        p = self.p
        return special.xlogy(x, p) + special.xlog1py(1 - x, -p) + _cb_lognorm(p)

    def cdf(self, x):
        p = self.p
        with np.errstate(all="ignore"):
            c = (p**x * (1 - p) ** (1 - x) + p - 1) / (2 * p - 1)
        return np.clip(np.where(np.abs(p - 0.5) < 1e-8, x, c), 0, 1)

    def isf(self, u):
        return self.ppf(1 - u)

    def ppf(self, u):
        p = self.p
        with np.errstate(all="ignore"):
            q = (np.log1p(-p + u * (2 * p - 1)) - np.log1p(-p)) / (np.log(p) - np.log1p(-p))
        return np.where(np.abs(p - 0.5) < 1e-8, u, q)

    def mean(self):
        p = self.p
        with np.errstate(all="ignore"):
            m = p / (2 * p - 1) + 1 / (2 * np.arctanh(1 - 2 * p))
        return np.where(np.abs(p - 0.5) < 1e-6, 0.5 + (p - 0.5) / 3, m)

    def var(self):
        p = self.p
        with np.errstate(all="ignore"):
            v = p * (p - 1) / (1 - 2 * p) ** 2 + 1 / (2 * np.arctanh(1 - 2 * p)) ** 2
        return np.where(np.abs(p - 0.5) < 1e-6, 1 / 12 - (p - 0.5) ** 2 / 15, v)

    def entropy(self):
        def one(p):
            def f(x):
                lp = x * np.log(p) + (1 - x) * np.log1p(-p) + _cb_lognorm(p)
                return -np.exp(lp) * lp

            return integrate.quad(f, 0, 1, epsabs=1e-13, epsrel=1e-12)[0]

        return np.vectorize(one)(self.p)


def _weibull_mode(s, k):
    with np.errstate(all="ignore"):
        return s * ((k - 1) / k) ** (1 / k)  # PyTorch's formula: nan for k < 1


def _vm_var(k):
    return 1 - special.i1e(k) / special.i0e(k)


def _vm_entropy(k):
    return np.log(2 * np.pi * special.i0e(k)) + k - k * special.i1e(k) / special.i0e(k)


FAMILIES = {
    "Normal": Fam(
        {"loc": (-5, 5), "scale": (0.1, 5)},
        lambda p, v: D.Normal(p["loc"], p["scale"], validate_args=v),
        lambda p: stats.norm(p["loc"], p["scale"]),
        over={"mode": lambda p: p["loc"] + 0 * p["scale"]},
    ),
    "LogNormal": Fam(
        {"loc": (-2, 2), "scale": (0.1, 2)},
        lambda p, v: D.LogNormal(p["loc"], p["scale"], validate_args=v),
        lambda p: stats.lognorm(p["scale"], scale=np.exp(p["loc"])),
        support=lambda p: (0.0, np.inf),
        open_ends=(True, False),
        over={"mode": lambda p: np.exp(p["loc"] - p["scale"] ** 2)},
        methods=("cdf", "entropy", "mean", "mode", "variance"),
    ),
    "HalfNormal": Fam(
        {"scale": (0.1, 5)},
        lambda p, v: D.HalfNormal(p["scale"], validate_args=v),
        lambda p: stats.halfnorm(scale=p["scale"]),
        support=lambda p: (0.0, np.inf),
        over={"mode": lambda p: 0 * p["scale"]},
    ),
    "Cauchy": Fam(
        {"loc": (-5, 5), "scale": (0.1, 5)},
        lambda p, v: D.Cauchy(p["loc"], p["scale"], validate_args=v),
        lambda p: stats.cauchy(p["loc"], p["scale"]),
        over={
            "mean": lambda p: np.nan + p["loc"] + p["scale"],
            "variance": lambda p: np.inf + p["loc"] + p["scale"],
            "mode": lambda p: p["loc"] + 0 * p["scale"],
        },
    ),
    "HalfCauchy": Fam(
        {"scale": (0.1, 5)},
        lambda p, v: D.HalfCauchy(p["scale"], validate_args=v),
        lambda p: stats.halfcauchy(scale=p["scale"]),
        support=lambda p: (0.0, np.inf),
        over={
            "mean": lambda p: np.inf + p["scale"],
            "variance": lambda p: np.inf + p["scale"],
            "mode": lambda p: 0 * p["scale"],
        },
    ),
    "Laplace": Fam(
        {"loc": (-5, 5), "scale": (0.1, 5)},
        lambda p, v: D.Laplace(p["loc"], p["scale"], validate_args=v),
        lambda p: stats.laplace(p["loc"], p["scale"]),
        over={"mode": lambda p: p["loc"] + 0 * p["scale"]},
        methods=("cdf", "entropy", "mean", "mode", "variance"),
    ),
    "Exponential": Fam(
        {"rate": (0.1, 5)},
        lambda p, v: D.Exponential(p["rate"], validate_args=v),
        lambda p: stats.expon(scale=1 / p["rate"]),
        support=lambda p: (0.0, np.inf),
        over={"mode": lambda p: 0 * p["rate"]},
    ),
    "Gamma": Fam(
        {"concentration": (0.2, 8), "rate": (0.2, 5)},
        lambda p, v: D.Gamma(p["concentration"], p["rate"], validate_args=v),
        lambda p: stats.gamma(p["concentration"], scale=1 / p["rate"]),
        support=lambda p: (0.0, np.inf),
        over={"mode": lambda p: _gamma_mode(p["concentration"], p["rate"])},
        methods=("entropy", "mean", "mode", "variance"),
    ),
    "Chi2": Fam(
        {"df": (0.3, 20)},
        lambda p, v: D.Chi2(p["df"], validate_args=v),
        lambda p: stats.chi2(p["df"]),
        support=lambda p: (0.0, np.inf),
        over={"mode": lambda p: _gamma_mode(p["df"] / 2, 0.5)},
        methods=("entropy", "mean", "mode", "variance"),
    ),
    "Beta": Fam(
        {"concentration1": (0.2, 8), "concentration0": (0.2, 8)},
        lambda p, v: D.Beta(p["concentration1"], p["concentration0"], validate_args=v),
        lambda p: stats.beta(p["concentration1"], p["concentration0"]),
        support=lambda p: (0.0, 1.0),
        over={"mode": lambda p: _beta_mode(p["concentration1"], p["concentration0"])},
        methods=("entropy", "mean", "mode", "variance"),
    ),
    "Uniform": Fam(
        {"low": (-5, 0), "high": (0.5, 5)},
        lambda p, v: D.Uniform(p["low"], p["high"], validate_args=v),
        lambda p: stats.uniform(p["low"], p["high"] - p["low"]),
        support=lambda p: (p["low"], p["high"]),
        open_ends=(False, True),
        over={"mode": lambda p: np.nan + p["low"] + p["high"]},
    ),
    "StudentT": Fam(
        {"df": (0.5, 30), "loc": (-5, 5), "scale": (0.1, 5)},
        lambda p, v: D.StudentT(p["df"], p["loc"], p["scale"], validate_args=v),
        lambda p: stats.t(p["df"], p["loc"], p["scale"]),
        over={
            "mean": lambda p: _nan_if(p["df"] <= 1, p["loc"] + 0 * p["scale"]),
            "mode": lambda p: p["loc"] + 0 * p["scale"] + 0 * p["df"],
            "variance": lambda p: np.where(
                p["df"] > 2,
                p["scale"] ** 2 * p["df"] / (p["df"] - 2) + 0 * p["loc"],
                np.where(p["df"] > 1, np.inf, np.nan),
            ),
        },
        methods=("entropy", "mean", "mode", "variance"),
    ),
    "Gumbel": Fam(
        {"loc": (-5, 5), "scale": (0.1, 5)},
        lambda p, v: D.Gumbel(p["loc"], p["scale"], validate_args=v),
        lambda p: stats.gumbel_r(p["loc"], p["scale"]),
        over={"mode": lambda p: p["loc"] + 0 * p["scale"]},
    ),
    "Weibull": Fam(
        {"scale": (0.2, 5), "concentration": (0.3, 6)},
        lambda p, v: D.Weibull(p["scale"], p["concentration"], validate_args=v),
        lambda p: stats.weibull_min(p["concentration"], scale=p["scale"]),
        support=lambda p: (0.0, np.inf),
        open_ends=(True, False),
        over={"mode": lambda p: _weibull_mode(p["scale"], p["concentration"])},
    ),
    "Pareto": Fam(
        {"scale": (0.2, 5), "alpha": (0.3, 6)},
        lambda p, v: D.Pareto(p["scale"], p["alpha"], validate_args=v),
        lambda p: stats.pareto(p["alpha"], scale=p["scale"]),
        support=lambda p: (p["scale"], np.inf),
        over={
            "mean": lambda p: np.where(
                p["alpha"] <= 1, np.inf, p["alpha"] * p["scale"] / (p["alpha"] - 1)
            ),
            "variance": lambda p: np.where(
                p["alpha"] <= 2,
                np.inf,
                p["scale"] ** 2 * p["alpha"] / ((p["alpha"] - 1) ** 2 * (p["alpha"] - 2)),
            ),
            "mode": lambda p: p["scale"] + 0 * p["alpha"],
        },
    ),
    "Kumaraswamy": Fam(
        {"concentration1": (0.3, 6), "concentration0": (0.3, 6)},
        lambda p, v: D.Kumaraswamy(p["concentration1"], p["concentration0"], validate_args=v),
        lambda p: Kumaraswamy(p["concentration1"], p["concentration0"]),
        support=lambda p: (0.0, 1.0),
        over={"mode": lambda p: _kuma_mode(p["concentration1"], p["concentration0"])},
    ),
    "VonMises": Fam(
        {"loc": (-3, 3), "concentration": (0.05, 20)},
        lambda p, v: D.VonMises(p["loc"], p["concentration"], validate_args=v),
        lambda p: stats.vonmises(p["concentration"], loc=p["loc"]),
        over={
            "mean": lambda p: p["loc"] + 0 * p["concentration"],
            "mode": lambda p: p["loc"] + 0 * p["concentration"],
            "variance": lambda p: _vm_var(p["concentration"]) + 0 * p["loc"],
            "entropy": lambda p: _vm_entropy(p["concentration"]) + 0 * p["loc"],
        },
        methods=("entropy", "mean", "mode", "variance"),
        edge_ok=False,
    ),
    "FisherSnedecor": Fam(
        {"df1": (0.5, 20), "df2": (0.5, 20)},
        lambda p, v: D.FisherSnedecor(p["df1"], p["df2"], validate_args=v),
        lambda p: stats.f(p["df1"], p["df2"]),
        support=lambda p: (0.0, np.inf),
        open_ends=(True, False),
        over={
            "mean": lambda p: _nan_if(p["df2"] <= 2, p["df2"] / (p["df2"] - 2) + 0 * p["df1"]),
            "mode": lambda p: _nan_if(
                p["df1"] <= 2, (p["df1"] - 2) / p["df1"] * p["df2"] / (p["df2"] + 2)
            ),
            "variance": lambda p: _nan_if(
                p["df2"] <= 4,
                2
                * p["df2"] ** 2
                * (p["df1"] + p["df2"] - 2)
                / (p["df1"] * (p["df2"] - 2) ** 2 * (p["df2"] - 4)),
            ),
        },
        methods=("mean", "mode", "variance"),
        edge_ok=False,
    ),
    "ContinuousBernoulli": Fam(
        {"probs": (0.02, 0.98)},
        lambda p, v: D.ContinuousBernoulli(probs=p["probs"], validate_args=v),
        lambda p: ContinuousBernoulli(p["probs"]),
        support=lambda p: (0.0, 1.0),
        methods=("cdf", "icdf", "entropy", "mean", "variance"),
    ),
}

#: families whose ``rsample`` is a smooth function of the parameters under a fixed seed
#: (no rejection step: the Gamma-based ones are left to test_distributions_rsample_gamma)
RSAMPLE_SMOOTH = {
    "Normal",
    "LogNormal",
    "HalfNormal",
    "Cauchy",
    "HalfCauchy",
    "Laplace",
    "Exponential",
    "Uniform",
    "Gumbel",
    "Weibull",
    "Pareto",
    "Kumaraswamy",
    "ContinuousBernoulli",
}


def draw_params(data, fam, shape):
    p = {k: param(data.draw, shape, lo, hi) for k, (lo, hi) in fam.params.items()}
    batch = np.broadcast_shapes(*[v.shape for v in p.values()])
    return p, batch


def _full(p, batch):
    return {k: np.broadcast_to(v, batch) for k, v in p.items()}


def _in_support(x, lo, hi, open_ends):
    ok = (x > lo) if open_ends[0] else (x >= lo)
    return ok & ((x < hi) if open_ends[1] else (x <= hi))


@FUZZ
@given(st.sampled_from(sorted(FAMILIES)), st.data())
def test_scalar_family(name, data):
    fam = FAMILIES[name]
    p, batch = draw_params(data, fam, data.draw(batch_shapes))
    ref = fam.ref(p)
    d = fam.make({k: t64(v) for k, v in p.items()}, True)
    assert tuple(d.batch_shape) == batch and tuple(d.event_shape) == ()
    lo, hi = (np.broadcast_to(np.asarray(e, dtype=np.float64), batch) for e in fam.support(p))
    # log_prob / cdf inside the support, at quantiles u (with a leading sample dim or not)
    lead = data.draw(st.sampled_from([(), (2,)]))
    u = data.draw(hnp.arrays(np.float64, lead + batch, elements=st.floats(0.01, 0.99)))
    with np.errstate(all="ignore"):
        x = np.asarray(ref.ppf(u), dtype=np.float64) if name != "VonMises" else None
    if name == "VonMises":  # any real: the density is 2 pi periodic
        x = np.broadcast_to(p["loc"], batch) + 6 * (u - 0.5)
    assume(np.isfinite(x).all())
    with np.errstate(all="ignore"):
        want = ref.logpdf(x) if name != "VonMises" else ref.logpdf(_wrap(x, p["loc"]))
    CALLS["log_prob"] += 1
    check(d.log_prob(t64(x)), want, f"{name}.log_prob", rtol=1e-8, atol=1e-8)
    if "cdf" in fam.methods:
        CALLS["cdf"] += 1
        check(d.cdf(t64(x)), ref.cdf(x), f"{name}.cdf", rtol=1e-7, atol=1e-9)
    if "icdf" in fam.methods:
        CALLS["icdf"] += 1
        check(d.icdf(t64(u)), x, f"{name}.icdf", rtol=1e-7, atol=1e-9)
    # at and near the support's ends (those in it), SciPy's density
    ends = [(lo, fam.open_ends[0]), (hi, fam.open_ends[1])]
    for e, is_open in ends:
        if not np.isfinite(e).all():
            continue
        inward = 1.0 if e is lo else -1.0
        near = e + inward * 1e-7 * (1 + np.abs(e))
        pts = [near] if is_open or not fam.edge_ok else [e, near]
        for v in pts:
            if fam.edge_ok or v is near:
                with np.errstate(all="ignore"):
                    want = ref.logpdf(v)
                CALLS["log_prob_edge"] += 1
                check(d.log_prob(t64(v)), want, f"{name}.log_prob at {v}", rtol=1e-7, atol=1e-8)
        # outside the support: refused when validating, a value (no exception) when not
        out = [e - inward * (0.5 + 0.5 * np.abs(e))] + ([e] if is_open else [])
        loose = fam.make({k: t64(v) for k, v in p.items()}, False)
        for v in out:
            CALLS["log_prob_outside"] += 1
            with pytest.raises(ValueError):
                d.log_prob(t64(v))
            assert tuple(loose.log_prob(t64(v)).shape) == batch
    # moments, entropy
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in ("entropy", "mean", "mode", "variance"):
            if m not in fam.methods:
                continue
            if m in fam.over:
                want = fam.over[m](p)
            else:
                want = {"entropy": ref.entropy, "mean": ref.mean, "variance": ref.var}[m]()
            want = np.broadcast_to(np.asarray(want, dtype=np.float64), batch)
            got = d.entropy() if m == "entropy" else getattr(d, m)
            CALLS[m] += 1
            check(got, want, f"{name}.{m}", rtol=1e-7, atol=1e-9)
            if m == "variance":
                CALLS["stddev"] += 1
                check(d.stddev, np.sqrt(want), f"{name}.stddev", rtol=1e-7, atol=1e-9)


def _wrap(x, loc):
    """`x` brought into SciPy's vonmises window ``[loc - pi, loc + pi)``."""
    return loc + np.mod(x - loc + np.pi, 2 * np.pi) - np.pi


@FUZZ
@given(st.sampled_from(sorted(FAMILIES)), st.data())
def test_scalar_sampling(name, data):
    fam = FAMILIES[name]
    p, batch = draw_params(data, fam, data.draw(st.sampled_from([(), (2,), (3, 1), (1, 2)])))
    ref = fam.ref(p)
    d = fam.make({k: t64(v) for k, v in p.items()}, True)
    sshape = data.draw(st.sampled_from([(), (3,), (2, 1)]))
    fg.manual_seed(data.draw(st.integers(0, 2**31 - 1)))
    s = d.sample(sshape)
    CALLS["sample"] += 1
    assert tuple(s.shape) == sshape + batch and s.dtype.name == F64 and not s.requires_grad
    if d.has_rsample:
        ptens = {k: t64(v, grad=True) for k, v in p.items()}
        r = fam.make(ptens, True).rsample(sshape)
        assert tuple(r.shape) == sshape + batch and r.requires_grad
    else:
        with pytest.raises(NotImplementedError):
            d.rsample()
    # many draws under a fixed seed: in the support, and quantiles where they should be
    n = 4000
    fg.manual_seed(1234)
    s = d.sample((n,)).numpy()
    lo, hi = fam.support(p)
    if name != "VonMises":
        assert _in_support(s, lo, hi, (False, fam.open_ends[1])).all(), f"{name}: out of support"
        if fam.open_ends[0]:
            assert (s > lo).all(), f"{name}: a draw at the open end {lo}"
    else:
        assert ((s >= -np.pi) & (s <= np.pi)).all(), "VonMises draws outside [-pi, pi]"
        s = _wrap(s, np.broadcast_to(p["loc"], batch))
    CALLS["sample_quantiles"] += 1
    qs = np.array([0.1, 0.5, 0.9]).reshape((3,) + (1,) * len(batch))
    with np.errstate(all="ignore"):
        xq = np.broadcast_to(ref.ppf(qs), (3,) + batch)
    if name == "VonMises":
        xq = np.broadcast_to(p["loc"], batch) + np.broadcast_to(
            stats.vonmises(np.broadcast_to(p["concentration"], batch)).ppf(qs), xq.shape
        )
    emp = (s[None] <= xq[:, None]).mean(axis=1)
    bound = 6 * np.sqrt(qs * (1 - qs) / n) + 1e-3
    assert (np.abs(emp - qs) <= bound).all(), f"{name}: empirical cdf {emp} at {qs.ravel()}"
    # the mean when the variance is finite (8 standard errors)
    if "mean" in fam.methods and name != "VonMises":
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mu = np.broadcast_to(fam.over["mean"](p) if "mean" in fam.over else ref.mean(), batch)
            var = np.broadcast_to(
                fam.over["variance"](p) if "variance" in fam.over else ref.var(), batch
            )
        ok = np.isfinite(var) & np.isfinite(mu)
        err = np.abs(s.mean(axis=0) - mu)
        CALLS["sample_mean"] += 1
        assert (err[ok] <= 8 * np.sqrt(var[ok] / n) + 1e-9).all(), f"{name}: sample mean"


@FUZZ
@given(st.sampled_from(sorted(FAMILIES)), st.data())
def test_scalar_gradients(name, data):
    fam = FAMILIES[name]
    # small parameters away from the ends of their ranges (finite differences step 1e-6)
    p = {
        k: np.asarray(
            data.draw(
                st.lists(
                    st.floats(lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo)), min_size=2, max_size=2
                )
            )
        )
        for k, (lo, hi) in fam.params.items()
    }
    if name == "ContinuousBernoulli":  # PyTorch's Taylor band (0.499, 0.501) is not smooth
        assume((np.abs(p["probs"] - 0.5) > 0.002).all())
    ref = fam.ref(p)
    u = np.asarray(data.draw(st.lists(st.floats(0.1, 0.9), min_size=2, max_size=2)))
    x = ref.ppf(u) if name != "VonMises" else p["loc"] + 4 * (u - 0.5)
    names = list(fam.params)

    def build(*ts):
        return fam.make(dict(zip(names, ts)), False)

    grad_ok(lambda *ts: build(*ts).log_prob(t64(x)), *p.values())
    if "entropy" in fam.methods and name not in ("Kumaraswamy",):
        grad_ok(lambda *ts: build(*ts).entropy(), *p.values())
    if name in RSAMPLE_SMOOTH:

        def draw(*ts):
            fg.manual_seed(11)
            return build(*ts).rsample((3,))

        grad_ok(draw, *p.values())


# ---------------------------------------------------------------- discrete families
def _probs(draw, shape, lo=0.02, hi=0.98):
    return param(draw, shape, lo, hi)


def _discrete_case(name, draw, shape):
    """(ferrograd distribution maker, SciPy frozen distribution, parameter arrays, upper end
    of the support or inf, PyTorch's mode)."""
    if name == "Bernoulli":
        p = _probs(draw, shape)
        logits = draw(st.booleans())
        arg = {"logits": special.logit(p)} if logits else {"probs": p}
        mk = lambda v: D.Bernoulli(**{k: t64(a) for k, a in arg.items()}, validate_args=v)  # noqa: E731
        return mk, stats.bernoulli(p), p, 1.0, np.where(p >= 0.5, 1.0, 0.0)
    if name == "Binomial":
        p = _probs(draw, shape)
        n = np.broadcast_to(float(draw(st.integers(0, 12))), p.shape)
        mk = lambda v: D.Binomial(t64(n), probs=t64(p), validate_args=v)  # noqa: E731
        return mk, stats.binom(n, p), p, n, np.minimum(np.floor((n + 1) * p), n)
    if name == "Geometric":
        p = _probs(draw, shape, 0.05, 0.98)
        mk = lambda v: D.Geometric(probs=t64(p), validate_args=v)  # noqa: E731
        return mk, stats.geom(p, loc=-1), p, np.inf, 0 * p
    if name == "Poisson":
        r = param(draw, shape, 0.1, 15)
        mk = lambda v: D.Poisson(t64(r), validate_args=v)  # noqa: E731
        return mk, stats.poisson(r), r, np.inf, np.floor(r)
    # NegativeBinomial: successes (probability probs) before total_count failures
    p = _probs(draw, shape, 0.05, 0.8)
    n = param(draw, shape, 0.5, 8)
    mk = lambda v: D.NegativeBinomial(t64(n), probs=t64(p), validate_args=v)  # noqa: E731
    mode = np.clip(np.floor((n - 1) * p / (1 - p)), 0, None)
    p = np.broadcast_to(p, np.broadcast_shapes(p.shape, n.shape))
    return mk, stats.nbinom(n, 1 - p), p, np.inf, mode


DISCRETE = ["Bernoulli", "Binomial", "Geometric", "Poisson", "NegativeBinomial"]


@FUZZ
@given(st.sampled_from(DISCRETE), st.data())
def test_discrete_family(name, data):
    mk, ref, p, top, mode = _discrete_case(name, data.draw, data.draw(batch_shapes))
    d = mk(True)
    batch = tuple(d.batch_shape)
    assert batch == np.broadcast_shapes(np.shape(p), np.shape(mode))
    top = np.broadcast_to(top, batch)
    k = data.draw(hnp.arrays(np.float64, batch, elements=st.integers(0, 12).map(float)))
    k = np.minimum(k, top)
    CALLS["log_prob"] += 1
    check(d.log_prob(t64(k)), ref.logpmf(k), f"{name}.log_prob", rtol=1e-9, atol=1e-9)
    zero = np.zeros(batch)
    check(d.log_prob(t64(zero)), ref.logpmf(zero), f"{name}.log_prob(0)", 1e-9, 1e-9)
    loose = mk(False)
    for out in [k - k - 1, k + 0.5] + ([top + 1] if np.isfinite(top).all() else []):
        CALLS["log_prob_outside"] += 1
        with pytest.raises(ValueError):
            d.log_prob(t64(out))
        assert tuple(loose.log_prob(t64(out)).shape) == batch
    with np.errstate(all="ignore"):
        want = {"mean": ref.mean(), "variance": ref.var(), "mode": mode}
        if name in ("Bernoulli", "Binomial", "Geometric"):
            want["entropy"] = ref.entropy()
    for m, w in want.items():
        CALLS[m] += 1
        got = d.entropy() if m == "entropy" else getattr(d, m)
        check(got, np.broadcast_to(w, batch), f"{name}.{m}", rtol=1e-8, atol=1e-9)
    # draws: integer valued, in the support, with a mean within 8 standard errors
    n = 3000
    fg.manual_seed(99)
    s = d.sample((n,)).numpy()
    CALLS["sample"] += 1
    assert s.shape == (n,) + batch
    assert (s == np.round(s)).all() and (s >= 0).all() and (s <= top).all(), f"{name} draws"
    mu, var = np.broadcast_to(ref.mean(), batch), np.broadcast_to(ref.var(), batch)
    assert (np.abs(s.mean(0) - mu) <= 8 * np.sqrt(var / n) + 1e-9).all(), f"{name}: sample mean"
    # log_prob's gradient in the parameter
    q = np.asarray(data.draw(st.lists(st.floats(0.15, 0.85), min_size=2, max_size=2)))
    kk = t64([0.0, 2.0])
    if name == "Bernoulli":
        kk = t64([0.0, 1.0])
        grad_ok(lambda t: D.Bernoulli(logits=t).log_prob(kk), q)
    elif name == "Binomial":
        grad_ok(lambda t: D.Binomial(t64([3.0, 5.0]), probs=t).log_prob(kk), q)
    elif name == "Geometric":
        grad_ok(lambda t: D.Geometric(probs=t).log_prob(kk), q)
    elif name == "Poisson":
        grad_ok(lambda t: D.Poisson(t * 4).log_prob(kk), q)
    else:
        grad_ok(lambda t, c: D.NegativeBinomial(c * 3, probs=t).log_prob(kk), q, q + 0.3)


# ---------------------------------------------------------------- vector families
small_batch = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)


def _simplex(draw, shape, lo=0.05):
    w = draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, 1.0)))
    return w / w.sum(-1, keepdims=True)


@FUZZ
@given(st.sampled_from(["Categorical", "OneHotCategorical", "Multinomial"]), st.data())
def test_categorical_families(name, data):
    batch = data.draw(small_batch)
    k = data.draw(st.integers(2, 5))
    w = data.draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(0.05, 3.0)))
    p = w / w.sum(-1, keepdims=True)
    by_logits = data.draw(st.booleans())
    arg = {"logits": t64(np.log(w))} if by_logits else {"probs": t64(w)}  # unnormalised
    n = data.draw(st.integers(0, 6))
    if name == "Categorical":
        d = D.Categorical(**arg)
        x = data.draw(hnp.arrays(np.int64, batch, elements=st.integers(0, k - 1)))
        want = np.take_along_axis(np.log(p), x[..., None], -1)[..., 0]
        got = d.log_prob(fg.tensor(x, dtype="int64"))
        bad = [x * 0 + k, x * 0 - 1]
        ent = -(p * np.log(p)).sum(-1)
        moments = {"mode": np.argmax(p, -1), "mean": np.full(batch, np.nan)}
        moments["variance"] = moments["mean"]
    elif name == "OneHotCategorical":
        d = D.OneHotCategorical(**arg)
        idx = data.draw(hnp.arrays(np.int64, batch, elements=st.integers(0, k - 1)))
        x = np.eye(k)[idx]
        want = np.take_along_axis(np.log(p), idx[..., None], -1)[..., 0]
        got = d.log_prob(t64(x))
        bad = [x * 2, x * 0]
        ent = -(p * np.log(p)).sum(-1)
        moments = {"mode": np.eye(k)[np.argmax(p, -1)], "mean": p, "variance": p * (1 - p)}
    else:
        d = D.Multinomial(n, **arg)
        x = np.zeros(batch + (k,))
        for i in np.ndindex(batch):
            cuts = np.sort(data.draw(st.lists(st.integers(0, n), min_size=k - 1, max_size=k - 1)))
            x[i] = np.diff(np.concatenate([[0], cuts, [n]]))
        want = stats.multinomial(n, p).logpmf(x)
        got = d.log_prob(t64(x))
        bad = [x + 1, x - 0.5]
        ent = np.reshape(stats.multinomial(n, p.reshape(-1, k)).entropy(), batch)
        moments = {"mean": n * p, "variance": n * p * (1 - p)}
    assert tuple(d.batch_shape) == batch
    CALLS["log_prob"] += 1
    check(got, want, f"{name}.log_prob", dtype=None, rtol=1e-9, atol=1e-10)
    for b in bad:
        CALLS["log_prob_outside"] += 1
        with pytest.raises(ValueError):
            d.log_prob(t64(b) if name != "Categorical" else fg.tensor(b, dtype="int64"))
    CALLS["entropy"] += 1
    check(d.entropy(), ent, f"{name}.entropy", rtol=1e-8, atol=1e-10)
    for m, w_ in moments.items():
        CALLS[m] += 1
        check(getattr(d, m), w_, f"{name}.{m}", dtype=None, rtol=1e-9, atol=1e-12)
    # draws
    m_ = 3000
    fg.manual_seed(5)
    s = d.sample((m_,)).numpy()
    CALLS["sample"] += 1
    ev = () if name == "Categorical" else (k,)
    assert s.shape == (m_,) + batch + ev
    if name == "Categorical":
        assert s.dtype == np.int64 and ((s >= 0) & (s < k)).all()
        freq = (s[..., None] == np.arange(k)).mean(0)
        nn = 1
    else:
        assert (s == np.round(s)).all() and (s >= 0).all()
        nn = 1 if name == "OneHotCategorical" else n
        assert (s.sum(-1) == nn).all(), f"{name}: draws do not sum to {nn}"
        freq = s.mean(0) / max(nn, 1)
    if nn:
        assert (np.abs(freq - p) <= 8 * np.sqrt(p * (1 - p) / (m_ * nn)) + 1e-9).all()
    # log_prob's gradient in the logits
    lg = np.log(w[(0,) * len(batch)])
    if name == "Categorical":
        grad_ok(lambda t: D.Categorical(logits=t).log_prob(fg.tensor([0, k - 1])), lg)
    elif name == "OneHotCategorical":
        grad_ok(lambda t: D.OneHotCategorical(logits=t).log_prob(t64(np.eye(k)[1])), lg)
    else:
        grad_ok(lambda t: D.Multinomial(n, logits=t).log_prob(t64(x[(0,) * len(batch)])), lg)


def _spd(draw, batch, k):
    a = draw(hnp.arrays(np.float64, batch + (k, k), elements=st.floats(-1, 1)))
    return a @ np.swapaxes(a, -1, -2) + 0.5 * np.eye(k)


@FUZZ
@given(
    st.sampled_from(["scale_tril", "covariance_matrix", "precision_matrix", "lowrank"]), st.data()
)
def test_multivariate_normal(kind, data):
    batch = data.draw(small_batch)
    k = data.draw(st.integers(1, 4))
    loc = data.draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(-3, 3)))
    if kind == "lowrank":
        r = data.draw(st.integers(1, 3))
        wf = data.draw(hnp.arrays(np.float64, batch + (k, r), elements=st.floats(-1, 1)))
        dg = data.draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(0.2, 2)))
        cov = wf @ np.swapaxes(wf, -1, -2) + dg[..., None] * np.eye(k)
        make = lambda lc, a, b: D.LowRankMultivariateNormal(lc, a, b)  # noqa: E731
        args = (wf, dg)
    else:
        cov = _spd(data.draw, batch, k)
        given_ = {
            "scale_tril": np.linalg.cholesky(cov),
            "covariance_matrix": cov,
            "precision_matrix": np.linalg.inv(cov),
        }[kind]
        make = lambda lc, a: D.MultivariateNormal(lc, **{kind: a})  # noqa: E731
        args = (given_,)
    d = make(t64(loc), *(t64(a) for a in args))
    assert tuple(d.batch_shape) == batch and tuple(d.event_shape) == (k,)
    x = data.draw(hnp.arrays(np.float64, (2,) + batch + (k,), elements=st.floats(-4, 4)))
    want = np.zeros((2,) + batch)
    ent = np.zeros(batch)
    for i in np.ndindex(batch):
        mv = stats.multivariate_normal(loc[i], cov[i])
        want[(slice(None),) + i] = mv.logpdf(x[(slice(None),) + i].reshape(2, k))
        ent[i] = mv.entropy()
    CALLS["log_prob"] += 1
    check(d.log_prob(t64(x)), want, f"MVN[{kind}].log_prob", rtol=1e-8, atol=1e-9)
    CALLS["entropy"] += 1
    check(d.entropy(), ent, f"MVN[{kind}].entropy", rtol=1e-8, atol=1e-9)
    var = np.diagonal(cov, axis1=-2, axis2=-1)
    for m, w_ in {"mean": loc, "mode": loc, "variance": var, "stddev": np.sqrt(var)}.items():
        CALLS[m] += 1
        check(getattr(d, m), w_, f"MVN[{kind}].{m}", rtol=1e-9, atol=1e-12)
    if kind != "lowrank":
        CALLS["covariance"] += 1
        check(d.covariance_matrix, cov, "MVN.covariance_matrix", rtol=1e-8, atol=1e-10)
        check(d.scale_tril, np.linalg.cholesky(cov), "MVN.scale_tril", rtol=1e-7, atol=1e-9)
        check(d.precision_matrix, np.linalg.inv(cov), "MVN.precision", rtol=1e-7, atol=1e-8)
    n = 4000
    fg.manual_seed(21)
    s = d.rsample((n,)).numpy()
    CALLS["sample"] += 1
    assert s.shape == (n,) + batch + (k,)
    assert (np.abs(s.mean(0) - loc) <= 8 * np.sqrt(var / n)).all(), "MVN sample mean"
    c = np.einsum("n...i,n...j->...ij", s - loc, s - loc) / n
    sd = np.sqrt(var)
    assert (np.abs(c - cov) <= 10 * sd[..., None] * sd[..., None, :] / np.sqrt(n)).all()
    # gradients of log_prob and of rsample (fixed seed) in loc and the factor
    i0 = (0,) * len(batch)
    x0 = t64(x[(0,) + i0])
    a0 = tuple(a[i0] for a in args)
    if kind in ("covariance_matrix", "precision_matrix"):
        sym = lambda a: (a + a.T) / 2  # noqa: E731  (a symmetric perturbation)
        grad_ok(lambda lc, a: make(lc, sym(a)).log_prob(x0), loc[i0], *a0)
    else:
        # scale_tril's upper triangle stays zero under the finite-difference steps
        tri = (lambda a: a.tril()) if kind == "scale_tril" else (lambda a: a)
        grad_ok(lambda lc, a, *b: make(lc, tri(a), *b).log_prob(x0), loc[i0], *a0)

        def draw(lc, a, *b):
            fg.manual_seed(3)
            return make(lc, tri(a), *b).rsample((2,))

        grad_ok(draw, loc[i0], *a0)


# ---------------------------------------------------------------- other families
def _lkj_ref(L, eta):
    """PyTorch's LKJCholesky.log_prob (Lewandowski et al. 2009)."""
    dim = L.shape[-1]
    order = 2 * (np.asarray(eta)[..., None] - 1) + dim - np.arange(2, dim + 1)
    un = (order * np.log(np.diagonal(L, axis1=-2, axis2=-1)[..., 1:])).sum(-1)
    dm1 = dim - 1
    alpha = eta + 0.5 * dm1
    norm = 0.5 * dm1 * np.log(np.pi) + special.multigammaln(alpha - 0.5, dm1)
    return un - (norm - special.gammaln(alpha) * dm1)


def _concrete_logpdf(y, logits, tau):
    """The Concrete (Gumbel-softmax) density of Maddison et al. on the simplex."""
    k = y.shape[-1]
    s = logits - tau * np.log(y)
    return (
        special.gammaln(k)
        + (k - 1) * np.log(tau)
        + (s - np.log(y)).sum(-1)
        - k * special.logsumexp(s, axis=-1)
    )


def _stick_breaking(x):
    """PyTorch's StickBreakingTransform in NumPy."""
    k1 = x.shape[-1]
    z = special.expit(x - np.log(np.arange(k1, 0, -1.0)))
    cum = np.cumprod(1 - z, axis=-1)
    pad = np.concatenate([np.ones(x.shape[:-1] + (1,)), cum], -1)
    return np.concatenate([z, np.ones(x.shape[:-1] + (1,))], -1) * pad


def _fd_logdet(f, x, h=1e-6):
    """log |det J| of ``f`` (R^n -> R^n) at the vector ``x`` by central differences."""
    n = x.shape[-1]
    cols = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(n)]
    return np.linalg.slogdet(np.stack(cols, -1))[1]


OTHERS = [
    "Dirichlet",
    "Independent",
    "MixtureSameFamily",
    "TransformedDistribution",
    "LogisticNormal",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "Wishart",
    "LKJCholesky",
]


@FUZZ
@given(st.sampled_from(OTHERS), st.data())
def test_other_families(name, data):
    draw = data.draw
    batch = draw(small_batch)
    k = draw(st.integers(2, 4))
    fg.manual_seed(draw(st.integers(0, 2**31 - 1)))
    moments: dict[str, Any] = {}
    ent = None
    if name == "Dirichlet":
        c = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(0.3, 6)))
        d = D.Dirichlet(t64(c))
        x = _simplex(draw, batch + (k,))
        want = np.reshape([stats.dirichlet(c[i]).logpdf(x[i]) for i in np.ndindex(batch)], batch)
        ent = np.reshape([stats.dirichlet(c[i]).entropy() for i in np.ndindex(batch)], batch)
        c0 = c.sum(-1, keepdims=True)
        moments = {"mean": c / c0, "variance": c * (c0 - c) / (c0**2 * (c0 + 1))}
        event, grad_fn = (k,), (lambda t: D.Dirichlet(t).log_prob(t64(x[(0,) * len(batch)])))
        grad_args = (c[(0,) * len(batch)],)
    elif name == "Independent":
        loc = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(-3, 3)))
        sc = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(0.2, 3)))
        d = D.Independent(D.Normal(t64(loc), t64(sc)), 1)
        x = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(-5, 5)))
        want = stats.norm(loc, sc).logpdf(x).sum(-1)
        ent = stats.norm(loc, sc).entropy().sum(-1)
        moments = {"mean": loc, "variance": sc**2, "mode": loc}
        event = (k,)
        grad_fn = lambda a, b: D.Independent(D.Normal(a, b), 1).log_prob(t64(x[(0,) * len(batch)]))  # noqa: E731
        grad_args = (loc[(0,) * len(batch)], sc[(0,) * len(batch)])
    elif name == "MixtureSameFamily":
        w = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(0.1, 2)))
        loc = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(-3, 3)))
        sc = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(0.2, 3)))
        mk = lambda a, b, c_: D.MixtureSameFamily(D.Categorical(probs=a), D.Normal(b, c_))  # noqa: E731
        d = mk(t64(w), t64(loc), t64(sc))
        p = w / w.sum(-1, keepdims=True)
        x = draw(hnp.arrays(np.float64, batch, elements=st.floats(-5, 5)))
        want = special.logsumexp(np.log(p) + stats.norm(loc, sc).logpdf(x[..., None]), axis=-1)
        mean = (p * loc).sum(-1)
        moments = {"mean": mean, "variance": (p * (sc**2 + loc**2)).sum(-1) - mean**2}
        CALLS["cdf"] += 1
        cdf = (p * stats.norm(loc, sc).cdf(x[..., None])).sum(-1)
        check(d.cdf(t64(x)), cdf, "MixtureSameFamily.cdf", rtol=1e-9, atol=1e-12)
        event = ()
        grad_fn = lambda a, b, c_: mk(a, b, c_).log_prob(t64(x[(0,) * len(batch)]))  # noqa: E731
        grad_args = tuple(a[(0,) * len(batch)] for a in (w, loc, sc))
    elif name == "TransformedDistribution":
        # Y = a + b exp(X), X ~ Normal: a shifted log-normal
        loc = draw(hnp.arrays(np.float64, batch, elements=st.floats(-1, 1)))
        sc = draw(hnp.arrays(np.float64, batch, elements=st.floats(0.2, 1.5)))
        a, b = draw(st.floats(-2, 2)), draw(st.floats(0.5, 3))
        chain = [T.ExpTransform(), T.AffineTransform(a, b)]
        d = D.TransformedDistribution(D.Normal(t64(loc), t64(sc)), chain)
        ref = stats.lognorm(sc, loc=a, scale=b * np.exp(loc))
        u = draw(hnp.arrays(np.float64, batch, elements=st.floats(0.02, 0.98)))
        x = ref.ppf(u)
        want = ref.logpdf(x)
        CALLS["cdf"] += 1
        check(d.cdf(t64(x)), u, "TransformedDistribution.cdf", rtol=1e-8, atol=1e-10)
        CALLS["icdf"] += 1
        check(d.icdf(t64(u)), x, "TransformedDistribution.icdf", rtol=1e-8, atol=1e-10)
        event = ()
        grad_fn = lambda lc, s_: D.TransformedDistribution(D.Normal(lc, s_), chain).log_prob(  # noqa: E731
            t64(x[(0,) * len(batch)])
        )
        grad_args = (loc[(0,) * len(batch)], sc[(0,) * len(batch)])
    elif name == "LogisticNormal":
        loc = draw(hnp.arrays(np.float64, batch + (k - 1,), elements=st.floats(-2, 2)))
        sc = draw(hnp.arrays(np.float64, batch + (k - 1,), elements=st.floats(0.3, 2)))
        d = D.LogisticNormal(t64(loc), t64(sc))
        z = draw(hnp.arrays(np.float64, batch + (k - 1,), elements=st.floats(-3, 3)))
        x = _stick_breaking(z)
        # density of the first k - 1 coordinates: the base density over |det d y[:k-1] / dz|
        ld = _fd_logdet(lambda v: _stick_breaking(v)[..., :-1], z)
        want = stats.norm(loc, sc).logpdf(z).sum(-1) - ld
        event = (k,)
        grad_fn = lambda lc, s_: D.LogisticNormal(lc, s_).log_prob(t64(x[(0,) * len(batch)]))  # noqa: E731
        grad_args = (loc[(0,) * len(batch)], sc[(0,) * len(batch)])
    elif name == "RelaxedBernoulli":
        tau = draw(st.floats(0.3, 3))
        lg = draw(hnp.arrays(np.float64, batch, elements=st.floats(-3, 3)))
        mk = lambda t_, l_: D.RelaxedBernoulli(t_, logits=l_)  # noqa: E731
        d = mk(t64(tau), t64(lg))
        x = draw(hnp.arrays(np.float64, batch, elements=st.floats(0.02, 0.98)))
        al = np.exp(lg)
        want = (
            np.log(tau * al)
            - (tau + 1) * (np.log(x) + np.log1p(-x))
            - 2 * np.log(al * x**-tau + (1 - x) ** -tau)
        )
        event = ()
        grad_fn = lambda t_, l_: mk(t_, l_).log_prob(t64(x[(0,) * len(batch)]))  # noqa: E731
        grad_args = (np.asarray(tau), lg[(0,) * len(batch)])
    elif name == "RelaxedOneHotCategorical":
        tau = draw(st.floats(0.3, 3))
        lg = draw(hnp.arrays(np.float64, batch + (k,), elements=st.floats(-2, 2)))
        mk = lambda t_, l_: D.RelaxedOneHotCategorical(t_, logits=l_)  # noqa: E731
        d = mk(t64(tau), t64(lg))
        x = _simplex(draw, batch + (k,))
        want = _concrete_logpdf(x, lg - special.logsumexp(lg, -1, keepdims=True), tau)
        event = (k,)
        grad_fn = lambda t_, l_: mk(t_, l_).log_prob(t64(x[(0,) * len(batch)]))  # noqa: E731
        grad_args = (np.asarray(tau), lg[(0,) * len(batch)])
    elif name == "Wishart":
        k = min(k, 3)
        cov = _spd(draw, batch, k)
        df = draw(hnp.arrays(np.float64, batch, elements=st.floats(k - 0.5, k + 6)))
        d = D.Wishart(t64(df), covariance_matrix=t64(cov))
        x = np.zeros(batch + (k, k))
        want, ent = np.zeros(batch), np.zeros(batch)
        for i in np.ndindex(batch):
            w_ = stats.wishart(df[i], cov[i])
            x[i] = np.atleast_2d(w_.rvs(random_state=np.random.default_rng(len(i))))
            want[i], ent[i] = w_.logpdf(x[i]), w_.entropy()
        dg = np.diagonal(cov, axis1=-2, axis2=-1)
        var = df[..., None, None] * (cov**2 + dg[..., :, None] * dg[..., None, :])
        with np.errstate(all="ignore"):
            mode = np.where(
                (df > k + 1)[..., None, None], (df - k - 1)[..., None, None] * cov, np.nan
            )
        moments = {"mean": df[..., None, None] * cov, "variance": var, "mode": mode}
        event = (k, k)
        sym = lambda a: (a + a.transpose(-1, -2)) / 2  # noqa: E731
        grad_fn = lambda f, c_: D.Wishart(f, covariance_matrix=sym(c_)).log_prob(  # noqa: E731
            t64(x[(0,) * len(batch)])
        )
        grad_args = (df[(0,) * len(batch)], cov[(0,) * len(batch)])
    else:  # LKJCholesky (batch from the concentration)
        eta = draw(hnp.arrays(np.float64, batch, elements=st.floats(0.3, 4)))
        d = D.LKJCholesky(k, t64(eta))
        s_ = d.sample()
        x = s_.numpy()
        want = _lkj_ref(x, eta)
        event = (k, k)
        if k == 2:  # the marginal of L[1, 0] is (1 - r^2)^(eta - 1) / B(eta, eta) 2^(1-2 eta)
            e0 = float(np.ravel(eta)[0])
            one = D.LKJCholesky(2, t64(e0), validate_args=False)

            def dens(r):
                L = np.array([[1.0, 0.0], [r, np.sqrt(1 - r * r)]])
                return math.exp(one.log_prob(t64(L)).item())

            CALLS["lkj_normalised"] += 1
            tot = integrate.quad(dens, -1, 1, epsabs=1e-10, limit=200)[0]
            assert abs(tot - 1) < 1e-6, f"LKJCholesky(2, {e0}) integrates to {tot}"
        grad_fn = lambda e: D.LKJCholesky(k, e).log_prob(t64(x[(0,) * len(batch)]))  # noqa: E731
        grad_args = (eta[(0,) * len(batch)],)
    assert tuple(d.batch_shape) == batch, f"{name}: batch_shape {d.batch_shape}"
    assert tuple(d.event_shape) == event, f"{name}: event_shape {d.event_shape}"
    CALLS["log_prob"] += 1
    check(d.log_prob(t64(x)), want, f"{name}.log_prob", rtol=1e-7, atol=1e-8)
    if ent is not None:
        CALLS["entropy"] += 1
        check(d.entropy(), ent, f"{name}.entropy", rtol=1e-7, atol=1e-8)
    for m, w_ in moments.items():
        CALLS[m] += 1
        check(getattr(d, m), w_, f"{name}.{m}", rtol=1e-8, atol=1e-10)
    # draws: shape with a sample_shape, and in the support
    s = d.sample((3,))
    CALLS["sample"] += 1
    assert tuple(s.shape) == (3,) + batch + event
    assert bool(d.support.check(s).all()), f"{name}: draws outside the support"
    if d.has_rsample:
        assert tuple(d.rsample((2,)).shape) == (2,) + batch + event
    grad_ok(grad_fn, *grad_args)


# ---------------------------------------------------------------- kl_divergence
def _quad_kl(p, q, lo, hi):
    """KL(p || q) of two frozen SciPy scalar densities by quadrature over [lo, hi] (an
    infinite end cut where p's tail mass is below 1e-15)."""
    lo = max(lo, float(p.ppf(1e-15)))
    hi = min(hi, float(p.isf(1e-15)))

    def f(x):
        lp = p.logpdf(x)
        return 0.0 if not np.isfinite(lp) else math.exp(lp) * (lp - q.logpdf(x))

    return integrate.quad(f, lo, hi, limit=400, epsabs=1e-12, epsrel=1e-10)[0]


def _kl_pair(name, draw):
    """(ferrograd p, q, the reference KL) for one registered pair, scalar parameters."""
    f = lambda lo, hi: draw(st.floats(lo, hi))  # noqa: E731
    if name == "Normal":
        a, b, c, e = f(-2, 2), f(0.3, 3), f(-2, 2), f(0.3, 3)
        return (
            D.Normal(t64(a), t64(b)),
            D.Normal(t64(c), t64(e)),
            np.log(e / b) + (b**2 + (a - c) ** 2) / (2 * e**2) - 0.5,
        )
    if name == "Uniform":  # p inside q: finite
        pl, ph = f(-2, 2), f(-2, 2)
        assume(pl < ph)
        ql, qh = pl - f(0, 1), ph + f(0, 2)
        want = np.log((qh - ql) / (ph - pl))
        return D.Uniform(t64(pl), t64(ph)), D.Uniform(t64(ql), t64(qh)), want
    if name in ("Exponential", "HalfNormal"):
        a, b = f(0.3, 3), f(0.3, 3)
        if name == "Exponential":
            ps, qs = stats.expon(scale=1 / a), stats.expon(scale=1 / b)
        else:
            ps, qs = stats.halfnorm(scale=a), stats.halfnorm(scale=b)
        cls = getattr(D, name)
        return cls(t64(a)), cls(t64(b)), _quad_kl(ps, qs, 0, np.inf)
    if name == "Laplace":  # closed form (a kink at the location: no quadrature)
        a, b, c, e = f(-2, 2), f(0.3, 3), f(-2, 2), f(0.3, 3)
        m = abs(a - c)
        want = np.log(e / b) + m / e + b / e * np.exp(-m / b) - 1
        return D.Laplace(t64(a), t64(b)), D.Laplace(t64(c), t64(e)), want
    if name == "Gumbel":
        a, b, c, e = f(-2, 2), f(0.3, 3), f(-2, 2), f(0.3, 3)
        want = _quad_kl(stats.gumbel_r(a, b), stats.gumbel_r(c, e), -np.inf, np.inf)
        return D.Gumbel(t64(a), t64(b)), D.Gumbel(t64(c), t64(e)), want
    if name == "Gamma":
        a, b, c, e = f(0.5, 5), f(0.3, 3), f(0.5, 5), f(0.3, 3)
        want = _quad_kl(stats.gamma(a, scale=1 / b), stats.gamma(c, scale=1 / e), 0, np.inf)
        return D.Gamma(t64(a), t64(b)), D.Gamma(t64(c), t64(e)), want
    if name == "Beta":
        a, b, c, e = f(1, 5), f(1, 5), f(0.5, 5), f(0.5, 5)
        want = _quad_kl(stats.beta(a, b), stats.beta(c, e), 0, 1)
        return D.Beta(t64(a), t64(b)), D.Beta(t64(c), t64(e)), want
    if name == "Pareto":  # p's support inside q's (q.scale <= p.scale); E_p[log x] in closed form
        s1, a1, a2 = f(0.5, 3), f(0.5, 5), f(0.5, 5)
        s2 = s1 * f(0.2, 1)
        want = np.log(a1 / a2) + a2 * np.log(s1 / s2) + a2 / a1 - 1
        return D.Pareto(t64(s1), t64(a1)), D.Pareto(t64(s2), t64(a2)), want
    if name == "ContinuousBernoulli":
        a, b = f(0.05, 0.95), f(0.05, 0.95)
        want = _quad_kl(ContinuousBernoulli(a), ContinuousBernoulli(b), 0, 1)
        return D.ContinuousBernoulli(t64(a)), D.ContinuousBernoulli(t64(b)), want
    if name == "Bernoulli":
        a, b = f(0.02, 0.98), f(0.02, 0.98)
        want = a * np.log(a / b) + (1 - a) * np.log((1 - a) / (1 - b))
        return D.Bernoulli(t64(a)), D.Bernoulli(t64(b)), want
    if name == "Geometric":
        a, b = f(0.05, 0.95), f(0.05, 0.95)
        k = np.arange(0, 3000)
        pa, pb = stats.geom(a, loc=-1), stats.geom(b, loc=-1)
        want = np.sum(pa.pmf(k) * (pa.logpmf(k) - pb.logpmf(k)))
        return D.Geometric(t64(a)), D.Geometric(t64(b)), want
    if name == "Poisson":
        a, b = f(0.2, 10), f(0.2, 10)
        return D.Poisson(t64(a)), D.Poisson(t64(b)), a * np.log(a / b) - a + b
    k = draw(st.integers(2, 4))
    pa, pb = _simplex(draw, (k,)), _simplex(draw, (k,))
    if name in ("Categorical", "OneHotCategorical"):
        cls = getattr(D, name)
        return cls(t64(pa)), cls(t64(pb)), np.sum(pa * np.log(pa / pb))
    if name == "Dirichlet":
        a, b = pa * f(1, 8), pb * f(1, 8)
        a0 = a.sum()
        want = (
            special.gammaln(a0)
            - special.gammaln(a).sum()
            - special.gammaln(b.sum())
            + special.gammaln(b).sum()
            + ((a - b) * (special.digamma(a) - special.digamma(a0))).sum()
        )
        return D.Dirichlet(t64(a)), D.Dirichlet(t64(b)), want
    # multivariate normals (full and low-rank) and Independent / TransformedDistribution
    m1, m2 = (draw(hnp.arrays(np.float64, (k,), elements=st.floats(-2, 2))) for _ in "ab")
    c1, c2 = _spd(draw, (), k), _spd(draw, (), k)
    i2 = np.linalg.inv(c2)
    mvn = 0.5 * (
        np.trace(i2 @ c1)
        + (m2 - m1) @ i2 @ (m2 - m1)
        - k
        + np.linalg.slogdet(c2)[1]
        - np.linalg.slogdet(c1)[1]
    )
    if name == "MultivariateNormal":
        return (
            D.MultivariateNormal(t64(m1), covariance_matrix=t64(c1)),
            D.MultivariateNormal(t64(m2), scale_tril=t64(np.linalg.cholesky(c2))),
            mvn,
        )
    if name == "LowRankMultivariateNormal":
        w = draw(hnp.arrays(np.float64, (k, 2), elements=st.floats(-1, 1)))
        dg = draw(hnp.arrays(np.float64, (k,), elements=st.floats(0.3, 2)))
        c1 = w @ w.T + np.diag(dg)
        mvn = 0.5 * (
            np.trace(i2 @ c1)
            + (m2 - m1) @ i2 @ (m2 - m1)
            - k
            + np.linalg.slogdet(c2)[1]
            - np.linalg.slogdet(c1)[1]
        )
        p = D.LowRankMultivariateNormal(t64(m1), t64(w), t64(dg))
        return p, D.MultivariateNormal(t64(m2), covariance_matrix=t64(c2)), mvn
    s1, s2 = (draw(hnp.arrays(np.float64, (k,), elements=st.floats(0.3, 2))) for _ in "ab")
    diag = np.sum(np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5)
    if name == "Independent":
        p = D.Independent(D.Normal(t64(m1), t64(s1)), 1)
        return p, D.Independent(D.Normal(t64(m2), t64(s2)), 1), diag
    chain = [T.ExpTransform(), T.AffineTransform(1.5, 2.0)]
    p = D.TransformedDistribution(D.Normal(t64(m1), t64(s1)), chain)
    q = D.TransformedDistribution(D.Normal(t64(m2), t64(s2)), chain)
    return p, q, np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5


KL_PAIRS = [
    "Normal",
    "Uniform",
    "Exponential",
    "HalfNormal",
    "Laplace",
    "Gumbel",
    "Gamma",
    "Beta",
    "Pareto",
    "ContinuousBernoulli",
    "Bernoulli",
    "Geometric",
    "Poisson",
    "Categorical",
    "OneHotCategorical",
    "Dirichlet",
    "MultivariateNormal",
    "LowRankMultivariateNormal",
    "Independent",
    "TransformedDistribution",
]


@FUZZ
@given(st.sampled_from(KL_PAIRS), st.data())
def test_kl_divergence(name, data):
    p, q, want = _kl_pair(name, data.draw)
    CALLS["kl_divergence"] += 1
    got = D.kl_divergence(p, q)
    check(got, np.broadcast_to(want, tuple(got.shape)), f"KL({name})", rtol=1e-6, atol=1e-9)
    assert tuple(got.shape) == tuple(p.batch_shape)
    CALLS["kl_self"] += 1
    check(D.kl_divergence(p, p), np.zeros(tuple(p.batch_shape)), f"KL({name}, self)", 0, 1e-9)


@FUZZ
@given(st.data())
def test_kl_monte_carlo_and_gradient(data):
    # Gamma-Gamma against a Monte-Carlo mean of log p - log q (fixed seed, 10 standard
    # errors), and the Normal-Normal and Beta-Beta gradients by gradcheck
    a, b, c, e = (data.draw(st.floats(0.8, 4)) for _ in range(4))
    p, q = D.Gamma(t64(a), t64(b)), D.Gamma(t64(c), t64(e))
    fg.manual_seed(0)
    x = p.sample((20000,))
    diff = (p.log_prob(x) - q.log_prob(x)).numpy()
    CALLS["kl_monte_carlo"] += 1
    kl = D.kl_divergence(p, q).item()
    assert abs(diff.mean() - kl) <= 10 * diff.std() / math.sqrt(diff.size) + 1e-9
    v = np.asarray([a, b, c, e])
    grad_ok(lambda t: D.kl_divergence(D.Normal(t[0], t[1]), D.Normal(t[2], t[3])), v)
    grad_ok(lambda t: D.kl_divergence(D.Beta(t[0], t[1]), D.Beta(t[2], t[3])), v)
    grad_ok(lambda t: D.kl_divergence(D.Gamma(t[0], t[1]), D.Gamma(t[2], t[3])), v)


# ---------------------------------------------------------------- transforms
def _transform_case(name, draw):
    """(transform, x in its domain (float64 array), event size 0 or n, numeric forward)."""
    n = draw(st.integers(1, 4))
    x = draw(hnp.arrays(np.float64, (2, n), elements=st.floats(-3, 3)))
    if name == "ExpTransform":
        return T.ExpTransform(), x, 0, np.exp
    if name == "AffineTransform":
        a, b = draw(st.floats(-3, 3)), draw(st.sampled_from([-2.5, -0.5, 0.7, 3.0]))
        return T.AffineTransform(a, b), x, 0, lambda v: a + b * v
    if name == "SigmoidTransform":
        return T.SigmoidTransform(), x, 0, special.expit
    if name == "TanhTransform":
        return T.TanhTransform(), x, 0, np.tanh
    if name == "SoftplusTransform":
        return T.SoftplusTransform(), x, 0, lambda v: np.logaddexp(0, v)
    if name == "PowerTransform":
        ex = draw(st.sampled_from([-1.5, -0.5, 0.5, 2.0, 3.0]))
        return T.PowerTransform(t64(ex)), np.exp(x / 2), 0, lambda v: v**ex
    if name == "StickBreakingTransform":
        return T.StickBreakingTransform(), x, n, _stick_breaking
    if name == "InverseSigmoid":
        return T.SigmoidTransform().inv, special.expit(x), 0, special.logit
    if name == "IndependentAffine":
        a = draw(hnp.arrays(np.float64, (n,), elements=st.floats(-2, 2)))
        b = draw(hnp.arrays(np.float64, (n,), elements=st.floats(0.3, 2)))
        t = T.IndependentTransform(T.AffineTransform(t64(a), t64(b)), 1)
        return t, x, n, lambda v: a + b * v
    # ComposeTransform: exp, then an affine map, then tanh
    b = draw(st.floats(0.1, 0.5))
    t = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(-1.0, b), T.TanhTransform()])
    return t, x, 0, lambda v: np.tanh(-1 + b * np.exp(v))


TRANSFORMS = [
    "ExpTransform",
    "AffineTransform",
    "SigmoidTransform",
    "TanhTransform",
    "SoftplusTransform",
    "PowerTransform",
    "StickBreakingTransform",
    "InverseSigmoid",
    "IndependentAffine",
    "ComposeTransform",
]


@FUZZ
@given(st.sampled_from(TRANSFORMS), st.data())
def test_transforms(name, data):
    t, x, ev, fwd = _transform_case(name, data.draw)
    xt = t64(x)
    y = t(xt)
    CALLS["transform"] += 1
    check(y, fwd(x), f"{name} forward", rtol=1e-10, atol=1e-12)
    CALLS["transform_inverse"] += 1
    check(t.inv(y), x, f"{name} round trip", rtol=1e-6, atol=1e-8)
    assert bool(t.codomain.check(y).all()), f"{name}: y outside the codomain"
    ld = t.log_abs_det_jacobian(xt, y)
    h = 1e-6
    if ev == 0:
        want = np.log(np.abs((fwd(x + h) - fwd(x - h)) / (2 * h)))
    elif name == "StickBreakingTransform":
        want = _fd_logdet(lambda v: _stick_breaking(v)[..., :-1], x)
    else:
        want = _fd_logdet(fwd, x)
    CALLS["log_abs_det_jacobian"] += 1
    check(ld, want, f"{name} log|det J|", rtol=1e-5, atol=1e-6)
    # the inverse's log-determinant is minus the forward one
    check(t.inv.log_abs_det_jacobian(y, xt), -want, f"{name}.inv log|det J|", 1e-5, 1e-6)
    if ev == 0 and name != "PowerTransform":
        grad_ok(lambda v: t.log_abs_det_jacobian(v, t(v)), x[0])
    # SoftmaxTransform: softmax forward, inverse back up to a constant per row
    sm = T.SoftmaxTransform()(xt).numpy()
    want_sm = special.softmax(x, axis=-1)
    CALLS["softmax_transform"] += 1
    np.testing.assert_allclose(sm, want_sm, rtol=1e-10, atol=1e-14)
    back = T.SoftmaxTransform().inv(t64(want_sm)).numpy()
    d0 = back - x
    np.testing.assert_allclose(d0 - d0[..., :1], 0, atol=1e-9)


# ------------------------------------------------- regressions (bugs found here, fixed)
def test_beta_dirichlet_mode_regression():
    # Beta(8, 0.5) has its mode at 1 (ferrograd: 7 / 6.5 = 1.0769, outside [0, 1]); the
    # Dirichlet mode must lie on the simplex (PyTorch: [0.875, 0, 0.125])
    beta = D.Beta(t64(8.0), t64(0.5))
    np.testing.assert_allclose(beta.mode.item(), 1.0)
    mode = D.Dirichlet(t64([8.0, 0.5, 2.0])).mode.numpy()
    np.testing.assert_allclose(mode, [0.875, 0.0, 0.125], atol=1e-12)


def test_poisson_negative_count_regression():
    # without validation the formula's value (PyTorch: -inf), not a ValueError from
    # math.lgamma at its pole in distributions/_utils.py:log_factorial
    d = D.Poisson(t64(1.0), validate_args=False)
    assert d.log_prob(t64([-1.0, -2.0])).tolist() == [-np.inf, -np.inf]


def test_bernoulli_mode_half_regression():
    mode = D.Bernoulli(t64([0.5, 0.7])).mode.numpy()
    assert np.isnan(mode[0]) and mode[1] == 1.0
