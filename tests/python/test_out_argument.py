"""PyTorch's ``out=`` on module functions: the result is written into ``out`` (resized,
cast, returned) with PyTorch's refusals, for the native functions (through
``OpFunction``) and the Python ones that declare ``out`` (linear algebra, random)."""

import warnings

import ferrograd as torch
import numpy as np
import pytest
from ferrograd import _core

A = np.array([[2.0, 1.0], [1.0, 3.0]])


def t(a, dtype=torch.float64):
    return torch.tensor(np.asarray(a), dtype=dtype)


def test_binary_op_writes_into_out_and_returns_it():
    a, b, c = t([1.0, 2.0]), t([3.0, 4.0]), torch.zeros(2, dtype=torch.float64)
    v = c._version
    r = torch.add(a, b, out=c)
    assert r is c and c._version > v
    np.testing.assert_array_equal(c.numpy(), [4.0, 6.0])
    torch.mul(a, 2.5, out=c)
    np.testing.assert_array_equal(c.numpy(), [2.5, 5.0])


def test_out_may_alias_an_input():
    a = t([1.0, 2.0])
    torch.add(a, a, out=a)
    np.testing.assert_array_equal(a.numpy(), [2.0, 4.0])


def test_out_is_resized_silently_when_empty_and_with_a_warning_otherwise():
    c = torch.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.matmul(t(A, torch.float32), t(A, torch.float32), out=c)
    np.testing.assert_allclose(c.numpy(), A @ A)
    d = torch.zeros(3)
    with pytest.warns(UserWarning, match=r"resized since it had shape \[3\].*\[2, 2\]"):
        torch.mm(t(A, torch.float32), t(A, torch.float32), out=d)
    assert list(d.shape) == [2, 2]
    np.testing.assert_allclose(d.numpy(), A @ A)


def test_out_of_a_wider_dtype_is_written_cast():
    c = torch.zeros(2, dtype=torch.float64)
    torch.add(t([1, 2], torch.int32), 1, out=c)
    assert c.dtype == torch.float64
    np.testing.assert_array_equal(c.numpy(), [2.0, 3.0])


def test_lowering_the_kind_is_refused_as_pytorch_words_it():
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        torch.add(torch.ones(3), 1.5, out=torch.zeros(3, dtype=torch.int64))


def test_out_refuses_arguments_that_require_grad_under_grad_mode():
    a = torch.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"add\(\): functions with out=\.\.\. arguments don't support"
    ):
        torch.add(a, a, out=torch.zeros(3))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.add(torch.ones(3), 1, out=torch.zeros(3, requires_grad=True))
    with torch.no_grad():
        c = torch.zeros(3)
        torch.add(a, a, out=c)
    assert not c.requires_grad
    np.testing.assert_array_equal(c.numpy(), [2.0, 2.0, 2.0])


def test_several_results_take_a_tuple():
    x = t([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    v, i = torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.int64)
    r = torch.max(x, dim=1, out=(v, i))
    assert r[0] is v and r[1] is i
    np.testing.assert_array_equal(v.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(i.numpy(), [1, 0])
    with pytest.raises(TypeError, match="must hold 2 tensors"):
        torch.max(x, dim=1, out=(v,))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        torch.add(x, 1, out=[torch.zeros(2, 3)])


def test_list_first_functions_and_reductions():
    c = torch.empty(0, dtype=torch.float64)
    torch.cat([t([1.0]), t([2.0, 3.0])], out=c)
    np.testing.assert_array_equal(c.numpy(), [1.0, 2.0, 3.0])
    s = torch.empty(0, dtype=torch.float64)
    torch.sum(t(A), dim=0, out=s)
    np.testing.assert_array_equal(s.numpy(), A.sum(0))


def test_out_none_is_no_out():
    r = torch.add(t([1.0]), 1.0, out=None)
    np.testing.assert_array_equal(r.numpy(), [2.0])
    assert torch.linalg.det(t(A), out=None).item() == pytest.approx(5.0)


@pytest.mark.parametrize(
    "name, args",
    [
        ("det", (A,)),
        ("inverse", (A,)),
        ("matrix_power", (A, 3)),
        ("mv", (A, np.array([1.0, 2.0]))),
        ("addmm", (A, A, A)),
        ("kron", (A, A)),
        ("cholesky", (A,)),
    ],
)
def test_python_functions_declaring_out_write_it(name, args):
    """These took ``out=`` and ignored it (the caller's tensor kept its old values)."""
    f = getattr(torch, name)
    targs = [t(a) if isinstance(a, np.ndarray) else a for a in args]
    want = f(*targs)
    out = torch.full(list(want.shape), -7.0, dtype=torch.float64)
    assert f(*targs, out=out) is out
    np.testing.assert_allclose(out.numpy(), want.numpy())


def test_linalg_namespace_and_several_results():
    out = torch.empty(0, dtype=torch.float64)
    torch.linalg.inv(t(A), out=out)
    np.testing.assert_allclose(out.numpy(), np.linalg.inv(A))
    q, r = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.float64)
    res = torch.linalg.qr(t(A), out=(q, r))
    assert res[0] is q and res[1] is r
    np.testing.assert_allclose((q @ r).numpy(), A, atol=1e-12)


def test_random_functions_write_out():
    p = torch.empty(0, dtype=torch.int64)
    torch.manual_seed(0)
    torch.randperm(5, out=p)
    assert sorted(p.tolist()) == [0, 1, 2, 3, 4]


def test_native_functions_keep_their_dispatcher():
    assert isinstance(torch.add, _core.OpFunction)
    assert not hasattr(torch.det, "__self__")
    # methods take no out=, as in PyTorch
    with pytest.raises(TypeError):
        t([1.0]).add(t([1.0]), out=torch.zeros(1))
