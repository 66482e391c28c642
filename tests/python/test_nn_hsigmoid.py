"""Issue 17: Paddle's ``F.hsigmoid_loss`` / ``nn.HSigmoidLoss`` (default and custom trees)
against a NumPy float64 reference that walks each class's path bit by bit; gradcheck,
Paddle's documented value, bad input."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(9)


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def softplus(z):
    return math.log1p(math.exp(z))


def ref_default(x, labels, num_classes, w, b=None):
    width = (num_classes - 1).bit_length()
    out = []
    for xi, c in zip(x, labels):
        code = int(c) + num_classes
        length = code.bit_length() - 1
        total = 0.0
        for j in range(width):
            if j < length:
                node = (code >> (j + 1)) - 1
                bit = (code >> j) & 1
                z = float(w[node] @ xi) + (float(b[node, 0]) if b is not None else 0.0)
                z = min(max(z, -40.0), 40.0)
                total += softplus(z) - bit * z
            else:
                total += math.log(2.0)  # Paddle's kernel keeps the padding's softplus(0)
        out.append([total])
    return np.array(out)


def ref_custom(x, table, code, w, b=None):
    out = []
    for xi, nodes, bits in zip(x, table, code):
        total = 0.0
        ended = False
        for node, bit in zip(nodes, bits):
            ended = ended or node < 0
            if ended:
                total += math.log(2.0)
                continue
            z = float(w[node] @ xi) + (float(b[node, 0]) if b is not None else 0.0)
            total += softplus(z) - (1.0 if bit else 0.0) * z
        out.append([total])
    return np.array(out)


@pytest.mark.parametrize("num_classes", [2, 5, 8, 13])
def test_default_tree_values(num_classes):
    x = RNG.standard_normal((6, 4))
    labels = RNG.integers(0, num_classes, 6)
    w = RNG.standard_normal((num_classes - 1, 4))
    b = RNG.standard_normal((num_classes - 1, 1))
    got = F.hsigmoid_loss(t64(x), fg.tensor(labels), num_classes, t64(w), t64(b))
    assert list(got.shape) == [6, 1]
    np.testing.assert_allclose(got.numpy(), ref_default(x, labels, num_classes, w, b), rtol=1e-12)
    got = F.hsigmoid_loss(t64(x), fg.tensor(labels[:, None]), num_classes, t64(w))
    np.testing.assert_allclose(got.numpy(), ref_default(x, labels, num_classes, w), rtol=1e-12)


def test_paddle_documented_value():
    # fluid.layers.hsigmoid's example: x 0.9, label 1, two classes, weight 0.05, bias 0
    x, y = fg.full([4, 3], 0.9), fg.ones([4, 1], dtype=fg.int64)
    out = F.hsigmoid_loss(x, y, 2, fg.full([1, 3], 0.05), fg.zeros([1, 1]))
    np.testing.assert_allclose(out.numpy(), np.full((4, 1), 0.62792355), rtol=1e-6)


def test_clip_at_40():
    x = t64([[100.0]])
    out = F.hsigmoid_loss(x, fg.tensor([1]), 2, t64([[1.0]]))
    np.testing.assert_allclose(out.item(), softplus(40.0) - 40.0, rtol=1e-12)


def test_custom_tree_values():
    x = RNG.standard_normal((3, 2))
    table = np.array([[0, 2, -1], [0, 1, 3], [0, -1, -1]])
    code = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    w, b = RNG.standard_normal((4, 2)), RNG.standard_normal((4, 1))
    got = F.hsigmoid_loss(
        t64(x), fg.tensor([0, 1, 2]), 4, t64(w), t64(b), fg.tensor(table), fg.tensor(code)
    )
    np.testing.assert_allclose(got.numpy(), ref_custom(x, table, code, w, b), rtol=1e-12)


def test_gradients():
    x = RNG.standard_normal((5, 3))
    labels = fg.tensor(RNG.integers(0, 6, 5))
    w, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 1))

    def fn(xx, ww, bb):
        return F.hsigmoid_loss(xx, labels, 6, ww, bb)

    ins = (t64(x, True), t64(w, True), t64(b, True))
    assert gradcheck(fn, ins)
    assert gradgradcheck(fn, ins)


def test_layer():
    fg.manual_seed(1)
    layer = nn.HSigmoidLoss(3, 6)
    assert list(layer.weight.shape) == [5, 3] and list(layer.bias.shape) == [5, 1]
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros((5, 1)))
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    labels = np.array([0, 1, 5, 3])
    got = layer(fg.tensor(x), fg.tensor(labels))
    want = ref_default(x, labels, 6, layer.weight.detach().numpy(), layer.bias.detach().numpy())
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-5)
    got.sum().backward()
    assert layer.weight.grad is not None
    custom = nn.HSigmoidLoss(2, 4, is_custom=True, bias_attr=False)
    assert list(custom.weight.shape) == [4, 2] and custom.bias is None
    table, code = fg.tensor([[0, 2, -1]]), fg.tensor([[1, 0, 0]])
    out = custom(fg.rand([1, 2]), fg.tensor([0]), table, code)
    assert list(out.shape) == [1, 1]


def test_bad_input():
    x, w = t64(np.zeros((2, 3))), t64(np.zeros((4, 3)))
    with pytest.raises(IndexError, match=r"\[0, 5\)"):
        F.hsigmoid_loss(x, fg.tensor([0, 5]), 5, w)
    with pytest.raises(ValueError, match="num_classes - 1"):
        F.hsigmoid_loss(x, fg.tensor([0, 1]), 6, w)
    with pytest.raises(ValueError, match=">= 2"):
        F.hsigmoid_loss(x, fg.tensor([0, 0]), 1, t64(np.zeros((0, 3))))
    with pytest.raises(TypeError, match="integer"):
        F.hsigmoid_loss(x, t64([0.0, 1.0]), 5, w)
    with pytest.raises(ValueError, match=r"\[N\]"):
        F.hsigmoid_loss(x, fg.tensor([0, 1, 2]), 5, w)
    with pytest.raises(ValueError, match="both"):
        F.hsigmoid_loss(x, fg.tensor([0, 1]), 5, w, path_table=fg.tensor([[0], [1]]))
    with pytest.raises(IndexError, match="node 9"):
        F.hsigmoid_loss(
            x, fg.tensor([0, 1]), 4, w, None, fg.tensor([[0], [9]]), fg.tensor([[1], [0]])
        )
    with pytest.raises(ValueError, match="bias"):
        F.hsigmoid_loss(x, fg.tensor([0, 1]), 5, w, t64(np.zeros((3, 1))))
    for n in (2**40, 2**63 - 1):
        with pytest.raises(ValueError):
            nn.HSigmoidLoss(3, n)
        with pytest.raises(ValueError):
            F.hsigmoid_loss(x, fg.tensor([0, 1]), n, w)
    with pytest.raises(ValueError, match="less than 2"):
        nn.HSigmoidLoss(3, 1)
