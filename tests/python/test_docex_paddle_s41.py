"""Session 41: Paddle's own docstring examples, run on ferrograd.

Each test holds one example's call and the output its docstring prints. The docstrings
were read at PaddlePaddle/Paddle python/paddle/... (a fork snapshot, MrXnneHang/Paddle
138c1cb, January 2025; the examples named here are unchanged in later releases); the
function each comes from is named in the test's docstring.
"""

import ferrograd as paddle
import ferrograd.nn.functional as F
import numpy as np
import pytest


def _arange(shape, dtype="float32"):
    n = int(np.prod(shape))
    return paddle.arange(n, dtype=dtype).reshape(list(shape)) + 1


def test_pad_full_list_with_data_format_regression():
    """nn/functional/common.py ``pad``, example 1: a constant pad list of ``2 * ndim``
    values pads from the first axis even when ``data_format`` is given (Paddle only
    reverses the list when ``pad_from_left_axis`` is False)."""
    x = _arange((1, 1, 3))
    y = F.pad(x, [0, 0, 0, 0, 2, 3], value=1, mode="constant", data_format="NCL")
    assert y.shape == [1, 1, 8]
    np.testing.assert_array_equal(y.numpy(), [[[1, 1, 1, 2, 3, 1, 1, 1]]])
    # the explicit PyTorch order still reads the list from the last axis
    y = F.pad(x, [2, 3, 0, 0, 0, 0], data_format="NCL", pad_from_left_axis=False)
    assert y.shape == [1, 1, 8]


def test_linalg_svd_default_is_reduced_in_paddle_code_regression():
    """tensor/linalg.py ``svd``: ``full_matrices`` defaults to False in Paddle, so a
    ``[3, 2]`` input gives ``u`` of shape ``[3, 2]``."""
    x = paddle.to_tensor([[1.0, 2.0], [1.0, 3.0], [4.0, 6.0]]).astype("float64")
    u, s, vh = paddle.linalg.svd(x)
    assert u.shape == [3, 2] and s.shape == [2] and vh.shape == [2, 2]
    np.testing.assert_allclose(s.numpy(), [8.14753743, 0.78589688], rtol=1e-7)
    np.testing.assert_allclose(np.abs(u.numpy()[:, 0]), [0.27364809, 0.37892198, 0.88404460])
    u, s, vh = paddle.linalg.svd(x, full_matrices=True)
    assert u.shape == [3, 3]


def test_tensor_split_num_or_indices_keyword_regression():
    """tensor/manipulation.py ``tensor_split`` / ``hsplit`` / ``vsplit`` / ``dsplit``:
    Paddle's keyword is ``num_or_indices``."""
    x = paddle.arange(8, dtype="float32")
    assert [t.shape for t in paddle.tensor_split(x, num_or_indices=2)] == [[4], [4]]
    out = paddle.tensor_split(x, num_or_indices=[2, 3])
    assert [t.shape for t in out] == [[2], [1], [5]]
    y = paddle.ones([7, 8])
    out = paddle.tensor_split(y, num_or_indices=[2, 3], axis=1)
    assert [t.shape for t in out] == [[7, 2], [7, 1], [7, 5]]
    assert [t.shape for t in paddle.hsplit(x, num_or_indices=2)] == [[4], [4]]
    assert [t.shape for t in paddle.vsplit(paddle.ones([8, 7]), num_or_indices=2)] == [
        [4, 7],
        [4, 7],
    ]
    z = paddle.ones([7, 6, 8])
    assert [t.shape for t in paddle.dsplit(z, num_or_indices=2)] == [[7, 6, 4], [7, 6, 4]]


