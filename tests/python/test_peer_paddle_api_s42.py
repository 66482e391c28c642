"""Findings of session 42's run of Paddle's own API test files (``test/legacy_test/`` at
138c1cb1, see docs/peer-tests.md): each test failed on ferrograd before its fix.

The upstream files are not part of this repository; each test below checks the public
behaviour the upstream test needed, citing the upstream test and Paddle's source.
"""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd import static


@pytest.fixture
def static_mode():
    """Static mode with fresh programs, eager mode restored afterwards."""
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            yield static.Executor(paddle.CPUPlace())
    finally:
        paddle.disable_static()


# --- static programs: keyword-only calls, sizes known at run time --------------------


def test_static_call_with_the_tensor_by_keyword_regression(static_mode):
    # test_sort_op.py TestSortOnCPU (paddle.sort(x=input)), test_unbind_op.py
    # (paddle.unbind(input=x, axis=0)), test_tril_triu_op.py (tril(x=data, ...)): Paddle's
    # functions take their tensor as x= (python/paddle/tensor/manipulation.py unbind: input=)
    exe = static_mode
    x = static.data("x", [2, 3], "float32")
    s = paddle.sort(x=x, axis=1)
    a, b = paddle.unbind(input=x, axis=0)
    t = paddle.tril(x=x, diagonal=0)
    data = np.array([[3, 1, 2], [6, 5, 4]], dtype="float32")
    got = exe.run(feed={"x": data}, fetch_list=[s, a, b, t])
    np.testing.assert_array_equal(got[0], np.sort(data, axis=1))
    np.testing.assert_array_equal(got[1], data[0])
    np.testing.assert_array_equal(got[2], data[1])
    np.testing.assert_array_equal(got[3], np.tril(data))


def test_static_sort_in_paddle_code_gives_the_values_regression(static_mode):
    # test_sort_op.py test_api_0: paddle.sort returns the sorted values alone
    # (python/paddle/tensor/search.py sort), in static programs as in eager
    x = static.data("x", [2, 3], "float32")
    out = paddle.sort(x)
    assert isinstance(out, static.Variable)


def test_static_tril_triu_and_roll_with_run_time_sizes_regression(static_mode):
    # test_tril_triu_op.py TestTrilTriuOpAPI (shape [1, 9, -1, 4]) and test_roll_op.py
    # test_roll_op_api_case1/2 (shape [-1, 3]): sizes known only when the program runs
    exe = static_mode
    x = static.data("x", [1, 9, -1, 4], "float32")
    y = static.data("y", [-1, 3], "float32")
    outs = [paddle.tril(x), paddle.triu(x, 1), paddle.roll(y, 1), paddle.roll(y, [1], [0])]
    dx = np.random.default_rng(0).random([1, 9, 9, 4]).astype("float32")
    dy = np.arange(12, dtype="float32").reshape(4, 3)
    got = exe.run(feed={"x": dx, "y": dy}, fetch_list=outs)
    np.testing.assert_array_equal(got[0], np.tril(dx))
    np.testing.assert_array_equal(got[1], np.triu(dx, 1))
    np.testing.assert_array_equal(got[2], np.roll(dy, 1))
    np.testing.assert_array_equal(got[3], np.roll(dy, 1, axis=0))


def test_tril_triu_argument_errors_in_paddles_words_regression(static_mode):
    # test_tril_triu_op.py FailureCase: Paddle's _tril_triu_op (tensor/creation.py) raises
    # TypeError "diagonal in tril must be a python Int" and ValueError "x shape in tril
    # must be at least 2-D"; the test matches the texts
    x = static.data("x", [20, 20], "float64")
    v = static.data("v", [2020], "float64")
    for op in ("tril", "triu"):
        for bad in ("2020", [20], 20.2):
            with pytest.raises(TypeError, match=f"diagonal in {op} must be a python Int"):
                getattr(paddle, op)(x=x, diagonal=bad)
        with pytest.raises(ValueError, match=f"x shape in {op} must be at least 2-D"):
            getattr(paddle, op)(x=v)
    with pytest.raises(TypeError, match="diagonal in tril must be a python Int"):
        paddle.tril(paddle.ones([2, 2]), 1.5)  # eager too


