"""``optimizer.minimize(loss)`` in static mode: the backward section and the update are
appended to the program, every ``Executor.run`` trains, the state lives in the scope,
and N static steps equal N eager steps of the same optimizer (exactly in float64)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static


@pytest.fixture(autouse=True)
def static_mode():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    with static.program_guard(main, startup), static.scope_guard(static.Scope()):
        yield main
    fg.disable_static()


def _data(seed=0, n=8, dtype="float64"):
    r = np.random.default_rng(seed)
    x = r.standard_normal((n, 3)).astype(dtype)
    t = r.standard_normal((n, 2)).astype(dtype)
    w1 = (r.standard_normal((3, 4)) * 0.5).astype(dtype)
    b1 = (r.standard_normal((4,)) * 0.1).astype(dtype)
    w2 = (r.standard_normal((4, 2)) * 0.5).astype(dtype)
    return x, t, [w1, b1, w2]


def _model(x, params):
    w1, b1, w2 = params
    h = fg.tanh(x @ w1 + b1)
    return h @ w2


def _static_train(make_opt, steps, dtype="float64", batches=None, give_params=False):
    x_np, t_np, init = _data(dtype=dtype)
    x = static.data("x", [-1, 3], dtype)
    t = static.data("t", [-1, 2], dtype)
    params = [
        static.create_parameter(list(v.shape), dtype, name=f"p{i}", default_initializer=v)
        for i, v in enumerate(init)
    ]
    loss = fg.mean((_model(x, params) - t) ** 2)
    opt = make_opt(params if give_params else None)
    ops, pairs = opt.minimize(loss)
    if not give_params:
        assert [p.name for p, _ in pairs] == ["p0", "p1", "p2"]
    exe = static.Executor()
    exe.run(static.default_startup_program())
    losses = []
    for k in range(steps):
        xb, tb = (x_np, t_np) if batches is None else batches[k]
        (lv,) = exe.run(feed={"x": xb, "t": tb}, fetch_list=[loss])
        losses.append(float(lv))
    scope = static.global_scope()
    return [scope.find_var(f"p{i}").numpy() for i in range(3)], losses


def _eager_train(make_opt, steps, dtype="float64", batches=None):
    x_np, t_np, init = _data(dtype=dtype)
    params = [fg.to_tensor(v, stop_gradient=False) for v in init]
    opt = make_opt(params)
    losses = []
    for k in range(steps):
        xb, tb = (x_np, t_np) if batches is None else batches[k]
        loss = fg.mean((_model(fg.to_tensor(xb), params) - fg.to_tensor(tb)) ** 2)
        opt.clear_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.numpy()))
    return [p.numpy() for p in params], losses


def _static_matches_eager_float64(make_opt, steps, give_params=False):
    """Trains the same model statically and eagerly; asserts equal parameters and losses
    (to rounding) and returns the static ones."""
    p_static, l_static = _static_train(make_opt, steps, give_params=give_params)
    fg.disable_static()
    try:
        p_eager, l_eager = _eager_train(make_opt, steps)
    finally:
        fg.enable_static()
    for a, b in zip(p_static, p_eager):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(l_static, l_eager, rtol=1e-13)
    return p_static, l_static


OPTIMIZERS = {
    "sgd": lambda p: fg.optimizer.SGD(learning_rate=0.1, parameters=p),
    "sgd_wd": lambda p: fg.optimizer.SGD(learning_rate=0.05, parameters=p, weight_decay=0.01),
    "torch_sgd_momentum": lambda p: fg.optim.SGD(
        p, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.001
    ),
    "nesterov": lambda p: fg.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True),
    "momentum": lambda p: fg.optimizer.Momentum(learning_rate=0.05, momentum=0.9, parameters=p),
    "adam": lambda p: fg.optimizer.Adam(learning_rate=0.01, parameters=p),
    "adam_l2_amsgrad": lambda p: fg.optim.Adam(
        p, lr=0.02, betas=(0.8, 0.95), weight_decay=0.01, amsgrad=True
    ),
    "adamw": lambda p: fg.optimizer.AdamW(learning_rate=0.01, parameters=p, weight_decay=0.05),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_static_steps_equal_eager_steps_float64(name):
    p_static, l_static = _static_matches_eager_float64(OPTIMIZERS[name], 6)
    assert l_static[-1] < l_static[0]


@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "adamw"])
def test_static_steps_equal_eager_steps_float32_varying_batches(name):
    r = np.random.default_rng(5)
    batches = [
        (r.standard_normal((n, 3)).astype("float32"), r.standard_normal((n, 2)).astype("float32"))
        for n in (8, 3, 5, 8, 1)
    ]
    make = OPTIMIZERS[name]
    p_static, _ = _static_train(make, 5, "float32", batches)
    fg.disable_static()
    try:
        p_eager, _ = _eager_train(make, 5, "float32", batches)
    finally:
        fg.enable_static()
    for a, b in zip(p_static, p_eager):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


#: optimizers given parameter groups: p is [w1, b1, w2] (static Variables or tensors)
GROUPED = {
    "paddle_sgd_scaled_groups": lambda p: fg.optimizer.SGD(
        learning_rate=0.1,
        parameters=[
            {"params": [p[0], p[1]], "learning_rate": 0.5, "weight_decay": 0.01},
            {"params": [p[2]]},
        ],
    ),
    "torch_sgd_group_lr_momentum": lambda p: fg.optim.SGD(
        [{"params": [p[0]], "lr": 0.2, "momentum": 0.5}, {"params": [p[1], p[2]]}],
        lr=0.05,
        momentum=0.9,
    ),
    "adam_group_betas": lambda p: fg.optim.Adam(
        [{"params": [p[2]], "betas": (0.5, 0.9), "amsgrad": True}, {"params": [p[0]]}],
        lr=0.02,
    ),
    "paddle_adamw_scaled": lambda p: fg.optimizer.AdamW(
        learning_rate=0.01,
        parameters=[{"params": [p[1]], "learning_rate": 3.0}, {"params": [p[0], p[2]]}],
        weight_decay=0.05,
    ),
}


@pytest.mark.parametrize("name", sorted(GROUPED))
def test_parameter_groups_equal_eager_groups(name):
    """Each group gets its own update op with its own hyper-parameters and rate scale;
    parameters in no group (b1 for the Adam case) are not updated."""
    p_static, _ = _static_matches_eager_float64(GROUPED[name], 5, give_params=True)
    if name == "adam_group_betas":
        np.testing.assert_array_equal(p_static[1], _data()[2][1])


def test_parameter_groups_with_a_scheduler_scale_its_rate():
    x = static.data("x", [-1, 1], "float64")
    zero = np.zeros((1, 1))
    w = static.create_parameter([1, 1], "float64", name="w", default_initializer=zero)
    v = static.create_parameter([1, 1], "float64", name="v", default_initializer=zero)
    loss = fg.sum(x @ w) + fg.sum(x @ v)  # both gradients are 1
    sched = fg.optimizer.lr.StepDecay(learning_rate=1.0, step_size=1, gamma=0.5)
    opt = fg.optimizer.SGD(
        learning_rate=sched, parameters=[{"params": [w], "learning_rate": 0.1}, {"params": [v]}]
    )
    opt.minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    ws, vs = [], []
    for _ in range(3):
        exe.run(feed={"x": np.ones((1, 1))}, fetch_list=[loss])
        ws.append(scope.find_var("w").numpy().item())
        vs.append(scope.find_var("v").numpy().item())
        sched.step()
    np.testing.assert_allclose(vs, [-1.0, -1.5, -1.75])
    np.testing.assert_allclose(ws, [-0.1, -0.15, -0.175])


def test_parameter_group_errors():
    x = static.data("x", [-1, 1], "float64")
    w = static.create_parameter([1, 1], "float64", name="w")
    loss = fg.sum(x @ w)
    with pytest.raises(ValueError, match="Invalid momentum value"):
        fg.optim.SGD([{"params": [w], "momentum": -1.0}], lr=0.1)
    opt = fg.optim.SGD([{"params": [w]}, {"params": ["w"]}], lr=0.1)
    with pytest.raises(ValueError, match="'w' appears in more than one parameter group"):
        opt.minimize(loss)


def test_state_lives_in_scope_and_parameters_argument():
    x = static.data("x", [-1, 2], "float64")
    w = static.create_parameter([2, 1], "float64", name="w", default_initializer=np.ones((2, 1)))
    v = static.create_parameter([1], "float64", name="v", default_initializer=np.ones(1))
    loss = fg.mean(x @ w) + fg.sum(v * v)
    opt = fg.optimizer.Adam(learning_rate=0.1, parameters=[w])  # only w is trained
    _, pairs = opt.minimize(loss)
    assert [p.name for p, _ in pairs] == ["w"]
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    names = scope.names()
    assert {"w_moment1_" in n or "w_moment2_" in n or "w_step_" in n for n in names} == {
        True,
        False,
    }
    step_name = next(n for n in names if n.startswith("w_step_"))
    for k in range(3):
        exe.run(feed={"x": np.ones((4, 2))}, fetch_list=[loss])
        assert int(scope.find_var(step_name).numpy()) == k + 1
    assert np.all(scope.find_var("v").numpy() == 1.0)  # not given to the optimizer
    assert not np.all(scope.find_var("w").numpy() == 1.0)
    # state variables are persistable but not trainable
    main = static.default_main_program()
    assert [p.name for p in main.all_parameters() if p.trainable] == ["w", "v"]


def test_all_trainable_parameters_by_default_and_lr_scheduler():
    x = static.data("x", [-1, 1], "float64")
    w = static.create_parameter([1, 1], "float64", name="w", default_initializer=np.zeros((1, 1)))
    loss = fg.sum(x @ w)  # d loss / d w = sum(x): 1 per row of ones
    sched = fg.optimizer.lr.StepDecay(learning_rate=1.0, step_size=1, gamma=0.5)
    opt = fg.optimizer.SGD(learning_rate=sched)
    opt.minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    values = []
    for _ in range(3):
        exe.run(feed={"x": np.ones((1, 1))}, fetch_list=[loss])
        values.append(static.global_scope().find_var("w").numpy().item())
        sched.step()
    np.testing.assert_allclose(values, [-1.0, -1.5, -1.75])


def test_minimize_errors():
    x = static.data("x", [-1, 2], "float32")
    loss = fg.mean(x)
    with pytest.raises(ValueError, match="no trainable parameter receives a gradient"):
        fg.optimizer.SGD(learning_rate=0.1).minimize(loss)
    with pytest.raises(ValueError, match="no parameters given"):
        fg.disable_static()
        try:
            fg.optimizer.SGD(learning_rate=0.1)
        finally:
            fg.enable_static()


def test_training_example_like_the_seed():
    """Paddle's usual static training loop: build, minimize, run the startup program,
    then every run trains on a new batch (here: a small regression to a known line)."""
    r = np.random.default_rng(0)
    x = static.data(name="x", shape=[None, 1], dtype="float32")
    y = static.data(name="y", shape=[None, 1], dtype="float32")
    pred = static.nn.fc(x, size=1)
    loss = fg.mean(fg.square(pred - y))
    fg.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    first = None
    for _ in range(200):
        xb = r.uniform(-1, 1, (16, 1)).astype("float32")
        (lv,) = exe.run(feed={"x": xb, "y": 2.0 * xb}, fetch_list=[loss])
        first = float(lv) if first is None else first
    assert float(lv) < 1e-3 < first


def test_eager_optimizer_still_works_in_static_mode():
    w = fg.to_tensor(np.ones(2), stop_gradient=False)
    opt = fg.optim.SGD((p for p in [w]), lr=0.5)  # a generator is not consumed by the check
    (w * w).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])
