"""Paddle's version-counter rules in Paddle code (issue 17; values checked on Paddle
3.3.1): ``inplace_version`` counts the writes to the memory, so ``x.data`` shares it and
``x.data = y`` gives ``x`` the counter of ``y``'s memory; a saved input detached in place
(``detach_()``) still gives its gradient; ``saved_tensors_hooks.__exit__`` never raises
(Paddle's resets the hooks)."""

import math

import ferrograd as paddle
import pytest
from ferrograd.autograd import saved_tensors_hooks


def test_data_and_detach_share_the_counter():
    x = paddle.randn([3])
    x.add_(x)
    d = x.data
    d.add_(x)
    assert (x.inplace_version, d.inplace_version) == (2, 2)
    s = x.detach()
    s.add_(x)
    assert (x.inplace_version, d.inplace_version, s.inplace_version) == (3, 3, 3)
    assert x[:].inplace_version == 3


def test_write_through_data_is_caught_at_backward():
    a = paddle.randn([3])
    a.stop_gradient = False
    b = a * 1
    c = b.sin()
    b.data.add_(paddle.ones([3]))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_set_data_takes_the_counter_of_the_new_memory():
    x = paddle.randn([3])
    x.add_(x)
    d = x.data
    d.add_(x)
    z = paddle.randn([2])
    x.data = z
    assert (x.inplace_version, z.inplace_version, d.inplace_version) == (0, 0, 2)
    x.add_(z)
    assert (x.inplace_version, z.inplace_version, d.inplace_version) == (1, 1, 2)


def test_saved_input_detached_in_place_still_gives_its_gradient():
    a = paddle.to_tensor(1.0, stop_gradient=False)
    c = a.clone()
    b = c.sin()
    c.detach_()
    b.backward()
    assert math.isclose(a.grad.item(), math.cos(1.0), rel_tol=1e-6)


def test_extra_exit_never_raises():
    ctx = saved_tensors_hooks(lambda t: t, lambda t: t)
    ctx.__exit__(None, None, None)  # Paddle's __exit__ resets the hooks: no error
    with ctx:
        pass
    ctx.__exit__(None, None, None)
    assert paddle._core._saved_tensors_hooks_depth() == 0


def test_stray_exit_leaves_the_active_level():
    packs = []
    outer = saved_tensors_hooks(lambda t: packs.append(1) or t, lambda t: t)
    stray = saved_tensors_hooks(lambda t: t, lambda t: t)
    outer.__enter__()
    stray.__exit__(None, None, None)  # Paddle: clears the hooks in effect
    x = paddle.randn([2])
    x.stop_gradient = False
    x.exp()
    assert packs == []
    outer.__exit__(None, None, None)  # nothing left to leave: no error either
    assert paddle._core._saved_tensors_hooks_depth() == 0
