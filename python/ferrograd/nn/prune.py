"""``torch.nn.utils.prune``: pruning by reparametrization, with PyTorch's mechanism.

Pruning parameter ``name`` of a module (``torch/nn/utils/prune.py``) moves the parameter to
``name + '_orig'``, stores a 0/1 mask as the buffer ``name + '_mask'``, and registers the
pruning method as a forward pre-hook that sets the plain attribute ``module.name = orig *
mask`` before every forward (so gradients reach ``name_orig`` through the mask). Pruning the
same parameter again combines the masks through a ``PruningContainer``: a new unstructured
method prunes among the entries still unpruned, a structured one among the channels not
yet zeroed out. ``remove`` makes the pruning permanent. ``amount`` is a fraction in
``[0, 1]`` (rounded to a count) or a count.

Masks are computed on NumPy copies of the importance scores; ties among equal scores are
broken towards the lower flat index (PyTorch's ``topk`` leaves the order of ties
unspecified, so only inputs without ties give identical masks).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _core
from ..grad_mode import no_grad

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


def _np(t: Any) -> np.ndarray:
    """A NumPy copy of tensor ``t``'s values (float32 for bfloat16)."""
    return np.array(t.detach().numpy(), copy=True)


def _tensor(a: np.ndarray, like: Any) -> Any:
    """``a`` as a ferrograd tensor of ``like``'s dtype."""
    return _core.from_numpy(np.ascontiguousarray(a)).to(like.dtype)


class BasePruningMethod(ABC):
    """Base class of the pruning methods: ``compute_mask`` gives the new mask, ``apply``
    reparametrizes a module's parameter, and the instance itself is the forward pre-hook
    that recomputes ``module.<name>`` from the original parameter and the mask."""

    _tensor_name: str
    PRUNING_TYPE: str = "unstructured"

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """The mask for importance scores ``t``, on top of ``default_mask`` (same shape)."""

    def apply_mask(self, module: Any) -> Any:
        """``module.<name>_mask * module.<name>_orig`` (the pruned tensor)."""
        if getattr(self, "_tensor_name", None) is None:
            raise RuntimeError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(orig.dtype) * orig

    @classmethod
    def apply(
        cls, module: Any, name: str, *args: Any, importance_scores: Any = None, **kwargs: Any
    ) -> Any:
        """Prunes ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with an earlier
        pruning of the same parameter) and returns the method hooked on the module."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif tuple(importance_scores.shape) != tuple(orig.shape):
            raise ValueError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{type(module).__name__}: got {tuple(importance_scores.shape)}, expected "
                f"{tuple(orig.shape)}"
            )
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            _drop(module, "_parameters", name)
            default_mask = _core.full(list(orig.shape), 1.0, dtype=orig.dtype)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # undo the reparametrization
                orig = getattr(module, name + "_orig")
                module.__dict__.pop(name, None)
                _drop(module, "_parameters", name + "_orig")
                module.register_parameter(name, orig)
            raise
        return method

    def prune(self, t: Any, default_mask: Any = None, importance_scores: Any = None) -> Any:
        """``t`` times the mask this method computes (from ``importance_scores``, or
        ``t`` itself)."""
        if importance_scores is None:
            importance_scores = t
        elif tuple(importance_scores.shape) != tuple(t.shape):
            raise ValueError("importance_scores should have the same shape as tensor t")
        if default_mask is None:
            default_mask = _core.full(list(t.shape), 1.0, dtype=t.dtype)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Any) -> None:
        """Makes the pruning permanent: ``module.<name>`` becomes a parameter again holding
        the pruned values; ``<name>_orig`` and ``<name>_mask`` are dropped."""
        name = getattr(self, "_tensor_name", None)
        if name is None:
            raise RuntimeError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        module.__dict__.pop(name, None)
        orig = module._parameters[name + "_orig"]
        with no_grad():
            orig.copy_(weight.detach())
        _drop(module, "_parameters", name + "_orig")
        _drop(module, "_buffers", name + "_mask")
        setattr(module, name, orig)


def _drop(module: Any, registry: str, name: str) -> None:
    """Removes ``name`` from ``module``'s ``registry`` and its attribute mirror."""
    module.__dict__[registry].pop(name, None)
    module.__dict__.pop(name, None)
    if registry == "_buffers":
        module._non_persistent.discard(name)


