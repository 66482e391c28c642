"""Keyed and parameter containers: ``ModuleDict`` (Paddle: ``LayerDict``),
``ParameterList`` and ``ParameterDict``. Their entries are registered like attributes,
so ``parameters()``, ``state_dict()`` and ``to()`` see them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

from .. import _core
from .module import Module
from .parameter import Parameter


def _items(values: Any) -> Iterable[tuple[str, Any]]:
    """``(key, value)`` pairs from a mapping or an iterable of pairs."""
    if isinstance(values, Mapping):
        return list(values.items())
    out = []
    for i, kv in enumerate(values):
        if not isinstance(kv, (tuple, list)) or len(kv) != 2:
            raise TypeError(
                f"update expects a mapping or (key, value) pairs; element {i} is "
                f"{type(kv).__name__}"
            )
        out.append((kv[0], kv[1]))
    return out


class ModuleDict(Module):
    """An ordered dict of modules registered as children (Paddle: ``LayerDict``).
    ``md[key]``, ``md[key] = m``, ``del md[key]``, ``len``, ``in``, ``keys()``,
    ``values()``, ``items()``, ``update()``, ``pop()``, ``clear()``."""

    def __init__(self, modules: Any = None, sublayers: Any = None) -> None:
        super().__init__()
        if modules is None:
            modules = sublayers
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]
        self.__dict__.pop(key, None)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        """The keys, in insertion order."""
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        """The modules, in insertion order."""
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        """``(key, module)`` pairs, in insertion order."""
        return self._modules.items()

    def update(self, modules: Any) -> None:
        """Adds (or replaces) the modules of a mapping or of ``(key, module)`` pairs."""
        for k, m in _items(modules):
            self[k] = m

    def pop(self, key: str) -> Module:
        """Removes ``key`` and returns its module."""
        m = self._modules[key]
        del self[key]
        return m

    def clear(self) -> None:
        """Removes every module."""
        for k in list(self._modules):
            del self[k]


def _as_parameter(value: Any) -> Optional[Parameter]:
    if value is None or isinstance(value, Parameter):
        return value
    if isinstance(value, _core.Tensor):
        return Parameter(
            value, requires_grad=bool(value.requires_grad) or value.is_floating_point()
        )
    raise TypeError(
        f"a parameter container holds Parameters or Tensors, got {type(value).__name__}"
    )


def _replace(owner: Module, key: str, param: Optional[Parameter]) -> None:
    """Replaces an existing parameter entry in place (keeping its position)."""
    owner._parameters[key] = param
    owner.__dict__[key] = param


class ParameterList(Module):
    """A list of parameters registered under ``"0"``, ``"1"``, ...; plain tensors are
    wrapped into ``Parameter``s (as PyTorch does)."""

    def __init__(self, values: Optional[Iterable[Any]] = None, parameters: Any = None) -> None:
        super().__init__()
        for v in values if values is not None else parameters or ():
            self.append(v)

    def append(self, value: Any) -> ParameterList:
        """Adds a parameter at the end."""
        self.register_parameter(str(len(self._parameters)), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Adds each of ``values`` at the end."""
        for v in values:
            self.append(v)
        return self

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Optional[Parameter]]:
        return iter(self._parameters.values())

    def __getitem__(self, idx: Any) -> Any:
        items = list(self._parameters.values())
        if isinstance(idx, slice):
            return ParameterList(items[idx])
        return items[idx]

    def __setitem__(self, idx: int, value: Any) -> None:
        n = len(self._parameters)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for a ParameterList of {n}")
        _replace(self, str(idx % n), _as_parameter(value))

    def extra_repr(self) -> str:
        return "\n".join(
            f"({k}): Parameter containing: [{p.dtype}, shape {list(p.shape)}]"
            for k, p in self._parameters.items()
            if p is not None
        )


class ParameterDict(Module):
    """An ordered dict of parameters registered under their keys; plain tensors are
    wrapped into ``Parameter``s."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Optional[Parameter]:
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self._parameters:
            _replace(self, key, _as_parameter(value))
        else:
            self.register_parameter(key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]
        self.__dict__.pop(key, None)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: object) -> bool:
        return key in self._parameters

    def keys(self) -> Iterable[str]:
        """The keys, in insertion order."""
        return self._parameters.keys()

    def values(self) -> Iterable[Optional[Parameter]]:
        """The parameters, in insertion order."""
        return self._parameters.values()

    def items(self) -> Iterable[tuple[str, Optional[Parameter]]]:
        """``(key, parameter)`` pairs, in insertion order."""
        return self._parameters.items()

    def update(self, parameters: Any) -> None:
        """Adds (or replaces) entries from a mapping or ``(key, value)`` pairs."""
        for k, v in _items(parameters):
            self[k] = v

    def pop(self, key: str) -> Optional[Parameter]:
        """Removes ``key`` and returns its parameter."""
        p = self._parameters[key]
        del self[key]
        return p

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter under ``key``, or ``default``."""
        return self._parameters.get(key, default)

    def clear(self) -> None:
        """Removes every entry."""
        for k in list(self._parameters):
            del self[k]

    def extra_repr(self) -> str:
        return "\n".join(
            f"({k}): Parameter containing: [{p.dtype}, shape {list(p.shape)}]"
            for k, p in self._parameters.items()
            if p is not None
        )


LayerDict = ModuleDict
