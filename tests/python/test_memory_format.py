"""PyTorch's memory formats (``torch.contiguous_format`` / ``channels_last`` /
``channels_last_3d`` / ``preserve_format``) and the ``memory_format=`` keyword.

References (PyTorch 2.x): c10/core/MemoryFormat.h (``get_channels_last_strides_2d``,
``is_channels_last_strides_2d_s4``), c10/core/Contiguity.h
(``compute_channels_last_contiguous_2d``), aten/src/ATen/native/TensorFactories.cpp
(``empty_like``: preserve keeps a dense input's strides, else ``infer_dense_strides``),
aten/src/ATen/native/TensorConversions.cpp (``_to_copy``, ``to_will_alias``),
c10/core/TensorImpl.h (``empty_tensor_restride``'s errors), torch/nn/modules/module.py
(``Module.to``: 4-D / 5-D tensors only).
"""

import copy
import pickle

import ferrograd as torch
import numpy as np
import pytest

CL = torch.channels_last


def _nchw(*shape, grad=False):
    n = int(np.prod(shape))
    x = torch.arange(float(n), dtype=torch.float64).reshape(*shape)
    return x.requires_grad_() if grad else x


def test_format_objects_reprs_and_identity():
    assert repr(torch.channels_last) == "torch.channels_last"
    assert str(torch.contiguous_format) == "torch.contiguous_format"
    assert repr(torch.channels_last_3d) == "torch.channels_last_3d"
    assert repr(torch.preserve_format) == "torch.preserve_format"
    for f in (torch.contiguous_format, CL, torch.channels_last_3d, torch.preserve_format):
        assert isinstance(f, torch.memory_format)
        assert pickle.loads(pickle.dumps(f)) is f
        assert copy.deepcopy(f) is f


def test_channels_last_strides_and_values():
    x = _nchw(2, 3, 4, 5)
    y = x.contiguous(memory_format=CL)
    # [N, C, H, W] -> (H*W*C, 1, W*C, C)
    assert y.stride() == (60, 1, 15, 3)
    assert y.is_contiguous(memory_format=CL) and not y.is_contiguous()
    assert not x.is_contiguous(memory_format=CL)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    # already channels_last: the same tensor
    assert y.contiguous(memory_format=CL) is y
    back = y.contiguous()
    assert back.stride() == (60, 20, 5, 1)
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_channels_last_3d_strides():
    x = _nchw(2, 3, 2, 4, 5)
    y = x.contiguous(memory_format=torch.channels_last_3d)
    assert y.stride() == (120, 1, 60, 15, 3)
    assert y.is_contiguous(memory_format=torch.channels_last_3d)
    assert not y.is_contiguous(memory_format=CL)  # another rank: False, no error
    np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_is_contiguous_ignores_size_one_dims():
    # compute_channels_last_contiguous_2d skips dims of size 1
    x = _nchw(2, 1, 3, 3)
    assert x.is_contiguous(memory_format=CL)  # C == 1: NCHW is also NHWC
    assert x.contiguous(memory_format=CL) is x
    z = _nchw(4, 3, 1, 1)
    assert z.is_contiguous(memory_format=CL)
    assert not _nchw(2, 3).is_contiguous(memory_format=CL)


def test_empty_tensor_channels_last():
    e = torch.empty(2, 0, 3, 3, memory_format=CL)
    assert e.stride() == (0, 1, 0, 0)  # get_channels_last_strides_2d: no max(size, 1)
    assert e.is_contiguous(memory_format=CL)
    x = torch.zeros(0, 3, 2, 2)
    y = x.contiguous(memory_format=CL)
    assert y.shape == (0, 3, 2, 2) and y.is_contiguous(memory_format=CL)


def test_empty_and_likes_take_memory_format():
    assert torch.empty(2, 3, 4, 5, memory_format=CL).stride() == (60, 1, 15, 3)
    assert torch.empty(2, 3, memory_format=torch.contiguous_format).stride() == (3, 1)
    x = _nchw(2, 3, 4, 5)
    for fn in (torch.empty_like, torch.zeros_like, torch.ones_like, torch.rand_like):
        assert fn(x, memory_format=CL).stride() == (60, 1, 15, 3)
    assert torch.full_like(x, 7.0, memory_format=CL).stride() == (60, 1, 15, 3)
    assert torch.randn_like(x, memory_format=CL).stride() == (60, 1, 15, 3)
    assert torch.randint_like(x, 5, memory_format=CL).stride() == (60, 1, 15, 3)
    ones = torch.ones_like(x, memory_format=CL)
    assert float(ones.sum()) == 120.0
    full = torch.full_like(x, 7.0, memory_format=CL)
    assert (full.numpy() == 7.0).all()
    # requires_grad=True: a leaf in the asked layout
    z = torch.zeros_like(x, memory_format=CL, requires_grad=True)
    assert z.is_leaf and z.requires_grad and z.stride() == (60, 1, 15, 3)


