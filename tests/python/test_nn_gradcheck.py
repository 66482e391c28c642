"""Every layer and loss of ``ferrograd.nn`` through ``ferrograd.autograd.gradcheck`` and
``gradgradcheck`` (float64), parameters included as inputs."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd import nn
from ferrograd._demo_train import Swish

RNG = np.random.default_rng(11)


def leaf(*shape):
    return fg.tensor(RNG.standard_normal(shape), requires_grad=True)


LABELS = fg.tensor([0, 2, 1, 2])
PROBS = fg.tensor(np.full((4, 3), 1 / 3))
CLASS_W = fg.tensor([0.5, 1.0, 2.0])

CASES = {
    "linear": (F.linear, (leaf(4, 5), leaf(3, 5), leaf(3))),
    "relu": (F.relu, (fg.tensor(RNG.standard_normal((3, 4)) + 0.05, requires_grad=True),)),
    "tanh": (F.tanh, (leaf(3, 4),)),
    "sigmoid": (F.sigmoid, (leaf(3, 4),)),
    "gelu": (F.gelu, (leaf(3, 4),)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), (leaf(3, 4),)),
    "softmax": (lambda x: F.softmax(x, -1), (leaf(3, 4),)),
    "log_softmax": (lambda x: F.log_softmax(x, 0), (leaf(3, 4),)),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, [4], w, b), (leaf(3, 4), leaf(4), leaf(4))),
    # (padding_idx cuts a gradient on purpose, so it is tested on its own elsewhere)
    "embedding": (lambda w: F.embedding(fg.tensor([[0, 2], [2, 1]]), w), (leaf(3, 2),)),
    "cross_entropy": (lambda x: F.cross_entropy(x, LABELS), (leaf(4, 3),)),
    "cross_entropy_weighted_smoothed": (
        lambda x: F.cross_entropy(x, LABELS, weight=CLASS_W, label_smoothing=0.1),
        (leaf(4, 3),),
    ),
    "cross_entropy_soft": (
        lambda x, p: F.cross_entropy(x, p),
        (leaf(4, 3), PROBS.requires_grad_()),
    ),
    "nll_loss": (lambda x: F.nll_loss(x, LABELS, CLASS_W, reduction="sum"), (leaf(4, 3),)),
    "mse_loss": (F.mse_loss, (leaf(3, 4), leaf(3, 4))),
    "swish_pylayer": (Swish.apply, (leaf(3, 4),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    f, inputs = CASES[name]
    assert fg.autograd.gradcheck(f, inputs)


@pytest.mark.parametrize("name", sorted(set(CASES) - {"relu"}))
def test_gradgradcheck(name):
    f, inputs = CASES[name]
    assert fg.autograd.gradgradcheck(f, inputs)


def test_a_model_through_gradcheck():
    fg.seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.LayerNorm(4), nn.Linear(4, 2)).double()
    model.eval()
    x = leaf(5, 3)
    assert fg.autograd.gradcheck(model, (x,))
    assert fg.autograd.gradgradcheck(model, (x,))
