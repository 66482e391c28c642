"""Paddle's high-level API: ``paddle.Model`` (prepare / fit / evaluate / predict / save /
load / train_batch) and ``paddle.callbacks``, checked against a hand-written loop."""

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.io import DataLoader, Dataset
from ferrograd.static import InputSpec


class _Data(Dataset):
    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 6).astype("float32")
        self.y = (self.x[:, :3].sum(1) > 0).astype("int64").reshape(-1, 1)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def _net(seed=0):
    paddle.seed(seed)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))


def test_fit_matches_a_hand_written_loop():
    data = _Data(64, 0)
    net_a, net_b = _net(), _net()
    model = paddle.Model(net_a)
    opt_a = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    model.prepare(opt_a, nn.CrossEntropyLoss())
    model.fit(data, batch_size=16, epochs=2, shuffle=False, verbose=0)

    opt_b = paddle.optimizer.SGD(learning_rate=0.1, parameters=net_b.parameters())
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(2):
        for x, y in DataLoader(data, batch_size=16, shuffle=False):
            loss_fn(net_b(x), y).backward()
            opt_b.step()
            opt_b.clear_grad()
    for pa, pb in zip(net_a.parameters(), net_b.parameters()):
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())


def test_evaluate_predict_and_metrics():
    data = _Data(40, 1)
    net = _net()
    model = paddle.Model(
        net,
        inputs=[InputSpec([None, 6], "float32", "x")],
        labels=[InputSpec([None, 1], "int64", "y")],
    )
    model.prepare(
        paddle.optimizer.Adam(parameters=net.parameters()),
        nn.CrossEntropyLoss(),
        paddle.metric.Accuracy(),
    )
    res = model.evaluate(data, batch_size=8, verbose=0)
    with paddle.no_grad():
        logits = net(paddle.to_tensor(data.x))
        loss = nn.CrossEntropyLoss()(logits, paddle.to_tensor(data.y)).item()
        acc = float((logits.numpy().argmax(1) == data.y[:, 0]).mean())
    assert res["loss"][0] == pytest.approx(loss, rel=1e-6)  # equal batches: mean of means
    assert res["acc"] == pytest.approx(acc)
    out = model.predict(data, batch_size=8, stack_outputs=True, verbose=0)
    np.testing.assert_allclose(out[0], logits.numpy(), rtol=1e-5, atol=1e-6)  # batch of 8 vs 40
    batches = model.predict(data, batch_size=16, verbose=0)
    assert [b.shape[0] for b in batches[0]] == [16, 16, 8]


def test_train_batch_returns_losses_and_metric_results():
    net = _net()
    model = paddle.Model(net)
    model.prepare(
        paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters()),
        nn.CrossEntropyLoss(),
        paddle.metric.Accuracy(),
    )
    data = _Data(8, 2)
    losses, metrics = model.train_batch([data.x], [data.y])
    assert len(losses) == 1 and np.asarray(losses[0]).size == 1 and len(metrics) == 1
    assert model.eval_batch([data.x], [data.y])[0][0] < 10
    assert model.predict_batch([data.x])[0].shape == (8, 2)


def test_save_and_load_round_trip(tmp_path):
    net = _net(1)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(parameters=net.parameters()), nn.CrossEntropyLoss())
    model.fit(_Data(32, 3), batch_size=8, epochs=1, verbose=0)
    model.save(str(tmp_path / "ck" / "m"))
    assert (tmp_path / "ck" / "m.pdparams").exists() and (tmp_path / "ck" / "m.pdopt").exists()
    other = _net(7)
    m2 = paddle.Model(other)
    m2.prepare(paddle.optimizer.Adam(parameters=other.parameters()), nn.CrossEntropyLoss())
    m2.load(str(tmp_path / "ck" / "m"))
    for pa, pb in zip(net.parameters(), other.parameters()):
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())


def test_callbacks_early_stopping_checkpoint_and_scheduler(tmp_path):
    net = _net()
    model = paddle.Model(net)
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
    model.prepare(
        paddle.optimizer.SGD(learning_rate=sched, parameters=net.parameters()),
        nn.CrossEntropyLoss(),
        paddle.metric.Accuracy(),
    )
    seen = []

    class Record(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append((step, logs["loss"][0], logs["acc"]))

    model.fit(
        _Data(32, 0),
        batch_size=8,
        epochs=2,
        verbose=0,
        save_dir=str(tmp_path),
        callbacks=[Record()],
    )
    assert [s for s, _, _ in seen] == [0, 1, 2, 3] * 2
    assert sched.last_epoch == 8  # stepped after every batch (Paddle's LRScheduler default)
    assert (tmp_path / "0.pdparams").exists() and (tmp_path / "final.pdparams").exists()

    stop = paddle.callbacks.EarlyStopping(
        monitor="loss", patience=0, min_delta=1e9, save_best_model=False, verbose=0
    )
    model.fit(_Data(32, 0), _Data(16, 1), batch_size=8, epochs=5, verbose=0, callbacks=[stop])
    assert model.stop_training  # nothing improves by 1e9: stops after the first evaluation


def test_errors_name_what_to_do():
    net = _net()
    model = paddle.Model(net)
    with pytest.raises(RuntimeError, match="prepare"):
        model.train_batch([np.zeros((2, 6), "float32")], [np.zeros((2, 1), "int64")])
    with pytest.raises(TypeError, match="nn.Layer"):
        paddle.Model(object())
    with pytest.raises(TypeError, match="Metric"):
        model.prepare(None, nn.CrossEntropyLoss(), metrics=[object()])
    with pytest.raises(ValueError, match="by_step"):
        paddle.callbacks.LRScheduler(by_step=False, by_epoch=False)
