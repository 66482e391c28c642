"""Differential fuzzer for ``ferrograd.optim``: every PyTorch-style optimizer (``SGD`` with
momentum / dampening / Nesterov / weight decay / maximize, ``Adam`` and ``AdamW`` with
AMSGrad and decoupled decay, ``Adamax``, ``NAdam``, ``RAdam``, ``RMSprop``, ``Adagrad``,
``Adadelta``, ``Rprop``, ``ASGD``) run for several steps on random parameter groups (per
group hyper-parameters, float32 and float64 parameters, some of them strided views, 0-d
and empty ones) with random per-step gradients (zero, tiny and huge ones too, set by
assignment, by ``backward`` or left as ``zero_grad`` made them: ``None`` or zeros),
compared after every step, parameters and state buffers, with a float64 NumPy reference
written from PyTorch's documented algorithms (the pseudo-code of each optimizer's page, as
torch 2.15's single-tensor code runs it: ``maximize`` negates the gradient before the
weight decay is added). ``state_dict()`` / ``load_state_dict()`` round trips (ferrograd's
own layout and PyTorch's) must continue exactly as the original, and ``zero_grad`` must
leave ``None`` or zeros as PyTorch does. The learning-rate schedulers (``StepLR``,
``MultiStepLR``, ``ExponentialLR``, ``CosineAnnealingLR``, ``CosineAnnealingWarmRestarts``,
``LinearLR``, ``ConstantLR``, ``PolynomialLR``, ``LambdaLR``, ``MultiplicativeLR``,
``OneCycleLR``, ``CyclicLR``, ``SequentialLR``, ``ChainedScheduler``,
``ReduceLROnPlateau``) run for random step counts on random hyper-parameters and groups,
against closed forms (or PyTorch's documented recurrences) whose sequences were checked
against torch 2.15's; their ``state_dict`` round trips too. This module is PyTorch code
(``torch = fg`` below, docs/dialects.md). Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import bisect
import math

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import CALLS, EXAMPLES, FUZZ, LONG
from hypothesis import given, settings
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

#: the optimizer test runs once per optimizer (11 of them): 20 examples each in CI
OPT_FUZZ = settings(FUZZ, max_examples=EXAMPLES if LONG else min(EXAMPLES, 20))

# ==================================================================== optimizer references
# Each takes the parameter p and its gradient g (float64 arrays), the parameter's state
# (PyTorch's names; "step" already advanced) and the group's hyper-parameters, updates
# the state and returns the new parameter. Written from PyTorch's algorithm pages.


def _zeros(st, key, p, fill=0.0):
    if key not in st:
        st[key] = np.full_like(p, fill)
    return st[key]


def _decay(p, g, hp):
    """Weight decay: added to the gradient (L2), or p *= 1 - lr * wd (decoupled)."""
    wd = hp["weight_decay"]
    if wd:
        if hp.get("decoupled_weight_decay"):
            p = p * (1 - hp["lr"] * wd)
        else:
            g = g + wd * p
    return p, g


def ref_sgd(p, g, st, hp):
    p, g = _decay(p, g, hp)
    mom = hp["momentum"]
    if mom:
        buf = st.get("momentum_buffer")
        buf = g.copy() if buf is None else mom * buf + (1 - hp["dampening"]) * g
        st["momentum_buffer"] = buf
        g = g + mom * buf if hp["nesterov"] else buf
    return p - hp["lr"] * g


def ref_adam(p, g, st, hp):
    p, g = _decay(p, g, hp)
    t, (b1, b2) = st["step"], hp["betas"]
    m = st["exp_avg"] = b1 * _zeros(st, "exp_avg", p) + (1 - b1) * g
    v = st["exp_avg_sq"] = b2 * _zeros(st, "exp_avg_sq", p) + (1 - b2) * g * g
    if hp["amsgrad"]:
        v = st["max_exp_avg_sq"] = np.maximum(_zeros(st, "max_exp_avg_sq", p), v)
    denom = np.sqrt(v) / math.sqrt(1 - b2**t) + hp["eps"]
    return p - hp["lr"] / (1 - b1**t) * m / denom


def ref_adamax(p, g, st, hp):
    p, g = _decay(p, g, hp)
    t, (b1, b2) = st["step"], hp["betas"]
    m = st["exp_avg"] = b1 * _zeros(st, "exp_avg", p) + (1 - b1) * g
    u = st["exp_inf"] = np.maximum(b2 * _zeros(st, "exp_inf", p), np.abs(g) + hp["eps"])
    return p - hp["lr"] / (1 - b1**t) * m / u


def _mu(hp, t):
    return hp["betas"][0] * (1 - 0.5 * 0.96 ** (t * hp["momentum_decay"]))


def ref_nadam(p, g, st, hp):
    p, g = _decay(p, g, hp)
    t, (b1, b2), lr = st["step"], hp["betas"], hp["lr"]
    mu, mu_next = _mu(hp, t), _mu(hp, t + 1)
    prod = st["mu_product"] = st.get("mu_product", 1.0) * mu
    m = st["exp_avg"] = b1 * _zeros(st, "exp_avg", p) + (1 - b1) * g
    v = st["exp_avg_sq"] = b2 * _zeros(st, "exp_avg_sq", p) + (1 - b2) * g * g
    denom = np.sqrt(v / (1 - b2**t)) + hp["eps"]
    p = p - lr * (1 - mu) / (1 - prod) * g / denom
    return p - lr * mu_next / (1 - prod * mu_next) * m / denom


def ref_radam(p, g, st, hp):
    p, g = _decay(p, g, hp)
    t, (b1, b2), lr = st["step"], hp["betas"], hp["lr"]
    m = st["exp_avg"] = b1 * _zeros(st, "exp_avg", p) + (1 - b1) * g
    v = st["exp_avg_sq"] = b2 * _zeros(st, "exp_avg_sq", p) + (1 - b2) * g * g
    bc1, bc2 = 1 - b1**t, 1 - b2**t
    rho_inf = 2 / (1 - b2) - 1
    rho = rho_inf - 2 * t * b2**t / bc2
    if rho > 5:
        r = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        return p - lr * m / bc1 * r * math.sqrt(bc2) / (np.sqrt(v) + hp["eps"])
    return p - lr * m / bc1


def ref_rmsprop(p, g, st, hp):
    p, g = _decay(p, g, hp)
    a = hp["alpha"]
    v = st["square_avg"] = a * _zeros(st, "square_avg", p) + (1 - a) * g * g
    if hp["centered"]:
        ga = st["grad_avg"] = a * _zeros(st, "grad_avg", p) + (1 - a) * g
        v = v - ga * ga
    avg = np.sqrt(v) + hp["eps"]
    if hp["momentum"] > 0:
        buf = st["momentum_buffer"] = hp["momentum"] * _zeros(st, "momentum_buffer", p) + g / avg
        return p - hp["lr"] * buf
    return p - hp["lr"] * g / avg


def ref_adagrad(p, g, st, hp):
    p, g = _decay(p, g, hp)
    clr = hp["lr"] / (1 + (st["step"] - 1) * hp["lr_decay"])
    s = st["sum"] = _zeros(st, "sum", p, hp["initial_accumulator_value"]) + g * g
    return p - clr * g / (np.sqrt(s) + hp["eps"])


def ref_adadelta(p, g, st, hp):
    p, g = _decay(p, g, hp)
    rho, eps = hp["rho"], hp["eps"]
    v = st["square_avg"] = rho * _zeros(st, "square_avg", p) + (1 - rho) * g * g
    u = _zeros(st, "acc_delta", p)
    d = np.sqrt(u + eps) / np.sqrt(v + eps) * g
    st["acc_delta"] = rho * u + (1 - rho) * d * d
    return p - hp["lr"] * d


def ref_rprop(p, g, st, hp, dtype="float64"):
    minus, plus = hp["etas"]
    prev = _zeros(st, "prev", p)
    size = _zeros(st, "step_size", p, hp["lr"])
    # the sign of g * prev as the parameter's dtype computes it (a float32 product of
    # two small numbers can underflow to 0)
    s = np.sign(g.astype(dtype) * prev.astype(dtype)).astype(np.float64)
    factor = np.where(s > 0, plus, np.where(s < 0, minus, 1.0))
    st["step_size"] = np.clip(size * factor, *hp["step_sizes"])
    g = np.where(s < 0, 0.0, g)
    st["prev"] = g
    return p - np.sign(g) * st["step_size"]


def ref_asgd(p, g, st, hp):
    p, g = _decay(p, g, hp)
    eta, mu = st.get("eta", hp["lr"]), st.get("mu", 1.0)
    p = p * (1 - hp["lambd"] * eta) - eta * g
    st["ax"] = p.copy() if mu == 1 else st["ax"] + mu * (p - st["ax"])
    t = st["step"]
    st["eta"] = hp["lr"] / (1 + hp["lambd"] * hp["lr"] * t) ** hp["alpha"]
    st["mu"] = 1 / max(1, t - hp["t0"])
    return p


def _ref_wrap(fn):
    def run(p, g, st, hp, dtype):
        if hp["maximize"]:
            g = -g
        if fn is ref_rprop:
            return fn(p, g, st, hp, dtype)
        return fn(p, g, st, hp)

    return run


# name: (reference, PyTorch's defaults); the defaults are the constructor's documented ones
OPTIMIZERS = {
    "SGD": (
        ref_sgd,
        dict(lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False),
    ),
    "Adam": (
        ref_adam,
        dict(
            lr=1e-3,
            betas=(0.9, 0.999),
            eps=1e-8,
            weight_decay=0.0,
            amsgrad=False,
            decoupled_weight_decay=False,
        ),
    ),
    "AdamW": (
        ref_adam,
        dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False),
    ),
    "Adamax": (ref_adamax, dict(lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)),
    "NAdam": (
        ref_nadam,
        dict(
            lr=2e-3,
            betas=(0.9, 0.999),
            eps=1e-8,
            weight_decay=0.0,
            momentum_decay=4e-3,
            decoupled_weight_decay=False,
        ),
    ),
    "RAdam": (
        ref_radam,
        dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled_weight_decay=False),
    ),
    "RMSprop": (
        ref_rmsprop,
        dict(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False),
    ),
    "Adagrad": (
        ref_adagrad,
        dict(lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10),
    ),
    "Adadelta": (ref_adadelta, dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0)),
    "Rprop": (ref_rprop, dict(lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0))),
    "ASGD": (ref_asgd, dict(lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)),
}
for _d in OPTIMIZERS.values():
    _d[1]["maximize"] = False

#: the state entries torch 2.15 keeps per parameter (for a PyTorch-layout state dict)
TORCH_STATE = {
    "SGD": lambda hp: ["momentum_buffer"] if hp["momentum"] else [],
    "Adam": lambda hp: ["step", "exp_avg", "exp_avg_sq"] + ["max_exp_avg_sq"] * hp["amsgrad"],
    "Adamax": lambda hp: ["step", "exp_avg", "exp_inf"],
    "NAdam": lambda hp: ["step", "mu_product", "exp_avg", "exp_avg_sq"],
    "RAdam": lambda hp: ["step", "exp_avg", "exp_avg_sq"],
    "RMSprop": lambda hp: (
        ["step", "square_avg"]
        + ["momentum_buffer"] * (hp["momentum"] > 0)
        + ["grad_avg"] * hp["centered"]
    ),
    "Adagrad": lambda hp: ["step", "sum"],
    "Adadelta": lambda hp: ["step", "square_avg", "acc_delta"],
    "Rprop": lambda hp: ["step", "prev", "step_size"],
    "ASGD": lambda hp: ["step", "eta", "mu", "ax"],
}
TORCH_STATE["AdamW"] = TORCH_STATE["Adam"]


def _pick(draw, values, lo=None, hi=None):
    """One of `values`, or (when a range is given) a float in [lo, hi]."""
    choices = st.sampled_from(values)
    if lo is not None:
        choices = st.one_of(choices, st.floats(lo, hi))
    return draw(choices)


def draw_hp(draw, name):
    """A full, valid set of hyper-parameters of optimizer `name` (PyTorch's names)."""
    hp = {"lr": _pick(draw, [1e-3, 0.01, 0.1, 0.5, 1.0], 1e-4, 1.0)}
    hp["maximize"] = draw(st.booleans())
    wd = _pick(draw, [0.0, 0.0, 1e-2, 0.3], 0.0, 0.5)
    betas = (
        _pick(draw, [0.0, 0.5, 0.9, 0.99], 0.0, 0.99),
        _pick(draw, [0.9, 0.99, 0.999], 0.5, 0.9999),
    )
    eps = _pick(draw, [1e-8, 1e-6, 1e-3])
    if name == "SGD":
        hp.update(momentum=_pick(draw, [0.0, 0.5, 0.9], 0.0, 0.99), weight_decay=wd)
        hp["dampening"] = _pick(draw, [0.0, 0.0, 0.3], 0.0, 1.0)
        hp["nesterov"] = hp["momentum"] > 0 and hp["dampening"] == 0 and draw(st.booleans())
    elif name in ("Adam", "AdamW"):
        hp.update(betas=betas, eps=eps, weight_decay=wd, amsgrad=draw(st.booleans()))
        if name == "Adam":
            hp["decoupled_weight_decay"] = draw(st.booleans())
    elif name == "Adamax":
        hp.update(betas=betas, eps=eps, weight_decay=wd)
    elif name in ("NAdam", "RAdam"):
        hp.update(betas=betas, eps=eps, weight_decay=wd)
        hp["decoupled_weight_decay"] = draw(st.booleans())
        if name == "NAdam":
            hp["momentum_decay"] = _pick(draw, [4e-3, 0.0, 0.1, 1.0], 0.0, 2.0)
    elif name == "RMSprop":
        hp.update(eps=eps, weight_decay=wd, centered=draw(st.booleans()))
        # alpha stays away from 0 when centered: there v - a*a is 0 up to rounding
        hp["alpha"] = _pick(draw, [0.9, 0.99, 0.5], 0.3, 0.999)
        hp["momentum"] = _pick(draw, [0.0, 0.5, 0.9], 0.0, 0.95)
    elif name == "Adagrad":
        hp.update(eps=_pick(draw, [1e-10, 1e-6]), weight_decay=wd)
        hp["lr_decay"] = _pick(draw, [0.0, 0.01, 0.5], 0.0, 1.0)
        hp["initial_accumulator_value"] = _pick(draw, [0.0, 0.1, 1.0], 0.0, 2.0)
    elif name == "Adadelta":
        hp.update(eps=_pick(draw, [1e-6, 1e-3]), weight_decay=wd)
        hp["rho"] = _pick(draw, [0.9, 0.95, 0.0, 1.0], 0.0, 1.0)
    elif name == "Rprop":
        hp["etas"] = (_pick(draw, [0.5, 0.3], 0.1, 0.9), _pick(draw, [1.2, 1.5], 1.05, 2.0))
        hp["step_sizes"] = draw(st.sampled_from([(1e-6, 50.0), (1e-3, 0.05), (0.0, 1.0)]))
    elif name == "ASGD":
        hp.update(weight_decay=wd, lambd=_pick(draw, [1e-4, 0.1, 0.5]))
        hp["alpha"] = _pick(draw, [0.75, 0.5, 1.0])
        hp["t0"] = _pick(draw, [1e6, 0.0, 2.0, 3.0])
    return hp


def valid(name, hp):
    return name != "SGD" or not hp["nesterov"] or (hp["momentum"] > 0 and hp["dampening"] == 0)


# ==================================================================== optimizer harness
SHAPES = [(), (3,), (2, 3), (4, 1), (0,), (2, 2, 2)]


def _values(draw, shape, lo=-3.0, hi=3.0):
    return draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi)))


