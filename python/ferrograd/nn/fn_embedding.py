"""``F.embedding`` and ``_embedding_lookup``, the lookup ``nn.Embedding`` calls with its
dialect decisions already made (``functional.py`` re-exports both)."""

from __future__ import annotations

from typing import Optional

from .. import _core
from .._dialect import caller_dialect
from .fn_embedding_sparse import gather_rows

Tensor = _core.Tensor

__all__ = ["embedding"]


def embedding(
    x: Tensor,
    weight: Tensor,
    padding_idx: Optional[int] = None,
    max_norm: Optional[float] = None,
    norm_type: float = 2.0,
    sparse: bool = False,
    scale_grad_by_freq: bool = False,
    name: Optional[str] = None,
) -> Tensor:
    """Rows of ``weight`` picked by the integer ids in ``x``: shape ``x.shape + [dim]``.
    Positions equal to ``padding_idx`` get no gradient; in Paddle code their output is
    zeros (Paddle's), elsewhere the weight row (PyTorch's). With ``max_norm`` the rows
    named in ``x`` are first renormalised in place (PyTorch's rule). ``sparse=True`` gives
    ``weight`` a sparse COO gradient in PyTorch code (``fn_embedding_sparse``)."""
    # both dialect reads count frames from this one (the caller of F.embedding): keep
    # them here, not in the helper. PyTorch code's sparse=True: a sparse COO gradient
    # for weight (Paddle's stays dense)
    paddle_sparse = bool(sparse) and caller_dialect(2, through_layers=True) == "paddle"
    sparse = bool(sparse) and not paddle_sparse
    zero_padding = padding_idx is not None and caller_dialect() == "paddle"
    return _embedding_lookup(
        x, weight, padding_idx, max_norm, norm_type, sparse, scale_grad_by_freq, zero_padding,
        paddle_sparse=paddle_sparse,
    )  # fmt: skip


def _embedding_lookup(
    x: Tensor,
    weight: Tensor,
    padding_idx: Optional[int],
    max_norm: Optional[float],
    norm_type: float,
    sparse: bool,
    scale_grad_by_freq: bool,
    zero_padding: bool,
    *,
    paddle_sparse: bool = False,
) -> Tensor:
    """``F.embedding`` with its dialect decisions made by the caller: ``sparse`` (a sparse
    COO gradient for ``weight``) and ``zero_padding`` (zeros at ``padding_idx`` positions,
    Paddle's, rather than the row's value, PyTorch's). One ``where`` cuts the padding
    gradient and applies the padding rule (``nn.Embedding`` calls this directly).
    ``paddle_sparse`` (Paddle code's ``sparse=True``): the gradient stays dense, and the
    ids whose rows it reaches are recorded for ``Adam(lazy_mode=True)``
    (``optim/lazy_rows.py``)."""
    if getattr(weight, "ndim", None) != 2:  # (a Tensor or a static Variable)
        # PyTorch's words (aten/src/ATen/native/Embedding.cpp, embedding)
        shape = list(weight.shape) if hasattr(weight, "shape") else type(weight).__name__
        raise RuntimeError(f"embedding: 'weight' must be 2-D [num_embeddings, dim], got {shape}")
    if max_norm is not None:
        from .fn_embedding_bag import embedding_renorm_

        embedding_renorm_(weight, x, float(max_norm), norm_type)
    if x.dtype.is_floating_point or x.dtype.is_complex:
        raise TypeError(f"embedding: ids must be an integer tensor, got {x.dtype}")
    num = weight.shape[0]
    if padding_idx is not None and padding_idx < 0:
        padding_idx += num
    # index first, axis by keyword: unambiguous also for a single id
    try:
        rows = gather_rows(weight, x.reshape(-1), sparse, padding_idx)
    except IndexError as e:
        raise IndexError(f"embedding: ids must lie in [0, {num}) ({e})") from None
    if paddle_sparse:
        from ..optim.lazy_rows import record_rows

        record_rows(rows, weight, x)
    if scale_grad_by_freq:  # each row's gradient divided by its id's count in x
        from .fn_embedding_bag import grad_scaled_by_freq

        rows = grad_scaled_by_freq(rows, x.numpy().reshape(-1))
    out = rows.reshape(list(x.shape) + [weight.shape[1]])
    if padding_idx is not None:
        # the padding positions' gradient is cut; their value is the row's (PyTorch) or
        # zeros, whatever the row holds, inf and NaN included (Paddle's CPU kernel
        # memsets them: paddle/phi/kernels/cpu/embedding_kernel.cc)
        mask = (x != padding_idx).unsqueeze(-1)
        keep = _core.zeros_like(out) if zero_padding else out.detach()
        out = _core.where(mask, out, keep)
    return out
