"""Which dialect a call comes from, for the few calls both peers spell the same way and
answer differently (``max(x, 1)``: Paddle's values, PyTorch's ``(values, indices)``;
``linalg.lu(A)``: Paddle's packed factors, PyTorch's ``(P, L, U)``).

The rule is the import line, the one thing a ported program changes: code in a module that
names ferrograd ``torch`` (``import ferrograd as torch``) is PyTorch code; code in a module
that names it ``paddle`` is Paddle code. A module that names it both ways, or neither
(``import ferrograd as fg``), gets the answer of the process-wide alias when exactly one
of ``sys.modules['torch']`` / ``sys.modules['paddle']`` is ferrograd (a test runner that
aliases the peer's package), and otherwise no dialect: the caller then keeps ferrograd's
documented default (docs/dialects.md). ferrograd's own modules have no dialect. Only the two global names are looked up (no scan),
so the check costs two dictionary reads.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Optional

from . import _core

_PACKAGE = __name__.rpartition(".")[0]


# Wrapper modules whose frames the rule looks through (their caller is the caller): the
# out= wrapper, split's (its Rust pieces ask the dialect to mark PyTorch's views), the
# memory_format= wrappers of to / clone / the casts / the *_like factories, and the
# static-mode wrappers of the creation functions (static/creation.py).
# src/python/dialect.rs holds the same list.
TRANSPARENT = frozenset(
    {
        "ferrograd._out_arg",
        "ferrograd._split_spelling",
        "ferrograd._memory_format_api",
        "ferrograd.static.creation",
    }
)


def caller_dialect(depth: int = 2, through_layers: bool = False) -> Optional[str]:
    """``"torch"``, ``"paddle"`` or ``None`` for the code ``depth`` frames above this
    call (1: the function calling ``caller_dialect``; 2: its caller). With
    ``through_layers``, frames of ferrograd's own modules above that one are skipped, so a
    loss function called by its layer (``nn.CrossEntropyLoss``) answers the dialect of the
    code that called the layer; use it only where ferrograd's own modules never call the
    function for their own purposes."""
    if not through_layers:
        # the same rule in Rust (src/python/dialect.rs), without this function's frame
        # walk; its depth 1 is this function's frame
        return _core._caller_dialect(depth + 1)
    try:
        frame: Optional[FrameType] = sys._getframe(depth)
    except ValueError:  # fewer frames than asked (called from C at the top level)
        frame = None
    return frame_dialect(frame, through_layers)


def frame_dialect(frame: Optional[FrameType], through_layers: bool = False) -> Optional[str]:
    """:func:`caller_dialect` for the code running in ``frame`` (for a caller that has
    already walked the stack to it); ``None``: no Python frame (the process-wide alias
    alone decides)."""
    fg = sys.modules.get(_PACKAGE)
    g = {} if frame is None else frame.f_globals
    if frame is not None:
        # a transparent wrapper (TRANSPARENT): its caller is the caller
        while g.get("__name__") in TRANSPARENT and frame.f_back is not None:
            frame = frame.f_back
            g = frame.f_globals
        while through_layers and str(g.get("__name__", "")).startswith(_PACKAGE + "."):
            if frame.f_back is None:
                break
            frame = frame.f_back
            g = frame.f_globals
    if str(g.get("__name__", "")).startswith(_PACKAGE + "."):
        return None  # ferrograd's own code spells what it means (axis= / dim=)
    as_torch, as_paddle = g.get("torch") is fg, g.get("paddle") is fg
    if as_torch != as_paddle:
        return "torch" if as_torch else "paddle"
    if as_torch:  # both names: a mixed program states its dialect per call
        return None
    as_torch = sys.modules.get("torch") is fg
    as_paddle = sys.modules.get("paddle") is fg
    if as_torch != as_paddle:
        return "torch" if as_torch else "paddle"
    return None


__all__ = ["caller_dialect", "frame_dialect"]
