"""PyTorch's dotted-path access to a module tree: ``get_submodule``, ``get_parameter``,
``get_buffer``, ``set_submodule`` (a base class of ``Module``)."""

from __future__ import annotations

from typing import Any


class ModuleAccess:
    """Mixin: the lookups walk ``getattr`` along ``"a.b.c"`` and name the first step that
    fails (an ``AttributeError``, as in PyTorch)."""

    def get_submodule(self, target: str) -> Any:
        """The submodule at the dotted path ``target`` (``""``: this module)."""
        from .module import Module

        mod: Any = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Any:
        """The parameter at the dotted path ``target``."""
        from .parameter import Parameter

        mod, name = self._owner(target)
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return p

    def get_buffer(self, target: str) -> Any:
        """The buffer at the dotted path ``target``."""
        mod, name = self._owner(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    def _owner(self, target: str) -> tuple[Any, str]:
        """The module holding the last name of the dotted path ``target``, and that name
        (which it must have)."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        return mod, name

    def set_submodule(self, target: str, module: Any, strict: bool = False) -> None:
        """Puts ``module`` at the dotted path ``target`` (its parent must exist; with
        ``strict`` the name must exist too)."""
        from .module import Module

        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        *parents, last = target.split(".")
        mod: Any = self.get_submodule(".".join(parents))
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        if strict and not hasattr(mod, last):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{last}`")
        if hasattr(mod, last) and not isinstance(getattr(mod, last), Module):
            raise AttributeError(f"`{last}` is not an nn.Module")
        setattr(mod, last, module)
