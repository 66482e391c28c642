"""Differential fuzzer for the gradients of the ops test_fuzz_gradcheck.py leaves out (scans,
statistics, order statistics, indexing, shape ops, broadcasting binary/ternary math, special
functions, matmul/einsum, in-place writes through views): float64 tensors of random shapes
(0-d and size-1 dims included) seen through the random views of ``fuzz_support.viewed``,
checked against central finite differences with ``ferrograd.autograd.gradcheck`` and, for
second derivatives, ``gradgradcheck``; each forward value is compared with NumPy/SciPy.

gradcheck hands the function a contiguous float64 clone of each input, so an input here is
the *base buffer* of the drawn view as the leaf, and the view is re-applied inside the
checked function: the op sees the strided view and its backward flows through the view's.
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.special as sp
from ferrograd.autograd import gradcheck, gradgradcheck
from fuzz_support import CALLS, FUZZ, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.spatial.distance import cdist as sp_cdist

# the tolerances of test_fuzz_gradcheck.py
TOL = dict(eps=1e-6, atol=1e-6, rtol=1e-4)
# no 0-size dims (nothing to differentiate), small enough for gradgradcheck's O(n^2) work
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
ND1 = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
ND2 = hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3)


def _layout(v, view=lambda v: v):
    try:
        v = view(v)
    except Exception:  # expand to a shape it cannot make
        return None
    return tuple(v.shape), v.stride(), v.storage_offset()


def _recipes(shape):
    """The views fuzz_support.viewed makes, as (ferrograd, NumPy) functions of the base."""
    rev = tuple(range(len(shape) - 1, -1, -1))
    sl = tuple(slice(None, None, -2) for _ in shape)
    return [
        (lambda x: x, lambda a: a),
        (lambda x: x.permute(*rev), lambda a: a.transpose(rev)),
        (lambda x: x[sl], lambda a: a[sl]),
        (lambda x: x.expand(list(shape)), lambda a: np.broadcast_to(a, shape)),
    ]


class Operand:
    """A leaf (the base buffer of a drawn view) and how the checked function sees it:
    ``view(base * m + c)``, with constants m, c that move the values into the op's smooth
    domain (distinct values, exact zeros, away from a kink) without giving up the view."""

    def __init__(self, base, view, nview, m=None, c=None):
        self.leaf = fg.tensor(base, dtype="float64", requires_grad=True)
        self.view, self.m, self.c = view, m, c
        self.value = np.array(nview(base * (1.0 if m is None else m) + (0 if c is None else c)))

    def __call__(self, x):
        x = x if self.m is None else x * fg.tensor(self.m, dtype="float64")
        return self.view(x if self.c is None else x + fg.tensor(self.c, dtype="float64"))


@st.composite
def operand(draw, shape, lo=-2.0, hi=2.0, prep=None):
    shape = tuple(shape)
    a, t = draw(viewed("float64", shape, special=False, lo=lo, hi=hi))
    base = t._base if t._base is not None else t
    b = base.numpy().copy()
    view, nview = next(r for r in _recipes(shape) if _layout(base, r[0]) == _layout(t))
    np.testing.assert_array_equal(nview(b), a)
    m, c = prep(draw, b, nview) if prep else (None, None)
    return Operand(b, view, nview, m, c)


# --- preparations: (m, c) for Operand, from the base values b -----------------------------
def distinct(draw, b, nview):
    # b in [0, 0.5] plus a shuffled 0, 1, 2, ...: base values at least 0.5 apart (copies
    # made by an expanded view tie, but move together, so the op stays smooth in the base)
    perm = np.array(draw(st.permutations(range(b.size))), dtype=float)
    return None, perm.reshape(b.shape) - b.size / 2


def signed(draw, b, nview):
    # b in [0.25, 2] times a random sign: |x| >= 0.25, away from a kink or pole at 0
    s = draw(hnp.arrays("float64", b.shape, elements=st.sampled_from([-1.0, 1.0])))
    return s, None


def signed_distinct(draw, b, nview):
    # b in [0, 0.5]: distinct magnitudes >= 1, random signs (inf-norm)
    s = draw(hnp.arrays("float64", b.shape, elements=st.sampled_from([-1.0, 1.0])))
    perm = np.array(draw(st.permutations(range(b.size))), dtype=float).reshape(b.shape)
    return s, s * (perm + 1)


def signed_zeros(k):
    def prep(draw, b, nview):
        # b in [0.5, 1.25], random signs, and exact zeros at k base elements the view
        # sees (c = -x there: x - x == 0.0). |x| near 1 keeps products of up to 27
        # factors O(1), so finite-difference rounding stays under atol. Tiny nonzero
        # values are avoided: the x.prod()/x gradient formula (PyTorch's too) loses all
        # precision in double backward there, and along a size-1 dim ferrograd's does
        # where PyTorch's is exact (test_cumprod_size1_dim_double_backward)
        s, _ = signed(draw, b, nview)
        seen = sorted(set(nview(np.arange(b.size).reshape(b.shape)).reshape(-1).tolist()))
        pos = list(draw(st.sets(st.sampled_from(seen), min_size=min(k, len(seen)), max_size=k)))
        c = np.zeros(b.size)
        c[pos] = -(b * s).reshape(-1)[pos]
        return s, c.reshape(b.shape)

    return prep


def away(draw, b, nview, gap=0.25):
    # values within `gap` of clamp's bounds +-0.5 pushed out to `gap` (off the kinks)
    push = [np.where(np.abs(b - bd) < gap, np.where(b >= bd, gap, -gap), 0.0) for bd in (-0.5, 0.5)]
    return None, sum(push)


def check(f, ref, *ops):
    """Forward value against NumPy, then gradcheck and gradgradcheck of ``f`` applied to
    the operands' views, differentiating with respect to the bases."""

    def g(*xs):
        return f(*(o(x) for o, x in zip(ops, xs)))

    leaves = tuple(o.leaf for o in ops)
    got = g(*leaves).detach().numpy()
    want = np.asarray(ref(*(o.value for o in ops)))
    assert got.shape == want.shape, f"shape {got.shape} != NumPy's {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    CALLS["forward"] += 1
    assert gradcheck(g, leaves, **TOL)
    CALLS["gradcheck"] += 1
    assert gradgradcheck(g, leaves, **TOL)
    CALLS["gradgradcheck"] += 1


