"""Differential fuzzer for Paddle's optimizers, learning-rate schedulers and gradient
clipping, and PyTorch's clipping utilities.

(1) ``paddle.optimizer.SGD / Momentum / Adam / AdamW / Adamax / Adagrad / Adadelta /
RMSProp / Lamb / NAdam / RAdam / ASGD / Rprop`` run several steps on random float32 /
float64 parameters with random gradients (from ``loss.backward()``), with
``weight_decay`` as a float, ``L2Decay`` or ``L1Decay``, per-parameter
``ParamAttr(regularizer=...)`` regularizers, parameter groups, ``grad_clip`` objects,
``step()`` / ``minimize(loss)``, ``clear_grad()`` / ``clear_gradients()``; after every
step the parameters, and at the end the accumulators, are compared with a float64 NumPy
reference written from Paddle's update rules (python/paddle/optimizer/*.py and the phi
kernels: Adam's ``epsilon * sqrt(1 - beta2^t)``, Adamax's ``max(beta2 u + eps, |g|)``,
RMSProp's epsilon under the square root and the rate inside the momentum buffer,
Momentum's ``g * rescale_grad + coeff * p``, clipping before regularization); a
``state_dict`` / ``set_state_dict`` round trip must continue exactly.
(2) every scheduler of ``paddle.optimizer.lr`` against a transcription of Paddle's
``get_lr`` (sequential ``step()`` and ``step(epoch)``), ``state_dict`` round trips, and an
optimizer driven by one. (3) ``torch.nn.utils.clip_grad_norm_`` / ``clip_grad_value_`` /
``get_total_norm`` / ``clip_grads_with_norm_`` / ``parameters_to_vector`` /
``vector_to_parameters`` against PyTorch's documented formulas.
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ
from hypothesis import given
from hypothesis import strategies as st

paddle = fg  # the dialect rule reads this global: this module's calls are Paddle's

TOL = {"float64": (1e-9, 1e-12), "float32": (1e-4, 2e-5)}
LRS = [0.5, 0.25, 0.125, 0.0625, 0.015625]
FACTORS = [1.0, 1.0, 0.5, 2.0]
KINDS = [
    "SGD",
    "Momentum",
    "Adam",
    "AdamW",
    "Adamax",
    "Adagrad",
    "Adadelta",
    "RMSProp",
    "Lamb",
    "NAdam",
    "RAdam",
    "ASGD",
    "Rprop",
]
#: optimizers whose ``weight_decay`` is a regularizer (float, L2Decay or L1Decay)
COUPLED = {"SGD", "Momentum", "Adam", "Adamax", "Adagrad", "Adadelta", "RMSProp"}
COUPLED |= {"NAdam", "RAdam", "ASGD"}


def close(got, want, dtype, what, scale=None):
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    rtol, atol = TOL[dtype]
    s = 1.0 + np.abs(w) if scale is None else scale
    bad = np.abs(g - w) > atol * s + rtol * np.abs(w)
    assert not bad.any(), f"{what}: got {g[bad]}, expected {w[bad]}"


# ------------------------------------------------------------ reference optimizers
def _drawn_hp(kind, data):
    """The hyper-parameters of one optimizer (Paddle's names)."""
    d = data.draw
    beta1 = d(st.sampled_from([0.0, 0.5, 0.9]))
    beta2 = d(st.sampled_from([0.9, 0.99, 0.999]))
    hp = {}
    if kind == "Momentum":
        hp = dict(
            momentum=d(st.sampled_from([0.0, 0.5, 0.9])),
            use_nesterov=d(st.booleans()),
            rescale_grad=d(st.sampled_from([1.0, 1.0, 0.5, 2.0])),
        )
    elif kind in ("Adam", "AdamW"):
        hp = dict(beta1=beta1, beta2=beta2, epsilon=d(st.sampled_from([1e-8, 1e-3, 0.5])))
        hp["tensor_betas"] = d(st.booleans())
        hp["amsgrad"] = d(st.booleans())
        if kind == "AdamW":
            hp["weight_decay"] = d(st.sampled_from([0.0, 0.01, 0.3]))
            hp["decay_fun"] = d(st.booleans())
            hp["lr_ratio"] = d(st.booleans())
    elif kind == "Adamax":
        hp = dict(beta1=beta1, beta2=beta2, epsilon=d(st.sampled_from([1e-8, 1e-3, 0.5])))
    elif kind == "Adagrad":
        hp = dict(
            epsilon=d(st.sampled_from([1e-6, 1e-3, 0.5])),
            initial_accumulator_value=d(st.sampled_from([0.0, 0.1, 1.0])),
        )
    elif kind == "Adadelta":
        hp = dict(rho=d(st.sampled_from([0.5, 0.9, 0.95])), epsilon=d(st.sampled_from([1e-6, 0.1])))
    elif kind == "RMSProp":
        hp = dict(
            rho=d(st.sampled_from([0.5, 0.9, 0.95])),
            epsilon=d(st.sampled_from([1e-6, 1e-3, 0.5])),
            momentum=d(st.sampled_from([0.0, 0.5, 0.9])),
            centered=d(st.booleans()),
        )
    elif kind == "Lamb":
        hp = dict(
            lamb_weight_decay=d(st.sampled_from([0.0, 0.01, 0.3])),
            beta1=beta1,
            beta2=beta2,
            epsilon=d(st.sampled_from([1e-6, 1e-3])),
            exclude=d(st.booleans()),
            always_adapt=d(st.booleans()),
        )
    elif kind == "NAdam":
        hp = dict(
            beta1=beta1,
            beta2=beta2,
            epsilon=d(st.sampled_from([1e-8, 1e-3])),
            momentum_decay=d(st.sampled_from([0.004, 0.1])),
        )
    elif kind == "RAdam":
        # beta2 small enough that rho_t > 5 after a few steps (both branches run)
        hp = dict(beta1=beta1, beta2=d(st.sampled_from([0.5, 0.8, 0.999])), epsilon=1e-8)
    elif kind == "ASGD":
        hp = dict(batch_num=d(st.integers(1, 3)))
    elif kind == "Rprop":
        hp = dict(
            learning_rate_range=d(st.sampled_from([(1e-5, 50.0), (0.01, 0.3)])),
            etas=d(st.sampled_from([(0.5, 1.2), (0.3, 2.0)])),
        )
    return hp


def _excluded(name):
    return name.endswith("b")  # the "bias" parameters


def _ratio(name):
    return 0.5 if name.endswith("b") else 1.0


def ref_update(kind, hp, st_, p, g, lr, name, dtype):
    """One step of ``kind`` on parameter ``p`` (float64) with the gradient ``g`` that
    the update reads (clipped, regularized); ``st_`` holds the accumulators. Paddle's
    kernels, transcribed."""
    t = st_["t"] = st_.get("t", 0) + 1
    if kind == "SGD":
        return p - lr * g
    if kind == "Momentum":
        mu = hp["momentum"]
        v = st_["momentum_buffer"] = mu * st_.get("momentum_buffer", 0 * p) + g
        return p - lr * (g + mu * v) if hp["use_nesterov"] else p - lr * v
    if kind in ("Adam", "AdamW"):
        b1, b2 = hp["beta1"], hp["beta2"]
        if hp["tensor_betas"]:
            b1, b2 = float(np.float32(b1)), float(np.float32(b2))
        eps = hp["epsilon"]
        if kind == "AdamW":
            ratio = _ratio(name) if hp["lr_ratio"] else 1.0
            lr = lr * ratio
            decayed = not hp["decay_fun"] or not _excluded(name)
            if decayed:
                p = p * (1.0 - lr * hp["weight_decay"])
        m = st_["exp_avg"] = b1 * st_.get("exp_avg", 0 * p) + (1 - b1) * g
        v = st_["exp_avg_sq"] = b2 * st_.get("exp_avg_sq", 0 * p) + (1 - b2) * g * g
        if hp["amsgrad"]:
            v = st_["max_exp_avg_sq"] = np.maximum(st_.get("max_exp_avg_sq", 0 * p), v)
        lr_t = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        return p - lr_t * m / (np.sqrt(v) + eps * math.sqrt(1 - b2**t))
    if kind == "Adamax":
        b1, b2, eps = hp["beta1"], hp["beta2"], hp["epsilon"]
        m = st_["exp_avg"] = b1 * st_.get("exp_avg", 0 * p) + (1 - b1) * g
        u = st_["exp_inf"] = np.maximum(b2 * st_.get("exp_inf", 0 * p) + eps, np.abs(g))
        return p - lr / (1 - b1**t) * m / u
    if kind == "Adagrad":
        s = st_.get("sum", 0 * p + hp["initial_accumulator_value"])
        s = st_["sum"] = s + g * g
        return p - lr * g / (np.sqrt(s) + hp["epsilon"])
    if kind == "Adadelta":
        rho, eps = hp["rho"], hp["epsilon"]
        v = st_["square_avg"] = rho * st_.get("square_avg", 0 * p) + (1 - rho) * g * g
        u0 = st_.get("acc_delta", 0 * p)
        upd = -np.sqrt((u0 + eps) / (v + eps)) * g
        st_["acc_delta"] = rho * u0 + (1 - rho) * upd * upd
        return p + lr * upd
    if kind == "RMSProp":
        rho, eps, mu = hp["rho"], hp["epsilon"], hp["momentum"]
        ms = st_["square_avg"] = rho * st_.get("square_avg", 0 * p) + (1 - rho) * g * g
        if hp["centered"]:
            mg = st_["grad_avg"] = rho * st_.get("grad_avg", 0 * p) + (1 - rho) * g
            den = np.sqrt(ms - mg * mg + eps)
        else:
            den = np.sqrt(ms + eps)
        mom = st_["momentum_buffer"] = mu * st_.get("momentum_buffer", 0 * p) + lr * g / den
        return p - mom
    if kind == "Lamb":
        b1, b2, eps = hp["beta1"], hp["beta2"], hp["epsilon"]
        excluded = hp["exclude"] and _excluded(name)
        wd = 0.0 if excluded else hp["lamb_weight_decay"]
        m = st_["moment1"] = b1 * st_.get("moment1", 0 * p) + (1 - b1) * g
        v = st_["moment2"] = b2 * st_.get("moment2", 0 * p) + (1 - b2) * g * g
        r = (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps) + wd * p
        trust = 1.0
        if hp["always_adapt"] or not excluded:
            pn, rn = np.linalg.norm(p), np.linalg.norm(r)
            if pn > 0 and rn > 0:
                trust = pn / rn
        return p - lr * trust * r
    if kind == "NAdam":
        b1, b2, eps, md = hp["beta1"], hp["beta2"], hp["epsilon"], hp["momentum_decay"]

        def mu_at(i):
            return b1 * (1 - 0.5 * 0.96 ** (i * md))

        mu_t, mu_t1 = mu_at(t), mu_at(t + 1)
        prod = st_["mu_product"] = st_.get("mu_product", 1.0) * mu_t
        m = st_["exp_avg"] = b1 * st_.get("exp_avg", 0 * p) + (1 - b1) * g
        v = st_["exp_avg_sq"] = b2 * st_.get("exp_avg_sq", 0 * p) + (1 - b2) * g * g
        m_hat = mu_t1 * m / (1 - prod * mu_t1) + (1 - mu_t) * g / (1 - prod)
        return p - lr * m_hat / (np.sqrt(v / (1 - b2**t)) + eps)
    if kind == "RAdam":
        b1, b2, eps = hp["beta1"], hp["beta2"], hp["epsilon"]
        m = st_["exp_avg"] = b1 * st_.get("exp_avg", 0 * p) + (1 - b1) * g
        v = st_["exp_avg_sq"] = b2 * st_.get("exp_avg_sq", 0 * p) + (1 - b2) * g * g
        m_hat = m / (1 - b1**t)
        rho_inf = 2 / (1 - b2) - 1
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho > 5:
            lt = math.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
            rt = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
            return p - lr * m_hat * rt * lt
        return p - lr * m_hat
    if kind == "ASGD":
        n = hp["batch_num"]
        m = st_.get("m", 0)
        i = m % n
        ys = st_.get("y", np.zeros((n, *p.shape)))
        d = st_["d"] = st_.get("d", 0 * p) - ys[i] + g
        ys = ys.copy()
        ys[i] = g
        st_["y"], st_["m"] = ys, m + 1
        return p - lr / min(m + 1, n) * d
    if kind == "Rprop":
        lo, hi = hp["learning_rate_range"]
        eneg, epos = hp["etas"]
        prev = st_.get("prev", 0 * p)
        size = st_.get("step_size", 0 * p + lr)
        prod = g * prev
        eta = np.where(prod > 0, epos, np.where(prod < 0, eneg, 1.0))
        size = st_["step_size"] = np.clip(size * eta, lo, hi)
        g = np.where(prod < 0, 0.0, g)
        st_["prev"] = g
        return p - np.sign(g) * size
    raise AssertionError(kind)


def reg_term(reg, p):
    """A regularizer's gradient term: ``("l1" | "l2", coeff)``."""
    if reg is None:
        return 0 * p
    what, c = reg
    return c * np.sign(p) if what == "l1" else c * p


def fg_reg(reg):
    if reg is None:
        return None
    what, c = reg
    return paddle.regularizer.L1Decay(c) if what == "l1" else paddle.regularizer.L2Decay(c)


def ref_clip(clip, grads, need):
    """Paddle's clip objects on the float64 gradients (None: no gradient)."""
    if clip is None:
        return grads
    what, c = clip
    out = list(grads)
    if what == "value":
        return [g if g is None or not n else np.clip(g, -c, c) for g, n in zip(grads, need)]
    if what == "norm":
        for i, (g, n) in enumerate(zip(grads, need)):
            if g is not None and n:
                norm = np.linalg.norm(g)
                if norm > c:
                    out[i] = g * (c / norm)
        return out
    sq = sum(float((g * g).sum()) for g, n in zip(grads, need) if g is not None and n)
    scale = c / max(math.sqrt(sq), c)
    return [g * scale if g is not None and n else g for g, n in zip(grads, need)]


def fg_clip(clip):
    if clip is None:
        return None
    what, c = clip
    if what == "value":
        return paddle.nn.ClipGradByValue(c)
    if what == "norm":
        return paddle.nn.ClipGradByNorm(c)
    return paddle.nn.ClipGradByGlobalNorm(c)


def build(kind, hp, lr, params, groups, wd, clip=None):
    """The ferrograd optimizer for the drawn configuration; ``groups`` is None (a plain
    list) or ``[(indices, scale, group weight_decay or None), ...]``."""
    kw = {k: v for k, v in hp.items() if k not in ("tensor_betas", "decay_fun", "lr_ratio")}
    kw.pop("exclude", None)
    if hp.get("tensor_betas"):
        kw["beta1"] = paddle.to_tensor(hp["beta1"], dtype="float32")
        kw["beta2"] = paddle.to_tensor(hp["beta2"], dtype="float32")
    if kind == "AdamW":
        if hp["decay_fun"]:
            kw["apply_decay_param_fun"] = lambda n: not _excluded(n)
        if hp["lr_ratio"]:
            kw["lr_ratio"] = lambda p: _ratio(p.name)
    if kind == "Lamb" and hp["exclude"]:
        kw["exclude_from_weight_decay_fn"] = lambda p: _excluded(p.name)
    if wd is not None:
        kw["weight_decay"] = wd[1] if wd[0] == "float" else fg_reg((wd[0], wd[1]))
    if groups is None:
        ps = list(params)
    else:
        ps = []
        for idx, scale, gwd in groups:
            g = {"params": [params[i] for i in idx]}
            if scale != 1.0:
                g["learning_rate"] = scale
            if gwd is not None:
                g["weight_decay"] = gwd
            ps.append(g)
    if clip is not None:
        kw["grad_clip"] = fg_clip(clip)
    return getattr(paddle.optimizer, kind)(learning_rate=lr, parameters=ps, **kw)


@st.composite
def optim_case(draw):
    kind = draw(st.sampled_from(KINDS))
    data = _Draw(draw)
    hp = _drawn_hp(kind, data)
    dtype = draw(st.sampled_from(["float32", "float64"]))
    n = draw(st.integers(1, 3))
    shapes = [tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))) for _ in range(n)]
    lr = draw(st.sampled_from(LRS))
    if kind == "Rprop":
        lo, hi = hp["learning_rate_range"]
        lr = min(max(lr, lo), hi)
    wd = None
    if kind in COUPLED and draw(st.booleans()):
        wd = (draw(st.sampled_from(["float", "l2", "l1"])), draw(st.sampled_from([0.01, 0.2])))
    regs = [
        draw(st.sampled_from([None, None, ("l2", 0.1), ("l1", 0.05)])) if kind != "Rprop" else None
        for _ in range(n)
    ]
    groups = None
    if n >= 2 and draw(st.booleans()):
        cut = draw(st.integers(1, n - 1))
        scale = draw(st.sampled_from([1.0, 0.5, 2.0]))
        gwd = None
        if kind in COUPLED or kind == "AdamW":
            gwd = draw(st.sampled_from([None, 0.0, 0.05]))
        groups = [(list(range(cut)), 1.0, None), (list(range(cut, n)), scale, gwd)]
    clip = draw(
        st.sampled_from([None, ("value", 0.7), ("norm", 1.0), ("global", 1.5), ("global", 100.0)])
    )
    need = [draw(st.sampled_from([True, True, True, False])) for _ in range(n)]
    # ParamAttr(learning_rate=f): the parameter's rate is f times its group's
    factors = [1.0 if kind == "Rprop" else draw(st.sampled_from(FACTORS)) for _ in range(n)]
    seed = draw(st.integers(0, 2**32 - 1))
    steps = draw(st.integers(1, 5))
    return kind, hp, dtype, shapes, lr, wd, regs, groups, clip, need, factors, seed, steps


