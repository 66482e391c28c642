"""``nn.Layer`` classes in static programs (Paddle's static-mode style): a layer built
while ``enable_static()`` is in effect holds static parameters of the default main
program, initialised by the startup program to the values its initialisers drew (so a
model built after ``seed(n)`` starts where the eager one built after ``seed(n)`` does);
calling it records ops; ``minimize`` trains it; batch norm's running statistics update
in training programs and are used by ``clone(for_test=True)``. Everything is checked
against the same model run eagerly, in float64."""

from __future__ import annotations

import re

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn, static


@pytest.fixture(autouse=True)
def float64_static():
    fg.set_default_dtype("float64")
    fg.enable_static()
    try:
        with static.scope_guard(static.Scope()):
            yield
    finally:
        fg.disable_static()
        fg.set_default_dtype("float32")


def rand(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


def eager(make):
    """``make()`` built in dynamic mode, in float64."""
    fg.disable_static()
    try:
        return make().double()
    finally:
        fg.enable_static()


def run_eager(fn):
    fg.disable_static()
    try:
        return fn()
    finally:
        fg.enable_static()


def values(variables):
    scope = static.global_scope()
    return [scope.find_var(v.name).numpy() for v in variables]


IDS = (2, 3)  # the shape of Embedding's integer input

# layer constructors (both dialects) and an input shape
LAYERS = [
    (lambda: nn.Linear(4, 3), (5, 4)),
    (lambda: nn.Conv1D(2, 3, 3, padding=1), (2, 2, 7)),
    (lambda: nn.Conv2D(2, 3, 3, stride=2, padding=1), (2, 2, 6, 6)),
    (lambda: nn.Conv3D(2, 3, 2), (1, 2, 4, 4, 4)),
    (lambda: nn.Conv2DTranspose(2, 3, 3, stride=2), (2, 2, 4, 4)),
    (lambda: nn.Conv2d(2, 3, 3, groups=1, bias=False), (2, 2, 6, 6)),
    (lambda: nn.ConvTranspose2d(2, 4, 2, stride=2, groups=2), (2, 2, 3, 3)),
    (lambda: nn.BatchNorm1D(3), (6, 3)),
    (lambda: nn.BatchNorm2D(3, momentum=0.8), (4, 3, 2, 2)),
    (lambda: nn.BatchNorm(3, dtype="float64"), (4, 3, 2, 2)),  # (its default: float32)
    (lambda: nn.BatchNorm2d(3), (4, 3, 2, 2)),
    (lambda: nn.BatchNorm1d(3, affine=False), (6, 3)),
    (lambda: nn.LayerNorm([2, 3]), (4, 2, 3)),
    (lambda: nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    (lambda: nn.InstanceNorm2D(3), (2, 3, 4, 4)),
    (lambda: nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 4)),
    (lambda: nn.RMSNorm(4), (3, 4)),
    (lambda: nn.PReLU(3), (2, 3, 4)),
    (lambda: nn.LeakyReLU(0.2), (3, 4)),
    (lambda: nn.ELU(0.5), (3, 4)),
    (lambda: nn.Hardtanh(-0.5, 0.5), (3, 4)),
    (lambda: nn.Softshrink(0.3), (3, 4)),
    (lambda: nn.MaxPool2D(2), (2, 3, 4, 4)),
    (lambda: nn.AvgPool2d(3, stride=1, padding=1), (2, 3, 4, 4)),
    (lambda: nn.AdaptiveAvgPool2D(1), (2, 3, 4, 4)),
    (lambda: nn.Flatten(), (2, 3, 2, 2)),
    (lambda: nn.Embedding(10, 4, padding_idx=0), IDS),
]


@pytest.mark.parametrize("make, shape", LAYERS)
def test_each_layer_records_its_eager_forward_and_gradients(make, shape):
    is_ids = shape is IDS
    fg.seed(7)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        layer = make()
        x = static.data("x", [-1, *shape[1:]], "int64" if is_ids else "float64")
        y = layer(x)
        params = layer.parameters()
        assert all(isinstance(p, static.Variable) for p in params)
        assert params == main.all_parameters()[: len(params)]
        targets = params if is_ids else [x, *params]
        grads = static.gradients([(y * y).sum()], targets)
    xv = np.array([[1, 0, 3], [9, 9, 2]]) if is_ids else rand(1, shape)
    exe = static.Executor()
    exe.run(startup)
    start = values(params)
    got = exe.run(main, feed={"x": xv}, fetch_list=[y, *grads])

    fg.seed(7)
    model = eager(make)
    for p, v in zip(model.parameters(), start):
        np.testing.assert_array_equal(p.numpy(), v)  # the eager initial values
    t = fg.to_tensor(xv) if is_ids else fg.to_tensor(xv, stop_gradient=False)
    want = run_eager(lambda: model(t))
    run_eager(lambda: (want * want).sum().backward())
    np.testing.assert_allclose(got[0], want.numpy(), rtol=1e-12, atol=1e-12)
    eager_targets = list(model.parameters()) if is_ids else [t, *model.parameters()]
    for g, e in zip(got[1:], eager_targets):
        np.testing.assert_allclose(g, e.grad.numpy(), rtol=1e-10, atol=1e-12)
    # running statistics, where the layer keeps them, were updated like the eager ones
    compare_buffers(layer, model, rtol=1e-12)


def compare_buffers(static_layer, eager_layer, rtol):
    """Equal buffers, by name (``num_batches_tracked`` is not counted in static programs)."""
    eager_buffers = dict(eager_layer.named_buffers())
    names = [n for n, _ in static_layer.named_buffers() if "num_batches_tracked" not in n]
    static_values = values([b for n, b in static_layer.named_buffers() if n in names])
    for n, v in zip(names, static_values):
        np.testing.assert_allclose(v, eager_buffers[n].numpy(), rtol=rtol, atol=1e-12)


def _train_static(make, xs, ys, make_opt, steps, loss_fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        model = make()
        x = static.data("x", [-1, *xs.shape[1:]], "float64")
        y = static.data("y", [-1, *ys.shape[1:]], ys.dtype.name)
        loss = loss_fn(model(x), y)
        test = main.clone(for_test=True)
        make_opt(model.parameters()).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    losses = [exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])[0] for _ in range(steps)]
    (test_out,) = exe.run(test, feed={"x": xs, "y": ys}, fetch_list=[loss.name])
    return model, losses, test_out


