"""API polish of calls: factory keywords, ``sum``'s two argument orders, ``Tensor.to``'s
flags, tensor-valued bounds and fill values, ``grad`` of one input, and
``Tensor.__iter__``."""

from __future__ import annotations

import operator

import ferrograd as fg
import numpy as np
import pytest

# ---------------------------------------------------------------------------------------
# 7. factory keywords

FACTORIES = {
    "zeros": lambda **kw: fg.zeros(2, 3, **kw),
    "ones": lambda **kw: fg.ones([2, 3], **kw),
    "empty": lambda **kw: fg.empty(2, **kw),
    "full": lambda **kw: fg.full([2], 1.5, **kw),
    "rand": lambda **kw: fg.rand(2, 3, **kw),
    "randn": lambda **kw: fg.randn([4], **kw),
    "arange": lambda **kw: fg.arange(0, 4, **kw),
    "linspace": lambda **kw: fg.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: fg.eye(3, **kw),
    "randint": lambda **kw: fg.randint(0, 5, [3], **kw),
    "zeros_like": lambda **kw: fg.zeros_like(fg.ones(2), **kw),
    "ones_like": lambda **kw: fg.ones_like(fg.ones(2), **kw),
    "full_like": lambda **kw: fg.full_like(fg.ones(2), 7, **kw),
    "tensor": lambda **kw: fg.tensor([1, 2], **kw),
    "to_tensor": lambda **kw: fg.to_tensor([1, 2], **kw),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_accept_the_common_keywords(name):
    make = FACTORIES[name]
    t = make(dtype="float64", requires_grad=True, device="cpu", name="t")
    assert t.dtype == fg.float64 and t.requires_grad and not t.stop_gradient
    t = make(dtype=fg.float32, stop_gradient=False, name=None)
    assert t.dtype == fg.float32 and t.requires_grad
    t = make(dtype="float32", stop_gradient=True)
    assert not t.requires_grad
    with pytest.raises(ValueError, match="contradict"):
        make(dtype="float32", requires_grad=True, stop_gradient=True)
    with pytest.raises(ValueError, match="CPU only"):
        make(dtype="float32", device="cuda")


@pytest.mark.parametrize("name", sorted(set(FACTORIES) - {"rand", "randn"}))
def test_only_floating_factories_may_require_grad(name):
    with pytest.raises(RuntimeError, match="floating point"):
        FACTORIES[name](dtype="int64", requires_grad=True)
    assert not FACTORIES[name](dtype="int64", stop_gradient=True).requires_grad


def test_randint_honours_dtype_and_grad_flags():
    fg.seed(11)
    t = fg.randint(2, 9, [50], dtype="float32", requires_grad=True)
    assert t.dtype == fg.float32 and t.requires_grad and t.is_leaf
    v = t.numpy()
    assert (v >= 2).all() and (v < 9).all() and (v == np.round(v)).all()
    assert fg.randint(5, [2], dtype="int32").dtype == fg.int32
    assert not fg.randint(5, [2]).requires_grad


def test_factories_take_paddle_positional_dtype_and_name():
    assert fg.zeros([2, 3], "int64").dtype == fg.int64
    assert fg.ones((2,), "float64", "name").dtype == fg.float64
    assert fg.rand([2], "float64").dtype == fg.float64
    assert fg.full([2], 3, "float32", "name").dtype == fg.float32
    assert fg.arange(0, 3, 1, "float64", "name").dtype == fg.float64
    assert fg.eye(2, 2, "int32", "name").dtype == fg.int32
    assert fg.zeros_like(fg.ones(2), "int32", "name").dtype == fg.int32
    with pytest.raises(TypeError, match="multiple values for argument 'dtype'"):
        fg.zeros([2], "int64", dtype="int32")


# ---------------------------------------------------------------------------------------
# 8. sum's two argument orders


def test_sum_torch_and_paddle_orders():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    torch_order = x.sum(0, True)  # sum(dim, keepdim)
    assert torch_order.shape == (1, 2) and torch_order.dtype == fg.float32
    for r in (
        x.sum(0, "float64", True),  # Paddle: sum(axis, dtype, keepdim)
        x.sum(0, fg.float64, True),
        x.sum(0, np.float64, True),
        x.sum(0, np.dtype("float64"), True),
        fg.sum(x, 0, "float64", True),
        x.sum(0, True, "float64"),  # torch positions, dtype third
        x.sum(axis=0, dtype="float64", keepdim=True),
        x.sum(dim=0, keepdim=True, dtype="float64"),
    ):
        assert r.shape == (1, 2) and r.dtype == fg.float64
        assert r.tolist() == [[4.0, 6.0]]
    assert x.sum(0, None, True).shape == (1, 2)  # Paddle: dtype=None, keepdim=True
    assert x.sum(0, "int64").tolist() == [4, 6]  # Paddle: dtype, keepdim default
    assert x.sum(1, False).tolist() == [3.0, 7.0]


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda x: x.sum(0, 5), "keepdim"),
        (lambda x: x.sum(0, "float64", "yes"), "keepdim"),
        (lambda x: x.sum(0, True, 3), "dtype"),
        (lambda x: x.sum(0, "flaot64", True), "dtype"),
        (lambda x: x.sum(0, keepdim=[1]), "keepdim"),
        (lambda x: x.mean(0, "float64"), "keepdim"),
        (lambda x: x.mean(0, 1), "keepdim"),
        (lambda x: x.mean(0, dtype=42), "dtype"),
        (lambda x: x.softmax(dtype=object()), "dtype"),
    ],
)
def test_reduction_argument_errors_name_the_parameter(call, param):
    with pytest.raises(TypeError, match=param):
        call(fg.ones(2, 2))


