"""Mixed precision: ``paddle.amp`` (auto_cast / amp_guard, GradScaler, decorate) and
``torch.autocast`` / ``torch.amp`` / ``torch.cpu.amp``: matmul / linear / conv run in the
low dtype inside the context, everything else in its inputs' dtype, gradients in the
inputs' own dtypes; dynamic loss scaling."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def test_matmul_linear_conv_run_low_inside_and_float32_outside():
    x = fg.randn([4, 5])
    w = fg.randn([5, 3])
    lin = nn.Linear(5, 3)
    conv = nn.Conv2d(2, 3, 3)
    img = fg.randn([1, 2, 5, 5])
    with fg.amp.auto_cast(dtype="bfloat16"):
        assert fg.amp.is_autocast_enabled()
        assert (x @ w).dtype == fg.bfloat16
        assert fg.matmul(x, w).dtype == fg.bfloat16
        assert lin(x).dtype == fg.bfloat16
        assert conv(img).dtype == fg.bfloat16
        assert x.sum().dtype == fg.float32  # reductions stay in their input's dtype
        assert (x * 2.0).dtype == fg.float32
        # a low result meeting float32 promotes to float32
        assert ((x @ w) + fg.zeros([4, 3])).dtype == fg.float32
    assert not fg.amp.is_autocast_enabled()
    assert (x @ w).dtype == fg.float32
    assert lin(x).dtype == fg.float32


def test_values_close_to_float32():
    x = fg.randn([8, 16])
    w = fg.randn([16, 4])
    with fg.autocast(device_type="cpu", dtype=fg.bfloat16):
        low = (x @ w).float().numpy()
    np.testing.assert_allclose(low, (x @ w).numpy(), rtol=0.05, atol=0.1)


def test_gradients_come_back_in_input_dtypes():
    model = nn.Linear(5, 5)
    x = fg.randn([5, 5])
    x.stop_gradient = False
    with fg.amp.auto_cast(level="O1", dtype="float16"):
        out = model(x)
    out.sum().backward()
    for t in (x, model.weight, model.bias):
        assert t.grad is not None and t.grad.dtype == t.dtype == fg.float32


def test_paddle_decorate_o2_and_grad_dtypes():
    # Paddle test_grad_dtype_consistency.test_amp
    model = nn.Linear(5, 5)
    opt = fg.optim.SGD(model.parameters(), lr=0.1)
    model, opt = fg.amp.decorate(models=model, optimizers=opt, level="O2")
    assert model.weight.dtype == fg.float16
    x = fg.randn([5, 5])
    x.stop_gradient = False
    with fg.amp.auto_cast(level="O2"):
        out = model(x)
    out.sum().backward()
    for t in (x, model.weight, model.bias):
        assert t.grad.dtype == t.dtype
    before = model.weight.numpy().copy()
    opt.step()
    assert not np.array_equal(before, model.weight.numpy())  # the optimizer holds the new params


def test_decorate_keeps_norm_layers_float32():
    net = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
    fg.amp.decorate(net, level="O2", dtype="bfloat16")
    assert net[0].weight.dtype == fg.bfloat16
    assert net[1].weight.dtype == fg.float32


def test_black_list_keeps_ops_float32_and_levels():
    x, w = fg.randn([2, 3]), fg.randn([3, 2])
    with fg.amp.auto_cast(custom_black_list=["matmul"]):
        assert (x @ w).dtype == fg.float32
    with fg.amp.auto_cast(custom_black_list={"conv2d"}):
        assert (
            nn.functional.conv2d(fg.randn([1, 1, 3, 3]), fg.randn([1, 1, 2, 2])).dtype == fg.float32
        )
        assert (x @ w).dtype == fg.float16
    with fg.amp.auto_cast(level="O0"):
        assert (x @ w).dtype == fg.float32
    with fg.amp.amp_guard(enable=False):
        assert (x @ w).dtype == fg.float32
    with pytest.raises(ValueError, match="level"):
        fg.amp.auto_cast(level="O3")
    with pytest.raises(ValueError, match="float16 or bfloat16"):
        fg.amp.auto_cast(dtype="float64")
    with pytest.raises(ValueError, match="CPU only"):
        fg.autocast(device_type="cuda")


def test_nesting_and_decorator_restore():
    x, w = fg.randn([2, 3]), fg.randn([3, 2])
    with fg.amp.autocast("cpu"):
        with fg.amp.autocast("cpu", enabled=False):
            assert (x @ w).dtype == fg.float32
        assert (x @ w).dtype == fg.bfloat16

    @fg.cpu.amp.autocast()
    def f(a, b):
        return a @ b

    assert f(x, w).dtype == fg.bfloat16
    assert (x @ w).dtype == fg.float32
    with pytest.raises(KeyError):
        with fg.amp.auto_cast():
            raise KeyError("x")
    assert not fg.amp.is_autocast_enabled()


def _train(scaler_factory, steps=3):
    fg.seed(0)
    model = nn.Linear(3, 1)
    opt = fg.optim.SGD(model.parameters(), lr=0.05)
    scaler = scaler_factory()
    x = fg.randn([16, 3])
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(steps):
        with fg.autocast("cpu"):
            loss = ((model(x).float() - y) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        losses.append(float(loss))
    return losses, scaler


def test_grad_scaler_training_loop_torch_spelling():
    losses, scaler = _train(lambda: fg.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2))
    assert losses[-1] < losses[0]
    assert scaler.get_scale() == 2048.0  # 3 finite steps, growth every 2


def test_grad_scaler_unscale_skip_and_backoff_paddle_spelling():
    p = fg.tensor([1.0, 2.0], stop_gradient=False)
    opt = fg.optim.SGD([p], lr=1.0)
    scaler = fg.amp.GradScaler(init_loss_scaling=8.0, decr_every_n_nan_or_inf=1)
    loss = (p * fg.tensor([1.0, float("inf")])).sum()
    scaler.scale(loss).backward()
    scaler.minimize(opt, loss)
    np.testing.assert_array_equal(p.numpy(), [1.0, 2.0])  # step skipped
    assert scaler.get_scale() == 4.0
    opt.clear_grad()
    loss = (p * 3.0).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    np.testing.assert_array_equal(p.grad.numpy(), [3.0, 3.0])
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(p.numpy(), [-2.0, -1.0])
    assert float(scaler.get_loss_scaling()) == 4.0
    state = scaler.state_dict()
    other = fg.amp.AmpScaler()
    other.load_state_dict(state)
    assert other.get_scale() == 4.0


def test_disabled_scaler_is_identity():
    scaler = fg.amp.GradScaler(enable=False)
    t = fg.tensor([2.0])
    assert scaler.scale(t) is t
    assert scaler.get_scale() == 1.0
