"""``torch.nn.modules``: the package PyTorch defines its layers in. Custom layers import
helpers from it (``from torch.nn.modules.utils import _pair``: :mod:`.utils`; the global
module hooks: :mod:`.module`; the batch-norm base class: :mod:`.batchnorm`); the layer
classes themselves (``torch.nn.modules.Linear``) are ``ferrograd.nn``'s."""

from __future__ import annotations

from typing import Any

from . import module as module
from . import utils as utils

__all__ = ["batchnorm", "module", "utils"]


def __getattr__(name: str) -> Any:
    """``nn.modules.<Layer>`` is ``nn.<Layer>`` (the classes live in ``ferrograd.nn``);
    ``nn.modules.batchnorm`` is imported on first use (it needs the layers, which need
    this package)."""
    if name == "batchnorm":
        import importlib

        return importlib.import_module(f"{__name__}.batchnorm")
    from ... import nn

    if not name.startswith("__") and name in getattr(nn, "__all__", ()):
        return getattr(nn, name)
    raise AttributeError(f"module 'ferrograd.nn.modules' has no attribute {name!r}")
