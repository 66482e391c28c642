"""PyTorch's deprecated ``size_average`` / ``reduce`` loss arguments.

PyTorch 2.x maps them to a ``reduction`` with ``torch.nn._reduction.legacy_get_string``
(torch/nn/_reduction.py: ``None`` counts as ``True``; both true -> ``'mean'``, ``reduce``
alone -> ``'sum'``, ``reduce=False`` -> ``'none'``) and a ``UserWarning`` "size_average and
reduce args will be deprecated, please use reduction='{}' instead."; when either is given
the ``reduction`` argument is ignored (each loss in torch/nn/functional.py: ``if
size_average is not None or reduce is not None: reduction_enum =
_Reduction.legacy_get_enum(size_average, reduce)``; the modules convert once in
``_Loss.__init__``, torch/nn/modules/loss.py). Every function and module PyTorch gives
the pair is checked here against the equivalent ``reduction=`` call, value and gradient.
"""

from __future__ import annotations

import warnings

import ferrograd as torch
import ferrograd.nn as nn
import ferrograd.nn._reduction as _Reduction
import ferrograd.nn.functional as F
import numpy as np
import pytest

RNG = np.random.default_rng(40)
MSG = "size_average and reduce args will be deprecated"

# (size_average, reduce) -> PyTorch's reduction
COMBOS = [
    (True, True, "mean"),
    (False, True, "sum"),
    (True, False, "none"),
    (False, False, "none"),
    (None, False, "none"),
    (False, None, "sum"),
    (True, None, "mean"),
    (None, True, "mean"),
]
# a reduction= that differs from the legacy one: PyTorch ignores it
OTHER = {"mean": "none", "sum": "mean", "none": "sum"}


def _f(*shape):
    return torch.tensor(RNG.standard_normal(shape), dtype=torch.float64, requires_grad=True)


def _signs(*shape):
    return torch.tensor(RNG.choice([-1.0, 1.0], size=shape), dtype=torch.float64)


def _bits(*shape):
    return torch.tensor(RNG.integers(0, 2, size=shape).astype(np.float64))


def _ids(n, c):
    return torch.tensor(RNG.integers(0, c, size=n), dtype=torch.int64)


def _multilabel_ids():
    return torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2]], dtype=torch.int64)


def _cases():
    """name -> (function, the tensor that requires grad, the other arguments)."""
    x = _f(3, 4)
    logp = F.log_softmax(torch.tensor(RNG.standard_normal((3, 4))), dim=1).requires_grad_()
    return {
        "l1_loss": (F.l1_loss, x, (_f(3, 4).detach(),)),
        "mse_loss": (F.mse_loss, x, (_f(3, 4).detach(),)),
        "smooth_l1_loss": (F.smooth_l1_loss, x, (_f(3, 4).detach(),)),
        "nll_loss": (F.nll_loss, logp, (_ids(3, 4),)),
        "cross_entropy": (F.cross_entropy, x, (_ids(3, 4),)),
        "kl_div": (F.kl_div, logp, (F.softmax(_f(3, 4).detach(), dim=1),)),
        "binary_cross_entropy": (
            F.binary_cross_entropy,
            torch.tensor(RNG.uniform(0.05, 0.95, (3, 4)), requires_grad=True),
            (_bits(3, 4),),
        ),
        "binary_cross_entropy_with_logits": (
            F.binary_cross_entropy_with_logits,
            x,
            (_bits(3, 4),),
        ),
        "poisson_nll_loss": (F.poisson_nll_loss, x, (_bits(3, 4) * 3.0,)),
        "hinge_embedding_loss": (F.hinge_embedding_loss, x, (_signs(3, 4),)),
        "multilabel_margin_loss": (F.multilabel_margin_loss, x, (_multilabel_ids(),)),
        "soft_margin_loss": (F.soft_margin_loss, x, (_signs(3, 4),)),
        "multilabel_soft_margin_loss": (F.multilabel_soft_margin_loss, x, (_bits(3, 4),)),
        "cosine_embedding_loss": (
            F.cosine_embedding_loss,
            x,
            (_f(3, 4).detach(), _signs(3)),
        ),
        "margin_ranking_loss": (F.margin_ranking_loss, _f(5), (_f(5).detach(), _signs(5))),
        "multi_margin_loss": (F.multi_margin_loss, x, (_ids(3, 4),)),
        "triplet_margin_loss": (
            F.triplet_margin_loss,
            x,
            (_f(3, 4).detach(), _f(3, 4).detach()),
        ),
    }


CASES = _cases()


def _value_and_grad(out, x):
    (g,) = torch.autograd.grad(out.sum(), [x])
    return out.detach().numpy(), g.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("size_average,reduce,reduction", COMBOS)
def test_functional_legacy_maps_like_pytorch(name, size_average, reduce, reduction):
    fn, x, rest = CASES[name]
    want = _value_and_grad(fn(x, *rest, reduction=reduction), x)
    with pytest.warns(UserWarning, match=MSG + f", please use reduction='{reduction}'"):
        got = fn(x, *rest, size_average=size_average, reduce=reduce, reduction=OTHER[reduction])
    got = _value_and_grad(got, x)
    assert got[0].shape == want[0].shape
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_without_legacy_does_not_warn(name):
    fn, x, rest = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(x, *rest, reduction="sum")