def a_dim(draw, nd):
    # a 0-d tensor accepts dim 0 and -1, as PyTorch's
    return draw(st.integers(-max(nd, 1), max(nd, 1) - 1))


def some_dims(draw, nd):
    return tuple(sorted(draw(st.sets(st.integers(0, nd - 1), min_size=1)))) if nd else None


@st.composite
def broadcast_shapes(draw, n):
    """n shapes (no 0-size) broadcasting together: suffixes of one shape, dims set to 1."""
    s = draw(SHAPES)
    tails = [s[len(s) - draw(st.integers(0, len(s))) :] for _ in range(n)]
    return [tuple(1 if draw(st.booleans()) else d for d in t) for t in tails]


def nd0(a, fn):
    # NumPy's scans and sorts refuse 0-d arrays; PyTorch treats them as one element
    return fn(a.reshape(1)).reshape(()) if a.ndim == 0 else fn(a)


def scan(fn, a, dim):  # dim=None: the flattened tensor (0-d too: shape (1,)), as NumPy
    return fn(a) if dim is None else nd0(a, lambda b: fn(b, dim))


CASES = {}


def case(fn):
    CASES[fn.__name__[len("case_") :]] = fn
    return fn


# --- scans and products ------------------------------------------------------------------
@case
def case_cumsum(d):
    x = d(operand(d(SHAPES)))
    dim = d(st.one_of(st.none(), st.just(a_dim(d, x.value.ndim))))
    check(lambda t: fg.cumsum(t, dim=dim), lambda a: scan(np.cumsum, a, dim), x)


