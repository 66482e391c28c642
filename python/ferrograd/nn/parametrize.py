"""``nn.utils.parametrize`` (PyTorch): a tensor of a module computed on every access from
stored ``original`` tensors by a chain of modules (parametrizations).

``register_parametrization(m, "weight", P)`` moves ``m.weight`` to
``m.parametrizations.weight.original`` (``original0``, ``original1``... when
``P.right_inverse`` returns several tensors, stored from what it returns); ``m.weight``
then reads ``P(original)`` (a later registration on the same name is applied after the
earlier ones). Assigning ``m.weight = X`` stores ``right_inverse(X)``.
``remove_parametrizations(m, "weight", leave_parametrized=True)`` makes ``weight`` a plain
parameter again, holding the last value (or the original). ``cached()`` computes each
parametrized tensor once inside the ``with`` block. The module's class becomes a subclass
``Parametrized<Class>`` holding one property per parametrized name, as in PyTorch, so
``state_dict`` keys match PyTorch's (``parametrizations.weight.original``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, Optional, Union

from .. import _core
from ..grad_mode import no_grad
from .containers import ModuleDict
from .layers import ModuleList
from .module import Module
from .parameter import Parameter

Tensor = _core.Tensor

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside the block each parametrized tensor is computed once (then reused); the
    cache is emptied when the outermost block ends."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _store(like: Tensor, value: Tensor, as_param: bool) -> Tensor:
    """A new original: a Parameter (keeping ``like``'s ``requires_grad``) or a buffer."""
    value = value.detach()
    if as_param:
        return Parameter(value.clone(), requires_grad=like.requires_grad)
    return value.clone()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (or to
    ``original0, original1, ...``). ``is_tensor`` tells which."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        as_param = isinstance(original, Parameter)
        first = modules[0]
        new: Any = original
        with no_grad():
            for m in reversed(list(modules)):
                if hasattr(m, "right_inverse"):
                    try:
                        new = m.right_inverse(new)
                    except NotImplementedError:
                        pass  # as PyTorch: no right inverse, the tensor is stored as it is
                elif not isinstance(new, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a tuple of Tensors")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if not unsafe and (
                new.dtype != original.dtype or list(new.shape) != list(original.shape)
            ):
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype or "
                    f"shape; got {new.dtype}{list(new.shape)} from "
                    f"{original.dtype}{list(original.shape)}"
                )
            self._set_original("original", original, new, as_param)
        else:
            if not isinstance(new, (tuple, list)) or not all(isinstance(t, Tensor) for t in new):
                raise ValueError("'right_inverse' must return a Tensor or a tuple of Tensors")
            for i, t in enumerate(new):
                self._set_original(f"original{i}", original, t, as_param)
        if not unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(
                    f"A parametrization must return a tensor, got {type(z).__name__} "
                    f"({type(first).__name__})"
                )
            if z.dtype != original.dtype or list(z.shape) != list(original.shape):
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    f"tensor (unless unsafe=True): {original.dtype}{list(original.shape)} -> "
                    f"{z.dtype}{list(z.shape)}"
                )

    def _set_original(self, name: str, original: Tensor, value: Tensor, as_param: bool) -> None:
        if name == "original" and value is original:
            stored = original
        elif (
            name == "original"
            and list(value.shape) == list(original.shape)
            and value.dtype == original.dtype
        ):
            # keep the tensor object (an optimizer may already hold it), new values in place
            with no_grad():
                original.copy_(value)
            stored = original
        else:
            stored = _store(original, value, as_param)
        if as_param:
            self.register_parameter(name, stored)  # type: ignore[arg-type]
        else:
            self.register_buffer(name, stored)

    def right_inverse(self, value: Tensor) -> None:
        """Stores ``value`` through the right inverses (last parametrization first); a
        parametrization without ``right_inverse`` cannot be assigned through."""
        with no_grad():
            for m in reversed(list(self)):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(m).__name__} does not implement right_inverse."
                    )
                value = m.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"'right_inverse' must return a Tensor, got {type(value).__name__}"
                    )
                self.original.copy_(value)
            else:
                if not isinstance(value, (tuple, list)) or len(value) != self.ntensors:
                    raise ValueError(
                        f"'right_inverse' must return a sequence of {self.ntensors} tensors"
                    )
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").copy_(t)

    def forward(self) -> Tensor:
        """The parametrized tensor."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in list(self)[1:]:
            x = m(x)
        return x


def _getter(name: str) -> Any:
    def get(self: Module) -> Tensor:
        plist = self.parametrizations[name]
        if _cache_enabled:
            key = (id(self), name)
            if key not in _cache:
                _cache[key] = plist()
            return _cache[key]
        return plist()

    return get


def _setter(name: str) -> Any:
    def set_(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)

    return set_


def _parametrized_setattr(self: Module, name: str, value: Any) -> None:
    # assigning a parametrized name (a Parameter too) goes through right_inverse
    if name in type(self)._parametrized_names:  # type: ignore[attr-defined]
        self.parametrizations[name].right_inverse(value)
        return
    super(type(self), self).__setattr__(name, value)


def _inject_class(module: Module) -> None:
    cls = module.__class__
    new_cls = type(
        f"Parametrized{cls.__name__}",
        (cls,),
        {
            "_parametrized_names": set(),
            "__setattr__": _parametrized_setattr,
            "_class_before_parametrizations": cls,
        },
    )
    module.__class__ = new_cls


def is_parametrized(module: Module, tensor_name: Optional[str] = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if plists is None or not isinstance(plists, ModuleDict):
        return False
    return len(plists) > 0 if tensor_name is None else tensor_name in plists


def type_before_parametrizations(module: Module) -> type:
    """The module's class before any parametrization was registered."""
    return getattr(type(module), "_class_before_parametrizations", type(module))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Makes ``module.<tensor_name>`` read ``parametrization(original)``; see the module
    docstring. Returns ``module``."""
    if not isinstance(parametrization, Module):
        raise TypeError(
            f"register_parametrization: the parametrization must be an nn.Module, got "
            f"{type(parametrization).__name__}"
        )
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            z = parametrization(y)
            if not isinstance(z, Tensor) or z.dtype != y.dtype or list(z.shape) != list(y.shape):
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    "tensor (unless unsafe=True)"
                )
        plist.append(parametrization)
        plist.unsafe = plist.unsafe or unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    if original is None:
        raise ValueError(f"register_parametrization: '{tensor_name}' is None")
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _inject_class(module)
        Module.__setattr__(module, "parametrizations", ModuleDict())
    module.parametrizations[tensor_name] = plist
    cls = type(module)
    cls._parametrized_names.add(tensor_name)  # type: ignore[attr-defined]
    setattr(cls, tensor_name, property(_getter(tensor_name), _setter(tensor_name)))
    return module


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undoes ``register_parametrization`` on ``tensor_name``: the name becomes a plain
    parameter (or buffer) again, holding the parametrized value (``leave_parametrized``)
    or the original (which needs a single ``original``)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            if t.dtype == original.dtype and list(t.shape) == list(original.shape):
                with no_grad():
                    original.copy_(t)
            else:
                original = _store(original, t, isinstance(original, Parameter))
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        with no_grad():
            t = getattr(module, tensor_name)
        first = plist.original0
        original = _store(first, t, isinstance(first, Parameter))
    cls = type(module)
    delattr(cls, tensor_name)
    cls._parametrized_names.discard(tensor_name)  # type: ignore[attr-defined]
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        Module.__delattr__(module, "parametrizations")
        module.__class__ = cls._class_before_parametrizations  # type: ignore[attr-defined]
    return module


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: Optional[str] = None
) -> Module:
    """Registers ``from_module``'s parametrizations (of ``tensor_name``, or all) on
    ``to_module`` too, copying the originals."""
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        src = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            to_module.register_parameter(
                name, Parameter(getattr(from_module, name).detach().clone())
            )
        for p in src:
            register_parametrization(to_module, name, p, unsafe=src.unsafe)
        dst = to_module.parametrizations[name]
        with no_grad():
            if src.is_tensor:
                dst.original.copy_(src.original)
            else:
                for i in range(src.ntensors):
                    getattr(dst, f"original{i}").copy_(getattr(src, f"original{i}"))
    return to_module


__all__: Union[list[str], Sequence[str]] = [
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
    "ParametrizationList",
]