def test_preserve_format_is_the_default_of_likes_clone_and_casts():
    y = _nchw(2, 3, 4, 5).contiguous(memory_format=CL)
    assert torch.zeros_like(y).stride() == (60, 1, 15, 3)
    assert torch.empty_like(y, memory_format=torch.preserve_format).stride() == (60, 1, 15, 3)
    assert y.clone().stride() == (60, 1, 15, 3)
    assert torch.clone(y).stride() == (60, 1, 15, 3)
    assert y.clone(memory_format=torch.contiguous_format).stride() == (60, 20, 5, 1)
    assert y.float().stride() == (60, 1, 15, 3) and y.float().dtype == torch.float32
    assert y.to(torch.float32).stride() == (60, 1, 15, 3)
    assert y.to(torch.float32, memory_format=torch.contiguous_format).stride() == (60, 20, 5, 1)
    assert y.half(memory_format=torch.contiguous_format).is_contiguous()
    # a permuted (dense) tensor keeps its strides
    t = _nchw(3, 4).t()
    assert t.clone().stride() == (1, 4)
    assert torch.ones_like(t).stride() == (1, 4)


def test_preserve_format_of_a_sliced_tensor_is_dense_in_its_order():
    # empty_like's rule for a non-dense input: infer_dense_strides keeps the dim order
    base = torch.empty(2, 3, 3, 6, memory_format=CL)[..., ::2]
    assert base.stride() == (54, 1, 18, 6)
    c = base.clone()
    assert c.stride() == (27, 1, 9, 3) and c.is_contiguous(memory_format=CL)
    d = torch.empty(2, 3, 3, 6)[..., ::2].clone()
    assert d.stride() == (27, 9, 3, 1)
    # an expanded (stride 0) input: the ambiguous dims stay in place
    e = torch.ones(3, 1).expand(3, 4).clone()
    assert e.stride() == (4, 1)


def test_to_returns_self_when_nothing_changes():
    y = _nchw(2, 3, 4, 5).contiguous(memory_format=CL)
    assert y.to(torch.float64) is y  # same dtype: no copy (to_will_alias)
    assert y.to(memory_format=CL) is y  # suggest_memory_format() is channels_last
    x = _nchw(2, 3, 4, 5)
    z = x.to(memory_format=CL)
    assert z is not x and z.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(z.numpy(), x.numpy())