def test_mean_orders_agree():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.mean(1, True).tolist() == [[1.5], [3.5]]
    assert fg.mean(x, axis=1, keepdim=True).tolist() == [[1.5], [3.5]]
    assert x.mean(dim=0, dtype="float64").dtype == fg.float64


# ---------------------------------------------------------------------------------------
# 9. Tensor.to flags


def test_to_copy_and_non_blocking():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    assert x.to(non_blocking=True) is x
    assert x.to(copy=False) is x
    assert x.to("cpu", fg.float32, non_blocking=True) is x
    c = x.to(copy=True)
    assert c is not x and c.data_ptr() != x.data_ptr()
    assert c.tolist() == [1.0, 2.0] and c.dtype == fg.float32
    c.sum().backward()  # the copy is differentiable, like clone()
    assert x.grad.tolist() == [1.0, 1.0]
    c2 = x.to(fg.float32, False, True)  # torch: to(dtype, non_blocking, copy)
    assert c2 is not x and c2.data_ptr() != x.data_ptr()
    c3 = x.to(device="cpu", dtype="float64", copy=True)
    assert c3.dtype == fg.float64
    with pytest.raises(ValueError, match="CPU only"):
        x.to(device="cuda:0")


# (memory_format= is PyTorch's ``to(..., *, MemoryFormat? memory_format=None)``, taken since
# session 42: tests/python/test_memory_format.py)
@pytest.mark.parametrize("kw", ["blocking", "place"])
def test_to_rejects_other_keywords(kw):
    with pytest.raises(TypeError, match=kw):
        fg.ones(2).to(**{kw: None})


# ---------------------------------------------------------------------------------------
# 10. tensor-valued bounds and fill values


@pytest.mark.parametrize("method", ["clip", "clamp"])
def test_clip_bounds_may_be_one_element_tensors(method):
    x = fg.tensor([-2.0, 0.5, 3.0])
    lo, hi = fg.tensor(-1.0), fg.tensor([1.0])
    assert getattr(x, method)(lo, hi).tolist() == [-1.0, 0.5, 1.0]
    assert getattr(fg, method)(x, min=lo).tolist() == [-1.0, 0.5, 3.0]
    assert getattr(x, method)(max=fg.tensor(0, dtype="int64")).tolist() == [-2.0, 0.0, 0.0]
    y = x.clone()
    getattr(y, method + "_")(lo, hi)
    assert y.tolist() == [-1.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="one-element"):
        getattr(x, method)(fg.tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="max"):
        getattr(x, method)(max="1")


def test_clip_with_tensor_bounds_keeps_gradients():
    x = fg.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    x.clip(fg.tensor(-1.0), fg.tensor(1.0)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_fill_takes_one_element_tensors():
    x = fg.zeros(3)
    x.fill_(fg.tensor(2.5))
    assert x.tolist() == [2.5] * 3
    x.fill_(fg.tensor([[4]]))
    assert x.tolist() == [4.0] * 3
    with pytest.raises(ValueError, match="one-element"):
        x.fill_(fg.ones(2))
    with pytest.raises(TypeError, match="value"):
        x.fill_("1")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_fill_complex_tensors_with_complex_values(dtype):
    c = fg.zeros(2, dtype=dtype)
    c.fill_(1 + 2j)
    assert c.tolist() == [1 + 2j, 1 + 2j]
    c.fill_(fg.tensor(-3j))
    assert c.tolist() == [-3j, -3j]
    c.fill_(0.5)
    assert c.tolist() == [0.5, 0.5]
    assert c.dtype == getattr(fg, dtype)
    with pytest.raises(TypeError, match="complex value"):
        fg.zeros(2).fill_(1 + 1j)


def test_fill_cuts_the_gradient_to_the_old_values():
    for dtype, value in [("float32", fg.tensor(3.0)), ("complex64", 2 + 1j)]:
        x = fg.ones(2, dtype=dtype, requires_grad=True)
        y = x * 2
        y.fill_(value)
        loss = y.abs().sum() if dtype == "complex64" else y.sum()
        loss.backward()
        assert np.all(x.grad.numpy() == 0)


# ---------------------------------------------------------------------------------------
# 11. grad with a single input


def test_grad_of_a_single_input_is_a_one_tuple():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = fg.grad((x * x).sum(), x)
    assert g.tolist() == [2.0, 4.0]
    gs = fg.grad((x * x).sum(), [x])
    assert isinstance(gs, tuple) and len(gs) == 1


# ---------------------------------------------------------------------------------------
# 12. iteration


def test_iter_yields_the_first_dimension():
    assert "__iter__" in vars(fg.Tensor)
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    rows = list(x)
    assert len(rows) == 3
    assert all(isinstance(r, fg.Tensor) and r.shape == (2,) for r in rows)
    assert [r.tolist() for r in rows] == x.tolist()
    assert [v.item() for v in fg.tensor([7, 8])] == [7, 8]
    assert list(fg.zeros(0, 3)) == []
    a, b = fg.tensor([1.0, 2.0])  # unpacking
    assert (a.item(), b.item()) == (1.0, 2.0)
    it = iter(x)
    assert operator.length_hint(it) == 3
    next(it)
    assert operator.length_hint(it) == 2
    assert iter(it) is it


def test_iter_over_0d_is_a_type_error():
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(fg.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(fg.tensor(1.0))


def test_iter_rows_are_differentiable():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    total = None
    for i, row in enumerate(x):
        term = row.sum() * (i + 1)
        total = term if total is None else total + term
    total.backward()
    assert x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0]]


def test_index_select_with_a_one_element_index_in_either_dialect():
    # a one-element index tensor converts to an int: it must still be read as the index
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert x.index_select(0, fg.tensor([1])).tolist() == [[3.0, 4.0]]  # torch (dim, index)
    assert x.index_select(fg.tensor([1]), 0).tolist() == [[3.0, 4.0]]  # Paddle (index, axis)
    assert x.index_select(fg.tensor([1]), axis=1).tolist() == [[2.0], [4.0], [6.0]]
    assert fg.index_select(x, 1, fg.tensor([0])).tolist() == [[1.0], [3.0], [5.0]]
