"""Tensor hooks on a view written in place, and a custom `Function` that writes a view
input in place and returns more than one object: PyTorch code gets PyTorch's behaviour
(the expectations below were taken from PyTorch 2.x once), Paddle code keeps ferrograd's
(docs/dialects.md). Each scenario runs as the code of a module that names ferrograd
``torch`` or ``paddle`` (the dialect rule reads the calling module's names)."""

from __future__ import annotations

import textwrap

import ferrograd as fg
import pytest

# `log` collects (hook name, gradient as a list) in call order
HOOK = textwrap.dedent(
    """
    log = []
    def mk(tag):
        def f(g):
            log.append((tag, None if g is None else g.tolist()))
        return f
    """
)

SCENARIOS = {
    # upstream test_tensor_hooks_inplace_over_view (test_autograd_gradmode.py)
    "upstream": """
        base = fw.tensor([1.0], requires_grad=True).clone()
        view = base[:]
        view2 = base[:]
        view.register_hook(mk("view-before"))
        view2.register_hook(mk("view2-before"))
        view.mul_(2)
        view2.grad_fn
        view2.register_hook(mk("view2-after"))
        (view + view2).sum().backward()
    """,
    # a view written twice: the hook registered between the writes belongs to the
    # history the second write replaced
    "twice": """
        base = fw.tensor([1.0, 2.0], requires_grad=True).clone()
        view = base[:1]
        view.mul_(2)
        view.register_hook(mk("after-first"))
        view.mul_(3)
        view.register_hook(mk("after-second"))
        view.sum().backward()
    """,
    # a view of a view written in place: neither view's earlier hooks are on the path
    "view-of-view": """
        base = fw.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
        v = base[:2]
        vv = v[:1]
        v.register_hook(mk("v-before"))
        vv.register_hook(mk("vv-before"))
        vv.mul_(2)
        v.sum().backward()
    """,
    # a write into the base: the view's history is regenerated (register_hook reads it)
    "base-write": """
        base = fw.tensor([1.0, 2.0], requires_grad=True).clone()
        view = base[:1]
        view.register_hook(mk("before"))
        base.mul_(2)
        view.register_hook(mk("after"))
        view.sum().backward()
    """,
    # a graph recorded from the view before the base was written still calls its hook
    "base-write-used-before": """
        base = fw.tensor([1.0, 2.0], requires_grad=True).clone()
        view = base[:1]
        view.register_hook(mk("before"))
        w = view * 3
        base.mul_(2)
        (w.sum() + view.sum()).backward()
    """,
    # a write into a sibling view
    "sibling-write": """
        base = fw.tensor([1.0, 2.0], requires_grad=True).clone()
        view = base[:1]
        view2 = base[1:]
        view.register_hook(mk("before"))
        view2.mul_(2)
        (view.sum() * 3).backward()
    """,
    # retain_grad() follows each view to its new history
    "retain": """
        base = fw.tensor([1.0, 2.0], requires_grad=True).clone()
        view = base[:1]
        view2 = base[1:]
        view.retain_grad()
        view2.retain_grad()
        view.mul_(2)
        base.add_(1)
        (view.sum() * 5 + view2.sum() * 7).backward()
        log.append(("view.grad", view.grad.tolist()))
        log.append(("view2.grad", view2.grad.tolist()))
    """,
    # removing a hook the write dropped is harmless
    "remove-after": """
        base = fw.tensor([1.0, 2.0], requires_grad=True).clone()
        view = base[:1]
        h = view.register_hook(mk("before"))
        view.mul_(2)
        h.remove()
        view.sum().backward()
    """,
}

# PyTorch 2.x's calls, per scenario
TORCH = {
    "upstream": [("view2-after", [1.0])],
    "twice": [("after-second", [1.0])],
    "view-of-view": [],
    "base-write": [("after", [1.0])],
    "base-write-used-before": [("before", [3.0])],
    "sibling-write": [],
    "retain": [("view.grad", [5.0]), ("view2.grad", [7.0])],
    "remove-after": [],
}

# Paddle code keeps every hook it registered: a hook registered before a write sees the
# gradient of the value before the write
PADDLE = {
    **TORCH,
    "upstream": [("view2-after", [1.0]), ("view-before", [4.0])],
    "twice": [("after-second", [1.0]), ("after-first", [3.0])],
    "view-of-view": [("vv-before", [2.0]), ("v-before", [2.0, 0.0])],
}


