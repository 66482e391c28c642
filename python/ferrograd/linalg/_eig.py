"""``linalg.eig`` / ``linalg.eigvals`` of general (non-symmetric) matrices: complex
eigenvalues and eigenvectors (complex64 for float32/complex64 input, complex128 for
float64/complex128), computed in Rust with faer (``_core._linalg("eig")``; complex input
with NumPy's LAPACK, ``_complex_kernels``). Each eigenvector has unit 2-norm
and its largest-modulus component real and positive (LAPACK only fixes the norm and makes
that component real, so vectors may differ from PyTorch's by a sign). The order of the
eigenvalues is the algorithm's, as in the peers (not sorted).

Backward: PyTorch's ``linalg_eig_backward`` (the real part of
``V⁻ᴴ (diag(gw) + (Vᴴ gV - Vᴴ V Re(diag(Vᴴ gV))) / (conj(w_j) - conj(w_i))) Vᴴ``),
written with differentiable complex ops and a complex solve through its real 2n x 2n
form (a complex input: the complex solve itself, and no real part taken), so higher
derivatives work. The eigenvector part divides by eigenvalue gaps
(repeated eigenvalues: inf/NaN, as in PyTorch) and is only meaningful for a loss that
does not depend on each eigenvector's phase (e.g. ``|V|``), as PyTorch documents; for
a complex input a loss that does depend on it raises, as PyTorch's check does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import _core
from ..autograd.py_layer import Function
from ._common import eye, needs_grad, run
from ._factor import _check_phase, _square, solve

Tensor = _core.Tensor


def _csolve(M: Tensor, R: Tensor) -> Tensor:
    """``M⁻¹ R`` for complex ``M`` and ``R`` through the real system
    ``[[Mr, -Mi], [Mi, Mr]] [Xr; Xi] = [Rr; Ri]`` (differentiable: ``linalg.solve``)."""
    n = M.shape[-1]
    Mr, Mi = M.real, M.imag
    big = _core.concat([_core.concat([Mr, -Mi], -1), _core.concat([Mi, Mr], -1)], -2)
    X = solve(big, _core.concat([R.real, R.imag], -2))
    return _core.complex(X[..., :n, :], X[..., n:, :])


class _Eig(Function):
    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple[Tensor, Tensor]:
        # both outputs always (eigvals too): double backward then sees how V depends on A
        w, V = run("eig", A)
        ctx.complex_input = A.is_complex()
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx: Any, gw: Tensor | None, gV: Tensor | None) -> Tensor | None:
        # PyTorch's linalg_eig_backward; the eigenvector part divides by eigenvalue gaps
        w, V = ctx.saved_tensors
        if gw is None and gV is None:
            return None
        n = w.shape[-1]
        one = eye(n, w.real)
        Vh = V.conj().mT
        inner: Any = None
        if gV is not None:
            VhgV = Vh @ gV
            diag = (VhgV * one).sum(-1)
            if ctx.complex_input:
                _check_phase(diag.imag, "linalg_eig_backward", "eigenvectors")
            diag_re = diag.real
            inner = VhgV - Vh @ (V * diag_re.unsqueeze(-2))
            wc = w.conj()
            E = wc.unsqueeze(-2) - wc.unsqueeze(-1) + one
            inner = inner / E * (1.0 - one)
        if gw is not None:
            D = gw.unsqueeze(-1) * one
            inner = D if inner is None else inner + D
        if ctx.complex_input:
            return solve(Vh, inner @ Vh)
        return _csolve(Vh, inner @ Vh).real


class EigResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of ``eig`` (complex)."""

    eigenvalues: Tensor
    eigenvectors: Tensor


def eig(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> EigResult:
    """Eigenvalues and eigenvectors (columns) of a general real or complex square matrix or batch
    (``torch.linalg.eig``, ``paddle.linalg.eig``), complex. Differentiable for losses
    that do not depend on the eigenvectors' phases, while the eigenvalues are distinct."""
    op = "linalg.eig"
    t = _square(A, x, op)
    if needs_grad(t):
        w, V = _Eig.apply(t)
    else:
        w, V = run("eig", t)
    return EigResult(w, V)


def eigvals(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """Eigenvalues of a general real or complex square matrix or batch, complex (``torch.linalg.eigvals``,
    ``paddle.linalg.eigvals``); differentiable."""
    op = "linalg.eigvals"
    t = _square(A, x, op)
    if needs_grad(t):
        return _Eig.apply(t)[0]
    return run("eigvals", t)[0]
