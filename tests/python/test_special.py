"""``ferrograd.special`` (PyTorch's ``torch.special``) and ``erfinv``: values against
``math``/NumPy references in float64, gradients by gradcheck/gradgradcheck."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import special
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)


def _t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_erfinv_inverts_erf_to_a_few_ulps():
    y = np.concatenate(
        [RNG.uniform(-1, 1, 2000), [0.0, 1e-300, -1e-12, 0.999999999, -0.9999999999999]]
    )
    x = fg.erfinv(_t(y)).numpy()
    back = np.vectorize(math.erf)(x)
    np.testing.assert_allclose(back, y, rtol=4e-16, atol=4e-16)
    assert fg.erfinv(_t([1.0, -1.0])).tolist() == [math.inf, -math.inf]
    assert np.isnan(fg.erfinv(_t([1.5, -2.0, math.nan])).numpy()).all()
    f32 = fg.erfinv(fg.tensor([0.5], dtype=fg.float32))
    assert f32.dtype == fg.float32 and abs(f32.item() - 0.4769362762044699) < 1e-7


def test_erfinv_gradients():
    x = _t(RNG.uniform(-0.9, 0.9, 6), True)
    assert gradcheck(fg.erfinv, (x,))
    assert gradgradcheck(fg.erfinv, (x,))


def test_special_functions_match_references():
    x = RNG.uniform(-3, 3, 50)
    p = RNG.uniform(0.01, 0.99, 50)
    ndtr = np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2)))(x)
    np.testing.assert_allclose(special.ndtr(_t(x)).numpy(), ndtr, rtol=1e-14)
    np.testing.assert_allclose(special.log_ndtr(_t(x)).numpy(), np.log(ndtr), rtol=1e-13)
    np.testing.assert_allclose(special.ndtr(special.ndtri(_t(p))).numpy(), p, rtol=1e-13)
    np.testing.assert_allclose(special.expit(_t(x)).numpy(), 1 / (1 + np.exp(-x)), rtol=1e-14)
    np.testing.assert_allclose(special.logit(_t(p)).numpy(), np.log(p / (1 - p)), rtol=1e-13)
    np.testing.assert_allclose(special.exp2(_t(x)).numpy(), 2.0**x, rtol=1e-14)
    e = np.array([0.0, 0.5, 2.0, -1.0])
    np.testing.assert_allclose(
        special.entr(_t(e)).numpy(), [0.0, -0.5 * math.log(0.5), -2 * math.log(2), -math.inf]
    )
    np.testing.assert_allclose(
        special.xlog1py(_t([0.0, 2.0]), _t([-1.0, 0.5])).numpy(), [0.0, 2 * math.log1p(0.5)]
    )
    np.testing.assert_allclose(special.round(_t([1.2345, -2.5]), decimals=2).numpy(), [1.23, -2.5])
    np.testing.assert_allclose(special.softmax(_t([[1.0, 2.0]]), 1).numpy().sum(), 1.0)
    assert special.erf(fg.tensor([0])).dtype == fg.float32  # integers compute in float


@pytest.mark.parametrize("name", ["ndtr", "ndtri", "entr", "expit", "log_ndtr"])
def test_special_gradients(name):
    pts = RNG.uniform(0.1, 0.9, 4)
    assert gradcheck(getattr(special, name), (_t(pts, True),))
