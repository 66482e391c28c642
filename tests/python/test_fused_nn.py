"""The fused network ops (layer_norm, cross_entropy / nll_loss, dropout, tanh-GELU, eager
linear): one graph node each, the values of the compositions they replace (kept below as
the reference), NumPy float64 values, and first and second derivatives."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

F = fg.nn.functional
RNG = np.random.default_rng(7)


def _t(a, dtype="float64", grad=False):
    return fg.tensor(np.asarray(a), dtype=dtype, requires_grad=grad)


def _nodes(t):
    """Backward nodes reachable from ``t`` other than the leaves' AccumulateGrad."""
    seen, todo, count = set(), [t.grad_fn], 0
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        count += not n.name().startswith("AccumulateGrad")
        todo.extend(f for f, _ in n.next_functions)
    return count


# ------------------------------------------------------------ the old compositions (reference)


def ref_layer_norm(x, shape, weight=None, bias=None, eps=1e-5):
    axes = list(range(x.ndim - len(shape), x.ndim))
    centred = x - x.mean(axes, keepdim=True)
    var = (centred * centred).mean(axes, keepdim=True)
    out = centred * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def ref_gelu_tanh(x):
    inner = (x + 0.044715 * x * x * x) * math.sqrt(2.0 / math.pi)
    return 0.5 * x * (1.0 + inner.tanh())


def ref_nll(logp, target, weight=None, ignore_index=-100, reduction="mean"):
    class_dim = 0 if logp.ndim == 1 else 1
    valid = target != ignore_index
    safe = fg.where(valid, target, 0)
    picked = logp.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)
    w = valid.astype(logp.dtype)
    if weight is not None:
        w = w * weight.index_select(safe.reshape(-1), axis=0).reshape(list(safe.shape))
    loss = -(picked * w)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return loss.sum() if reduction == "sum" else loss


def ref_cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean", ls=0.0):
    class_dim = 0 if x.ndim == 1 else 1
    logp = x.log_softmax(class_dim)
    nll = ref_nll(logp, target, weight, ignore_index, reduction)
    if ls == 0.0:
        return nll
    c = x.shape[class_dim]
    valid = (target != ignore_index).astype(x.dtype)
    if weight is not None:
        shape = [1] * x.ndim
        shape[class_dim] = c
        smooth = -(logp * weight.reshape(shape)).sum(class_dim) / c
        safe = fg.where(target != ignore_index, target, 0)
        denom = (
            weight.index_select(safe.reshape(-1), axis=0).reshape(list(safe.shape)) * valid
        ).sum()
    else:
        smooth = -logp.sum(class_dim) / c
        denom = valid.sum()
    smooth = smooth * valid
    if reduction == "mean":
        smooth_r = smooth.sum() / denom
    else:
        smooth_r = smooth.sum() if reduction == "sum" else smooth
    return nll * (1.0 - ls) + smooth_r * ls


def _ulps(a, b):
    a, b = np.asarray(a), np.asarray(b)
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(a.dtype))
    return np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)) / spacing, initial=0.0)


# ---------------------------------------------------------------------------------- layer norm

