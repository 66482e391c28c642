"""Small PyTorch ``Tensor`` methods that session 42's count of ``torch/overrides.py``
``get_testing_overrides()`` found missing: ``cfloat`` / ``cdouble``, ``hardshrink``,
``is_shared`` / ``share_memory_``, ``has_names`` / ``names`` and the device-kind flags
(``is_meta``, ``is_mps`` ...). The top-level functions of that count are in
``_names_s42_torch.py``.
"""

from __future__ import annotations

from typing import Any

from . import _core

Tensor = _core.Tensor


def _cfloat(self: Tensor, memory_format: Any = None) -> Tensor:
    """``x.cfloat()``: ``x.to(torch.complex64)``."""
    return self.to(_core.complex64)


def _cdouble(self: Tensor, memory_format: Any = None) -> Tensor:
    """``x.cdouble()``: ``x.to(torch.complex128)``."""
    return self.to(_core.complex128)


def _hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    """``x.hardshrink(lambd=0.5)``: ``torch.nn.functional.hardshrink(x, lambd)``."""
    from .nn import functional  # late: this module loads before ``nn``

    return functional.hardshrink(self, lambd)


def _is_shared(self: Tensor) -> bool:
    """False: ferrograd's tensors are not in shared memory."""
    return False


def _share_memory_(self: Tensor) -> Tensor:
    """``x.share_memory_()``: a no-op returning ``x`` (ferrograd's worker processes get
    copies; PyTorch also returns ``x``)."""
    return self


def _has_names(self: Tensor) -> bool:
    """False: ferrograd has no named dimensions."""
    return False


def _names(self: Tensor) -> tuple:
    """``x.names``: ``(None,) * x.ndim``, PyTorch's answer for an unnamed tensor."""
    return (None,) * self.ndim


# ``x.is_meta`` ... : PyTorch's device-kind flags, all False for ferrograd's CPU tensors
_DEVICE_FLAGS = (
    "is_meta",
    "is_xla",
    "is_xpu",
    "is_ipu",
    "is_mps",
    "is_mtia",
    "is_maia",
    "is_nested",
    "is_mkldnn",
    "is_vulkan",
    "is_quantized",
)


def install_tensor_methods() -> None:
    """Adds the methods and flags above to ``Tensor`` where it has none of that name."""
    methods = {
        "cfloat": _cfloat,
        "cdouble": _cdouble,
        "hardshrink": _hardshrink,
        "is_shared": _is_shared,
        "share_memory_": _share_memory_,
        "has_names": _has_names,
    }
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    if not hasattr(Tensor, "names"):
        setattr(Tensor, "names", property(_names))  # noqa: B010  (stubbed in _core.pyi)
    for flag in _DEVICE_FLAGS:
        if not hasattr(Tensor, flag):
            setattr(Tensor, flag, property(lambda self: False, doc=f"{flag}: always False."))
