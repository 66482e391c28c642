"""RMSprop/RMSProp, Adagrad, Adadelta, Adamax (Rust updates) against hand-computed NumPy
updates in float64 over several steps, both dialects; LBFGS against a NumPy
re-implementation of PyTorch's algorithm and on a quadratic."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import optim

GRADS = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-0.75, 1.0, 0.125], [0.3, -0.2, 0.9]]
P0 = [1.0, -2.0, 0.5]


def leaf(values, dtype="float64"):
    return fg.tensor(np.asarray(values, dtype=np.float64), dtype=dtype, requires_grad=True)


def run(make, grads=GRADS, p0=P0, dtype="float64"):
    p = leaf(p0, dtype)
    opt = make([p])
    for g in grads:
        p.grad = fg.tensor(np.asarray(g, np.float64), dtype=p.dtype)
        opt.step()
    return p.detach().numpy(), opt


def rmsprop_ref(
    grads, lr, alpha, eps, wd=0.0, mom=0.0, centered=False, maximize=False, paddle=False
):
    p = np.array(P0)
    sq, buf, ga = np.zeros(3), np.zeros(3), np.zeros(3)
    for g in grads:
        g = np.asarray(g, np.float64) * (-1 if maximize else 1) + wd * p
        sq = alpha * sq + (1 - alpha) * g * g
        v = sq
        if centered:
            ga = alpha * ga + (1 - alpha) * g
            v = sq - ga * ga
        if paddle:  # eps under the root, lr inside the momentum buffer
            buf = mom * buf + lr * g / np.sqrt(v + eps)
            p = p - buf
        else:
            avg = np.sqrt(v) + eps
            if mom:
                buf = mom * buf + g / avg
                p = p - lr * buf
            else:
                p = p - lr * g / avg
    return p


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"momentum": 0.9},
        {"centered": True},
        {"momentum": 0.5, "centered": True, "weight_decay": 0.1},
        {"weight_decay": 0.2, "maximize": True, "alpha": 0.9, "eps": 1e-3},
    ],
)
def test_rmsprop_torch(kw):
    got, opt = run(lambda ps: optim.RMSprop(ps, lr=0.01, **kw))
    want = rmsprop_ref(
        GRADS,
        0.01,
        kw.get("alpha", 0.99),
        kw.get("eps", 1e-8),
        kw.get("weight_decay", 0.0),
        kw.get("momentum", 0.0),
        kw.get("centered", False),
        kw.get("maximize", False),
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert opt.state[opt.param_groups[0]["params"][0]]["step"] == len(GRADS)


@pytest.mark.parametrize("kw", [{}, {"momentum": 0.9, "centered": True, "weight_decay": 0.05}])
def test_rmsprop_paddle(kw):
    got, opt = run(lambda ps: fg.optimizer.RMSProp(learning_rate=0.01, parameters=ps, **kw))
    want = rmsprop_ref(
        GRADS,
        0.01,
        0.95,
        1e-6,
        kw.get("weight_decay", 0.0),
        kw.get("momentum", 0.0),
        kw.get("centered", False),
        paddle=True,
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert set(opt.state_dict()["state"][0]) >= {"step", "square_avg"}


def adagrad_ref(grads, lr, lr_decay=0.0, wd=0.0, init=0.0, eps=1e-10):
    p, s = np.array(P0), np.full(3, init)
    for t, g in enumerate(grads, start=1):
        g = np.asarray(g, np.float64) + wd * p
        s = s + g * g
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    return p


def test_adagrad_both_dialects():
    got, _ = run(
        lambda ps: optim.Adagrad(
            ps, lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2
        )
    )
    np.testing.assert_allclose(got, adagrad_ref(GRADS, 0.1, 0.05, 0.1, 0.2), rtol=1e-12)
    got, opt = run(lambda ps: fg.optimizer.Adagrad(0.1, parameters=ps))
    np.testing.assert_allclose(got, adagrad_ref(GRADS, 0.1, eps=1e-6), rtol=1e-12)
    assert opt.param_groups[0]["eps"] == 1e-6


def adadelta_ref(grads, lr, rho, eps, wd=0.0):
    p, v, u = np.array(P0), np.zeros(3), np.zeros(3)
    for g in grads:
        g = np.asarray(g, np.float64) + wd * p
        v = rho * v + (1 - rho) * g * g
        d = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * d * d
        p = p - lr * d
    return p


def test_adadelta_both_dialects():
    got, _ = run(lambda ps: optim.Adadelta(ps, weight_decay=0.1))
    np.testing.assert_allclose(got, adadelta_ref(GRADS, 1.0, 0.9, 1e-6, 0.1), rtol=1e-12)
    got, opt = run(lambda ps: fg.optimizer.Adadelta(parameters=ps))
    np.testing.assert_allclose(got, adadelta_ref(GRADS, 1e-3, 0.95, 1e-6), rtol=1e-12)
    assert opt.get_lr() == 1e-3


def adamax_ref(grads, lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, paddle=False):
    p, m, u = np.array(P0), np.zeros(3), np.zeros(3)
    for t, g in enumerate(grads, start=1):
        g = np.asarray(g, np.float64) + wd * p
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u + eps, np.abs(g)) if paddle else np.maximum(b2 * u, np.abs(g) + eps)
        p = p - lr / (1 - b1**t) * m / u
    return p


def test_adamax_both_dialects():
    got, _ = run(lambda ps: optim.Adamax(ps, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1))
    np.testing.assert_allclose(got, adamax_ref(GRADS, 0.05, 0.8, 0.9, wd=0.1), rtol=1e-12)
    # a large eps makes the two placements differ visibly
    got, _ = run(lambda ps: fg.optimizer.Adamax(learning_rate=0.05, parameters=ps, epsilon=0.5))
    np.testing.assert_allclose(got, adamax_ref(GRADS, 0.05, eps=0.5, paddle=True), rtol=1e-12)
    torch_form = adamax_ref(GRADS, 0.05, eps=0.5)
    assert not np.allclose(got, torch_form)


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True),
        lambda ps: optim.Adagrad(ps, lr=0.1, initial_accumulator_value=0.5),
        lambda ps: optim.Adadelta(ps),
        lambda ps: optim.Adamax(ps),
    ],
)
def test_state_dict_round_trip_continues_identically(make):
    _, a = run(make, GRADS[:2])
    pa = a.param_groups[0]["params"][0]
    pb = leaf(pa.detach().numpy())
    b = make([pb])
    b.load_state_dict(a.state_dict())
    for g in GRADS[2:]:
        for p, o in ((pa, a), (pb, b)):
            p.grad = fg.tensor(np.asarray(g, np.float64))
            o.step()
    np.testing.assert_array_equal(pa.detach().numpy(), pb.detach().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float16", "complex64"])
def test_other_dtypes_update(dtype):
    for make in (
        lambda ps: optim.RMSprop(ps, lr=0.01),
        lambda ps: optim.Adagrad(ps, lr=0.01),
        lambda ps: optim.Adadelta(ps),
        lambda ps: optim.Adamax(ps),
    ):
        got, _ = run(make, dtype=dtype)
        assert np.all(np.isfinite(got)) and not np.array_equal(got, np.array(P0))


def test_bad_arguments():
    p = [leaf(P0)]
    with pytest.raises(ValueError, match="momentum"):
        optim.RMSprop(p, momentum=-1.0)
    with pytest.raises(ValueError, match="beta"):
        optim.Adamax(p, betas=(1.0, 0.9))
    with pytest.raises(ValueError, match="lr_decay"):
        optim.Adagrad(p, lr_decay=-0.1)
    with pytest.raises(ValueError, match="rho"):
        optim.Adadelta(p, rho=1.5)


# ---- LBFGS -------------------------------------------------------------------------


def lbfgs_reference(
    f_and_grad, x0, lr=1.0, max_iter=20, history=100, tol_grad=1e-7, tol_change=1e-9
):
    """PyTorch's LBFGS (no line search) for one step() call, in NumPy."""
    x = np.array(x0, np.float64)
    loss, g = f_and_grad(x)
    if np.abs(g).max() <= tol_grad:
        return x
    dirs, stps, ro, h = [], [], [], 1.0
    d = t = prev_g = None
    evals, max_eval = 1, max_iter * 5 // 4
    for n_iter in range(1, max_iter + 1):
        if n_iter == 1:
            d = -g
        else:
            y, s = g - prev_g, d * t
            ys = y @ s
            if ys > 1e-10:
                if len(dirs) == history:
                    dirs.pop(0), stps.pop(0), ro.pop(0)
                dirs.append(y), stps.append(s), ro.append(1 / ys)
                h = ys / (y @ y)
            q, al = -g, [0.0] * len(dirs)
            for i in reversed(range(len(dirs))):
                al[i] = (stps[i] @ q) * ro[i]
                q = q - al[i] * dirs[i]
            r = q * h
            for i in range(len(dirs)):
                r = r + stps[i] * (al[i] - (dirs[i] @ r) * ro[i])
            d = r
        prev_g, prev_loss = g.copy(), loss
        t = min(1.0, 1.0 / np.abs(g).sum()) * lr if n_iter == 1 else lr
        if g @ d > -tol_change:
            break
        x = x + t * d
        if n_iter != max_iter:
            loss, g = f_and_grad(x)
            evals += 1
        if n_iter == max_iter or evals >= max_eval:
            break
        if np.abs(g).max() <= tol_grad or np.abs(d * t).max() <= tol_change:
            break
        if abs(loss - prev_loss) < tol_change:
            break
    return x