def _train_eager(make, xs, ys, make_opt, steps, loss_fn):
    def go():
        model = make().double()
        opt = make_opt(model.parameters())
        x, y = fg.to_tensor(xs), fg.to_tensor(ys)
        losses = []
        for _ in range(steps):
            loss = loss_fn(model(x), y)
            losses.append(loss.numpy())
            opt.clear_grad()
            loss.backward()
            opt.step()
        model.eval()
        with fg.no_grad():
            test_out = loss_fn(model(x), y).numpy()
        return model, losses, test_out

    return run_eager(go)


def _compare(make, xs, ys, make_opt, loss_fn, steps=4):
    fg.seed(3)
    model, losses, test_out = _train_static(make, xs, ys, make_opt, steps, loss_fn)
    fg.seed(3)
    emodel, elosses, etest = _train_eager(make, xs, ys, make_opt, steps, loss_fn)
    np.testing.assert_allclose(losses, elosses, rtol=1e-9)
    assert losses[-1] < losses[0]
    for p, e in zip(values(model.parameters()), emodel.parameters()):
        np.testing.assert_allclose(p, e.numpy(), rtol=1e-9, atol=1e-12)
    compare_buffers(model, emodel, rtol=1e-9)
    # the test program: evaluation mode with the trained parameters and statistics
    np.testing.assert_allclose(test_out, etest, rtol=1e-9)
    return model


def mse(out, y):
    return fg.mean((out - y) ** 2)


def test_paddle_sequential_cnn_trains_like_eager():
    xs, ys = rand(0, (8, 2, 6, 6)), rand(1, (8, 3))

    def make():
        return nn.Sequential(
            nn.Conv2D(2, 4, 3, padding=1),
            nn.BatchNorm2D(4),
            nn.ReLU(),
            nn.MaxPool2D(2),
            nn.Flatten(),
            nn.Linear(36, 3),
        )

    model = _compare(
        make, xs, ys, lambda ps: fg.optimizer.Adam(learning_rate=0.01, parameters=ps), mse
    )
    # Paddle's naming: <layer>_<n>.w_0 / .b_0
    names = [p.name for p in model.parameters()]
    for name, layer in zip(names, ["conv2d", "conv2d", "batch_norm2d", "batch_norm2d", "linear"]):
        assert re.fullmatch(rf"{layer}_\d+\.[wb]_0", name), name
    mean = values(model.buffers())[0]
    assert not np.allclose(mean, 0.0)  # the running mean moved


def test_paddle_mlp_with_dropout_trains_like_eager():
    xs = rand(0, (16, 5))
    ys = np.random.default_rng(2).integers(0, 3, (16,)).astype("int64")

    def make():
        return nn.Sequential(
            nn.Linear(5, 8),
            nn.LayerNorm(8),
            nn.GELU(),
            nn.Dropout(0.3),
            nn.Linear(8, 8),
            nn.Tanh(),
            nn.Linear(8, 3),
        )

    _compare(
        make,
        xs,
        ys,
        lambda ps: fg.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=ps),
        lambda out, y: nn.CrossEntropyLoss()(out, y),
    )