LN_CASES = [((6, 10), [10]), ((2, 3, 5), [3, 5]), ((4, 1), [1]), ((3, 4, 6), [6])]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,norm", LN_CASES)
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_matches_composition_and_numpy(dtype, shape, norm, affine):
    xa = RNG.normal(size=shape) * 3 + 1
    wa, ba = RNG.normal(size=norm), RNG.normal(size=norm)
    x = _t(xa, dtype, True)
    w, b = (_t(wa, dtype, True), _t(ba, dtype, True)) if affine else (None, None)
    out = F.layer_norm(x, norm, w, b)
    assert out.grad_fn.name().startswith("NativeLayerNormBackward")
    assert _nodes(out) == 1
    ref = ref_layer_norm(x, norm, w, b)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    axes = tuple(range(len(shape) - len(norm), len(shape)))
    m = xa.mean(axes, keepdims=True)
    expect = (xa - m) / np.sqrt(((xa - m) ** 2).mean(axes, keepdims=True) + 1e-5)
    if affine:
        expect = expect * wa + ba
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), expect, rtol=tol, atol=tol)
    # gradients against the composition's
    g = _t(RNG.normal(size=shape), dtype)
    params = [x] + ([w, b] if affine else [])
    fused = fg.autograd.grad([out], params, [g])
    composed = fg.autograd.grad([ref], params, [g])
    for a, c in zip(fused, composed):
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_gradcheck_and_gradgradcheck(affine):
    x = _t(RNG.normal(size=(3, 2, 4)), grad=True)
    params = [x]
    if affine:
        params += [_t(RNG.normal(size=(2, 4)), grad=True), _t(RNG.normal(size=(2, 4)), grad=True)]

    def fn(*p):
        return F.layer_norm(p[0], [2, 4], *p[1:])

    assert gradcheck(fn, tuple(params))
    assert gradgradcheck(fn, tuple(params))


def test_layer_norm_falls_back_for_other_dtypes_and_views():
    x = _t(RNG.normal(size=(4, 6)), "float32", True)
    view = x.transpose(0, 1)  # non-contiguous input
    np.testing.assert_array_equal(
        F.layer_norm(view, [4]).detach().numpy(), ref_layer_norm(view, [4]).detach().numpy()
    )
    h = fg.tensor(RNG.normal(size=(2, 3)), dtype="float16")
    assert F.layer_norm(h, [3]).dtype == fg.float16  # composed in half precision
    with pytest.raises(ValueError, match="normalized_shape"):
        F.layer_norm(x, [5])


# ------------------------------------------------------------------------------ cross entropy

CE_CASES = [
    dict(shape=(8, 5)),
    dict(shape=(8, 5), ignore=True),
    dict(shape=(8, 5), weight=True, ignore=True),
    dict(shape=(8, 5), ls=0.1),
    dict(shape=(8, 5), ls=0.2, weight=True, ignore=True),
    dict(shape=(4, 3, 6), weight=True),
    dict(shape=(4, 3, 2, 2), ls=0.3, ignore=True),
    dict(shape=(5,)),
]


def _ce_inputs(case, dtype):
    shape = case["shape"]
    cd = 0 if len(shape) == 1 else 1
    c = shape[cd]
    tshape = shape[:cd] + shape[cd + 1 :]
    ta = RNG.integers(0, c, size=tshape)
    if case.get("ignore") and ta.size > 1:
        ta.reshape(-1)[1] = -100
    x = _t(RNG.normal(size=shape) * 2, dtype, True)
    t = fg.tensor(np.asarray(ta, dtype=np.int64))
    w = _t(RNG.uniform(0.5, 2.0, size=c), dtype) if case.get("weight") else None
    return x, t, w


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", CE_CASES, ids=str)
def test_cross_entropy_matches_composition(dtype, reduction, case):
    x, t, w = _ce_inputs(case, dtype)
    ls = case.get("ls", 0.0)
    out = F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=ls)
    assert out.grad_fn.name().startswith("CrossEntropyLossBackward")
    assert _nodes(out) == 1
    ref = ref_cross_entropy(x, t, w, reduction=reduction, ls=ls)
    a, r = out.detach().numpy(), ref.detach().numpy()
    if len(case["shape"]) <= 2:  # contiguous class rows: the same arithmetic
        np.testing.assert_array_equal(a, r)
    else:
        assert _ulps(a, r) <= 4
    tol = 2e-5 if dtype == "float32" else 1e-12
    g = _t(RNG.normal(size=list(out.shape)), dtype)
    (gf,) = fg.autograd.grad([out], [x], [g])
    (gc,) = fg.autograd.grad([ref], [x], [g])
    np.testing.assert_allclose(gf.numpy(), gc.numpy(), rtol=tol, atol=tol)


