"""Which tensors each built-in op hands to the pack hook.

An op packs exactly what its backward formula needs for the gradients that are needed:
nothing under ``no_grad`` or when no input requires grad, never a Python number, and for
``a op b`` with only one side requiring grad, only what that side's gradient uses.
Packed tensors are identified by value against the op's inputs (``x0``, ``x1``) and its
output (``out``); anything else (an intermediate of a composite op) is ``other``.
"""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import saved_tensors_hooks


def packed_names(fn, shapes, requires):
    """Runs ``fn`` on distinct-valued inputs under a recording pack hook."""
    values = [
        np.linspace(0.3 + i, 1.7 + i, int(np.prod(s))).reshape(s) * (-1) ** i
        for i, s in enumerate(shapes)
    ]
    xs = [fg.tensor(v, requires_grad=r) for v, r in zip(values, requires)]
    packed = []

    def pack(t):
        packed.append(t.numpy().copy())
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        out = fn(*xs)
    out_np = out.detach().numpy()
    names = []
    for p in packed:
        for i, v in enumerate(values):
            if p.shape == v.shape and np.array_equal(p, v):
                names.append(f"x{i}")
                break
        else:
            same_as_out = p.shape == out_np.shape and np.array_equal(p, out_np)
            names.append("out" if same_as_out else "other")
    return sorted(names)


S = (2, 3)

# name: (fn, shapes, {requires_grad pattern: expected packs})
CASES = {
    "add": (lambda a, b: a + b, [S, S], {(1, 1): [], (1, 0): []}),
    "sub": (lambda a, b: a - b, [S, S], {(1, 1): [], (0, 1): []}),
    "mul": (lambda a, b: a * b, [S, S], {(1, 1): ["x0", "x1"], (1, 0): ["x1"], (0, 1): ["x0"]}),
    "div": (lambda a, b: a / b, [S, S], {(1, 1): ["x0", "x1"], (1, 0): ["x1"]}),
    "matmul": (
        lambda a, b: a @ b,
        [(2, 3), (3, 4)],
        {(1, 1): ["x0", "x1"], (1, 0): ["x1"], (0, 1): ["x0"]},
    ),
    "mul_number": (lambda a: a * 3.0, [S], {(1,): []}),
    "add_number": (lambda a: 1.5 + a, [S], {(1,): []}),
    "rsub_number": (lambda a: 1.0 - a, [S], {(1,): []}),
    "div_by_number": (lambda a: a / 4.0, [S], {(1,): []}),
    "number_div": (lambda a: 2.0 / a, [S], {(1,): ["out", "x0"]}),
    "pow_number": (lambda a: a**3, [S], {(1,): ["x0"]}),
    "number_pow": (lambda a: 2.0**a, [S], {(1,): ["out"]}),
    "exp": (lambda a: a.exp(), [S], {(1,): ["out"]}),
    "tanh": (lambda a: a.tanh(), [S], {(1,): ["out"]}),
    "sigmoid": (lambda a: a.sigmoid(), [S], {(1,): ["out"]}),
    "sqrt": (lambda a: a.abs().sqrt(), [S], {(1,): ["out", "x0"]}),  # abs saves x, sqrt y
    "log": (lambda a: a.abs().log(), [S], {(1,): ["x0"] * 2}),  # abs saves x; log its input
    "sin": (lambda a: a.sin(), [S], {(1,): ["x0"]}),
    "neg": (lambda a: -a, [S], {(1,): []}),
    "sum": (lambda a: a.sum(), [S], {(1,): []}),
    "mean": (lambda a: a.mean(), [S], {(1,): []}),
    "var": (lambda a: a.var(), [S], {(1,): ["other"]}),  # the centred input, once
    "reshape": (lambda a: a.reshape([3, 2]), [S], {(1,): []}),
    "transpose": (lambda a: a.T, [S], {(1,): []}),
    "getitem": (lambda a: a[0, 1:], [S], {(1,): []}),
    "concat": (lambda a, b: fg.concat([a, b]), [S, S], {(1, 1): []}),
    "log_softmax": (lambda a: fg.log_softmax(a, 1), [S], {(1,): ["out"]}),
    "softmax": (lambda a: fg.softmax(a, 1), [S], {(1,): ["out"]}),
    "logsumexp": (lambda a: a.logsumexp(1), [S], {(1,): ["out", "x0"]}),
}


@pytest.mark.parametrize(
    "name,requires",
    [(name, req) for name, (_, _, table) in CASES.items() for req in table],
    ids=lambda v: v if isinstance(v, str) else "".join(map(str, v)),
)
def test_op_packs_exactly_what_its_gradient_needs(name, requires):
    fn, shapes, table = CASES[name]
    assert packed_names(fn, shapes, [bool(r) for r in requires]) == sorted(table[requires])


@pytest.mark.parametrize("name", sorted(CASES))
def test_nothing_is_packed_without_a_graph(name):
    fn, shapes, _ = CASES[name]
    assert packed_names(fn, shapes, [False] * len(shapes)) == []
    with fg.no_grad():
        assert packed_names(fn, shapes, [True] * len(shapes)) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_finite_differences(name):
    """The single-node formulas (softmax family, number operands) are still right."""
    fn, shapes, _ = CASES[name]
    rng = np.random.default_rng(1)
    values = [rng.uniform(0.5, 1.5, s) for s in shapes]
    xs = [fg.tensor(v, requires_grad=True) for v in values]
    out = fn(*xs)
    weights = rng.normal(size=out.shape)
    (out * fg.tensor(weights)).sum().backward()
    for i, v in enumerate(values):
        numeric = np.zeros_like(v)
        for idx in np.ndindex(v.shape):
            hi, lo = [u.copy() for u in values], [u.copy() for u in values]
            hi[i][idx] += 1e-6
            lo[i][idx] -= 1e-6
            f_hi = (fn(*map(fg.tensor, hi)).numpy() * weights).sum()
            f_lo = (fn(*map(fg.tensor, lo)).numpy() * weights).sum()
            numeric[idx] = (f_hi - f_lo) / 2e-6
        np.testing.assert_allclose(xs[i].grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: fg.log_softmax(a, 1),
        lambda a: fg.softmax(a, 0),
        lambda a: a.logsumexp(1),
        lambda a: 2.0 / a,
        lambda a: 2.0**a,
        lambda a: a**3,
    ],
    ids=["log_softmax", "softmax", "logsumexp", "number_div", "number_pow", "pow_number"],
)
def test_second_order_gradients_match_finite_differences(fn):
    rng = np.random.default_rng(2)
    v = rng.uniform(0.5, 1.5, (2, 3))
    w = rng.normal(size=fn(fg.tensor(v)).shape)
    w2 = rng.normal(size=v.shape)

    def first_grad(values, create_graph=False):
        x = fg.tensor(values, requires_grad=True)
        (g,) = fg.grad((fn(x) * fg.tensor(w)).sum(), [x], create_graph=create_graph)
        return x, g

    x, g = first_grad(v, create_graph=True)
    (gg,) = fg.grad((g * fg.tensor(w2)).sum(), [x])
    numeric = np.zeros_like(v)
    for idx in np.ndindex(v.shape):
        hi, lo = v.copy(), v.copy()
        hi[idx] += 1e-6
        lo[idx] -= 1e-6
        numeric[idx] = (
            (first_grad(hi)[1].numpy() * w2).sum() - (first_grad(lo)[1].numpy() * w2).sum()
        ) / 2e-6
    np.testing.assert_allclose(gg.numpy(), numeric, rtol=1e-5, atol=1e-7)
