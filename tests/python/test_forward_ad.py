"""``torch.autograd.forward_ad`` (dual tensors on the reverse-mode engine, by the
double-vjp trick) and gradcheck's forward-mode checks.

Reference behaviour read from PyTorch's source: torch/autograd/forward_ad.py (levels,
make_dual / unpack_dual and their errors), torch/csrc/autograd/autograd_meta.cpp
(``set_fw_grad``'s size check), VariableTypeManual.cpp (``_make_dual``'s "already has a
forward gradient" check), torch/csrc/autograd/forward_grad.cpp (one level at a time),
torch/autograd/function.py (``Function.jvp``'s default error), custom_function.cpp
(``_process_forward_mode_AD``: jvp gets None for inputs without tangent, its output count
is checked) and torch/autograd/gradcheck.py (the forward-mode Jacobian, its messages and
switches). Tangents are checked against central finite differences in float64 (an
independent reference) and against ``autograd.functional.jvp``.
"""

from __future__ import annotations

import ferrograd as torch
import ferrograd.autograd.forward_ad as fwAD
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import GradcheckError, gradcheck, gradgradcheck, once_differentiable

D = torch.float64


def _rand(*shape, dtype=D, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype == torch.complex128:
        a = a + 1j * rng.standard_normal(shape)
    return torch.tensor(a, dtype=dtype)


def _np(t):
    return t.detach().numpy()


def _finite_difference(f, x, t, h=1e-6):
    """Central difference of ``f`` at ``x`` in the direction ``t`` (complex too)."""
    return (_np(f(x + h * t)) - _np(f(x - h * t))) / (2 * h)


def _tangent(f, x, t):
    with fwAD.dual_level():
        return fwAD.unpack_dual(f(fwAD.make_dual(x, t))).tangent


_W = _rand(4, 3, 3, 3, seed=5)
_W1, _B1, _W2, _B2 = _rand(7, 5, seed=7), _rand(7, seed=8), _rand(2, 7, seed=9), _rand(2, seed=10)

OPS = {
    "elementwise": (lambda a: (a.sin() * a.exp() + a.tanh() / (2 + a * a)).sqrt().abs(), (3, 4)),
    "pow_sigmoid": (lambda a: torch.sigmoid(a) ** 3 - a.relu() * 2, (5,)),
    "matmul": (lambda a: a @ a.t() @ _rand(3, 2, seed=1), (3, 3)),
    "sum_mean": (lambda a: a.sum(0) * a.mean(1).sum(), (3, 4)),
    "norm_logsumexp": (lambda a: a.norm() + torch.logsumexp(a, dim=1), (3, 4)),
    "prod_max": (lambda a: a.prod(1) + a.max(dim=1).values, (3, 4)),
    "slice_transpose": (lambda a: a[1:, ::2].t().reshape(-1) * 3, (3, 4)),
    "gather": (lambda a: a.gather(1, torch.tensor([[0, 2], [1, 1], [3, 0]])), (3, 4)),
    "advanced_index": (lambda a: a[torch.tensor([2, 0]), 1:], (3, 4)),
    "softmax": (lambda a: torch.softmax(a, dim=-1) + F.log_softmax(a, dim=0), (3, 4)),
    "conv2d": (lambda a: F.conv2d(a, _W, padding=1, stride=2), (2, 3, 5, 5)),
    "mlp": (lambda a: F.linear(torch.tanh(F.linear(a, _W1, _B1)), _W2, _B2), (4, 5)),
    "linalg_inv_det": (
        lambda a: torch.linalg.inv(a + 4 * torch.eye(3, dtype=D)).sum() * torch.linalg.det(a),
        (3, 3),
    ),
    "fft": (lambda a: torch.fft.fft(a).abs(), (6,)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_tangents_match_finite_differences_and_functional_jvp(name):
    f, shape = OPS[name]
    x, t = _rand(*shape, seed=2), _rand(*shape, seed=3)
    got = _np(_tangent(f, x, t))
    np.testing.assert_allclose(got, _finite_difference(f, x, t), rtol=1e-6, atol=1e-7)
    _, ref = torch.autograd.functional.jvp(f, (x,), (t,))
    np.testing.assert_allclose(got, _np(ref), rtol=1e-10, atol=1e-12)


COMPLEX = {
    "holomorphic": lambda a: a * a + a.exp() / (a + 3),
    "conj_times": lambda a: a.conj() * a * a,
    "abs": lambda a: a.abs(),
    "real_imag_angle": lambda a: a.real * 2 - a.imag**2 + a.angle(),
    "matmul": lambda a: a @ a.t(),
}


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_tangent_is_the_jvp_not_its_conjugate(name):
    # PyTorch's forward-mode tangent of a complex function is the directional
    # derivative f(z + h t) - f(z - h t) / 2h: no conjugation (the double-vjp trick gets
    # it because PyTorch's backward is the adjoint of that map under Re<a, b>)
    f = COMPLEX[name]
    z, t = _rand(3, 3, dtype=torch.complex128, seed=4), _rand(3, 3, dtype=torch.complex128, seed=6)
    np.testing.assert_allclose(_np(_tangent(f, z, t)), _finite_difference(f, z, t), atol=1e-7)


def test_real_to_complex_and_real_tangent_on_a_complex_primal():
    x, t = _rand(4, seed=1), _rand(4, seed=2)
    f = lambda a: a * (1 + 2j) + torch.polar(a.abs() + 1, a)  # noqa: E731
    np.testing.assert_allclose(_np(_tangent(f, x, t)), _finite_difference(f, x, t), atol=1e-7)
    z = _rand(4, dtype=torch.complex128, seed=3)
    np.testing.assert_allclose(
        _np(_tangent(lambda a: a * a, z, t)), _finite_difference(lambda a: a * a, z, t), atol=1e-7
    )
    with fwAD.dual_level():
        with pytest.raises(ValueError, match="complex tangent .* real primal"):
            fwAD.make_dual(x, z)


def test_two_dual_inputs_add_their_contributions():
    x1, t1, x2, t2 = (_rand(3, seed=s) for s in range(4))
    with fwAD.dual_level():
        p1 = fwAD.make_dual(x1, t1)
        p2 = fwAD.make_dual(x2, t2)
        y = p1 * p2.sin() + p2
        primal, tangent = fwAD.unpack_dual(y)
    want = _np(t1) * np.sin(_np(x2)) + _np(x1) * np.cos(_np(x2)) * _np(t2) + _np(t2)
    np.testing.assert_allclose(_np(tangent), want, rtol=1e-12)
    np.testing.assert_array_equal(_np(primal), _np(x1 * x2.sin() + x2))


def test_make_dual_keeps_values_exactly_and_returns_the_tangent_as_is():
    x = torch.tensor([-0.0, 0.0, float("inf"), float("nan"), 1.5], dtype=D)
    t = _rand(5)
    with fwAD.dual_level() as level:
        assert level == 0 and fwAD._current_level == 0
        p = fwAD.make_dual(x, t)
        got = _np(p)
        unpacked = fwAD.unpack_dual(p)
        assert isinstance(unpacked, fwAD.UnpackedDualTensor)
        assert unpacked.tangent is t and unpacked[1] is t
        t[0] = 7.0  # PyTorch uses the tangent as is: a change is seen
        assert float(fwAD.unpack_dual(p * 2).tangent[0]) == 14.0
    assert np.signbit(got[0]) and not np.signbit(got[1])  # x - 0 keeps -0.0
    np.testing.assert_array_equal(got[2:], _np(x)[2:])


def test_levels_and_their_errors():
    x, t = _rand(3), _rand(3)
    assert fwAD.unpack_dual(x) == (x, None)  # no level
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, t)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="not the last one that was created"):
            fwAD.exit_dual_level(level=1)
        with pytest.raises(RuntimeError, match="Invalid level given to make_dual"):
            fwAD.make_dual(x, t, level=3)
        y = fwAD.make_dual(x, t).exp()
        assert fwAD.unpack_dual(y, level=0).tangent is not None
    assert fwAD.unpack_dual(y).tangent is None  # the level's tangents are gone
    assert fwAD.enter_dual_level() == 0
    fwAD.exit_dual_level()
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.exit_dual_level()

    @fwAD.dual_level()
    def decorated():
        return fwAD.unpack_dual(fwAD.make_dual(x, t) * 3).tangent

    np.testing.assert_allclose(_np(decorated()), 3 * _np(t))
    assert fwAD._current_level == -1


def test_make_dual_argument_checks():
    x = _rand(2)
    with fwAD.dual_level():
        with pytest.raises(
            RuntimeError, match="Trying to set a forward gradient that has a different size"
        ):
            fwAD.make_dual(x, _rand(3))
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(torch.tensor([1, 2]), x)
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fwAD.make_dual(x, torch.tensor([1, 2]))
        with pytest.raises(TypeError, match="dense Tensor"):
            fwAD.make_dual(x, torch.sparse_coo_tensor([[0]], [1.0], (2,)))
        tp = _rand(2, seed=1)
        p = fwAD.make_dual(x, tp)
        with pytest.raises(
            RuntimeError, match="already has a forward gradient at the same level 0"
        ):
            fwAD.make_dual(p * 2, _rand(2))
        with pytest.raises(RuntimeError, match="itself has a forward gradient"):
            fwAD.make_dual(_rand(2), p)
        # a primal from unpack_dual carries no tangent: it can be made dual again
        primal = fwAD.unpack_dual(p * 2).primal
        assert fwAD.unpack_dual(primal).tangent is None and not primal.requires_grad
        q = fwAD.make_dual(primal, torch.ones(2, dtype=D))
        # d(q p) = 1 * p + q * tp, q = 2 x
        want = _np(x) + 2 * _np(x) * _np(tp)
        np.testing.assert_allclose(_np(fwAD.unpack_dual(q * p).tangent), want, rtol=1e-12)
        # a float32 tangent of a float64 primal is used in the primal's dtype
        t32 = fwAD.unpack_dual(fwAD.make_dual(_rand(2), torch.ones(2)) * 2).tangent
        assert t32.dtype == D and np.allclose(_np(t32), 2.0)


def test_unpack_under_no_grad_refuses_instead_of_losing_the_tangent():
    x, t = _rand(3), _rand(3)
    with torch.no_grad(), fwAD.dual_level():
        p = fwAD.make_dual(x, t)  # works under no_grad
        assert fwAD.unpack_dual(p).tangent is t
        y = p * 2  # not recorded: ferrograd's tangents live in the reverse graph
        with pytest.raises(RuntimeError, match="grad mode is off.*enable_grad"):
            fwAD.unpack_dual(y)
        with torch.enable_grad():
            z = p.sin()
        np.testing.assert_allclose(_np(fwAD.unpack_dual(z).tangent), np.cos(_np(x)) * _np(t))
    with torch.no_grad():
        assert fwAD.unpack_dual(x).tangent is None  # no level: nothing to lose


def test_reverse_mode_still_flows_through_duals_and_their_unpacked_parts():
    x = _rand(3).requires_grad_()
    t = _rand(3, seed=1)
    with fwAD.dual_level():
        p = fwAD.make_dual(x, t)
        y = p.sin()
        primal, tangent = fwAD.unpack_dual(y)
        assert primal.requires_grad and tangent.requires_grad  # both depend on x
        assert fwAD.unpack_dual(primal).tangent is None
        assert fwAD.unpack_dual(tangent).tangent is None
        (tangent.sum() + primal.sum()).backward()
    xv, tv = _np(x), _np(t)
    # d/dx [cos(x) t + sin(x)] = -sin(x) t + cos(x)
    np.testing.assert_allclose(_np(x.grad), -np.sin(xv) * tv + np.cos(xv), rtol=1e-12)
    # a primal that needs no grad does not require grad, as in PyTorch
    with fwAD.dual_level():
        primal = fwAD.unpack_dual(fwAD.make_dual(_rand(3), t) * 2).primal
        assert not primal.requires_grad


def test_mlp_module_with_parameters_that_require_grad():
    net = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 2))
    net = net.double()
    with torch.no_grad():
        for k, p in enumerate(net.parameters()):
            p.copy_(_rand(*p.shape, seed=20 + k))
    x, t = _rand(4, 5), _rand(4, 5, seed=1)
    tangent = _tangent(net, x, t)
    assert tangent.requires_grad  # it depends on the parameters, as in PyTorch
    np.testing.assert_allclose(_np(tangent), _finite_difference(net, x, t), rtol=1e-6, atol=1e-8)
    params = list(net.parameters())
    got = torch.autograd.grad(tangent.sum(), params, allow_unused=True)  # reverse over forward
    assert got[3] is None  # J t does not depend on the last bias
    _, ref = torch.autograd.functional.jvp(net, (x,), (t,), create_graph=True)
    want = torch.autograd.grad(ref.sum(), params[:3])
    for g, w in zip(got[:3], want):
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-10, atol=1e-12)


