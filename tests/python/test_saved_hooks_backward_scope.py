"""A ``saved_tensors_hooks`` level entered (or left) inside a hook while backward runs does
not outlive the backward pass: the thread's hook stack is restored when the pass ends,
as PyTorch restores its thread-local state."""

import gc
import weakref

import ferrograd as fg


def test_level_entered_in_unpack_hook_is_gone_after_backward():
    packs = []

    def scope():
        def pack(t):
            packs.append(1)
            return t

        def unpack(t):
            weak_ctx().__enter__()  # not supported, but must not leak past backward
            return t

        ctx = fg.autograd.graph.saved_tensors_hooks(pack, unpack)
        weak_ctx = weakref.ref(ctx)
        x = fg.randn(3, 3, requires_grad=True)
        with ctx:
            x.sin().sum().backward()
        return x, weakref.ref(unpack)

    gc.disable()
    try:
        x, unpack_ref = scope()
        # nothing holds the hooks any more: no level of this thread's stack does
        assert unpack_ref() is None
    finally:
        gc.enable()
    n = len(packs)
    y = x.sin()  # recorded outside every `with`: no pack hook runs
    assert len(packs) == n
    y.sum().backward()
    assert x.grad is not None


def test_level_left_in_unpack_hook_is_back_after_backward():
    calls = []

    def pack(t):
        calls.append("pack")
        return t

    def unpack(t):
        fg._core._pop_saved_tensors_hooks()  # leaves this thread's innermost level
        return t

    x = fg.randn(3, requires_grad=True)
    with fg.autograd.graph.saved_tensors_hooks(pack, unpack):
        x.sin().sum().backward()
        calls.clear()
        x.cos()  # the level is in effect again after backward
        assert calls == ["pack"]
    calls.clear()
    x.cos()
    assert calls == []
