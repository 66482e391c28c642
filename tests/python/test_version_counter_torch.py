"""PyTorch's version-counter rules in PyTorch code (issue 17; every value checked on
PyTorch 2.x): the counter belongs to the tensor family (views and ``detach()`` share it),
``x.data`` is the same memory with a new counter, ``x.data = y`` keeps ``x``'s counter
(shared with the views of ``x`` taken before); a saved input detached in place
(``detach_()``) is refused at backward; a ``saved_tensors_hooks`` exit that has no
matching enter pops the innermost level of this thread, as PyTorch's does."""

import math

import ferrograd as torch
import pytest
from ferrograd.autograd.graph import saved_tensors_hooks


def test_views_and_detach_share_the_counter():
    x = torch.randn(1, 2)
    x.add_(1).add_(1)
    assert x._version == 2
    xz, d = x[:], x.detach()
    assert xz._version == d._version == 2
    xz.add_(1)
    d.mul_(2)
    assert x._version == xz._version == d._version == 4


def test_data_is_the_same_memory_with_a_new_counter():
    x = torch.randn(1, 2)
    x.add_(1)
    dat = x.data
    assert dat._version == 0  # PyTorch: a fresh counter
    dat.add_(1)
    assert (dat._version, x._version) == (1, 1)
    assert torch.equal(dat, x)  # the write is in x's memory
    v = dat.view(2)  # views of `x.data` share its counter
    v.add_(1)
    assert (dat._version, v._version, x._version) == (2, 2, 1)


def test_write_through_data_is_not_seen_by_the_saved_tensor_check():
    a = torch.randn(3, requires_grad=True)
    b = a * 1
    c = b.sin()
    b.data.add_(1)  # what `.data` is for: a write autograd does not see
    c.sum().backward()
    assert torch.allclose(a.grad, (a.detach() + 1).cos())


def test_set_data_keeps_the_counter_shared_with_earlier_views():
    # PyTorch's own test_version_counter, step by step
    x = torch.randn(1, 2)
    x.add_(1).add_(1)
    xz = x[:]
    xz.add_(1)
    saved = x._version
    x.data = torch.randn(2, 3)
    assert x._version == saved
    x.add_(1)
    assert x._version == saved + 1 == xz._version
    xz.add_(1)
    assert x._version == xz._version == saved + 2


def test_set_data_leaves_the_new_memory_counter_alone():
    x = torch.randn(2)
    x.add_(1)
    z = torch.randn(3)
    z.add_(1).add_(1)
    x.data = z
    assert (x._version, z._version) == (1, 2)
    x.add_(1)
    assert (x._version, z._version) == (2, 2)
    assert x.data._version == 0
    w = x.view(3)  # a view of the re-pointed x shares x's counter
    w.add_(1)
    assert (x._version, w._version, z._version) == (3, 3, 2)


def test_set_data_twice_and_through_the_augmented_assignment():
    p = torch.ones(3)
    before = p._version
    p.data -= 0.5  # getter, in-place write on the fresh counter, setter
    p.data *= 2
    assert p._version == before
    assert p.tolist() == [1.0, 1.0, 1.0]
    p.add_(1)
    assert p._version == before + 1


def test_saved_input_detached_in_place_is_refused_at_backward():
    a = torch.tensor(1.0, requires_grad=True).clone()
    b = a.sin()
    a.detach_()
    with pytest.raises(RuntimeError, match="Trying to use a saved tensor that has been detached"):
        b.backward()


def test_detached_again_requiring_grad_is_still_refused():
    a = torch.tensor(1.0, requires_grad=True).clone()
    b = a.sin()
    a.detach_()
    a.requires_grad_()
    with pytest.raises(RuntimeError, match="detached in-place"):
        b.backward()


def test_saved_output_detached_in_place_is_fine():
    x = torch.tensor(1.0, requires_grad=True)
    a = x.clone()
    b = a.exp()  # saves its output
    b2 = a.exp()
    c = b2 * 2
    b2.detach_()
    c.backward()
    assert math.isclose(x.grad.item(), 2 * math.e, rel_tol=1e-6)
    b.detach_()


def test_custom_function_saved_input_detached_in_place_still_works():
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    leaf = torch.tensor(3.0, requires_grad=True)
    a = leaf.clone()
    b = F.apply(a)
    a.detach_()
    b.backward()  # PyTorch: fine for a custom Function's saved tensors
    assert leaf.grad.item() == 3.0


def test_extra_exit_during_backward_does_not_crash():
    # PyTorch's test_saved_tensor_hooks_extra_exit_during_bw_no_crash
    def unpack(x):
        ctx_1.__exit__()
        return x

    ctx_1 = saved_tensors_hooks(lambda x: x, unpack)
    ctx_2 = saved_tensors_hooks(lambda x: x, lambda x: x)
    for _ in range(3):
        with ctx_2:
            ctx_1.__enter__()
            x = torch.randn(3, 3, requires_grad=True)
            x.sin().sum().backward()
    assert torch._core._saved_tensors_hooks_depth() == 3
    for _ in range(3):
        ctx_1.__exit__()
    assert torch._core._saved_tensors_hooks_depth() == 0
    y = torch.tensor(1.0, requires_grad=True).exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)


def test_exit_without_enter_pops_the_innermost_level():
    packs = []
    a = saved_tensors_hooks(lambda t: packs.append("a") or t, lambda t: t)
    stray = saved_tensors_hooks(lambda t: packs.append("stray") or t, lambda t: t)
    with a:
        b = saved_tensors_hooks(lambda t: packs.append("b") or t, lambda t: t)
        b.__enter__()
        stray.__exit__()  # PyTorch: pops b's level, the innermost
        torch.randn(2, requires_grad=True).exp()
        assert packs == ["a"]
    assert torch._core._saved_tensors_hooks_depth() == 0


def test_exit_on_an_empty_stack_is_an_error():
    stray = saved_tensors_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match="no saved_tensors_hooks"):
        stray.__exit__()
