"""gradcheck / gradgradcheck: they pass on correct gradients and name the worst element
of a wrong one, for real and complex inputs."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import GradcheckError, PyLayer, gradcheck, gradgradcheck


def rand(*shape, dtype="float64", seed=0, requires_grad=True):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return fg.tensor(a, dtype=dtype, requires_grad=requires_grad)


class WrongSquare(PyLayer):
    """x**2 with a backward that is off by 1.5x at one element."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        scale = np.ones(tuple(x.shape))
        scale.reshape(-1)[3] = 1.5
        return g * 2 * x * fg.tensor(scale, dtype=x.dtype)


class DetachedBackward(PyLayer):
    """sin(x) whose backward is right but not differentiable further (cos(x) from a
    detached copy), so second derivatives come out as zero."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return g * x.detach().cos()


class NoConjMul(PyLayer):
    """z * w whose backward forgets the conjugate (wrong under PyTorch's convention)."""

    @staticmethod
    def forward(ctx, z, w):
        ctx.save_for_backward(z, w)
        return z * w

    @staticmethod
    def backward(ctx, g):
        z, w = ctx.saved_tensor()
        return g * w, g * z


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: (x * y).tanh(),
        lambda x, y: x @ y.T,
        lambda x, y: (x.exp() / (1 + y * y)).sum(1),
        lambda x, y: (x - y).abs() + x.sigmoid(),
        lambda x, y: (x, y * 2, x.sum() * y.mean()),
    ],
)
def test_correct_gradients_pass(fn):
    assert gradcheck(fn, (rand(3, 4), rand(3, 4, seed=1)))


def test_float32_inputs_are_checked_in_float64_and_non_tensor_args_pass_through():
    x = rand(2, 3, dtype="float32")
    assert gradcheck(lambda t, k: (t**k).sum(0), (x, 3))
    assert x.dtype == fg.float32  # the caller's tensor is untouched


def test_only_inputs_requiring_grad_are_checked():
    x, c = rand(4), rand(4, seed=1, requires_grad=False)
    assert gradcheck(lambda a, b: a * b, (x, c))
    with pytest.raises(ValueError, match="at least one input"):
        gradcheck(lambda a: a * 2, (c,))


def test_wrong_gradient_reports_the_worst_element():
    x = rand(2, 3)
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongSquare.apply, (x,))
    msg = str(info.value)
    assert "output 0 with respect to input 0" in msg
    assert "d output[1, 0] / d input[1, 0]" in msg  # flat index 3 of a 2x3 tensor
    a = 2 * x.numpy()[1, 0]
    assert f"analytical: {1.5 * a}" in msg and "numerical:" in msg
    assert gradcheck(WrongSquare.apply, (x,), raise_exception=False) is False
    assert isinstance(info.value, RuntimeError)


def test_tolerances_are_used():
    class Slightly(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3.01

    x = rand(3)
    assert not gradcheck(Slightly.apply, (x,), raise_exception=False)
    assert gradcheck(Slightly.apply, (x,), rtol=1e-2, atol=0.0)


def test_a_nan_on_either_side_fails_as_in_pytorch():
    """A NaN finite difference (the output is infinite at x +- eps: inf - inf) against a
    finite analytical gradient used to pass (its error was NaN, and NaN > tol is false);
    PyTorch's allclose fails it, and so does ferrograd's check now."""

    class InfOut(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * float("inf")

        @staticmethod
        def backward(ctx, g):
            return g

    class NanGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = rand(2)
    with np.errstate(invalid="ignore"):
        with pytest.raises(GradcheckError, match="numerical: +nan(.|\\n)*a NaN is never close"):
            gradcheck(InfOut.apply, (x,))
    with pytest.raises(GradcheckError, match="analytical: nan(.|\\n)*a NaN is never close"):
        gradcheck(NanGrad.apply, (x,))
    # an infinite derivative on both sides is the same value
    assert gradcheck(lambda t: t * 2, (x,))


@pytest.mark.parametrize(
    "fn",
    [
        lambda z: z * z,
        lambda z: (z * z.conj()).real,
        lambda z: z.abs(),
        lambda z: z.exp().sin() / (z + 3),
        lambda z: z.angle(),
        lambda z: (z.imag * z).sum(),
    ],
)
def test_complex_inputs_follow_the_conjugate_convention(fn):
    assert gradcheck(fn, (rand(2, 2, dtype="complex128"),))


def test_complex64_inputs_and_the_missing_conjugate_is_caught():
    z, w = rand(3, dtype="complex64"), rand(3, dtype="complex64", seed=1)
    assert gradcheck(lambda a, b: a * b, (z, w))
    with pytest.raises(GradcheckError, match="input 0"):
        gradcheck(NoConjMul.apply, (z, w))


def test_gradgradcheck_passes_on_correct_second_derivatives():
    x, y = rand(2, 3), rand(3, 2, seed=1)
    assert gradgradcheck(lambda a, b: (a @ b).tanh(), (x, y))
    assert gradgradcheck(lambda a: a**3, (rand(4),))
    assert gradgradcheck(lambda z: z * z * z.conj(), (rand(3, dtype="complex128"),))


def test_gradgradcheck_catches_a_non_differentiable_backward():
    x = rand(4)
    assert gradcheck(DetachedBackward.apply, (x,))
    with pytest.raises(GradcheckError):
        gradgradcheck(DetachedBackward.apply, (x,))
    g = fg.ones([4], dtype="float64", requires_grad=True)
    assert not gradgradcheck(DetachedBackward.apply, (x,), (g,), raise_exception=False)


def test_zero_size_input_with_non_empty_output():
    # found by the differential fuzzer: the numerical Jacobian of an input with no
    # elements was a (0, 0) placeholder that failed to broadcast
    x = fg.tensor(1.0, dtype="float64", requires_grad=True)
    y = fg.zeros(2, 0, dtype="float64", requires_grad=True)
    assert gradcheck(lambda a, b: (a + b).sum(-1) + a, (x, y))