def test_kl_div_legacy_with_batchmean_still_divides_by_batch():
    # torch/nn/functional.py, kl_div: the legacy enum reduces, then `if reduction ==
    # "batchmean" and input.dim() != 0: reduced = reduced / input.size()[0]`
    _, logp, (p,) = CASES["kl_div"]
    with pytest.warns(UserWarning, match=MSG):
        got = F.kl_div(logp, p, size_average=False, reduction="batchmean")
    want = F.kl_div(logp, p, reduction="sum") / 3
    assert got.item() == pytest.approx(want.item(), rel=1e-12)


def test_legacy_overrides_an_invalid_reduction():
    # PyTorch never reads reduction once the legacy pair is given
    fn, x, rest = CASES["l1_loss"]
    with pytest.warns(UserWarning, match=MSG):
        got = fn(x, *rest, size_average=False, reduction="bogus")
    assert got.item() == pytest.approx(fn(x, *rest, reduction="sum").item(), rel=1e-12)


def test_positional_reduction_unchanged():
    # the pair is keyword-only here: the third positional argument stays `reduction`
    # (Paddle's order, shared by these functions)
    fn, x, rest = CASES["l1_loss"]
    assert fn(x, *rest, "sum").item() == pytest.approx(fn(x, *rest, reduction="sum").item())
    with pytest.raises(ValueError, match="reduction must be one of"):
        fn(x, *rest, False)


# module class -> (extra constructor kwargs, the functional case it wraps)
MODULES = {
    "L1Loss": ({}, "l1_loss"),
    "MSELoss": ({}, "mse_loss"),
    "SmoothL1Loss": ({}, "smooth_l1_loss"),
    "NLLLoss": ({}, "nll_loss"),
    "CrossEntropyLoss": ({}, "cross_entropy"),
    "KLDivLoss": ({}, "kl_div"),
    "BCELoss": ({}, "binary_cross_entropy"),
    "BCEWithLogitsLoss": ({}, "binary_cross_entropy_with_logits"),
    "PoissonNLLLoss": ({}, "poisson_nll_loss"),
    "HingeEmbeddingLoss": ({}, "hinge_embedding_loss"),
    "MultiLabelMarginLoss": ({}, "multilabel_margin_loss"),
    "SoftMarginLoss": ({}, "soft_margin_loss"),
    "MultiLabelSoftMarginLoss": ({}, "multilabel_soft_margin_loss"),
    "CosineEmbeddingLoss": ({}, "cosine_embedding_loss"),
    "MarginRankingLoss": ({}, "margin_ranking_loss"),
    "MultiMarginLoss": ({}, "multi_margin_loss"),
    "TripletMarginLoss": ({}, "triplet_margin_loss"),
}


@pytest.mark.parametrize("cls", sorted(MODULES))
@pytest.mark.parametrize("size_average,reduce,reduction", COMBOS)
def test_module_legacy_maps_like_pytorch(cls, size_average, reduce, reduction):
    kwargs, case = MODULES[cls]
    _, x, rest = CASES[case]
    C = getattr(nn, cls)
    with pytest.warns(UserWarning, match=MSG + f", please use reduction='{reduction}'"):
        legacy = C(size_average=size_average, reduce=reduce, reduction=OTHER[reduction], **kwargs)
    assert legacy.reduction == reduction  # converted once, at construction
    plain = C(reduction=reduction, **kwargs)
    got, want = _value_and_grad(legacy(x, *rest), x), _value_and_grad(plain(x, *rest), x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=0)


def test_module_without_legacy_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cls in MODULES:
            getattr(nn, cls)(reduction="sum")


def test_multilabel_margin_loss_keeps_pytorch_positional_order():
    # torch: MultiLabelMarginLoss(size_average=None, reduce=None, reduction='mean') and
    # F.multilabel_margin_loss(input, target, size_average, reduce, reduction): torch-only
    # names, so the pair stays positional there as in PyTorch
    _, x, (t,) = CASES["multilabel_margin_loss"]
    with pytest.warns(UserWarning, match=MSG):
        assert nn.MultiLabelMarginLoss(False).reduction == "sum"
    with pytest.warns(UserWarning, match=MSG):
        got = F.multilabel_margin_loss(x, t, None, False)
    assert got.shape == [3]
    with pytest.warns(UserWarning, match=MSG + ", please use reduction='mean'"):
        got = F.multilabel_margin_loss(x, t, True)  # was refused (test_fn_paddle_losses.py)
    assert got.item() == pytest.approx(F.multilabel_margin_loss(x, t).item(), rel=1e-12)


def test_reduction_module_functions():
    # torch/nn/_reduction.py: get_enum and legacy_get_string(emit_warning=False)
    assert [_Reduction.get_enum(r) for r in ("none", "mean", "sum")] == [0, 1, 2]
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        _Reduction.get_enum("batchmean")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _Reduction.legacy_get_string(None, None, emit_warning=False) == "mean"
        assert _Reduction.legacy_get_string(False, None, False) == "sum"
        assert _Reduction.legacy_get_enum(True, False, emit_warning=False) == 0
    with pytest.warns(UserWarning, match=MSG + ", please use reduction='sum' instead."):
        assert _Reduction.legacy_get_string(False, True) == "sum"
    assert torch.nn._reduction is _Reduction


def test_losses_peers_do_not_give_the_pair_refuse_it():
    # PyTorch's HuberLoss / GaussianNLLLoss / TripletMarginWithDistanceLoss have no pair
    with pytest.raises(TypeError):
        nn.HuberLoss(size_average=False)
    with pytest.raises(TypeError):
        F.huber_loss(_f(2), _f(2).detach(), size_average=False)