def test_torch_classes_train_like_eager():
    import ferrograd as torch

    xs, ys = rand(0, (6, 3, 5, 5)), rand(1, (6, 2))

    def make():
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 4, 3),
            torch.nn.BatchNorm2d(4),
            torch.nn.ReLU(),
            torch.nn.AvgPool2d(3),
            torch.nn.Flatten(),
            torch.nn.Linear(4, 2),
        )

    _compare(
        make, xs, ys, lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5), torch.nn.MSELoss()
    )


def test_dropout_layer_is_the_identity_in_a_test_clone():
    xv = rand(0, (4, 6))
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 6], "float64")
        y = nn.Dropout(0.5)(x)
        test = main.clone(for_test=True)
    exe = static.Executor()
    exe.run(startup)
    (train_out,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
    (test_out,) = exe.run(test, feed={"x": xv}, fetch_list=[y.name])
    assert np.any(train_out == 0.0)
    np.testing.assert_array_equal(test_out, xv)


def test_param_attr_name_and_trainable_are_kept():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        layer = nn.Linear(
            3, 2, weight_attr=fg.ParamAttr(name="fc_w", trainable=False), bias_attr=None
        )
        x = static.data("x", [-1, 3], "float64")
        loss = fg.mean(layer(x))
        fg.optimizer.SGD(learning_rate=0.5).minimize(loss)
    w, b = layer.parameters()
    assert w.name == "fc_w" and not w.trainable and b.trainable
    exe = static.Executor()
    exe.run(startup)
    w0, b0 = values([w, b])
    exe.run(main, feed={"x": rand(0, (4, 3))}, fetch_list=[loss])
    w1, b1 = values([w, b])
    np.testing.assert_array_equal(w0, w1)  # not trained
    assert not np.allclose(b0, b1)


def test_state_dict_and_set_state_dict_of_a_static_layer():
    fg.seed(0)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        layer = nn.BatchNorm1D(2)
    keys = list(layer.state_dict())
    assert keys == ["weight", "bias", "_mean", "_variance"]
    assert all(isinstance(v, static.Variable) for v in layer.state_dict().values())
    static.Executor().run(startup)
    layer.set_state_dict({"weight": np.array([2.0, 3.0]), "_mean": np.array([0.5, -0.5])})
    w, _, m, _ = values(layer.state_dict().values())
    np.testing.assert_array_equal(w, [2.0, 3.0])
    np.testing.assert_array_equal(m, [0.5, -0.5])


def test_a_layer_registered_after_construction_is_static_too():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        model = nn.Sequential()
        model.add_sublayer("fc", nn.Linear(2, 2))
        # (an eager value: fg.ones in static mode records a constant, as in Paddle)
        model.scale = nn.Parameter(fg.to_tensor(np.ones(2, "float32")))
        assert isinstance(model.scale, static.Variable)
        assert len(model.parameters()) == 3


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: nn.LSTM(4, 3), "LSTM"),
        (lambda: nn.GRUCell(4, 3), "GRUCell"),
        (lambda: nn.MultiHeadAttention(4, 2), "MultiHeadAttention"),
        (lambda: nn.RReLU(), "RReLU"),
    ],
)
def test_layers_static_programs_cannot_run_are_refused_when_built(make, name):
    with static.program_guard(static.Program(), static.Program()):
        with pytest.raises(
            NotImplementedError, match=f"{name} cannot be built in a static program"
        ):
            make()


def test_padding_modes_are_refused_with_the_alternative():
    with static.program_guard(static.Program(), static.Program()):
        conv = nn.Conv2D(2, 3, 3, padding=1, padding_mode="reflect")
        x = static.data("x", [-1, 2, 5, 5], "float64")
        with pytest.raises(NotImplementedError, match="F.pad"):
            conv(x)


def test_an_eagerly_built_layer_is_refused_in_a_static_program():
    layer = eager(lambda: nn.Linear(3, 2))
    conv = eager(lambda: nn.Conv2D(2, 3, 3))
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3], "float64")
        with pytest.raises(TypeError, match="eager Parameter.*enable_static"):
            layer(x)
        v = static.data("v", [-1, 2, 5, 5], "float64")
        with pytest.raises(TypeError, match="eager Parameter.*enable_static"):
            conv(v)
        # a plain tensor is still a constant
        y = x @ fg.to_tensor(rand(0, (3, 2)))
        assert y.shape == [-1, 2]


def test_dynamic_mode_layers_are_unchanged():
    fg.disable_static()
    try:
        layer = nn.Linear(3, 2)
        assert type(layer.weight).__name__ == "Parameter"
        assert layer(fg.ones([1, 3])).shape == [1, 2]
    finally:
        fg.enable_static()


def _mlp_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.Linear(4, 1))
        x = static.data("x", [-1, 3], "float64")
        loss = fg.mean(model(x) ** 2)
        fg.optimizer.Adam(learning_rate=0.05).minimize(loss)
    return main, startup, model, loss


