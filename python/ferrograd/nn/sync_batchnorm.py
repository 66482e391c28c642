"""``nn.SyncBatchNorm`` (both peers) for ferrograd's single process.

Across processes, PyTorch's and Paddle's ``SyncBatchNorm`` pool the batch statistics of
every replica. ferrograd trains in one process, where the pooled statistics are the
local batch's: the layer is batch norm over the channel dimension of an input of any
rank >= 2, with the state of the peer whose signature built it:

* PyTorch: ``SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True,
  track_running_stats=True, process_group=None, device=None, dtype=None, *, bias=True)``
  — the ``BatchNorm2d`` state (``running_mean``, ``running_var``,
  ``num_batches_tracked``); ``process_group`` is kept and unused.
* Paddle: ``SyncBatchNorm(num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
  bias_attr=None, data_format="NCHW", name=None)`` — the ``BatchNorm2D`` state
  (``_mean``, ``_variance``).

Both peers spell the class ``nn.SyncBatchNorm``, so the call picks the flavour: any of
Paddle's keywords (``epsilon``, ``weight_attr``, ``bias_attr``, ``data_format``,
``name``) or a second positional argument >= 0.5 (Paddle's ``momentum``; PyTorch's
second argument is ``eps``) selects Paddle's, anything else PyTorch's (so a bare
``SyncBatchNorm(C)`` has PyTorch's buffer names). ``convert_sync_batchnorm`` keeps the
flavour of the layers it converts. Instances of either are ``nn.SyncBatchNorm``.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .module import Module
from .norm import BatchNorm1D, BatchNorm2D, BatchNorm3D, _BatchNormPaddle, _BatchNormTorch

Tensor = _core.Tensor

_PADDLE_KEYWORDS = ("epsilon", "weight_attr", "bias_attr", "data_format", "name")
_TORCH_KEYWORDS = (
    "eps", "affine", "track_running_stats", "process_group", "device", "dtype", "bias",
)  # fmt: skip


def _paddle_call(args: tuple, kwargs: dict) -> bool:
    if any(k in kwargs for k in _PADDLE_KEYWORDS):
        return True
    if any(k in kwargs for k in _TORCH_KEYWORDS):
        return False
    second = args[1] if len(args) > 1 else None
    return isinstance(second, (int, float)) and not isinstance(second, bool) and second >= 0.5


class SyncBatchNorm(Module):
    """Batch norm whose statistics would be synchronised across processes; in
    ferrograd's single process it is batch norm over the channels of an ``[N, C, *]``
    input (see the module notes for the two signatures and how a call picks one)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is SyncBatchNorm:
            cls = _SyncBatchNormPaddle if _paddle_call(args, kwargs) else _SyncBatchNormTorch
        return Module.__new__(cls)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """Replaces every PyTorch ``BatchNorm1d/2d/3d`` and Paddle ``BatchNorm1D/2D/3D``
        in ``module`` (or ``module`` itself) by a ``SyncBatchNorm`` of the same flavour
        that shares its parameters and running statistics; returns the converted
        module (containers are changed in place, as with the peers)."""
        if not isinstance(module, Module):
            raise TypeError(
                f"convert_sync_batchnorm: expected a Module, got {type(module).__name__}"
            )
        out = _convert_one(module, process_group)
        for name, child in list(module._modules.items()):
            if child is not None:
                out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


def _convert_one(m: Module, process_group: Any) -> Module:
    if isinstance(m, SyncBatchNorm):
        return m
    if isinstance(m, _BatchNormTorch):
        out: Module = _SyncBatchNormTorch(
            m.num_features, m.eps, m.momentum, m.affine, m.track_running_stats, process_group
        )
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            out.register_buffer(name, m._buffers.get(name))
    elif isinstance(m, (BatchNorm1D, BatchNorm2D, BatchNorm3D)):
        out = _SyncBatchNormPaddle(
            m.num_features, m._momentum, m._epsilon, data_format=m._data_format
        )
        out._use_global_stats = m._use_global_stats
        for name in ("_mean", "_variance"):
            out.register_buffer(name, m._buffers.get(name))
    else:
        return m
    for name in ("weight", "bias"):
        out.register_parameter(name, m._parameters.get(name))
    out.train(m.training)
    return out


class _SyncBatchNormTorch(SyncBatchNorm, _BatchNormTorch):
    """PyTorch's ``SyncBatchNorm`` in one process (``BatchNorm2d``'s state, any rank)."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: Optional[float] = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        _BatchNormTorch.__init__(
            self, num_features, eps, momentum, affine, track_running_stats, device, dtype,
            bias=bias,
        )  # fmt: skip
        self.process_group = process_group

    def forward(self, x: Tensor) -> Tensor:
        """Batch-normalised ``x`` (``[N, C, *]``, at least 2-D)."""
        if isinstance(x, Tensor) and x.ndim < 2:
            raise ValueError(f"SyncBatchNorm: expected at least 2D input (got {x.ndim}D input)")
        return _BatchNormTorch.forward(self, x)


class _SyncBatchNormPaddle(SyncBatchNorm, _BatchNormPaddle):
    """Paddle's ``SyncBatchNorm`` in one process (``BatchNorm2D``'s state, any rank)."""

    _formats = ("NCHW", "NHWC", "NCL", "NLC", "NC", "NCDHW", "NDHWC")

    def __init__(
        self,
        num_features: int,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: str = "NCHW",
        name: Optional[str] = None,
    ) -> None:
        _BatchNormPaddle.__init__(
            self, num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name
        )

    def forward(self, x: Tensor) -> Tensor:
        """Batch-normalised ``x`` (at least 2-D; channels per ``data_format``)."""
        if isinstance(x, Tensor) and x.ndim < 2:
            raise ValueError(f"SyncBatchNorm: expected at least 2D input (got {x.ndim}D input)")
        return _BatchNormPaddle.forward(self, x)


# repr and messages say SyncBatchNorm (pickling uses the distinct __qualname__)
_SyncBatchNormTorch.__name__ = "SyncBatchNorm"
_SyncBatchNormPaddle.__name__ = "SyncBatchNorm"
