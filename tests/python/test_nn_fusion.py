"""``nn.utils.fuse_conv_bn_eval`` / ``fuse_linear_bn_eval`` and their weight functions: the
fused layer gives the outputs of the layer followed by its eval-mode batch norm."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.nn.utils import fusion


def _trained_bn(bn, shape):
    bn.train()
    rng = np.random.default_rng(3)
    for _ in range(3):
        bn(torch.tensor(rng.standard_normal(shape) * 2 + 1, dtype=torch.float64))
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(rng.uniform(0.5, 2, bn.num_features)))
        bn.bias.copy_(torch.tensor(rng.standard_normal(bn.num_features)))
    return bn.eval()


@pytest.mark.parametrize("bias", [True, False])
def test_conv_bn(bias):
    conv = nn.Conv2d(3, 4, 3, padding=1, bias=bias).double().eval()
    bn = _trained_bn(nn.BatchNorm2d(4).double(), (2, 4, 5, 5))
    x = torch.tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6)))
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    np.testing.assert_allclose(
        fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), rtol=1e-12, atol=1e-12
    )
    assert fused is not conv and fused.bias is not None and fused.weight.requires_grad
    assert (conv.bias is None) == (not bias)  # the originals are left as they were


def test_conv_transpose_bn():
    conv = nn.ConvTranspose2d(3, 4, 3, stride=2).double().eval()
    bn = _trained_bn(nn.BatchNorm2d(4).double(), (2, 4, 5, 5))
    x = torch.tensor(np.random.default_rng(1).standard_normal((1, 3, 4, 4)))
    fused = fusion.fuse_conv_bn_eval(conv, bn, transpose=True)
    np.testing.assert_allclose(
        fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), rtol=1e-12, atol=1e-12
    )


def test_linear_bn_and_paddle_layout():
    lin = nn.Linear(5, 3).double().eval()
    bn = _trained_bn(nn.BatchNorm1d(3).double(), (8, 3))
    x = torch.tensor(np.random.default_rng(2).standard_normal((4, 5)))
    fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    np.testing.assert_allclose(
        fused(x).detach().numpy(), bn(lin(x)).detach().numpy(), rtol=1e-12, atol=1e-12
    )
    scope = {"paddle": torch}
    exec("layer = paddle.nn.Linear(5, 3)", scope)  # Paddle's [in, out] weight
    pl = scope["layer"].double().eval()
    fused = fusion.fuse_linear_bn_eval(pl, bn)
    assert list(fused.weight.shape) == [5, 3]
    np.testing.assert_allclose(
        fused(x).detach().numpy(), bn(pl(x)).detach().numpy(), rtol=1e-12, atol=1e-12
    )


def test_weight_functions_without_affine_and_bias():
    w = torch.tensor(np.ones((2, 1, 1, 1)))
    rm, rv = torch.tensor([1.0, -1.0]), torch.tensor([3.0, 0.0])
    fw, fb = fusion.fuse_conv_bn_weights(w, None, rm, rv, 1.0, None, None)
    np.testing.assert_allclose(fw.detach().numpy().ravel(), [0.5, 1.0])
    np.testing.assert_allclose(fb.detach().numpy(), [-0.5, 1.0])
    lw, lb = fusion.fuse_linear_bn_weights(
        torch.tensor(np.ones((2, 3))), None, rm, rv, 1.0, None, None
    )
    np.testing.assert_allclose(lw.detach().numpy(), [[0.5] * 3, [1.0] * 3])
    np.testing.assert_allclose(lb.detach().numpy(), [-0.5, 1.0])


def test_training_mode_and_mismatch_refused():
    lin, bn = nn.Linear(4, 3), nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match="eval"):
        nn.utils.fuse_linear_bn_eval(lin, bn)
    with pytest.raises(ValueError, match="num_features"):
        nn.utils.fuse_linear_bn_eval(lin.eval(), nn.BatchNorm1d(2).eval())
