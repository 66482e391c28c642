"""einsum: values against numpy.einsum in float64 (ellipsis, diagonals, implicit output,
broadcasting, 0-size dims, chains of operands), gradients (gradcheck and gradgradcheck),
the plan routing a batched matmul pattern through one matmul, and clear errors."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def t(*shape, grad=False):
    return fg.tensor(RNG.standard_normal(shape), requires_grad=grad)


CASES = [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("bii->b", [(2, 3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(5, 1, 3, 4), (2, 4, 2)]),
    ("...i,...i->...", [(5, 1, 3), (4, 3)]),
    ("i...->...", [(3, 2, 2)]),
    ("ab,cd->", [(2, 3), (4, 5)]),
    ("ab,b->a", [(2, 0), (0,)]),
    ("bij,bjk->bik", [(0, 3, 4), (0, 4, 5)]),
    ("ij,jk->ik", [(1, 3), (3, 4)]),
    ("i,i->", [(1,), (5,)]),
    (",->", [(), ()]),
    ("i,->i", [(3,), ()]),
    ("abc,cd,db->a", [(2, 3, 4), (4, 5), (5, 3)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", CASES)
def test_einsum_matches_numpy(eq, shapes):
    ops = [t(*s) for s in shapes]
    got = fg.einsum(eq, *ops).numpy()
    want = np.einsum(eq, *[o.numpy() for o in ops])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the list form (torch and Paddle both accept it)
    np.testing.assert_allclose(fg.einsum(eq, ops).numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("eq,shapes", [c for c in CASES if 0 not in sum(c[1], ())][:20])
def test_einsum_gradcheck_and_gradgradcheck(eq, shapes):
    ops = tuple(t(*s, grad=True) for s in shapes)
    assert gradcheck(lambda *xs: fg.einsum(eq, *xs), ops)
    assert gradgradcheck(lambda *xs: fg.einsum(eq, *xs), ops)


def test_batched_matmul_pattern_is_one_matmul():
    a, b = t(2, 3, 4, grad=True), t(2, 4, 5, grad=True)
    out = fg.einsum("bij,bjk->bik", a, b)
    assert out.grad_fn.name().startswith("Matmul")


def test_float32_stays_float32():
    a, b = t(3, 4).astype(fg.float32), t(4, 2).astype(fg.float32)
    assert fg.einsum("ij,jk->ik", a, b).dtype == fg.float32


@pytest.mark.parametrize(
    "eq,shapes,match",
    [
        ("ij,jk->ik", [(2, 3)], "operand terms"),
        ("ij->ik", [(2, 3)], "not in any input"),
        ("ij,jk->ik", [(2, 3), (4, 5)], "do not broadcast"),
        ("ijk->i", [(2, 3)], "names 3 dims"),
        ("ij->ii", [(2, 2)], "twice"),
        ("i1->i", [(2, 2)], "letters"),
        ("ii->i", [(2, 1)], "equal sizes"),
        ("i....->i", [(2,)], "once"),
    ],
)
def test_bad_equations_raise_clear_errors(eq, shapes, match):
    with pytest.raises(ValueError, match=match):
        fg.einsum(eq, *[t(*s) for s in shapes])


def test_equation_must_be_a_string():
    with pytest.raises(TypeError, match="str"):
        fg.einsum(t(2), t(2))


def test_paddle_dialect_name():
    import ferrograd as paddle

    x = paddle.to_tensor(np.ones((2, 3)))
    assert paddle.einsum("ij->j", x).shape == [3]


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:

    @settings(max_examples=40, deadline=None)
    @given(
        st.sampled_from(
            ["bij,bjk->bik", "ij,jk->ik", "bi,bi->b", "ijk,jl->ikl", "i,j,k->ijk", "ab,bc,cd->ad"]
        ),
        st.lists(st.integers(0, 4), min_size=6, max_size=6),
    )
    def test_random_sizes_match_numpy(eq, dims):
        sizes = dict(zip("abcdijklm", dims + dims[:3]))
        lhs = eq.split("->")[0].split(",")
        arrays = [np.asarray(RNG.standard_normal([sizes[c] for c in term])) for term in lhs]
        got = fg.einsum(eq, *[fg.tensor(a) for a in arrays]).numpy()
        np.testing.assert_allclose(got, np.einsum(eq, *arrays), rtol=1e-10, atol=1e-10)
