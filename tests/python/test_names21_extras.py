"""Everyday names the session-21 survey found missing (docs/user-scripts.md): the in-place
activations of both peers' nn.functional, Module.half / bfloat16 / cpu / cuda, and the
Tensor queries greater / less / get_device / is_signed / is_integer / is_pinned (values
as torch 2.15 and Paddle 3.3.1 give them)."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest

X = np.array([-1.5, -0.2, 0.4, 2.5])


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "reference"),
    [
        ("relu_", (), {}, lambda t: F.relu(t)),
        ("elu_", (0.5,), {}, lambda t: F.elu(t, 0.5)),
        ("leaky_relu_", (0.1,), {}, lambda t: F.leaky_relu(t, 0.1)),
        ("hardtanh_", (-0.5, 1.0), {}, lambda t: F.hardtanh(t, -0.5, 1.0)),
        ("hardtanh_", (), {"min": -0.5, "max": 1.0}, lambda t: F.hardtanh(t, -0.5, 1.0)),
        ("threshold_", (0.3, 9.0), {}, lambda t: F.threshold(t, 0.3, 9.0)),
        ("selu_", (), {}, lambda t: F.selu(t)),
        ("celu_", (0.7,), {}, lambda t: F.celu(t, 0.7)),
        ("rrelu_", (), {}, lambda t: F.rrelu(t)),
        ("tanh_", (), {}, lambda t: t.tanh()),
        ("softmax_", (), {"axis": 0}, lambda t: F.softmax(t, axis=0)),
        ("thresholded_relu_", (), {}, lambda t: F.thresholded_relu(t)),
    ],
)
def test_inplace_activations(name, args, kwargs, reference):
    x = fg.tensor(X, dtype=fg.float64)
    want = reference(x.clone()).numpy()
    assert getattr(F, name)(x, *args, **kwargs) is x
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-15)
    leaf = fg.tensor(X, dtype=fg.float64, requires_grad=True)

    def f(t):
        y = t * 1.0
        return getattr(F, name)(y, *args, **kwargs)

    assert fg.autograd.gradcheck(f, (leaf,))


def test_known_values():
    x = fg.tensor([-1.0, 0.5, 2.0])
    assert F.threshold_(x, 0.6, 9.0).tolist() == [9.0, 9.0, 2.0]  # torch 2.15
    x = fg.tensor([-1.0, 0.5, 2.0])
    assert F.thresholded_relu_(x).tolist() == [0.0, 0.0, 2.0]  # Paddle 3.3.1
    with pytest.raises(TypeError, match="unexpected keyword"):
        F.hardtanh_(fg.ones([2]), low=0.0)
    with pytest.raises(RuntimeError, match="leaf"):
        F.relu_(fg.ones([2], requires_grad=True))


def test_module_half_bfloat16_cpu_cuda():
    m = fg.nn.Sequential(fg.nn.Linear(2, 2), fg.nn.BatchNorm1d(2))
    assert m.cpu() is m
    assert m.half() is m and m[0].weight.dtype == fg.float16
    assert m[1].num_batches_tracked.dtype == fg.int64  # integer buffers stay
    assert m.bfloat16()[1].running_mean.dtype == fg.bfloat16
    assert list(m.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias",
                                    "1.running_mean", "1.running_var", "1.num_batches_tracked"]  # fmt: skip
    with pytest.raises(RuntimeError, match="CPU only"):
        m.cuda()


def test_tensor_queries_and_aliases():
    x = fg.tensor([1.0, 2.0])
    assert x.get_device() == -1 and not x.is_pinned()
    assert x.is_signed() and fg.tensor([1]).is_signed()
    assert not fg.tensor([1], dtype=fg.uint8).is_signed() and not fg.tensor([True]).is_signed()
    assert fg.greater(x, 1.5).tolist() == [False, True] and x.less(1.5).tolist() == [True, False]
    assert x.greater(fg.tensor([0.0, 3.0])).tolist() == [True, False]
    assert (
        not fg.is_integer(x) and fg.tensor([1]).is_integer() and not fg.tensor([True]).is_integer()
    )
    out = fg.zeros(2, dtype=fg.bool)
    assert fg.greater(x, 1.5, out=out) is out and out.tolist() == [False, True]  # out= (PyTorch)
    with pytest.raises(TypeError, match="expected a Tensor"):
        fg.is_integer([1])


def test_paddle_assign_matches_paddle():
    # dtypes and shapes as Paddle 3.3.1 gives them
    assert fg.assign(np.array([1.0, 2.0])).dtype == fg.float64
    assert fg.assign([1.0, 2.0]).dtype == fg.float64 and fg.assign([1, 2]).dtype == fg.int64
    assert fg.assign(3.0).shape == [1] and fg.assign(True).dtype == fg.bool
    assert fg.assign(np.array([1, 2], dtype=np.int32)).dtype == fg.int32
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = fg.assign(x)
    assert y is not x
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    out = fg.zeros([2])
    assert fg.assign(fg.tensor([5.0, 6.0]), out) is out and out.tolist() == [5.0, 6.0]
    with pytest.raises(TypeError):
        fg.assign("text")


def test_paddle_assign_output_takes_the_value_shape_and_dtype():
    # Paddle 3.3.1: `output` becomes the copy's shape and dtype, stays the same object,
    # its inplace_version counts the write once, and the copy is recorded by autograd
    out = fg.to_tensor(np.ones((4, 2, 3), dtype=np.float32))
    out[0] = 1.1
    assert out.inplace_version == 1
    x = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float32, requires_grad=True)
    assert fg.assign(x * 2, out) is out
    assert out.shape == [3] and out.dtype == fg.float32 and out.inplace_version == 2
    np.testing.assert_allclose(out.numpy(), [2.0, 4.0, 6.0])
    (out * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0, 6.0])
    out[2] = 3.0
    assert out.inplace_version == 3
    same_shape = fg.zeros([3], dtype=fg.float64)
    fg.assign(fg.ones([3], dtype=fg.float32), same_shape)
    assert same_shape.dtype == fg.float32 and same_shape.inplace_version == 1
    assert same_shape.tolist() == [1.0, 1.0, 1.0]


def test_sequence_mask_and_diag_embed():
    m = F.sequence_mask(fg.tensor([1, 3, 0]), maxlen=4)
    assert m.dtype == fg.int64 and m.tolist() == [[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]]
    assert F.sequence_mask(fg.tensor([[1, 3], [2, 0]])).shape == [2, 2, 3]
    assert F.sequence_mask(fg.tensor([1, 3]), dtype="float32").tolist() == [[1, 0, 0], [1, 1, 1]]
    assert F.sequence_mask([2], maxlen=fg.tensor(3), dtype="bool").tolist() == [[True, True, False]]
    with pytest.raises(TypeError, match="integer lengths"):
        F.sequence_mask(fg.tensor([1.0]))
    with pytest.raises(ValueError, match="maxlen"):
        F.sequence_mask(fg.tensor([1]), maxlen=-1)
    x = fg.tensor([[1.0, 2.0]])
    assert F.diag_embed(x).tolist() == [[[1.0, 0.0], [0.0, 2.0]]]


def test_deprecated_init_and_clip_spellings_warn_and_work():
    t = fg.empty([3, 2])
    with pytest.warns(FutureWarning, match="nn.init.constant_"):
        assert fg.nn.init.constant(t, 0.5) is t
    assert t.tolist() == [[0.5, 0.5]] * 3
    for name in ("uniform", "normal", "xavier_uniform", "xavier_normal", "kaiming_uniform",
                 "kaiming_normal", "orthogonal", "eye"):  # fmt: skip
        with pytest.warns(FutureWarning, match=f"nn.init.{name}_"):
            getattr(fg.nn.init, name)(fg.empty([3, 2]))
    with pytest.warns(FutureWarning, match="nn.init.dirac_"):
        fg.nn.init.dirac(fg.empty([2, 2, 3]))
    p = fg.nn.Parameter(fg.ones([2]))
    p.grad = fg.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        total = fg.nn.utils.clip_grad_norm([p], 1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)


def test_bincount_and_diagflat_methods():
    x = fg.tensor([0, 1, 1, 3])
    assert x.bincount().tolist() == [1, 2, 0, 1]
    assert x.bincount(minlength=6).tolist() == [1, 2, 0, 1, 0, 0]
    w = fg.tensor([0.5, 1.0, 2.0, 4.0])
    assert x.bincount(w).tolist() == [0.5, 3.0, 0.0, 4.0]
    assert fg.tensor([1.0, 2.0]).diagflat(1).tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
