"""The hook-based ``nn.utils.weight_norm`` / ``spectral_norm`` (PyTorch's older API, and
Paddle's ``paddle.nn.utils`` functions of the same names) with their ``remove_*``.

- ``weight_norm(module, name='weight', dim=0)``: ``weight`` is replaced by parameters
  ``weight_g`` (its norms over every dim but ``dim``; ``dim=None``: one norm) and
  ``weight_v`` (its values), and recomputed as ``g * v / ||v||`` before every forward.
  PyTorch code: ``g`` keeps the weight's rank (size 1 but along ``dim``), registered
  before ``v``; Paddle code: ``g`` is 1-D (0-d for ``dim=None``), registered after ``v``.
- ``spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None)``:
  ``weight_orig`` (a parameter) with buffers ``weight_u`` / ``weight_v`` (N(0, 1),
  normalised); before every forward ``weight = weight_orig / sigma``, ``sigma = u . (W v)``
  after ``n_power_iterations`` rounds of ``v = W^T u / ||.||``, ``u = W v / ||.||`` in
  training mode (none in eval). Until the first forward ``weight`` holds the raw values,
  as in PyTorch.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .._dialect import caller_dialect
from ..grad_mode import no_grad
from .module import Module
from .parameter import Parameter
from .parametrizations import _norm_except_dim, _normalize

Tensor = _core.Tensor


class _WeightNormHook:
    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, dim

    def compute(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        dim = self.dim if self.dim == -1 else self.dim % v.ndim
        if dim != -1 and g.ndim != v.ndim:  # Paddle's 1-D g
            shape = [1] * v.ndim
            shape[dim] = v.shape[dim]
            g = g.reshape(shape)
        return v * (g / _norm_except_dim(v, dim))

    def __call__(self, module: Module, inputs: Any) -> None:
        object.__setattr__(module, self.name, self.compute(module))


class _SpectralNormHook:
    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        self.name, self.n, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, w: Tensor) -> Tensor:
        if self.dim != 0:
            w = w.movedim(self.dim, 0)
        return w.reshape([w.shape[0], -1])

    def compute(self, module: Module, power_iteration: bool) -> Tensor:
        w = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.matrix(w)
        if power_iteration:
            with no_grad():
                m = mat.detach()
                for _ in range(self.n):
                    v.copy_(_normalize(m.t() @ u, self.eps))
                    u.copy_(_normalize(m @ v, self.eps))
        sigma = (u.clone() * (mat @ v.clone())).sum()
        return w / sigma

    def __call__(self, module: Module, inputs: Any) -> None:
        object.__setattr__(module, self.name, self.compute(module, module.training))


def _find_hook(module: Module, kind: type, name: str) -> Any:
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, kind) and getattr(hook, "name", None) == name:
            return key, hook
    return None, None


def _check_dim(what: str, dim: int, weight: Tensor) -> None:
    """An out-of-range ``dim`` is an IndexError (it wrapped around silently: dim=5 of a
    2-D weight normalised along dim 1); PyTorch's transpose/permute refuse it too."""
    n = max(weight.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"{what}: dim {dim} is out of range for a weight of {weight.ndim} dimension(s) "
            f"(expected a value in [{-n}, {n - 1}])"
        )


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Splits ``module.<name>`` into ``<name>_g`` and ``<name>_v`` (see the module doc)."""
    key, _ = _find_hook(module, _WeightNormHook, name)
    if key is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"weight_norm: module has no parameter {name!r}")
    # -1 is "the whole tensor" in both peers (their dim=None), not the last dim
    if dim is not None and dim != -1:
        _check_dim("weight_norm", dim, weight)
    d = -1 if dim is None or dim == -1 else dim % weight.ndim
    hook = _WeightNormHook(name, d)
    g = _norm_except_dim(weight.detach(), d)
    paddle = caller_dialect(2) == "paddle"
    del module._parameters[name]
    module.__dict__.pop(name, None)
    if paddle:  # Paddle's layout: v first, then a 1-D (or 0-d) g
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        module.register_parameter(name + "_g", Parameter(g.reshape([-1] if d != -1 else [])))
    else:
        module.register_parameter(name + "_g", Parameter(g.clone()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
    hook(module, ())
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Folds ``<name>_g`` / ``<name>_v`` back into a parameter ``<name>``."""
    key, hook = _find_hook(module, _WeightNormHook, name)
    if hook is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    with no_grad():
        weight = hook.compute(module)
    del module._forward_pre_hooks[key]
    for suffix in ("_g", "_v"):
        delattr(module, name + suffix)
    module.__dict__.pop(name, None)
    module.register_parameter(name, Parameter(weight.detach()))
    return module


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: Optional[int] = None,
) -> Module:
    """Normalises ``module.<name>`` by its largest singular value (see the module doc)."""
    key, _ = _find_hook(module, _SpectralNormHook, name)
    if key is not None:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"spectral_norm: module has no parameter {name!r}")
    if n_power_iterations <= 0:
        raise ValueError(
            "Expected n_power_iterations to be positive, but got "
            f"n_power_iterations={n_power_iterations}"
        )
    if dim is None:
        from .conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        # the output dim: 1 of a transposed conv, and of a Linear in Paddle's [in, out]
        # layout (Paddle's spectral_norm picks 1 for its Linear, spectral_norm_hook.py)
        paddle_linear = getattr(module, "weight_layout", None) == "in_out"
        dim = 1 if isinstance(module, transposed) or paddle_linear else 0
    _check_dim("spectral_norm", dim, weight)
    hook = _SpectralNormHook(name, n_power_iterations, dim % weight.ndim, eps)
    h, w = hook.matrix(weight.detach()).shape
    u = _normalize(_core.randn([h], dtype=weight.dtype), eps)
    v = _normalize(_core.randn([w], dtype=weight.dtype), eps)
    del module._parameters[name]
    module.__dict__.pop(name, None)
    module.register_parameter(name + "_orig", weight)
    object.__setattr__(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Makes ``module.<name>`` a plain parameter holding the normalised weight."""
    key, hook = _find_hook(module, _SpectralNormHook, name)
    if hook is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    with no_grad():
        weight = hook.compute(module, False)
    del module._forward_pre_hooks[key]
    for suffix in ("_orig", "_u", "_v"):
        delattr(module, name + suffix)
    module.__dict__.pop(name, None)
    module.register_parameter(name, Parameter(weight.detach()))
    return module


__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]
