"""The engine gives each node its input buffer (one slot per output) when the first
gradient reaches it, reusing the vector the parent returned (issue 23: the 10k-op chain
allocates no buffer per node). What each node sees must not change: gradients summed over
several parents, `None` slots for outputs that got no gradient (zeros for a built-in
node), a node that got no gradient at all passing none on, and a graph run twice. Checked
against NumPy float64."""

import ferrograd as fg
import numpy as np
from ferrograd.autograd import Function

X = np.array([0.5, -1.25, 2.0])


def leaf(v=X, dtype="float64"):
    return fg.tensor(np.asarray(v, dtype=dtype), requires_grad=True)


def test_a_long_chain_of_number_ops():
    x = leaf()
    y = x
    for k in range(3000):
        y = y * 1.001 if k % 3 == 0 else y + 1.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 1.001**1000), rtol=1e-12)


def test_a_node_with_several_parents_sums_their_gradients():
    x = leaf()
    a = x * x
    y = (a.exp() + a * 2.0 + a).sum()
    y.backward()
    a_np = X * X
    np.testing.assert_allclose(x.grad.numpy(), (np.exp(a_np) + 3.0) * 2 * X, rtol=1e-12)


def test_an_output_without_gradient_reaches_its_node_as_zeros():
    x = leaf(np.arange(6.0))
    first, second = x.split(3)
    (first * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0, 0.0, 0.0, 0.0])
    x.grad = None
    # both outputs of the same node, from different parents
    ((first * 3.0).sum() + second.exp().sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.r_[[3.0] * 3, np.exp([3.0, 4.0, 5.0])])


class NoGrad(Function):
    """Returns its input doubled; sends no gradient back."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return None


def test_a_node_that_gets_no_gradient_passes_none_on():
    x = leaf()
    a = x * 3.0
    seen = []
    a.register_hook(lambda g: seen.append(g))
    NoGrad.apply(a).sum().backward()
    assert x.grad is None
    # the hook on `a` ran with no gradient (PyTorch: an undefined gradient)
    assert seen == [None]


def test_a_graph_run_twice_gets_fresh_buffers():
    x = leaf()
    y = x
    for _ in range(50):
        y = y + 1.0
    z = (y * y).sum()
    z.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    z.backward()
    np.testing.assert_allclose(first, 2 * (X + 50), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * first, rtol=1e-12)


def test_grad_of_an_intermediate_in_a_chain():
    x = leaf(dtype="float32")
    y = x
    mid = None
    for k in range(200):
        y = y + 1.0
        if k == 99:
            mid = y
    (g,) = fg.autograd.grad((y * 2.0).sum(), [mid])
    assert g.dtype == fg.float32
    np.testing.assert_array_equal(g.numpy(), np.full(3, 2.0, dtype=np.float32))
    assert x.grad is None