@case
def case_cumprod(d):
    # a polynomial: exact zeros (one or two) are where a naive x.prod()/x gradient fails
    x = d(operand(d(SHAPES), lo=0.5, hi=1.25, prep=signed_zeros(d(st.integers(0, 2)))))
    dim = d(st.one_of(st.none(), st.just(a_dim(d, x.value.ndim))))
    check(lambda t: fg.cumprod(t, dim=dim), lambda a: scan(np.cumprod, a, dim), x)


@case
def case_prod(d):
    x = d(operand(d(SHAPES), lo=0.5, hi=1.25, prep=signed_zeros(d(st.integers(0, 2)))))
    if d(st.booleans()):
        return check(lambda t: t.prod(), np.prod, x)
    dim, keep = a_dim(d, x.value.ndim), d(st.booleans())
    ref = lambda a: np.prod(a, dim if a.ndim else None, keepdims=keep)  # noqa: E731
    check(lambda t: t.prod(dim=dim, keepdim=keep), ref, x)


@case
def case_logcumsumexp(d):
    x = d(operand(d(SHAPES), lo=-3, hi=3))
    dim = a_dim(d, x.value.ndim)
    ref = lambda a: nd0(a, lambda b: np.logaddexp.accumulate(b, dim))  # noqa: E731
    check(lambda t: fg.logcumsumexp(t, dim=dim), ref, x)


# --- statistics and norms ----------------------------------------------------------------
@case
def case_var_std(d):
    x = d(operand(d(SHAPES), lo=0.0, hi=0.5, prep=distinct))
    nd = x.value.ndim
    dims, corr, keep = some_dims(d, nd), d(st.sampled_from([0, 1])), d(st.booleans())
    op = d(st.sampled_from(["var", "std"]))
    n = int(np.prod([x.value.shape[i] for i in dims])) if dims else x.value.size
    # zero variance (one element, or copies of one base element) is std's kink
    assume(n >= 2 and (np.var(x.value, axis=dims) > 0.01).all())
    ref = {"var": np.var, "std": np.std}[op]
    f = lambda t: getattr(t, op)(dim=dims, correction=corr, keepdim=keep)  # noqa: E731
    check(f, lambda a: ref(a, axis=dims, ddof=corr, keepdims=keep), x)


@case
def case_norm(d):
    p = d(st.sampled_from([1, 2, 3, float("inf")]))
    # p = 1 and 3: |x| >= 0.25 (kink of |x|); inf: distinct |x| (no tie for the max)
    prep = signed_distinct if p == float("inf") else signed
    x = d(operand(d(SHAPES), lo=0.0 if prep is signed_distinct else 0.25, prep=prep))
    nd = x.value.ndim
    # None: all elements; an int or a tuple of dims: the vector norm over those
    dim = d(st.one_of(st.none(), st.integers(0, nd - 1), st.just(some_dims(d, nd)))) if nd else None
    keep = d(st.booleans()) and dim is not None

    def ref(a):
        b = np.abs(a)
        if p == float("inf"):
            return b.max(axis=dim, keepdims=keep)
        return (b**p).sum(axis=dim, keepdims=keep) ** (1 / p)

    check(lambda t: fg.norm(t, p=p, dim=dim, keepdim=keep), ref, x)


@case
def case_logsumexp(d):
    x = d(operand(d(SHAPES), lo=-3, hi=3))
    dims, keep = some_dims(d, x.value.ndim), d(st.booleans())
    # SciPy gives a 0-d array keepdims shape (1,); NumPy's reductions (and ferrograd) ()
    shape = np.sum(x.value, dims, keepdims=keep).shape
    ref = lambda a: sp.logsumexp(a, dims).reshape(shape)  # noqa: E731
    check(lambda t: fg.logsumexp(t, dim=dims, keepdim=keep), ref, x)


