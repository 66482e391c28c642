"""``frexp``, ``view_as_real`` / ``view_as_complex`` and ``pdist`` (``_ops_special_more.py``):
values against NumPy and PyTorch (hard-coded from torch 2.x), the dialects' exponent
dtypes, gradients with gradcheck/gradgradcheck, edge cases and bad input."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

FREXP_X = [8.0, 0.3, 0.0, -0.0, -5.0, math.inf, -math.inf, math.nan, 1e-310, 1.7976931348623157e308]
# torch.frexp(torch.tensor(FREXP_X, dtype=torch.float64)) with torch 2.x
FREXP_M = [0.5, 0.6, 0.0, -0.0, -0.625, math.inf, -math.inf, math.nan, 0.57526180315593933,
           0.99999999999999989]  # fmt: skip
FREXP_E = [4, -1, 0, 0, 3, 0, 0, 0, -1029, 1024]


def test_frexp_matches_torch_and_numpy():
    m, e = fg.frexp(fg.tensor(FREXP_X, dtype="float64"))
    assert e.dtype == fg.int32 and m.dtype == fg.float64
    np.testing.assert_array_equal(m.numpy(), FREXP_M)
    np.testing.assert_array_equal(np.signbit(m.numpy()), np.signbit(FREXP_M))
    np.testing.assert_array_equal(e.numpy(), FREXP_E)
    x32 = fg.tensor([3.0, -0.1, 1e-40], dtype="float32")
    m32, e32 = x32.frexp()
    want_m, want_e = np.frexp(np.array([3.0, -0.1, 1e-40], dtype=np.float32))
    assert m32.dtype == fg.float32
    np.testing.assert_array_equal(m32.numpy(), want_m)
    np.testing.assert_array_equal(e32.numpy(), want_e)
    me, ee = fg.frexp(fg.zeros([0, 2]))
    assert me.shape == [0, 2] and ee.shape == [0, 2]


def test_frexp_exponent_is_float_in_paddle_code():
    ns = {"paddle": fg}
    exec("m, e = paddle.frexp(paddle.to_tensor([8.0, 0.3]))", ns)
    assert ns["e"].dtype == fg.float32
    np.testing.assert_array_equal(ns["e"].numpy(), [4.0, -1.0])
    ns = {"torch": fg}
    exec("m, e = torch.frexp(torch.tensor([8.0, 0.3]))", ns)
    assert ns["e"].dtype == fg.int32


def test_frexp_gradient_is_grad_over_two_to_the_exponent():
    xs = np.array([8.0, 0.3, -5.0, 0.0, math.inf])
    x = fg.tensor(xs, requires_grad=True)
    m, e = fg.frexp(x)
    assert not e.requires_grad
    m.sum().backward()
    np.testing.assert_array_equal(
        x.grad.numpy(), [1 / 16, 2.0, 1 / 8, 1.0, 1.0]
    )  # (torch: 1 at inf)
    y = fg.tensor(np.array([0.3, -7.5, 100.0]), requires_grad=True)
    assert gradcheck(lambda t: fg.frexp(t)[0], (y,))


def test_frexp_rejects_integers():
    with pytest.raises(TypeError, match="floating-point"):
        fg.frexp(fg.tensor([1, 2]))


def test_view_as_real_and_back():
    z = fg.tensor([[1 + 2j, -3.5j], [0.25, 4 - 1j]], dtype="complex128")
    r = fg.view_as_real(z)
    assert r.dtype == fg.float64 and r.shape == [2, 2, 2]
    np.testing.assert_array_equal(r.numpy(), [[[1, 2], [0, -3.5]], [[0.25, 0], [4, -1]]])
    back = fg.view_as_complex(r)
    assert back.dtype == fg.complex128
    np.testing.assert_array_equal(back.numpy(), z.numpy())
    assert fg.view_as_real(fg.tensor([1 + 1j], dtype="complex64")).dtype == fg.float32
    assert fg.view_as_complex(fg.zeros([0, 2])).shape == [0]
    np.testing.assert_array_equal(z.view_as_real().numpy(), r.numpy())


def test_views_pass_gradients():
    x = fg.tensor(np.array([[1.0, 2.0], [3.0, -4.0]]), requires_grad=True)
    assert gradcheck(lambda t: fg.view_as_real(fg.view_as_complex(t) * (2 + 1j)), (x,))
    z = fg.view_as_complex(x)
    (z.abs().sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1 / 5**0.5, 2 / 5**0.5], [0.6, -0.8]])


def test_views_reject_bad_input():
    with pytest.raises(TypeError, match="complex"):
        fg.view_as_real(fg.tensor([1.0]))
    with pytest.raises(TypeError, match="float32 and float64"):
        fg.view_as_complex(fg.tensor([[1, 2]]))
    # PyTorch raises RuntimeError for the layout (aten/src/ATen/native/ComplexHelper.h,
    # view_as_complex; more in test_complex_views.py)
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        fg.view_as_complex(fg.zeros([2, 3]))
    with pytest.raises(RuntimeError, match="one or more dimensions"):
        fg.view_as_complex(fg.tensor(1.0))


PD_X = [[0.0, 1.0, 2.0], [0.5, 1.0, -1.0], [3.0, 5.0, 2.0], [1.0, 1.0, 1.0]]
# torch.pdist(x, p) and x.grad after y.sum().backward(), float64, torch 2.x
PD = {
    0: ([2.0, 2.0, 2.0, 3.0, 2.0, 3.0], [[0.0] * 3] * 4),
    1: ([3.5, 7.0, 2.0, 9.5, 2.5, 7.0],
        [[-3.0, -1.0, 2.0], [-1.0, -1.0, -3.0], [3.0, 3.0, 2.0], [1.0, -1.0, -1.0]]),
    2: ([3.0413812651491097, 5.0, 1.4142135623730951, 5.5901699437494745, 2.0615528128088303,
         4.58257569495584],
        [[-1.4715057684919048, -0.8, 1.6935007050186912],
         [-0.5253502332309337, -0.7155417527999327, -2.493192738577425],
         [1.4836493759719427, 2.3884133137439023, 0.7548742048359418],
         [0.5132066257508956, -0.8728715609439696, 0.044817828722792025]]),
    3: ([3.004622503458683, 4.497941445275415, 1.2599210498948732, 4.741906809364845,
         2.010362879294529, 4.179339196381232],
        [[-1.1025042499817388, -0.7908468475209521, 1.6268859638830366],
         [-0.3121196242165186, -0.7115639760828845, -2.38689728528876],
         [0.9518109173608565, 2.4184303734956134, 0.4575059584148586],
         [0.46281295683740087, -0.9160195498917768, 0.3025053629908647]]),
    math.inf: ([3.0, 4.0, 1.0, 4.0, 2.0, 4.0],
               [[-1.0, -1.0, 2.0], [0.0, -1.0, -2.0], [0.0, 3.0, 0.0], [1.0, -1.0, 0.0]]),
    0.5: ([5.949489742783177, 13.928203230275509, 4.0, 28.229984125663936, 4.500000000000001,
           19.485281374238568],
          [[-7.604190281162429, -1.8660254037844388, 3.4082482904638627],
           [-2.910866436294507, -2.656594818826534, -5.975819758018391],
           [8.636377061016578, 6.729727003797521, 7.481785029927623],
           [1.878679656440358, -2.2071067811865475, -4.914213562373095]]),
}  # fmt: skip


@pytest.mark.parametrize("p", list(PD), ids=str)
def test_pdist_matches_torch_values_and_gradients(p):
    x = fg.tensor(np.array(PD_X), requires_grad=True)
    y = fg.nn.functional.pdist(x, p)
    np.testing.assert_allclose(y.numpy(), PD[p][0], rtol=1e-13)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), PD[p][1], rtol=1e-12, atol=1e-15)


def test_pdist_identical_rows_get_a_zero_gradient():
    x = fg.tensor([[0.0, 1.0], [0.0, 1.0], [3.0, 5.0]], requires_grad=True)
    y = fg.pdist(x)
    np.testing.assert_allclose(y.numpy(), [0.0, 5.0, 5.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.6, -0.8], [-0.6, -0.8], [1.2, 1.6]])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.7])
def test_pdist_gradcheck_and_gradgradcheck(p):
    x = fg.tensor(np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.6], [-2.0, 0.9, 1.3]]))
    x.requires_grad = True
    f = fg.nn.functional.pdist  # (torch's F.pdist; fg.pdist is the same function)
    assert f is fg.pdist
    assert gradcheck(lambda t: f(t, p), (x,))
    assert gradgradcheck(lambda t: f(t, p), (x,))


def test_pdist_edge_cases_and_bad_input():
    assert fg.pdist(fg.zeros([1, 3])).shape == [0]
    assert fg.pdist(fg.zeros([0, 3])).shape == [0]
    assert fg.pdist(fg.tensor([[1.0, math.nan], [0.0, 0.0]])).isnan().all().item()
    with pytest.raises(ValueError, match="2-d"):
        fg.pdist(fg.zeros([3]))
    with pytest.raises(TypeError, match="floating-point"):
        fg.pdist(fg.zeros([2, 3], dtype="int64"))
    with pytest.raises(ValueError, match="non-negative"):
        fg.pdist(fg.zeros([2, 3]), p=-1)
