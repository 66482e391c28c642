"""``ferrograd.autograd``: gradients, grad mode, and custom layers (``PyLayer``/``Function``).

``backward`` and ``grad`` run the Rust engine with the GIL released; Python callbacks
(tensor hooks) take it back only for their own call.
"""

from __future__ import annotations

from .. import _core
from ..grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from . import forward_ad, functional, grad_mode, graph, profiler
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .backward_inputs import Variable, backward  # noqa: E402
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import disable_saved_tensors_hooks, saved_tensors_hooks
from .paddle_jacobian import hessian, jacobian
from .py_layer import Function, FunctionCtx, PyLayer, PyLayerContext, once_differentiable

grad = _core.grad
Node = _core.Node

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
    "backward",
    "Variable",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "Node",
    "PyLayer",
    "PyLayerContext",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "saved_tensors_hooks",
    "disable_saved_tensors_hooks",
    "graph",
    "profiler",
    "grad_mode",
    "functional",
    "forward_ad",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "jacobian",
    "hessian",
]
