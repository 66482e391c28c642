"""``gradcheck`` / ``gradgradcheck``: analytical gradients against central finite
differences, in float64 (complex128 for complex inputs).

Convention (PyTorch's): for a real function ``L`` of a complex ``z = x + iy`` the gradient
is ``dL/dx + i dL/dy`` (the conjugate Wirtinger derivative times 2). A complex output
``s`` is checked through the two real functions ``Re s`` and ``Im s`` (gradient
``1`` and ``1j`` fed back), and a complex input through both its real and its imaginary
perturbation, so every real partial derivative is compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad
from . import _gradcheck_forward as _forward


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when an analytical gradient disagrees with the
    numerical one (or cannot be computed)."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _widen(t: Tensor) -> Tensor:
    """``t`` as a new float64/complex128 leaf with the same ``requires_grad``."""
    dtype = t.dtype
    wide = _core.complex128 if dtype in (_core.complex64, _core.complex128) else _core.float64
    if dtype not in (
        _core.float16,
        _core.bfloat16,
        _core.float32,
        _core.float64,
        _core.complex64,
        _core.complex128,
    ):
        return t
    out = t.detach().astype(wide).clone()
    out.requires_grad_(t.requires_grad)
    return out


def _to_numpy(t: Tensor) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def _outputs(func: Callable[..., Any], inputs: Sequence[Any]) -> tuple[Any, ...]:
    with enable_grad():
        return _as_tuple(func(*inputs))


def _output_arrays(outs: Sequence[Any]) -> list[np.ndarray]:
    arrays = []
    for o in outs:
        if isinstance(o, Tensor):
            a = _to_numpy(o)
            arrays.append(a.astype(np.complex128 if np.iscomplexobj(a) else np.float64))
    return arrays


def _numerical(
    func: Callable[..., Any], inputs: tuple[Any, ...], idx: int, eps: float, imag: bool
) -> list[np.ndarray]:
    """``d out / d (real or imaginary part of input idx)``: one array per Tensor output,
    of shape ``(input numel, output numel)``."""
    base = _to_numpy(inputs[idx])
    flat = base.reshape(-1)
    cols: list[list[np.ndarray]] = []
    step = 1j * eps if imag else eps
    for j in range(flat.size):
        vals = []
        for sign in (1.0, -1.0):
            pert = flat.copy()
            pert[j] = pert[j] + sign * step
            x = _core.tensor(pert.reshape(base.shape), dtype=inputs[idx].dtype)
            x.requires_grad_(inputs[idx].requires_grad)
            args = list(inputs)
            args[idx] = x
            vals.append(_output_arrays(_outputs(func, args)))
        cols.append([(a - b).reshape(-1) / (2 * eps) for a, b in zip(*vals)])
    if cols:
        return [np.stack([c[k] for c in cols]) for k in range(len(cols[0]))]
    # an input with no elements: (0, output numel) per output (found by the fuzzer: a
    # (0, 0) placeholder failed to broadcast against a non-empty output's Jacobian)
    return [np.zeros((0, o.size)) for o in _output_arrays(_outputs(func, inputs))]


def _report(
    i: int,
    k: int,
    inp: Tensor,
    out_shape: tuple[int, ...],
    row: int,
    col: int,
    part: str,
    analytical: complex,
    numerical: complex,
    atol: float,
    rtol: float,
) -> str:
    in_idx = np.unravel_index(row, tuple(inp.shape)) if inp.ndim else ()
    out_idx = np.unravel_index(col, out_shape) if out_shape else ()
    if np.isnan(analytical) or np.isnan(numerical):
        why = (
            "  a NaN is never close to anything (the function or its gradient is not "
            "finite near this point; move the inputs, or fix the NaN)"
        )
    else:
        why = (
            f"  |difference| {abs(analytical - numerical):.6g} > atol + rtol * |numerical| = "
            f"{atol + rtol * abs(numerical):.6g}"
        )
    return (
        f"Jacobian mismatch for output {k} with respect to input {i}{part}:\n"
        f"  worst element: d output{list(map(int, out_idx))} / d input{list(map(int, in_idx))}\n"
        f"  analytical: {analytical}\n  numerical:  {numerical}\n{why}"
    )


def _check_switches(
    check_forward_ad: bool,
    check_backward_ad: bool,
    check_batched_grad: bool,
    check_batched_forward_grad: bool,
) -> None:
    # PyTorch's assertions (torch/autograd/gradcheck.py, gradcheck)
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Checks the gradients of ``func`` at ``inputs`` (a Tensor or a sequence) against
    central finite differences with step ``eps``, for every input Tensor that requires
    grad. Floating inputs are widened to float64 and complex ones to complex128 first.

    An element passes when ``|analytical - numerical| <= atol + rtol * |numerical|``; a
    NaN on either side never passes and an infinity passes only against the same infinity
    (as PyTorch's ``allclose``).
    Returns True; on a mismatch raises :class:`GradcheckError` naming the output and
    input, the worst element's indices and both values — or returns False when
    ``raise_exception=False``.

    ``check_forward_ad=True`` also compares the forward-mode Jacobian
    (:mod:`.forward_ad`, one JVP per input element) with the finite differences, and
    ``check_batched_forward_grad=True`` the JVPs of random tangents one by one with their
    ``vmap`` (see :mod:`._gradcheck_forward`); ``check_backward_ad=False`` skips the
    reverse-mode check.
    """
    del nondet_tol, check_undefined_grad, fast_mode, masked
    _check_switches(
        check_forward_ad, check_backward_ad, check_batched_grad, check_batched_forward_grad
    )
    if not callable(func):
        raise TypeError(f"gradcheck: func must be callable, got {type(func).__name__}")
    given = _as_tuple(inputs)
    ins = tuple(_widen(x) if isinstance(x, Tensor) else x for x in given)
    diff = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient; create them "
            "with requires_grad=True (or stop_gradient=False)"
        )

    def fail(msg: str) -> bool:
        if raise_exception:
            raise GradcheckError(msg)
        return False

    outs = _outputs(func, ins)
    tensor_outs = [o for o in outs if isinstance(o, Tensor)]
    if not tensor_outs:
        return fail("gradcheck: func returned no Tensor")
    if check_backward_ad:
        message = _check_backward(func, ins, diff, tensor_outs, eps, atol, rtol, check_grad_dtypes)
        if message is not None:
            return fail(message)
    if check_forward_ad:
        message = _forward.check_forward_ad(
            func,
            ins,
            diff,
            lambda i, imag: _numerical(func, ins, i, eps, imag),
            atol,
            rtol,
            check_grad_dtypes,
        )
        if message is not None:
            return fail(message)
    if check_batched_forward_grad:
        message = _forward.check_batched_forward_grad(func, ins)
        if message is not None:
            return fail(message)
    return True


