"""Everyday tensor conveniences: ``set_default_dtype`` / ``get_default_dtype``,
``set_printoptions``, ``Tensor.type()``, ``Tensor.cuda()`` (a clear error: ferrograd
has no GPU build), Paddle's ``Tensor.set_value`` and ``shape(x)``."""

from __future__ import annotations

import builtins
from typing import Any, Optional

import numpy as np

from . import _core
from ._legacy_types import LEGACY_NAMES, LegacyTensorType
from ._size import SizeOrNumel
from .grad_mode import no_grad

Tensor = _core.Tensor

__all__ = [
    "set_default_dtype",
    "get_default_dtype",
    "set_printoptions",
    "get_printoptions",
    "shape",
    "install_tensor_methods",
]


def set_default_dtype(d: Any) -> None:
    """Sets the dtype of floating tensors made without one (Python floats, ``zeros``,
    ``rand``, ...) and of float results from integer inputs (``mean``, true division).
    A floating dtype or its name; float32 initially."""
    _core._set_default_dtype(d)


def get_default_dtype() -> Any:
    """The default floating dtype (see :func:`set_default_dtype`)."""
    return _core._get_default_dtype()


# torch's profiles; "default" restores ferrograd's own repr (NumPy's formatting)
_PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": 2**63 - 1, "edgeitems": 3, "linewidth": 80},
}
_options: dict[str, Any] = {}


def _positive_int(name: str, v: Any) -> int:
    if isinstance(v, builtins.bool) or not isinstance(v, builtins.int) or v < 0:
        raise ValueError(f"set_printoptions: {name} must be a non-negative int, got {v!r}")
    return v


def set_printoptions(
    precision: Optional[int] = None,
    threshold: Optional[int] = None,
    edgeitems: Optional[int] = None,
    linewidth: Optional[int] = None,
    profile: Optional[str] = None,
    sci_mode: Optional[builtins.bool] = None,
) -> None:
    """How ``repr`` / ``print`` show tensors: digits after the point (``precision``),
    the element count above which the middle is elided (``threshold``), the items kept
    at each end then (``edgeitems``), the line width (``linewidth``), scientific
    notation always (``sci_mode=True``), never (``False``) or when NumPy chooses
    (``None``). Options not given keep their value; ``profile`` ("default", "short",
    "full") resets them first."""
    global _options
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}"
            )
        _options = dict(_PROFILES[profile])
    for name, v in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if v is not None:
            _options[name] = _positive_int(name, v)
    if sci_mode is not None:
        _options["sci_mode"] = builtins.bool(sci_mode)
    _core._set_print_options(_numpy_options(_options) or None)


def get_printoptions() -> dict[str, Any]:
    """The options set with :func:`set_printoptions` (those never set are absent)."""
    return dict(_options)


def _numpy_options(opts: dict[str, Any]) -> dict[str, Any]:
    """``numpy.array2string`` keywords for the options."""
    kw: dict[str, Any] = {}
    if "precision" in opts:
        kw["precision"] = opts["precision"]
    if "threshold" in opts:
        kw["threshold"] = opts["threshold"]
    if "edgeitems" in opts:
        kw["edgeitems"] = opts["edgeitems"]
    if "linewidth" in opts:
        kw["max_line_width"] = opts["linewidth"]
    sci = opts.get("sci_mode")
    if sci is False:
        kw["suppress_small"] = True
    elif sci is True:
        digits = opts.get("precision", 4)
        kw["formatter"] = {"float_kind": lambda v: f"{v:.{digits}e}"}
    return kw


def shape(x: Any) -> Tensor:
    """Paddle's ``shape(x)``: the shape as a 1-D int64 tensor."""
    if not isinstance(x, Tensor):
        raise TypeError(f"shape: expects a Tensor, got {type(x).__name__}")
    return _core.tensor(list(x.shape), dtype="int64")


