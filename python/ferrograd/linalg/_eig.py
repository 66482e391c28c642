"""``linalg.eig`` / ``linalg.eigvals`` of general (non-symmetric) real matrices: complex
eigenvalues and eigenvectors (complex64 for float32 input, complex128 for float64),
computed in Rust with faer (``_core._linalg("eig")``). Each eigenvector has unit 2-norm
and its largest-modulus component real and positive (LAPACK only fixes the norm and makes
that component real, so vectors may differ from PyTorch's by a sign). The order of the
eigenvalues is the algorithm's, as in the peers (not sorted).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import _core
from ..autograd.py_layer import Function
from ._common import needs_grad, run
from ._factor import _square

Tensor = _core.Tensor


class _EigNoGrad(Function):
    """Records eig so that a backward through it raises a clear error (not a silent 0)."""

    @staticmethod
    def forward(ctx: Any, A: Tensor, vectors: bool) -> Any:
        out = run("eig" if vectors else "eigvals", A)
        return (out[0], out[1]) if vectors else out[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(
            "linalg.eig / linalg.eigvals: the backward of the general (non-symmetric) "
            "eigendecomposition is not implemented in ferrograd yet; for a symmetric "
            "matrix use linalg.eigh / linalg.eigvalsh, which are differentiable"
        )


class EigResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of ``eig`` (complex)."""

    eigenvalues: Tensor
    eigenvectors: Tensor


def eig(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> EigResult:
    """Eigenvalues and eigenvectors (columns) of a general real square matrix or batch
    (``torch.linalg.eig``, ``paddle.linalg.eig``), complex. Forward only: a backward
    through it raises (use ``eigh`` for symmetric matrices)."""
    op = "linalg.eig"
    t = _square(A, x, op)
    if needs_grad(t):
        w, V = _EigNoGrad.apply(t, True)
    else:
        w, V = run("eig", t)
    return EigResult(w, V)


def eigvals(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """Eigenvalues of a general real square matrix or batch, complex (``torch.linalg.eigvals``,
    ``paddle.linalg.eigvals``). Forward only, as ``eig``."""
    op = "linalg.eigvals"
    t = _square(A, x, op)
    if needs_grad(t):
        return _EigNoGrad.apply(t, False)
    return run("eigvals", t)[0]