def test_views_and_in_place_ops_on_duals():
    x, t = _rand(3), _rand(3, seed=1)
    xv, tv = _np(x), _np(t)
    with fwAD.dual_level():
        p = fwAD.make_dual(x, t)
        np.testing.assert_allclose(_np(fwAD.unpack_dual(p.view(3, 1).t()[0, 1:]).tangent), tv[1:])
        q = p.clone()
        q[0] = 5.0
        q.mul_(p)
        np.testing.assert_allclose(
            _np(fwAD.unpack_dual(q).tangent), [5 * tv[0], *(2 * xv * tv)[1:]]
        )
        base = torch.zeros(5, dtype=D)  # a plain tensor receiving a dual through a view
        base[1:4] = p
        np.testing.assert_allclose(_np(fwAD.unpack_dual(base).tangent), [0, *tv, 0])
        r = p * 1.0
        first = _np(fwAD.unpack_dual(r).tangent)
        r.mul_(p)  # the same tensor, modified in place: its tangent follows
        np.testing.assert_allclose(first, tv)
        np.testing.assert_allclose(_np(fwAD.unpack_dual(r).tangent), 2 * xv * tv)
        p.mul_(3)  # a dual modified in place: not its original tangent any more
        np.testing.assert_allclose(_np(fwAD.unpack_dual(p).tangent), 3 * tv)