def test_axis_out_of_range_is_both_index_and_value_error_regression(static_mode):
    # test_roll_op.py test_roll_op_false and test_unbind_op.py TestUnbindAxisError: Paddle
    # raises ValueError, PyTorch IndexError (torch.roll(x, 1, 10)); code for either catches
    x = static.data("x", [2, 3], "float32")
    with pytest.raises(ValueError):
        paddle.roll(x, shifts=1, axis=10)
    with pytest.raises(ValueError):
        paddle.unbind(input=x, axis=2)
    with pytest.raises(IndexError):
        paddle.unbind(x, axis=-3)
    with pytest.raises(TypeError):
        paddle.unbind(input=x, axis=2.0)


def test_fetching_an_eager_creation_result_regression(static_mode):
    # test_arange.py TestArangeAPI.test_out, test_linspace.py: paddle.arange / linspace in
    # static mode, fetched directly; the value is the constant's
    exe = static_mode
    x = static.data("x", [2], "float32")
    a = paddle.arange(0, 5, 1, "float32")
    got = exe.run(
        feed={"x": np.ones(2, "float32")}, fetch_list=[x * 2, a, paddle.linspace(0, 1, 3)]
    )
    np.testing.assert_array_equal(got[0], [2, 2])
    np.testing.assert_array_equal(got[1], np.arange(5, dtype="float32"))
    np.testing.assert_allclose(got[2], [0, 0.5, 1])
    got = exe.run(feed={"x": np.ones(2, "float32")}, fetch_list=[a], return_numpy=False)
    assert isinstance(got[0], paddle.Tensor)


def test_static_histogram_cross_lerp_logit_regression(static_mode):
    # test_histogram_op.py, test_cross_op.py, test_lerp_op.py, test_logit_op.py: each
    # function called with static variables
    exe = static_mode
    x = static.data("x", [4, 3], "float32")
    y = static.data("y", [4, 3], "float32")
    outs = [
        paddle.histogram(x, bins=4, min=0, max=1),
        paddle.cross(x, y, axis=1),
        paddle.lerp(x, y, 0.25),
        paddle.logit(x, 1e-6),
    ]
    rng = np.random.default_rng(1)
    dx, dy = rng.random([4, 3]).astype("float32"), rng.random([4, 3]).astype("float32")
    got = exe.run(feed={"x": dx, "y": dy}, fetch_list=outs)
    np.testing.assert_array_equal(got[0], np.histogram(dx, bins=4, range=(0, 1))[0])
    np.testing.assert_allclose(got[1], np.cross(dx, dy, axis=1), rtol=1e-5)
    np.testing.assert_allclose(got[2], dx + 0.25 * (dy - dx), rtol=1e-6)
    np.testing.assert_allclose(got[3], np.log(dx / (1 - dx)), rtol=1e-4)


def test_static_clip_with_variable_bounds_regression(static_mode):
    # test_clip_op.py TestClipAPI.test_clip: min / max given as [1] variables
    exe = static_mode
    x = static.data("x", [2, 3], "float32")
    lo = static.data("lo", [1], "float32")
    hi = static.data("hi", [1], "float32")
    outs = [paddle.clip(x, min=lo, max=hi), paddle.clip(x, min=lo), paddle.clip(x, max=hi)]
    d = np.linspace(0, 1, 6, dtype="float32").reshape(2, 3)
    feed = {"x": d, "lo": np.array([0.2], "float32"), "hi": np.array([0.8], "float32")}
    got = exe.run(feed=feed, fetch_list=outs)
    np.testing.assert_allclose(got[0], np.clip(d, 0.2, 0.8))
    np.testing.assert_allclose(got[1], np.clip(d, 0.2, None))
    np.testing.assert_allclose(got[2], np.clip(d, None, 0.8))