class _Draw:
    def __init__(self, draw):
        self.draw = draw


def _param(a, dtype, name, reg, need, factor):
    attr = paddle.ParamAttr(
        name=name, regularizer=fg_reg(reg), need_clip=need, learning_rate=factor
    )
    return paddle.create_parameter(
        list(a.shape),
        dtype,
        name=name,
        attr=attr,
        default_initializer=paddle.nn.initializer.Assign(a.astype(dtype)),
    )


def _settings(kind, hp, lr, wd, groups, factors):
    """Per parameter: (lr, optimizer regularizer, AdamW decay coefficient, group hp)."""
    n = len(factors)
    scale = [1.0] * n
    gwd = [None] * n
    for idx, s, w in groups or []:
        for i in idx:
            scale[i], gwd[i] = s, w
    out = []
    for i in range(n):
        opt_reg = None
        if kind in COUPLED:
            w = wd
            if gwd[i] is not None:
                w = ("float", gwd[i])
            if w is not None and w[1] != 0.0:
                opt_reg = ("l1" if w[0] == "l1" else "l2", w[1])
        h = dict(hp)
        if kind == "AdamW" and gwd[i] is not None:
            h["weight_decay"] = gwd[i]
        out.append((lr * scale[i] * factors[i], opt_reg, h))
    return out


