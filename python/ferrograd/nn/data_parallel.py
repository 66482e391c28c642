"""``torch.nn.DataParallel`` on a machine without GPUs: the wrapper runs the module as it is.

PyTorch's ``DataParallel`` (``torch/nn/parallel/data_parallel.py``) finds no GPU, keeps the
module and an empty ``device_ids``, and its ``forward`` is ``self.module(*inputs,
**kwargs)``; its ``state_dict`` keys carry the ``module.`` prefix. Where PyTorch silently
ignores ``device_ids`` naming GPUs on such a machine, ferrograd raises a ``ValueError`` that
says so (as ``torch.device("cuda")`` does here), so that nobody believes a model runs on
GPUs it never touches.
"""

from __future__ import annotations

from typing import Any, Optional

from .module import Module

__all__ = ["DataParallel"]


def _is_cpu(device: Any) -> bool:
    """True for a CPU device spelt as a string or a device object (``-1``: the CPU in
    ``output_device``)."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device == -1
    text = str(getattr(device, "type", device))
    return text == "cpu" or text.startswith("cpu:")


class DataParallel(Module):
    """Wraps ``module`` for single-process data parallelism; without GPUs ``forward``
    calls ``module`` directly (``torch.nn.DataParallel``). ``device_ids`` /
    ``output_device`` naming a GPU raise ``ValueError``: ferrograd computes on the CPU."""

    def __init__(
        self,
        module: Module,
        device_ids: Optional[list] = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        gpus = [d for d in (device_ids or ()) if not _is_cpu(d)]
        if output_device is not None and not _is_cpu(output_device):
            gpus.append(output_device)
        if gpus:
            raise ValueError(
                f"nn.DataParallel: device_ids={device_ids!r}, output_device={output_device!r} "
                "name GPU devices, but ferrograd computes on the CPU only; drop them "
                "(DataParallel(module) runs the module as it is) or guard the wrapping with "
                "`if torch.cuda.device_count() > 1:`"
            )
        if not isinstance(module, Module):
            raise TypeError(
                f"nn.DataParallel: expected an nn.Module to wrap, got {type(module).__name__}"
            )
        self.module = module
        self.device_ids: list = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """``self.module(*inputs, **kwargs)``: one replica, on the CPU."""
        return self.module(*inputs, **kwargs)
