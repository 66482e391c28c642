"""``~x`` / ``bitwise_not`` on every integer dtype (uint8, int8, int16, int32, int64) and
bool, eager and static, against NumPy; and the narrow integer dtypes in static programs
(``static.data(dtype="uint8")``, casts, feeds and fetches) against eager."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static

INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


def values(dtype):
    if dtype == "bool":
        return np.array([[True, False], [False, True]])
    info = np.iinfo(dtype)
    return np.array([[info.min, -1 if info.min < 0 else 1, 0], [1, 7, info.max]], dtype=dtype)


@pytest.mark.parametrize("dtype", INT_DTYPES + ["bool"])
def test_bitwise_not_matches_numpy_eagerly(dtype):
    v = values(dtype)
    t = fg.to_tensor(v)
    for got in (~t, fg.bitwise_not(t), t.bitwise_not()):
        assert got.dtype == t.dtype
        np.testing.assert_array_equal(got.numpy(), np.invert(v))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_bitwise_not_of_a_strided_view(dtype):
    v = values(dtype)
    np.testing.assert_array_equal((~fg.to_tensor(v).T).numpy(), np.invert(v.T))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_bitwise_not_of_floats_is_a_type_error(dtype):
    t = fg.to_tensor(np.ones(3, dtype=dtype))
    with pytest.raises(TypeError, match="bitwise_not: needs an integer or bool tensor"):
        _ = ~t
    with pytest.raises(TypeError, match="bitwise_not"):
        fg.bitwise_not(t)


@pytest.mark.parametrize("dtype", INT_DTYPES + ["bool"])
def test_bitwise_not_in_a_static_program(dtype):
    v = values(dtype)
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [-1, v.shape[1]], dtype)
            a, b = ~x, fg.bitwise_not(x)
            assert a.dtype == x.dtype
            got = static.Executor().run(feed={"x": v}, fetch_list=[a, b])
    finally:
        fg.disable_static()
    for g in got:
        assert g.dtype == v.dtype
        np.testing.assert_array_equal(g, np.invert(v))


def test_bitwise_not_of_a_float_variable_is_an_error_when_recorded():
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [2], "float32")
            with pytest.raises(TypeError, match="bitwise_not"):
                _ = ~x
    finally:
        fg.disable_static()


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
def test_narrow_dtypes_in_static_programs_match_eager(dtype):
    v = values(dtype)
    f = np.random.default_rng(0).standard_normal(v.shape) * 50
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [-1, 3], dtype)
            y = static.data("y", [-1, 3], "float64")
            assert x.dtype == getattr(fg, dtype)
            outs = [
                x,
                x.astype("float64") * y,
                y.astype(dtype),
                x + x,
                x * 3,
                x.sum(axis=1),
                (x > 0),
                fg.maximum(x, x.astype(dtype) // 2),
                x[:, 1:],
                fg.concat([x, x], 0),
            ]
            exe = static.Executor()
            got = exe.run(feed={"x": v, "y": f}, fetch_list=outs)
            with pytest.raises(Exception, match=dtype):
                exe.run(feed={"x": v.astype(np.int64), "y": f}, fetch_list=[outs[1]])
    finally:
        fg.disable_static()
    xt, yt = fg.to_tensor(v), fg.to_tensor(f)
    want = [
        xt,
        xt.astype("float64") * yt,
        yt.astype(dtype),
        xt + xt,
        xt * 3,
        xt.sum(axis=1),
        xt > 0,
        fg.maximum(xt, xt.astype(dtype) // 2),
        xt[:, 1:],
        fg.concat([xt, xt], 0),
    ]
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


def test_narrow_dtype_parameters_and_gradients_through_casts():
    fg.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [2, 3], "uint8")
            w = static.create_parameter([3], "float64", default_initializer=0.5)
            loss = (x.astype("float64") * w).sum()
            (gw,) = static.gradients([loss], [w])
        exe = static.Executor()
        exe.run(startup)
        v = values("uint8")
        (g,) = exe.run(main, feed={"x": v}, fetch_list=[gw])
    finally:
        fg.disable_static()
    np.testing.assert_array_equal(g, v.astype(np.float64).sum(0))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "bool"])
def test_bitwise_binary_ops_in_a_static_program(dtype):
    v = values(dtype)
    w = v[::-1].copy()
    fg.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", list(v.shape), dtype)
            y = static.data("y", list(v.shape), dtype)
            outs = [x & y, x | y, x ^ y, fg.bitwise_and(x, y), x.bitwise_or(y), ~(x ^ y)]
            got = static.Executor().run(feed={"x": v, "y": w}, fetch_list=outs)
    finally:
        fg.disable_static()
    want = [v & w, v | w, v ^ w, v & w, v | w, np.invert(v ^ w)]
    for g, e in zip(got, want):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