# --- eager ------------------------------------------------------------------------------


def test_flatten_of_a_0d_tensor_checks_its_axes_regression():
    # test_flatten_contiguous_range_op.py TestFlatten0DTensorOpError: Paddle's flatten
    # (tensor/manipulation.py) allows only 0 / -1 for a 0-D tensor; PyTorch:
    # torch.flatten(torch.tensor(1.), 10, 0) raises IndexError ("Dimension out of range
    # (expected to be in range of [-1, 0]"); both were accepted, giving shape [1]
    x = paddle.to_tensor(1.0)
    with pytest.raises(IndexError):
        paddle.flatten(x, 10, 0)
    with pytest.raises(IndexError):
        x.flatten(0, 1)
    assert paddle.flatten(x, -1, 0).shape == [1]
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            v = static.data("v", [], "float32")
            with pytest.raises(IndexError):
                paddle.flatten(v, start_axis=10, stop_axis=0)
            assert paddle.flatten(v, 0, -1).shape == [1]
    finally:
        paddle.disable_static()


def test_histogram_refuses_bool_regression():
    # test_histogram_op.py TestHistogramOpError.test_type_errors: Paddle's histogram kernel
    # (phi/kernels/cpu/histogram_kernel.cc) is registered for float, double, int, int64
    # only; PyTorch's histc refuses bool too
    with pytest.raises(TypeError, match="bool"):
        paddle.histogram(paddle.to_tensor([True, False]), bins=2, min=0, max=1)
    with pytest.raises(TypeError, match="bool"):
        paddle.histc(paddle.to_tensor([True, False]))


def test_gather_keyword_arguments_and_column_index_regression():
    # test_gather_nd_op.py TestGatherNdAPI2.test_imperative: paddle.gather with a [1, 1]
    # index (phi/infermeta/binary.cc GatherInferMeta: a 2-D index whose last dim is 1);
    # and the keyword forms of both peers (paddle.gather(x, index=, axis=),
    # torch.gather(input, dim=, index=)), which failed with "missing argument 'a'"
    x = paddle.to_tensor(np.array([[1, 2], [3, 4], [5, 6]]))
    np.testing.assert_array_equal(paddle.gather(x, paddle.to_tensor([[1]])).numpy(), [[3, 4]])
    i = paddle.to_tensor([1, 0])
    np.testing.assert_array_equal(x.gather(index=i, axis=1).numpy(), [[2, 1], [4, 3], [6, 5]])
    np.testing.assert_array_equal(paddle.gather(x=x, index=i).numpy(), [[3, 4], [1, 2]])
    with pytest.raises(ValueError):  # a 2-D index whose last dimension is not 1
        paddle.gather(x, paddle.to_tensor([[1, 0]]))
    idx = paddle.to_tensor([[0, 0], [1, 0], [0, 1]])
    want = np.take_along_axis(x.numpy(), idx.numpy(), axis=1)
    np.testing.assert_array_equal(paddle.gather(x, dim=1, index=idx).numpy(), want)
    np.testing.assert_array_equal(x.gather(dim=1, index=idx).numpy(), want)
    np.testing.assert_array_equal(paddle.gather(input=x, dim=1, index=idx).numpy(), want)


def test_gather_nd_checks_types_before_shapes_regression():
    # test_gather_nd_op.py TestGatherNdError / TestGatherNdOpRaise: a float or bool index
    # and a non-Tensor x are TypeErrors; too long an index names Paddle's check
    # ("Input(Index).shape[-1] should be no greater than Input(X).rank")
    x = paddle.ones([8, 9, 6])
    with pytest.raises(TypeError):
        paddle.gather_nd(x, paddle.ones([8, 9, 6]))
    with pytest.raises(TypeError):
        paddle.gather_nd(x, paddle.to_tensor(np.ones([8, 9, 6], dtype=bool)))
    with pytest.raises(TypeError):
        paddle.gather_nd(np.ones([3, 4]), paddle.to_tensor([[0]]))
    with pytest.raises(IndexError, match="should be no greater than Input"):
        paddle.gather_nd(paddle.ones([3, 4]), paddle.zeros([2, 3], dtype="int64"))


