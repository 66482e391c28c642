"""In-place writes through views of tensors that take part in autograd (PyTorch's
``CopySlices``): the base's history is rebased onto the write, the view's history is
regenerated from the base, and every pattern is checked against finite differences."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def _x(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return fg.tensor(rng.standard_normal(shape), dtype="float64", requires_grad=True)


def test_mul_through_a_select_view():
    a = _x(3, 2)
    b = a.clone()
    v = b[0]
    v.mul_(2)
    assert type(b.grad_fn).__name__ == "CopySlices"
    assert type(v.grad_fn).__name__.startswith("AsStridedBackward")
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[2, 2], [1, 1], [1, 1]])


def test_view_gradient_after_its_own_write():
    a = _x(4)
    b = a.clone()
    v = b[1:3]
    v.mul_(3)
    (v * v).sum().backward()
    expect = np.zeros(4)
    expect[1:3] = 18 * a.detach().numpy()[1:3]
    np.testing.assert_allclose(a.grad.numpy(), expect)


def test_setitem_of_a_view_with_a_value_that_requires_grad():
    a, x = _x(4, 3), _x(2, 3, seed=1)
    b = a.clone()
    v = b[1:]
    v[0:2] = x
    (b * b).sum().backward()
    ga = 2 * a.detach().numpy()
    ga[1:3] = 0
    np.testing.assert_allclose(a.grad.numpy(), ga)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_narrow_add_and_view_copy():
    a, y = _x(3, 4), _x(3, 2, seed=1)
    b = a.clone()
    b.narrow(1, 1, 2).add_(y)
    b.view(-1).copy_(b.view(-1) * 2)
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 4), 2.0))
    np.testing.assert_allclose(y.grad.numpy(), np.full((3, 2), 2.0))


def test_base_that_did_not_require_grad_gets_the_history():
    x = _x(2)
    b = fg.zeros([4], dtype="float64")
    b[1:3].copy_(x)
    assert b.requires_grad
    (b * fg.tensor([1.0, 2.0, 3.0, 4.0], dtype="float64")).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 3.0])


def test_view_of_a_view_and_other_views_follow_the_base():
    a = _x(4, 4)
    b = a.clone()
    row = b[1]
    cell = row[2:]  # a view of a view: its base is b
    other = b[:, 2]  # overlaps the written region
    cell.mul_(10)
    out = (other * other).sum() + row.sum()
    out.backward()
    an = a.detach().numpy()
    expect = np.zeros((4, 4))
    expect[:, 2] += 2 * an[:, 2]
    expect[1, 2] = 2 * 100 * an[1, 2]  # other[1] is 10 * a[1, 2]
    expect[1, :2] += 1
    expect[1, 2:] += 10
    np.testing.assert_allclose(a.grad.numpy(), expect)


def test_inplace_on_the_base_updates_the_views_history():
    a = _x(3)
    b = a.clone()
    v = b[:2]
    b.mul_(4)
    assert type(v.grad_fn).__name__.startswith("AsStridedBackward")
    v.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [4.0, 4.0, 0.0])


def test_view_made_before_the_base_required_grad():
    x = _x(3)
    b = fg.zeros([3], dtype="float64")
    v = b[1:]
    assert not v.requires_grad
    b.add_(x)
    assert v.requires_grad
    v.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1.0, 1.0])


def test_chains_of_writes_through_several_views():
    def ref(t):
        c = t.clone()
        c[0].mul_(2)
        c[:, 1].add_(c[:, 0].clone())
        c.t()[2].mul_(c[1, 0].clone())
        return (c * c).sum()

    assert gradcheck(ref, (_x(2, 3),))


@pytest.mark.parametrize(
    "pattern",
    ["select_mul", "slice_setitem", "narrow_add", "view_copy", "transpose_exp", "view_of_view"],
)
def test_gradcheck_and_gradgradcheck(pattern):
    def f(a, y):
        b = a.clone()
        if pattern == "select_mul":
            b[1].mul_(y[0])
        elif pattern == "slice_setitem":
            b[1:3] = y
        elif pattern == "narrow_add":
            b.narrow(0, 1, 2).add_(y * y)
        elif pattern == "view_copy":
            b.view(-1)[::2].copy_(y.reshape(-1)[:6].sin())
        elif pattern == "transpose_exp":
            b.t()[0].exp_()
        else:
            b[1:][0].mul_(y[1])
        return (b * b).sum(dim=0) + b[0]

    inputs = (_x(4, 3), _x(2, 3, seed=1))
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_a_view_of_a_leaf_that_requires_grad_is_refused():
    a = _x(3)
    v = a[1:]
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        v.mul_(2)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        v[0] = 1.0
    before = a.detach().numpy().copy()
    with fg.no_grad():
        v.mul_(2)  # allowed: the leaf itself is changed
    np.testing.assert_allclose(a.detach().numpy(), before * [1, 2, 2])


def test_a_view_made_in_no_grad_mode_is_refused_with_grad_mode_on():
    b = _x(3).clone()
    with fg.no_grad():
        v = b[1:]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v.mul_(2)
    with fg.no_grad():
        v.mul_(2)  # both inside no_grad: not tracked


def test_writes_through_an_expanded_view_are_refused():
    x = _x(1)
    b = fg.zeros([3], dtype="float64")
    e = b[:1].expand([3])
    with pytest.raises(RuntimeError, match="more than one element"):
        e.add_(x)


def test_version_counter_is_shared_and_saved_values_are_checked():
    a = _x(3)
    b = a.clone()
    v = b[:2]
    y = b * b  # saves b
    before = b._version
    v.mul_(2)
    assert b._version == v._version > before
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_retain_grad_follows_views_through_the_write():
    base = fg.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.retain_grad()
    view2.retain_grad()
    view.mul_(2)
    (view + view2).sum().backward()
    np.testing.assert_allclose(view.grad.numpy(), [1.0])
    np.testing.assert_allclose(view2.grad.numpy(), [1.0])


def test_paddle_dialect_setitem_with_stop_gradient_false():
    import ferrograd as paddle

    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = paddle.to_tensor([5.0, 6.0], stop_gradient=False)
    b = x * 1.0
    row = b[0]
    row[:] = y * 2  # written through a view of b
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(y.grad.numpy(), [2.0, 2.0])


def test_paddle_dialect_setitem_on_the_tensor_itself_matches_paddle():
    import ferrograd as paddle

    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    y = paddle.to_tensor([5.0, 6.0], stop_gradient=False)
    b = x * 1.0
    b[0] = y * 2
    b.sum().backward()
    # Paddle 3.3 gives these same gradients for this program
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(y.grad.numpy(), [2.0, 2.0])


def test_custom_function_marking_a_view_dirty_rebases_the_base():
    class AddInto(fg.autograd.Function):
        @staticmethod
        def forward(ctx, t, y):
            ctx.mark_dirty(t)
            t.add_(y)
            return t

        @staticmethod
        def backward(ctx, g):
            return g, g

    def f(a, y):
        b = a.clone()
        AddInto.apply(b[1:3], y)
        return b * b

    inputs = (_x(4, 2), _x(2, 2, seed=1))
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)