def make_param(draw, dtype, shape):
    """A leaf tensor (maybe a strided view: transposed or a stepped slice) and its value
    as float64 NumPy."""
    kind = draw(st.sampled_from(["plain", "plain", "transposed", "sliced"]))
    a = _values(draw, shape).astype(dtype)
    if kind == "transposed" and len(shape) >= 2:
        t = fg.tensor(np.ascontiguousarray(a.T), dtype=dtype).permute(
            *range(len(shape) - 1, -1, -1)
        )
    elif kind == "sliced" and len(shape) >= 1:
        big = np.zeros(tuple(2 * d for d in shape), dtype=dtype)
        idx = tuple(slice(None, None, -2) for _ in shape)
        big[idx] = a
        t = fg.tensor(big, dtype=dtype)[idx]
    else:
        t = fg.tensor(a, dtype=dtype)
    t.requires_grad_(True)
    return t, a.astype(np.float64)


def draw_grad(draw, shape, dtype):
    """A gradient: ordinary values, zeros, tiny ones, huge ones or a mix."""
    kind = draw(st.sampled_from(["normal"] * 4 + ["zero", "tiny", "huge", "mixed"]))
    g = _values(draw, shape, -2.0, 2.0)
    tiny, huge = (1e-12, 1e8) if dtype == "float32" else (1e-100, 1e100)
    if kind == "zero":
        g = np.zeros(shape)
    elif kind == "tiny":
        g = g * tiny
    elif kind == "huge":
        g = g * huge
    elif kind == "mixed" and g.size:
        scale = draw(
            hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, 1.0, tiny, huge]))
        )
        g = g * scale
    return g.astype(dtype)


