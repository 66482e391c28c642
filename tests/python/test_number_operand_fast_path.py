"""A binary op with a Python number (`1 - y`, `y * 0.5`, `2 ** y`) on a float32/float64
tensor runs on the number directly, without first making it a 0-d tensor (issue 23 item
4). Its values, dtypes and errors must be those of the general path, which the same op
with the number given as a 0-d tensor of the tensor's dtype takes."""

import operator

import ferrograd as fg
import numpy as np
import pytest

OPS = [
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", operator.mul),
    ("truediv", operator.truediv),
    ("floordiv", operator.floordiv),
    ("mod", operator.mod),
    ("pow", operator.pow),
]
NUMBERS = [3, -2, 0, 0.5, -1.75, 1e-3, np.float64(2.5), 2**40]


def inputs(dtype):
    rng = np.random.default_rng(7)
    base = rng.uniform(-3, 3, size=(4, 5)).astype(dtype)
    base[0, 0] = 0.0
    contiguous = fg.tensor(base)
    return [
        contiguous,
        contiguous.t(),  # strided view
        contiguous[:, ::2],  # stepped view
        fg.tensor(base[1, 2]),  # 0-d
        fg.tensor(np.zeros((0, 3), dtype=dtype)),  # empty
    ]


def expected(a, v, f, reflected):
    c = fg.tensor(np.array(v, dtype=a.numpy().dtype))  # 0-d operand: the general path
    return f(c, a) if reflected else f(a, c)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,f", OPS)
@pytest.mark.parametrize("reflected", [False, True])
def test_number_operand_values_equal_general_path(dtype, name, f, reflected):
    for a in inputs(dtype):
        for v in NUMBERS:
            want = expected(a, v, f, reflected)
            with fg.no_grad():
                got = f(v, a) if reflected else f(a, v)
            got_plain = f(v, a) if reflected else f(a, v)  # a does not require grad
            for g in (got, got_plain):
                assert g.dtype == a.dtype == want.dtype, (name, v)
                assert g.shape == a.shape
                np.testing.assert_array_equal(g.numpy(), want.numpy(), err_msg=f"{name} {v!r}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_number_operand_methods_and_functions(dtype):
    a = fg.tensor(np.array([1.5, -2.0, 4.0], dtype=dtype))
    ref = a.numpy()
    with fg.no_grad():
        np.testing.assert_array_equal(a.add(2).numpy(), ref + np.asarray(2, dtype=dtype))
        np.testing.assert_array_equal(a.mul(0.25).numpy(), ref * np.asarray(0.25, dtype=dtype))
        np.testing.assert_array_equal(fg.sub(a, 1.0).numpy(), ref - np.asarray(1, dtype=dtype))
    # the result is a new tensor: the input is unchanged and the memory is not shared
    b = a + 0
    b.add_(1)
    np.testing.assert_array_equal(a.numpy(), ref)


def test_number_operand_keeps_graph_when_recording():
    x = fg.tensor(np.array([0.5, -1.0, 2.0], dtype="float32"), requires_grad=True)
    y = 1 - x * 3.0
    assert y.grad_fn is not None and y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, -3.0, dtype="float32"))
    with fg.no_grad():
        z = 1 - x
    assert z.grad_fn is None and not z.requires_grad


def test_number_operand_other_dtypes_and_errors_unchanged():
    i = fg.tensor(np.array([1, 2, 3], dtype="int64"))
    assert (i + 1).dtype == fg.int64
    assert (i * 0.5).dtype == fg.float32  # promoted: the general path
    h = fg.tensor(np.array([1.0, 2.0], dtype="float16"))
    assert (h * 3).dtype == fg.float16
    f = fg.tensor(np.array([1.0, 2.0], dtype="float32"))
    assert (f + True).dtype == fg.float32
    assert (f * 1j).dtype == fg.complex64
    assert (f < 2).dtype == fg.bool
    with pytest.raises(TypeError, match="bitwise"):
        f & 1
    with pytest.raises((OverflowError, ValueError, TypeError)):
        f + 10**400
