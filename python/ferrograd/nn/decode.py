"""Paddle's beam-search decoding: ``nn.BeamSearchDecoder``, ``nn.dynamic_decode`` and
``nn.functional.gather_tree`` (Paddle 3.3.1's ``python/paddle/nn/decode.py`` and the
``gather_tree`` CPU kernel), in eager mode.

The decoder wraps an RNN cell: each step feeds ``[batch * beam, ...]`` inputs and states
to ``cell(inputs, states)``, applies ``output_fn``, takes ``log(softmax(logits))``, forces
finished beams onto ``end_token`` (score 0, every other token -1e9), adds the beams'
running log-probabilities and keeps the ``beam_size`` best of ``beam * vocab`` per batch
row (no length penalty, as Paddle). ``dynamic_decode`` steps until every beam is finished
or ``max_step_num`` is passed (``max_step_num + 1`` steps at most, as Paddle's loop), then
back-traces the ids with ``gather_tree``.
"""

from __future__ import annotations

import collections
from typing import Any, Callable

import numpy as np

from .. import _core

Tensor = _core.Tensor

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode", "gather_tree"]

_KINF = 1e9  # Paddle's "-inf" for impossible beams and tokens


def _map(fn: Callable[..., Any], *trees: Any) -> Any:
    """Apply ``fn`` to the tensors of equally nested lists / tuples / namedtuples / dicts."""
    first = trees[0]
    if isinstance(first, dict):
        return {k: _map(fn, *(t[k] for t in trees)) for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(_map(fn, *parts) for parts in zip(*trees)))
    if isinstance(first, (list, tuple)):
        return type(first)(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def _leaves(tree: Any) -> list[Any]:
    """The tensors of a nested structure, in order."""
    out: list[Any] = []
    _map(out.append, tree)
    return out


def gather_tree(ids: Any, parents: Any, name: Any = None) -> Tensor:
    """Back-trace beam-search ids (Paddle's ``nn.functional.gather_tree``).

    ``ids`` and ``parents`` are ``[max_time, batch, beam]`` integer tensors of the same
    shape: ``ids[t, b, k]`` is the token chosen at step ``t`` by beam ``k`` and
    ``parents[t, b, k]`` the beam it extends. Returns ``out`` of the same shape and dtype
    with ``out[T-1] = ids[T-1]`` and each earlier step read along the parent chain.
    """
    for nm, t in (("ids", ids), ("parents", parents)):
        if not isinstance(t, Tensor):
            raise TypeError(f"gather_tree: {nm} must be a Tensor, got {type(t).__name__}")
        if str(t.dtype).rsplit(".", 1)[-1] not in ("int32", "int64"):
            raise TypeError(f"gather_tree: {nm} must be int32 or int64, got {t.dtype}")
    if ids.ndim != 3 or list(ids.shape) != list(parents.shape):
        raise ValueError(
            f"gather_tree: ids and parents must both be [max_time, batch_size, beam_size], "
            f"got {list(ids.shape)} and {list(parents.shape)}"
        )
    idv = np.asarray(ids.numpy())
    par = np.asarray(parents.numpy())
    steps, batch, beam = idv.shape
    if par.size and (par.min() < 0 or par.max() >= beam):
        raise ValueError(
            f"gather_tree: parents must be in [0, beam_size={beam}), got values from "
            f"{int(par.min())} to {int(par.max())}"
        )
    out = np.zeros_like(idv)
    if steps:
        rows = np.arange(batch)[:, None]
        out[-1] = idv[-1]
        parent = par[-1]
        for t in range(steps - 2, -1, -1):
            out[t] = idv[t][rows, parent]
            parent = par[t][rows, parent]
    return _core.tensor(out, dtype=ids.dtype)


class Decoder:
    """Base class of the decoders ``dynamic_decode`` drives (Paddle's ``nn.decode.Decoder``):
    ``initialize(inits)`` -> ``(inputs, states, finished)``, ``step(time, inputs, states,
    **kw)`` -> ``(outputs, next_states, next_inputs, finished)``, and optionally
    ``finalize(outputs, final_states, sequence_lengths)``."""

    def initialize(self, inits: Any) -> Any:
        """Return ``(initial_inputs, initial_states, finished)``."""
        raise NotImplementedError

    def step(self, time: Any, inputs: Any, states: Any, **kwargs: Any) -> Any:
        """Return ``(outputs, next_states, next_inputs, finished)`` for one step."""
        raise NotImplementedError

    def finalize(self, outputs: Any, final_states: Any, sequence_lengths: Any) -> Any:
        """Revise the stacked ``[time, batch, ...]`` outputs; the default leaves them."""
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        """Whether ``step``'s ``finished`` replaces (True) or is OR-ed into (False) the
        finished flags ``dynamic_decode`` keeps."""
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell (Paddle's ``nn.BeamSearchDecoder``): ``cell(inputs,
    states)`` must return ``(outputs, new_states)`` for ``[batch * beam, ...]`` tensors;
    ``embedding_fn`` maps chosen ids to the next inputs and ``output_fn`` maps the cell's
    outputs to vocabulary logits. Other ``[batch, ...]`` tensors the cell reads (an
    encoder's output) must be tiled with :meth:`tile_beam_merge_with_batch` first."""

    OutputWrapper = collections.namedtuple(
        "OutputWrapper", ("scores", "predicted_ids", "parent_ids")
    )
    StateWrapper = collections.namedtuple(
        "StateWrapper", ("cell_states", "log_probs", "finished", "lengths")
    )

    def __init__(
        self,
        cell: Any,
        start_token: int,
        end_token: int,
        beam_size: int,
        embedding_fn: Any = None,
        output_fn: Any = None,
    ) -> None:
        """Keep the cell, the start / end token ids, the beam width and the two maps."""
        if int(beam_size) < 1:
            raise ValueError(f"BeamSearchDecoder: beam_size must be >= 1, got {beam_size}")
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = int(start_token)
        self.end_token = int(end_token)
        self.beam_size = int(beam_size)

    @staticmethod
    def tile_beam_merge_with_batch(x: Tensor, beam_size: int) -> Tensor:
        """``[batch, ...]`` -> ``[batch * beam_size, ...]``, each row repeated ``beam_size``
        times in a row (``t[0], t[0], ..., t[1], t[1], ...``)."""
        shape = list(x.shape)
        tiled = x.unsqueeze(1).expand([shape[0], int(beam_size)] + shape[1:])
        return tiled.reshape([shape[0] * int(beam_size)] + shape[1:])

    def _split_batch_beams(self, x: Tensor) -> Tensor:
        return x.reshape([-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x: Tensor) -> Tensor:
        return x.reshape([-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x: Tensor) -> Tensor:
        shape = list(x.shape)
        return x.unsqueeze(1).expand([shape[0], self.beam_size] + shape[1:]).clone()

    def _gather(self, x: Tensor, indices: Tensor) -> Tensor:
        """``x[b, indices[b, k], ...]`` for ``x`` of shape ``[batch, beam_or_more, ...]``."""
        batch, width = int(x.shape[0]), int(x.shape[1])
        offsets = _core.arange(batch, dtype=_core.int64).unsqueeze(1) * width
        flat = (indices.astype(_core.int64) + offsets).reshape([-1])
        picked = x.reshape([batch * width] + list(x.shape[2:]))[flat]
        return picked.reshape([batch, int(indices.shape[1])] + list(x.shape[2:]))

    def initialize(self, initial_cell_states: Any) -> Any:
        """Tile the cell states to ``[batch, beam, ...]``; return the start-token inputs,
        the ``StateWrapper`` (log-probabilities ``[0, -1e9, ...]`` per row) and the
        all-False ``finished``."""
        leaves = _leaves(initial_cell_states)
        if not leaves:
            raise ValueError("BeamSearchDecoder.initialize: no initial cell state given")
        self.batch_size = int(leaves[0].shape[0])
        cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        b, k = self.batch_size, self.beam_size
        ids = _core.full([b, k], self.start_token, dtype=_core.int64)
        dtype = (
            _core.float64 if str(_core._get_default_dtype()).endswith("float64") else _core.float32
        )
        row = np.array([[0.0] + [-_KINF] * (k - 1)])
        log_probs = _core.tensor(np.tile(row, (b, 1)), dtype=dtype)
        finished = _core.zeros([b, k], dtype=_core.bool)
        lengths = _core.zeros([b, k], dtype=_core.int64)
        inputs = self.embedding_fn(ids) if self.embedding_fn else ids
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(
        self, time: Any, logits: Tensor, next_cell_states: Any, beam_state: Any
    ) -> Any:
        """Score ``beam * vocab`` continuations and keep the ``beam_size`` best."""
        from . import functional as F

        k = self.beam_size
        vocab = int(logits.shape[-1])
        self.vocab_size = vocab
        if not 0 <= self.end_token < vocab:
            raise ValueError(
                f"BeamSearchDecoder: end_token={self.end_token} is outside the vocabulary "
                f"of the output_fn's logits (size {vocab})"
            )
        step_log_probs = F.softmax(logits, -1).log()
        # finished beams: all mass on end_token (0 there, -1e9 elsewhere)
        noend = np.full([vocab], -_KINF)
        noend[self.end_token] = 0.0
        noend_t = _core.tensor(noend, dtype=step_log_probs.dtype)
        fin = beam_state.finished.astype(step_log_probs.dtype).unsqueeze(2)
        step_log_probs = fin * noend_t - step_log_probs * (fin - 1.0)
        log_probs = step_log_probs + beam_state.log_probs.unsqueeze(2)
        scores = log_probs.reshape([-1, k * vocab])
        topk_scores, topk_indices = scores.topk(k)
        beam_indices = topk_indices // vocab
        token_indices = topk_indices % vocab
        next_log_probs = self._gather(scores.unsqueeze(2), topk_indices).squeeze(2)
        next_cell_states = _map(lambda x: self._gather(x, beam_indices), next_cell_states)
        next_finished = self._gather(beam_state.finished.unsqueeze(2), beam_indices).squeeze(2)
        next_lengths = self._gather(beam_state.lengths.unsqueeze(2), beam_indices).squeeze(2)
        next_lengths = next_lengths + next_finished.logical_not().astype(next_lengths.dtype)
        next_finished = next_finished.logical_or(token_indices == self.end_token)
        out = self.OutputWrapper(topk_scores, token_indices, beam_indices)
        return out, self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths)

    def step(self, time: Any, inputs: Any, states: Any, **kwargs: Any) -> Any:
        """One beam-search step: run the cell on the merged beams, score, select."""
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        out, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = out.predicted_ids.detach()
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return out, state, next_inputs, state.finished

    def finalize(self, outputs: Any, final_states: Any, sequence_lengths: Any) -> Any:
        """Back-trace the stacked ids with :func:`gather_tree`: ``[time, batch, beam]``."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self) -> bool:
        """True: beams are reordered, so their finished flags come from the decoder."""
        return True


def dynamic_decode(
    decoder: Any,
    inits: Any = None,
    max_step_num: Any = None,
    output_time_major: bool = False,
    impute_finished: bool = False,
    is_test: bool = False,
    return_length: bool = False,
    **kwargs: Any,
) -> Any:
    """Run ``decoder.step`` until every entry is finished or ``max_step_num`` is passed
    (Paddle's ``nn.dynamic_decode``, eager mode). Returns ``(final_outputs, final_states)``
    and, with ``return_length=True``, the ``[batch, ...]`` int64 sequence lengths. Outputs
    are batch-major (``[batch, time, ...]``) unless ``output_time_major``; extra keyword
    arguments go to ``decoder.step``. ``is_test`` only saves memory in Paddle's static
    graph and changes nothing here."""
    if max_step_num is not None and int(max_step_num) < 0:
        raise ValueError(f"dynamic_decode: max_step_num must be >= 0, got {max_step_num}")
    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = _core.zeros(list(finished.shape), dtype=_core.int64)
    steps: list[Any] = []
    step_idx = 0
    while not bool(finished.all()):
        time = _core.full([1], step_idx, dtype=_core.int64)
        outputs, next_states, next_inputs, next_finished = decoder.step(
            time, inputs, states, **kwargs
        )
        if not decoder.tracks_own_finished:
            next_finished = next_finished.logical_or(finished)
            next_lengths = sequence_lengths + finished.logical_not().astype(_core.int64)
            if impute_finished:  # finished entries keep their previous states
                next_states = _map(
                    lambda old, new, keep=finished: _core.where(
                        keep.reshape(list(keep.shape) + [1] * (new.ndim - keep.ndim)), old, new
                    ),
                    states,
                    next_states,
                )
        else:
            next_lengths = getattr(next_states, "lengths", sequence_lengths)
        steps.append(outputs)
        inputs, states, finished, sequence_lengths = (
            next_inputs,
            next_states,
            next_finished,
            next_lengths,
        )
        step_idx += 1
        if max_step_num is not None and step_idx > int(max_step_num):
            break
    if not steps:
        raise ValueError("dynamic_decode: every entry was finished before the first step")
    final_outputs = _map(lambda *xs: _core.stack(list(xs), 0), *steps)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(
            final_outputs, final_states, sequence_lengths
        )
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map(lambda x: x.permute([1, 0] + list(range(2, x.ndim))), final_outputs)
    if return_length:
        return final_outputs, final_states, sequence_lengths
    return final_outputs, final_states