def test_arange_integers_exact_and_numpy_integers_regression():
    # test_arange.py TestArangeImperative.test_out: paddle.arange(np.int64(10)) is int64,
    # and integer bounds beyond 2**53 are exact (x12: [0, -9007199254740993])
    x = paddle.arange(np.int64(10))
    assert x.dtype == paddle.int64
    big = paddle.arange(start=0, end=-9007199254740994, step=-9007199254740993)
    assert big.numpy().tolist() == [0, -9007199254740993]
    assert paddle.arange(2**62, 2**62 + 3).numpy().tolist() == [2**62, 2**62 + 1, 2**62 + 2]
    assert paddle.arange(10, 0, -3).numpy().tolist() == [10, 7, 4, 1]
    with pytest.raises(ValueError):
        paddle.arange(0, 10, 0)


def test_numpy_takes_paddles_ignored_argument_regression():
    # test_unbind_op.py: x.numpy(False); Paddle's tensor_method_numpy
    # (paddle/fluid/pybind/eager_method.cc) takes and ignores its arguments
    x = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_array_equal(x.numpy(False), [1.0, 2.0])


def test_stack_refuses_a_single_tensor_regression():
    # test_stack_op.py API_test / API_DygraphTest.test_single_tensor_error: Paddle's stack
    # takes a list or tuple of tensors (TypeError for one Tensor); PyTorch's
    # torch.stack(t) raises "argument 'tensors' must be tuple of Tensors, not Tensor"
    with pytest.raises(TypeError):
        paddle.stack(paddle.to_tensor([1, 2, 3]))


def test_fetch_list_with_a_nested_list_regression(static_mode):
    # test_einsum_v2.py TestNumpyTests.test_static_graph: exe.run(fetch_list=[outs]) with
    # outs a list; Paddle's Executor._check_fetch_list (base/executor.py) takes a list of
    # variables inside the list as its items
    exe = static_mode
    x = static.data("x", [2], "float32")
    outs = [x + 1, x * 2]
    got = exe.run(feed={"x": np.ones(2, "float32")}, fetch_list=[outs])
    assert len(got) == 2
    np.testing.assert_array_equal(got[1], [2, 2])


def test_static_inplace_method_names_are_the_op_regression(static_mode):
    # test_clip_op.py TestInplaceClipAPI, test_flatten_contiguous_range_op.py
    # TestStaticInplaceFlattenPythonAPI: x.clip_() / x.flatten_() in static mode; Paddle's
    # inplace_apis_in_dygraph_only (utils/inplace_utils.py) calls the op itself and warns
    exe = static_mode
    x = static.data("x", [2, 3, 4], "float32")
    with pytest.warns(UserWarning, match="does not perform inplace operation"):
        y = x.flatten_(1, 2)
    with pytest.warns(UserWarning):
        z = x.clip_(0.2, 0.8)
    d = np.linspace(0, 1, 24, dtype="float32").reshape(2, 3, 4)
    got = exe.run(feed={"x": d}, fetch_list=[y, z])
    assert got[0].shape == (2, 12)
    np.testing.assert_allclose(got[1], np.clip(d, 0.2, 0.8))
    with pytest.raises(AttributeError):
        x.no_such_op_()


def test_dtype_strings_float_and_int_are_numpys_in_paddle_code_regression():
    # test_einsum_v2.py TestNumpyTests.test_static_graph: static.data(dtype='float') fed
    # float64 arrays. Paddle reads a dtype string through NumPy
    # (python/paddle/pir/core.py convert_np_dtype_to_dtype_: np.dtype(np_dtype)), so
    # 'float' is float64 and 'int' int64 (PyTorch takes no dtype strings)
    assert paddle.to_tensor([1.0], dtype="float").dtype == paddle.float64
    assert paddle.ones([1]).astype("int").dtype == paddle.int64
