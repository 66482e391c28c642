"""Hooks on a leaf's ``AccumulateGrad`` node (``x.view_as(x).grad_fn.next_functions[0][0]``):
``register_prehook`` / ``register_hook``, their order relative to the tensor's hooks and
post-accumulate-grad hooks (PyTorch's), their handles, and which passes run them:
``backward()`` and ``backward(inputs=)`` for a leaf among the inputs do, ``grad()`` does
not (it accumulates nothing), and no pass runs the hooks of a leaf it does not target."""

import ferrograd as fg
import pytest


def acc_node(x):
    node = x.view_as(x).grad_fn.next_functions[0][0]
    assert type(node).__name__ == "AccumulateGrad" and node.variable is x
    return node


def test_order_tensor_hook_prehook_accumulate_post_accumulate_posthook():
    x = fg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    acc = acc_node(x)
    x.register_hook(lambda g: g.sub(2.0))  # 1 - 2 = -1
    acc.register_prehook(lambda gs: (gs[0].div(5.0),))  # -0.2, accumulated

    def post_accumulate(t):
        t.grad.add_(0.5)  # .grad: 0.3

    def posthook(grad_inputs, grad_outputs):
        assert grad_inputs == ()
        # the gradient that flowed in is .grad itself (it was unset): 0.3, not -0.2
        x.grad = grad_outputs[0].mul(10)

    x.register_post_accumulate_grad_hook(post_accumulate)
    acc.register_hook(posthook)
    x.sum().backward()
    assert x.grad.tolist() == pytest.approx([3.0, 3.0, 3.0])


def test_log_order_with_node_and_tensor_hooks():
    log = []

    def tensor_hook(g):
        log.append("t")
        return g * 3

    def prehook(gs):
        log.append("p")
        return tuple(g * 2 for g in gs)

    a = fg.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.grad_fn.register_prehook(prehook)
    b.register_hook(tensor_hook)
    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(tensor_hook)
    acc.register_prehook(prehook)
    b.sum().backward(retain_graph=True)
    assert log == ["t", "p", "t", "p"]
    assert a.grad.item() == 36.0

    # grad() runs the leaf's tensor hooks but no AccumulateGrad hook
    log.clear()
    (g,) = fg.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
    assert log == ["t", "p", "t"] and g.item() == 18.0

    # backward(inputs=(b,)): b keeps what reached it after its tensor hooks; b's node
    # runs (its pre-hook fires) but a is not a target, so none of a's hooks run
    log.clear()
    b.sum().backward(inputs=(b,))
    assert log == ["t", "p"]
    assert b.grad.item() == 3.0 and a.grad.item() == 36.0


def test_prehook_sees_the_tensor_hooks_result_and_posthook_gets_no_inputs():
    a = fg.tensor(1.0, requires_grad=True)
    seen = {}
    b = a.clone()
    acc = b.grad_fn.next_functions[0][0]

    def prehook(gs):
        seen["pre"] = [g.item() for g in gs]

    def posthook(gi, go):
        seen["post"] = (len(gi), go[0].item())

    acc.register_prehook(prehook)
    acc.register_hook(posthook)
    a.register_hook(lambda g: g * 2)
    b.backward()
    assert seen == {"pre": [2.0], "post": (0, 2.0)}


def test_posthook_gets_the_added_gradient_when_grad_existed():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    acc_node(a).register_hook(lambda gi, go: seen.append(go[0].tolist()))
    (a * 3).sum().backward()
    (a * 5).sum().backward()
    assert seen == [[3.0, 3.0], [5.0, 5.0]]
    assert a.grad.tolist() == [8.0, 8.0]


def test_handles_remove_the_hooks():
    a = fg.tensor([1.0], requires_grad=True)
    calls = []
    acc = acc_node(a)
    h1 = acc.register_prehook(lambda gs: calls.append("pre"))
    h2 = acc.register_hook(lambda gi, go: calls.append("post"))
    (a * 2).sum().backward()
    assert calls == ["pre", "post"]
    assert h1.remove() is True and h2.remove() is True
    assert h1.remove() is False
    (a * 2).sum().backward()
    assert calls == ["pre", "post"]


def test_hooks_of_leaves_not_targeted_do_not_run():
    def boom(*args):
        raise RuntimeError("this hook must not run")

    a = fg.tensor(1.0, requires_grad=True)
    a.register_hook(boom)
    b = fg.tensor(1.0, requires_grad=True)
    c = a.clone()
    acc_node_c = c.grad_fn.next_functions[0][0]
    acc_node_c.register_hook(boom)
    out = a + b + c
    out.sum().backward(inputs=[b], retain_graph=True)
    assert b.grad.item() == 1.0 and a.grad is None
    (gb,) = fg.autograd.grad(out, b)
    assert gb.item() == 1.0


def test_grad_and_backward_inputs_count_node_hooks_like_torch():
    a = fg.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    counts = {"t": 0, "pre": 0, "post": 0}

    def count(kind):
        def hook(*args):
            counts[kind] += 1

        return hook

    a.register_hook(count("t"))
    b.register_hook(count("t"))
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(count("post"))
    acc.register_prehook(count("pre"))
    b.grad_fn.register_hook(count("post"))
    b.grad_fn.register_prehook(count("pre"))

    def run(f):
        for k in counts:
            counts[k] = 0
        f()
        return dict(counts)

    assert run(lambda: fg.autograd.grad(c, inputs=(b,), retain_graph=True)) == {
        "t": 1,
        "pre": 0,
        "post": 0,
    }
    assert run(lambda: fg.autograd.grad(c, inputs=(a, b), retain_graph=True)) == {
        "t": 2,
        "pre": 1,
        "post": 1,
    }
    assert run(lambda: c.backward(retain_graph=True)) == {"t": 2, "pre": 2, "post": 2}
    assert run(lambda: c.backward(inputs=(a, b), retain_graph=True)) == {
        "t": 2,
        "pre": 2,
        "post": 2,
    }


def test_backward_inputs_non_leaf_once_when_it_retains_grad():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    (b * 3).sum().backward(inputs=[b])
    assert b.grad.tolist() == [3.0, 3.0]
    assert a.grad is None


def test_acc_hook_results_are_checked():
    a = fg.tensor([1.0], requires_grad=True)
    acc_node(a).register_prehook(lambda gs: (gs[0], gs[0]))
    with pytest.raises(RuntimeError, match="pre-hook of AccumulateGrad returned 2 gradients"):
        (a * 2).sum().backward()


def test_accumulate_grad_objects_of_one_leaf_are_equal():
    a = fg.tensor([1.0], requires_grad=True)
    assert acc_node(a) == acc_node(a) and hash(acc_node(a)) == hash(acc_node(a))
    assert acc_node(a) != acc_node(fg.tensor([1.0], requires_grad=True))