# --- order statistics: distinct base values, so no ties move the argmax ------------------
def sorted_along(a, dim, desc, k=None):
    s = nd0(a, lambda b: np.sort(b, dim))
    s = nd0(s, lambda b: np.flip(b, dim)) if desc else s
    return s if k is None else nd0(s, lambda b: np.take(b, range(k), dim))


@case
def case_sort_topk(d):
    x = d(operand(d(SHAPES), lo=0.0, hi=0.5, prep=distinct))
    dim, desc = a_dim(d, x.value.ndim), d(st.booleans())
    if d(st.booleans()):
        f = lambda t: fg.sort(t, dim=dim, descending=desc).values  # noqa: E731
        return check(f, lambda a: sorted_along(a, dim, desc), x)
    k = d(st.integers(1, x.value.shape[dim] if x.value.ndim else 1))
    f = lambda t: fg.topk(t, k, dim=dim, largest=desc).values  # noqa: E731
    check(f, lambda a: sorted_along(a, dim, desc, k), x)


@case
def case_kthvalue_median(d):
    x = d(operand(d(SHAPES), lo=0.0, hi=0.5, prep=distinct))
    nd = x.value.ndim
    op, keep = d(st.sampled_from(["kthvalue", "median", "median_all"])), d(st.booleans())
    if op == "median_all":
        # Paddle's default: the mean of the two middle values of an even count, as NumPy
        return check(lambda t: fg.median(t), np.median, x)
    dim = a_dim(d, nd)
    n = x.value.shape[dim] if nd else 1
    k = d(st.integers(1, n)) if op == "kthvalue" else (n + 1) // 2  # the lower median

    def ref(a):
        s = nd0(a, lambda b: np.take(np.sort(b, dim), [k - 1], dim))
        return s if keep or not nd else s.squeeze(dim)

    args = (k,) if op == "kthvalue" else ()
    check(lambda t: getattr(fg, op)(t, *args, dim=dim, keepdim=keep).values, ref, x)


@case
def case_amax_amin_max(d):
    x = d(operand(d(SHAPES), lo=0.0, hi=0.5, prep=distinct))
    nd = x.value.ndim
    op, keep = d(st.sampled_from(["amax", "amin", "max", "min"])), d(st.booleans())
    ref = {"amax": np.max, "amin": np.min, "max": np.max, "min": np.min}[op]
    if op in ("amax", "amin"):
        dims = some_dims(d, nd)
        f = lambda t: getattr(fg, op)(t, dim=dims, keepdim=keep)  # noqa: E731
        return check(f, lambda a: ref(a, axis=dims, keepdims=keep), x)
    dim = a_dim(d, nd)
    f = lambda t: getattr(fg, op)(t, dim=dim, keepdim=keep).values  # noqa: E731
    check(f, lambda a: ref(a, axis=dim if nd else None, keepdims=keep and nd > 0), x)


# --- indexing: repeated indices, so gradients must accumulate ----------------------------
@st.composite
def along_index(draw, shape, dim, smaller=False):
    # an index shaped as `shape` except (maybe) along dim, values repeating; `smaller`:
    # other dims may be shorter than the input's (torch.gather allows it)
    ishape = [draw(st.integers(1, n)) if smaller else n for n in shape]
    if shape:
        ishape[dim] = draw(st.integers(1, 4))
    n = shape[dim] if shape else 1
    return draw(hnp.arrays("int64", tuple(ishape), elements=st.integers(0, n - 1)))


@case
def case_gather_take_along_axis(d):
    x = d(operand(d(SHAPES)))
    nd = x.value.ndim
    dim = a_dim(d, nd)
    gather = d(st.booleans())
    idx = d(along_index(x.value.shape, dim, smaller=gather))
    ti = fg.tensor(idx, dtype="int64")

    def ref(a):
        if not nd:
            return a.copy()
        crop = tuple(slice(None) if i == dim % nd else slice(n) for i, n in enumerate(idx.shape))
        return np.take_along_axis(a[crop], idx, dim)

    check(
        (lambda t: t.gather(dim, ti)) if gather else (lambda t: fg.take_along_axis(t, ti, dim)),
        ref,
        x,
    )