def _composite_method(cls: Any, module: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``cls(*args, **kwargs)`` for ``name``, combined in a ``PruningContainer`` with the
    method already hooked for ``name`` (whose hook is taken off; ``apply`` re-adds it)."""
    old = [
        (k, hook)
        for k, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(old) > 1:
        raise RuntimeError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{type(module).__name__}. Use a PruningContainer."
        )
    for k, _ in old:
        del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old:
        previous = old[0][1]
        if isinstance(previous, PruningContainer):
            previous.add_pruning_method(method)
            return previous
        container = PruningContainer(previous)
        container.add_pruning_method(method)
        return container
    return method


class PruningContainer(BasePruningMethod):
    """The pruning methods applied to one parameter, in order; its mask is the last
    method's mask computed on what the earlier ones left unpruned."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1 and isinstance(args[0], BasePruningMethod):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: Any) -> None:
        """Appends ``method`` (acting on the same parameter)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and getattr(self, "_tensor_name", None) is None:
            self._tensor_name = method._tensor_name
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                f"Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """``default_mask`` with the last method's mask computed on the part it selects:
        the unpruned entries (unstructured), the channels not all zero (structured), or
        everything (global)."""
        method = self._pruning_methods[-1]
        scores, mask = _np(t), _np(default_mask)
        kind = getattr(method, "PRUNING_TYPE", None)
        if kind == "unstructured":
            slc: Any = mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            ndim, dim = scores.ndim, method.dim
            dim = dim + ndim if dim < 0 else dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            others = tuple(d for d in range(ndim) if d != dim)
            keep = mask.sum(axis=others) != 0
            slc = tuple(keep if d == dim else slice(None) for d in range(ndim))
        elif kind == "global":
            slc = tuple(slice(None) for _ in range(scores.ndim))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(_tensor(scores[slc], t), default_mask=_tensor(mask[slc], t))
        new_mask = mask.astype(scores.dtype)
        new_mask[slc] = _np(partial)
        return _tensor(new_mask, t)


def _check_amount(amount: Any) -> None:
    """``amount``: a float in ``[0, 1]`` or a non-negative integer."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _count(amount: Any, size: int) -> int:
    """How many of ``size`` units ``amount`` prunes (a fraction rounds half to even)."""
    n = int(amount) if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(amount, numbers.Integral) and n > size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={size}"
        )
    return n


def _check_structured(scores: np.ndarray, dim: int) -> None:
    if scores.ndim <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {tuple(scores.shape)} with {scores.ndim} dims"
        )
    if dim >= scores.ndim or dim < -scores.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(scores.shape)}")


def _channel_mask(shape: tuple, dim: int, keep: np.ndarray, default: np.ndarray) -> np.ndarray:
    """A mask of ones on the kept channels along ``dim``, times ``default``."""
    view = [1] * len(shape)
    view[dim] = -1
    return np.broadcast_to(keep.reshape(view), shape).astype(default.dtype) * default


