"""softmax normalises by the sum of shifted exponentials, not through a rounded
log-sum-exp (issue 16, item 8: float32 rows near 1000 summed to 1 only within 3e-5)."""

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest


@pytest.mark.parametrize("center", [0.0, 1000.0, -1000.0, 1e5])
def test_float32_softmax_sums_to_one(center):
    x = np.random.RandomState(0).uniform(center - 1, center + 1, size=(4, 1000)).astype(np.float32)
    s = F.softmax(fg.tensor(x), -1).numpy().astype(np.float64).sum(-1)
    np.testing.assert_allclose(s, 1.0, atol=2e-6)


def test_float32_softmax_and_log_softmax_match_float64_reference():
    x = np.random.RandomState(1).uniform(999, 1001, size=(3, 257)).astype(np.float32)
    xd = x.astype(np.float64)
    ref = np.exp(xd - xd.max(-1, keepdims=True))
    ref /= ref.sum(-1, keepdims=True)
    np.testing.assert_allclose(F.softmax(fg.tensor(x), -1).numpy(), ref, rtol=1e-5, atol=1e-9)
    ref_log = np.log(ref)
    np.testing.assert_allclose(F.log_softmax(fg.tensor(x), -1).numpy(), ref_log, rtol=0, atol=2e-5)


def test_special_rows_keep_their_values():
    x = fg.tensor([[-np.inf, -np.inf], [0.0, -np.inf], [np.inf, 0.0]])
    s = F.softmax(x, -1).numpy()
    assert np.isnan(s[0]).all()
    np.testing.assert_array_equal(s[1], [1.0, 0.0])
    assert np.isnan(s[2, 0])


def test_zero_dim_input_is_one_row():
    # found by the differential fuzzer: softmax of a 0-d tensor raised from its max
    s = F.softmax(fg.tensor(3.0), -1)
    assert s.ndim == 0 and float(s) == 1.0
    assert float(F.log_softmax(fg.tensor(3.0), -1)) == 0.0


@pytest.mark.parametrize("shape,dim", [((3, 0), -1), ((0,), 0), ((2, 0, 4), 1), ((0, 3), 1)])
@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_zero_size_input_gives_an_empty_result_with_a_gradient(shape, dim, fn):
    # found by the differential fuzzer: over a zero-size dim the max raised ValueError
    x = fg.zeros(list(shape), dtype="float64")
    x.stop_gradient = False
    y = fn(x, dim)
    assert tuple(y.shape) == shape and y.dtype == x.dtype
    y.sum().backward()
    assert tuple(x.grad.shape) == shape