@case
def case_index_select(d):
    x = d(operand(d(ND1)))
    dim = a_dim(d, x.value.ndim)
    n = x.value.shape[dim]
    idx = np.array(d(st.lists(st.integers(0, n - 1), min_size=1, max_size=5)), dtype=np.int64)
    ti = fg.tensor(idx, dtype="int64")
    check(lambda t: fg.index_select(t, ti, dim=dim), lambda a: np.take(a, idx, dim), x)


# --- shape ops ---------------------------------------------------------------------------
@case
def case_repeat_interleave(d):
    x = d(operand(d(SHAPES)))
    nd = x.value.ndim
    dim = d(st.one_of(st.none(), st.integers(0, nd - 1))) if nd else None
    n = x.value.size if dim is None else x.value.shape[dim]
    if d(st.booleans()):
        r = nr = d(st.integers(1, 3))
    else:
        nr = np.array(d(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.int64)
        r = fg.tensor(nr, dtype="int64")
    check(lambda t: fg.repeat_interleave(t, r, dim=dim), lambda a: np.repeat(a, nr, dim), x)


@case
def case_tile_flip_roll(d):
    x = d(operand(d(SHAPES)))
    nd = x.value.ndim
    op = d(st.sampled_from(["tile", "flip", "roll", "roll_flat"]))
    if op == "tile":
        reps = tuple(d(st.lists(st.integers(1, 2), min_size=0, max_size=nd + 1)))
        check(lambda t: fg.tile(t, reps), lambda a: np.tile(a, reps), x)
    elif op == "flip":
        dims = some_dims(d, nd) or ()
        check(lambda t: fg.flip(t, dims), lambda a: np.flip(a, dims), x)
    elif op == "roll":
        assume(nd)  # PyTorch too refuses dims=0 of a 0-d tensor
        dims = some_dims(d, nd)
        shifts = tuple(d(st.integers(-4, 4)) for _ in dims)
        check(lambda t: fg.roll(t, shifts, dims), lambda a: np.roll(a, shifts, dims), x)
    else:
        s = d(st.integers(-5, 5))
        check(lambda t: fg.roll(t, s), lambda a: np.roll(a, s), x)


@case
def case_diagonal_tril_triu_trace(d):
    op = d(st.sampled_from(["diagonal", "tril", "triu", "trace"]))
    shape = d(ND2.filter(lambda s: len(s) == 2) if op == "trace" else ND2)
    x = d(operand(shape))
    k = d(st.integers(-2, 2))
    if op == "diagonal":
        d1, d2 = d(st.permutations(range(len(shape))))[:2]
        check(lambda t: fg.diagonal(t, k, d1, d2), lambda a: np.diagonal(a, k, d1, d2), x)
    elif op == "trace":
        check(lambda t: fg.trace(t), np.trace, x)
    else:
        check(lambda t: getattr(fg, op)(t, k), lambda a: getattr(np, op)(a, k), x)


@case
def case_diff(d):
    x = d(operand(d(ND1)))
    nd = x.value.ndim
    dim, n = a_dim(d, nd), d(st.integers(1, 2))
    names = [side for side in ("append", "prepend") if d(st.booleans())]
    sizes = [list(x.value.shape) for _ in names]
    for s_ in sizes:
        s_[dim] = d(st.integers(1, 2))
    extra = [d(operand(s_)) for s_ in sizes]  # differentiated too
    f = lambda t, *e: fg.diff(t, n, dim, **dict(zip(names, e)))  # noqa: E731
    check(f, lambda a, *e: np.diff(a, n, dim, **dict(zip(names, e))), x, *extra)


# --- broadcasting binary and ternary math ------------------------------------------------
@case
def case_where(d):
    sc, sx, sy = d(broadcast_shapes(3))
    cond = d(hnp.arrays(bool, sc))
    tc = fg.tensor(cond, dtype="bool")
    x, y = d(operand(sx)), d(operand(sy))
    check(lambda a, b: fg.where(tc, a, b), lambda a, b: np.where(cond, a, b), x, y)


@case
def case_clamp(d):
    # x at least 0.25 from +-0.5, the bounds: numbers +-0.5 or broadcast tensors (also
    # differentiated) within 0.05 of them, so no element sits on a kink
    which = d(st.sampled_from([("min", "max"), ("min",), ("max",)]))
    sx, *sb = d(broadcast_shapes(3))
    x = d(operand(sx, prep=away))

    def ref(a, *bs):
        return np.clip(a, *(dict(zip(which, bs)).get(k) for k in ("min", "max")))

    if d(st.booleans()):
        kw = {k: {"min": -0.5, "max": 0.5}[k] for k in which}
        return check(lambda t: fg.clamp(t, **kw), lambda a: ref(a, *kw.values()), x)
    sign = {"min": lambda *_: (-1.0, None), "max": None}
    bounds = [d(operand(s_, lo=0.45, hi=0.55, prep=sign[k])) for k, s_ in zip(which, sb)]
    check(lambda t, *bs: fg.clamp(t, **dict(zip(which, bs))), ref, x, *bounds)


@case
def case_cdist(d):
    batch = d(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2))
    p_, r_, m_ = (d(st.integers(1, 3)) for _ in range(3))
    p = d(st.sampled_from([1.0, 2.0, 3.0]))

    def spread(odd):
        # coordinates of x1 on even integers, of x2 on odd ones (+ [0, 0.5]): no two
        # points share a coordinate, so every |x1_i - x2_i| >= 0.5 (no kink, no 0 distance)
        def prep(draw, b, nview):
            perm = np.array(draw(st.permutations(range(b.size))), dtype=float)
            return None, (2 * perm + odd).reshape(b.shape)

        return prep

    x1 = d(operand(batch + (p_, m_), lo=0.0, hi=0.5, prep=spread(0)))
    x2 = d(operand(batch + (r_, m_), lo=0.0, hi=0.5, prep=spread(1)))

    def ref(a, b):
        a, b = a.reshape((-1,) + a.shape[-2:]), b.reshape((-1,) + b.shape[-2:])
        out = np.stack([sp_cdist(u, v, "minkowski", p=p) for u, v in zip(a, b)])
        return out.reshape(batch + out.shape[-2:])

    check(lambda a, b: fg.cdist(a, b, p=p), ref, x1, x2)


