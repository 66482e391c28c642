"""``torch.nn.modules``: the package PyTorch defines its layers in. Custom layers import
helpers from it (``from torch.nn.modules.utils import _pair``: :mod:`.utils`); the layer
classes themselves (``torch.nn.modules.Linear``) are ``ferrograd.nn``'s."""

from __future__ import annotations

from typing import Any

from . import utils as utils

__all__ = ["utils"]


def __getattr__(name: str) -> Any:
    """``nn.modules.<Layer>`` is ``nn.<Layer>`` (the classes live in ``ferrograd.nn``)."""
    from ... import nn

    if not name.startswith("__") and name in getattr(nn, "__all__", ()):
        return getattr(nn, name)
    raise AttributeError(f"module 'ferrograd.nn.modules' has no attribute {name!r}")
