"""Embedding tables: ``nn.Embedding`` (both dialects) and PyTorch's ``nn.EmbeddingBag``,
whose lookups are summed, averaged or max-ed per bag (``F.embedding_bag``)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .._dialect import caller_dialect
from . import functional as F
from . import init
from ._layouts import construction_dialect
from .fn_embedding_bag import embedding_bag
from .module import Module
from .param_attr import apply_param_attr
from .parameter import Parameter

Tensor = _core.Tensor


class PaddingIdxError(ValueError, AssertionError):
    """A ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``: a ``ValueError``,
    and an ``AssertionError`` as PyTorch's ``assert`` in ``nn.Embedding`` /
    ``nn.EmbeddingBag`` raises it (torch/nn/modules/sparse.py)."""


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
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise PaddingIdxError(
                    f"EmbeddingBag: padding_idx must be within num_embeddings: "
                    f"{padding_idx} is outside [-{num_embeddings}, {num_embeddings})"
                )
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.mode, self.include_last_offset = mode, bool(include_last_offset)
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = bool(scale_grad_by_freq)
        self.sparse = bool(sparse)
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
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            mode=self.mode,
            per_sample_weights=per_sample_weights,
            include_last_offset=self.include_last_offset,
            padding_idx=self.padding_idx,
            sparse=self.sparse,
        )

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        max_norm: Optional[float] = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: Optional[int] = None,
    ) -> EmbeddingBag:
        """PyTorch's: an ``EmbeddingBag`` whose ``weight`` holds the 2-D ``embeddings`` (a
        parameter of their values), frozen (``requires_grad=False``) unless
        ``freeze=False``; the ``padding_idx`` row is left as given."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(
            rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
            _weight=embeddings, include_last_offset=include_last_offset,
            padding_idx=padding_idx, dtype=embeddings.dtype,
        )  # fmt: skip
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self) -> str:
        """Sizes and mode."""
        extra = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        freq = ", scale_grad_by_freq=True" if self.scale_grad_by_freq else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{freq}, mode={self.mode!r}{extra}"


__all__ = ["EmbeddingBag"]


class Embedding(Module):
    """A lookup table: ``Embedding(n, d)(ids)`` is ``weight[ids]``, ``weight`` of shape
    ``[n, d]``; the ``padding_idx`` row starts at zero and gets no gradient.

    Built by PyTorch code (or neutral code): PyTorch's N(0, 1) weight, and the padding
    row's current value comes out at padding positions. Built by Paddle code: Paddle's
    Xavier-uniform weight and zeros at padding positions whatever the row holds (Paddle
    3.3.1's ``nn.Embedding`` / ``F.embedding``); decided once, at construction
    (docs/dialects.md)."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: Optional[int] = None,
        max_norm: Optional[float] = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        dtype: Any = None,
        *,
        weight_attr: Any = None,
        name: Optional[str] = None,
        device: Any = None,
        _weight: Optional[Tensor] = None,
        _freeze: bool = False,
    ) -> None:
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise PaddingIdxError(
                    f"Embedding: padding_idx must be within num_embeddings: {padding_idx} "
                    f"is outside [-{num_embeddings}, {num_embeddings})"
                )
            padding_idx %= num_embeddings
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.sparse = bool(sparse)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = bool(scale_grad_by_freq)
        #: Paddle's padding output (zeros) and init, for a layer built by Paddle code
        self._paddle_padding = _weight is None and construction_dialect() == "paddle"
        if _weight is not None:
            # PyTorch's way in: a given table (from_pretrained), used as it is
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError(
                    f"Embedding: _weight has shape {list(_weight.shape)}, expected "
                    f"{[num_embeddings, embedding_dim]}"
                )
            self.weight = Parameter(_weight.detach(), requires_grad=not _freeze)
            return
        d = dtype if dtype is not None else _core._get_default_dtype()
        self.weight = Parameter(_core.empty([num_embeddings, embedding_dim], dtype=d))
        if self._paddle_padding:
            # Paddle's default for a weight (LayerHelperBase._get_default_initializer)
            init.xavier_uniform_(self.weight)
        else:
            init.normal_(self.weight)
        apply_param_attr(self.weight, weight_attr)
        if padding_idx is not None:
            # after any initializer of weight_attr, as Paddle's Embedding zeroes the row
            init._fill_row_(self.weight, padding_idx, 0.0)

    def forward(self, ids: Tensor) -> Tensor:
        """The rows of ``weight`` for ``ids``: shape ``ids.shape + [embedding_dim]``
        (zeros at ``padding_idx`` positions for a layer built by Paddle code)."""
        if not (isinstance(ids, Tensor) and isinstance(self.weight, Tensor)):
            return self._recorded_forward(ids)
        # one lookup, its padding rule fixed at construction (no second mask on top of
        # F.embedding's); sparse=True is PyTorch code's, read from the code calling the
        # layer as F.embedding would
        paddle_sparse = self.sparse and caller_dialect(2, through_layers=True) == "paddle"
        return F._embedding_lookup(
            ids, self.weight, self.padding_idx, self.max_norm, self.norm_type,
            self.sparse and not paddle_sparse, self.scale_grad_by_freq,
            getattr(self, "_paddle_padding", False), paddle_sparse=paddle_sparse,
        )  # fmt: skip

    def _recorded_forward(self, ids: Any) -> Any:
        """The forward of static ``Variable``s: ``F.embedding`` dispatches and records
        its op, which keeps the padding row (its replay runs from ferrograd's frames), so
        a Paddle-built layer records its zeroing mask on top."""
        if self.max_norm is not None or self.scale_grad_by_freq:
            out = F.embedding(
                ids, self.weight, self.padding_idx, self.max_norm, norm_type=self.norm_type,
                scale_grad_by_freq=self.scale_grad_by_freq, sparse=self.sparse,
            )  # fmt: skip
        else:
            out = F.embedding(ids, self.weight, self.padding_idx, sparse=self.sparse)
        if self.padding_idx is not None and getattr(self, "_paddle_padding", False):
            import ferrograd as fg  # the dispatching functions: ``out`` is a static Variable

            out = fg.where((ids != self.padding_idx).unsqueeze(-1), out, 0.0)
        return out

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: Optional[int] = None,
        max_norm: Optional[float] = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """PyTorch's: an ``Embedding`` whose ``weight`` holds the 2-D ``embeddings`` (a
        parameter of their values; PyTorch's shares their storage), frozen
        (``requires_grad=False``) unless ``freeze=False``; ``padding_idx`` leaves its row
        as given."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(
            rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
            _weight=embeddings, _freeze=freeze,
        )  # fmt: skip

    def extra_repr(self) -> str:
        pad = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        freq = ", scale_grad_by_freq=True" if self.scale_grad_by_freq else ""
        sparse = ", sparse=True" if self.sparse else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}{freq}{sparse}"
