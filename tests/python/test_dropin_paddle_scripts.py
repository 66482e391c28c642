"""Gaps found running Paddle tutorial-style scripts with only the import line changed
(session 17): each test is one idiom those scripts use, checked against NumPy."""

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.io import DataLoader, Dataset


class _Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return np.array([i, i * i], dtype="float32"), np.array([i % 2], dtype="int64")


def test_dataloader_called_like_a_function_iterates_an_epoch():
    # Paddle's tutorials write `for x, y in loader():`
    loader = DataLoader(_Squares(), batch_size=4, shuffle=False)
    batches = list(loader())
    assert [b[0].shape for b in batches] == [[4, 2], [2, 2]]
    np.testing.assert_array_equal(batches[1][0].numpy(), [[4, 16], [5, 25]])
    np.testing.assert_array_equal(batches[0][1].numpy().ravel(), [0, 1, 0, 1])
    assert len(list(loader())) == 2  # a new epoch each call


def test_register_buffer_takes_paddles_persistable_keyword():
    class WithTable(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.register_buffer("pe", paddle.arange(3.0), persistable=False)
            self.register_buffer("kept", paddle.ones([2]), persistable=True)

        def forward(self, x):
            return x + self.pe

    layer = WithTable()
    assert sorted(layer.state_dict().keys()) == ["kept"]
    np.testing.assert_array_equal(layer(paddle.zeros([3])).numpy(), [0.0, 1.0, 2.0])
    assert [n for n, _ in layer.named_buffers()] == ["pe", "kept"]


def _adamw_step_numpy(p, g, lr, decay, b1=0.9, b2=0.999, eps=1e-8):
    # one AdamW step from zero moments (t = 1)
    p = p * (1 - lr * decay)
    m = (1 - b1) * g / (1 - b1)
    v = (1 - b2) * g * g / (1 - b2)
    return p - lr * m / (np.sqrt(v) + eps)


def test_adamw_apply_decay_param_fun_and_lr_ratio_follow_paddle():
    # PaddleNLP's idiom: decay only the names collected from the non-bias, non-norm params
    w = paddle.create_parameter([2, 2], "float64")
    b = paddle.create_parameter([2], "float64")
    w.set_value(np.array([[1.0, -2.0], [0.5, 3.0]]))
    b.set_value(np.array([4.0, -1.0]))
    decay_names = [w.name]
    opt = paddle.optimizer.AdamW(
        learning_rate=0.1,
        parameters=[w, b],
        weight_decay=0.5,
        apply_decay_param_fun=lambda n: n in decay_names,
        lr_ratio=lambda p: 0.5 if p is b else 1.0,
    )
    x = paddle.to_tensor(np.array([1.0, 2.0]))
    ((w @ x + b) ** 2).sum().backward()
    gw, gb = w.grad.numpy(), b.grad.numpy()
    w0, b0 = w.numpy(), b.numpy()
    opt.step()
    np.testing.assert_allclose(w.numpy(), _adamw_step_numpy(w0, gw, 0.1, 0.5), rtol=1e-12)
    # no decay, half the rate
    np.testing.assert_allclose(b.numpy(), _adamw_step_numpy(b0, gb, 0.05, 0.0), rtol=1e-12)


def test_adamw_lr_ratio_follows_a_scheduler():
    p = paddle.create_parameter([1], "float64")
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.2, step_size=1, gamma=0.5)
    opt = paddle.optimizer.AdamW(
        learning_rate=sched, parameters=[p], weight_decay=0.0, lr_ratio=lambda _: 0.25
    )
    assert opt.param_groups[0]["lr"] == 0.05
    sched.step()
    (p * 1.0).sum().backward()
    before = p.numpy().copy()
    opt.step()
    # a step syncs the group's rate with the scheduler: 0.1 * 0.25, and |m / sqrt(v)| = 1
    np.testing.assert_allclose(p.numpy(), before - 0.1 * 0.25, rtol=0, atol=1e-9)


def test_label_smooth_matches_the_formula_and_its_gradient():
    f = paddle.nn.functional
    onehot = np.eye(4)[[1, 3, 0]]
    got = f.label_smooth(paddle.to_tensor(onehot), epsilon=0.2)
    np.testing.assert_allclose(got.numpy(), 0.8 * onehot + 0.05, rtol=1e-15)
    prior = np.array([[0.1, 0.2, 0.3, 0.4]])
    got = f.label_smooth(paddle.to_tensor(onehot), prior_dist=paddle.to_tensor(prior), epsilon=0.5)
    np.testing.assert_allclose(got.numpy(), 0.5 * onehot + 0.5 * prior, rtol=1e-15)
    # the smoothed one-hot as a soft label gives PyTorch's label_smoothing loss
    logits = np.array([[1.0, 2.0, 0.5, -1.0], [0.3, 0.2, 0.1, 0.0], [2.0, 0.0, 1.0, 1.0]])
    x = paddle.to_tensor(logits, stop_gradient=False)
    soft = f.label_smooth(paddle.to_tensor(onehot), epsilon=0.2)
    loss = f.cross_entropy(x, soft, soft_label=True)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    want = -((0.8 * onehot + 0.05) * logp).sum(1).mean()
    np.testing.assert_allclose(float(loss), want, rtol=1e-12)
    assert paddle.autograd.gradcheck(
        lambda t: f.label_smooth(t, epsilon=0.3), (paddle.to_tensor(onehot, stop_gradient=False),)
    )


def test_label_smooth_refuses_integer_labels():
    import pytest

    with pytest.raises(TypeError, match="float tensor"):
        paddle.nn.functional.label_smooth(paddle.to_tensor([[0, 1]]))


def test_optimizer_learning_rate_attribute_is_the_schedule_or_the_rate():
    # Paddle code steps the schedule through the optimizer (session 18's text classifier)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    net = paddle.nn.Linear(2, 2)
    opt = paddle.optimizer.AdamW(learning_rate=sched, parameters=net.parameters())
    assert opt._learning_rate is sched
    opt._learning_rate.step()
    assert opt.get_lr() == pytest.approx(0.05)
    sgd = paddle.optimizer.SGD(learning_rate=0.3, parameters=net.parameters())
    assert sgd._learning_rate == pytest.approx(0.3)
