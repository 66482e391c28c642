"""``round(decimals=)``: the unary table's extra-keyword column (``extra: [decimals]`` on
``round`` in ``src/op_defs/unary.rs``). Values against PyTorch (computed once with torch
2.x and hard-coded), half-to-even, overflow, negative decimals, dtypes, gradients (zero,
as ``round``'s), the generated signatures and a static program."""

import inspect
import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core

XS = [2.675, 0.125, -1.5, 2.5, -2.5, 0.5, 1e300, -0.0, 1234.5678, -987.65, 1e-5, 123456789.123]
INF = math.inf
# torch.round(torch.tensor(XS, dtype=torch.float64), decimals=d) with torch 2.x
TORCH64 = {
    1: [2.7, 0.1, -1.5, 2.5, -2.5, 0.5, 1e300, -0.0, 1234.6, -987.6, 0.0, 123456789.1],
    2: [2.68, 0.12, -1.5, 2.5, -2.5, 0.5, 1e300, -0.0, 1234.57, -987.65, 0.0, 123456789.12],
    3: [2.675, 0.125, -1.5, 2.5, -2.5, 0.5, 1e300, -0.0, 1234.568, -987.65, 0.0, 123456789.123],
    -1: [0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1e300, -0.0, 1230.0, -990.0, 0.0, 123456790.0],
    -2: [0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1e300, -0.0, 1200.0, -1000.0, 0.0, 123456800.0],
    -3: [0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 1e300, -0.0, 1000.0, -1000.0, 0.0, 123457000.0],
    20: [2.675, 0.125, -1.5, 2.5, -2.5, 0.5, INF, -0.0, 1234.5678, -987.65, 1e-05,
         123456789.12300001],
    308: [INF, 0.125, -1.5, INF, -INF, 0.5, INF, -0.0, INF, -INF, 1e-05, INF],
    -308: [0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0],
}  # fmt: skip
# the same in float32
TORCH32 = {
    1: [2.700000047683716, 0.10000000149011612, -1.5, 2.5, -2.5, 0.5, INF, -0.0,
        1234.5999755859375, -987.5999755859375, 0.0, 123456792.0],
    2: [2.680000066757202, 0.11999999731779099, -1.5, 2.5, -2.5, 0.5, INF, -0.0,
        1234.5699462890625, -987.6500244140625, 0.0, 123456792.0],
    -2: [0.0, 0.0, -0.0, 0.0, -0.0, 0.0, INF, -0.0, 1200.0, -1000.0, 0.0, 123456800.0],
    38: [2.674999952316284, 0.125, -1.5, 2.5, -2.5, 0.5, INF, -0.0, INF, -INF,
         9.999999747378752e-06, INF],
}  # fmt: skip


def _same(got, want):
    """Equal values, NaN positions and signs of zero."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("decimals", sorted(TORCH64))
def test_float64_matches_torch(decimals):
    x = fg.tensor(XS, dtype="float64")
    _same(x.round(decimals=decimals).numpy(), TORCH64[decimals])
    _same(fg.round(x, decimals=decimals).numpy(), TORCH64[decimals])


@pytest.mark.parametrize("decimals", sorted(TORCH32))
def test_float32_matches_torch(decimals):
    y = fg.tensor(XS, dtype="float32").round(decimals=decimals)
    assert y.dtype == fg.float32
    _same(y.numpy(), TORCH32[decimals])


def test_an_overflowing_power_of_ten_gives_nan_as_torch():
    assert np.isnan(fg.tensor(XS, dtype="float64").round(decimals=309).numpy()).all()
    assert np.isnan(fg.tensor([1.5], dtype="float32").round(decimals=39).numpy()).all()
    assert np.isnan(fg.tensor([1.5]).round(decimals=10**15).numpy()).all()


def test_zero_or_no_decimals_is_plain_round_for_every_dtype():
    x = fg.tensor([0.5, 1.5, -2.5, math.nan, math.inf])
    _same(x.round(decimals=0).numpy(), x.round().numpy())
    _same(x.round(None).numpy(), [0.0, 2.0, -2.0, math.nan, math.inf])
    i = fg.tensor([125, -150], dtype="int64")  # (Paddle's round(x, decimals=0) on ints)
    np.testing.assert_array_equal(fg.round(i, 0).numpy(), [125, -150])
    assert fg.round(i, decimals=0).dtype == fg.int64


def test_bad_decimals_and_dtypes_raise():
    with pytest.raises(TypeError, match="floating-point"):
        fg.tensor([125, -150], dtype="int32").round(decimals=-2)
    with pytest.raises(TypeError, match="floating-point"):
        fg.tensor([True]).round(decimals=1)
    with pytest.raises(TypeError, match="floating-point"):
        fg.tensor([1 + 2j]).round(decimals=1)
    with pytest.raises(TypeError, match="decimals must be an int"):
        fg.tensor([1.25]).round(decimals=1.5)
    with pytest.raises(TypeError, match="decimals must be an int"):
        fg.tensor([1.25]).round(decimals="2")


def test_gradient_is_zero_and_empty_tensors_work():
    x = fg.tensor([1.234, -5.678], requires_grad=True)
    y = x.round(decimals=1)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    assert fg.zeros([0, 2]).round(decimals=2).shape == [0, 2]


def test_special_round_and_the_generated_signatures():
    x = fg.tensor([2.675, 1234.5678], dtype="float64")
    _same(fg.special.round(x, decimals=2).numpy(), [2.68, 1234.57])
    params = inspect.signature(fg.Tensor.round).parameters
    assert list(params)[1:] == ["decimals", "name"]  # (Paddle's positional order)
    row = next(r for r in _core._unary_op_table() if r[0][0] == "round")
    assert row[5] == "decimals"
    assert all(r[5] is None for r in _core._unary_op_table() if r[0][0] != "round")


def test_static_program_rounds_with_decimals():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [3], "float64")
            y = fg.round(x, decimals=2)
            z = x.round(decimals=-1)
    finally:
        fg.disable_static()
    xv = np.array([2.675, 0.125, 1234.5678])
    got_y, got_z = st.Executor().run(main, feed={"x": xv}, fetch_list=[y, z])
    np.testing.assert_array_equal(got_y, [2.68, 0.12, 1234.57])
    np.testing.assert_array_equal(got_z, [0.0, 0.0, 1230.0])