@FUZZ
@given(optim_case())
def test_optimizer_steps(case):
    kind, hp, dtype, shapes, lr, wd, regs, groups, clip, need, factors, seed, steps = case
    rng = np.random.default_rng(seed)
    n = len(shapes)
    names = [f"p{i}" + ("b" if i % 2 else "w") for i in range(n)]
    init = [rng.uniform(-2, 2, s).astype(dtype).astype(np.float64) for s in shapes]
    params = [
        _param(a, dtype, nm, r, nd, f) for a, nm, r, nd, f in zip(init, names, regs, need, factors)
    ]
    opt = build(kind, hp, lr, params, groups, wd, clip)
    per = _settings(kind, hp, lr, wd, groups, factors)
    ref_p = [a.copy() for a in init]
    ref_st = [{} for _ in range(n)]
    has_grad = [False] * n
    for _ in range(steps):
        grads = [rng.uniform(-3, 3, s).astype(dtype).astype(np.float64) for s in shapes]
        used = [bool(rng.random() < 0.85) for _ in range(n)]
        if not any(used):
            used[0] = True
        loss = None
        for i in range(n):
            if used[i]:
                term = (params[i] * paddle.to_tensor(grads[i], dtype=dtype)).sum()
                loss = term if loss is None else loss + term
        loss.backward()
        eff = [grads[i] if used[i] else (0 * grads[i] if has_grad[i] else None) for i in range(n)]
        how = rng.integers(0, 2)
        if how == 0:
            opt.step()
        else:
            _, pairs = opt.minimize(loss)
            assert len(pairs) == sum(g is not None for g in eff)
        clipped = ref_clip(clip, eff, need)
        for i in range(n):
            g = clipped[i]
            if g is None:
                continue
            plr, opt_reg, h = per[i]
            own = regs[i]
            g = g + reg_term(own if own is not None else opt_reg, ref_p[i])
            if kind == "Momentum":
                # Paddle's fused kernel: L2 after the rescale, L1 before
                reg = own if own is not None else opt_reg
                raw = clipped[i] + (reg_term(reg, ref_p[i]) if reg and reg[0] == "l1" else 0)
                l2 = reg_term(reg, ref_p[i]) if reg and reg[0] == "l2" else 0
                g = raw * h["rescale_grad"] + l2
            ref_p[i] = ref_update(kind, h, ref_st[i], ref_p[i], g, plr, names[i], dtype)
        CALLS[f"optimizer.{kind}"] += 1
        for i in range(n):
            close(params[i].numpy(), ref_p[i], dtype, f"{kind} param {i}")
        clear = rng.integers(0, 3)
        if clear == 0:
            opt.clear_grad()
            has_grad = [h or u for h, u in zip(has_grad, used)]
        elif clear == 1:
            opt.clear_gradients()
            has_grad = [h or u for h, u in zip(has_grad, used)]
        else:
            opt.clear_grad(set_to_zero=False)
            has_grad = [False] * n
    # the accumulators
    sd = opt.state_dict()
    flat = _flat_index(opt, params)
    for i in range(n):
        saved = sd["state"].get(flat[i], {})
        for k, v in ref_st[i].items():
            if k in ("t", "m") or k not in saved:
                continue
            if kind == "RMSProp" and k == "momentum_buffer" and hp["momentum"] == 0.0:
                continue  # Paddle writes lr * g / den there; unused at momentum 0
            got = saved[k]
            got = got.numpy() if hasattr(got, "numpy") else got
            close(got, v, dtype, f"{kind} state {k} of param {i}")
    # a round trip into a fresh optimizer continues exactly
    twins = [
        _param(p.numpy().astype(np.float64), dtype, nm, r, nd, f)
        for p, nm, r, nd, f in zip(params, names, regs, need, factors)
    ]
    opt2 = build(kind, hp, lr, twins, groups, wd, clip)
    opt2.set_state_dict(sd)
    grads = [rng.uniform(-3, 3, s).astype(dtype) for s in shapes]
    for o, ps in ((opt, params), (opt2, twins)):
        o.clear_grad(set_to_zero=False)
        for p, g in zip(ps, grads):
            p.grad = paddle.to_tensor(g, dtype=dtype)
        o.step()
    CALLS["optimizer.state_dict"] += 1
    for a, b in zip(params, twins):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=f"{kind} round trip")