def set_grad(p, g, how, dtype):
    """Gives `p` the gradient `g`: assigned (contiguous or through a transposed view) or
    accumulated by backward."""
    if how == "backward":
        (p * fg.tensor(g, dtype=dtype)).sum().backward()
    elif how == "view" and g.ndim == 2:
        p.grad = fg.tensor(np.ascontiguousarray(g.T), dtype=dtype).t()
    else:
        p.grad = fg.tensor(g, dtype=dtype)


def tol(dtype, want):
    """(rtol, atol) for a parameter or buffer: float64 tight, float32 scaled by the
    magnitudes."""
    scale = 1.0 + (np.abs(want).max() if want.size else 0.0)
    return (1e-9, 1e-11 * scale) if dtype == "float64" else (2e-4, 2e-5 * scale)


def close(got, want, dtype, what):
    g = got.detach().numpy().astype(np.float64) if hasattr(got, "numpy") else np.float64(got)
    want = np.asarray(want, np.float64)
    assert g.shape == want.shape, f"{what}: shape {g.shape} != {want.shape}"
    assert np.isfinite(want).all(), f"{what}: the reference is not finite"
    rtol, atol = tol(dtype, want)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=what)


class Run:
    """One optimizer over random groups, its float64 reference and the gradient model
    (None or an array per parameter, as zero_grad / assignment / backward leave it)."""

    def __init__(self, draw, name):
        self.name = name
        self.ref_fn = _ref_wrap(OPTIMIZERS[name][0])
        defaults = dict(OPTIMIZERS[name][1])
        if name == "AdamW":
            defaults["decoupled_weight_decay"] = True
        # the constructor's keywords: none (PyTorch's defaults) or a drawn set
        ctor = {} if draw(st.booleans()) else draw_hp(draw, name)
        if name == "AdamW":
            ctor.pop("decoupled_weight_decay", None)
        base = {**defaults, **ctor}
        self.ctor = ctor
        self.groups, self.hps, self.params, self.values, self.dtypes = [], [], [], [], []
        for _ in range(draw(st.integers(1, 3))):
            full = draw_hp(draw, name)
            if name == "AdamW":
                full.pop("decoupled_weight_decay", None)
            keys = draw(st.lists(st.sampled_from(sorted(full)), unique=True))
            own = {k: full[k] for k in keys}
            hp = {**base, **own}
            if not valid(name, hp):
                own, hp = full, {**base, **full}
            ps, vs, ds = [], [], []
            for _ in range(draw(st.integers(1, 3))):
                dtype = draw(st.sampled_from(["float32", "float64"]))
                p, v = make_param(draw, dtype, draw(st.sampled_from(SHAPES)))
                ps.append(p)
                vs.append(v)
                ds.append(dtype)
            self.groups.append(own)
            self.hps.append(hp)
            self.params.append(ps)
            self.values.append(vs)
            self.dtypes.append(ds)
        self.states = [[{} for _ in ps] for ps in self.params]
        self.grads = [[None for _ in ps] for ps in self.params]
        self.opt = self.build(self.params)

    def build(self, params):
        groups = [{"params": ps, **own} for ps, own in zip(params, self.groups)]
        return getattr(fg.optim, self.name)(groups, **self.ctor)

    def each(self):
        for gi, ps in enumerate(self.params):
            for pi in range(len(ps)):
                yield gi, pi

    def zero_grad(self, set_to_none, others=()):
        for opt in (self.opt, *others):
            opt.zero_grad(set_to_none=set_to_none)
        for gi, pi in self.each():
            g = self.grads[gi][pi]
            self.grads[gi][pi] = None if set_to_none or g is None else np.zeros_like(g)
        CALLS["zero_grad"] += 1
        for gi, pi in self.each():
            got, want = self.params[gi][pi].grad, self.grads[gi][pi]
            assert (got is None) == (want is None), f"zero_grad({set_to_none}): grad {got}"
            if got is not None:
                assert got.shape == self.params[gi][pi].shape
                assert not got.detach().numpy().any(), "zero_grad(set_to_none=False): not zeros"

    def give_grads(self, draw, twins=()):
        """Random gradients for some parameters (the same to the `twins` runs' ones)."""
        for gi, pi in self.each():
            how = draw(st.sampled_from(["skip", "assign", "assign", "view", "backward"]))
            if how == "skip":
                continue
            dtype = self.dtypes[gi][pi]
            g = draw_grad(draw, self.values[gi][pi].shape, dtype)
            for params in (self.params, *twins):
                set_grad(params[gi][pi], g, how, dtype)
            old = self.grads[gi][pi]
            if how == "backward" and old is not None:
                g = (old.astype(dtype) + g).astype(dtype)  # accumulated in the dtype
            self.grads[gi][pi] = g.astype(np.float64)

    def step(self):
        self.opt.step()
        for gi, pi in self.each():
            g = self.grads[gi][pi]
            if g is None:
                continue
            stt = self.states[gi][pi]
            stt["step"] = stt.get("step", 0) + 1
            with np.errstate(all="ignore"):
                self.values[gi][pi] = self.ref_fn(
                    self.values[gi][pi], g, stt, self.hps[gi], self.dtypes[gi][pi]
                )
        CALLS[f"optim.{self.name}"] += 1

    def check(self, what):
        for gi, pi in self.each():
            p, dtype = self.params[gi][pi], self.dtypes[gi][pi]
            where = f"{self.name} {what} group {gi} param {pi} ({dtype}, hp {self.hps[gi]})"
            assert p.dtype.name == dtype, f"{where}: dtype {p.dtype.name}"
            close(p, self.values[gi][pi], dtype, where)
            mine = self.states[gi][pi]
            got = self.opt.state[p] if mine else None
            for key, want in mine.items():
                assert key in got, f"{where}: state has no {key!r}: {sorted(got)}"
                if key == "step":
                    v = got[key]
                    assert int(v.item() if hasattr(v, "item") else v) == want, f"{where}: step"
                elif key in ("eta", "mu", "mu_product"):  # numbers (0-d float64 tensors)
                    close(got[key], want, "float64", f"{where}: state {key}")
                else:
                    assert got[key].dtype.name == dtype, f"{where}: {key} dtype"
                    close(got[key], want, dtype, f"{where}: state {key}")


