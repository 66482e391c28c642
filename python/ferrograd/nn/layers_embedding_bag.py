"""PyTorch's ``nn.EmbeddingBag``: an embedding table whose lookups are summed, averaged
or max-ed per bag (``F.embedding_bag``)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from . import init
from .fn_embedding_bag import embedding_bag
from .module import Module
from .parameter import Parameter

Tensor = _core.Tensor


class EmbeddingBag(Module):
    """``EmbeddingBag(num_embeddings, embedding_dim, mode='mean', padding_idx=...)``:
    ``weight`` ``[num_embeddings, embedding_dim]`` drawn from N(0, 1) (the
    ``padding_idx`` row zero); ``forward(input, offsets, per_sample_weights)`` gives one
    row per bag."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: Optional[float] = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Optional[Tensor] = None,
        include_last_offset: bool = False,
        padding_idx: Optional[int] = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if max_norm is not None or scale_grad_by_freq:
            raise NotImplementedError(
                "EmbeddingBag: max_norm and scale_grad_by_freq are not supported"
            )
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(
                    f"EmbeddingBag: padding_idx {padding_idx} is outside "
                    f"[-{num_embeddings}, {num_embeddings})"
                )
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.mode, self.include_last_offset = mode, bool(include_last_offset)
        self.padding_idx = padding_idx
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError(
                    f"EmbeddingBag: _weight must have shape [{num_embeddings}, {embedding_dim}], "
                    f"got {list(_weight.shape)}"
                )
            self.weight = Parameter(_weight.detach())
        else:
            d = dtype if dtype is not None else _core._get_default_dtype()
            self.weight = Parameter(_core.empty([num_embeddings, embedding_dim], dtype=d))
            init.normal_(self.weight)
            if padding_idx is not None:
                init._fill_row_(self.weight, padding_idx, 0.0)

    def forward(
        self,
        input: Tensor,
        offsets: Optional[Tensor] = None,
        per_sample_weights: Optional[Tensor] = None,
    ) -> Tensor:
        """One pooled row per bag: ``[B, embedding_dim]``."""
        return embedding_bag(
            input,
            self.weight,
            offsets,
            mode=self.mode,
            per_sample_weights=per_sample_weights,
            include_last_offset=self.include_last_offset,
            padding_idx=self.padding_idx,
        )

    def extra_repr(self) -> str:
        """Sizes and mode."""
        extra = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return f"{self.num_embeddings}, {self.embedding_dim}, mode={self.mode!r}{extra}"


__all__ = ["EmbeddingBag"]
