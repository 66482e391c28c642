"""``paddle.summary`` prints Paddle's table (python/paddle/hapi/model_summary.py): the
docstring's LeNet example line for line (layer numbers follow each layer's
``full_name()`` counter, as in Paddle), inputs given as a list passed as one argument,
non-leaf custom layers as rows, own parameters only, the size estimates."""

import pathlib
import re
import subprocess
import sys

import ferrograd as paddle
import ferrograd.nn as nn
import pytest

# Paddle's docstring output for LeNetMultiInput, with the layer numbers as placeholders
EXPECTED = """\
---------------------------------------------------------------------------
 Layer (type)       Input Shape          Output Shape         Param #    
===========================================================================
   Conv2D-{c1}       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60       
    ReLU-{r1}        [[1, 6, 28, 28]]      [1, 6, 28, 28]           0       
  MaxPool2D-{m1}     [[1, 6, 28, 28]]      [1, 6, 14, 14]           0       
   Conv2D-{c2}       [[1, 6, 14, 14]]     [1, 16, 10, 10]         2,416     
    ReLU-{r2}       [[1, 16, 10, 10]]     [1, 16, 10, 10]           0       
  MaxPool2D-{m2}    [[1, 16, 10, 10]]      [1, 16, 5, 5]            0       
   Linear-{l1}          [[1, 400]]            [1, 120]           48,120     
   Linear-{l2}          [[1, 120]]            [1, 84]            10,164     
   Linear-{l3}          [[1, 84]]             [1, 10]              850      
===========================================================================
Total params: 61,610
Trainable params: 61,610
Non-trainable params: 0
---------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.11
Params size (MB): 0.24
Estimated Total Size (MB): 0.35
---------------------------------------------------------------------------

"""  # noqa: W291


class LeNet(nn.Layer):
    def __init__(self, list_input=False):
        super().__init__()
        self.list_input = list_input
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
        )
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, inputs, y=None):
        if self.list_input:
            inputs, y = inputs
        return self.fc(paddle.flatten(self.features(inputs), 1) + y)


def _numbers(net):
    n = [int(m.full_name().split("_")[-1]) + 1 for m in (*net.features, *net.fc)]
    return dict(c1=n[0], r1=n[1], m1=n[2], c2=n[3], r2=n[4], m2=n[5], l1=n[6], l2=n[7], l3=n[8])


def _same_layout(want, got):
    # the layer numbers depend on how many layers this process made before (and their
    # width moves the centred cells): compare the cells with the numbers taken out
    strip = re.compile(r"-\d+")
    assert [strip.sub("-", " ".join(a.split())) for a in want.splitlines()] == [
        strip.sub("-", " ".join(b.split())) for b in got.splitlines()
    ]


def test_docstring_example_exactly_in_a_fresh_process():
    """In a fresh process the numbers start at 1: Paddle's docstring text, byte for byte
    (trailing spaces of the centred cells included)."""
    code = (
        f"import sys; sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})\n"
        "import test_paddle_summary as t\n"
        "net = t.LeNet()\n"
        "t.paddle.summary(net, [(1, 1, 28, 28), (1, 400)], dtypes=['float32', 'float32'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    nums = dict(c1=1, r1=1, m1=1, c2=2, r2=2, m2=2, l1=1, l2=2, l3=3)
    assert out == EXPECTED.format(**nums)


def test_docstring_example_multi_input(capsys):
    net = LeNet()
    info = paddle.summary(net, [(1, 1, 28, 28), (1, 400)], dtypes=["float32", "float32"])
    assert info == {"total_params": 61610, "trainable_params": 61610}
    out = capsys.readouterr().out
    want = EXPECTED.format(**_numbers(net))
    _same_layout(want, out)
    keys = [line.split()[0] for line in out.splitlines()[3:12]]
    assert keys == [line.split()[0] for line in want.splitlines()[3:12]]


def test_list_input_is_one_argument(capsys):
    net = LeNet(list_input=True)
    data = [paddle.rand([1, 1, 28, 28]), paddle.rand([1, 400])]
    assert paddle.summary(net, input=data)["total_params"] == 61610
    _same_layout(EXPECTED.format(**_numbers(net)), capsys.readouterr().out)


def test_custom_block_rows_own_params_and_training_mode(capsys):
    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.scale = self.create_parameter([4])

        def forward(self, x):
            return self.lin(x) * self.scale

    net = nn.Sequential(Block(), nn.ReLU())
    net.train()
    net[0].lin.weight.stop_gradient = True
    info = paddle.summary(net, (-1, 4))
    assert info == {"total_params": 24, "trainable_params": 8}
    rows = [r.split() for r in capsys.readouterr().out.splitlines() if "[[" in r]
    # the inner Linear fires first, then the Block (its own parameter: 4), then ReLU
    assert [r[0].split("-")[0] for r in rows] == ["Linear", "Block", "ReLU"]
    assert [r[-1] for r in rows] == ["20", "4", "0"]
    assert net.training


def test_bad_sizes():
    net = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="cannot be None"):
        paddle.summary(net)
    with pytest.raises(ValueError, match="only the dim of batch_size"):
        paddle.summary(net, (None, -1))
    with pytest.raises(ValueError, match="greater than zero"):
        paddle.summary(net, (1, 0))
