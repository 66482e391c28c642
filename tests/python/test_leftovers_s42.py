"""Session 42: gaps left open by session 41 (``where``'s PyTorch keywords, ``nanmedian`` of
a slice of only NaNs, complex64 division by a tiny divisor, Paddle's conv initial values).

This module is PyTorch code (``torch = ferrograd``); the Paddle-code calls live in
``_leftovers_s42_paddle.py``, a module that imports ferrograd as ``paddle`` only.
"""

import math

import _leftovers_s42_paddle as pd
import ferrograd as torch
import numpy as np
import pytest

NAN = float("nan")


# ---------------------------------------------------------------- 2. where's keywords
def test_torch_where_input_other_keywords_regression():
    """PyTorch: ``where(condition, input, other, *, out=None)`` (torch/_torch_docs.py;
    native_functions.yaml ``where.self(Tensor condition, Tensor self, Tensor other)``,
    ``variants: function, method``; the function form calls ``self`` ``input``)."""
    c = torch.tensor([True, False, True])
    x = torch.tensor([1.0, 2.0, 3.0])
    y = torch.tensor([-1.0, -2.0, -3.0])
    want = [1.0, -2.0, 3.0]
    np.testing.assert_array_equal(torch.where(c, input=x, other=y).numpy(), want)
    np.testing.assert_array_equal(torch.where(condition=c, input=x, other=y).numpy(), want)
    np.testing.assert_array_equal(torch.where(c, x, other=y).numpy(), want)
    np.testing.assert_array_equal(torch.where(c, input=x, other=2.0).numpy(), [1, 2, 3])
    out = torch.empty(3)
    torch.where(c, input=x, other=y, out=out)
    np.testing.assert_array_equal(out.numpy(), want)
    # the method: x.where(condition, other)
    np.testing.assert_array_equal(x.where(c, other=y).numpy(), want)
    np.testing.assert_array_equal(x.where(c, y).numpy(), want)
    with pytest.raises(TypeError, match="both x and input"):
        torch.where(c, x, input=x, other=y)
    with pytest.raises(TypeError, match="both y and other"):
        torch.where(c, x, y, other=y)


def test_paddle_where_keywords_regression():
    """Paddle: ``where(condition, x=None, y=None, name=None)``."""
    a, b = pd.where_keywords()
    np.testing.assert_array_equal(a, [1.0, -2.0, 3.0])
    np.testing.assert_array_equal(b, [1.0, -2.0, 3.0])


# ---------------------------------------------------------------- 3. nanmedian, only NaNs
def test_torch_median_of_all_elements_shares_the_gradient_regression():
    """PyTorch: tools/autograd/derivatives.yaml gives ``median(Tensor self)`` and
    ``nanmedian(Tensor self)`` ``evenly_distribute_backward(grad, self, result)``
    (FunctionsManual.cpp): the gradient is shared by the elements equal to the result, or
    by the NaN elements when it is NaN (a nanmedian of only NaNs)."""
    cases = [
        ("nanmedian", [NAN, NAN, NAN, NAN], [0.25] * 4),
        ("median", [NAN, NAN, NAN], [1 / 3] * 3),
        ("nanmedian", [1.0, 2.0, 2.0, NAN], [0.0, 0.5, 0.5, 0.0]),
        ("median", [2.0, 1.0, 2.0], [0.5, 0.0, 0.5]),
        ("median", [1.0, NAN, 2.0, NAN], [0.0, 0.5, 0.0, 0.5]),
        ("nanmedian", [3.0, NAN, 1.0], [0.0, 0.0, 1.0]),
    ]
    for op, vals, grad in cases:
        x = torch.tensor(vals, requires_grad=True)
        v = getattr(torch, op)(x)
        v.backward()
        np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6, err_msg=f"{op}{vals}")
        y = torch.tensor(vals, requires_grad=True)
        getattr(y, op)().backward()  # the method too
        np.testing.assert_allclose(y.grad.numpy(), grad, rtol=1e-6, err_msg=f"{op}{vals}")
    assert math.isnan(torch.nanmedian(torch.tensor([NAN, NAN])).item())
    # the value is exactly the selected element (no arithmetic on it)
    x = torch.tensor([0.1, 0.1, 0.1], dtype=torch.float64, requires_grad=True)
    assert torch.median(x).item() == 0.1