@case
def case_cosine_similarity(d):
    s1, s2 = d(broadcast_shapes(2))
    assume(max(len(s1), len(s2)) >= 1)
    # |x| >= 0.25: norms far above eps = 1e-8
    x1, x2 = d(operand(s1, lo=0.25, prep=signed)), d(operand(s2, lo=0.25, prep=signed))
    nd = max(len(s1), len(s2))
    dim = d(st.integers(-nd, nd - 1))

    def ref(a, b):
        a, b = np.broadcast_arrays(a, b)
        num = (a * b).sum(dim)
        return num / (np.linalg.norm(a, axis=dim) * np.linalg.norm(b, axis=dim))

    check(lambda a, b: fg.cosine_similarity(a, b, dim=dim), ref, x1, x2)


@case
def case_lerp_addcmul_addcdiv(d):
    op = d(st.sampled_from(["lerp", "lerp_scalar", "addcmul", "addcdiv"]))
    s = d(broadcast_shapes(3))
    x, y = d(operand(s[0])), d(operand(s[1]))
    if op == "lerp_scalar":
        w = d(st.floats(-1, 2))
        return check(lambda a, b: fg.lerp(a, b, w), lambda a, b: a + w * (b - a), x, y)
    # addcdiv's divisor: |z| >= 0.25, away from the pole
    z = d(operand(s[2], lo=0.25, prep=signed)) if op == "addcdiv" else d(operand(s[2]))
    v = d(st.sampled_from([1.0, -0.5, 2.0]))
    f, ref = {
        "lerp": (fg.lerp, lambda a, b, c: a + c * (b - a)),
        "addcmul": (lambda a, b, c: fg.addcmul(a, b, c, value=v), lambda a, b, c: a + v * b * c),
        "addcdiv": (lambda a, b, c: fg.addcdiv(a, b, c, value=v), lambda a, b, c: a + v * b / c),
    }[op]
    check(f, ref, x, y, z)


