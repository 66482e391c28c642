"""`x.numpy()` and `y.backward()` follow the calling module's dialect: PyTorch code gets
PyTorch's memory sharing and errors, Paddle code (and code of no dialect) Paddle's copy and
ones seed (docs/dialects.md, "Which dialect a call speaks")."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from test_shared_spellings import _run


def test_pytorch_numpy_shares_memory_both_ways():
    g = _run("x = torch.zeros(3); a = x.numpy(); a[1] = 5.0; x.add_(1)", "torch")
    assert g["x"].tolist() == [1.0, 6.0, 1.0]  # NumPy's write reached the tensor
    np.testing.assert_array_equal(g["a"], [1.0, 6.0, 1.0])  # and the tensor's the array


def test_paddle_and_neutral_numpy_copy():
    for name in ("paddle", None):
        g = _run(f"x = {name or 'fg'}.zeros([3]); a = x.numpy(); a[1] = 5.0", name)
        assert g["x"].tolist() == [0.0, 0.0, 0.0]
    x = fg.ones([2], requires_grad=True)
    assert x.numpy().tolist() == [1.0, 1.0]  # Paddle: a parameter's values, everyday code


def test_pytorch_numpy_of_a_tensor_that_requires_grad_raises_as_pytorch():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        _run("x = torch.ones(2, requires_grad=True); a = x.numpy()", "torch")
    # under no_grad PyTorch allows it
    g = _run(
        "x = torch.ones(2, requires_grad=True)\nwith torch.no_grad():\n    a = x.numpy()", "torch"
    )
    assert g["a"].tolist() == [1.0, 1.0]
    # force=True: a copy (PyTorch's escape)
    g = _run("x = torch.ones(2, requires_grad=True); b = x.numpy(force=True); b[0] = 7", "torch")
    assert g["b"].tolist() == [7.0, 1.0] and g["x"].tolist() == [1.0, 1.0]
    g = _run("x = torch.ones(2, requires_grad=True); a = x.detach().numpy(); a[0] = 4", "torch")
    assert g["x"].tolist() == [4.0, 1.0]


def test_pytorch_numpy_of_a_saved_tensor_is_read_only():
    # PyTorch would let the write through and silently corrupt the gradient
    src = "w = torch.ones(2, requires_grad=True); x = torch.ones(2) * 3; y = (w * x).sum()"
    g = _run(src + "; a = x.numpy()", "torch")
    with pytest.raises(ValueError, match="read-only"):
        g["a"][0] = 7.0
    g["y"].backward()
    assert g["w"].grad.tolist() == [3.0, 3.0]


def test_pytorch_numpy_of_bfloat16_is_a_float32_copy():
    g = _run("a = torch.ones(2, dtype=torch.bfloat16).numpy()", "torch")
    assert g["a"].dtype == np.float32 and g["a"].tolist() == [1.0, 1.0]


def test_pytorch_backward_needs_a_scalar_or_a_gradient():
    pre = "x = torch.ones(3, requires_grad=True); y = x * 2\n"
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        _run(pre + "y.backward()", "torch")
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        _run(pre + "torch.autograd.backward([y], [None])", "torch")
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        _run(pre + "torch.autograd.grad(y, x)", "torch")
    g = _run(pre + "y.backward(torch.ones(3))", "torch")
    assert g["x"].grad.tolist() == [2.0, 2.0, 2.0]
    g = _run("x = torch.ones(1, requires_grad=True); (x * 2).backward()", "torch")
    assert g["x"].grad.tolist() == [2.0]  # one element: PyTorch seeds it too


def test_paddle_and_neutral_backward_seed_ones():
    for name in ("paddle", None):
        m = name or "fg"
        src = f"x = {m}.ones([3]); x.stop_gradient = False; y = x * 2; y.backward()"
        g = _run(src, name)
        assert g["x"].grad.tolist() == [2.0, 2.0, 2.0]


def test_pytorch_backward_without_a_graph_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        _run("torch.ones(2).sum().backward()", "torch")
    with pytest.warns(UserWarning, match="does not require grad"):
        _run("paddle.ones([2]).sum().backward()", "paddle")
