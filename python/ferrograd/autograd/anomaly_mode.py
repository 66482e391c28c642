"""PyTorch's anomaly mode (``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``,
``torch.is_anomaly_enabled`` / ``is_anomaly_check_nan_enabled`` / ``set_anomaly_enabled``)
and ``torch.set_warn_always`` / ``is_warn_always_enabled``.

While the mode is on (process-wide, as in PyTorch), every node recorded keeps the Python
stack of its forward call in ``grad_fn.metadata["traceback_"]`` (and, when it is created
during a backward with ``create_graph``, the node whose backward created it under
``"parent_"``). A node whose backward raises, or with ``check_nan`` returns NaN in a
gradient (``RuntimeError: Function 'MulBackward0' returned nan values in its 0th
output.``), is reported by a ``UserWarning`` carrying that traceback. The switch and the
checks live in the Rust core (``src/autograd/anomaly.rs``); off, they cost one flag read.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from .. import _core

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_warn_always_enabled",
    "set_anomaly_enabled",
    "set_detect_anomaly",
    "set_warn_always",
]


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is switched on (``torch.is_anomaly_enabled``)."""
    return _core._is_anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN
    (``torch.is_anomaly_check_nan_enabled``)."""
    return _core._is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switches anomaly detection on or off for the whole process
    (``torch.set_anomaly_enabled``)."""
    _core._set_anomaly_enabled(bool(enabled), bool(check_nan))


def set_warn_always(b: bool) -> None:
    """``torch.set_warn_always``: warnings PyTorch issues once per process (such as the one
    of ``backward(create_graph=True)``) are issued every time while this is on."""
    _core._set_warn_always(bool(b))


def is_warn_always_enabled() -> bool:
    """``torch.is_warn_always_enabled``."""
    return _core._is_warn_always_enabled()


class set_detect_anomaly:  # noqa: N801  (torch's name)
    """Switches anomaly detection on or off at once (``mode``, ``check_nan``); as a
    context manager, restores the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        set_anomaly_enabled(*self._prev)


class detect_anomaly:  # noqa: N801  (torch's name)
    """Context manager (and decorator) that switches anomaly detection on inside.
    Creating one warns, as PyTorch does, that the mode is slow and meant for debugging."""

    def __init__(self, check_nan: bool = True) -> None:
        self._check_nan = check_nan
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        set_anomaly_enabled(True, self._check_nan)

    def __exit__(self, *exc: Any) -> None:
        set_anomaly_enabled(*self._prev)

    def __call__(self, fn: Any) -> Any:
        check_nan = self._check_nan

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_detect_anomaly(True, check_nan):  # (warned once, when decorating)
                return fn(*args, **kwargs)

        return wrapper