def _flat_index(opt, params):
    """The state_dict index of each parameter (indices run across the groups)."""
    out = {}
    idx = 0
    for g in opt.param_groups:
        for p in g["params"]:
            for i, q in enumerate(params):
                if q is p:
                    out[i] = idx
            idx += 1
    return out


# ------------------------------------------------------------ schedulers
class RefSched:
    """Paddle's schedulers (python/paddle/optimizer/lr.py), transcribed: ``step()``
    sets ``last_lr = get_lr()`` from the new ``last_epoch`` (and the previous
    ``last_lr`` for the recursive ones); ``step(epoch)`` uses the closed form where
    Paddle has one."""

    def __init__(self, kind, cfg):
        self.kind, self.cfg = kind, cfg
        self.base_lr = cfg.get("lr", 0.0)
        if kind == "PiecewiseDecay":
            self.base_lr = cfg["values"][0]
        if kind == "OneCycleLR":
            self.base_lr = cfg["max"] / cfg["div"]
        if kind == "CyclicLR":
            self.base_lr = cfg["base"]
        if kind == "LinearWarmup":
            self.base_lr = cfg["start"]
            self.inner = RefSched(*cfg["inner"]) if cfg["inner"] is not None else None
        if kind == "CosineAnnealingWarmRestarts":
            self.t_i, self.t_cur = cfg["T_0"], -1
        self.last_lr = self.base_lr
        self.last_epoch = -1
        self.step()

    def step(self, epoch=None):
        c, k = self.cfg, self.kind
        if k == "CosineAnnealingWarmRestarts":
            if epoch is None and self.last_epoch < 0:
                epoch = 0
            if epoch is None:
                epoch = self.last_epoch + 1
                self.t_cur += 1
                if self.t_cur >= self.t_i:
                    self.t_cur -= self.t_i
                    self.t_i *= c["T_mult"]
            else:
                self.t_cur, self.t_i = _sgdr_position(epoch, c["T_0"], c["T_mult"])
            self.last_epoch = epoch
            self.last_lr = (
                c["eta_min"]
                + (self.base_lr - c["eta_min"])
                * (1 + math.cos(math.pi * self.t_cur / self.t_i))
                / 2
            )
            return
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            if k == "CosineAnnealingDecay":
                self.last_lr = self._cos_closed()
            else:
                self.last_lr = self.get_lr()

    def _cos_closed(self):
        c = self.cfg
        cos = 1 + math.cos(math.pi * self.last_epoch / c["T_max"])
        return c["eta_min"] + (self.base_lr - c["eta_min"]) * cos / 2

    def get_lr(self):
        c, k, e, base = self.cfg, self.kind, self.last_epoch, self.base_lr
        if k == "NoamDecay":
            a = 1 if e == 0 else e**-0.5
            return base * c["d_model"] ** -0.5 * min(a, c["warmup"] ** -1.5 * e)
        if k == "PiecewiseDecay":
            for i, b in enumerate(c["boundaries"]):
                if e < b:
                    return c["values"][i]
            return c["values"][-1]
        if k == "NaturalExpDecay":
            return base * math.exp(-c["gamma"] * e)
        if k == "InverseTimeDecay":
            return base / (1 + c["gamma"] * e)
        if k == "PolynomialDecay":
            num, steps = e, c["decay_steps"]
            if c["cycle"]:
                div = math.ceil(e / steps) if e != 0 else 1
                steps = steps * div
            else:
                num = min(e, steps)
            return (base - c["end_lr"]) * (1 - num / steps) ** c["power"] + c["end_lr"]
        if k == "LinearWarmup":
            if e < c["warmup"]:
                return (c["end"] - c["start"]) * e / c["warmup"] + c["start"]
            if self.inner is not None:
                self.inner.step(e - c["warmup"])
                return self.inner.last_lr
            return c["after"]
        if k == "ExponentialDecay":
            return base * c["gamma"] ** e
        if k == "MultiStepDecay":
            for i, m in enumerate(c["milestones"]):
                if e < m:
                    return base * c["gamma"] ** i
            return base * c["gamma"] ** len(c["milestones"])
        if k == "StepDecay":
            return base * c["gamma"] ** (e // c["step_size"])
        if k == "LambdaDecay":
            return base * _LAMBDAS[c["fn"]](e)
        if k == "MultiplicativeDecay":
            cur = base
            for i in range(1, e + 1):
                cur *= _LAMBDAS[c["fn"]](i)
            return cur
        if k == "CosineAnnealingDecay":
            t_max, eta = c["T_max"], c["eta_min"]
            if e == 0:
                return base
            if (e - 1 - t_max) % (2 * t_max) == 0:
                return self.last_lr + (base - eta) * (1 - math.cos(math.pi / t_max)) / 2
            ratio = (1 + math.cos(math.pi * e / t_max)) / (1 + math.cos(math.pi * (e - 1) / t_max))
            return ratio * (self.last_lr - eta) + eta
        if k == "LinearLR":
            if e == 0:
                return base * c["start_factor"]
            if e > c["total"]:
                return self.last_lr
            d = c["end_factor"] - c["start_factor"]
            return self.last_lr * (1 + d / (c["total"] * c["start_factor"] + (e - 1) * d))
        if k == "OneCycleLR":
            return _one_cycle(c, e)
        if k == "CyclicLR":
            return _cyclic(c, e)
        raise AssertionError(k)


def _sgdr_position(epoch, t0, mult):
    """(T_cur, T_i) at ``epoch`` (Paddle's closed form; the periods summed in integers
    rather than through a logarithm, which ferrograd documents)."""
    if epoch < t0:
        return epoch, t0
    if mult == 1:
        return epoch % t0, t0
    start, t_i = 0, t0
    while epoch >= start + t_i:
        start += t_i
        t_i *= mult
    return epoch - start, t_i


def _one_cycle(c, e):
    total, pct, mx = c["total"], c["pct"], c["max"]
    init = mx / c["div"]
    if c["three_phase"]:
        cfg = [0, pct * total - 1, 2 * pct * total - 2, total - 1, total - 1]
        sizes = [cfg[1] - cfg[0], cfg[2] - cfg[1], cfg[3] - cfg[2], cfg[3] - cfg[2]]
        lrs = [init, mx, init, c["end"]]
    else:
        cfg = [0, pct * total - 1, total - 1, total - 1]
        sizes = [cfg[1] - cfg[0], cfg[2] - cfg[1], cfg[2] - cfg[1]]
        lrs = [init, mx, c["end"]]
    for i, (end, size) in enumerate(zip(cfg[1:], sizes)):
        if e <= end or i == len(lrs) - 2:
            f = (e - cfg[i]) / size
            lo, hi = lrs[i], lrs[i + 1]
            if c["anneal"] == "cos":
                return hi + (lo - hi) / 2.0 * (math.cos(math.pi * f) + 1)
            return (hi - lo) * f + lo
    raise AssertionError


def _cyclic(c, e):
    up = float(c["up"])
    down = float(c["down"]) if c["down"] is not None else up
    size = up + down
    up_pct = up / size
    cycle = 1 + e // size
    x = 1.0 + e / size - cycle
    f = x / up_pct if x <= up_pct else (1 - x) / (1 - up_pct)
    if c["scale_fn"] is not None:
        fn, mode = _LAMBDAS[c["scale_fn"]], c["scale_mode"]
    elif c["mode"] == "triangular":
        fn, mode = (lambda v: 1.0), "cycle"
    elif c["mode"] == "triangular2":
        fn, mode = (lambda v: 1 / (2.0 ** (v - 1))), "cycle"
    else:
        fn, mode = (lambda v: c["gamma"] ** v), "iterations"
    return c["base"] + (c["max"] - c["base"]) * f * fn(cycle if mode == "cycle" else e)


_LAMBDAS = {
    "pow": lambda e: 0.95**e,
    "lin": lambda e: 1.0 / (1.0 + 0.1 * e),
    "const": lambda e: 0.9,
    "half": lambda v: 0.5 ** (v / 4.0),
}
SCHEDS = [
    "NoamDecay",
    "PiecewiseDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "LinearWarmup",
    "ExponentialDecay",
    "MultiStepDecay",
    "StepDecay",
    "LambdaDecay",
    "MultiplicativeDecay",
    "CosineAnnealingDecay",
    "OneCycleLR",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "LinearLR",
]
#: whose step(epoch) jumps agree with sequential stepping in Paddle
JUMPABLE = set(SCHEDS) - {"LinearLR", "LinearWarmup", "CosineAnnealingWarmRestarts"}


@st.composite
def sched_case(draw):
    kind = draw(st.sampled_from(SCHEDS))
    return kind, _sched_cfg(draw, kind)


def _sched_cfg(draw, kind):
    lr = draw(st.sampled_from([1.0, 0.5, 0.1, 0.03]))
    c = {"lr": lr}
    small = st.integers(1, 6)
    if kind == "NoamDecay":
        c.update(d_model=draw(st.sampled_from([16, 512, 0.01])), warmup=draw(small))
    elif kind == "PiecewiseDecay":
        bs = sorted(draw(st.sets(st.integers(1, 20), min_size=1, max_size=4)))
        c.update(boundaries=bs, values=[lr * 0.5**i for i in range(len(bs) + 1)])
    elif kind in ("NaturalExpDecay", "InverseTimeDecay"):
        c.update(gamma=draw(st.sampled_from([0.1, 0.5, 1.5])))
    elif kind == "PolynomialDecay":
        c.update(
            decay_steps=draw(small),
            end_lr=draw(st.sampled_from([0.0, 1e-4, 0.01])),
            power=draw(st.sampled_from([1.0, 0.5, 2.0])),
            cycle=draw(st.booleans()),
        )
    elif kind == "LinearWarmup":
        inner = draw(
            st.sampled_from([None, "StepDecay", "CosineAnnealingDecay", "ExponentialDecay"])
        )
        c.update(warmup=draw(small), start=0.0, end=lr, after=lr * 0.7)
        c["inner"] = None if inner is None else (inner, _sched_cfg(draw, inner))
    elif kind == "ExponentialDecay":
        c.update(gamma=draw(st.sampled_from([0.5, 0.9, 0.99])))
    elif kind == "MultiStepDecay":
        ms = sorted(draw(st.sets(st.integers(1, 20), min_size=1, max_size=4)))
        c.update(milestones=ms, gamma=draw(st.sampled_from([0.1, 0.5])))
    elif kind == "StepDecay":
        c.update(step_size=draw(small), gamma=draw(st.sampled_from([0.1, 0.5])))
    elif kind in ("LambdaDecay", "MultiplicativeDecay"):
        c.update(fn=draw(st.sampled_from(["pow", "lin", "const"])))
    elif kind == "CosineAnnealingDecay":
        c.update(T_max=draw(small), eta_min=draw(st.sampled_from([0.0, 0.001])))
    elif kind == "OneCycleLR":
        three = draw(st.booleans())
        total = draw(st.integers(10, 40))
        c.update(
            max=lr,
            total=total,
            div=draw(st.sampled_from([25.0, 4.0])),
            end=draw(st.sampled_from([1e-4, 0.0])),
            pct=draw(st.sampled_from([0.3, 0.25, 0.4] if three else [0.3, 0.5, 0.75])),
            anneal=draw(st.sampled_from(["cos", "linear"])),
            three_phase=three,
        )
    elif kind == "CyclicLR":
        c.update(
            base=lr * 0.1,
            max=lr,
            up=draw(small),
            down=draw(st.sampled_from([None, 1, 3])),
            mode=draw(st.sampled_from(["triangular", "triangular2", "exp_range"])),
            gamma=draw(st.sampled_from([1.0, 0.9])),
            scale_fn=draw(st.sampled_from([None, None, "half"])),
            scale_mode=draw(st.sampled_from(["cycle", "iterations"])),
        )
    elif kind == "CosineAnnealingWarmRestarts":
        c.update(
            T_0=draw(small),
            T_mult=draw(st.sampled_from([1, 2, 3])),
            eta_min=draw(st.sampled_from([0.0, 0.001])),
        )
    elif kind == "LinearLR":
        c.update(
            total=draw(small),
            start_factor=draw(st.sampled_from([1.0 / 3, 0.5, 1.0])),
            end_factor=draw(st.sampled_from([1.0, 0.5, 0.1])),
        )
    return c


def fg_sched(kind, c):
    L = paddle.optimizer.lr
    lr = c["lr"]
    if kind == "NoamDecay":
        return L.NoamDecay(c["d_model"], c["warmup"], learning_rate=lr)
    if kind == "PiecewiseDecay":
        return L.PiecewiseDecay(c["boundaries"], c["values"])
    if kind in ("NaturalExpDecay", "InverseTimeDecay", "ExponentialDecay"):
        return getattr(L, kind)(learning_rate=lr, gamma=c["gamma"])
    if kind == "PolynomialDecay":
        return L.PolynomialDecay(lr, c["decay_steps"], c["end_lr"], c["power"], c["cycle"])
    if kind == "LinearWarmup":
        inner = c["after"] if c["inner"] is None else fg_sched(*c["inner"])
        return L.LinearWarmup(inner, c["warmup"], c["start"], c["end"])
    if kind == "MultiStepDecay":
        return L.MultiStepDecay(lr, c["milestones"], c["gamma"])
    if kind == "StepDecay":
        return L.StepDecay(lr, c["step_size"], c["gamma"])
    if kind in ("LambdaDecay", "MultiplicativeDecay"):
        return getattr(L, kind)(lr, _LAMBDAS[c["fn"]])
    if kind == "CosineAnnealingDecay":
        return L.CosineAnnealingDecay(lr, c["T_max"], c["eta_min"])
    if kind == "OneCycleLR":
        return L.OneCycleLR(
            max_learning_rate=c["max"],
            total_steps=c["total"],
            divide_factor=c["div"],
            end_learning_rate=c["end"],
            phase_pct=c["pct"],
            anneal_strategy=c["anneal"],
            three_phase=c["three_phase"],
        )
    if kind == "CyclicLR":
        return L.CyclicLR(
            base_learning_rate=c["base"],
            max_learning_rate=c["max"],
            step_size_up=c["up"],
            step_size_down=c["down"],
            mode=c["mode"],
            exp_gamma=c["gamma"],
            scale_fn=None if c["scale_fn"] is None else _LAMBDAS[c["scale_fn"]],
            scale_mode=c["scale_mode"],
        )
    if kind == "CosineAnnealingWarmRestarts":
        return L.CosineAnnealingWarmRestarts(lr, c["T_0"], c["T_mult"], c["eta_min"])
    if kind == "LinearLR":
        return L.LinearLR(lr, c["total"], c["start_factor"], c["end_factor"])
    raise AssertionError(kind)


def _n_steps(kind, c, data):
    if kind == "OneCycleLR":
        return data.draw(st.integers(0, c["total"]))  # Paddle raises past total_steps
    return data.draw(st.integers(0, 40))


@FUZZ
@given(sched_case(), st.data())
def test_schedulers(case, data):
    kind, c = case
    s, ref = fg_sched(kind, c), RefSched(kind, c)
    close(s(), ref.last_lr, "float64", f"{kind} at 0")
    n = _n_steps(kind, c, data)
    for i in range(n):
        s.step()
        ref.step()
        CALLS[f"lr.{kind}"] += 1
        close(s(), ref.last_lr, "float64", f"{kind} after {i + 1} steps")
        close(s.last_lr, ref.last_lr, "float64", f"{kind}.last_lr")
        assert s.last_epoch == ref.last_epoch
    if kind in JUMPABLE or kind == "CosineAnnealingWarmRestarts":
        hi = c["total"] if kind == "OneCycleLR" else 60
        for e in data.draw(st.lists(st.integers(0, hi), max_size=4)):
            s.step(e)
            ref.step(e)
            CALLS[f"lr.{kind}.step(epoch)"] += 1
            close(s(), ref.last_lr, "float64", f"{kind}.step({e})")
    # state_dict round trip: a fresh scheduler continues exactly
    sd = s.state_dict()
    twin = fg_sched(kind, c)
    twin.set_state_dict(sd)
    more = data.draw(st.integers(0, 5))
    if kind == "OneCycleLR":
        more = min(more, c["total"] - s.last_epoch)
    for _ in range(more):
        s.step()
        twin.step()
        ref.step()
        close(s(), ref.last_lr, "float64", f"{kind} continued")
    CALLS[f"lr.{kind}.state_dict"] += 1
    assert twin() == s(), f"{kind}: {twin()} after the round trip, {s()} without"


def _plateau_ref(c, metrics):
    """Paddle's ReduceOnPlateau.step, transcribed: the rates after each metric."""
    best, bad, cool, lr, out = None, 0, 0, c["lr"], []
    for m in metrics:
        if cool > 0:
            cool -= 1
        else:
            if best is None or _better(c, m, best):
                best, bad = m, 0
            else:
                bad += 1
            if bad > c["patience"]:
                cool, bad = c["cooldown"], 0
                new = max(lr * c["factor"], c["min_lr"])
                if lr - new > c["epsilon"]:
                    lr = new
        out.append(lr)
    return out


def _better(c, cur, best):
    thr = c["threshold"]
    if c["mode"] == "min":
        return cur < (best - best * thr if c["rel"] == "rel" else best - thr)
    return cur > (best + best * thr if c["rel"] == "rel" else best + thr)


@FUZZ
@given(st.data())
def test_reduce_on_plateau(data):
    d = data.draw
    c = dict(
        lr=d(st.sampled_from([1.0, 0.1])),
        mode=d(st.sampled_from(["min", "max"])),
        factor=d(st.sampled_from([0.1, 0.5])),
        patience=d(st.integers(0, 3)),
        threshold=d(st.sampled_from([1e-4, 0.1, 0.5])),
        rel=d(st.sampled_from(["rel", "abs"])),
        cooldown=d(st.integers(0, 3)),
        min_lr=d(st.sampled_from([0.0, 0.02])),
        epsilon=d(st.sampled_from([1e-8, 0.05])),
    )
    metrics = d(st.lists(st.sampled_from([3.0, 2.0, 1.0, 1.05, 0.5, 2.5]), max_size=25))
    s = paddle.optimizer.lr.ReduceOnPlateau(
        c["lr"],
        mode=c["mode"],
        factor=c["factor"],
        patience=c["patience"],
        threshold=c["threshold"],
        threshold_mode=c["rel"],
        cooldown=c["cooldown"],
        min_lr=c["min_lr"],
        epsilon=c["epsilon"],
    )
    want = _plateau_ref(c, metrics)
    cut = d(st.integers(0, len(metrics)))
    for i, m in enumerate(metrics):
        if i == cut:  # a round trip half way
            sd = s.state_dict()
            s = paddle.optimizer.lr.ReduceOnPlateau(
                c["lr"],
                mode=c["mode"],
                factor=c["factor"],
                patience=c["patience"],
                threshold=c["threshold"],
                threshold_mode=c["rel"],
                cooldown=c["cooldown"],
                min_lr=c["min_lr"],
                epsilon=c["epsilon"],
            )
            s.set_state_dict(sd)
        arg = paddle.to_tensor(m) if i % 3 == 1 else (np.float64(m) if i % 3 == 2 else m)
        s.step(arg)
        CALLS["lr.ReduceOnPlateau"] += 1
        assert s() == pytest.approx(want[i], rel=1e-12), f"step {i}: {s()} != {want[i]}"
        assert s.last_epoch == i + 1


@FUZZ
@given(sched_case(), st.data())
def test_optimizer_follows_scheduler(case, data):
    """The optimizer steps with the scheduler's current rate (scaled per group by a
    group's ``learning_rate``); ``get_lr()`` reads it; ``set_lr`` is refused while a
    scheduler drives the rate; ``set_lr_scheduler`` swaps one in."""
    kind, c = case
    s, ref = fg_sched(kind, c), RefSched(kind, c)
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a0 = rng.uniform(-1, 1, 3).astype(dtype).astype(np.float64)
    b0 = rng.uniform(-1, 1, 2).astype(dtype).astype(np.float64)
    a = paddle.to_tensor(a0, dtype=dtype, stop_gradient=False)
    b = paddle.to_tensor(b0, dtype=dtype, stop_gradient=False)
    swap = data.draw(st.booleans())
    groups = [{"params": [a]}, {"params": [b], "learning_rate": 0.5}]
    opt = paddle.optimizer.SGD(learning_rate=0.3 if swap else s, parameters=groups)
    if swap:
        opt.set_lr(0.25)
        assert opt.get_lr() == 0.25
        ga = rng.uniform(-1, 1, 3).astype(dtype)
        gb = rng.uniform(-1, 1, 2).astype(dtype)
        a.grad, b.grad = paddle.to_tensor(ga), paddle.to_tensor(gb)
        opt.step()
        a0 = a0 - 0.25 * ga.astype(np.float64)
        b0 = b0 - 0.125 * gb.astype(np.float64)
        close(a.numpy(), a0, dtype, "set_lr")
        close(b.numpy(), b0, dtype, "set_lr group")
        opt.set_lr_scheduler(s)
    with pytest.raises(RuntimeError):
        opt.set_lr(0.1)
    steps = data.draw(st.integers(1, 8))
    if kind == "OneCycleLR":
        steps = min(steps, c["total"])
    for _ in range(steps):
        lr = ref.last_lr
        assert opt.get_lr() == pytest.approx(lr, rel=1e-12, abs=1e-15)
        ga = rng.uniform(-1, 1, 3).astype(dtype)
        gb = rng.uniform(-1, 1, 2).astype(dtype)
        a.grad, b.grad = paddle.to_tensor(ga), paddle.to_tensor(gb)
        opt.step()
        a0 = a0 - lr * ga.astype(np.float64)
        b0 = b0 - 0.5 * lr * gb.astype(np.float64)
        CALLS["optimizer+lr"] += 1
        close(a.numpy(), a0, dtype, f"{kind}: SGD at the scheduled rate")
        close(b.numpy(), b0, dtype, f"{kind}: SGD at the scaled rate")
        s.step()
        ref.step()


# ------------------------------------------------------------ PyTorch's clipping
def _tnorm(gs, p):
    if not gs:
        return 0.0
    norms = [np.max(np.abs(g)) if math.isinf(p) and g.size else _vnorm(g, p) for g in gs]
    if math.isinf(p):
        return max(norms)
    return sum(n**p for n in norms) ** (1 / p)


def _vnorm(g, p):
    a = np.abs(g.astype(np.float64))
    if math.isinf(p):
        return a.max() if a.size else 0.0
    return (a**p).sum() ** (1 / p)


@FUZZ
@given(st.data())
def test_clip_grad_norm_torch(data):

    from ferrograd.nn.utils import (
        clip_grad_norm_,
        clip_grad_value_,
        clip_grads_with_norm_,
        get_total_norm,
    )

    d = data.draw
    dtype = d(st.sampled_from(["float32", "float64"]))
    rng = np.random.default_rng(d(st.integers(0, 2**32 - 1)))
    n = d(st.integers(1, 4))
    shapes = [tuple(d(st.lists(st.integers(0, 3), max_size=2))) for _ in range(n)]
    grads = [rng.uniform(-5, 5, s).astype(dtype) if d(st.integers(0, 4)) else None for s in shapes]
    params = []
    for s, g in zip(shapes, grads):
        p = fg.zeros(list(s), dtype=dtype, requires_grad=True)
        if g is not None:
            p.grad = fg.tensor(g, dtype=dtype)
        params.append(p)
    norm_type = d(st.sampled_from([1.0, 2.0, 3.5, math.inf, "inf"]))
    max_norm = d(st.sampled_from([0.5, 3.0, 1e3]))
    present = [g.astype(np.float64) for g in grads if g is not None]
    total = _tnorm(present, float(norm_type))
    form = d(st.sampled_from(["list", "generator", "single"]))
    arg = params if form == "list" else (p for p in params)
    if form == "single":
        arg, present = params[0], present[:1] if grads[0] is not None else []
        total = _tnorm(present, float(norm_type))
        grads = grads[:1]
        params = params[:1]
    how = d(st.sampled_from(["fused", "split"]))
    if how == "fused":
        got = clip_grad_norm_(arg, max_norm, norm_type=norm_type, foreach=d(st.booleans()))
    else:
        got = get_total_norm([p.grad for p in params], norm_type=norm_type)
        clip_grads_with_norm_(params, max_norm, got)
    CALLS["clip_grad_norm_"] += 1
    assert got.ndim == 0
    close(got.numpy(), total, dtype, "total norm", scale=1e-6 + abs(total))
    coef = min(1.0, max_norm / (total + 1e-6))
    for p, g in zip(params, grads):
        if g is None:
            assert p.grad is None
            continue
        close(p.grad.numpy(), g.astype(np.float64) * coef, dtype, "clipped grad")
    # clip_grad_value_ on what is left
    v = d(st.sampled_from([0.1, 1.0, 10.0]))
    before = [None if p.grad is None else p.grad.numpy().copy() for p in params]
    clip_grad_value_(params if d(st.booleans()) else iter(params), v)
    CALLS["clip_grad_value_"] += 1
    for p, b in zip(params, before):
        if b is not None:
            np.testing.assert_array_equal(p.grad.numpy(), np.clip(b, -v, v))
    # error_if_nonfinite
    if params and grads[0] is not None and grads[0].size:
        bad = grads[0].copy()
        bad.flat[0] = d(st.sampled_from([np.inf, -np.inf, np.nan]))
        params[0].grad = fg.tensor(bad, dtype=dtype)
        with pytest.raises(RuntimeError):
            clip_grad_norm_(params, 1.0, norm_type=norm_type, error_if_nonfinite=True)


@FUZZ
@given(st.data())
def test_parameters_vector_round_trip(data):
    from ferrograd.nn.utils import parameters_to_vector, vector_to_parameters

    d = data.draw
    dtype = d(st.sampled_from(["float32", "float64"]))
    rng = np.random.default_rng(d(st.integers(0, 2**32 - 1)))
    shapes = [
        tuple(d(st.lists(st.integers(0, 3), max_size=3))) for _ in range(d(st.integers(1, 4)))
    ]
    arrs = [rng.uniform(-3, 3, s).astype(dtype) for s in shapes]
    params = [fg.tensor(a, dtype=dtype, requires_grad=True) for a in arrs]
    vec = parameters_to_vector(params)
    CALLS["parameters_to_vector"] += 1
    want = np.concatenate([a.ravel() for a in arrs]) if arrs else np.zeros(0)
    np.testing.assert_array_equal(vec.numpy(), want)
    assert vec.dtype.name == dtype
    w = rng.standard_normal(want.size)
    (vec * fg.tensor(w, dtype=dtype)).sum().backward()
    off = 0
    for p, a in zip(params, arrs):
        close(p.grad.numpy(), w[off : off + a.size].reshape(a.shape), dtype, "grad")
        off += a.size
    new = rng.uniform(-3, 3, want.size).astype(dtype)
    vector_to_parameters(fg.tensor(new, dtype=dtype), params)
    CALLS["vector_to_parameters"] += 1
    off = 0
    for p, a in zip(params, arrs):
        np.testing.assert_array_equal(p.numpy(), new[off : off + a.size].reshape(a.shape))
        off += a.size


# ------------------------------------------------------------ regressions
def _ones_param(attr=None, n=2):
    return paddle.create_parameter(
        [n], "float64", attr=attr, default_initializer=paddle.nn.initializer.Constant(1.0)
    )


def test_param_attr_need_clip_regression():
    p = _ones_param(paddle.ParamAttr(need_clip=False))
    opt = paddle.optimizer.SGD(0.1, parameters=[p], grad_clip=paddle.nn.ClipGradByValue(0.5))
    p.grad = paddle.to_tensor(np.array([2.0, -2.0]))
    opt.step()  # Paddle: need_clip=False exempts p from the clip
    np.testing.assert_allclose(p.numpy(), [0.8, 1.2])


def test_param_attr_learning_rate_regression():
    p = _ones_param(paddle.ParamAttr(learning_rate=0.5))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[p])
    p.grad = paddle.to_tensor(np.array([1.0, 1.0]))
    opt.step()  # Paddle's _create_param_lr: global rate * optimize_attr['learning_rate']
    np.testing.assert_allclose(p.numpy(), [0.95, 0.95])