class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays ``default_mask`` (all ones at first)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """``default_mask`` unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module: Any, name: str) -> Any:  # type: ignore[override]
        """Reparametrizes ``module.<name>`` with a mask of ones."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` of the (unpruned) entries at random (``ferrograd.rand_like``)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """``default_mask`` with the entries of the ``k`` largest random draws zeroed."""
        from ..random_gen import rand_like

        k = _count(self.amount, int(t.numel()))
        mask = _np(default_mask)
        if k:
            prob = _np(rand_like(t.detach().to(_core.float32))).reshape(-1)
            mask.reshape(-1)[np.argsort(-prob, kind="stable")[:k]] = 0
        return _tensor(mask, default_mask)

    @classmethod
    def apply(cls, module: Any, name: str, amount: Any) -> Any:  # type: ignore[override]
        """Prunes ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` (unpruned) entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """``default_mask`` with the ``k`` smallest ``|t|`` zeroed."""
        k = _count(self.amount, int(t.numel()))
        mask = _np(default_mask)
        if k:
            order = np.argsort(np.abs(_np(t)).reshape(-1), kind="stable")
            mask.reshape(-1)[order[:k]] = 0
        return _tensor(mask, default_mask)

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Any, name: str, amount: Any, importance_scores: Any = None
    ) -> Any:
        """Prunes the ``amount`` smallest-magnitude entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """Ones on the channels whose random draw is above the ``k``-th smallest."""
        from .._core import rand

        scores = _np(t)
        _check_structured(scores, self.dim)
        size = scores.shape[self.dim]
        k = _count(self.amount, size)
        if k == 0:
            return default_mask
        prob = _np(rand([size]))
        keep = prob > np.sort(prob)[k - 1]
        return _tensor(_channel_mask(scores.shape, self.dim, keep, _np(default_mask)), t)

    @classmethod
    def apply(cls, module: Any, name: str, amount: Any, dim: int = -1) -> Any:  # type: ignore[override]
        """Prunes ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


def _channel_norms(scores: np.ndarray, n: Any, dim: int) -> np.ndarray:
    """The L``n`` norm of each channel along ``dim`` (``torch.norm(t, p=n, dim=others)``)."""
    flat = np.abs(np.moveaxis(scores, dim, 0).reshape(scores.shape[dim], -1).astype(np.float64))
    if n == "fro":
        n = 2
    if isinstance(n, str) or not isinstance(n, numbers.Real):
        raise ValueError(
            f"ln_structured: n={n!r} is not a vector norm order; use an int, a float, inf, "
            "-inf or 'fro'"
        )
    if n == float("inf"):
        return flat.max(axis=1)
    if n == float("-inf"):
        return flat.min(axis=1)
    if n == 0:
        return (flat != 0).sum(axis=1).astype(np.float64)
    return (flat**n).sum(axis=1) ** (1.0 / n)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """Ones on the channels of largest norm (all but ``k``), times ``default_mask``."""
        scores = _np(t)
        _check_structured(scores, self.dim)
        size = scores.shape[self.dim]
        k = _count(self.amount, size)
        norms = _channel_norms(scores, self.n, self.dim)
        if k == 0:
            return default_mask
        keep = np.zeros(size, dtype=bool)
        keep[np.argsort(-norms, kind="stable")[: size - k]] = True
        return _tensor(_channel_mask(scores.shape, self.dim, keep, _np(default_mask)), t)

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Any, name: str, amount: Any, n: Any, dim: int, importance_scores: Any = None
    ) -> Any:
        """Prunes the ``amount`` lowest-norm channels of ``module.<name>`` along ``dim``."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (times the mask already in place)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def compute_mask(self, t: Any, default_mask: Any) -> Any:
        """``default_mask * mask``."""
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise ValueError(
                f"custom_from_mask: the mask's shape {tuple(self.mask.shape)} differs from the "
                f"parameter's {tuple(default_mask.shape)}"
            )
        return default_mask * self.mask.to(default_mask.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, mask: Any) -> Any:  # type: ignore[override]
        """Prunes ``module.<name>`` with ``mask``."""
        return super().apply(module, name, mask=mask)


def identity(module: Any, name: str) -> Any:
    """Reparametrizes ``module.<name>`` with a mask of ones; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Any, name: str, amount: Any) -> Any:
    """Prunes ``amount`` (a fraction or a count) random entries of ``module.<name>``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Any, name: str, amount: Any, importance_scores: Any = None) -> Any:
    """Prunes the ``amount`` entries of ``module.<name>`` of smallest absolute value (of
    ``importance_scores`` when given)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Any, name: str, amount: Any, dim: int) -> Any:
    """Prunes ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Any, name: str, amount: Any, n: Any, dim: int, importance_scores: Any = None
) -> Any:
    """Prunes the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest L``n``
    norm (``n``: an int, a float, ``inf``, ``-inf`` or ``'fro'``)."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(
    parameters: Any, pruning_method: Any, importance_scores: Any = None, **kwargs: Any
) -> None:
    """Prunes the ``(module, name)`` pairs of ``parameters`` together: the unstructured
    ``pruning_method(**kwargs)`` (e.g. ``L1Unstructured``, ``amount=``) picks among all
    their entries at once; each parameter then gets its slice as a custom mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    from .utils import parameters_to_vector

    scores = parameters_to_vector(
        [importance_scores.get((m, n), getattr(m, n)).detach() for m, n in parameters]
    )
    default_mask = parameters_to_vector([_mask_or_ones(m, n) for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = int(param.numel())
        custom_from_mask(module, name, mask=final[start : start + size].reshape(list(param.shape)))
        start += size


def _mask_or_ones(module: Any, name: str) -> Any:
    """``module.<name>_mask`` when ``name`` is pruned already, else a mask of ones."""
    mask = getattr(module, name + "_mask", None)
    if mask is not None:
        return mask
    param = getattr(module, name)
    return _core.full(list(param.shape), 1.0, dtype=param.dtype)


def custom_from_mask(module: Any, name: str, mask: Any) -> Any:
    """Prunes ``module.<name>`` with the given 0/1 ``mask``; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Any, name: str) -> Any:
    """Makes the pruning of ``module.<name>`` permanent and takes its hook off; raises
    ``ValueError`` when that parameter is not pruned."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Any) -> bool:
    """True when ``module`` or a submodule carries a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )
