"""A Python tensor that changes its shape, dtype or memory in place while staying the same
object: ``x.data = y`` (both peers) and the in-place view ops (``transpose_``, ``t_``,
``squeeze_``, ``unsqueeze_``, Paddle's ``reshape_`` / ``flatten_``, ``resize_``)."""

import ferrograd as fg
import numpy as np
import pytest


def arr(t):
    return np.asarray(t.detach().numpy())


# -- x.data = y -------------------------------------------------------------------------


def test_data_of_another_shape_keeps_the_object_and_shares_memory():
    x = fg.tensor([1.0, 2.0])
    xid = id(x)
    y = fg.arange(6, dtype=fg.float32).reshape([2, 3])
    x.data = y
    assert id(x) == xid and list(x.shape) == [2, 3]
    np.testing.assert_array_equal(arr(x), np.arange(6).reshape(2, 3))
    y.add_(1.0)  # the two share memory, as in PyTorch and Paddle
    np.testing.assert_array_equal(arr(x), np.arange(1, 7).reshape(2, 3))
    x.mul_(2.0)
    np.testing.assert_array_equal(arr(y), 2 * np.arange(1, 7).reshape(2, 3))


def test_data_of_the_same_shape_shares_memory_too():
    x = fg.ones([2, 2])
    y = fg.zeros([2, 2])
    x.data = y
    y.add_(3.0)
    np.testing.assert_array_equal(arr(x), np.full((2, 2), 3.0))


def test_data_of_another_dtype():
    p = fg.tensor([1.5, 2.5], requires_grad=True)
    p.data = p.data.double()
    assert p.dtype == fg.float64 and p.requires_grad and p.is_leaf
    (p * p).sum().backward()
    np.testing.assert_array_equal(arr(p.grad), [3.0, 5.0])
    assert p.grad.dtype == fg.float64


