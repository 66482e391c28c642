"""Paddle's ``paddle.incubate``: only ``incubate.autograd`` (the function-based
``Jacobian`` / ``Hessian`` / ``vjp`` / ``jvp``) is provided."""

from . import autograd as autograd

__all__ = ["autograd"]
