"""The autocast context: ``paddle.amp.auto_cast`` / ``amp_guard`` and ``torch.autocast`` /
``torch.amp.autocast`` / ``torch.cpu.amp.autocast``.

Inside the context, matrix products (``matmul``, ``mm``, ``bmm``, ``@``), ``linear`` and
convolutions run in the low-precision dtype (float16 or bfloat16): their float32 / float64
inputs are cast first with a differentiable cast, so every gradient comes back in its
input's own dtype. Every other op runs in the dtype of its inputs, so reductions and
losses of float32 tensors stay float32, and a low-precision result that meets a float32
tensor is promoted to float32 (both peers' CPU autocast lists keep reductions and
losses in float32); the class-index losses and ``mse_loss`` widen a half-precision
operand to float32 (``nn.fn_class_loss._autocast_fp32``). The setting is per thread,
like grad mode.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, Optional

from .. import _core

__all__ = ["auto_cast", "amp_guard", "autocast", "is_autocast_enabled", "get_autocast_dtype"]

#: op names (both peers' spellings) -> the family bit that casts them; the core casts
#: matmul (1) and linear (2), ferrograd.nn.functional's convolutions read bit 4
_FAMILIES = {
    "matmul": 1,
    "matmul_v2": 1,
    "mm": 1,
    "bmm": 1,
    "linear": 2,
    "conv": 4,
    "conv1d": 4,
    "conv2d": 4,
    "conv3d": 4,
}
_ALL = 1 | 2 | 4
_LEVELS = ("O0", "O1", "O2", "OD")


def _low_dtype(dtype: Any, who: str) -> str:
    name = getattr(dtype, "name", dtype)
    name = {
        "float16": "float16",
        "half": "float16",
        "bfloat16": "bfloat16",
        "bf16": "bfloat16",
    }.get(str(name).replace("ferrograd.", ""))
    if name is None:
        raise ValueError(f"{who}: dtype must be float16 or bfloat16, got {dtype!r}")
    return name


def _mask(white: Optional[Iterable[str]], black: Optional[Iterable[str]]) -> int:
    mask = _ALL
    white_set = set(white or ())
    black_set = set(black or ())
    both = white_set & black_set
    if both:
        raise ValueError(
            f"auto_cast: ops {sorted(both)} are in both custom_white_list and custom_black_list"
        )
    for name in black_set:
        mask &= ~_FAMILIES.get(name, 0)
    for name in white_set:
        mask |= _FAMILIES.get(name, 0)
    return mask


class _AutocastState:
    """Sets the thread's autocast on enter and restores the previous setting on exit;
    also usable as a decorator."""

    def __init__(self, enabled: bool, dtype: str, mask: int) -> None:
        self._enabled = bool(enabled)
        self._dtype = dtype
        self._mask = mask
        self._prev: list[Any] = []

    def __enter__(self) -> _AutocastState:
        state = (self._dtype, self._mask) if self._enabled else (None, 0)
        self._prev.append(_core._set_autocast(*state))
        return self

    def __exit__(self, *exc: Any) -> None:
        prev = self._prev.pop()
        if prev is None:
            _core._set_autocast(None)
        else:
            _core._set_autocast(*prev)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper


def auto_cast(
    enable: bool = True,
    custom_white_list: Optional[Iterable[str]] = None,
    custom_black_list: Optional[Iterable[str]] = None,
    level: str = "O1",
    dtype: Any = "float16",
    use_promote: bool = True,
) -> _AutocastState:
    """Paddle's ``auto_cast``: inside it, ``matmul`` / ``linear`` / ``conv*d`` run in
    ``dtype`` (float16 or bfloat16). ``level``: ``O0`` turns autocast off; ``O1``, ``O2``
    and ``OD`` cast the same op families (ferrograd has no other low-precision list).
    ``custom_black_list`` keeps the named ops (``"matmul"``, ``"linear"``, ``"conv2d"``,
    ...) in float32; other names are accepted and change nothing."""
    if level not in _LEVELS:
        raise ValueError(f"auto_cast: level must be one of {_LEVELS}, got {level!r}")
    del use_promote  # ops outside the list already promote to the wider input dtype
    low = _low_dtype(dtype, "auto_cast")
    return _AutocastState(
        enable and level != "O0", low, _mask(custom_white_list, custom_black_list)
    )


amp_guard = auto_cast


def autocast(
    device_type: str = "cpu",
    dtype: Any = None,
    enabled: bool = True,
    cache_enabled: Optional[bool] = None,
) -> _AutocastState:
    """PyTorch's ``torch.autocast(device_type="cpu", dtype=torch.bfloat16)`` (also
    ``torch.amp.autocast`` and, without ``device_type``, ``torch.cpu.amp.autocast``):
    ``matmul`` / ``linear`` / convolutions run in ``dtype`` (default bfloat16, PyTorch's
    CPU default). ferrograd computes on the CPU only: another ``device_type`` is refused."""
    del cache_enabled
    if not isinstance(device_type, str) or device_type.split(":")[0] != "cpu":
        raise ValueError(
            f"autocast: device_type={device_type!r} is not available: ferrograd runs on the "
            "CPU only; use device_type='cpu'"
        )
    low = _low_dtype("bfloat16" if dtype is None else dtype, "autocast")
    return _AutocastState(enabled, low, _ALL)


def is_autocast_enabled(device_type: Optional[str] = None) -> bool:
    """Whether autocast is on for this thread."""
    del device_type
    return _core._get_autocast() is not None


def get_autocast_dtype(device_type: str = "cpu") -> Any:
    """The low-precision dtype of the active autocast (bfloat16 when none is active, as
    PyTorch's CPU default)."""
    del device_type
    state = _core._get_autocast()
    return getattr(_core, state[0] if state else "bfloat16")


def conv_autocast() -> tuple[Optional[str], Optional[Any]]:
    """For the convolutions (ferrograd.nn.functional): ``(low, previous)``. The fused
    convolution kernel computes in float32/float64 only, so with convolutions on the
    white list the call computes in float32 (half-precision operands are widened) and its
    output is rounded to ``low``, the autocast dtype: the output dtype is the peers', the
    arithmetic more precise. With convolutions black-listed ``low`` is None and the call
    runs in its inputs' dtypes. Autocast is suspended for the call either way;
    ``previous`` (when not None) is the setting to restore afterwards with
    ``_core._set_autocast(*previous)``."""
    state = _core._get_autocast()
    if state is None:
        return None, None
    low, mask = state
    _core._set_autocast(None)
    return (low if mask & 4 else None), state
