"""The fused batch-norm op (``_core._batch_norm``): bit-identical to the composition it
replaced (kept below as the reference) on channel-first float64 data, close elsewhere;
one graph node; closed-form gradients vs the composition's; gradcheck/gradgradcheck in
training and evaluation; running statistics in both peers' conventions; the layers."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(17)


def t(a, grad=False, dtype="float64"):
    return fg.tensor(np.asarray(a).astype(dtype), requires_grad=grad)


def ref_train(x, w, b, eps, cdim=1):
    """The composition ``normalize_batch`` ran before the fused op (training)."""
    axes = [d for d in range(x.ndim) if d != cdim]
    shape = [1] * x.ndim
    shape[cdim] = -1
    mean = x.mean(axes, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(axes, keepdim=True)
    factor = (var + eps).rsqrt()
    out = centred * (factor if w is None else factor * w.reshape(shape))
    return out if b is None else out + b.reshape(shape)


def ref_eval(x, rm, rv, w, b, eps, cdim=1):
    """The composition's evaluation form (a per-channel affine map)."""
    shape = [1] * x.ndim
    shape[cdim] = -1
    scale = (rv.reshape(shape) + eps).rsqrt()
    if w is not None:
        scale = scale * w.reshape(shape)
    shift = rm.reshape(shape) * scale
    return x * scale - shift if b is None else x * scale + (b.reshape(shape) - shift)


def _nodes(out):
    seen, todo, names, alive = set(), [out.grad_fn], [], []
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        alive.append(n)  # keeps ids unique while walking
        seen.add(id(n))
        if not n.name().startswith("AccumulateGrad"):
            names.append(n.name().rstrip("0123456789"))
        todo.extend(f for f, _ in n.next_functions)
    return names


SHAPES = [(6, 3), (4, 3, 5), (4, 3, 8, 8), (2, 3, 4, 6, 5), (5, 1, 7, 7), (3, 2, 40)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_train_forward_bit_identical_and_gradients_match(shape, affine):
    c = shape[1]
    x = t(RNG.standard_normal(shape) * 3 + 1, True)
    w = t(RNG.standard_normal(c), True) if affine else None
    b = t(RNG.standard_normal(c), True) if affine else None
    got = F.batch_norm(x, None, None, w, b, training=True)
    want = ref_train(x, w, b, 1e-5)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert _nodes(got) == ["NativeBatchNormBackward"]
    g = t(RNG.standard_normal(shape))
    xs = [x] + ([w, b] if affine else [])
    for a, r in zip(fg.autograd.grad([got], xs, [g]), fg.autograd.grad([want], xs, [g])):
        np.testing.assert_allclose(a.numpy(), r.numpy(), rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("shape", SHAPES)
def test_eval_forward_bit_identical_and_gradients_match(shape):
    c = shape[1]
    x = t(RNG.standard_normal(shape), True)
    w, b = t(RNG.standard_normal(c), True), t(RNG.standard_normal(c), True)
    rm, rv = t(RNG.standard_normal(c)), t(RNG.random(c) + 0.5)
    got = F.batch_norm(x, rm, rv, w, b, training=False)
    want = ref_eval(x, rm, rv, w, b, 1e-5)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert _nodes(got) == ["NativeBatchNormBackward"]
    nob = F.batch_norm(x, rm, rv, w, None, training=False)
    np.testing.assert_array_equal(nob.numpy(), ref_eval(x, rm, rv, w, None, 1e-5).numpy())
    g = t(RNG.standard_normal(shape))
    for a, r in zip(
        fg.autograd.grad([got], [x, w, b], [g]), fg.autograd.grad([want], [x, w, b], [g])
    ):
        np.testing.assert_allclose(a.numpy(), r.numpy(), rtol=1e-12, atol=1e-12)


def test_float32_and_channel_last_are_close():
    a = RNG.standard_normal((4, 5, 6, 3))
    x32 = t(a, dtype="float32")
    got = F.batch_norm(x32, None, None, training=True, data_format="NHWC")
    want = ref_train(t(a), None, None, 1e-5, cdim=3)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=2e-5)
    x = t(a)
    got = F.batch_norm(x, None, None, training=True, data_format="NHWC")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13, atol=1e-13)
    for shape in SHAPES:
        a = RNG.standard_normal(shape)
        got = F.batch_norm(t(a, dtype="float32"), None, None, training=True)
        want = ref_train(t(a), None, None, 1e-5)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=3e-5, atol=3e-5)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_gradcheck_and_gradgradcheck(training, affine):
    x = t(RNG.standard_normal((3, 2, 4)), True)
    rm, rv = t(RNG.standard_normal(2)), t(RNG.random(2) + 0.5)
    args = (x, t(RNG.standard_normal(2), True), t(RNG.standard_normal(2), True))

    def f(x, w, b):
        if not affine:
            w = b = None
        return F.batch_norm(x, rm.detach(), rv.detach(), w, b, training=training, momentum=0.0)

    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


