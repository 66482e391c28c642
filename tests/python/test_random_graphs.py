"""Random computation graphs — fan-out, shared inputs (``a * a``), views, in-place ops on
non-leaves — whose gradients are checked against float64 central
finite differences of the same program, and whose float32 gradients are checked against
the float64 ones."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SHAPE = (2, 3)
N_LEAVES = 3

OPS = [
    "mul",
    "add",
    "sub",
    "tanh",
    "sin",
    "exp_tanh",
    "square",
    "shared_mul",
    "div_soft",
    "view_t",
    "view_reshape",
    "view_slice",
    "inplace",
    "matmul_t",
    "sum_bcast",
]


@st.composite
def programs(draw):
    n_ops = draw(st.integers(3, 14))
    prog = []
    for k in range(n_ops):
        pool = N_LEAVES + k
        op = draw(st.sampled_from(OPS))
        i = draw(st.integers(0, pool - 1))
        j = draw(st.integers(0, pool - 1))
        c = draw(st.sampled_from([-1.5, -0.5, 0.5, 2.0]))
        prog.append((op, i, j, c))
    n_out = N_LEAVES + n_ops
    outs = draw(st.lists(st.integers(0, n_out - 1), min_size=1, max_size=4))
    return prog, outs


def apply(op, a, b, c):
    if op == "mul":
        return a * b
    if op == "add":
        return a + b * c
    if op == "sub":
        return a - b
    if op == "tanh":
        return a.tanh()
    if op == "sin":
        return (a * c).sin()
    if op == "exp_tanh":
        return a.tanh().exp()
    if op == "square":
        return a.tanh() * a.tanh()
    if op == "shared_mul":
        return a * a  # both inputs of one node are the same tensor
    if op == "div_soft":
        return a / (b * b + 1.0)
    if op == "view_t":
        return a.t().tanh().t()
    if op == "view_reshape":
        return (a.reshape(3, 2) * c).reshape(2, 3)
    if op == "view_slice":
        return a[:, 1:].sum(axis=1, keepdim=True) * b  # broadcast back to (2, 3)
    if op == "inplace":
        h = a + b  # a fresh non-leaf: nothing saved it yet
        h.mul_(c)
        h.add_(b)
        return h
    if op == "matmul_t":
        return (a @ b.t()).tanh() @ b * 0.5
    if op == "sum_bcast":
        return a - a.mean(axis=0, keepdim=True)
    raise AssertionError(op)


def run(program, leaves):
    prog, outs = program
    env = list(leaves)
    for op, i, j, c in prog:
        env.append(apply(op, env[i], env[j], c))
    total = env[outs[0]].sum()
    for k, o in enumerate(outs[1:], start=2):
        total = total + (env[o] * float(k)).sum()
    return total


def finite_differences(program, arrays, eps=1e-6):
    def value(arrs):
        with fg.no_grad():
            return run(program, [fg.tensor(a) for a in arrs]).item()

    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (value(plus) - value(minus)) / (2 * eps)
        grads.append(g)
    return grads


@settings(max_examples=40, deadline=None, derandomize=True)
@given(programs(), st.integers(0, 2**32 - 1))
def test_random_graph_gradients_match_finite_differences(program, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, SHAPE) for _ in range(N_LEAVES)]
    leaves = [fg.tensor(a, requires_grad=True) for a in arrays]
    run(program, leaves).backward()
    expected = finite_differences(program, arrays)
    for x, e in zip(leaves, expected):
        got = np.zeros(SHAPE) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, e, rtol=1e-5, atol=1e-6)

    # the same graph in float32 agrees with the float64 gradients
    leaves32 = [fg.tensor(a, dtype="float32", requires_grad=True) for a in arrays]
    run(program, leaves32).backward()
    for x32, e in zip(leaves32, expected):
        got = np.zeros(SHAPE) if x32.grad is None else x32.grad.numpy().astype(np.float64)
        np.testing.assert_allclose(got, e, rtol=2e-3, atol=2e-3)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(programs(), st.integers(0, 2**32 - 1))
def test_random_graph_grad_equals_backward_and_retain_graph_repeats(program, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, SHAPE) for _ in range(N_LEAVES)]
    leaves = [fg.tensor(a, requires_grad=True) for a in arrays]
    out = run(program, leaves)
    first = fg.grad(out, leaves, retain_graph=True, allow_unused=True)
    out.backward(retain_graph=True)
    out.backward()
    for x, g in zip(leaves, first):
        g = np.zeros(SHAPE) if g is None else g.numpy()
        got = np.zeros(SHAPE) if x.grad is None else x.grad.numpy()
        np.testing.assert_allclose(got, 2 * g, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("width", [1, 7, 50])
def test_wide_fan_out_and_fan_in(width):
    x = fg.tensor([0.3, -0.2], dtype="float64", requires_grad=True)
    branches = [(x * float(k)).sin() for k in range(width)]
    total = branches[0]
    for b in branches[1:]:
        total = total + b
    total.sum().backward()
    expected = sum(k * np.cos(k * np.array([0.3, -0.2])) for k in range(width))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