def test_torch_nanmedian_dim_all_nan_row_regression():
    """PyTorch along a dim: the value NaN and the gradient at the returned index
    (``value_selecting_reduction_backward``). Sorting.cpp ``median_with_indices_impl``
    takes ``nth = first + (size - num_nan - 1) / 2`` = the first slot for a row of only
    NaNs, whose index ``std::nth_element`` leaves there: 0 for rows of up to 3 elements
    (libstdc++'s insertion sort keeps the order; longer rows get a partition's leftover,
    e.g. 2 for 4 NaNs). ferrograd gives the first NaN's index, 0, for every length."""
    x = torch.tensor([[NAN, NAN, NAN], [1.0, NAN, 3.0]], requires_grad=True)
    v, i = torch.nanmedian(x, dim=1)
    assert math.isnan(v[0].item()) and v[1].item() == 1.0
    np.testing.assert_array_equal(i.numpy(), [0, 0])
    v.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 0, 0], [1, 0, 0]])


@pytest.mark.parametrize("mode", ["avg", "min"])
def test_paddle_nanmedian_all_nan_slice_regression(mode):
    """Paddle 3.3 (phi/kernels/cpu/nanmedian_kernel.cc ``CalcMedianFunc``): a row of only
    NaNs gives NaN with index -1, and nanmedian_grad_kernel.cc gives it no gradient (it
    skips a negative index); the other row as usual (``avg``: half to each middle value)."""
    value, idx, grad = pd.nanmedian_all_nan(mode, 1)
    assert np.isnan(value[0])
    if mode == "avg":
        assert value[1] == 2.0 and idx is None
        np.testing.assert_array_equal(grad, [[0, 0, 0], [0.5, 0, 0.5]])
    else:
        assert value[1] == 1.0
        np.testing.assert_array_equal(idx, [-1, 0])
        np.testing.assert_array_equal(grad, [[0, 0, 0], [1, 0, 0]])
    v, g = pd.nanmedian_only_nans_whole(mode)
    assert np.isnan(v) and not g.any()
    v, g = pd.nanmedian_several_axes_all_nan()
    assert np.isnan(v[0]) and v[1] == 2.0
    np.testing.assert_array_equal(g[0], np.zeros([2, 2]))
    np.testing.assert_array_equal(g[1], [[0, 1], [0, 0]])


# ---------------------------------------------------------------- 4. complex64 division
def _torch_complex_div(a, b, dt):
    """c10/util/complex.h ``complex<T>::operator/=`` (Smith's method, as NumPy's) in the
    dtype ``dt``: PyTorch's CPU division of one complex element."""
    with np.errstate(all="ignore"):
        ar, ai, c, d = (dt(v) for v in (a.real, a.imag, b.real, b.imag))
        if abs(c) >= abs(d):
            if c == 0 and d == 0:
                return complex(ar / abs(c), ai / abs(d))
            rat = d / c
            scl = dt(1) / (c + d * rat)
            return complex((ar + ai * rat) * scl, (ai - ar * rat) * scl)
        rat = c / d
        scl = dt(1) / (d + c * rat)
        return complex((ar * rat + ai) * scl, (ai * rat - ar) * scl)


