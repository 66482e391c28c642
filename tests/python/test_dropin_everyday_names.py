"""Everyday names found missing by running realistic Paddle / PyTorch scripts with only the
import line changed: ``Tensor.size`` in both dialects, ``transpose(perm=)`` /
``permute(dims=)``, ``create_parameter``, ``add_n``, ``version``."""

import pickle

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.autograd import gradcheck


def test_size_is_paddles_number_of_elements_and_torchs_method():
    x = fg.ones(2, 3)
    assert x.size == 6 and isinstance(x.size, int) and x.size * 2 == 12  # Paddle
    assert x.size() == (2, 3) and x.size() == [2, 3]  # torch
    assert x.size(1) == 3 and x.size(-1) == 3 and x.size(dim=0) == 2
    assert repr(x.size) == "6" and pickle.loads(pickle.dumps(x.size)) == 6
    with pytest.raises(IndexError, match="out of range"):
        x.size(2)
    with pytest.raises(IndexError, match="0-d"):
        fg.tensor(3.0).size(0)
    assert fg.tensor(3.0).size == 1 and fg.tensor(3.0).size() == ()
    assert fg.zeros(0, 4).size == 0


def test_transpose_and_permute_keywords():
    a = fg.arange(24).reshape([2, 3, 4])
    ref = np.arange(24).reshape(2, 3, 4)
    assert fg.transpose(a, perm=[2, 0, 1]).tolist() == ref.transpose(2, 0, 1).tolist()
    assert a.transpose(perm=[1, 0, 2]).tolist() == ref.transpose(1, 0, 2).tolist()
    assert fg.transpose(a, dim0=0, dim1=2).tolist() == ref.swapaxes(0, 2).tolist()
    assert a.transpose(0, dim1=1).tolist() == ref.swapaxes(0, 1).tolist()
    assert a.permute(dims=[2, 1, 0]).tolist() == ref.transpose(2, 1, 0).tolist()
    with pytest.raises(TypeError, match="perm="):
        a.transpose(0, perm=[1, 0, 2])
    with pytest.raises(TypeError, match="not both"):
        a.permute(0, dims=[1, 0, 2])


def test_transpose_with_perm_keyword_is_differentiable():
    x = fg.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(lambda t: fg.transpose(t, perm=[1, 0]) * 2.0, (x,))


def test_create_parameter_dynamic_and_static():
    p = fg.create_parameter([2, 3], "float32")
    assert isinstance(p, nn.Parameter) and not p.stop_gradient and p.dtype == fg.float32
    assert np.abs(p.numpy()).max() <= (6.0 / 5.0) ** 0.5  # Xavier-uniform bound
    b = fg.create_parameter([3], "float64", name="b0", is_bias=True)
    assert b.numpy().tolist() == [0.0, 0.0, 0.0] and b.name == "b0"
    c = fg.create_parameter(
        [2],
        "float32",
        attr=fg.ParamAttr(initializer=nn.initializer.Constant(2.0), trainable=False),
    )
    assert c.numpy().tolist() == [2.0, 2.0] and c.stop_gradient
    # a Layer's create_parameter honours attr too (it used to ignore it)
    w = nn.Layer().create_parameter(
        [2], attr=fg.ParamAttr(initializer=nn.initializer.Constant(3.0))
    )
    assert w.numpy().tolist() == [3.0, 3.0]
    fg.enable_static()
    try:
        v = fg.create_parameter([2, 2], "float32", name="cp_w")
        assert type(v).__name__ != "Parameter" and v.name == "cp_w"
    finally:
        fg.disable_static()


def test_add_n():
    xs = [fg.tensor(np.full((2, 2), float(i)), requires_grad=True) for i in range(1, 4)]
    out = fg.add_n(xs)
    assert out.numpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]
    out.sum().backward()
    assert all(x.grad.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]] for x in xs)
    single = fg.add_n(xs[0])
    assert single.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]] and single is not xs[0]
    with pytest.raises(ValueError, match=r"inputs\[1\]"):
        fg.add_n([fg.ones(2), fg.ones(3)])
    with pytest.raises(ValueError, match="at least one"):
        fg.add_n([])


def test_version_module_in_both_spellings():
    assert fg.version.full_version == fg.__version__
    assert not fg.version.cuda and repr(fg.version.cuda) == "None"  # torch.version.cuda
    assert fg.version.cuda() == "False"  # paddle.version.cuda()


def test_places_and_paddle_device_namespace():
    assert repr(fg.CPUPlace()) == "Place(cpu)" and fg.CPUPlace() == fg.ones(1).place
    assert fg.static.CPUPlace() == fg.CPUPlace()
    with pytest.raises(ValueError, match="CPU only"):
        fg.CUDAPlace(0)
    # paddle.device is a module in Paddle and a class in torch: both uses work
    assert fg.device.get_device() == "cpu" and fg.device.set_device("cpu") == "cpu"
    assert fg.device.cuda.device_count() == 0 and not fg.device.is_compiled_with_cuda()
    assert fg.device("cpu") == "cpu"
    with pytest.raises(ValueError, match="CPU only"):
        fg.device.set_device("gpu:0")
