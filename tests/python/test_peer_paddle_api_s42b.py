"""Findings of session 42's second run of Paddle's own API test files
(``test/legacy_test/`` at 138c1cb1, see docs/peer-tests.md): each test failed on
ferrograd before its fix.

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


# --- isclose / allclose: tolerances as Paddle's Scalar takes them ----------------------


def test_allclose_tolerance_as_one_element_array_regression():
    # test_allclose_op.py TestAllcloseOpInt32 / Int64 / Bool, test_isclose_op.py: rtol and
    # atol given as np.array([50.0]); Paddle's allclose hands them to _C_ops.allclose as
    # C++ Scalars (python/paddle/tensor/logic.py allclose), which take one-value arrays
    x = paddle.to_tensor(np.array([100], "int32"))
    y = paddle.to_tensor(np.array([1], "int32"))
    rtol, atol = np.array([50.0], "float32"), np.array([49.0], "float32")
    assert paddle.allclose(x, y, rtol, atol, False).item() is True
    assert paddle.allclose(x, y, rtol, np.array([48.0], "float32"), False).item() is False
    assert paddle.isclose(x, y, paddle.to_tensor([50.0]), np.float32(49)).numpy().tolist() == [True]
    with pytest.raises(ValueError, match="rtol must be a non-negative number"):
        paddle.isclose(x, y, rtol=np.array([1.0, 2.0]))


def test_isclose_bool_tolerance_and_int_equal_nan_are_type_errors_regression():
    # test_allclose_op.py / test_isclose_op.py TestAllcloseError.test_attr: rtol=True and
    # equal_nan=1 raise TypeError (logic.py allclose: "Type of input rtol must be float",
    # "Type of input equal_nan must be bool"); ferrograd raised ValueError (still one too)
    x = paddle.ones([2])
    for kwargs in ({"rtol": True}, {"atol": True}, {"equal_nan": 1}):
        for fn in (paddle.isclose, paddle.allclose):
            with pytest.raises(TypeError):
                fn(x, x, **kwargs)
            with pytest.raises(ValueError):
                fn(x, x, **kwargs)


# --- static programs: functions recorded as traced ops --------------------------------


def test_static_isclose_allclose_diff_bucketize_searchsorted_regression(static_mode):
    # test_isclose_op.py TestIscloseStatic, test_allclose_op.py (static part),
    # test_diff_op.py test_static, test_bucketize_api.py / test_searchsorted_op.py
    # test_static_api, test_dist_op.py TestDistAPI: each function called on static.data in a program (Paddle records
    # them as ops: python/paddle/tensor/logic.py, math.py diff, search.py searchsorted)
    exe = static_mode
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [2, 3], "float32")
    s = static.data("s", [4], "float32")
    outs = [
        paddle.isclose(x, y),
        paddle.allclose(x, y, 1e-5, 1e-8),
        paddle.diff(x, axis=1),
        paddle.bucketize(x, s),
        paddle.searchsorted(s, x),
        paddle.dist(x, y, 2),
    ]
    xv = np.array([[1, 2, 3], [4, 5, 6]], "float32")
    yv = xv.copy()
    yv[1, 2] = 9
    sv = np.array([0.5, 2.5, 4.5, 7.0], "float32")
    got = exe.run(feed={"x": xv, "y": yv, "s": sv}, fetch_list=outs)
    np.testing.assert_array_equal(got[0], np.isclose(xv, yv))
    assert bool(got[1]) is False
    np.testing.assert_array_equal(got[2], np.diff(xv, axis=1))
    np.testing.assert_array_equal(got[3], np.searchsorted(sv, xv))
    np.testing.assert_array_equal(got[4], np.searchsorted(sv, xv))
    np.testing.assert_allclose(got[5], np.linalg.norm((xv - yv).ravel()), rtol=1e-6)


def test_static_meshgrid_regression(static_mode):
    # test_meshgrid_op.py TestMeshgridOp3 / 4 / 5: paddle.meshgrid of static.data
    # (python/paddle/tensor/creation.py meshgrid records one op with several outputs)
    exe = static_mode
    a = static.data("a", [3], "int32")
    b = static.data("b", [2], "int32")
    ga, gb = paddle.meshgrid(a, b)
    av, bv = np.array([1, 2, 3], "int32"), np.array([7, 8], "int32")
    got = exe.run(feed={"a": av, "b": bv}, fetch_list=[ga, gb])
    ea, eb = np.meshgrid(av, bv, indexing="ij")
    np.testing.assert_array_equal(got[0], ea)
    np.testing.assert_array_equal(got[1], eb)


def test_executor_skips_a_none_feed_for_a_missing_name_regression(static_mode):
    # test_diff_op.py test_static feeds {"input": x, "prepend": None, "append": None}
    # when the program has no such inputs; Paddle's executor skips feed names its program
    # lacks (python/paddle/base/executor.py _add_feed_fetch_ops: "not found in program")
    exe = static_mode
    x = static.data("input", [2, 3], "float32")
    out = paddle.diff(x, axis=-1)
    xv = np.arange(6, dtype="float32").reshape(2, 3) ** 2
    got = exe.run(feed={"input": xv, "prepend": None, "append": None}, fetch_list=[out])
    np.testing.assert_array_equal(got[0], np.diff(xv, axis=-1))


def test_static_variable_as_an_attribute_is_a_type_error_not_a_hang_regression(static_mode):
    # test_unsqueeze2_op.py TestUnsqueezeAPI.test_api: unsqueeze(x, axis=<int Variable>)
    # hung (the attribute read as a sequence without end: the file timed out after
    # 600 s); run-time axes are not supported, so it is a clear TypeError now
    x = static.data("x", [3, 2, 5], "float64")
    axes = static.data("axes", [3], "int32")
    with pytest.raises(TypeError, match="'axis' is a static Variable"):
        paddle.unsqueeze(x, axis=axes)
    with pytest.raises(TypeError, match="'axis' is a static Variable"):
        paddle.unsqueeze(x, axis=[axes, 1])


# --- masked_fill / index_put -----------------------------------------------------------


def test_masked_fill_value_of_shape_one_in_paddle_regression():
    # test_masked_fill.py TestMaskedFillAPI*.test_dygraph: value = randn(1) as a tensor
    # of shape [1]; Paddle's masked_fill is where(mask, value, x) after a scalar value is
    # made a 0-d tensor (python/paddle/tensor/manipulation.py masked_fill), so the value
    # broadcasts; the gradient reaches both
    xv = np.arange(6.0).reshape(2, 3)
    mv = np.array([[True, False, True], [False, False, True]])
    x = paddle.to_tensor(xv, stop_gradient=False)
    v = paddle.to_tensor([7.0], dtype="float64", stop_gradient=False)
    out = paddle.masked_fill(x, paddle.to_tensor(mv), v)
    np.testing.assert_array_equal(out.numpy(), np.where(mv, 7.0, xv))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), (~mv).astype("float64"))
    np.testing.assert_array_equal(v.grad.numpy(), [3.0])


def test_index_put_with_bool_indices_regression():
    # test_index_put_op.py TestIndexPutAPI3 / 4 / 7 / 8 / 13-16 / MixedIndices: a bool
    # index stands for the coordinates of its True entries, NumPy's x[indices] = value
    # (python/paddle/tensor/manipulation.py index_put; PyTorch's index_put_ too)
    rng = np.random.default_rng(0)
    xv = rng.random((4, 5, 3))
    m = rng.random((4, 5)) > 0.5
    v = rng.random((int(m.sum()), 3))
    got = paddle.index_put(paddle.to_tensor(xv), (paddle.to_tensor(m),), paddle.to_tensor(v))
    want = xv.copy()
    want[m] = v
    np.testing.assert_array_equal(got.numpy(), want)
    i = np.array([0, 2, 1])
    b = np.array([True, False, True, False, True])
    got = paddle.index_put(
        paddle.to_tensor(xv), (paddle.to_tensor(i), paddle.to_tensor(b)), paddle.ones([3]), True
    )
    want = xv.copy()
    want[i, b] += 1
    np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(IndexError, match="bool index of shape"):
        paddle.index_put(paddle.to_tensor(xv), (paddle.to_tensor(m.T),), paddle.ones([1]))


def test_index_put_bool_index_gradient_regression():
    # test_index_put_op.py TestIndexPutAPIBackward: gradients through a bool-indexed put
    x = paddle.ones([3, 2], dtype="float64")
    x.stop_gradient = False
    val = paddle.to_tensor([5.0, 6.0], dtype="float64", stop_gradient=False)
    mask = paddle.to_tensor([True, False, True])
    out = paddle.index_put(x, (mask,), val.reshape([1, 2]))
    (out * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [2, 2], [0, 0]])
    np.testing.assert_array_equal(val.grad.numpy(), [4.0, 4.0])


def test_index_put_all_false_bool_index_leaves_x_regression():
    # test_index_put_op.py TestIndexPutAPIBackward.test_backward_all_false_bool_indice: a
    # bool index with no True entry writes nothing whatever the value's shape ([2, 1]
    # here), x's gradient passes whole and the value's is zero
    value = paddle.ones([2, 1], dtype="float64")
    x = paddle.ones([16, 21], dtype="float64")
    value.stop_gradient = False
    x.stop_gradient = False
    out = paddle.index_put(x, (paddle.zeros([16, 21], dtype="bool"),), value, False)
    dx, dvalue = paddle.grad([out], [x, value])
    np.testing.assert_array_equal(out.numpy(), np.ones((16, 21)))
    np.testing.assert_array_equal(dx.numpy(), np.ones((16, 21)))
    np.testing.assert_array_equal(dvalue.numpy(), np.zeros((2, 1)))


def test_static_index_put_with_a_bool_index_regression(static_mode):
    # test_index_put_op.py TestIndexPutAPI3.test_static_forward: recording index_put with
    # a bool index into a program failed on the trial values (an all-zero mask selects no
    # row for the value's 5170); the result has x's shape and dtype whatever the values
    exe = static_mode
    x = static.data("x", [4, 3], "float64")
    m = static.data("m", [4, 3], "bool")
    v = static.data("v", [5], "float64")
    out = paddle.index_put(x, (m,), v)
    assert list(out.shape) == [4, 3]
    mv = np.zeros((4, 3), bool)
    mv.flat[[0, 2, 5, 7, 11]] = True
    xv = np.zeros((4, 3))
    vv = np.arange(1.0, 6.0)
    got = exe.run(feed={"x": xv, "m": mv, "v": vv}, fetch_list=[out])
    want = xv.copy()
    want[mv] = vv
    np.testing.assert_array_equal(got[0], want)


# --- argument errors in both peers' classes -----------------------------------------------


def test_kthvalue_axis_out_of_range_is_value_and_index_error_regression():
    # test_kthvalue_op.py TestKthvalueOpErrors: x.kthvalue(k=10, axis=5) on a 4-D tensor
    # raises ValueError in Paddle (python/paddle/tensor/search.py kthvalue's kernel
    # check); PyTorch raises IndexError: ferrograd's AxisError is both
    x = paddle.uniform([2, 10, 20, 25], dtype="float32")
    with pytest.raises(ValueError, match="out of range"):
        x.kthvalue(k=10, axis=5)
    with pytest.raises(IndexError, match="out of range"):
        x.kthvalue(k=10, axis=-5)


def test_searchsorted_mismatched_leading_dims_is_a_runtime_error_regression():
    # test_searchsorted_op.py TestSearchSortedError.test_error_api: a sorted sequence
    # [2, 2, 3] with values [2, 5] raises RuntimeError in Paddle (its kernel's
    # PADDLE_ENFORCE) and PyTorch (aten/src/ATen/native/BucketizationUtils.h
    # searchsorted_pre_check); ferrograd's ValueError is kept as a base
    seq = paddle.zeros([2, 2, 3], dtype="float64")
    for values in (paddle.zeros([2, 5], dtype="float64"), paddle.zeros([2, 3, 5])):
        with pytest.raises(RuntimeError, match="all but the last dimension must match"):
            paddle.searchsorted(seq, values)
        with pytest.raises(ValueError):
            paddle.searchsorted(seq, values)
