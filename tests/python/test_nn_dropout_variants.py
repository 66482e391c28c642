"""Issue 17's dropout variants: channel dropout (``dropout1d/2d/3d``, PyTorch's
``Dropout1d/2d/3d``, Paddle's ``Dropout2D/3D`` with ``data_format``) and alpha dropout
(``alpha_dropout`` / ``AlphaDropout``, ``feature_alpha_dropout``): statistics with a
fixed seed, whole channels dropped, scaling, train / eval, reproducibility through
``manual_seed``, gradients, bad input."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

ALPHA_P = -1.7580993408473766


def ones(shape):
    return fg.ones(list(shape), dtype=fg.float64)


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda x, p: F.dropout1d(x, p), (400, 25, 6)),
        (lambda x, p: F.dropout2d(x, p), (400, 25, 2, 3)),
        (lambda x, p: F.dropout3d(x, p), (200, 25, 2, 2, 2)),
        (lambda x, p: nn.Dropout2d(p)(x), (400, 25, 2, 3)),
        (lambda x, p: nn.Dropout3d(p)(x), (200, 25, 1, 2, 3)),
        (lambda x, p: nn.Dropout1d(p)(x), (400, 25, 6)),
        (lambda x, p: nn.Dropout2D(p)(x), (400, 25, 2, 3)),
    ],
)
def test_channel_dropout_zeroes_whole_channels(fn, shape):
    fg.manual_seed(3)
    p = 0.3
    out = fn(ones(shape), p).numpy().reshape(shape[0], shape[1], -1)
    # each channel is all zeros or all 1/(1-p)
    assert np.all(out.min(-1) == out.max(-1))
    vals = out[..., 0]
    assert set(np.unique(vals).round(12)) <= {0.0, round(1 / (1 - p), 12)}
    frac = (vals == 0).mean()
    n = vals.size
    assert abs(frac - p) < 4 * np.sqrt(p * (1 - p) / n)  # within 4 sigma
    # reproducible with the seed
    fg.manual_seed(3)
    again = fn(ones(shape), p).numpy().reshape(shape[0], shape[1], -1)
    np.testing.assert_array_equal(out, again)


def test_channel_dropout_layouts_and_unbatched():
    fg.manual_seed(0)
    # Paddle's NHWC: the mask is shared over H and W, per (sample, channel) on the last dim
    out = F.dropout2d(ones((50, 3, 4, 8)), 0.5, True, "NHWC").numpy()
    assert np.all(out.min((1, 2)) == out.max((1, 2)))
    assert 0 < (out == 0).mean() < 1
    out = nn.Dropout3D(0.5, data_format="NDHWC")(ones((20, 2, 2, 2, 8))).numpy()
    assert np.all(out.min((1, 2, 3)) == out.max((1, 2, 3)))
    # PyTorch's unbatched [C, L] and [C, D, H, W]
    out = F.dropout1d(ones((200, 5)), 0.5).numpy()
    assert np.all(out.min(1) == out.max(1)) and 0 < (out == 0).mean() < 1
    out = F.dropout3d(ones((200, 1, 2, 3)), 0.5).numpy()
    assert np.all(out.reshape(200, -1).min(1) == out.reshape(200, -1).max(1))
    # PyTorch reads a 3-D input of dropout2d as [N, C, L]
    out = F.dropout2d(ones((30, 40, 5)), 0.5).numpy()
    assert np.all(out.min(-1) == out.max(-1)) and len(np.unique(out[:, :, 0])) == 2


def test_train_eval_and_edge_probabilities():
    x = fg.tensor(np.arange(24.0).reshape(2, 3, 4))
    layer = nn.Dropout1d(0.9)
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), x.numpy())
    np.testing.assert_array_equal(F.dropout1d(x, 0.9, training=False).numpy(), x.numpy())
    np.testing.assert_array_equal(F.dropout2d(x, 0.0).numpy(), x.numpy())
    np.testing.assert_array_equal(F.dropout1d(x, np.float32(0.0)).numpy(), x.numpy())  # NumPy p
    np.testing.assert_array_equal(F.dropout1d(x, 1.0).numpy(), np.zeros((2, 3, 4)))
    alpha = nn.AlphaDropout(0.5)
    alpha.eval()
    np.testing.assert_array_equal(alpha(x).numpy(), x.numpy())
    # PyTorch's functional default is training=False
    np.testing.assert_array_equal(F.alpha_dropout(x, 0.5).numpy(), x.numpy())
    np.testing.assert_array_equal(F.alpha_dropout(x, 1.0, True).numpy(), np.zeros((2, 3, 4)))


def test_alpha_dropout_statistics_and_values():
    fg.manual_seed(7)
    rng = np.random.default_rng(0)
    z = rng.standard_normal(200_000)
    p = 0.2
    out = nn.AlphaDropout(p)(fg.tensor(z)).numpy()
    # mean 0 and variance 1 are kept for a standard normal input
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1) < 0.01
    a = ((1 - p) * (1 + p * ALPHA_P**2)) ** -0.5
    b = -a * ALPHA_P * p
    dropped = np.isclose(out, a * ALPHA_P + b)
    assert abs(dropped.mean() - p) < 0.005
    np.testing.assert_allclose(out[~dropped], a * z[~dropped] + b, rtol=1e-12)
    # one mask value per channel
    fg.manual_seed(7)
    out = F.feature_alpha_dropout(ones((300, 4, 5)), 0.5, training=True).numpy()
    assert np.all(out.min(-1) == out.max(-1)) and len(np.unique(out.round(12))) == 2
    out = nn.FeatureAlphaDropout(0.5)(ones((300, 4, 5))).numpy()
    assert np.all(out.min(-1) == out.max(-1))


def test_gradients_flow_through_kept_elements():
    x = fg.tensor(np.random.default_rng(1).standard_normal((3, 4, 2)), requires_grad=True)

    def seeded(fn):
        def run(t):
            fg.manual_seed(11)
            return fn(t)

        return run

    assert gradcheck(seeded(lambda t: F.dropout1d(t, 0.4)), (x,))
    assert gradgradcheck(seeded(lambda t: F.alpha_dropout(t, 0.4, True) ** 2), (x,))
    fg.manual_seed(11)
    out = F.dropout1d(x, 0.4)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (out.numpy() != 0) / 0.6)


def test_bad_input():
    x = ones((2, 3, 4))
    for bad in (-0.1, 1.5, "0.5", True):
        with pytest.raises(ValueError, match="probability"):
            F.dropout1d(x, bad)
    with pytest.raises(ValueError, match="probability"):
        nn.Dropout2D(2.0)
    with pytest.raises(ValueError, match="probability"):
        nn.AlphaDropout(-1)
    with pytest.raises(ValueError, match="3-D .* or 4-D"):
        F.dropout2d(ones((2, 3)), 0.5)
    with pytest.raises(ValueError, match="2-D .* or 3-D"):
        nn.Dropout1d()(ones((2, 3, 4, 5)))
    with pytest.raises(ValueError, match="4-D NCHW"):
        F.dropout2d(x, 0.5, True, "NCHW")
    with pytest.raises(ValueError, match="data_format"):
        nn.Dropout2D(0.5, data_format="NCL")
    with pytest.raises(ValueError, match="data_format"):
        F.dropout3d(ones((1, 1, 1, 1, 1)), 0.5, True, "NHWC")
    t = ones((1, 2, 3, 4))
    assert F.dropout2d(t, 0.5, True, True) is t  # torch's positional inplace=True
    with pytest.raises(TypeError, match="floating"):
        F.alpha_dropout(fg.tensor([1, 2, 3]), 0.5, True)
