"""Optimizer hooks: register_step_pre_hook / _post_hook, the state-dict and
load-state-dict hooks, and the global optim.optimizer.register_optimizer_step_pre_hook /
_post_hook. The expected event log was recorded on torch 2.15 running the same scenario."""

from __future__ import annotations

import ferrograd as torch
import pytest
from ferrograd.optim import optimizer as optmod_


def scenario():
    import importlib

    optmod = importlib.import_module(torch.__name__ + ".optim.optimizer")
    log = []
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([p], lr=0.5, momentum=0.9)
    gh = optmod.register_optimizer_step_pre_hook(
        lambda o, a, k: log.append(("gpre", len(a), a[0] is o, sorted(k)))
    )
    gp = optmod.register_optimizer_step_post_hook(
        lambda o, a, k: log.append(("gpost", len(a), sorted(k)))
    )
    h1 = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre1", len(a), sorted(k))))
    h2 = opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a), sorted(k))))

    def swap(o, a, k):
        log.append(("pre2",))
        return (a, {"closure": lambda: log.append(("closure",)) or torch.tensor(3.0)})

    h3 = opt.register_step_pre_hook(swap)
    p.grad = torch.tensor([1.0, 1.0])
    loss = opt.step()
    log.append(("loss", float(loss), [round(float(v), 6) for v in p.detach()]))
    for h in (gh, gp, h1, h2, h3):
        h.remove()
    opt.step()
    log.append(("after-remove", len(log)))
    h = opt.register_step_pre_hook(lambda o, a, k: 5)
    try:
        opt.step()
    except RuntimeError as e:
        log.append(("err", "must return None or a tuple" in str(e)))
    h.remove()
    # state dict hooks
    opt.register_state_dict_pre_hook(lambda o: log.append(("sd-pre",)))
    opt.register_state_dict_pre_hook(lambda o: log.append(("sd-pre-first",)), prepend=True)

    def sd_post(o, sd):
        log.append(("sd-post", sorted(sd)))
        sd["extra"] = 1

    opt.register_state_dict_post_hook(sd_post)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "replaced": True})
    sd = opt.state_dict()
    log.append(("sd", sorted(sd)))

    def ld_pre(o, sd):
        log.append(("ld-pre", sorted(sd)))
        sd.pop("extra")
        new = dict(sd)
        new["param_groups"] = [dict(g, lr=0.25) for g in sd["param_groups"]]
        return new

    opt.register_load_state_dict_pre_hook(ld_pre)
    opt.register_load_state_dict_post_hook(
        lambda o: log.append(("ld-post", o.param_groups[0]["lr"]))
    )
    opt.load_state_dict(sd)
    log.append(("caller-dict-untouched", "extra" in sd, opt.param_groups[0]["lr"]))
    return log


# recorded on torch 2.15 with the same scenario
TORCH_LOG = [
    ("gpre", 1, True, []),
    ("pre1", 1, []),
    ("pre2",),
    ("closure",),
    ("post", 1, ["closure"]),
    ("gpost", 1, ["closure"]),
    ("loss", 3.0, [0.5, 1.5]),
    ("after-remove", 7),
    ("err", True),
    ("sd-pre-first",),
    ("sd-pre",),
    ("sd-post", ["param_groups", "state"]),
    ("sd", ["extra", "param_groups", "replaced", "state"]),
    ("ld-pre", ["extra", "param_groups", "replaced", "state"]),
    ("ld-post", 0.25),
    ("caller-dict-untouched", True, 0.25),
]


def test_optimizer_hooks_match_torch_event_by_event():
    assert scenario() == TORCH_LOG


def test_hooks_fire_once_per_outer_call_in_subclasses():
    calls = []

    class MySGD(torch.optim.SGD):
        def step(self, closure=None):
            calls.append("inner")
            return super().step(closure)

    p = torch.nn.Parameter(torch.ones([2]))
    opt = MySGD([p], lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    p.grad = torch.ones([2])
    opt.step()
    assert calls == ["pre", "inner", "post"]
    assert p.tolist() == pytest.approx([0.9, 0.9])
    # an optimizer whose state is kept in Python (ASGD) loads once through its hooks
    asgd = torch.optim.ASGD([p], lr=0.1)
    asgd.step()
    seen = []
    asgd.register_load_state_dict_pre_hook(lambda o, sd: seen.append("pre"))
    asgd.register_load_state_dict_post_hook(lambda o: seen.append("post"))
    asgd.load_state_dict(asgd.state_dict())
    asgd.set_state_dict(asgd.state_dict())
    assert seen == ["pre", "post", "pre", "post"]


def test_lbfgs_closure_and_paddle_minimize_fire_step_hooks():
    log = []
    x = torch.nn.Parameter(torch.tensor([3.0]))
    opt = torch.optim.LBFGS([x], lr=1.0, max_iter=5)
    opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", len(a))))

    def closure():
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert log == [("pre", 2)] and abs(x.item()) < 1e-6
    sgd = torch.optim.SGD(learning_rate=0.5, parameters=[x])
    h = sgd.register_step_post_hook(lambda o, a, k: log.append("post"))
    (x * 2).sum().backward()
    sgd.minimize(None)
    assert log[-1] == "post"
    h.remove()
    sgd.minimize(None)
    assert log.count("post") == 1


def test_global_hooks_and_bad_hooks():
    log = []
    h = optmod_.register_optimizer_step_pre_hook(lambda o, a, k: log.append(type(o).__name__))
    try:
        p = torch.nn.Parameter(torch.ones([1]))
        p.grad = torch.ones([1])
        torch.optim.Adam([p]).step()
        torch.optim.RMSprop([p]).step()
    finally:
        h.remove()
    torch.optim.SGD([p], lr=0.1).step()
    assert log == ["Adam", "RMSprop"]
    opt = torch.optim.SGD([p], lr=0.1)
    with pytest.raises(TypeError, match="callable"):
        opt.register_step_pre_hook(None)
    with pytest.raises(TypeError, match="callable"):
        optmod_.register_optimizer_step_post_hook(1)
    # a failing hook leaves the optimizer usable (the re-entry guard is reset)
    h = opt.register_step_pre_hook(lambda o, a, k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        opt.step()
    h.remove()
    before = p.item()
    opt.step()
    assert p.item() == pytest.approx(before - 0.1)