def test_wrong_rank_and_bad_formats_raise():
    x = _nchw(2, 3, 4)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.contiguous(memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.empty(2, 3, memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        _nchw(2, 3, 4, 5).clone(memory_format=torch.channels_last_3d)
    with pytest.raises(RuntimeError, match="required rank 4 tensor"):
        torch.zeros_like(x, memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 4 tensor"):
        x.to(memory_format=CL)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        torch.empty(2, 3, memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        _nchw(3, 4).t().contiguous(memory_format=torch.preserve_format)
    assert _nchw(3, 4).contiguous(memory_format=torch.preserve_format).is_contiguous()
    with pytest.raises(TypeError, match="must be torch.memory_format"):
        _nchw(2, 3, 4, 5).contiguous(memory_format="channels_last")
    with pytest.raises(TypeError, match="must be torch.memory_format"):
        _nchw(2, 3, 4, 5).is_contiguous(memory_format=1)


def test_gradients_flow_through_layout_changes():
    x = _nchw(2, 3, 2, 2, grad=True)
    w = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 2, 2)
    for f in (
        lambda t: t.contiguous(memory_format=CL),
        lambda t: t.clone(memory_format=CL),
        lambda t: t.to(memory_format=CL),
        lambda t: t.contiguous(memory_format=CL).clone(),
        lambda t: t.contiguous(memory_format=CL).contiguous(),
    ):
        x.grad = None
        (f(x) * w).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), w.numpy())
    assert torch.autograd.gradcheck(lambda t: t.contiguous(memory_format=CL) * 2.0, (x,))
    assert torch.autograd.gradcheck(lambda t: t.clone(memory_format=CL).sin(), (x,))
    x5 = _nchw(1, 2, 2, 2, 2, grad=True)
    assert torch.autograd.gradcheck(
        lambda t: t.contiguous(memory_format=torch.channels_last_3d).exp(), (x5,)
    )


def test_module_to_memory_format():
    # test_packed_sequence.test_to_memory_format's case
    m = torch.nn.Conv2d(in_channels=16, out_channels=32, kernel_size=2, bias=True)
    w = m.weight
    assert m.to(memory_format=CL) is m
    assert m.weight is w  # the same Parameter, its data re-laid out
    assert m.weight.is_contiguous(memory_format=CL) and m.weight.requires_grad
    assert m.bias.stride() == (1,)
    x = torch.randn(2, 16, 5, 5).contiguous(memory_format=CL)
    ref = torch.nn.functional.conv2d(x.contiguous(), w.contiguous(), m.bias)
    np.testing.assert_allclose(m(x).detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    m.to(torch.float64, memory_format=torch.contiguous_format)
    assert m.weight.dtype == torch.float64 and m.weight.is_contiguous()
    with pytest.raises(RuntimeError, match="required rank 5"):
        m.to(memory_format=torch.channels_last_3d)
    with pytest.raises(TypeError, match="memory_format"):
        m.to(memory_format="channels_last")


def test_dropout_keeps_the_input_layout():
    # test_dropout.py's _test_dropout_discontiguous / _stride_mean_preserve
    x = torch.ones(2, 3, 4, 5).contiguous(memory_format=CL).requires_grad_()
    out = torch.nn.functional.dropout(x, 0.3)
    assert out.is_contiguous(memory_format=CL)
    out.backward(torch.ones(2, 3, 4, 5))
    kept = out.detach().numpy() != 0
    np.testing.assert_allclose(x.grad.numpy()[kept], 1 / 0.7)
    d2 = torch.nn.Dropout2d(0.5)(x)
    assert d2.is_contiguous(memory_format=CL)
    flat = d2.detach().numpy().reshape(2, 3, -1)  # whole channels kept or dropped
    assert ((flat == 0).all(axis=2) | (flat != 0).all(axis=2)).all()
    sliced = torch.empty(2, 3, 3, 6, memory_format=CL)[..., ::2]
    sliced.copy_(torch.ones(2, 3, 3, 3))
    o = torch.nn.Dropout(1e-10)(sliced)
    assert o.is_contiguous(memory_format=CL)
    np.testing.assert_array_equal(o.numpy(), sliced.numpy())


def test_elementwise_results_are_row_major_with_equal_values():
    # an elementwise op on a channels_last tensor gives a row-major result (documented
    # difference from PyTorch, whose TensorIterator keeps the layout): values agree
    y = _nchw(2, 3, 4, 5).contiguous(memory_format=CL)
    s = y + 1
    np.testing.assert_array_equal(s.numpy(), _nchw(2, 3, 4, 5).numpy() + 1)


def test_make_tensor_takes_memory_format():
    # torch/testing/_creation.py make_tensor: `result.clone(memory_format=memory_format)`
    t = torch.testing.make_tensor(
        2, 3, 4, 5, dtype=torch.float32, device="cpu", memory_format=CL, requires_grad=True
    )
    assert t.is_contiguous(memory_format=CL) and t.is_leaf and t.requires_grad
    with pytest.raises(ValueError, match="mutually exclusive"):
        torch.testing.make_tensor(
            2, 3, 4, 5, dtype=torch.float32, device="cpu", memory_format=CL, noncontiguous=True
        )


def test_resize_takes_memory_format():
    # TensorImpl::empty_tensor_restride after the resize: the same memory, new strides
    x = torch.arange(120.0)
    x.resize_(2, 3, 4, 5, memory_format=CL)
    assert x.stride() == (60, 1, 15, 3) and x.is_contiguous(memory_format=CL)
    assert x[0, :, 0, 0].tolist() == [0.0, 1.0, 2.0]  # memory order kept: values re-read
    z = torch.zeros(2, 3)
    z.resize_as_(torch.ones(1, 2, 2, 2), memory_format=CL)
    assert z.stride() == (8, 1, 4, 2)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        torch.ones(3).resize_(1, 1, 1, 3, memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError, match="required rank 4"):
        torch.ones(3).resize_(3, memory_format=CL)
