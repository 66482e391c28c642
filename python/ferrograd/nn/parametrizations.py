"""``nn.utils.parametrizations`` (PyTorch): ``weight_norm`` and ``spectral_norm`` as
parametrizations (``nn.utils.parametrize``), with PyTorch's ``state_dict`` keys.

- ``weight_norm(module, name='weight', dim=0)``: ``weight = g * v / ||v||``, the norm over
  every dim but ``dim`` (``dim=None``: over the whole tensor); stored as
  ``parametrizations.weight.original0`` (``g``, the norms: size 1 except along ``dim``)
  and ``original1`` (``v``).
- ``spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None)``:
  ``weight = W / sigma`` with ``sigma = u . (W_mat v)`` estimated by power iteration on
  ``W_mat`` (``W`` with ``dim`` moved first, flattened to 2-D; ``dim`` defaults to 1 for
  transposed convolutions, else 0). ``u`` and ``v`` are buffers
  (``parametrizations.weight.0._u`` / ``_v``) drawn from N(0, 1), normalised and refined
  by 15 iterations when registered; each forward in training mode runs
  ``n_power_iterations`` more (not recorded). A 1-D weight is just normalised.
- ``orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True)``:
  a real matrix (or batch) with orthonormal columns (rows, when wide), the image of the
  stored ``original`` under ``'matrix_exp'`` (``exp(A - A^T)`` of its lower triangle,
  the default for square matrices), ``'cayley'`` (``(I - A/2)^-1 (I + A/2)``) or
  ``'householder'`` (the product of the reflections in its strictly lower part, signs
  from its diagonal; the default otherwise). With ``use_trivialization`` the weight is
  ``base @ map(original)``, ``base`` a buffer (``parametrizations.weight.0.base``) set
  when a value is assigned: the value itself if orthogonal, else the Q of its QR
  factorisation with ``diag(R) > 0`` (a non-square one first completed with random
  columns); ``original`` then restarts at the map's identity. With
  ``use_trivialization=False`` there is no ``base``: the weight is ``map(original)``;
  for ``'householder'`` registering or assigning a value ``X`` stores the reflectors of
  ``X = QR`` (``diag(R) > 0``, LAPACK's ``geqrf`` layout), so the weight becomes that Q;
  ``'matrix_exp'`` / ``'cayley'`` keep the registered weight as ``original`` and refuse
  an assignment (``NotImplementedError``, as PyTorch: they have no right inverse).
  Complex weights are refused.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from ..grad_mode import no_grad
from . import parametrize
from .module import Module

Tensor = _core.Tensor


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of ``v`` over every dim but ``dim`` (size 1 there), or of the whole
    tensor when ``dim == -1`` (0-d)."""
    if dim == -1:
        return (v * v).sum().sqrt()
    others = [d for d in range(v.ndim) if d != dim]
    if not others:
        return v.abs()
    return (v * v).sum(others, keepdim=True).sqrt()


