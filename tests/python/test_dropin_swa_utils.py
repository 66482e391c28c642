"""``optim.swa_utils`` (session 17): weight averaging, EMA, update_bn and SWALR against
their formulas, with weights set by hand."""

import math

import ferrograd as torch
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.optim.swa_utils import (
    SWALR,
    AveragedModel,
    get_ema_multi_avg_fn,
    update_bn,
)


def _set(model, value):
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(value)


def test_swa_is_the_mean_of_the_models_seen():
    model = nn.Linear(2, 1)
    swa = AveragedModel(model)
    for v in (1.0, 2.0, 6.0):
        _set(model, v)
        swa.update_parameters(model)
    assert int(swa.n_averaged) == 3
    np.testing.assert_allclose(swa.module.weight.detach().numpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(swa(torch.ones(1, 2)).detach().numpy(), [[9.0]])  # 3 + 3 + bias 3
    assert model.weight.detach().numpy()[0, 0] == 6.0  # the model itself is untouched


def test_ema_with_multi_avg_fn():
    model = nn.Linear(1, 1, bias=False)
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.5))
    want = None
    for v in (4.0, 0.0, 2.0):
        _set(model, v)
        ema.update_parameters(model)
        want = v if want is None else 0.5 * want + 0.5 * v
    np.testing.assert_allclose(ema.module.weight.detach().numpy(), [[want]])


def test_update_bn_averages_the_batches_and_keeps_the_mode():
    model = nn.Sequential(nn.Linear(2, 2, bias=False), nn.BatchNorm1d(2))
    with torch.no_grad():
        model[0].weight.copy_(torch.eye(2))
    batches = [torch.tensor([[1.0, 2.0], [3.0, 6.0]]), torch.tensor([[5.0, 0.0], [7.0, 0.0]])]
    model.eval()
    update_bn([(b, 0) for b in batches], model)
    bn = model[1]
    np.testing.assert_allclose(bn.running_mean.detach().numpy(), [(2.0 + 6.0) / 2, (4.0 + 0.0) / 2])
    # unbiased batch variances, averaged: col 0: 2, 2; col 1: 8, 0
    np.testing.assert_allclose(bn.running_var.detach().numpy(), [2.0, 4.0], rtol=1e-6)
    assert not model.training and bn.momentum == 0.1


def test_swalr_anneals_from_the_current_rate():
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = SWALR(opt, swa_lr=0.1, anneal_epochs=3)
    rates = []
    for _ in range(5):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()

    def cos(t):
        return (1 - math.cos(math.pi * min(t, 1.0))) / 2

    assert rates == pytest.approx([0.1 * cos(k / 3) + 1.0 * (1 - cos(k / 3)) for k in range(5)])
    opt.param_groups[0]["lr"] = 0.5  # another schedule moved it before SWA starts
    lin = SWALR(opt, swa_lr=0.2, anneal_epochs=2, anneal_strategy="linear")
    lin.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.35)