def _clone_leaf(p):
    """A new leaf with `p`'s value and a copy of its gradient."""
    q = p.detach().clone().requires_grad_(True)
    if p.grad is not None:
        q.grad = p.grad.clone()
    return q


def torch_layout(sd, name, hps):
    """`sd` as torch 2.15 would save it: only PyTorch's state entries, `step` a float32
    0-d tensor."""
    out = {"param_groups": sd["param_groups"], "state": {}}
    idx = 0
    for gi, g in enumerate(sd["param_groups"]):
        keys = TORCH_STATE[name](hps[gi])
        for i in g["params"]:
            s = sd["state"].get(i)
            if s:
                kept = {k: v for k, v in s.items() if k in keys}
                if "step" in kept:
                    kept["step"] = fg.tensor(float(kept["step"]), dtype="float32")
                if kept:
                    out["state"][i] = kept
            idx += 1
    return out


@OPT_FUZZ
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@given(data=st.data())
def test_optimizer_steps(name, data):
    draw = data.draw
    run = Run(draw, name)
    n_steps = draw(st.integers(1, 8))
    split = draw(st.integers(0, n_steps))  # the state_dict round trip happens here
    layout = draw(st.sampled_from(["own", "torch"]))
    twin = None
    for k in range(n_steps):
        if k == split and k > 0:
            sd = run.opt.state_dict()
            if layout == "torch":
                sd = torch_layout(sd, name, run.hps)
            twin_params = [[_clone_leaf(p) for p in ps] for ps in run.params]
            twin = (twin_params, run.build(twin_params))
            twin[1].load_state_dict(sd)
            CALLS["optim.load_state_dict"] += 1
            for ga, gb in zip(run.opt.param_groups, twin[1].param_groups):
                assert {k: v for k, v in ga.items() if k != "params"} == {
                    k: v for k, v in gb.items() if k != "params"
                }
        if draw(st.integers(0, 4)) == 0:  # a new learning rate for one group
            gi = draw(st.integers(0, len(run.groups) - 1))
            lr = _pick(draw, [1e-3, 0.05, 0.3])
            run.hps[gi]["lr"] = lr
            for opt in (run.opt, *([twin[1]] if twin else [])):
                opt.param_groups[gi]["lr"] = lr
        if draw(st.booleans()):
            run.zero_grad(draw(st.booleans()), others=[twin[1]] if twin else [])
        run.give_grads(draw, twins=[twin[0]] if twin else [])
        if twin:  # the twin's gradients follow the same model
            for gi, pi in run.each():
                g = twin[0][gi][pi].grad
                assert (g is None) == (run.grads[gi][pi] is None)
        run.step()
        if twin:
            twin[1].step()
        run.check(f"step {k + 1}")
        if twin:
            for gi, pi in run.each():
                a = run.params[gi][pi].detach().numpy()
                b = twin[0][gi][pi].detach().numpy()
                np.testing.assert_array_equal(
                    b, a, err_msg=f"{name}: after load_state_dict ({layout}), step {k + 1}"
                )


