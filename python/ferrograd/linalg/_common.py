"""Small differentiable helpers shared by the ``ferrograd.linalg`` modules: argument
aliases of the two dialects, masks and diagonals built from existing differentiable ops
(so every formula that uses them can be differentiated again)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core

Tensor = _core.Tensor

_NP_DTYPES = {"float32": np.float32, "float64": np.float64}
_NP_COMPLEX = {"complex64": np.complex64, "complex128": np.complex128}


class LinAlgError(RuntimeError):
    """A factorization failed: a singular matrix where an inverse is needed, a matrix
    that is not positive-definite for Cholesky, or an algorithm that did not converge.
    (``torch.linalg.LinAlgError`` is also a ``RuntimeError`` subclass.)"""


def run(op: str, a: Tensor, b: Tensor | None = None, flag: bool = False) -> list[Tensor]:
    """The Rust factorization ``op`` (no history); its numerical failures as LinAlgError."""
    if a.is_complex():
        from ._complex_kernels import run_complex  # NumPy's LAPACK: faer's are real-only

        try:
            return run_complex(op, a, b, flag)
        except RuntimeError as e:
            raise LinAlgError(str(e)) from None
    try:
        return _core._linalg(op, a, b, flag)
    except RuntimeError as e:
        raise LinAlgError(str(e)) from None


def pick(value: Any, alias: Any, names: str, op: str) -> Any:
    """The argument given either positionally/under torch's name or under Paddle's alias
    (``names`` is "torch_name/paddle_name" for the message)."""
    if value is not None and alias is not None:
        raise TypeError(f"{op}() got the argument twice, as {names.replace('/', ' and as ')}")
    if value is None:
        value = alias
    if value is None:
        raise TypeError(f"{op}() missing required argument: {names.split('/')[0]!r}")
    return value


def as_tensor(x: Any, op: str) -> Tensor:
    """``x`` as a Tensor (NumPy arrays and nested lists are converted)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (list, tuple, np.ndarray, int, float)):
        return _core.to_tensor(np.asarray(x))
    raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")


def float_tensor(x: Any, op: str) -> Tensor:
    """``x`` as a float32/float64 Tensor, or a TypeError naming ``op``."""
    t = as_tensor(x, op)
    if str(t.dtype).replace("ferrograd.", "") not in _NP_DTYPES:
        raise TypeError(
            f"{op}: expected a float32 or float64 tensor, got {t.dtype}; convert it first "
            "(e.g. x.astype('float64') or x.double())"
        )
    return t


def float_or_complex(x: Any, op: str) -> Tensor:
    """``x`` as a float32/float64/complex64/complex128 Tensor, or a TypeError naming ``op``
    (for the functions whose forward and gradient handle complex inputs)."""
    t = as_tensor(x, op)
    if str(t.dtype).replace("ferrograd.", "") not in {**_NP_DTYPES, **_NP_COMPLEX}:
        raise TypeError(
            f"{op}: expected a float32 or float64 (or complex64 / complex128) tensor, "
            f"got {t.dtype}; convert it first (e.g. x.double())"
        )
    return t


def np_dtype(t: Tensor) -> Any:
    """The NumPy dtype of a float or complex tensor."""
    key = str(t.dtype).replace("ferrograd.", "")
    return _NP_DTYPES[key] if key in _NP_DTYPES else _NP_COMPLEX[key]


def const(arr: Any, like: Tensor) -> Tensor:
    """A constant tensor of ``like``'s dtype holding ``arr``."""
    return _core.from_numpy(np.ascontiguousarray(np.asarray(arr, dtype=np_dtype(like))))


def eye(n: int, like: Tensor) -> Tensor:
    """The ``n x n`` identity in ``like``'s dtype."""
    return const(np.eye(n), like)


def tril_mask(n: int, like: Tensor, k: int = 0) -> Tensor:
    """Ones on and below diagonal ``k`` of an ``n x n`` matrix, zeros elsewhere."""
    return const(np.tril(np.ones((n, n)), k), like)


def diag_embed(v: Tensor) -> Tensor:
    """Batched diagonal matrices with ``v``'s last dim on their diagonals."""
    return v.unsqueeze(-1) * eye(v.shape[-1], v)


def diagonal(x: Tensor) -> Tensor:
    """The main diagonals of a batch of square matrices."""
    return (x * eye(x.shape[-1], x)).sum(-1)


def mT(x: Tensor) -> Tensor:
    """The batch of transposed matrices (a view)."""
    return x.transpose(-1, -2)


def mH(x: Tensor) -> Tensor:
    """The batch of conjugate-transposed matrices (``mT`` for real ``x``)."""
    return x.transpose(-1, -2).conj() if x.is_complex() else x.transpose(-1, -2)


def check_matrix(x: Tensor, op: str, square: bool = False) -> None:
    """A ValueError unless ``x`` is a (batch of) matrix (square when asked)."""
    if x.ndim < 2:
        raise ValueError(
            f"{op}: the input must have at least 2 dimensions (a matrix or a batch of "
            f"matrices), got shape {list(x.shape)}"
        )
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"{op}: the input must be a batch of square matrices, got shape {list(x.shape)}"
        )


def needs_grad(*ts: Tensor) -> bool:
    """Whether an op on ``ts`` would be recorded (grad mode on and an input needs grad)."""
    return _core.is_grad_enabled() and any(t.requires_grad for t in ts)
