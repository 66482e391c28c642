"""Which peer's parameter layouts a layer under construction takes (docs/dialects.md,
"Parameter layouts"): Paddle's when Paddle code builds it (``nn.Linear`` weight ``[in,
out]``, ``nn.PReLU``'s ``_weight``, ``nn.Bilinear``'s bias ``[1, out]``), PyTorch's
otherwise. Read once in the layer's ``__init__`` and stored on the layer, so its
``forward`` never depends on who calls it.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator, Optional

from .._dialect import caller_dialect

_FORCED_LAYOUT: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar(
    "ferrograd_forced_layout", default=None
)


@contextlib.contextmanager
def layout_of(dialect: Optional[str]) -> Iterator[None]:
    """Layers built inside take ``dialect``'s parameter layouts (``"torch"`` /
    ``"paddle"``) whatever the calling code's dialect; ``None`` changes nothing. Used by
    ferrograd's layers that belong to one peer (PyTorch's ``MultiheadAttention``)."""
    token = _FORCED_LAYOUT.set(dialect) if dialect is not None else None
    try:
        yield
    finally:
        if token is not None:
            _FORCED_LAYOUT.reset(token)


def construction_dialect(depth: int = 3) -> str:
    """``"paddle"`` when the layer under construction takes Paddle's parameter layouts
    (built by Paddle code, ferrograd's own frames skipped, or inside ``layout_of("paddle")``),
    ``"torch"`` otherwise. ``depth``: as for ``caller_dialect`` (1: this function; the
    default 3: the code that called the ``__init__`` calling this function)."""
    forced = _FORCED_LAYOUT.get()
    if forced is not None:
        return forced
    return "paddle" if caller_dialect(depth, through_layers=True) == "paddle" else "torch"


__all__ = ["construction_dialect", "layout_of"]
