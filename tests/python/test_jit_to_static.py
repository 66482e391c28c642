"""``paddle.jit.to_static`` runs eagerly (as Paddle with ``enable_to_static(False)``):
same values, gradients and tensor hooks. ``jit.save`` / ``jit.load`` are tested in
test_jit_save_load.py."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x, double_grad=False):
        y = self.fc(x)
        if double_grad:
            y.register_hook(lambda g: g * 2)
        return y.sum()


def test_layer_form_with_input_spec_keeps_hooks():
    net = Net()
    jit_net = fg.jit.to_static(net, input_spec=[fg.static.InputSpec([None, 4])])
    assert jit_net is net
    a = fg.randn([3, 4])
    b = a.detach().clone()
    a.stop_gradient = False
    b.stop_gradient = False
    jit_net(a).backward()
    jit_net(b, True).backward()
    np.testing.assert_allclose(2 * a.grad.numpy(), b.grad.numpy())


def test_function_and_decorator_forms():
    @fg.jit.to_static
    def f(x):
        return x * 2.0

    @fg.jit.to_static(full_graph=True, input_spec=[fg.static.InputSpec([2], "float32", "x")])
    def g(x):
        return x + 1.0

    x = fg.tensor([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(g(x).numpy(), [2.0, 3.0])
    assert f.__name__ == "f"
    fg.jit.enable_to_static(False)
    fg.jit.enable_to_static(True)
    with pytest.raises(TypeError, match="input_spec"):
        fg.jit.to_static(f, input_spec=fg.static.InputSpec([2]))


def test_save_needs_inputs_and_load_an_existing_file(tmp_path):
    # jit.save captures the forward as a program: without input_spec (here or given to
    # to_static) its inputs are unknown (test_jit_save_load.py covers the rest)
    with pytest.raises(ValueError, match="input_spec"):
        fg.jit.save(Net(), str(tmp_path / "never"))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError, match="pdmodel"):
        fg.jit.load(str(tmp_path / "never"))
    with pytest.raises(AttributeError, match="does not implement"):
        fg.jit.ScriptModule  # noqa: B018


def test_torch_jit_script_and_trace_run_eagerly():
    net = Net()
    assert fg.jit.script(net) is net
    assert fg.jit.trace(net, fg.ones([2, 4])) is net
    assert fg.jit.freeze(net) is net and fg.jit.optimize_for_inference(net) is net

    @fg.jit.script
    def f(x, flag: bool):
        """doc"""
        if flag:  # data-dependent branches run as written
            return x * 2
        return x - 1

    x = fg.tensor([1.0, 2.0], requires_grad=True)
    f(x, True).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    assert f.__name__ == "f" and f.__doc__ == "doc"
    np.testing.assert_array_equal(f(x, False).detach().numpy(), [0.0, 1.0])
    g = fg.jit.trace(lambda t: t.exp(), (fg.zeros([1]),))
    np.testing.assert_allclose(g(fg.ones([1])).numpy(), [np.e], rtol=1e-6)
    assert not fg.jit.is_scripting() and not fg.jit.is_tracing()
    with pytest.raises(TypeError, match="function or a Module"):
        fg.jit.script(3)


def test_torch_jit_annotations_and_fork():
    class M(fg.nn.Module):
        scale: fg.jit.Final[float]

        @fg.jit.ignore
        def helper(self):
            return 1

        @fg.jit.unused
        def other(self):
            return 2

        @fg.jit.export
        def third(self):
            return 3

        @fg.jit.ignore(drop=True)
        def fourth(self):
            return 4

    m = M()
    assert (m.helper(), m.other(), m.third(), m.fourth()) == (1, 2, 3, 4)
    assert fg.jit.Final[int] is int
    assert fg.jit.annotate(list, []) == []
    fut = fg.jit.fork(lambda a, b: a + b, 2, b=3)
    assert fg.jit.wait(fut) == 5 and fut.done()
    with pytest.raises(ZeroDivisionError):
        fg.jit.fork(lambda: 1 / 0)


def test_input_spec():
    s = fg.static.InputSpec([None, 3], "float32", "x")
    assert s.shape == (-1, 3)
    assert s.batch(4).shape == (4, -1, 3)
    assert s.unbatch().shape == (3,)
    assert fg.static.InputSpec.from_tensor(fg.zeros([2, 2])).shape == (2, 2)