class _SinK(torch.autograd.Function):
    """sin(x) * k with a WRONG backward and a right jvp: forward mode uses jvp only."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        ctx.k = k
        return x.sin() * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos() * 7, None

    @staticmethod
    def jvp(ctx, x_t, k_t):
        assert k_t is None  # a non-Tensor argument gets None (PyTorch)
        (x,) = ctx.saved_tensors
        return x_t * x.cos() * ctx.k


class _Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class _SetupStyle(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x * y, x + y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, ga, gb):
        x, y = ctx.saved_tensors
        return ga * y + gb, ga * x + gb

    @staticmethod
    def jvp(ctx, xt, yt):
        x, y = ctx.saved_tensors
        return xt * y + x * yt, xt + yt


class _BadCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g

    @staticmethod
    def jvp(ctx, xt):
        return xt, xt


def test_custom_function_tangent_comes_from_jvp():
    x, t = _rand(3), _rand(3, seed=1)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(_SinK.apply(fwAD.make_dual(x, t) * 1.5, 3.0)).tangent
    np.testing.assert_allclose(_np(tangent), _np(t) * 1.5 * np.cos(1.5 * _np(x)) * 3, rtol=1e-12)
    xg = _rand(3).requires_grad_()
    _SinK.apply(xg, 1.0).sum().backward()  # backward is still the (wrong) backward
    np.testing.assert_allclose(_np(xg.grad), 7 * np.cos(_np(xg)))


def test_custom_function_setup_context_style_and_multiple_outputs():
    x, y, tx, ty = (_rand(3, seed=s) for s in range(4))
    with fwAD.dual_level():
        a, b = _SetupStyle.apply(fwAD.make_dual(x, tx), fwAD.make_dual(y, ty))
        ta, tb = fwAD.unpack_dual(a).tangent, fwAD.unpack_dual(b).tangent
    np.testing.assert_allclose(_np(ta), _np(tx * y + x * ty))
    np.testing.assert_allclose(_np(tb), _np(tx + ty))


def test_custom_function_without_jvp_is_refused_as_in_pytorch():
    x, t = _rand(3), _rand(3, seed=1)
    with fwAD.dual_level():
        p = fwAD.make_dual(x, t)
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            fwAD.unpack_dual(_Twice.apply(p))
        with pytest.raises(RuntimeError, match="jvp returned an invalid number of forward grad"):
            fwAD.unpack_dual(_BadCount.apply(p))
        # a Function no tangent reaches needs no jvp
        w = _rand(3, seed=2).requires_grad_()
        tangent = fwAD.unpack_dual(_Twice.apply(w) * p).tangent
        np.testing.assert_allclose(_np(tangent), 2 * _np(w) * _np(t))


def test_ferrograds_own_functions_need_no_jvp():
    # linalg.inv / fft are custom Functions inside ferrograd: their backward serves
    x, t = _rand(3, 3), _rand(3, 3, seed=1)
    f = lambda a: torch.linalg.inv(a + 4 * torch.eye(3, dtype=D))  # noqa: E731
    np.testing.assert_allclose(_np(_tangent(f, x, t)), _finite_difference(f, x, t), atol=1e-8)


def test_paddle_pylayer_tangent_comes_from_its_backward():
    # a Paddle-style PyLayer has no jvp: its (differentiable) backward serves
    class Cube(torch.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return g * 3 * x * x

    x, t = _rand(3), _rand(3, seed=1)
    np.testing.assert_allclose(_np(_tangent(Cube.apply, x, t)), 3 * _np(x) ** 2 * _np(t))


def test_the_module_and_function_jvp_default_are_pytorchs():
    assert torch.autograd.forward_ad is fwAD
    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        torch.autograd.Function.jvp(None, None)


def test_an_op_without_double_backward_names_the_need():
    class Once(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos()

    x = _rand(3).requires_grad_()
    with pytest.raises(RuntimeError, match="forward-mode AD needs the double backward"):
        gradgradcheck(
            Once.apply, (x,), check_fwd_over_rev=True, check_rev_over_rev=False,
            check_undefined_grad=False,
        )  # fmt: skip


# ---- gradcheck / gradgradcheck -----------------------------------------------------------


def test_cat_r_to_c():
    # PyTorch's autograd test test_cat_r_to_c (in the peer extract README.md calls
    # test_autograd_more.py), its body as is: gradcheck with the forward-mode check of
    # cat of a real and a complex tensor, both orders
    inp_c = torch.rand(3, 2, dtype=torch.complex128, requires_grad=True)
    inp_r = torch.randn(3, 2, dtype=D, requires_grad=True)

    def fn(x1, x2):
        return torch.cat((x1, x2), dim=-1)

    assert gradcheck(fn, [inp_r, inp_c], check_forward_ad=True)
    assert gradcheck(fn, [inp_c, inp_r], check_forward_ad=True)


GRADCHECKED = {
    "real": (lambda a, b: (a.sin() * b, (a @ b.t()).exp()), (D, D)),
    "complex": (lambda a, b: (a * a.conj() * b, a.abs() + b.real), (torch.complex128,) * 2),
    "real_to_complex": (lambda a, b: torch.polar(a.abs() + 1, b), (D, D)),
    "complex_to_real": (lambda a, b: (a * b).abs() + b.angle(), (torch.complex128,) * 2),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_gradcheck_forward_switches(name):
    f, dtypes = GRADCHECKED[name]
    ins = [_rand(2, 3, dtype=d, seed=i).requires_grad_() for i, d in enumerate(dtypes)]
    assert gradcheck(f, ins, check_forward_ad=True, check_batched_forward_grad=True)
    assert gradcheck(f, ins, check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize("name", ["real", "complex"])
def test_gradgradcheck_forward_over_reverse(name):
    f, dtypes = GRADCHECKED[name]
    ins = [_rand(2, 3, dtype=d, seed=i).requires_grad_() for i, d in enumerate(dtypes)]
    assert gradgradcheck(f, ins, check_fwd_over_rev=True)
    assert gradgradcheck(
        f, ins, check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False
    )


class _WrongJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.exp()

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * x.exp() * 1.1


class _WrongBackward(_WrongJvp):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.exp() * 1.1

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * x.exp()


def test_gradcheck_forward_mode_catches_a_wrong_jvp():
    x = _rand(3).requires_grad_()
    assert gradcheck(_WrongJvp.apply, (x,))  # backward is right
    with pytest.raises(
        GradcheckError,
        match=r"^Jacobian computed with forward mode mismatch for output 0 with respect to input 0,"
        r"\nnumerical:",
    ):
        gradcheck(_WrongJvp.apply, (x,), check_forward_ad=True)
    assert gradcheck(_WrongJvp.apply, (x,), check_forward_ad=True, raise_exception=False) is False
    # a wrong backward with a right jvp: only the reverse-mode check fails (as in PyTorch)
    assert gradcheck(_WrongBackward.apply, (x,), check_forward_ad=True, check_backward_ad=False)
    with pytest.raises(GradcheckError, match="^Jacobian mismatch"):
        gradcheck(_WrongBackward.apply, (x,), check_forward_ad=True)


def test_gradcheck_forward_mode_message_for_complex_inputs():
    class ConjJvp(torch.autograd.Function):  # jvp conjugates: right on real tangents only
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z.conj()

        @staticmethod
        def jvp(ctx, t):
            (z,) = ctx.saved_tensors
            return t.conj() * 2 * z

    z = _rand(2, dtype=torch.complex128).requires_grad_()
    with pytest.raises(
        GradcheckError,
        match="^While considering the imaginary part of complex inputs only, Jacobian computed "
        "with forward mode mismatch for output 0 with respect to input 0",
    ):
        gradcheck(ConjJvp.apply, (z,), check_forward_ad=True)


def test_gradgradcheck_forward_over_reverse_catches_a_wrong_second_derivative():
    class DetachedCos(torch.autograd.Function):  # first derivative right, second wrong
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.detach().cos()

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * x.cos()

    x = _rand(3).requires_grad_()
    assert gradcheck(DetachedCos.apply, (x,), check_forward_ad=True)
    with pytest.raises(GradcheckError, match="computed with forward mode mismatch"):
        gradgradcheck(
            DetachedCos.apply, (x,), check_fwd_over_rev=True, check_rev_over_rev=False,
            check_undefined_grad=False,
        )  # fmt: skip


def test_gradcheck_switch_assertions_match_pytorch():
    x = _rand(2).requires_grad_()
    f = lambda a: a * 2  # noqa: E731
    with pytest.raises(
        AssertionError, match="at least one of check_forward_ad or check_backward_ad"
    ):
        gradcheck(f, (x,), check_backward_ad=False)
    with pytest.raises(
        AssertionError, match="check_batched_forward_grad=True requires check_forward_ad"
    ):
        gradcheck(f, (x,), check_batched_forward_grad=True)
    with pytest.raises(AssertionError, match="check_batched_grad=True requires check_backward_ad"):
        gradcheck(f, (x,), check_forward_ad=True, check_backward_ad=False, check_batched_grad=True)
    with pytest.raises(
        AssertionError, match="at least one of check_fwd_over_rev or check_rev_over"
    ):
        gradgradcheck(f, (x,), check_rev_over_rev=False)
    with pytest.raises(
        AssertionError, match="check_undefined_grad=True requires check_rev_over_rev"
    ):
        gradgradcheck(f, (x,), check_fwd_over_rev=True, check_rev_over_rev=False)
