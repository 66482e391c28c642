"""A stand-in for ``torch.testing._internal.common_nn``: the parts PyTorch's
``test/nn`` files import from it, ``NNTestCase`` (a ``TestCase`` with helpers for module
tests; the files run here use it as their base class), ``freeze_rng_state`` (re-exported
from ``common_utils``, as upstream) and ``_create_basic_net``.
"""

from __future__ import annotations

import ferrograd
import ferrograd.nn as nn

from peer_harness.torch_common_utils import TestCase
from peer_harness.torch_common_utils_more import freeze_rng_state

__all__ = ["NNTestCase", "_create_basic_net", "freeze_rng_state"]


class NNTestCase(TestCase):
    """Upstream's base class for module tests. Its CUDA flags
    (``_do_cuda_memory_leak_check``, ``_do_cuda_non_default_stream``) only matter on
    CUDA; the parameter helpers are those upstream gives its subclasses."""

    _do_cuda_memory_leak_check = False
    _do_cuda_non_default_stream = False

    def _get_parameters(self, module):
        """(parameters, their gradients) of ``module``, as two lists."""
        params, d_params = [], []
        for p in module.parameters():
            params.append(p)
            d_params.append(p.grad)
        return params, d_params

    def _zero_grad_parameters(self, module):
        """Zeroes the gradient of each parameter of ``module`` that has one."""
        for p in module.parameters():
            if p.grad is not None:
                with ferrograd.no_grad():
                    p.grad.zero_()
                p.grad.detach_()

    def _forward(self, module, input):
        """``module(input)`` without recording a graph."""
        with ferrograd.no_grad():
            return module(input)


def _create_basic_net():
    """A ``Layer`` (a parameter and a buffer), a ``Net`` holding a ``Layer`` plus its own
    parameter and buffer, and a ``Sequential`` holding that ``Net`` twice, as upstream:
    returns ``(layer, net, sequential)``."""

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer_dummy_param = nn.Parameter(ferrograd.empty(3, 5))
            self.register_buffer("layer_dummy_buf", ferrograd.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(ferrograd.empty(3, 5))
            self.register_buffer("dummy_buf", ferrograd.zeros(7, 3, 3, 1))

    layer = Layer()
    net = Net()
    seq = nn.Sequential(net, net)
    return layer, net, seq