def test_cross_entropy_against_numpy():
    xa = RNG.normal(size=(6, 4))
    ta = np.array([0, 3, 1, 1, 2, 0])
    wa = np.array([1.0, 0.5, 2.0, 1.5])
    out = F.cross_entropy(_t(xa), fg.tensor(ta), _t(wa), label_smoothing=0.1)
    logp = xa - np.log(np.exp(xa).sum(1, keepdims=True))
    nll = -(logp[np.arange(6), ta] * wa[ta]).sum() / wa[ta].sum()
    smooth = -(logp * wa).sum(1).sum() / 4 / wa[ta].sum()
    np.testing.assert_allclose(out.item(), 0.9 * nll + 0.1 * smooth, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.25])
def test_cross_entropy_gradcheck_and_gradgradcheck(reduction, ls):
    x = _t(RNG.normal(size=(4, 3, 2)), grad=True)
    t = fg.tensor(np.array([[0, 2], [1, -100], [2, 2], [0, 1]]))
    w = _t([0.5, 1.0, 2.0])

    def fn(x):
        return F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=ls)

    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_cross_entropy_paddle_arguments_keep_working():
    xa = RNG.normal(size=(5, 3))
    x = _t(xa, "float32", True)
    lab = fg.tensor(np.array([[0], [2], [1], [1], [0]]))  # Paddle's [N, 1] labels
    out = F.cross_entropy(x, lab, axis=-1)
    ref = ref_cross_entropy(x, lab.squeeze(-1))
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    # soft labels and use_softmax=False stay composed
    soft = fg.tensor(np.full((5, 3), 1 / 3), dtype="float32")
    assert F.cross_entropy(x, soft, soft_label=True).grad_fn.name() != "CrossEntropyLossBackward"
    probs = x.softmax(-1).detach()
    v = F.cross_entropy(probs, lab, use_softmax=False)
    np.testing.assert_allclose(v.item(), ref.item(), rtol=1e-5)


def test_cross_entropy_bad_targets_raise():
    x = _t(RNG.normal(size=(3, 4)), grad=True)
    with pytest.raises(IndexError, match=r"\[0, 4\)"):
        F.cross_entropy(x, fg.tensor([0, 4, 1]))
    with pytest.raises(ValueError, match="target shape"):
        F.cross_entropy(x, fg.tensor([0, 1]))


def test_cross_entropy_weight_requiring_grad_composes():
    x = _t(RNG.normal(size=(3, 4)), grad=True)
    w = _t([1.0, 2.0, 0.5, 1.0], grad=True)
    out = F.cross_entropy(x, fg.tensor([0, 3, 1]), w)
    (gw,) = fg.autograd.grad([out], [w])
    assert gw.shape == [4]


# ------------------------------------------------------------------------------------ nll_loss


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(7, 4), (3, 4, 5)])
def test_nll_loss_matches_composition(reduction, shape):
    case = dict(shape=shape, weight=True, ignore=True)
    x, t, w = _ce_inputs(case, "float64")
    logp = x.log_softmax(1).detach().requires_grad_()
    out = F.nll_loss(logp, t, w, reduction=reduction)
    assert out.grad_fn.name().startswith("NllLossBackward")
    ref = ref_nll(logp, t, w, reduction=reduction)
    assert _ulps(out.detach().numpy(), ref.detach().numpy()) <= 2
    assert gradcheck(lambda v: F.nll_loss(v, t, w, reduction=reduction), (logp,))
    assert gradgradcheck(lambda v: F.nll_loss(v, t, w, reduction=reduction), (logp,))


# ------------------------------------------------------------------------------------- dropout


def ref_dropout(x, p, upscale=True):
    keep = (fg.rand(list(x.shape), dtype=x.dtype) >= p).astype(x.dtype)
    if upscale:
        keep = keep * (1.0 / (1.0 - p))
    return x * keep


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["upscale_in_train", "downscale_in_infer"])
def test_dropout_draws_the_composed_mask(dtype, mode):
    x = _t(RNG.normal(size=(13, 17)), dtype, True)
    fg.seed(11)
    out = F.dropout(x, 0.3, mode=mode)
    assert out.grad_fn.name().startswith("DropoutBackward") and _nodes(out) == 1
    fg.seed(11)
    ref = ref_dropout(x, 0.3, mode == "upscale_in_train")
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    # a view draws per element in row-major order too
    fg.seed(3)
    v = F.dropout(x.transpose(0, 1), 0.5)
    fg.seed(3)
    np.testing.assert_array_equal(
        v.detach().numpy(), ref_dropout(x.transpose(0, 1), 0.5).detach().numpy()
    )