def test_program_state_dict_separates_parameters_from_optimizer_state(tmp_path):
    main, startup, model, loss = _mlp_program()
    exe = static.Executor()
    exe.run(startup)
    xs = rand(0, (8, 3))
    for _ in range(2):
        exe.run(main, feed={"x": xs}, fetch_list=[loss])
    params = main.state_dict("param")
    names = {v.name for v in [*model.parameters(), *model.buffers()]}
    assert set(params) == names
    opt = main.state_dict("opt")
    assert opt and not set(opt) & names
    assert set(main.state_dict()) == set(params) | set(opt)
    np.testing.assert_array_equal(
        params[model[0].weight.name].numpy(), values([model[0].weight])[0]
    )

    # save, train on, load: back to the saved state, and training continues the same way
    static.save(main, str(tmp_path / "ckpt" / "mlp"))
    (after_save,) = exe.run(main, feed={"x": xs}, fetch_list=[loss])
    exe.run(main, feed={"x": xs}, fetch_list=[loss])
    static.load(main, str(tmp_path / "ckpt" / "mlp"))
    for k, v in main.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), (params | opt)[k].numpy())
    (again,) = exe.run(main, feed={"x": xs}, fetch_list=[loss])
    np.testing.assert_array_equal(again, after_save)


def test_program_set_state_dict_checks_shapes_and_warns_on_unknown_names():
    main, startup, model, _ = _mlp_program()
    static.Executor().run(startup)
    w = model[0].weight
    main.set_state_dict({w.name: np.ones(w.shape)})
    np.testing.assert_array_equal(values([w])[0], np.ones(w.shape))
    with pytest.raises(ValueError, match="shape"):
        main.set_state_dict({w.name: np.ones([2, 2])})
    with pytest.warns(UserWarning, match="skipping 'nope'"):
        main.set_state_dict({"nope": np.ones(2)})


def test_save_needs_initialised_parameters(tmp_path):
    main, _, _, _ = _mlp_program()
    with pytest.raises(ValueError, match="run the startup program"):
        static.save(main, str(tmp_path / "m"))
    with pytest.raises(FileNotFoundError):
        static.load(main, str(tmp_path / "absent"))


def test_a_layer_used_in_another_program_says_where_to_build_it():
    with static.program_guard(static.Program(), static.Program()):
        layer = nn.Linear(3, 2)
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3], "float64")
        with pytest.raises(ValueError, match="belongs to another program.*same program_guard"):
            layer(x)
    with pytest.raises(TypeError, match="set_default_dtype"):
        layer.float()


class Affine(nn.Layer):
    """A custom layer written as Paddle's docs show it."""

    def __init__(self, n):
        super().__init__()
        self.w = self.create_parameter([n, n], default_initializer=nn.initializer.Normal(0.0, 0.5))
        self.add_parameter("b", self.create_parameter([n], is_bias=True))
        self.register_buffer("calls", fg.zeros([1]))

    def forward(self, x):
        return fg.tanh(fg.matmul(x, self.w) + self.b)


def test_a_custom_layer_trains_like_eager():
    xs, ys = rand(0, (8, 3)), rand(1, (8, 3))
    model = _compare(
        lambda: nn.Sequential(Affine(3), Affine(3)),
        xs,
        ys,
        lambda ps: fg.optimizer.SGD(learning_rate=0.2, parameters=ps),
        mse,
    )
    assert [n for n, _ in model.named_parameters()] == ["0.w", "0.b", "1.w", "1.b"]
    assert all(isinstance(b, static.Variable) for b in model.buffers())


def test_a_per_parameter_learning_rate_is_refused_with_the_alternative():
    with static.program_guard(static.Program(), static.Program()):
        with pytest.raises(NotImplementedError, match="parameter group"):
            nn.Linear(2, 2, weight_attr=fg.ParamAttr(learning_rate=0.5))


def test_a_layer_in_eval_mode_records_its_evaluation_forward():
    xv = rand(0, (4, 3, 2, 2))

    def make():
        return nn.Sequential(nn.BatchNorm2D(3), nn.Dropout(0.5))

    fg.seed(1)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        model = make()
        model.eval()
        x = static.data("x", [-1, 3, 2, 2], "float64")
        y = model(x)
    exe = static.Executor()
    exe.run(startup)
    static.global_scope().set(model[0]._mean.name, fg.to_tensor([0.5, -1.0, 2.0]))
    (got,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
    np.testing.assert_array_equal(values([model[0]._mean])[0], [0.5, -1.0, 2.0])  # unchanged

    fg.seed(1)
    emodel = eager(make)
    emodel[0]._mean.copy_(fg.to_tensor([0.5, -1.0, 2.0]))
    emodel.eval()
    want = run_eager(lambda: emodel(fg.to_tensor(xv)))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)