def test_cartesian_prod_and_block_diag_take_a_list_regression():
    """tensor/math.py ``cartesian_prod(x)`` and tensor/manipulation.py
    ``block_diag(inputs)`` take one list of tensors in Paddle."""
    a = paddle.to_tensor([1, 2, 3], dtype="int32")
    b = paddle.to_tensor([5, 6], dtype="int32")
    res = paddle.cartesian_prod([a, b])
    assert res.shape == [6, 2] and res.dtype == paddle.int32
    np.testing.assert_array_equal(res.numpy(), [[1, 5], [1, 6], [2, 5], [2, 6], [3, 5], [3, 6]])
    c = paddle.to_tensor([7, 8, 9], dtype="float32")
    np.testing.assert_array_equal(paddle.cartesian_prod([c]).numpy(), [7, 8, 9])
    A = paddle.to_tensor([[4], [3], [2]])
    B = paddle.to_tensor([7, 6, 5])
    C = paddle.to_tensor(1)
    D = paddle.to_tensor([[5, 4, 3], [2, 1, 0]])
    E = paddle.to_tensor([[8, 7], [7, 8]])
    out = paddle.block_diag([A, B, C, D, E])
    assert out.shape == [9, 10]
    np.testing.assert_array_equal(out.numpy()[3], [0, 7, 6, 5, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(out.numpy()[8], [0, 0, 0, 0, 0, 0, 0, 0, 7, 8])


def test_atleast_nd_of_several_is_a_list_in_paddle_code_regression():
    """tensor/manipulation.py ``atleast_1d`` / ``atleast_2d`` / ``atleast_3d``: several
    inputs give a list (``print(out)`` shows ``[Tensor(...), Tensor(...)]``)."""
    x = paddle.to_tensor(123, dtype="int32")
    y = paddle.to_tensor([1.23], dtype="float32")
    for f, shape in ((paddle.atleast_1d, [1]), (paddle.atleast_2d, [1, 1])):
        out = f(x, y)
        assert isinstance(out, list) and [t.shape for t in out] == [shape, shape]
    out = paddle.atleast_3d(x, y)
    assert isinstance(out, list) and [t.shape for t in out] == [[1, 1, 1], [1, 1, 1]]
    assert paddle.atleast_1d(x).shape == [1]


def test_floor_mod_regression():
    """tensor/math.py ``remainder``: ``paddle.floor_mod`` is the same op."""
    x = paddle.to_tensor([2, 3, 8, 7])
    y = paddle.to_tensor([1, 5, 3, 3])
    z = paddle.floor_mod(x, y)
    assert z.dtype == paddle.int64
    np.testing.assert_array_equal(z.numpy(), [0, 3, 2, 1])


def test_reduce_as_regression():
    """tensor/math.py ``reduce_as``: ``x`` summed down to ``target``'s shape."""
    x = paddle.to_tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    target = paddle.to_tensor([1, 2, 3, 4])
    res = paddle.reduce_as(x, target)
    assert res.shape == [4] and res.dtype == paddle.int64
    np.testing.assert_array_equal(res.numpy(), [6, 8, 10, 12])
    res = paddle.reduce_as(x, paddle.ones([2, 1]))
    np.testing.assert_array_equal(res.numpy(), [[10], [26]])
    xf = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    paddle.reduce_as(xf, paddle.ones([2])).sum().backward()
    np.testing.assert_array_equal(xf.grad.numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match="reduce_as"):
        paddle.reduce_as(x, paddle.ones([3]))


def test_logspace_positional_base_and_dtype_regression():
    """tensor/creation.py ``logspace(start, stop, num, base, dtype)``."""
    data = paddle.logspace(0, 10, 5, 2, "float32")
    assert data.dtype == paddle.float32
    np.testing.assert_allclose(data.numpy(), [1.0, 5.6568542, 32.0, 181.01933, 1024.0], rtol=1e-6)
    np.testing.assert_array_equal(paddle.logspace(0, 10, 1, 2, "float32").numpy(), [1.0])


def test_broadcast_tensors_input_keyword_regression():
    """tensor/manipulation.py ``broadcast_tensors(input=[x1, x2, x3])``."""
    x1 = paddle.ones([1, 2, 3, 4])
    x2 = paddle.ones([1, 2, 1, 4])
    x3 = paddle.ones([1, 1, 3, 1])
    out = paddle.broadcast_tensors(input=[x1, x2, x3])
    assert [t.shape for t in out] == [[1, 2, 3, 4]] * 3


def test_fold_paddle_keywords_regression():
    """nn/functional/common.py ``fold(x, output_sizes=, kernel_sizes=)``."""
    x = paddle.randn([2, 3 * 2 * 2, 12])
    y = F.fold(x, output_sizes=[4, 5], kernel_sizes=2)
    assert y.shape == [2, 3, 4, 5]
    with pytest.raises(TypeError, match="output_size"):
        F.fold(x, kernel_sizes=2)


def test_as_complex_and_as_real_regression():
    """tensor/manipulation.py ``as_complex`` / ``as_real``."""
    x = paddle.arange(12, dtype=paddle.float32).reshape([2, 3, 2])
    y = paddle.as_complex(x)
    assert y.shape == [2, 3] and y.dtype == paddle.complex64
    np.testing.assert_array_equal(y.numpy(), [[1j, 2 + 3j, 4 + 5j], [6 + 7j, 8 + 9j, 10 + 11j]])
    z = paddle.as_real(y)
    assert z.shape == [2, 3, 2] and z.dtype == paddle.float32
    np.testing.assert_array_equal(z.numpy(), x.numpy())


def test_take_along_axis_broadcasts_the_index_regression():
    """tensor/manipulation.py ``take_along_axis(arr, indices, axis, broadcast=True)``:
    a ``[[0]]`` index on a ``[3, 3]`` tensor along axis 0 is broadcast to ``[1, 3]``."""
    x = paddle.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    index = paddle.to_tensor([[0]])
    result = paddle.take_along_axis(x, index, 0)
    assert result.shape == [1, 3]
    np.testing.assert_array_equal(result.numpy(), [[1, 2, 3]])
    assert x.take_along_axis(index, 0).shape == [1, 3]
    # broadcast=False keeps the index's shape
    assert paddle.take_along_axis(x, index, 0, broadcast=False).shape == [1, 1]


def test_round_half_away_from_zero_regression():
    """tensor/ops.py ``round``: ``[-0.5, -0.2, 0.6, 1.5]`` -> ``[-1., -0., 1., 2.]``."""
    x = paddle.to_tensor([-0.5, -0.2, 0.6, 1.5])
    np.testing.assert_array_equal(paddle.round(x).numpy(), [-1.0, -0.0, 1.0, 2.0])


def test_digamma_at_zero_is_signed_inf_in_paddle_code_regression():
    """tensor/math.py ``digamma``: ``[[1, 1.5], [0, -2.2]]``. The docstring prints ``nan``
    at 0, but that output predates Paddle PR #73070 (merged 2025-06, "Fix paddle.digamma
    logic on zero input"): since then phi/kernels/impl/digamma_kernel_impl.h
    ``DigammaFunctor`` returns ``-inf`` at ``+0`` and ``+inf`` at ``-0`` (PyTorch's
    ``calc_digamma``, ATen/native/Math.h), and Eigen's ``digamma`` NaN at the negative
    integers. Paddle issue #79458 reports exactly that from Paddle 3.3.1:
    ``digamma([-0., 0., 1.4e-45, -1.])`` -> ``[inf, -inf, -inf, nan]``. The gradient is
    Eigen's ``polygamma(1, x)`` (digamma_grad_kernel_impl.h), ``zeta(2, q)`` = ``inf`` at
    the poles ``q = 0, -1, ...``."""
    data = paddle.to_tensor([[1, 1.5], [0, -2.2]], dtype="float32")
    res = paddle.digamma(data).numpy()
    assert res[1, 0] == -np.inf
    np.testing.assert_allclose(res[0], [-0.57721591, 0.03648996], rtol=1e-5)
    np.testing.assert_allclose(res[1, 1], 5.32286835, rtol=1e-5)
    x = paddle.to_tensor([-0.0, 0.0, 1.401298464324817e-45, -1.0], stop_gradient=False)
    y = paddle.digamma(x)
    np.testing.assert_array_equal(y.numpy(), [np.inf, -np.inf, -np.inf, np.nan])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [np.inf] * 4)


def test_dot_of_two_matrices_is_row_wise_regression():
    """tensor/linalg.py ``dot``: two ``[2, 3]`` tensors give the ``[2]`` row-wise dot
    products ``[32, 64]`` (PyTorch's ``dot`` refuses 2-D inputs, so nothing conflicts)."""
    x = paddle.to_tensor([[1, 2, 3], [2, 4, 6]])
    y = paddle.to_tensor([[4, 5, 6], [4, 5, 6]])
    z = paddle.dot(x, y)
    assert z.shape == [2] and z.dtype == paddle.int64
    np.testing.assert_array_equal(z.numpy(), [32, 64])
    np.testing.assert_array_equal(x.dot(y).numpy(), [32, 64])
    assert paddle.dot(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([4, 5, 6])).item() == 32


def test_small_missing_names_regression():
    """``paddle.eigvalsh`` (tensor/linalg.py), ``paddle.is_empty`` (tensor/logic.py),
    ``x.bitwise_invert()`` (tensor/logic.py), ``x.bucketize(seq)`` (tensor/search.py)."""
    x = paddle.to_tensor([[1.0, 2.0], [2.0, 5.0]])
    np.testing.assert_allclose(
        paddle.eigvalsh(x, UPLO="L").numpy(), np.linalg.eigvalsh(x.numpy()), rtol=1e-5
    )
    res = paddle.is_empty(x=paddle.rand(shape=[4, 32, 32], dtype="float32"))
    assert res.shape == [] and res.dtype == paddle.bool and not res.item()
    assert paddle.is_empty(paddle.zeros([0, 3])).item()
    inv = paddle.to_tensor([-5, -1, 1]).bitwise_invert()
    np.testing.assert_array_equal(inv.numpy(), [4, 0, -2])
    seq = paddle.to_tensor([2, 4, 8, 16])
    v = paddle.to_tensor([[0, 8, 4, 16], [-1, 2, 8, 4]])
    np.testing.assert_array_equal(v.bucketize(seq).numpy(), [[0, 2, 1, 3], [0, 0, 2, 1]])


def test_nn_loss_module_has_every_loss_layer_regression():
    """nn/functional/loss.py ``mse_loss`` / ``cross_entropy`` examples:
    ``paddle.nn.loss.MSELoss()``, ``paddle.nn.loss.CrossEntropyLoss(weight=, reduction=)``."""
    x = paddle.to_tensor([1.5])
    y = paddle.to_tensor([1.7])
    mse = paddle.nn.loss.MSELoss()
    np.testing.assert_allclose(mse(x, y).numpy(), 0.04, rtol=1e-5)
    assert paddle.nn.loss.CrossEntropyLoss is paddle.nn.CrossEntropyLoss
    with pytest.raises(AttributeError, match="NoSuchLoss"):
        paddle.nn.loss.NoSuchLoss  # noqa: B018


def test_histogramdd_paddle_keywords_regression():
    """tensor/linalg.py ``histogramdd(x, bins=, weights=)`` and ``(ranges=, density=)``."""
    x = paddle.to_tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    hist, edges = paddle.histogramdd(x, bins=[3, 3], weights=paddle.to_tensor([1.0, 2, 4, 8]))
    np.testing.assert_array_equal(hist.numpy(), [[0, 1, 0], [2, 0, 0], [4, 0, 8]])
    np.testing.assert_allclose(edges[0].numpy(), [0, 0.66666669, 1.33333337, 2], rtol=1e-6)
    y = paddle.to_tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    hist, edges = paddle.histogramdd(y, bins=[2, 2], ranges=[0.0, 1.0, 0.0, 1.0], density=True)
    np.testing.assert_array_equal(hist.numpy(), [[2, 0], [0, 2]])
    np.testing.assert_allclose(edges[1].numpy(), [0, 0.5, 1])
    with pytest.raises(TypeError, match="twice"):
        paddle.histogramdd(y, range=[0.0, 1.0, 0.0, 1.0], ranges=[0.0, 1.0, 0.0, 1.0])


def test_cells_built_by_paddle_code_return_outputs_and_states_regression():
    """nn/layer/rnn.py ``LSTMCell`` / ``GRUCell`` examples: a cell built by Paddle code
    returns Paddle's ``(outputs, new_states)`` also when the states come positionally."""
    x = paddle.randn((4, 16))
    prev_h = paddle.randn((4, 32))
    prev_c = paddle.randn((4, 32))
    cell = paddle.nn.LSTMCell(16, 32)
    y, (h, c) = cell(x, (prev_h, prev_c))
    assert y.shape == [4, 32] and h.shape == [4, 32] and c.shape == [4, 32]
    np.testing.assert_array_equal(y.numpy(), h.numpy())
    gru = paddle.nn.GRUCell(16, 32)
    y, h = gru(x, prev_h)
    assert y.shape == [4, 32] and h.shape == [4, 32]
    # a PyTorch-only argument keeps PyTorch's convention: the new state alone
    h2, c2 = paddle.nn.LSTMCell(16, 32, bias=True)(x, (prev_h, prev_c))
    assert h2.shape == [4, 32] and c2.shape == [4, 32]