def rank(input: Any) -> Tensor:
    """Paddle's ``rank(input)``: the number of dimensions as a 0-d int32 tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(f"rank: expects a Tensor, got {type(input).__name__}")
    return _core.tensor(input.ndim, dtype="int32")


# torch's legacy tensor type names
_TYPE_NAMES = LEGACY_NAMES
_BY_TYPE_NAME = {v: k for k, v in _TYPE_NAMES.items()}


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """PyTorch's ``torch.as_tensor``: ``data`` as a Tensor, sharing memory where it can.

    A Tensor of the wanted dtype is returned as it is; a NumPy array of the wanted dtype
    (and a dtype ferrograd holds) shares its memory both ways, as ``from_numpy``; anything
    else, or another dtype, is copied as ``tensor(data, dtype=dtype)``."""
    if device is not None:
        from ._dropin import device as _device

        _device(device)  # "cpu" only; others raise naming the device
    want = dtype  # a dtype, its name or a NumPy dtype: ferrograd dtypes compare equal to each
    if isinstance(data, Tensor):
        return data if want is None or data.dtype == want else data.astype(want)
    if isinstance(data, np.ndarray):
        try:
            shared = _core.from_numpy(data)
        except (TypeError, ValueError):  # byte order, dtype or alignment: copy instead
            shared = None
        if shared is not None and (want is None or shared.dtype == want):
            return shared
    return _core.tensor(data, dtype=want)


def _type(self: Tensor, dtype: Any = None, non_blocking: builtins.bool = False, **_: Any) -> Any:
    """torch's ``Tensor.type()``: with no argument the type name (``'torch.FloatTensor'``
    for float32, as torch spells it); with a dtype or a type name
    (``'torch.DoubleTensor'``) a copy of that dtype (``self`` when it already is)."""
    if dtype is None:
        return "torch." + _TYPE_NAMES[str(self.dtype).replace("ferrograd.", "")]
    if isinstance(dtype, str):
        short = dtype.rsplit(".", 1)[-1]
        if short in _BY_TYPE_NAME:
            dtype = _BY_TYPE_NAME[short]
    if isinstance(dtype, LegacyTensorType):  # t.type(torch.DoubleTensor)
        dtype = dtype.dtype
    elif isinstance(dtype, type):
        raise TypeError("type(): pass a dtype or a type name such as 'torch.DoubleTensor'")
    return self.astype(dtype)


def _cuda(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """There is no GPU build of ferrograd: always a RuntimeError."""
    raise RuntimeError(
        "cuda(): ferrograd runs on the CPU only (no GPU build); drop the device handling, "
        "or guard it with ferrograd.cuda.is_available(), which is False"
    )


def _set_value(self: Tensor, value: Any) -> None:
    """Paddle's ``set_value``: overwrites the values in place (under no_grad, so also on
    parameters) from a Tensor, NumPy array, list or number of the same shape (a number
    fills). The dtype is converted to this tensor's."""
    if isinstance(value, Tensor):
        src = value.detach()
    else:
        src = _core.tensor(value, dtype=self.dtype)
    if src.ndim != 0 and list(src.shape) != list(self.shape):
        raise ValueError(
            f"set_value: the value's shape {list(src.shape)} differs from the tensor's "
            f"{list(self.shape)}"
        )
    if src.dtype != self.dtype:
        src = src.astype(self.dtype)
    with no_grad():
        self.copy_(src)


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    """``x.view_as(other)`` (both peers): ``x.view(other.shape)``."""
    if not isinstance(other, Tensor):
        raise TypeError(f"view_as: expects a Tensor, got {type(other).__name__}")
    return self.view(list(other.shape))


def _new(self: Tensor, *args: Any) -> Tensor:
    """PyTorch's legacy ``x.new(...)``: ``Tensor(...)`` with this tensor's dtype
    (``x.new(2, 3)`` zeros of that shape, ``x.new(data)`` the data, ``x.new()`` empty)."""
    return Tensor(*args, dtype=self.dtype)


def install_tensor_methods() -> None:
    """Adds ``type``, ``cuda``, ``set_value``, ``size``, ``is_cuda``, ``is_cpu``,
    ``view_as`` and ``new`` to ``Tensor``."""
    # methods added to the native class on purpose (the stub lists them as methods)
    Tensor.type = _type  # type: ignore[method-assign,assignment]
    Tensor.cuda = _cuda  # type: ignore[method-assign,assignment]
    Tensor.set_value = _set_value  # type: ignore[method-assign,assignment]
    # Paddle's `x.size` (number of elements) that is also torch's `x.size()` / `x.size(d)`
    Tensor.size = property(  # type: ignore[method-assign,assignment]
        lambda self: SizeOrNumel(self.shape),
        doc="Number of elements (Paddle); called, the shape or one dimension (PyTorch).",
    )
    # torch's device flags: every ferrograd tensor lives in CPU memory
    Tensor.is_cuda = property(lambda self: False, doc="False: ferrograd tensors live on the CPU.")  # type: ignore[assignment]
    Tensor.is_cpu = property(lambda self: True, doc="True: ferrograd tensors live on the CPU.")  # type: ignore[assignment]
    Tensor.view_as = _view_as  # type: ignore[method-assign]
    Tensor.new = _new  # type: ignore[method-assign]