@case
def case_atan2_hypot_xlogy(d):
    op = d(st.sampled_from(["atan2", "hypot", "xlogy"]))
    s1, s2 = d(broadcast_shapes(2))
    if op == "xlogy":
        # x > 0 (x == 0 is xlogy's special case), y > 0 (log's domain)
        x, y = d(operand(s1, lo=0.25)), d(operand(s2, lo=0.25, hi=3.0))
        return check(fg.xlogy, sp.xlogy, x, y)
    # both |.| >= 0.25: off the origin (hypot's kink) and off atan2's cut at y = 0, x < 0
    x, y = d(operand(s1, lo=0.25, prep=signed)), d(operand(s2, lo=0.25, prep=signed))
    check(getattr(fg, op), getattr(np, op.replace("atan2", "arctan2")), x, y)


# smooth on [-3, 3]; lgamma and digamma on [0.5, 5], clear of their poles at 0, -1, ...
UNARY = {
    "sinh": (fg.sinh, np.sinh, -3), "cosh": (fg.cosh, np.cosh, -3),
    "asinh": (fg.asinh, np.arcsinh, -3), "atan": (fg.atan, np.arctan, -3),
    "sigmoid": (fg.sigmoid, sp.expit, -3), "erf": (fg.erf, sp.erf, -3),
    "lgamma": (fg.lgamma, sp.gammaln, 0.5), "digamma": (fg.digamma, sp.digamma, 0.5),
}  # fmt: skip
for _name, (_f, _ref, _lo) in UNARY.items():
    CASES[f"unary_{_name}"] = lambda d, f=_f, ref=_ref, lo=_lo: check(
        f, ref, d(operand(d(SHAPES), lo=lo, hi=3.0 if lo < 0 else 5.0))
    )


# --- matmul and einsum -------------------------------------------------------------------
@case
def case_matmul(d):
    n, k, m = (d(st.integers(1, 3)) for _ in range(3))
    ba, bb = d(broadcast_shapes(2))
    ba, bb = ba[-2:], bb[-2:]  # at most 4-d operands
    sa = (k,) if d(st.booleans()) else ba + (n, k)
    sb = (k,) if d(st.booleans()) else bb + (k, m)
    x, y = d(operand(sa)), d(operand(sb))
    check(fg.matmul, np.matmul, x, y)


EINSUM = [
    "ij,jk->ik", "bij,bjk->bik", "ii->i", "ii->", "i,i->", "i,j->ij", "ij->ji", "bij,j->bi",
    "ij,ij->i",
]  # fmt: skip


@case
def case_einsum(d):
    eq = d(st.sampled_from(EINSUM))
    size = {c: d(st.integers(1, 3)) for c in sorted(set(eq) - set(",->"))}
    ops = [d(operand(tuple(size[c] for c in term))) for term in eq.split("->")[0].split(",")]
    check(lambda *t: fg.einsum(eq, *t), lambda *a: np.einsum(eq, *a), *ops)


# --- in-place writes through a view of a non-leaf ----------------------------------------
def _diag_view(y):
    n, st_ = min(y.shape[:2]), y.stride()
    return y.as_strided((n,) + tuple(y.shape[2:]), (st_[0] + st_[1],) + st_[2:], 0)