def rosen(x):
    f = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
    g = np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])
    return f, g


def test_lbfgs_matches_numpy_reference_on_rosenbrock():
    x = leaf([-1.2, 1.0])
    opt = optim.LBFGS([x], lr=0.05, max_iter=10, history_size=5)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    first = opt.step(closure)
    assert first.item() == pytest.approx(rosen([-1.2, 1.0])[0])
    want = lbfgs_reference(rosen, [-1.2, 1.0], lr=0.05, max_iter=10, history=5)
    np.testing.assert_allclose(x.detach().numpy(), want, rtol=1e-10)
    assert opt.state[x]["func_evals"] == 10 and opt.state[x]["n_iter"] == 10


def test_lbfgs_solves_a_quadratic_and_paddle_spelling():
    a = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]])
    b = np.array([1.0, -2.0, 0.5])
    at, bt = fg.tensor(a), fg.tensor(b)
    x = leaf([0.0, 0.0, 0.0])
    opt = fg.optimizer.LBFGS(learning_rate=1.0, parameters=[x], max_iter=50)

    def closure():
        opt.clear_grad()
        loss = 0.5 * (x * at.matmul(x)).sum() - (bt * x).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(a, b), atol=1e-6)
    with pytest.raises(ValueError, match="strong_wolfe"):
        optim.LBFGS([x], line_search_fn="armijo")
    with pytest.raises(TypeError, match="closure"):
        opt.step()


def test_lbfgs_strong_wolfe_solves_rosenbrock_with_decreasing_losses():
    x = leaf([-1.2, 1.0])
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe", max_iter=100)
    losses = []

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    for _ in range(3):
        losses.append(opt.step(closure).item())
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-4)
    assert losses[0] == pytest.approx(24.2) and losses[1] < 1e-8
    # every accepted step satisfied sufficient decrease: the iteration count stays small
    assert opt.state[x]["n_iter"] < 60


def test_cubic_interpolate():
    from ferrograd.optim.line_search import cubic_interpolate

    # f(t) = (t - 2)^2 sampled at 0 and 3: the cubic through it is this parabola
    assert cubic_interpolate(0.0, 4.0, -4.0, 3.0, 1.0, 2.0) == pytest.approx(2.0)
    # clamped to the bounds
    assert cubic_interpolate(0.0, 4.0, -4.0, 3.0, 1.0, 2.0, bounds=(2.5, 4.0)) == 2.5
