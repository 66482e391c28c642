"""Layer backward hooks registered by Paddle code get Paddle's ``grad_input``: only the
positional arguments that require grad, so an input that does not require grad gives an
empty tuple (upstream Paddle's ``TestBackwardHook``; Paddle 3.3.1 has no layer backward
hooks). Hooks registered by PyTorch code keep PyTorch's one entry per argument."""

import warnings

import ferrograd as paddle
import numpy as np


class ParamOnly(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.weight = self.create_parameter(shape=[1], dtype="float64")
        with paddle.no_grad():
            self.weight.set_value(paddle.to_tensor([1.5], dtype="float64"))

    def forward(self, x, scale=None):
        out = x * self.weight
        return out if scale is None else out * scale


def test_input_without_grad_gives_empty_grad_input():
    layer = ParamOnly()
    calls = []
    layer.register_full_backward_pre_hook(lambda m, go: calls.append(("pre", go[0].numpy())))
    layer.register_full_backward_hook(lambda m, gi, go: calls.append(("full", gi, go[0].numpy())))
    x = paddle.to_tensor([2.0], dtype="float64", stop_gradient=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer(x).backward()
    assert [c[0] for c in calls] == ["pre", "full"]
    assert calls[1][1] == ()
    np.testing.assert_allclose(calls[1][2], [1.0])
    np.testing.assert_allclose(layer.weight.grad.numpy(), [2.0])


def test_legacy_register_backward_hook_has_the_same_form():
    layer = ParamOnly()
    calls = []
    layer.register_backward_hook(lambda m, gi, go: calls.append((len(gi), go[0].numpy())))
    x = paddle.to_tensor([2.0], dtype="float64", stop_gradient=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer(x).backward()
    assert len(calls) == 1 and calls[0][0] == 0
    np.testing.assert_allclose(calls[0][1], [1.0])


def test_only_arguments_that_require_grad_and_replacement_maps_back():
    layer = ParamOnly()
    seen = []

    def hook(m, gi, go):
        seen.append([g.numpy().copy() for g in gi])
        return (gi[0] * 10,)

    layer.register_full_backward_hook(hook)
    x = paddle.to_tensor([2.0], dtype="float64", stop_gradient=False)
    s = paddle.to_tensor([3.0], dtype="float64", stop_gradient=True)
    layer(x, s).backward()
    assert len(seen) == 1 and len(seen[0]) == 1
    np.testing.assert_allclose(seen[0][0], [4.5])  # d(x * 1.5 * 3)/dx
    np.testing.assert_allclose(x.grad.numpy(), [45.0])


def test_torch_code_keeps_one_entry_per_argument():
    layer = ParamOnly()
    calls = []
    ns = {"torch": paddle, "layer": layer, "calls": calls}
    exec(
        "layer.register_full_backward_hook(lambda m, gi, go: calls.append(gi))",
        ns,
    )
    x = paddle.to_tensor([2.0], dtype="float64", stop_gradient=False)
    s = paddle.to_tensor([3.0], dtype="float64", stop_gradient=True)
    layer(x, s).backward()
    assert len(calls) == 1 and len(calls[0]) == 2
    assert calls[0][1] is None
    np.testing.assert_allclose(calls[0][0].numpy(), [4.5])
