"""Differential fuzzer for gradients: random chains of a smooth unary op, a broadcasting
binary op, an indexing step and a reduction, on float64 tensors seen through random views,
checked against central finite differences with ``ferrograd.autograd.gradcheck`` (and the
value of the chain against NumPy). Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
from ferrograd.autograd import gradcheck
from fuzz_support import CALLS, FUZZ, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from test_fuzz_differential import broadcast_pair

# smooth on the drawn domain [0.5, 2]: (ferrograd, NumPy)
UNARY = {
    "exp": (fg.exp, np.exp),
    "log": (fg.log, np.log),
    "sqrt": (fg.sqrt, np.sqrt),
    "tanh": (fg.tanh, np.tanh),
    "sin": (fg.sin, np.sin),
    "square": (fg.square, np.square),
    "reciprocal": (lambda t: 1 / t, np.reciprocal),
    "pow3": (lambda t: t**3, lambda a: a**3),
    "softmax": (lambda t: fg.nn.functional.softmax(t, -1), None),
    "log_softmax": (lambda t: fg.nn.functional.log_softmax(t, -1), None),
}
BINARY = {
    "add": (lambda x, y: x + y, np.add),
    "mul": (lambda x, y: x * y, np.multiply),
    "div": (lambda x, y: x / y, np.divide),
    "pow": (lambda x, y: x**y, np.power),
    "maximum": (fg.maximum, np.maximum),
}
REDUCE = {
    "sum": (lambda t: t.sum(), np.sum),
    "mean": (lambda t: t.mean(), np.mean),
    "square_sum": (lambda t: (t * t).sum(), lambda a: (a * a).sum()),
    "logsumexp": (lambda t: t.logsumexp(-1) if t.ndim else t, None),
}


def to_leaf(t):
    t = t.detach()
    t.requires_grad = True
    return t


@FUZZ
@given(
    st.sampled_from(sorted(UNARY)),
    st.sampled_from(sorted(BINARY)),
    st.sampled_from(sorted(REDUCE)),
    st.data(),
)
def test_gradient_chains_against_finite_differences(u, b, r, data):
    # pow's base must stay positive: log and log_softmax are not on [0.5, 2]
    assume(not (b == "pow" and u in ("log", "log_softmax")))
    sa, sb = data.draw(broadcast_pair())
    (a, ta), (c, tc) = (
        data.draw(viewed("float64", sa, special=False, lo=0.5, hi=2.0)),
        data.draw(viewed("float64", sb, special=False, lo=0.5, hi=2.0)),
    )
    if b == "maximum":
        # keep |x - y| away from 0, where maximum has no derivative
        c = np.asarray(c) + 0.25 * np.sign(np.asarray(c) - 1.25 + 1e-9)
        tc = fg.tensor(c, dtype="float64")
    slicer = data.draw(st.sampled_from(["none", "reverse", "ellipsis"]))

    def chain(x, y):
        z = BINARY[b][0](UNARY[u][0](x), y)
        if slicer == "reverse" and z.ndim:
            z = z[::-1]
        elif slicer == "ellipsis" and z.ndim:
            z = z[..., :1]
        return REDUCE[r][0](z)

    x, y = to_leaf(ta), to_leaf(tc)
    # finite differences say nothing where the output is infinite (logsumexp of an empty
    # row is -inf: inf - inf is NaN), and gradcheck fails a NaN, as PyTorch's does
    assume(np.isfinite(chain(x, y).detach().numpy()).all())
    CALLS["gradcheck"] += 1
    assert gradcheck(chain, (x, y), eps=1e-6, atol=1e-6, rtol=1e-4)
    if UNARY[u][1] is not None and REDUCE[r][1] is not None:
        z = BINARY[b][1](UNARY[u][1](np.asarray(a)), np.asarray(c))
        if slicer == "reverse" and z.ndim:
            z = z[::-1]
        elif slicer == "ellipsis" and z.ndim:
            z = z[..., :1]
        np.testing.assert_allclose(chain(x, y).numpy(), REDUCE[r][1](z), rtol=1e-10, atol=1e-12)