class _WeightNorm(Module):
    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        """``weight_g * weight_v / ||weight_v||``."""
        dim = self.dim if self.dim == -1 else self.dim % weight_v.ndim
        return weight_v * (weight_g / _norm_except_dim(weight_v, dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        """``(g, v)`` for ``weight``: its norms and itself."""
        dim = self.dim if self.dim == -1 else self.dim % weight.ndim
        return _norm_except_dim(weight, dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Registers ``weight = g * v / ||v||`` on ``module.<name>`` (see the module doc)."""
    weight = getattr(module, name, None)
    if dim is not None and dim != -1 and isinstance(weight, Tensor):
        n = max(weight.ndim, 1)
        if not -n <= dim < n:
            # (it wrapped around: dim=2 of a 2-D weight normalised along dim 0)
            raise IndexError(
                f"weight_norm: dim {dim} is out of range for a weight of {weight.ndim} "
                f"dimension(s) (expected a value in [{-n}, {n - 1}])"
            )
    return parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


def _normalize(x: Tensor, eps: float) -> Tensor:
    return x / max(float((x * x).sum().sqrt()), eps)


class _SpectralNorm(Module):
    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] "
                f"but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._matrix(weight.detach())
            h, w = mat.shape
            u = _core.randn([h], dtype=weight.dtype)
            v = _core.randn([w], dtype=weight.dtype)
            self.register_buffer("_u", _normalize(u, eps))
            self.register_buffer("_v", _normalize(v, eps))
            self._power_method(mat, 15)

    def _matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape([weight.shape[0], -1])

    def _power_method(self, mat: Tensor, iterations: int) -> None:
        with no_grad():
            mat = mat.detach()
            for _ in range(iterations):
                self._u.copy_(_normalize(mat @ self._v, self.eps))
                self._v.copy_(_normalize(mat.t() @ self._u, self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        """``weight / sigma`` (a 1-D weight: normalised)."""
        if weight.ndim == 1:
            return weight / (weight * weight).sum().sqrt().clip(min=self.eps)
        mat = self._matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * (mat @ v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        """``value`` itself (the scale cannot be recovered)."""
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: Optional[int] = None,
) -> Module:
    """Registers ``weight = W / sigma(W)`` on ``module.<name>`` (see the module doc)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from .conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    p = _SpectralNorm(weight, n_power_iterations, dim, eps)
    return parametrize.register_parametrization(module, name, p)


_MAPS = ("matrix_exp", "cayley", "householder")


def _linalg() -> Any:
    from .. import linalg  # imported late: ferrograd.linalg imports nn's neighbours

    return linalg


def _eye_like(x: Tensor, k: int) -> Tensor:
    return _core.eye(k, dtype=x.dtype)


def _orthonormalise(a: Tensor) -> Tensor:
    """The Q of ``a = QR`` (``a`` tall) with ``diag(R) > 0``: unique, so any QR agrees."""
    q, r = _linalg().qr(a)
    signs = r.diagonal(0, -2, -1).sign()
    signs = _core.where(signs == 0, _core.ones_like(signs), signs)
    return q * signs.unsqueeze(-2)


def _householder_inverse(q: Tensor) -> Tensor:
    """The ``original`` whose Householder map is the Q of ``q = QR`` with ``diag(R) > 0``
    (``q`` tall): LAPACK's ``geqrf`` reflectors below the diagonal, ``R`` above it, and on
    the diagonal the signs of ``R``'s, negated where a column needed no reflection
    (``tau = 0``; the map reflects it anyway). PyTorch's right inverse; ``geqrf`` is
    NumPy's (``qr(mode="raw")``, LAPACK itself)."""
    import numpy as np

    a = np.array(q.detach().numpy(), copy=True)
    for idx in np.ndindex(*a.shape[:-2]):
        h, tau = np.linalg.qr(a[idx], mode="raw")  # h: geqrf's output, transposed
        mat = h.T
        d = np.sign(np.diagonal(mat)) * np.where(tau == 0.0, -1.0, 1.0)
        np.fill_diagonal(mat, d)
        a[idx] = mat
    return _core.tensor(a, dtype=q.dtype)


class _Orthogonal(Module):
    def __init__(self, weight: Tensor, orthogonal_map: str, use_trivialization: bool) -> None:
        super().__init__()
        self.shape = list(weight.shape)
        self.orthogonal_map = orthogonal_map
        self.use_trivialization = use_trivialization
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        """The orthogonal matrix that ``x`` parametrizes."""
        n, k = x.shape[-2], x.shape[-1]
        wide = n < k
        if wide:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            x = x.tril()
            if n != k:  # embed the tall matrix in a square one
                pad = _core.zeros([*x.shape[:-2], n, n - k], dtype=x.dtype)
                x = _core.concat([x, pad], axis=-1)
            a = x - x.mT  # skew-symmetric
            if self.orthogonal_map == "matrix_exp":
                q = _linalg().matrix_exp(a)
            else:
                eye = _eye_like(a, n)
                q = _linalg().solve(eye - a * 0.5, eye + a * 0.5)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(-2))
            q = _linalg().householder_product(a, tau)
            # the stored diagonal (+-1) flips columns; it is not differentiated
            q = q * x.detach().diagonal(0, -2, -1).astype("int32").astype(q.dtype).unsqueeze(-2)
        if self.use_trivialization and self.base is not None:
            q = self.base @ q
        return q.mT if wide else q

    def right_inverse(self, q: Tensor) -> Tensor:
        """With ``use_trivialization``: sets ``base`` from the orthogonal ``q`` and returns
        the map's identity point. Without: the Householder reflectors of ``q``'s QR
        (``'householder'``; the other maps have none: ``NotImplementedError``)."""
        if list(q.shape) != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor "
                f"of shape {list(q.shape)}."
            )
        given = q
        n, k = q.shape[-2], q.shape[-1]
        wide = n < k
        if wide:
            q = q.mT
            n, k = k, n
        if not self.use_trivialization:
            if self.orthogonal_map != "householder":
                # PyTorch's message; registration catches it and keeps the weight as is
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False."
                )
            a = _householder_inverse(q)
            return a.mT if wide else a
        with no_grad():
            if n == k:
                eye = _eye_like(q, k)
                tol = (
                    10.0
                    * n
                    * (2.220446049250313e-16 if q.dtype == _core.float64 else 1.1920929e-07)
                )
                ok = bool(((q.mT @ q - eye).abs() <= tol).all())
                q = q.clone() if ok else _orthonormalise(q)
            else:
                extra = _core.randn([*q.shape[:-2], n, n - k], dtype=q.dtype)
                q = _orthonormalise(_core.concat([q, extra], axis=-1))
            self.base = q
            # minus the identity: the identity point of every map (householder reads the
            # diagonal's signs)
            neg = _core.zeros_like(given)
            m = min(given.shape[-2], given.shape[-1])
            idx = _core.arange(0, m)
            neg[..., idx, idx] = -1.0
            return neg


def orthogonal(
    module: Module,
    name: str = "weight",
    orthogonal_map: Optional[str] = None,
    *,
    use_trivialization: bool = True,
) -> Module:
    """Registers an orthogonal parametrization on ``module.<name>`` (see the module
    doc); the current weight is orthonormalised into ``base``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if weight.dtype.is_complex:
        raise NotImplementedError("orthogonal: complex weights are not supported in ferrograd")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization)
    return parametrize.register_parametrization(module, name, orth, unsafe=True)


__all__ = ["weight_norm", "spectral_norm", "orthogonal"]