def test_complex64_division_by_a_tiny_divisor_regression():
    """``0 / 5.3e-44j`` in complex64: the scale ``1 / 5.3e-44`` overflows float32, so
    PyTorch (and NumPy) give ``nan+nanj`` although the exact quotient is 0, and
    ``1 / 5.3e-44j`` gives ``nan-infj``. ferrograd's kernel computes the same; the fuzzer
    (test_fuzz_complex_creation.py) compares only divisors with a finite reciprocal."""
    tiny = np.complex64(5.3e-44j)
    for a in (0j, 1 + 0j, 2 - 3j):
        got = (torch.tensor([a], dtype=torch.complex64) / torch.tensor([tiny])).numpy()[0]
        want = _torch_complex_div(complex(a), complex(tiny), np.float32)
        np.testing.assert_array_equal([got.real, got.imag], [want.real, want.imag])
    with np.errstate(all="ignore"):
        np_res = np.complex64(0) / tiny
    assert np.isnan(np_res.real) and np.isnan(np_res.imag)
    # complex128 holds the reciprocal: the exact 0
    got = (torch.tensor([0j]) / torch.tensor([complex(tiny)], dtype=torch.complex128)).numpy()
    assert got[0] == 0


# ---------------------------------------------------------------- 5. Paddle conv init
def _stats(p):
    a = p.detach().numpy().astype(np.float64)
    return a.mean(), a.std(), np.abs(a).max()


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_paddle_conv_default_init_regression(nd):
    """Paddle 3.3 python/paddle/nn/layer/conv.py ``_ConvNd``: the weight
    ``Normal(0, sqrt(2 / (in_channels * prod(kernel_size))))`` (all input channels, even
    with ``groups``), the bias ``create_parameter(is_bias=True)``: Constant(0)."""
    torch.manual_seed(0)
    cls = getattr(torch.nn, f"Conv{nd}D")
    k = {1: 9, 2: 3, 3: 2}[nd]
    for groups in (1, 4):
        layer = cls(32, 64, k, groups=groups)
        std = math.sqrt(2.0 / (32 * k**nd))
        mean, s, top = _stats(layer.weight)
        n = layer.weight.numel()
        assert abs(mean) < 5 * std / math.sqrt(n), (mean, std)
        assert abs(s / std - 1) < 0.08, (s, std)
        assert top > 2.5 * std  # a normal's tail, not a uniform's bound
        assert not layer.bias.detach().numpy().any()


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_paddle_conv_transpose_default_init_regression(nd):
    """Paddle's transposed convs pass no default initializer (``_ConvNd``:
    ``if transposed: return None``), so ``create_parameter`` uses ParamAttr's default,
    Xavier-uniform with fans of the ``[in, out/groups, *k]`` weight (fan_in =
    ``out/groups * prod(k)``, fan_out = ``in * prod(k)``), and a zero bias."""
    torch.manual_seed(1)
    cls = getattr(torch.nn, f"Conv{nd}DTranspose")
    k = {1: 9, 2: 3, 3: 2}[nd]
    layer = cls(32, 64, k, groups=2)
    rf = k**nd
    bound = math.sqrt(6.0 / (32 * rf + 32 * rf))
    mean, s, top = _stats(layer.weight)
    assert bound * 0.98 < top <= bound
    assert abs(s / (bound / math.sqrt(3)) - 1) < 0.05
    assert abs(mean) < 0.05 * bound
    assert not layer.bias.detach().numpy().any()


def test_paddle_conv_attr_initializer_wins_and_torch_classes_keep_pytorch_init_regression():
    """An explicit initializer in ``weight_attr`` / ``bias_attr`` wins over the default;
    PyTorch's ``Conv2d`` keeps ``kaiming_uniform_(a=sqrt(5))`` and a uniform bias."""
    init = torch.nn.initializer
    layer = torch.nn.Conv2D(
        4,
        8,
        3,
        weight_attr=torch.ParamAttr(initializer=init.Constant(0.5)),
        bias_attr=torch.ParamAttr(initializer=init.Constant(0.25)),
    )
    assert (layer.weight.detach().numpy() == 0.5).all()
    assert (layer.bias.detach().numpy() == 0.25).all()
    torch.manual_seed(2)
    conv = torch.nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    assert np.abs(conv.bias.detach().numpy()).max() <= bound and conv.bias.detach().numpy().any()