def test_dropout_gradcheck_and_gradgradcheck():
    x = _t(RNG.normal(size=(4, 5)), grad=True)

    def fn(x):
        fg.seed(2)  # the same mask at every evaluation
        return F.dropout(x, 0.4)

    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# -------------------------------------------------------------------------------- tanh-GELU


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_tanh_is_one_op_with_the_composed_values(dtype):
    xa = np.concatenate([np.linspace(-9, 9, 301), [0.0, -0.0, 1e-30, 50.0, -50.0]])
    x = _t(xa, dtype, True)
    out = F.gelu(x, approximate="tanh")
    assert _nodes(out) == 1
    np.testing.assert_array_equal(out.detach().numpy(), ref_gelu_tanh(x).detach().numpy())
    expect = 0.5 * xa * (1 + np.tanh(np.sqrt(2 / np.pi) * (xa + 0.044715 * xa**3)))
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(out.detach().numpy(), expect, rtol=tol, atol=tol)
    assert F.gelu(x, approximate=True).detach().numpy().tobytes() == out.detach().numpy().tobytes()
    # a strided view goes through the scalar kernel: the same values
    np.testing.assert_array_equal(
        F.gelu(x[::2], approximate="tanh").detach().numpy(), out.detach().numpy()[::2]
    )


def test_gelu_tanh_gradcheck_and_gradgradcheck():
    x = _t(np.linspace(-3, 3, 13), grad=True)
    assert gradcheck(lambda v: F.gelu(v, approximate="tanh"), (x,))
    assert gradgradcheck(lambda v: F.gelu(v, approximate="tanh"), (x,))


# -------------------------------------------------------------------------------------- linear


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xshape", [(5, 4), (2, 3, 4)])
@pytest.mark.parametrize("bias", [False, True])
def test_linear_is_one_node_with_the_composed_values(dtype, xshape, bias):
    x = _t(RNG.normal(size=xshape), dtype, True)
    w = _t(RNG.normal(size=(6, 4)), dtype, True)
    b = _t(RNG.normal(size=6), dtype, True) if bias else None
    out = F.linear(x, w, b)
    assert out.grad_fn.name().startswith("AddmmBackward") and _nodes(out) == 1
    ref = x.matmul(w, False, True)
    if bias:
        ref = ref + b
    tol = 1e-6 if dtype == "float32" else 1e-14
    if len(xshape) == 2:
        np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    else:
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    params = [x, w] + ([b] if bias else [])
    g = _t(RNG.normal(size=list(out.shape)), dtype)
    for a, c in zip(fg.autograd.grad([out], params, [g]), fg.autograd.grad([ref], params, [g])):
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=tol * 10, atol=tol * 10)


def test_linear_gradcheck_gradgradcheck_and_fallbacks():
    x = _t(RNG.normal(size=(2, 3, 4)), grad=True)
    w = _t(RNG.normal(size=(5, 4)), grad=True)
    b = _t(RNG.normal(size=5), grad=True)
    assert gradcheck(F.linear, (x, w, b))
    assert gradgradcheck(F.linear, (x, w, b))
    v = _t(RNG.normal(size=4), grad=True)  # 1-D input: the separate ops
    np.testing.assert_allclose(
        F.linear(v, w, b).detach().numpy(),
        (w.detach().numpy() @ v.detach().numpy()) + b.detach().numpy(),
    )
    with pytest.raises(ValueError, match="expects 4"):
        F.linear(_t(RNG.normal(size=(2, 3))), w)
