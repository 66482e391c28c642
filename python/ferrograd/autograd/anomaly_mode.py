"""PyTorch's anomaly-detection switches (``torch.autograd.detect_anomaly`` /
``set_detect_anomaly`` / ``is_anomaly_enabled``).

ferrograd keeps the flag so code that toggles it runs, but it does not yet record the
forward traceback of each node nor check backward results for NaN: turning it on warns
once, saying so. (Exceptions raised inside backward already name the node they come from.)
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
]

_state = {"enabled": False, "check_nan": True, "warned": False}


def _set(mode: bool, check_nan: bool) -> None:
    if mode and not _state["warned"]:
        _state["warned"] = True
        warnings.warn(
            "anomaly detection: ferrograd records the flag but does not check backward "
            "results for NaN nor keep forward tracebacks yet",
            RuntimeWarning,
            stacklevel=3,
        )
    _state["enabled"], _state["check_nan"] = bool(mode), bool(check_nan)


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is switched on."""
    return bool(_state["enabled"])


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection would check for NaN (PyTorch's ``check_nan``)."""
    return bool(_state["check_nan"])


class set_detect_anomaly:  # noqa: N801  (torch's name)
    """Sets the flag; as a context manager, restores the previous value on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (_state["enabled"], _state["check_nan"])
        _set(mode, check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        _state["enabled"], _state["check_nan"] = self._prev


class detect_anomaly:  # noqa: N801  (torch's name)
    """Context manager (and decorator) that switches the flag on inside."""

    def __init__(self, check_nan: bool = True) -> None:
        self._check_nan = check_nan
        self._prev = (False, True)

    def __enter__(self) -> None:
        self._prev = (_state["enabled"], _state["check_nan"])
        _set(True, self._check_nan)

    def __exit__(self, *exc: Any) -> None:
        _state["enabled"], _state["check_nan"] = self._prev

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self._check_nan):
                return fn(*args, **kwargs)

        return wrapper
