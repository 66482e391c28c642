"""PyTorch's top-level anomaly-mode and warn-always switches (``torch.is_anomaly_enabled``,
``torch.set_anomaly_enabled``, ``torch.is_anomaly_check_nan_enabled``,
``torch.set_warn_always``, ``torch.is_warn_always_enabled``), re-exported from
``ferrograd.autograd.anomaly_mode`` so that ``ferrograd/__init__.py`` stays short; the
package imports this module with ``*``. See docs/autograd.md, "Anomaly mode".
"""

from __future__ import annotations

from .autograd.anomaly_mode import is_anomaly_check_nan_enabled as is_anomaly_check_nan_enabled
from .autograd.anomaly_mode import is_anomaly_enabled as is_anomaly_enabled
from .autograd.anomaly_mode import is_warn_always_enabled as is_warn_always_enabled
from .autograd.anomaly_mode import set_anomaly_enabled as set_anomaly_enabled
from .autograd.anomaly_mode import set_warn_always as set_warn_always

__all__ = [
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled",
    "set_warn_always", "is_warn_always_enabled",
]  # fmt: skip
