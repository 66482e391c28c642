"""Session 22's ``Module`` / ``Layer`` methods (a base class of ``Module``): Paddle's
``full_name``, ``get_sublayer`` / ``set_sublayer``, ``load_dict``, ``float16`` /
``bfloat16(excluded_layers)``; PyTorch's ``type(dst_type)``, ``share_memory()`` and the
extra-state protocol ``get_extra_state`` / ``set_extra_state`` (a module that overrides
them gets an ``_extra_state`` entry in ``state_dict``, as PyTorch's; see
``module_state.py``)."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from typing import Any

_COUNTERS: defaultdict = defaultdict(itertools.count)
_SNAKE: dict[str, str] = {}


def snake_name(cls_name: str) -> str:
    """Paddle's conversion of a class name to its name scope (``BatchNorm1D`` ->
    ``batch_norm1_d``)."""
    s = _SNAKE.get(cls_name)
    if s is None:
        s1 = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", cls_name)
        s = _SNAKE[cls_name] = re.sub("([a-z0-9])([A-Z])", r"\1_\2", s1).lower()
    return s


def unique_full_name(scope: str) -> str:
    """``scope_N``, N counting the layers built with that scope (Paddle's unique names)."""
    return f"{scope}_{next(_COUNTERS[scope])}"


class ModuleNames:
    """Mixin of ``Module``: the methods listed in the module docs."""

    def full_name(self) -> str:
        """Paddle: this layer's unique name, ``<name_scope>_<N>`` (the name scope given to
        ``Layer.__init__``, else the class name in snake case), fixed at construction."""
        d = self.__dict__
        if "_full_name" not in d:  # a module whose __init__ skipped Module.__init__
            d["_full_name"] = unique_full_name(snake_name(type(self).__name__))
        return d["_full_name"]

    def get_sublayer(self, target: str) -> Any:
        """Paddle's name of ``get_submodule``: the sublayer at the dotted path ``target``."""
        return self.get_submodule(target)  # type: ignore[attr-defined]

    def set_sublayer(self, target: str, layer: Any, strict: bool = False) -> None:
        """Paddle's name of ``set_submodule``: puts ``layer`` at the dotted path."""
        self.set_submodule(target, layer, strict)  # type: ignore[attr-defined]

    def load_dict(self, state_dict: Any, use_structured_name: bool = True) -> Any:
        """Paddle's older name of ``set_state_dict`` (loads non-strictly)."""
        return self.load_state_dict(state_dict, strict=False)  # type: ignore[attr-defined]

    def type(self, dst_type: Any) -> Any:
        """Casts every parameter and buffer (integer ones too, as both peers) to
        ``dst_type``; returns the module."""
        return self._cast(dst_type, floating_only=False)  # type: ignore[attr-defined]

    def share_memory(self) -> Any:
        """PyTorch's: moves the tensors to shared memory for ``torch.multiprocessing``.
        ferrograd's worker processes receive copies, so this returns the module unchanged."""
        return self

    def float16(self, excluded_layers: Any = None) -> Any:
        """Paddle: casts floating parameters and buffers to float16, except in layers of
        the types in ``excluded_layers`` (default: Paddle's ``nn.BatchNorm``)."""
        return self._cast("float16", excluded=_excluded(excluded_layers))  # type: ignore[attr-defined]

    def get_extra_state(self) -> Any:
        """The extra state to save in ``state_dict`` under ``_extra_state``: a module
        that has some overrides this (and ``set_extra_state``)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Override get_extra_state() (and set_extra_state()) to save extra state."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restores what ``get_extra_state`` returned (called by ``load_state_dict``)."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Override set_extra_state() (and get_extra_state()) to load extra state."
        )


def _excluded(excluded_layers: Any) -> tuple:
    from .module import Module
    from .norm import BatchNorm

    if excluded_layers is None:
        return (BatchNorm,)
    if isinstance(excluded_layers, type):
        excluded_layers = [excluded_layers]
    if not isinstance(excluded_layers, (list, tuple)) or not all(
        isinstance(c, type) and issubclass(c, Module) for c in excluded_layers
    ):
        raise TypeError(
            f"excluded_layers should be type nn.Layer or list, but got "
            f"{type(excluded_layers).__name__}."
        )
    return tuple(excluded_layers)


def has_extra_state(module: Any, which: str) -> bool:
    """Whether ``module``'s class overrides ``get_extra_state`` / ``set_extra_state``."""
    return getattr(type(module), which) is not getattr(ModuleNames, which)