@FUZZ
@given(data=st.data())
def test_step_closure_and_state_of_untouched(data):
    """step(closure) evaluates the closure with grad enabled and returns its loss; a
    parameter that never had a gradient keeps no state and does not move."""
    name = data.draw(st.sampled_from(sorted(OPTIMIZERS)))
    w = fg.tensor(_values(data.draw, (3,)), dtype="float64").requires_grad_(True)
    idle = fg.tensor(_values(data.draw, (2,)), dtype="float64").requires_grad_(True)
    before = idle.detach().numpy().copy()
    opt = getattr(fg.optim, name)([w, idle], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with fg.no_grad():
        loss = opt.step(closure)
    CALLS["optim.closure"] += 1
    assert float(loss) >= 0
    assert w.grad is not None and idle.grad is None
    np.testing.assert_array_equal(idle.detach().numpy(), before)
    assert name == "Adagrad" or not opt.state[idle], f"{name}: state for an untouched param"


# ==================================================================== scheduler references
LAMBDAS = [
    lambda e: 0.95**e,
    lambda e: 1.0 / (1.0 + e),
    lambda e: (e % 3 + 1) / 3.0,
    lambda e: min(1.0, (e + 1) / 4.0),
]
MULTS = [lambda e: 0.9, lambda e: 1.05 if e % 2 else 0.8, lambda e: 1.0 / (1.0 + 0.1 * e)]
SCALE_FNS = [lambda x: 1.0 / (1.0 + x), lambda x: 0.9**x]
CHAINABLE = ["StepLR", "MultiStepLR", "ExponentialLR", "ConstantLR", "LinearLR", "PolynomialLR"]
CLOSED = [*CHAINABLE, "CosineAnnealingLR", "LambdaLR"]


def draw_sched(draw, kind, n_groups):
    """Random hyper-parameters of scheduler `kind` (a spec dict)."""
    f = lambda lo, hi: draw(st.floats(lo, hi))  # noqa: E731
    i = lambda lo, hi: draw(st.integers(lo, hi))  # noqa: E731
    if kind == "StepLR":
        return dict(step_size=i(1, 6), gamma=f(0.05, 1.2))
    if kind == "MultiStepLR":
        ms = sorted(draw(st.lists(st.integers(0, 20), max_size=4)))
        return dict(milestones=ms, gamma=f(0.05, 1.2))
    if kind == "ExponentialLR":
        return dict(gamma=f(0.5, 1.1))
    if kind == "CosineAnnealingLR":
        return dict(T_max=i(1, 12), eta_min=draw(st.sampled_from([0.0, 1e-4, 0.05])))
    if kind == "CosineAnnealingWarmRestarts":
        return dict(T_0=i(1, 6), T_mult=i(1, 3), eta_min=draw(st.sampled_from([0.0, 1e-3])))
    if kind == "LinearLR":
        return dict(start_factor=f(0.05, 1.0), end_factor=f(0.0, 1.0), total_iters=i(1, 10))
    if kind == "ConstantLR":
        return dict(factor=f(0.05, 1.0), total_iters=i(1, 10))
    if kind == "PolynomialLR":
        return dict(total_iters=i(1, 10), power=f(0.5, 3.0))
    if kind in ("LambdaLR", "MultiplicativeLR"):
        fns = LAMBDAS if kind == "LambdaLR" else MULTS
        if draw(st.booleans()):
            return dict(lr_lambda=draw(st.integers(0, len(fns) - 1)))
        return dict(lr_lambda=[draw(st.integers(0, len(fns) - 1)) for _ in range(n_groups)])
    if kind == "OneCycleLR":
        spec = dict(
            max_lr=f(0.01, 2.0) if draw(st.booleans()) else [f(0.01, 2.0) for _ in range(n_groups)],
            pct_start=f(0.1, 0.9),
            anneal_strategy=draw(st.sampled_from(["cos", "linear"])),
            div_factor=f(2.0, 30.0),
            final_div_factor=draw(st.sampled_from([1e4, 10.0, 1.0])),
            three_phase=draw(st.booleans()),
            cycle_momentum=draw(st.booleans()),
            base_momentum=f(0.5, 0.85),
            max_momentum=f(0.86, 0.99),
        )
        if draw(st.booleans()):
            spec["total_steps"] = i(4, 40)
        else:
            spec.update(epochs=i(1, 5), steps_per_epoch=i(2, 8))
        return spec
    if kind == "CyclicLR":
        base = [f(1e-3, 0.1) for _ in range(n_groups)]
        spec = dict(
            base_lr=base if draw(st.booleans()) else base[0],
            max_lr=f(0.2, 1.0),
            step_size_up=i(1, 6),
            step_size_down=draw(st.one_of(st.none(), st.integers(1, 6))),
            mode=draw(st.sampled_from(["triangular", "triangular2", "exp_range"])),
            gamma=f(0.8, 1.0),
            cycle_momentum=draw(st.booleans()),
            base_momentum=f(0.5, 0.85),
            max_momentum=f(0.86, 0.99),
        )
        if draw(st.integers(0, 3)) == 0:
            spec["scale_fn"] = draw(st.integers(0, len(SCALE_FNS) - 1))
            spec["scale_mode"] = draw(st.sampled_from(["cycle", "iterations"]))
        return spec
    if kind == "SequentialLR":
        n = i(1, 3)
        subs = [
            (k, draw_sched(draw, k, n_groups))
            for k in draw(st.lists(st.sampled_from(CLOSED), min_size=n, max_size=n))
        ]
        ms = sorted(draw(st.lists(st.integers(1, 15), min_size=n - 1, max_size=n - 1, unique=True)))
        return dict(schedulers=subs, milestones=ms)
    if kind == "ChainedScheduler":
        n = i(1, 3)
        kinds = draw(
            st.lists(st.sampled_from([*CHAINABLE, "CosineAnnealingLR"]), min_size=n, max_size=n)
        )
        subs = []
        for k in kinds:
            spec = draw_sched(draw, k, n_groups)
            if k == "CosineAnnealingLR":
                spec["eta_min"] = 0.0
                # PyTorch's recurrence adds (not multiplies) one step after T_max: only
                # chained up to T_max here
                spec["T_max"] = max(spec["T_max"], 40)
            subs.append((k, spec))
        return dict(schedulers=subs)
    raise AssertionError(kind)


def build_sched(mod, opt, kind, spec):
    """The scheduler `kind` of module `mod` (ferrograd's lr_scheduler) on `opt`."""
    S = mod.optim.lr_scheduler
    spec = dict(spec)
    if kind in ("LambdaLR", "MultiplicativeLR"):
        fns = LAMBDAS if kind == "LambdaLR" else MULTS
        ix = spec["lr_lambda"]
        spec["lr_lambda"] = [fns[j] for j in ix] if isinstance(ix, list) else fns[ix]
    if kind == "CyclicLR" and "scale_fn" in spec:
        spec["scale_fn"] = SCALE_FNS[spec["scale_fn"]]
    if kind in ("SequentialLR", "ChainedScheduler"):
        subs = [build_sched(mod, opt, k, s) for k, s in spec["schedulers"]]
        if kind == "ChainedScheduler":
            return S.ChainedScheduler(subs)
        return S.SequentialLR(opt, subs, milestones=spec["milestones"])
    return getattr(S, kind)(opt, **spec)


def _per(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def _anneal(strategy, a, b, pct):
    if strategy == "cos":
        return b + (a - b) / 2.0 * (math.cos(math.pi * pct) + 1)
    return (b - a) * pct + a


def closed_rate(kind, spec, base, e, gi):
    """The rate of group `gi` (started at `base`) at epoch `e` (integer)."""
    if kind == "StepLR":
        return base * spec["gamma"] ** (e // spec["step_size"])
    if kind == "MultiStepLR":
        return base * spec["gamma"] ** bisect.bisect_right(spec["milestones"], e)
    if kind == "ExponentialLR":
        return base * spec["gamma"] ** e
    if kind == "CosineAnnealingLR":
        lo = spec["eta_min"]
        return lo + (base - lo) * (1 + math.cos(math.pi * e / spec["T_max"])) / 2
    if kind == "LinearLR":
        s, t, n = spec["start_factor"], spec["end_factor"], spec["total_iters"]
        return base * (s + (t - s) * min(e, n) / n)
    if kind == "ConstantLR":
        return base * (spec["factor"] if e < spec["total_iters"] else 1.0)
    if kind == "PolynomialLR":
        n = spec["total_iters"]
        return base * (1 - min(e, n) / n) ** spec["power"]
    if kind in ("LambdaLR", "MultiplicativeLR"):
        fns = LAMBDAS if kind == "LambdaLR" else MULTS
        fn = fns[_per(spec["lr_lambda"], gi + 1)[gi]]
        if kind == "LambdaLR":
            return base * fn(e)
        return base * math.prod(fn(k) for k in range(1, e + 1))
    raise AssertionError(kind)


def ref_schedule(kind, spec, bases, n):
    """Rates (one list per group) and momenta (or None) for epochs 0..n, as PyTorch's
    algorithm gives them when stepped once per epoch / batch."""
    g = len(bases)
    lrs, moms = [], []
    if kind in CLOSED or kind == "MultiplicativeLR":
        lrs = [
            [closed_rate(kind, spec, b, e, i) for i, b in enumerate(bases)] for e in range(n + 1)
        ]
    elif kind == "CosineAnnealingWarmRestarts":
        t_cur, t_i, lo = 0, spec["T_0"], spec["eta_min"]
        for _ in range(n + 1):
            lrs.append([lo + (b - lo) * (1 + math.cos(math.pi * t_cur / t_i)) / 2 for b in bases])
            t_cur += 1
            if t_cur >= t_i:
                t_cur, t_i = t_cur - t_i, t_i * spec["T_mult"]
    elif kind == "SequentialLR":
        ms = spec["milestones"]
        for e in range(n + 1):
            idx = bisect.bisect_right(ms, e)
            k, s = spec["schedulers"][idx]
            sub = e - (ms[idx - 1] if idx else 0)
            lrs.append([closed_rate(k, s, b, sub, i) for i, b in enumerate(bases)])
    elif kind == "ChainedScheduler":
        for e in range(n + 1):
            row = []
            for i, b in enumerate(bases):
                r = b
                for k, s in spec["schedulers"]:
                    r *= closed_rate(k, s, b, e, i) / b
                row.append(r)
            lrs.append(row)
    elif kind == "OneCycleLR":
        total = spec.get("total_steps") or spec["epochs"] * spec["steps_per_epoch"]
        pct = spec["pct_start"]
        maxes = _per(spec["max_lr"], g)
        inits = [m / spec["div_factor"] for m in maxes]
        mins = [i / spec["final_div_factor"] for i in inits]
        lo_m, hi_m = spec["base_momentum"], spec["max_momentum"]
        if spec["three_phase"]:
            ends = [pct * total - 1, 2 * pct * total - 2, total - 1]
            pts = [[i, m, i, lo] for i, m, lo in zip(inits, maxes, mins)]
            mpts = [hi_m, lo_m, hi_m, hi_m]
        else:
            ends = [pct * total - 1, total - 1]
            pts = [[i, m, lo] for i, m, lo in zip(inits, maxes, mins)]
            mpts = [hi_m, lo_m, hi_m]
        for e in range(min(n, total) + 1):
            start = 0.0
            for ph, end in enumerate(ends):
                if e <= end or ph == len(ends) - 1:
                    frac = (e - start) / (end - start)
                    lrs.append(
                        [_anneal(spec["anneal_strategy"], p[ph], p[ph + 1], frac) for p in pts]
                    )
                    moms.append(_anneal(spec["anneal_strategy"], mpts[ph], mpts[ph + 1], frac))
                    break
                start = end
    elif kind == "CyclicLR":
        base_lrs, hi = _per(spec["base_lr"], g), spec["max_lr"]
        up = spec["step_size_up"]
        down = up if spec["step_size_down"] is None else spec["step_size_down"]
        size, ratio = up + down, up / (up + down)
        if "scale_fn" in spec:
            fn, by_cycle = SCALE_FNS[spec["scale_fn"]], spec["scale_mode"] == "cycle"
        elif spec["mode"] == "triangular":
            fn, by_cycle = (lambda x: 1.0), True
        elif spec["mode"] == "triangular2":
            fn, by_cycle = (lambda x: 1 / (2.0 ** (x - 1))), True
        else:
            fn, by_cycle = (lambda x: spec["gamma"] ** x), False
        for e in range(n + 1):
            cycle = math.floor(1 + e / size)
            x = 1.0 + e / size - cycle
            frac = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
            scale = fn(cycle if by_cycle else e)
            lrs.append([b + (hi - b) * frac * scale for b in base_lrs])
            lo_m, hi_m = spec["base_momentum"], spec["max_momentum"]
            moms.append(hi_m - (hi_m - lo_m) * frac * scale)
    else:
        raise AssertionError(kind)
    return lrs, (moms or None)


def ref_plateau(spec, lrs, metrics):
    """ReduceLROnPlateau's rates after each metric (PyTorch's algorithm)."""
    mode, thr, rel = spec["mode"], spec["threshold"], spec["threshold_mode"] == "rel"
    best = math.inf if mode == "min" else -math.inf
    bad = cool = 0
    lrs, out = list(lrs), []
    mins = _per(spec["min_lr"], len(lrs))
    for m in metrics:
        if mode == "min":
            better = m < (best * (1 - thr) if rel else best - thr)
        else:
            better = m > (best * (1 + thr) if rel else best + thr)
        if better:
            best, bad = m, 0
        else:
            bad += 1
        if cool > 0:
            cool, bad = cool - 1, 0
        if bad > spec["patience"]:
            for i, old in enumerate(lrs):
                new = max(old * spec["factor"], mins[i])
                if old - new > spec["eps"]:
                    lrs[i] = new
            cool, bad = spec["cooldown"], 0
        out.append(list(lrs))
    return out


# ==================================================================== scheduler tests
SCHEDULERS = [
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "LinearLR",
    "ConstantLR",
    "PolynomialLR",
    "LambdaLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "CyclicLR",
    "SequentialLR",
    "ChainedScheduler",
]


def _sched_opt(draw, bases, kind, key=None):
    """An optimizer with one group per base rate: SGD with momentum, or Adam (whose
    beta1 the cycling schedules move)."""
    params = [{"params": [fg.zeros(2, requires_grad=True)], "lr": b} for b in bases]
    if key is None:
        key = (
            "momentum" if kind not in ("OneCycleLR", "CyclicLR") or draw(st.booleans()) else "betas"
        )
    if key == "momentum":
        return fg.optim.SGD(params, lr=0.1, momentum=0.9), "momentum"
    return fg.optim.Adam(params, lr=0.1, betas=(0.9, 0.99)), "betas"


def _momentum(group, key):
    return group["momentum"] if key == "momentum" else group["betas"][0]


@FUZZ
@pytest.mark.parametrize("kind", SCHEDULERS)
@given(data=st.data())
def test_lr_schedulers(kind, data):
    draw = data.draw
    n_groups = draw(st.integers(1, 3))
    bases = [draw(st.floats(1e-3, 1.0)) for _ in range(n_groups)]
    spec = draw_sched(draw, kind, n_groups)
    n = draw(st.integers(0, 40))
    if kind == "OneCycleLR":
        total = spec.get("total_steps") or spec["epochs"] * spec["steps_per_epoch"]
        n = min(n, total)
        # a phase of length 0 (pct_start * total == 1): PyTorch divides by zero
        ends = [spec["pct_start"] * total - 1, total - 1]
        if spec["three_phase"]:
            ends.insert(1, 2 * spec["pct_start"] * total - 2)
        if any(b == a for a, b in zip([0.0, *ends], ends)):
            return
    if kind == "ChainedScheduler":
        n = min(n, min((s["T_max"] for k, s in spec["schedulers"] if "T_max" in s), default=n))
    opt, key = _sched_opt(draw, bases, kind)
    sched = build_sched(fg, opt, kind, spec)
    lrs, moms = ref_schedule(kind, spec, bases, n)
    split = draw(st.integers(0, n))
    twin = None
    for e in range(n + 1):
        if e == split and e > 0:
            opt2 = _sched_opt(None, bases, kind, key)[0]
            sched2 = build_sched(fg, opt2, kind, spec)
            opt2.load_state_dict(opt.state_dict())
            sched2.load_state_dict(sched.state_dict())
            twin = (opt2, sched2)
            CALLS["sched.load_state_dict"] += 1
        for o, s in ((opt, sched), *([twin] if twin else [])):
            got = [g["lr"] for g in o.param_groups]
            np.testing.assert_allclose(
                got, lrs[e], rtol=1e-12, atol=1e-15, err_msg=f"{kind} {spec} epoch {e}"
            )
            np.testing.assert_allclose(
                s.get_last_lr(), lrs[e], rtol=1e-12, atol=1e-15, err_msg=f"{kind} last_lr"
            )
            if moms is not None and spec["cycle_momentum"]:
                m = [_momentum(g, key) for g in o.param_groups]
                np.testing.assert_allclose(
                    m, [moms[e]] * n_groups, rtol=1e-12, err_msg=f"{kind} momentum {e}"
                )
            CALLS[f"sched.{kind}"] += 1
        if e < n:
            for o, s in ((opt, sched), *([twin] if twin else [])):
                o.step()
                s.step()


@FUZZ
@given(data=st.data())
def test_warm_restarts_fractional_epochs(data):
    """CosineAnnealingWarmRestarts.step(epoch) with fractional epochs: PyTorch's formula
    for T_cur and T_i."""
    draw = data.draw
    spec = draw_sched(draw, "CosineAnnealingWarmRestarts", 1)
    base = draw(st.floats(1e-3, 1.0))
    opt = fg.optim.SGD([fg.zeros(2, requires_grad=True)], lr=base)
    sched = build_sched(fg, opt, "CosineAnnealingWarmRestarts", spec)
    t0, tm, lo = spec["T_0"], spec["T_mult"], spec["eta_min"]
    for _ in range(draw(st.integers(1, 10))):
        e = draw(st.integers(0, 60)) + draw(st.sampled_from([0.25, 0.5, 0.1, 0.9]))
        sched.step(e)
        if e < t0:
            t_cur, t_i = e, t0
        elif tm == 1:
            t_cur, t_i = e % t0, t0
        else:
            k = 0
            while t0 * (tm ** (k + 1) - 1) / (tm - 1) <= e:
                k += 1
            t_cur, t_i = e - t0 * (tm**k - 1) / (tm - 1), t0 * tm**k
        want = lo + (base - lo) * (1 + math.cos(math.pi * t_cur / t_i)) / 2
        CALLS["sched.CosineAnnealingWarmRestarts"] += 1
        np.testing.assert_allclose(opt.param_groups[0]["lr"], want, rtol=1e-11, atol=1e-15)
        assert sched.last_epoch == math.floor(e)


@FUZZ
@given(data=st.data())
def test_reduce_lr_on_plateau(data):
    draw = data.draw
    n_groups = draw(st.integers(1, 3))
    bases = [draw(st.floats(1e-3, 1.0)) for _ in range(n_groups)]
    spec = dict(
        mode=draw(st.sampled_from(["min", "max"])),
        factor=draw(st.floats(0.05, 0.9)),
        patience=draw(st.integers(0, 4)),
        threshold=draw(st.sampled_from([1e-4, 0.0, 0.1, 1.0])),
        threshold_mode=draw(st.sampled_from(["rel", "abs"])),
        cooldown=draw(st.integers(0, 3)),
        min_lr=draw(st.sampled_from([0.0, 1e-3]))
        if draw(st.booleans())
        else [draw(st.sampled_from([0.0, 1e-4, 0.01])) for _ in range(n_groups)],
        eps=draw(st.sampled_from([1e-8, 1e-3])),
    )
    metrics = draw(
        st.lists(st.sampled_from([1.0, 0.5, 0.9999, 2.0, -1.0, 0.0, 3.0, 0.49]), max_size=30)
    )
    opt = fg.optim.SGD(
        [{"params": [fg.zeros(2, requires_grad=True)], "lr": b} for b in bases], lr=0.1
    )
    sched = fg.optim.lr_scheduler.ReduceLROnPlateau(opt, **spec)
    want = ref_plateau(spec, bases, metrics)
    split = draw(st.integers(0, len(metrics)))
    twin = None
    for k, m in enumerate(metrics):
        if k == split:
            opt2 = fg.optim.SGD([{"params": [fg.zeros(2)], "lr": b} for b in bases], lr=0.1)
            sched2 = fg.optim.lr_scheduler.ReduceLROnPlateau(opt2, **spec)
            opt2.load_state_dict(opt.state_dict())
            sched2.load_state_dict(sched.state_dict())
            twin = (opt2, sched2)
        for o, s in ((opt, sched), *([twin] if twin else [])):
            s.step(m if draw(st.booleans()) else fg.tensor(m, dtype="float64"))
            CALLS["sched.ReduceLROnPlateau"] += 1
            got = [g["lr"] for g in o.param_groups]
            np.testing.assert_allclose(
                got, want[k], rtol=1e-12, err_msg=f"{spec} {metrics[: k + 1]}"
            )
            np.testing.assert_allclose(s.get_last_lr(), want[k], rtol=1e-12)


@FUZZ
@given(data=st.data())
def test_differentiable_steps(data):
    """SGD / Adam / AdamW with differentiable=True: the values equal the reference's, and
    the gradients of the parameter after a few steps with respect to its start and a 0-d
    tensor learning rate equal central differences (gradcheck; gradients p * c, away
    from AMSGrad's max and sqrt's kink at 0)."""
    draw = data.draw
    name = draw(st.sampled_from(["SGD", "Adam", "AdamW"]))
    hp = {**OPTIMIZERS[name][1], **draw_hp(draw, name)}
    if name == "AdamW":
        hp["decoupled_weight_decay"] = True
    hp["amsgrad"] = False
    if name == "SGD":
        # PyTorch's first momentum buffer is a detached copy of the gradient, so with
        # momentum the recorded graph is not the function's derivative
        hp.update(momentum=0.0, nesterov=False)
    kw = {k: v for k, v in hp.items() if k in OPTIMIZERS[name][1] and k not in ("lr", "amsgrad")}
    if name != "SGD":
        kw["amsgrad"] = False
    c = _values(draw, (3,), 0.5, 2.0)
    w0 = _values(draw, (3,), 0.3, 2.0) * np.array([1, -1, 1])
    n_steps = draw(st.integers(1, 3))

    def run(w, lr):
        p = w.clone()
        opt = getattr(fg.optim, name)([p], lr=lr, differentiable=True, **kw)
        for _ in range(n_steps):
            p.grad = p * fg.tensor(c)
            opt.step()
        return p

    want, stt = w0.copy(), {}
    for k in range(n_steps):
        stt["step"] = k + 1
        want = _ref_wrap(OPTIMIZERS[name][0])(want, want * c, stt, hp, "float64")
    got = run(fg.tensor(w0), fg.tensor(hp["lr"], dtype="float64"))
    CALLS["optim.differentiable"] += 1
    # Adam's differentiable step keeps `step` as PyTorch does: a float32 0-d tensor
    # (float64 only under a float64 default dtype), so its bias corrections are float32's
    # (1 - beta ** step rounded in float32 loses digits as beta nears 1)
    atol = 0.0
    if name != "SGD":
        atol = 1e-6 * hp["lr"] * n_steps * sum(1 / (1 - b) for b in hp["betas"])
    np.testing.assert_allclose(
        got.detach().numpy(), want, rtol=1e-10, atol=atol, err_msg=f"{name} differentiable {hp}"
    )
    w = fg.tensor(w0).requires_grad_(True)
    lr = fg.tensor(hp["lr"], dtype="float64").requires_grad_(True)
    CALLS["gradcheck"] += 1
    assert fg.autograd.gradcheck(run, (w, lr), eps=1e-6, atol=1e-5, rtol=1e-4)


# ==================================================================== regressions


def test_warm_restarts_log_rounding_regression():
    opt = fg.optim.SGD([fg.zeros(2, requires_grad=True)], lr=1.0)
    sched = fg.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=1, T_mult=10)
    for _ in range(111):
        sched.step()
    # torch 2.15: epoch 111 starts the fourth period (T_cur = 0, T_i = 1000)
    assert opt.param_groups[0]["lr"] == 1.0


def test_warm_restarts_fraction_then_step_regression():
    opt = fg.optim.SGD([fg.zeros(2, requires_grad=True)], lr=1.0)
    sched = fg.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4)
    sched.step(2.5)
    sched.step()
    # torch 2.15: 0.03806023374435663
    assert opt.param_groups[0]["lr"] == pytest.approx((1 + math.cos(math.pi * 3.5 / 4)) / 2)


def test_rmsprop_load_torch_layout_centered_regression():
    def make():
        q = fg.tensor([1.0, -2.0, 3.0], dtype="float64", requires_grad=True)
        return q, fg.optim.RMSprop([q], lr=0.1, centered=True)

    q, opt = make()
    q.grad = fg.tensor([0.5, 1.0, -1.5], dtype="float64")
    opt.step()
    sd = opt.state_dict()
    # what torch 2.15 saves for RMSprop(centered=True, momentum=0)
    sd["state"][0] = {k: sd["state"][0][k] for k in ("step", "square_avg", "grad_avg")}
    q2, opt2 = make()
    with fg.no_grad():
        q2.copy_(q)
    opt2.load_state_dict(sd)
    for p, o in ((q, opt), (q2, opt2)):
        p.grad = fg.tensor([0.25, -1.0, 2.0], dtype="float64")
        o.step()
    np.testing.assert_array_equal(q2.detach().numpy(), q.detach().numpy())