def _check_backward(
    func: Callable[..., Any],
    ins: tuple[Any, ...],
    diff: Sequence[int],
    tensor_outs: Sequence[Tensor],
    eps: float,
    atol: float,
    rtol: float,
    check_grad_dtypes: bool,
) -> str | None:
    """The reverse-mode check: the first mismatch's message, or None."""
    for i in diff:
        complex_in = ins[i].dtype == _core.complex128
        num_re = _numerical(func, ins, i, eps, imag=False)
        num_im = _numerical(func, ins, i, eps, imag=True) if complex_in else None
        for k, out in enumerate(tensor_outs):
            seeds = [1.0, 1j] if out.dtype in (_core.complex64, _core.complex128) else [1.0]
            n_out = int(np.prod(tuple(out.shape)))
            analytical = np.zeros(
                (int(np.prod(tuple(ins[i].shape))), n_out, len(seeds)), dtype=np.complex128
            )
            if out.requires_grad:
                for col in range(n_out):
                    for s, seed in enumerate(seeds):
                        g = np.zeros(
                            n_out, dtype=np.complex128 if s or len(seeds) > 1 else np.float64
                        )
                        g[col] = seed
                        go = _core.tensor(g.reshape(tuple(out.shape)), dtype=out.dtype)
                        (grad,) = _core.grad(
                            [out], [ins[i]], [go], retain_graph=True, allow_unused=True
                        )
                        if grad is None:
                            continue
                        if tuple(grad.shape) != tuple(ins[i].shape):
                            return (
                                f"gradcheck: the gradient of input {i} has shape "
                                f"{list(grad.shape)}, expected {list(ins[i].shape)}"
                            )
                        if check_grad_dtypes and grad.dtype != ins[i].dtype:
                            return (
                                f"gradcheck: the gradient of input {i} is {grad.dtype}, "
                                f"expected {ins[i].dtype}"
                            )
                        analytical[:, col, s] = _to_numpy(grad).reshape(-1)
            for s, seed in enumerate(seeds):
                # L = Re(conj(seed) * out[col]); expected grad = dL/dx + i dL/dy
                expected = np.real(np.conj(seed) * num_re[k]).astype(np.complex128)
                if num_im is not None:
                    expected = expected + 1j * np.real(np.conj(seed) * num_im[k])
                got = analytical[:, :, s]
                # as PyTorch's `allclose` (equal_nan=False): a NaN on either side fails, an
                # infinity passes only against the same infinity (a NaN finite difference,
                # inf - inf, once made the error NaN, and NaN > 0 is false: it passed)
                close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=False)
                if not close.all():
                    # the worst element: the largest excess over the tolerance, NaN first
                    with np.errstate(invalid="ignore"):
                        err = np.abs(got - expected) - (atol + rtol * np.abs(expected))
                    bad = np.where(close, -np.inf, np.where(np.isnan(err), np.inf, err))
                    wr, wc = (int(v) for v in np.unravel_index(int(np.argmax(bad)), bad.shape))
                    part = " (imaginary part of the output)" if s == 1 else ""
                    ana, num = complex(got[wr, wc]), complex(expected[wr, wc])
                    shown_a: complex | float = ana if complex_in else ana.real
                    shown_n: complex | float = num if complex_in else num.real
                    return _report(
                        i,
                        k,
                        ins[i],
                        tuple(out.shape),
                        wr,
                        wc,
                        part,
                        shown_a,
                        shown_n,
                        atol,
                        rtol,
                    )
    return None


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Checks second derivatives: runs :func:`gradcheck` on the function
    ``(inputs, grad_outputs) -> grad(func(inputs), inputs, grad_outputs, create_graph=True)``.
    Missing ``grad_outputs`` are drawn at random (seeded, so the check is deterministic)
    and are themselves checked as inputs.

    ``check_rev_over_rev`` runs gradcheck's reverse-mode check on that function and
    ``check_fwd_over_rev`` its forward-mode check (forward over reverse)."""
    del gen_non_contig_grad_outputs
    # PyTorch's assertions (torch/autograd/gradcheck.py, gradgradcheck)
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True"
        )
    given = _as_tuple(inputs)
    ins = tuple(_widen(x) if isinstance(x, Tensor) else x for x in given)
    diff = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and x.requires_grad]
    outs = [o for o in _outputs(func, ins) if isinstance(o, Tensor)]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        gos = []
        for o in outs:
            shape = tuple(o.shape)
            g = rng.standard_normal(shape)
            if o.dtype in (_core.complex64, _core.complex128):
                g = g + 1j * rng.standard_normal(shape)
            gos.append(_core.tensor(np.asarray(g), dtype=o.dtype, requires_grad=True))
    else:
        gos = [_widen(g) for g in _as_tuple(grad_outputs)]
    n_in = len(ins)

    def first_grads(*args: Any) -> tuple[Tensor, ...]:
        xs, gs = args[:n_in], args[n_in:]
        out = [o for o in _as_tuple(func(*xs)) if isinstance(o, Tensor)]
        pairs = [(o, g) for o, g in zip(out, gs) if o.requires_grad]
        grads = _core.grad(
            [o for o, _ in pairs],
            [xs[i] for i in diff],
            [g for _, g in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_grads,
        tuple(ins) + tuple(gos),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
        masked=masked,
    )


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
