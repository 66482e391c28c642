"""Padding layers (issue 17): PyTorch's ``ZeroPad/ConstantPad/ReflectionPad/
ReplicationPad/CircularPad 1d/2d/3d`` and Paddle's ``Pad1D/2D/3D`` / ``ZeroPad1D/2D/3D``
against ``np.pad`` in float64, batched and unbatched, channels-last, with gradcheck /
gradgradcheck and bad input."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
X = {1: RNG.standard_normal((2, 3, 5)), 2: RNG.standard_normal((2, 3, 4, 5)),
     3: RNG.standard_normal((1, 2, 3, 4, 5))}  # fmt: skip
NP_MODE = {"Zero": "constant", "Constant": "constant", "Reflection": "reflect",
           "Replication": "edge", "Circular": "wrap"}  # fmt: skip
PADS = {1: (1, 2), 2: (2, 1, 0, 3), 3: (1, 0, 2, 1, 1, 2)}


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def np_widths(pads, ndim):
    """PyTorch's (left, right, top, bottom, ...) list as np.pad widths, last dim first."""
    k = len(pads) // 2
    widths = [(0, 0)] * (ndim - k)
    widths += [(pads[2 * i], pads[2 * i + 1]) for i in reversed(range(k))]
    return widths


def ref(a, pads, kind, value=0.0):
    mode = NP_MODE[kind]
    if mode == "constant":
        return np.pad(a, np_widths(pads, a.ndim), constant_values=value)
    return np.pad(a, np_widths(pads, a.ndim), mode=mode)


@pytest.mark.parametrize("kind", list(NP_MODE))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_torch_pad_layers_match_numpy(kind, k):
    cls = getattr(nn, f"{kind}Pad{k}d")
    args = (PADS[k], 2.5) if kind == "Constant" else (PADS[k],)
    layer = cls(*args)
    value = 2.5 if kind == "Constant" else 0.0
    a = X[k]
    np.testing.assert_array_equal(layer(t64(a)).numpy(), ref(a, PADS[k], kind, value))
    # unbatched [C, *spatial]
    np.testing.assert_array_equal(layer(t64(a[0])).numpy(), ref(a[0], PADS[k], kind, value))
    # an int pads every side
    one = cls(1, 2.5) if kind == "Constant" else cls(1)
    np.testing.assert_array_equal(one(t64(a)).numpy(), ref(a, (1,) * (2 * k), kind, value))


@pytest.mark.parametrize("kind", ["Reflection", "Replication", "Circular", "Constant"])
def test_torch_pad_layers_gradients(kind):
    cls = getattr(nn, f"{kind}Pad2d")
    layer = cls((1, 2, 2, 1), -1.0) if kind == "Constant" else cls((1, 2, 2, 1))
    a = (t64(RNG.standard_normal((1, 1, 3, 3)), True),)
    assert gradcheck(layer, a)
    assert gradgradcheck(layer, a)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_paddle_pad_layers(k, mode):
    cls = getattr(nn, f"Pad{k}D")
    a = X[k]
    kind = {"constant": "Constant", "reflect": "Reflection", "replicate": "Replication",
            "circular": "Circular"}[mode]  # fmt: skip
    got = cls(list(PADS[k]), mode=mode, value=1.5)(t64(a)).numpy()
    np.testing.assert_array_equal(got, ref(a, PADS[k], kind, 1.5))
    # channels-last: the same pads go to the spatial dims
    last = np.moveaxis(a, 1, -1)
    fmt = {1: "NLC", 2: "NHWC", 3: "NDHWC"}[k]
    got = cls(list(PADS[k]), mode, 1.5, fmt)(t64(last)).numpy()
    np.testing.assert_array_equal(got, np.moveaxis(ref(a, PADS[k], kind, 1.5), 1, -1))


def test_paddle_zero_pads():
    a = X[2]
    np.testing.assert_array_equal(
        nn.ZeroPad2D([1, 0, 2, 3])(t64(a)).numpy(), ref(a, (1, 0, 2, 3), "Zero")
    )
    np.testing.assert_array_equal(nn.ZeroPad1D(2)(t64(X[1])).numpy(), ref(X[1], (2, 2), "Zero"))
    np.testing.assert_array_equal(nn.ZeroPad3D(1)(t64(X[3])).numpy(), ref(X[3], (1,) * 6, "Zero"))
    last = np.moveaxis(a, 1, -1)
    got = nn.ZeroPad2D([1, 0, 2, 3], data_format="NHWC")(t64(last)).numpy()
    np.testing.assert_array_equal(got, np.moveaxis(ref(a, (1, 0, 2, 3), "Zero"), 1, -1))
    layer = nn.Pad2D([1, 1, 0, 2], mode="reflect")
    assert gradcheck(layer, (t64(RNG.standard_normal((1, 2, 3, 3)), True),))


def test_repr_and_state():
    assert "value=2.0" in repr(nn.ConstantPad2d(1, 2.0))
    assert "mode='reflect'" in repr(nn.Pad2D(1, mode="reflect"))
    assert nn.ReflectionPad1d(2).state_dict() == {}


def test_bad_input():
    with pytest.raises(ValueError, match="4 ints"):
        nn.ZeroPad2d((1, 2, 3))
    with pytest.raises(TypeError, match="padding"):
        nn.ReflectionPad2d("1")
    with pytest.raises(ValueError, match="3-D .* or 4-D"):
        nn.ReflectionPad2d(1)(t64(X[1][0, 0]))
    with pytest.raises(ValueError, match="smaller than dimension"):
        nn.ReflectionPad1d(5)(t64(X[1]))
    with pytest.raises(ValueError, match="mode"):
        nn.Pad2D(1, mode="symmetric")
    with pytest.raises(ValueError, match="data_format"):
        nn.Pad2D(1, data_format="NCL")
    with pytest.raises(ValueError, match="4-D"):
        nn.Pad2D(1)(t64(X[1]))
    with pytest.raises(ValueError, match="at least 3"):
        nn.ZeroPad3d(1)(t64(X[1][0, 0]))
