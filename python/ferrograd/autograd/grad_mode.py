"""``torch.autograd.grad_mode``: the module path PyTorch code reaches the grad-mode
switches by (``torch.autograd.grad_mode.no_grad()``); they are ferrograd's own
(:mod:`ferrograd.grad_mode`)."""

from __future__ import annotations

from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]
