"""``paddle.flops`` (Paddle's counting rules, python/paddle/hapi/dynamic_flops.py; the
LeNet totals are the ones its docstring prints), ``paddle.utils.run_check()`` and
``paddle.get_cudnn_version()``."""

import ferrograd as paddle
import ferrograd.nn as nn
import pytest


class LeNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
        )
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        return self.fc(paddle.flatten(self.features(x), 1))


def test_lenet_totals_and_table(capsys):
    net = LeNet()
    assert paddle.flops(net, [1, 1, 28, 28], print_detail=True) == 347560
    out = capsys.readouterr().out
    assert "Total Flops: 347560     Total Params: 61610" in out
    assert "Treat it as zero FLOPs." in out  # MaxPool2D has no rule
    rows = [r for r in out.splitlines() if r.startswith("|")]
    assert len(rows) == 10 and "Layer Name" in rows[0]
    assert [c.strip() for c in rows[1].strip("|").split("|")] == [
        net.features[0].full_name(),
        "[1, 1, 28, 28]",
        "[1, 6, 28, 28]",
        "60",
        "47040",
    ]
    # nothing left behind: no hooks, no counters, the mode restored
    assert net.training
    assert all("total_ops" not in m.__dict__ for m in net.sublayers())
    paddle.flops(net, [1, 1, 28, 28])
    assert capsys.readouterr().out.count("Total Flops") == 1


def test_rules_per_layer(capsys):
    def count(layer, shape):
        return paddle.flops(layer, shape)

    # conv: numel(out) * (in / groups * prod(kernel) + bias)
    assert count(nn.Conv2D(4, 6, 3, groups=2, bias_attr=False), [1, 4, 5, 5]) == 9 * 6 * 2 * 9
    # batch norm, counted in eval mode: 2 * numel(in)
    assert count(nn.BatchNorm2D(3), [2, 3, 4, 4]) == 2 * 96
    # adaptive average pooling: numel(out) * (prod(in // out) + 1)
    assert count(nn.AdaptiveAvgPool2D(2), [1, 3, 8, 8]) == 12 * (16 + 1)
    assert count(nn.AvgPool2D(2), [1, 1, 4, 4]) == 4
    assert count(nn.LeakyReLU(), [2, 5]) == 10
    # the PyTorch-spelled classes count the same
    assert count(nn.Conv2d(4, 6, 3), [1, 4, 5, 5]) == 9 * 6 * (4 * 9 + 1)
    assert count(nn.Linear(4, 2), [3, 4]) == 6 * 4
    capsys.readouterr()


def test_custom_ops(capsys):
    def count_leaky_relu(m, x, y):
        m.total_ops += int(x[0].numel()) * 7

    net = nn.Sequential(nn.Linear(3, 4), nn.LeakyReLU())
    assert paddle.flops(net, [2, 3], custom_ops={nn.LeakyReLU: count_leaky_relu}) == 24 + 56
    assert "Customize Function has been applied to" in capsys.readouterr().out


def test_flops_refuses_what_it_cannot_count():
    with pytest.raises(TypeError, match="nn.Layer"):
        paddle.flops(object(), [1])


def test_run_check_and_cudnn(capsys):
    paddle.utils.run_check()
    out = capsys.readouterr().out
    assert "works well on 1 CPU" in out and "installed successfully" in out
    assert paddle.get_cudnn_version() is None