def _inplace_views(nd):
    """Views of a non-leaf to write through: (ferrograd, NumPy on an index array)."""
    views = {"whole": (lambda y: y[...], lambda a: a)}
    if nd >= 1:
        views["step"] = (lambda y: y[::2], lambda a: a[::2])
        views["tail"] = (lambda y: y[1:], lambda a: a[1:])
        views["select"] = (lambda y: y[0], lambda a: a[0])
        views["reversed"] = (lambda y: y[..., ::-1], lambda a: a[..., ::-1])
    if nd >= 2:
        views["transpose"] = (lambda y: y.transpose(0, -1), lambda a: np.swapaxes(a, 0, -1))
        # ferrograd's diagonal() is a copy (documented; PyTorch's is a view): as_strided
        # makes the diagonal view instead
        views["diagonal"] = (_diag_view, lambda a: np.moveaxis(np.diagonal(a), -1, 0))
    return views


@case
def case_inplace_through_view(d):
    x = d(operand(d(SHAPES)))
    view, nview = d(st.sampled_from(sorted(_inplace_views(x.value.ndim).items())))[1]
    # where the view's elements sit in the base, for the NumPy reference
    pos = np.asarray(nview(np.arange(x.value.size).reshape(x.value.shape)))
    assume(pos.size > 0)  # "tail" of a size-1 dim
    k = d(st.integers(0, pos.ndim))
    w = d(operand(tuple(1 if d(st.booleans()) else n for n in pos.shape[pos.ndim - k :])))
    steps = d(st.lists(st.sampled_from(["mul_", "add_"]), min_size=1, max_size=2))
    out = d(st.sampled_from(["base", "view"]))

    def f(t, u):
        y = t.clone()  # a non-leaf: a leaf that requires grad refuses in-place writes
        v = view(y)
        for s in steps:
            getattr(v, s)(u)
        return y if out == "base" else v

    def ref(a, b):
        y = np.array(a, dtype=float).reshape(-1)
        for s in steps:
            y[pos] = y[pos] * b if s == "mul_" else y[pos] + b
        return y.reshape(a.shape) if out == "base" else y[pos]

    check(f, ref, x, w)


@pytest.mark.parametrize("name", sorted(CASES))
@FUZZ
@given(data=st.data())
def test_gradients_against_finite_differences(name, data):
    CASES[name](data.draw)


# --- deterministic cases -----------------------------------------------------------------
@pytest.mark.parametrize("zero_at", [(1,), (1, 3)], ids=["one_zero", "two_zeros"])
@pytest.mark.parametrize("op", ["cumprod", "prod", "prod_all"])
def test_exact_zeros(op, zero_at):
    # the fuzzer's zeros may be copied by an expanded view; here exactly one or two
    a = np.array([[0.8, -1.1, 0.9, 1.2], [1.1, 0.7, -0.6, 1.3]])
    a[0, list(zero_at)] = 0.0
    x = fg.tensor(a, dtype="float64", requires_grad=True)
    f = {"cumprod": lambda t: fg.cumprod(t, 1), "prod": lambda t: t.prod(1)}.get(op, fg.prod)
    assert gradcheck(f, (x,), **TOL)
    assert gradgradcheck(f, (x,), **TOL)


@pytest.mark.parametrize("shape", [(), (1,)])
def test_cumprod_size1_dim_double_backward(shape):
    # a line of one element is the identity: the gradient is grad_output unchanged, as
    # PyTorch's, with no term divided by x (its derivative at x = 1e-100 was 4.9e83)
    x = fg.tensor(np.full(shape, 1e-100), dtype="float64", requires_grad=True)
    go = fg.tensor(np.full(shape, 0.3), dtype="float64", requires_grad=True)
    (g,) = fg.autograd.grad(fg.cumprod(x, dim=0), x, go, create_graph=True)
    assert g.tolist() == np.full(shape, 0.3).tolist()
    gx, ggo = fg.autograd.grad(g.sum(), [x, go], allow_unused=True)
    assert gx is None or gx.tolist() == np.zeros(shape).tolist()
    assert ggo.tolist() == np.ones(shape).tolist()
