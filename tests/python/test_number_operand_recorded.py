"""A binary op with a Python number on a float32/float64 tensor that requires grad
records its node without making the number a tensor (issue 23: the 10k-op chain). The
node, its gradients (first and second order), the dtypes, the in-place version checks and
the saved-tensor hooks must be those of the general path (the number as a 0-d tensor),
checked here against NumPy float64."""

import ferrograd as fg
import numpy as np
import pytest

X = np.array([0.5, 1.25, 2.0, 3.5])

# (expression, first derivative, second derivative), all in float64
CASES = [
    ("y + 1.0", lambda y: y + 1.0, lambda x: np.ones_like(x), lambda x: np.zeros_like(x)),
    ("y * 2.0", lambda y: y * 2.0, lambda x: np.full_like(x, 2.0), lambda x: np.zeros_like(x)),
    (
        "2.0 ** y",
        lambda y: 2.0**y,
        lambda x: 2.0**x * np.log(2.0),
        lambda x: 2.0**x * np.log(2.0) ** 2,
    ),
    ("y ** 2.0", lambda y: y**2.0, lambda x: 2.0 * x, lambda x: np.full_like(x, 2.0)),
    ("y ** 3", lambda y: y**3, lambda x: 3.0 * x**2, lambda x: 6.0 * x),
    ("1.0 - y", lambda y: 1.0 - y, lambda x: -np.ones_like(x), lambda x: np.zeros_like(x)),
    ("1.0 / y", lambda y: 1.0 / y, lambda x: -1.0 / x**2, lambda x: 2.0 / x**3),
    ("y / 4", lambda y: y / 4, lambda x: np.full_like(x, 0.25), lambda x: np.zeros_like(x)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,f,d1,d2", CASES, ids=[c[0] for c in CASES])
def test_double_backward_through_number_op(dtype, name, f, d1, d2):
    x = fg.tensor(X.astype(dtype), requires_grad=True)
    y = f(x)
    assert y.dtype == x.dtype and y.grad_fn is not None
    np.testing.assert_allclose(y.detach().numpy(), f(X), rtol=1e-6)
    (g,) = fg.autograd.grad(y.sum(), [x], create_graph=True)
    assert g.dtype == x.dtype
    np.testing.assert_allclose(g.detach().numpy(), d1(X), rtol=1e-5, atol=1e-6)
    if g.grad_fn is None:  # a constant first derivative has no history
        np.testing.assert_array_equal(d2(X), 0.0)
        return
    (gg,) = fg.autograd.grad(g.sum(), [x])
    assert gg.dtype == x.dtype
    np.testing.assert_allclose(gg.numpy(), d2(X), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,f,d1,d2", CASES, ids=[c[0] for c in CASES])
def test_gradgradcheck_number_ops(name, f, d1, d2):
    x = fg.tensor(X, requires_grad=True)
    assert fg.autograd.gradcheck(f, (x,))
    assert fg.autograd.gradgradcheck(f, (x,))


def test_node_shape_matches_general_path():
    x = fg.tensor(X.astype("float32"), requires_grad=True)
    for expr, reflected in ((x + 1.0, False), (2.0 * x, True), (1 - x, True), (x**2, False)):
        nf = expr.grad_fn.next_functions
        assert len(nf) == 2
        number_slot = 0 if reflected else 1
        assert nf[number_slot][0] is None
        assert nf[1 - number_slot][0] is not None


def test_zero_base_gradient_and_tiny_number_rounding_to_zero():
    # 0 ** x: the masked formula (gradient 0 for x > 0, not 0 * log 0 = NaN); 1e-50 is
    # 0 in float32, so it takes the same formula there
    for base, dtype in ((0.0, "float64"), (0.0, "float32"), (1e-50, "float32")):
        x = fg.tensor(X.astype(dtype), requires_grad=True)
        (base**x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros(4))


def test_number_value_rounded_to_tensor_dtype_in_backward():
    # the float32 gradient of y * 0.1 uses float32(0.1), as with a 0-d float32 operand
    x = fg.tensor(X.astype("float32"), requires_grad=True)
    (x * 0.1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(4, np.float32(0.1)))
    x64 = fg.tensor(X, requires_grad=True)
    (x64 * 0.1).sum().backward()
    np.testing.assert_array_equal(x64.grad.numpy(), np.full(4, 0.1))


def test_dtypes_with_numbers_under_grad():
    i = fg.tensor(np.array([1, 2, 3]))
    assert (i + 1.5).dtype == fg.float32
    np.testing.assert_array_equal((i + 1.5).numpy(), np.array([2.5, 3.5, 4.5], dtype="float32"))
    h = fg.tensor(np.array([1.0, 2.0], dtype="float16"), requires_grad=True)
    out = h + 1.0
    assert out.dtype == fg.float16
    (out * 3).sum().backward()
    assert h.grad.dtype == fg.float16
    np.testing.assert_array_equal(h.grad.numpy(), np.full(2, 3.0, dtype="float16"))
    f = fg.tensor(np.array([1.0, 2.0], dtype="float32"), requires_grad=True)
    c = f * 1j  # complex number: the general path
    assert c.dtype == fg.complex64 and c.grad_fn is not None
    d = fg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    assert (d + 1).dtype == fg.float64 and (2 * d).dtype == fg.float64


def test_inplace_version_checks_kept():
    x = fg.tensor(X, requires_grad=True)
    y = x * 1.0
    z = y * 2.0  # saves nothing of y (the gradient is g * 2)
    p = y**2.0  # saves y
    y.add_(1.0)
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(4, 2.0))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        p.sum().backward()


def test_saved_tensor_hooks_see_only_real_tensors():
    packed = []

    def pack(t):
        packed.append(t)
        return t

    x = fg.tensor(X, requires_grad=True)
    with fg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        a = x + 1.0
        b = x * 3.0
        assert packed == []
        c = x**3.0
    assert len(packed) == 1 and packed[0] is x
    (a + b + c).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.0 + 3.0 + 3.0 * X**2)


def test_no_grad_and_detached_inputs_record_nothing():
    x = fg.tensor(X, requires_grad=True)
    with fg.no_grad():
        assert (x + 1.0).grad_fn is None
    assert (x.detach() * 2.0).grad_fn is None
    with fg.inference_mode():
        t = fg.tensor(X, requires_grad=True) + 1.0
    assert t.grad_fn is None
