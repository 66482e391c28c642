"""Viterbi decoding of a linear-chain CRF, as Paddle's ``paddle.text.viterbi_decode``.

Semantics follow Paddle's CPU kernel (``paddle/phi/kernels/cpu/viterbi_decode_kernel.cc``,
``ViterbiDecodeKernel``): ``transition_params[i, j]`` scores tag ``i`` followed by tag
``j``; with ``include_bos_eos_tag`` the LAST row is added at the first step (start tag)
and the SECOND-TO-LAST row at each sequence's last step (stop tag); the path has
``max(lengths)`` columns and is 0 past each sequence's length; ties go to the lowest tag.
Decoding is not differentiable (Paddle registers no gradient), so the outputs are
constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ..nn import Module

_FLOATS = ("float32", "float64")


def _as_numpy(x: Any) -> np.ndarray:
    """Return the values of a tensor (or array-like) ``x`` as a NumPy array."""
    if isinstance(x, _core.Tensor):
        return np.asarray(x.detach().numpy())
    return np.asarray(x)


def _dtype_name(x: Any) -> str:
    return str(getattr(x, "dtype", np.asarray(x).dtype)).rsplit(".", 1)[-1]


def _check(potentials: Any, transition_params: Any, lengths: Any) -> tuple[np.ndarray, ...]:
    """Validate the three inputs the way Paddle's op checks them; return NumPy copies."""
    for name, t in (("potentials", potentials), ("transition_params", transition_params)):
        if _dtype_name(t) not in _FLOATS:
            raise TypeError(
                f"viterbi_decode: {name} must be float32 or float64, got {_dtype_name(t)}; "
                f"cast it with .astype('float32')"
            )
    if _dtype_name(lengths) != "int64":
        raise TypeError(
            f"viterbi_decode: lengths must be int64, got {_dtype_name(lengths)}; "
            f"cast it with .astype('int64')"
        )
    emit = _as_numpy(potentials)
    trans = _as_numpy(transition_params)
    lens = _as_numpy(lengths).astype(np.int64)
    if emit.ndim != 3:
        raise ValueError(
            f"viterbi_decode: potentials must be 3-D [batch_size, sequence_length, num_tags], "
            f"got shape {list(emit.shape)}"
        )
    b, t, n = emit.shape
    if trans.shape != (n, n):
        raise ValueError(
            f"viterbi_decode: transition_params must be [num_tags, num_tags] = [{n}, {n}], "
            f"got shape {list(trans.shape)}"
        )
    if lens.shape != (b,):
        raise ValueError(
            f"viterbi_decode: lengths must be 1-D [batch_size] = [{b}], got shape {list(lens.shape)}"
        )
    if b and (lens.min() < 1 or lens.max() > t):
        raise ValueError(
            f"viterbi_decode: every length must be in [1, sequence_length={t}], got {lens.tolist()}"
        )
    return emit, trans.astype(emit.dtype), lens


def viterbi_decode(
    potentials: Any,
    transition_params: Any,
    lengths: Any,
    include_bos_eos_tag: bool = True,
    name: str | None = None,
) -> tuple[Any, Any]:
    """Highest-scoring tag sequence of each batch row (Paddle's ``paddle.text.viterbi_decode``).

    ``potentials`` is ``[batch, seq_len, num_tags]`` (float32/float64) emission scores,
    ``transition_params`` ``[num_tags, num_tags]``, ``lengths`` ``[batch]`` int64. Returns
    ``(scores, paths)``: ``scores`` ``[batch]`` in the potentials' dtype and ``paths``
    ``[batch, max(lengths)]`` int64, 0 past each row's length. With ``include_bos_eos_tag``
    the last row of ``transition_params`` scores the start and the second-to-last row the
    stop, as Paddle's kernel does.
    """
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError(
            f"viterbi_decode: include_bos_eos_tag must be a bool, got "
            f"{type(include_bos_eos_tag).__name__}"
        )
    emit, trans, lens = _check(potentials, transition_params, lengths)
    b, _, n = emit.shape
    max_len = int(lens.max()) if b else 0
    if include_bos_eos_tag and n < 2:
        raise ValueError(
            "viterbi_decode: include_bos_eos_tag=True needs at least 2 tags (the last two "
            "rows of transition_params are the start and stop tags)"
        )
    start = trans[n - 1] if include_bos_eos_tag else None
    stop = trans[n - 2] if include_bos_eos_tag else None
    alpha = emit[:, 0, :].copy()
    if start is not None:
        alpha += start
        alpha[lens == 1] += stop
    history = np.zeros((b, max(max_len - 1, 0), n), dtype=np.int64)
    for i in range(1, max_len):
        cand = alpha[:, :, None] + trans[None, :, :]  # [b, from, to]
        best_from = cand.argmax(axis=1)  # first maximum on ties, as the kernel's strict >
        history[:, i - 1] = best_from
        nxt = np.take_along_axis(cand, best_from[:, None, :], axis=1)[:, 0] + emit[:, i, :]
        live = lens > i
        alpha = np.where(live[:, None], nxt, alpha)
        if stop is not None:
            alpha[lens == i + 1] += stop
    last = alpha.argmax(axis=1)
    scores = alpha[np.arange(b), last]
    paths = np.zeros((b, max_len), dtype=np.int64)
    for r in range(b):
        tag = int(last[r])
        length = int(lens[r])
        paths[r, length - 1] = tag
        for pos in range(length - 1, 0, -1):
            tag = int(history[r, pos - 1, tag])
            paths[r, pos - 1] = tag
    return _core.tensor(scores), _core.tensor(paths)


class ViterbiDecoder(Module):
    """Layer form of :func:`viterbi_decode` holding the transition matrix (Paddle's
    ``paddle.text.ViterbiDecoder``); ``forward(potentials, lengths)`` returns
    ``(scores, paths)``. The transitions are read at each call, so a trained
    ``transitions`` parameter is used as it is then."""

    def __init__(
        self, transitions: Any, include_bos_eos_tag: bool = True, name: str | None = None
    ) -> None:
        """Keep ``transitions`` (``[num_tags, num_tags]``) and the start/stop flag."""
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials: Any, lengths: Any) -> tuple[Any, Any]:
        """Decode ``potentials`` ``[batch, seq_len, num_tags]`` with ``lengths`` ``[batch]``."""
        return viterbi_decode(
            potentials, self.transitions, lengths, self.include_bos_eos_tag, self.name
        )
