"""Static programs with layers: ``static.nn.conv2d/conv3d/conv2d_transpose/batch_norm/
layer_norm/group_norm/instance_norm/embedding`` and the functional forms
(``F.conv2d(var, ...)``, pooling, ``F.dropout``, ``F.batch_norm``) inside
``program_guard``, trained with ``Executor.run`` and an optimizer's ``minimize``; values
and gradients equal the eager layers' (float64)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static
from ferrograd.nn import functional as F
from test_static_ops_more import check


@pytest.fixture(autouse=True)
def static_mode():
    fg.enable_static()
    with static.scope_guard(static.Scope()):
        yield
    fg.disable_static()


def a(seed=0, shape=(2, 3, 6, 6)):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize(
    "fn, arrays",
    [
        (lambda x, w, b: F.conv2d(x, w, b, padding=1), (a(0), a(1, (4, 3, 3, 3)), a(2, (4,)))),
        (lambda x, w: F.conv2d(x, w, stride=2, groups=3), (a(0), a(1, (6, 1, 3, 3)))),
        (lambda x, w: F.conv1d(x, w, padding="same"), (a(0, (2, 3, 7)), a(1, (2, 3, 3)))),
        (lambda x, w: F.conv3d(x, w), (a(0, (1, 2, 4, 4, 4)), a(1, (3, 2, 2, 2, 2)))),
        (
            lambda x, w: F.conv2d_transpose(x, w, stride=2, padding=1),
            (a(0), a(1, (3, 2, 3, 3))),
        ),
        (lambda x: F.max_pool2d(x, 2), (a(0),)),
        (lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), (a(0),)),
        (lambda x: F.adaptive_avg_pool2d(x, [2, 3]), (a(0),)),
        (lambda x: F.max_pool1d(x, 2), (a(0, (2, 3, 8)),)),
        (
            lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
            (a(0), a(1, (3,)), a(2, (3,))),
        ),
        (lambda x, w, b: F.group_norm(x, 3, w, b), (a(0), a(1, (3,)), a(2, (3,)))),
        (lambda x: F.instance_norm(x), (a(0),)),
        (lambda x, w: F.layer_norm(x, [6], w), (a(0), a(1, (6,)))),
        (lambda x: F.pad(x, [1, 2, 0, 1], mode="reflect"), (a(0),)),
        (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (a(0),)),
        (lambda w: F.embedding(fg.to_tensor(np.array([[1, 0, 3]])), w), (a(0, (4, 5)),)),
    ],
)
def test_functional_layers_match_eager(fn, arrays):
    check(fn, *arrays)


def test_functional_layers_with_a_run_time_batch():
    w = a(1, (4, 3, 3, 3))
    check(
        lambda x: F.conv2d(x, fg.to_tensor(w), padding=1),
        a(0),
        dyn=True,
        feeds=[[a(4, (5, 3, 6, 6))]],
    )
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3, 6, 6], "float64")
        assert F.conv2d(x, fg.to_tensor(w)).shape == [-1, 4, 4, 4]
        assert F.max_pool2d(x, 2).shape == [-1, 3, 3, 3]


def test_dropout_draws_the_eager_mask():
    xv = a(0, (4, 5))
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 5], "float64")
        y = F.dropout(x, 0.4)
        z = F.dropout(x, 0.4, training=False)
        (gx,) = static.gradients([(y * y).sum()], [x])
        fg.seed(3)
        got = static.Executor().run(feed={"x": xv}, fetch_list=[y, z, gx])
    fg.disable_static()
    fg.seed(3)
    t = fg.to_tensor(xv, stop_gradient=False)
    want = F.dropout(t, 0.4)
    (want * want).sum().backward()
    np.testing.assert_array_equal(got[0], want.numpy())
    np.testing.assert_array_equal(got[1], xv)
    np.testing.assert_allclose(got[2], t.grad.numpy())
    fg.enable_static()


def _params(names):
    scope = static.global_scope()
    return {n: scope.find_var(n).numpy() for n in names}


def test_static_nn_layers_train_like_eager():
    """A small CNN built with static.nn, trained with SGD.minimize for three steps,
    equals the same network run eagerly from the same initial parameters."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((4, 2, 6, 6))
    ys = rng.standard_normal((4, 1))
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 2, 6, 6], "float64")
        y = static.data("y", [-1, 1], "float64")
        h = static.nn.conv2d(x, 3, 3, padding=1, act="relu")
        h = static.nn.batch_norm(h, moving_mean_name="bn_mean", moving_variance_name="bn_var")
        h = F.max_pool2d(h, 2)
        h = static.nn.group_norm(h, 3)
        h = static.nn.layer_norm(h, begin_norm_axis=1)
        h = static.nn.conv2d_transpose(h, 2, filter_size=2, stride=2)
        h = static.nn.instance_norm(h)
        pred = static.nn.fc(h.reshape([-1, 72]), 1)
        loss = fg.mean((pred - y) ** 2)
        names = [q.name for q in main.all_parameters()]  # (before the optimizer's state)
        fg.optimizer.SGD(learning_rate=0.05).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    start = _params(names)
    moving = {n: static.global_scope().find_var(n).numpy() for n in ("bn_mean", "bn_var")}
    losses = [exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])[0] for _ in range(3)]
    end = _params(names)
    moving_end = {n: static.global_scope().find_var(n).numpy() for n in ("bn_mean", "bn_var")}

    fg.disable_static()
    try:
        p = {n: fg.to_tensor(v, stop_gradient=False) for n, v in start.items()}
        trainable = [n for n in names if n not in moving]
        rm, rv = (fg.to_tensor(moving[n]) for n in ("bn_mean", "bn_var"))
        w = [p[n] for n in trainable]
        opt = fg.optimizer.SGD(learning_rate=0.05, parameters=w)
        eager_losses = []
        for _ in range(3):
            c1w, c1b, bns, bnb, gnw, gnb, lnw, lnb, ctw, ctb, inw, inb, fcw, fcb = w
            h = F.relu(F.conv2d(fg.to_tensor(xs), c1w, c1b, padding=1))
            h = F.batch_norm(h, rm, rv, bns, bnb, training=True, momentum=0.9, epsilon=1e-5)
            h = F.max_pool2d(h, 2)
            h = F.group_norm(h, 3, gnw, gnb, epsilon=1e-5)
            h = F.layer_norm(h.reshape([4, 27]), [27], lnw, lnb, epsilon=1e-5).reshape([4, 3, 3, 3])
            h = F.conv2d_transpose(h, ctw, ctb, stride=2)
            h = F.instance_norm(h, weight=inw, bias=inb, epsilon=1e-5)
            pred = h.reshape([-1, 72]) @ fcw + fcb
            loss = ((pred - fg.to_tensor(ys)) ** 2).mean()
            eager_losses.append(loss.numpy())
            opt.clear_grad()
            loss.backward()
            opt.step()
        np.testing.assert_allclose(losses, eager_losses, rtol=1e-9)
        for n, t in zip(trainable, w):
            np.testing.assert_allclose(end[n], t.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(moving_end["bn_mean"], rm.numpy(), rtol=1e-12)
        np.testing.assert_allclose(moving_end["bn_var"], rv.numpy(), rtol=1e-12)
        assert not np.allclose(moving_end["bn_mean"], moving["bn_mean"])
    finally:
        fg.enable_static()


def test_static_nn_embedding_and_conv3d_record():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        ids = static.data("ids", [-1, 3], "int64")
        emb = static.nn.embedding(ids, [10, 4], padding_idx=0, dtype="float64")
        v = static.data("v", [-1, 2, 4, 4, 4], "float64")
        c = static.nn.conv3d(v, 3, 2, bias_attr=False)
        assert emb.shape == [-1, 3, 4] and c.shape == [-1, 3, 3, 3, 3]
        (gw,) = static.gradients([emb.sum()], [main.all_parameters()[0]])
    exe = static.Executor()
    exe.run(startup)
    idv = np.array([[0, 1, 1], [9, 0, 2]])
    e, g = exe.run(main, feed={"ids": idv, "v": a(0, (1, 2, 4, 4, 4))}, fetch_list=[emb, gw])
    table = static.global_scope().find_var(main.all_parameters()[0].name).numpy()
    np.testing.assert_array_equal(e, table[idv])
    want = np.zeros((10, 4))
    for i in idv.ravel():
        if i != 0:
            want[i] += 1
    np.testing.assert_array_equal(g, want)


def test_a_test_clone_runs_dropout_and_batch_norm_in_evaluation_mode():
    xv = a(0, (4, 3, 2, 2))
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 3, 2, 2], "float64")
        h = static.nn.batch_norm(x, moving_mean_name="m", moving_variance_name="v")
        y = F.dropout(h, 0.5)
    test = main.clone(for_test=True)
    exe = static.Executor()
    exe.run(startup)
    scope = static.global_scope()
    (train_out,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
    mean, var = scope.find_var("m").numpy(), scope.find_var("v").numpy()
    np.testing.assert_allclose(mean, 0.1 * xv.mean(axis=(0, 2, 3)), rtol=1e-12)
    assert np.any(train_out == 0.0)
    (test_out,) = exe.run(test, feed={"x": xv}, fetch_list=[y.name])
    np.testing.assert_array_equal(scope.find_var("m").numpy(), mean)  # not updated
    want = (xv - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(test_out, want, rtol=1e-12)
    # the training program still trains afterwards
    exe.run(main, feed={"x": xv}, fetch_list=[y])
    assert not np.allclose(scope.find_var("m").numpy(), mean)