def test_running_stats_in_both_conventions():
    a = RNG.standard_normal((5, 3, 4))
    n = 5 * 4
    mean, var = a.mean((0, 2)), a.var((0, 2))
    # PyTorch: new fraction 0.1, unbiased running variance
    rm, rv = fg.zeros(3, dtype=fg.float64), fg.ones(3, dtype=fg.float64)
    F.batch_norm(t(a), rm, rv, training=True)
    np.testing.assert_allclose(rm.numpy(), 0.1 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * var * n / (n - 1), rtol=1e-12)
    # Paddle: momentum is the kept fraction, biased running variance
    rm, rv = fg.zeros(3, dtype=fg.float64), fg.ones(3, dtype=fg.float64)
    F.batch_norm(t(a), rm, rv, training=True, momentum=0.8, epsilon=1e-5)
    np.testing.assert_allclose(rm.numpy(), 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.8 + 0.2 * var, rtol=1e-12)


def test_layers_use_the_fused_op():
    for layer, shape in ((nn.BatchNorm1d(3), (4, 3)), (nn.BatchNorm2d(3), (2, 3, 4, 4)),
                         (nn.BatchNorm3d(3), (2, 3, 2, 2, 2)), (nn.BatchNorm2D(3), (2, 3, 4, 4))):  # fmt: skip
        x = fg.randn(*shape, requires_grad=True)
        out = layer(x)
        assert _nodes(out) == ["NativeBatchNormBackward"], type(layer).__name__
        layer.eval()
        assert _nodes(layer(x)) == ["NativeBatchNormBackward"]


def test_kernel_errors():
    x = fg.randn(2, 3)
    with pytest.raises(ValueError, match="weight"):
        fg._core._batch_norm(x, fg.ones(4), None, None, None, True, 1e-5, 1)
    with pytest.raises(ValueError, match="running_mean"):
        fg._core._batch_norm(x, None, None, None, None, False, 1e-5, 1)
    with pytest.raises(ValueError, match="non-empty"):
        fg._core._batch_norm(fg.randn(0, 3), None, None, None, None, True, 1e-5, 1)
    with pytest.raises(TypeError, match="float"):
        fg._core._batch_norm(fg.ones(2, 3).astype("int64"), None, None, None, None, True, 1e-5, 1)


@pytest.mark.parametrize("shape", [(2, 3, 70, 70), (3, 1, 50, 97), (2, 4, 33), (64, 2, 1)])
def test_float32_forward_bit_identical_to_the_float32_composition(shape):
    # the per-channel sums read float32 runs in place (no float64 copy): the fold must
    # still be the composed `mean`'s tree, incl. runs longer than its 4096-element leaf
    a = RNG.standard_normal(shape) * 2 + 0.5
    w32 = t(RNG.standard_normal(shape[1]), True, "float32")
    b32 = t(RNG.standard_normal(shape[1]), True, "float32")
    x32 = t(a, True, "float32")
    got = F.batch_norm(x32, None, None, w32, b32, training=True)
    want = ref_train(x32, w32, b32, 1e-5)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    g = RNG.standard_normal(shape)
    got.backward(t(g, dtype="float32"))
    # gradients against the float64 composition (the fused backward sums in float64)
    x64, w64, b64 = (t(v.numpy(), True) for v in (x32, w32, b32))
    ref_train(x64, w64, b64, 1e-5).backward(t(g))
    for mine, ref in ((x32, x64), (w32, w64), (b32, b64)):
        np.testing.assert_allclose(mine.grad.numpy(), ref.grad.numpy(), rtol=2e-4, atol=2e-4)