def _run(src: str, dialect: str) -> list:
    g: dict = {"__name__": "user_script", "fw": fg, dialect: fg}
    exec(compile(HOOK + textwrap.dedent(src), "<user_script>", "exec"), g)
    return g["log"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_view_hooks_in_torch_code(name):
    assert _run(SCENARIOS[name], "torch") == TORCH[name]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_view_hooks_in_paddle_code(name):
    assert _run(SCENARIOS[name], "paddle") == PADDLE[name]


def test_a_hook_on_a_view_written_later_sees_no_stale_gradient_in_torch_code():
    # gradient values are unchanged by the rule: only which hooks run
    g = {"__name__": "user_script", "fw": fg, "torch": fg}
    src = """
        a = fw.tensor([1.0, 2.0], requires_grad=True)
        base = a.clone()
        view = base[:1]
        view.register_hook(lambda g: g * 100)  # dropped by the write: no effect
        view.mul_(2)
        base.sum().backward()
        grad = a.grad.tolist()
    """
    exec(compile(textwrap.dedent(src), "<user_script>", "exec"), g)
    assert g["grad"] == [2.0, 1.0]
    g = {"__name__": "user_script", "fw": fg, "paddle": fg}
    exec(compile(textwrap.dedent(src), "<user_script>", "exec"), g)
    assert g["grad"] == [200.0, 1.0]  # Paddle code: the hook still scales the old value's


# --- a custom Function that writes a view input in place (mark_dirty) ---

FUNCTIONS = textwrap.dedent(
    """
    class Two(fw.autograd.Function):
        @staticmethod
        def forward(ctx, v, b):
            v.mul_(2)
            ctx.mark_dirty(v)
            return v, v + b

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2, g2

    class WithNumber(fw.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            v.mul_(2)
            ctx.mark_dirty(v)
            return v, 3

        @staticmethod
        def backward(ctx, g, _):
            return g * 2

    class OneInATuple(fw.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            v.mul_(2)
            ctx.mark_dirty(v)
            return (v,)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class NotAView(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x, v):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, v * 1

        @staticmethod
        def backward(ctx, g, g2):
            return g * 2, g2

    a = fw.ones(2, requires_grad=True)
    b = fw.ones(2, requires_grad=True)
    """
)

VIEW_ERROR = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine."
)


def _functions() -> dict:
    g: dict = {"__name__": "user_script", "fw": fg, "torch": fg}
    exec(compile(FUNCTIONS, "<user_script>", "exec"), g)
    return g


@pytest.mark.parametrize(
    "call",
    [
        "Two.apply(a.clone().view_as(a), b)",
        "WithNumber.apply(a.clone().view_as(a))",
        "Two.apply(fw.ones(2)[:], b)",  # a view of a tensor without grad: still refused
    ],
)
def test_a_function_refuses_a_dirty_view_input_with_several_outputs(call):
    g = _functions()
    with pytest.raises(RuntimeError) as e:
        eval(call, g)
    assert str(e.value).startswith(VIEW_ERROR)
    assert "(using .clone() for example)" in str(e.value)


def test_a_function_accepts_what_pytorch_accepts():
    g = _functions()
    (out,) = eval("OneInATuple.apply(a.clone().view_as(a))", g)
    out.sum().backward()
    assert g["a"].grad.tolist() == [2.0, 2.0]
    x, y = eval("NotAView.apply(a.clone(), a.clone()[:])", g)
    assert x.tolist() == [2.0, 2.0] and y.tolist() == [1.0, 1.0]
    with fg.no_grad():  # nothing recorded: nothing to refuse
        x, y = eval("Two.apply(a.clone().view_as(a), b)", g)
    assert x.tolist() == [2.0, 2.0] and y.tolist() == [3.0, 3.0]
    x, y = eval("Two.apply(fw.ones(2)[:], fw.ones(2))", g)  # no input requires grad
    assert y.tolist() == [3.0, 3.0]


def test_a_paddle_layer_returning_its_written_view_input_and_more_is_computed():
    # Paddle 3.3.1 (checked): a.grad [4, 4], b.grad [1, 1]
    src = """
        class Layer(fw.autograd.PyLayer):
            @staticmethod
            def forward(ctx, v, b):
                v.multiply_(fw.to_tensor(2.0))
                return v, v + b

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 2, g2

        a = fw.ones([2])
        a.stop_gradient = False
        b = fw.ones([2])
        b.stop_gradient = False
        o1, o2 = Layer.apply(a.clone()[:], b)
        (o1.sum() + o2.sum()).backward()
        out = (o1.tolist(), o2.tolist(), a.grad.tolist(), b.grad.tolist())
    """
    g: dict = {"__name__": "user_script", "fw": fg, "paddle": fg}
    exec(compile(textwrap.dedent(src), "<user_script>", "exec"), g)
    assert g["out"] == ([2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [1.0, 1.0])