def test_leaf_keeps_grad_requires_grad_and_hooks():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    seen = []
    x.register_hook(lambda g: seen.append(arr(g)))
    x.data = fg.tensor([[1.0, 1.0, 1.0]])
    assert x.requires_grad and x.is_leaf
    np.testing.assert_array_equal(arr(x.grad), [3.0, 3.0])  # kept, as in PyTorch
    x.grad = None
    (x * fg.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    np.testing.assert_array_equal(arr(x.grad), [[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(seen[-1], [[1.0, 2.0, 3.0]])


def test_integer_data_for_a_tensor_that_requires_grad_is_refused():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        x.data = fg.tensor([1, 2])
    with pytest.raises(TypeError, match="expects a Tensor"):
        x.data = [1.0, 2.0]


def test_graph_recorded_before_delivers_to_the_same_object():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    x.data = fg.tensor([5.0, 6.0])
    y.backward()
    np.testing.assert_array_equal(arr(x.grad), [3.0, 3.0])


def test_graph_recorded_before_a_shape_change_is_refused_by_name():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    x.data = fg.zeros([3])
    with pytest.raises(RuntimeError, match=r"shape \[2\].*shape \[3\]"):
        y.backward()


def test_hook_handle_removes_after_repoint():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    h = x.register_hook(lambda g: calls.append(1))
    x.data = fg.tensor([1.0, 2.0, 3.0])
    assert h.remove() is True
    (x * 2).sum().backward()
    assert calls == []


def test_optimizer_follows_the_new_data():
    p = fg.tensor([1.0, 1.0], requires_grad=True)
    opt = fg.optim.SGD([p], lr=0.5)
    p.data = fg.tensor([[2.0, 2.0, 2.0]])
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_allclose(arr(p), [[0.0, 0.0, 0.0]])
    opt.zero_grad()
    assert p.grad is None


def test_optimizer_state_for_the_old_shape_is_refused():
    p = fg.tensor([1.0, 1.0], requires_grad=True)
    opt = fg.optim.SGD([p], lr=0.5, momentum=0.9)
    (p * p).sum().backward()
    opt.step()  # momentum buffer of shape [2]
    p.data = fg.ones([3])
    p.grad = fg.ones([3])
    with pytest.raises(ValueError, match="optimizer state is for shape"):
        opt.step()


def test_module_parameter_takes_new_data():
    lin = fg.nn.Linear(3, 2)
    lin.weight.data = fg.ones([4, 3])
    lin.bias.data = fg.zeros([4])
    assert list(lin.weight.shape) == [4, 3]
    assert list(lin.state_dict()["weight"].shape) == [4, 3]
    assert list(lin(fg.ones([1, 3])).shape) == [1, 4]


# -- in-place view ops ------------------------------------------------------------------


def test_transpose_in_place_shares_memory_and_returns_self():
    x = fg.arange(6, dtype=fg.float64).reshape([2, 3])
    row = x[0]
    xid = id(x)
    assert x.transpose_(0, 1) is x and id(x) == xid
    assert list(x.shape) == [3, 2]
    np.testing.assert_array_equal(arr(x), np.arange(6).reshape(2, 3).T)
    x[0, 1] = 100.0  # element (1, 0) of the old layout: not in row 0
    x[1, 0] = 50.0  # element (0, 1) of the old layout
    np.testing.assert_array_equal(arr(row), [0.0, 50.0, 2.0])
    assert x.t_() is x and list(x.shape) == [2, 3]


def test_squeeze_unsqueeze_swap_in_place():
    x = fg.zeros([2, 1, 3])
    x.squeeze_(1)
    assert list(x.shape) == [2, 3]
    x.unsqueeze_(0)
    assert list(x.shape) == [1, 2, 3]
    x.swapaxes_(0, 2)
    assert list(x.shape) == [3, 2, 1]
    x.swapdims_(0, 1)
    assert list(x.shape) == [2, 3, 1]
    x.squeeze_()
    assert list(x.shape) == [2, 3]


def test_paddle_functions_and_reshape_flatten():
    x = fg.arange(24, dtype=fg.float32).reshape([2, 3, 4])
    assert fg.reshape_(x, [4, 6]) is x and list(x.shape) == [4, 6]
    fg.flatten_(x)
    assert list(x.shape) == [24]
    fg.unsqueeze_(x, 0)
    assert list(x.shape) == [1, 24]
    fg.squeeze_(x, 0)
    fg.reshape_(x, [2, 3, 4])
    fg.transpose_(x, [2, 0, 1])
    assert list(x.shape) == [4, 2, 3]
    np.testing.assert_array_equal(arr(x), np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1))
    fg.t_(x.reshape_([4, 6]))
    assert list(x.shape) == [6, 4]


def test_in_place_view_op_records_its_node_on_a_tensor_with_history():
    s = fg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    a = s * 1.0
    a.transpose_(0, 1)
    assert type(a.grad_fn).__name__ == type((s * 1.0).transpose(0, 1).grad_fn).__name__
    w = np.arange(6.0).reshape(3, 2) + 1
    (a * fg.tensor(w)).sum().backward()
    np.testing.assert_array_equal(arr(s.grad), w.T)


def test_in_place_view_op_that_changes_nothing_keeps_identity():
    s = fg.ones([3], requires_grad=True)
    a = s * 1.0
    a.t_()  # the transpose of a 1-d tensor is itself
    y = a * a
    assert y.grad_fn._saved_self is a
    b = fg.ones([3])
    b.squeeze_()
    assert b.view([3])._base is b


def test_retain_grad_follows_the_in_place_view_op():
    s = fg.tensor(np.ones((2, 3)), requires_grad=True)
    a = s * 2.0
    a.retain_grad()
    a.unsqueeze_(0)
    (a * 3.0).sum().backward()
    np.testing.assert_array_equal(arr(a.grad), np.full((1, 2, 3), 3.0))


def test_leaf_that_requires_grad_is_refused_under_grad_mode():
    w = fg.ones([2, 3], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.transpose_(0, 1)
    with pytest.raises(RuntimeError, match="leaf"):
        w[0].unsqueeze_(0)
    with fg.no_grad():
        w.t_()
    assert list(w.shape) == [3, 2] and w.requires_grad and w.is_leaf
    (w * 2).sum().backward()
    np.testing.assert_array_equal(arr(w.grad), np.full((3, 2), 2.0))


def test_inference_tensor_stays_inference_and_keeps_requires_grad():
    for requires_grad in (True, False):
        with fg.inference_mode():
            c = fg.ones([1, 2, 3], requires_grad=requires_grad)
            c.transpose_(0, 1)
            assert fg.is_inference(c)
            assert c.requires_grad == requires_grad
            assert list(c.shape) == [2, 1, 3]


def test_errors_of_the_underlying_op_come_through():
    x = fg.zeros([2, 3])
    with pytest.raises(Exception, match="dim|axis|range"):
        x.transpose_(0, 5)
    assert list(x.shape) == [2, 3]


# -- resize_ ----------------------------------------------------------------------------


def test_resize_keeps_row_major_elements():
    x = fg.arange(6, dtype=fg.float64)
    assert x.resize_(2, 3) is x
    np.testing.assert_array_equal(arr(x), np.arange(6).reshape(2, 3))
    x.resize_([4])
    np.testing.assert_array_equal(arr(x), [0, 1, 2, 3])
    x.resize_(2, 4)
    np.testing.assert_array_equal(arr(x), [[0, 1, 2, 3], [0, 0, 0, 0]])
    y = fg.zeros([3, 3])
    x.resize_as_(y)
    assert list(x.shape) == [3, 3]
    x.t_().resize_(9)  # a non-contiguous tensor: row-major order of what it shows
    np.testing.assert_array_equal(arr(x), [0, 3, 0, 1, 0, 0, 2, 0, 0])


def test_resize_refuses_bad_sizes_and_grad():
    with pytest.raises(ValueError, match="non-negative"):
        fg.zeros([2]).resize_(-1)
    with pytest.raises(RuntimeError, match="requires grad"):
        fg.zeros([2], requires_grad=True).resize_(4)


def test_repoint_while_other_threads_run_ops_on_the_tensor():
    import threading

    x = fg.ones([128, 64])
    w = fg.ones([64, 64])
    done = threading.Event()
    seen = set()

    def reader():
        while not done.is_set():
            y = x @ w  # runs without the GIL on the handle it took
            seen.add(tuple(y.shape))

    readers = [threading.Thread(target=reader) for _ in range(2)]
    for t in readers:
        t.start()
    for k in range(50):  # each re-point must get through while the readers keep going
        x.data = fg.ones([128 + k % 3, 64])
    done.set()
    for t in readers:
        t.join(timeout=60)
        assert not t.is_alive()
    assert seen <= {(128, 64), (129, 64), (130, 64)}
    assert list(x.shape) == [128 + 49 % 3, 64]
