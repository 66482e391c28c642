"""Dropout layers beyond ``nn.Dropout``: whole-channel dropout (PyTorch
``Dropout1d/2d/3d``, Paddle ``Dropout2D/3D(p, data_format)``) and alpha dropout
(``AlphaDropout`` in both, PyTorch's ``FeatureAlphaDropout``). Each drops only in
training mode and is the identity after ``eval()``; see ``nn.fn_dropout``."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from . import fn_dropout as D
from .module import Module

Tensor = _core.Tensor


class _DropoutBase(Module):
    """Stores and checks ``p``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = D._check_p(p, type(self).__name__)
        # True: the result is written into the input, as in PyTorch (nn/_inplace.py)
        self.inplace = inplace is True

    def extra_repr(self) -> str:
        """``p``."""
        return f"p={self.p}"


class Dropout1d(_DropoutBase):
    """PyTorch's ``Dropout1d``: zeroes whole channels of ``[N, C, L]`` / ``[C, L]``."""

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with random channels zeroed (training) or unchanged (eval)."""
        return D._feature_dropout(1, x, self.p, self.training, self.inplace, None, "Dropout1d")


class Dropout2d(_DropoutBase):
    """PyTorch's ``Dropout2d``: zeroes whole channels of ``[N, C, H, W]`` (a 3-D input is
    read as ``[N, C, L]``, as PyTorch does)."""

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with random channels zeroed (training) or unchanged (eval)."""
        return D._feature_dropout(2, x, self.p, self.training, self.inplace, None, "Dropout2d")


class Dropout3d(_DropoutBase):
    """PyTorch's ``Dropout3d``: zeroes whole channels of ``[N, C, D, H, W]`` /
    ``[C, D, H, W]``."""

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with random channels zeroed (training) or unchanged (eval)."""
        return D._feature_dropout(3, x, self.p, self.training, self.inplace, None, "Dropout3d")


class Dropout2D(_DropoutBase):
    """Paddle's ``Dropout2D(p=0.5, data_format='NCHW')``: zeroes whole channels of a 4-D
    input."""

    def __init__(
        self, p: float = 0.5, data_format: str = "NCHW", name: Optional[str] = None
    ) -> None:
        super().__init__(p)
        D._check_format(2, data_format, "Dropout2D")
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with random channels zeroed (training) or unchanged (eval)."""
        return D._feature_dropout(2, x, self.p, self.training, False, self.data_format, "Dropout2D")

    def extra_repr(self) -> str:
        """``p`` and the layout."""
        return f"p={self.p}, data_format={self.data_format!r}"


class Dropout3D(_DropoutBase):
    """Paddle's ``Dropout3D(p=0.5, data_format='NCDHW')``: zeroes whole channels of a
    5-D input."""

    def __init__(
        self, p: float = 0.5, data_format: str = "NCDHW", name: Optional[str] = None
    ) -> None:
        super().__init__(p)
        D._check_format(3, data_format, "Dropout3D")
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with random channels zeroed (training) or unchanged (eval)."""
        return D._feature_dropout(3, x, self.p, self.training, False, self.data_format, "Dropout3D")

    def extra_repr(self) -> str:
        """``p`` and the layout."""
        return f"p={self.p}, data_format={self.data_format!r}"


class AlphaDropout(_DropoutBase):
    """Alpha dropout for SELU networks (both peers' ``AlphaDropout(p)``): dropped
    elements take SELU's saturation value, an affine map keeps mean and variance."""

    def __init__(self, p: float = 0.5, inplace: bool = False, name: Optional[str] = None) -> None:
        super().__init__(p, inplace)

    def forward(self, x: Tensor) -> Tensor:
        """Alpha dropout of ``x`` (training) or ``x`` (eval)."""
        return D.alpha_dropout(x, self.p, self.training, self.inplace)


class FeatureAlphaDropout(_DropoutBase):
    """PyTorch's ``FeatureAlphaDropout``: alpha dropout of whole channels of
    ``[N, C, *]``."""

    def forward(self, x: Any) -> Tensor:
        """Channel-wise alpha dropout of ``x`` (training) or ``x`` (eval)."""
        return D.feature_alpha_dropout(x, self.p, self.training, self.inplace)


__all__ = [
    "Dropout1d", "Dropout2d", "Dropout3d", "Dropout2D", "Dropout3D", "AlphaDropout",
    "FeatureAlphaDropout",
]  # fmt: skip
