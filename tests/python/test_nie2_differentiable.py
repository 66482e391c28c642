"""PyTorch optimizers' ``differentiable=True`` (SGD, Adam, AdamW), which ferrograd
refused with NotImplementedError until session 24 (issue #17): the step is recorded on
the autograd graph, so gradients flow through it into the previous parameters, the
gradients, the state and a tensor learning rate. Expected values are PyTorch 2.15's
(float64)."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


def _run(name, kw, steps=3):
    """A few differentiable steps of ``p = w.clone()`` with gradients ``q*q*c + c`` (``q``
    a copy of ``p``), then the gradients of a loss of ``p`` and the state tensors with
    respect to ``w``, ``c`` and the learning rate (a tensor unless ``tensor_lr`` is
    False: PyTorch's in-place momentum / amsgrad buffers cannot be differentiated
    through a tensor rate over several steps)."""
    kw = dict(kw)
    w = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
    c = torch.tensor([0.3, 1.0, -0.7], requires_grad=True)
    lr = torch.tensor(0.1, requires_grad=True)
    tensor_lr = kw.pop("tensor_lr", True)
    steps = kw.pop("steps", steps)
    p = w.clone()
    opt = getattr(torch.optim, name)([p], lr=lr if tensor_lr else 0.1, differentiable=True, **kw)
    for _ in range(steps):
        q = p.clone()
        p.grad = q * q * c + c
        opt.step()
    loss = (p * torch.tensor([1.0, -2.0, 0.5])).sum()
    state = [v for v in opt.state[p].values() if isinstance(v, torch.Tensor) and v.requires_grad]
    loss = loss + sum((s * s).sum() for s in state) * 0.1
    if tensor_lr:
        gw, gc, glr = torch.autograd.grad(loss, [w, c, lr])
    else:
        (gw, gc), glr = torch.autograd.grad(loss, [w, c]), 0.0
    return p.detach().tolist(), gw.tolist(), gc.tolist(), float(glr), float(loss.detach())


# (optimizer, options, PyTorch's (p, dloss/dw, dloss/dc, dloss/dlr, loss))
CASES = [
    (
        "SGD",
        {},
        (
            [0.3906364156067627, -2.867947125390625, 3.42795542614375],
            [0.9189726253588282, -5.1517727625, 1.18476246048],
            [-0.35486624116772464, 3.76499031796875, -1.3609071957187502],
            46.11165482621557,
            7.840508379459888,
        ),
    ),
    (
        "SGD",
        {"weight_decay": 0.05, "maximize": True},
        (
            [0.607835398038642, -0.7351015560140234, 1.16459981832512],
            [1.0835761951931375, -0.8572973006331249, 0.21964486602343997],
            [0.39712277436085625, -1.1549328702533592, 0.4460099843856],
            -13.940114771317585,
            2.660338419229249,
        ),
    ),
    (
        "SGD",
        {"momentum": 0.9, "tensor_lr": False},
        (
            [0.2945645926770752, -3.9541056566406247, 4.56808863364375],
            [1.0179753972060062, -33.546727665956155, 26.471913302545758],
            [0.09049633373002612, 41.79869669736041, -57.61199387048575],
            0.0,
            51.205757319553385,
        ),
    ),
    (
        "SGD",
        {"momentum": 0.9, "nesterov": True, "weight_decay": 0.05, "tensor_lr": False},
        (
            [0.19488727235532752, -6.350186008766345, 6.832746410626594],
            [0.9412869609696858, -90.99867549009977, 63.94239894829585],
            [-0.2152521433770165, 127.49979284873955, -152.06229510249852],
            0.0,
            91.34579728637948,
        ),
    ),
    (
        "SGD",
        {"momentum": 0.8, "dampening": 0.3, "maximize": True, "tensor_lr": False},
        (
            [0.6686443652976382, -0.29783865461601555, 0.6995664967216936],
            [1.1307594024401495, -3.20721508161365, 2.520617805432717],
            [0.51004527591323, 1.24445073695587, -3.0818534181357506],
            0.0,
            6.080383076200547,
        ),
    ),
    (
        "Adam",
        {},
        (
            [0.20089499434402464, -1.8004880557414373, 2.300465532508299],
            [1.003120279870982, -2.1699120991676453, 0.6657375473542353],
            [0.005941029602901739, 0.18981520105505928, -0.30605229115400745],
            4.904253633550146,
            5.154686730896804,
        ),
    ),
    (
        "Adam",
        {"weight_decay": 0.05},
        (
            [0.2010496227689446, -1.8004888400508987, 2.3004675572274995],
            [1.00316506460044, -2.1635026964537847, 0.6583951364054367],
            [0.005776814249060975, 0.18553880993607277, -0.2975366784149488],
            4.892748537298518,
            5.144907999393538,
        ),
    ),
    (
        "Adam",
        {"weight_decay": 0.05, "amsgrad": True, "steps": 1},
        (
            [0.40000000249999995, -1.5999999996850394, 2.0999999997058825],
            [1.0002800157325, -2.0188080347084063, 0.5187864689189446],
            [0.0010000561875003061, 0.020720716204176332, -0.03415721621626295],
            1.5000000172301984,
            4.671847682363098,
        ),
    ),
    (
        "Adam",
        {"betas": (0.8, 0.9), "maximize": True},
        (
            [0.8005813109538883, -1.2014092866414214, 1.7011829122200641],
            [1.008259031421458, -4.502902165514666, 3.503462555818038],
            [0.03025529398117436, 2.651168620362114, -5.208388396506269],
            -9.844217970636068,
            5.855886198942727,
        ),
    ),
    (
        "AdamW",
        {"weight_decay": 0.1},
        (
            [0.18907553815279773, -1.7529196103179059, 2.2380242992769435],
            [0.9736154422253606, -2.104311154829659, 0.6445646441620533],
            [0.005907608066469405, 0.18410593967178818, -0.29560954074253804],
            3.4165727256860086,
            5.010016012250438,
        ),
    ),
]


@pytest.mark.parametrize("name,kw,want", CASES)
def test_differentiable_step_matches_pytorch(name, kw, want):
    got = _run(name, kw)
    for g, x in zip(got, want):
        np.testing.assert_allclose(g, x, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    "name,kw",
    [
        ("SGD", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
        ("Adam", {"weight_decay": 0.1, "amsgrad": True}),
        ("AdamW", {"weight_decay": 0.1}),
    ],
)
def test_differentiable_step_gradcheck(name, kw):
    # two steps as a function of the starting parameters, the gradient, the rate and
    # SGD's momentum buffer (given as state, as PyTorch's own gradchecks do: a first
    # buffer made from the gradient is a detached copy)
    def two_steps(w, g, lr, buf):
        p = w.clone()
        opt = getattr(torch.optim, name)([p], lr=lr, differentiable=True, **kw)
        if name == "SGD":
            opt.state[p]["momentum_buffer"] = buf.clone()
        for k in range(2):
            p.grad = g * (k + 1.0) + p.clone() * 0.5
            opt.step()
        return p

    w = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
    g = torch.tensor([0.3, 1.0, -0.7], requires_grad=True)
    lr = torch.tensor(0.05, requires_grad=True)
    buf = torch.tensor([0.2, -0.1, 0.4], requires_grad=True)
    assert torch.autograd.gradcheck(two_steps, (w, g, lr, buf))


def test_differentiable_state_is_the_live_dict():
    p = torch.tensor([1.0, 2.0], requires_grad=True).clone()  # non-leaf: allowed here
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.5, differentiable=True)
    buf = torch.tensor([1.0, -1.0])
    opt.state[p].update({"momentum_buffer": buf})  # as PyTorch's own tests set state
    p.grad = torch.tensor([0.5, 0.5])
    opt.step()
    # buf = 0.5 * buf + g; p -= 0.1 * buf
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(), [1.0, 0.0])
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 2.0])
    assert opt.param_groups[0]["differentiable"] is True
    sd = opt.state_dict()
    np.testing.assert_allclose(sd["state"][0]["momentum_buffer"].numpy(), [1.0, 0.0])


def test_non_leaf_parameters_need_differentiable():
    p = torch.tensor([1.0, 2.0], requires_grad=True).clone()
    with pytest.raises(ValueError, match="non-leaf"):
        torch.optim.SGD([p], lr=0.1)


@pytest.mark.parametrize("name", ["NAdam", "RMSprop", "Adagrad", "ASGD"])
def test_other_optimizers_refuse_differentiable(name):
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="SGD, Adam and AdamW"):
        getattr(torch.optim, name)([p], differentiable=True)