def test_param_group_paddle_names_regression():
    a, b = _ones_param(), _ones_param()
    groups = [{"params": [a]}, {"params": [b], "beta1": 0.0, "epsilon": 1.0}]
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=groups)
    for p in (a, b):
        p.grad = paddle.to_tensor(np.array([1.0, -3.0]))
    opt.step()
    # group b: m = g, v = (1 - b2) g^2, step = lr * g / (|g| + 1)  (Adam._update_param_group)
    np.testing.assert_allclose(b.numpy(), [1 - 0.1 * 0.5, 1 + 0.1 * 0.75])


def test_state_dict_keeps_lr_scheduler_regression():
    p = _ones_param()
    opt = paddle.optimizer.SGD(paddle.optimizer.lr.StepDecay(0.1, 2), parameters=[p])
    for _ in range(3):
        opt._learning_rate.step()
    sd = opt.state_dict()
    q = _ones_param()
    opt2 = paddle.optimizer.SGD(paddle.optimizer.lr.StepDecay(0.1, 2), parameters=[q])
    opt2.set_state_dict(sd)  # Paddle: state_dict()["LR_Scheduler"] restores the schedule
    assert "LR_Scheduler" in sd
    assert opt2.get_lr() == pytest.approx(opt.get_lr())


def test_clip_grad_norm_nan_total_regression():
    from ferrograd.nn.utils import clip_grad_norm_

    torch = fg
    p = torch.zeros(2, requires_grad=True)
    q = torch.zeros(3, requires_grad=True)
    p.grad = torch.tensor([float("nan"), 1.0])
    q.grad = torch.tensor([1.0, 2.0, 2.0])
    clip_grad_norm_([p, q], 1.0)  # PyTorch multiplies by clamp(nan, max=1): all NaN
    assert np.isnan(p.grad.numpy()).all() and np.isnan(q.grad.numpy()).all()


def test_momentum_nesterov_zero_momentum_regression():
    p = _ones_param()
    opt = paddle.optimizer.Momentum(0.1, momentum=0.0, parameters=[p], use_nesterov=True)
    p.grad = paddle.to_tensor(np.array([1.0, -1.0]))
    opt.step()  # Paddle: p -= lr * (g + 0 * v), plain SGD
    np.testing.assert_allclose(p.numpy(), [0.9, 1.1])
