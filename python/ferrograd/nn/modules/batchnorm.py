"""``torch.nn.modules.batchnorm``: PyTorch's home of the batch-norm layers. Code that
tells batch-norm layers apart by their base class (``isinstance(m,
torch.nn.modules.batchnorm._BatchNorm)``, as ``torch.optim.swa_utils.update_bn`` and many
training scripts do) finds ``_BatchNorm`` here: the base class of ferrograd's
``BatchNorm1d`` / ``2d`` / ``3d`` (and of the ``SyncBatchNorm`` built by PyTorch code)."""

from __future__ import annotations

from ..norm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from ..norm import _BatchNormTorch as _BatchNorm

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "_BatchNorm"]
