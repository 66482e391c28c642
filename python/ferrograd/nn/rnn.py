"""Multi-layer recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (PyTorch) and ``SimpleRNN``,
``LSTM``, ``GRU``, ``RNN(cell)``, ``BiRNN`` (Paddle).

Parameters are named as in both peers: ``weight_ih_l{k}``, ``weight_hh_l{k}``,
``bias_ih_l{k}``, ``bias_hh_l{k}`` (+ ``_reverse`` for the backward direction, +
``weight_hr_l{k}`` for PyTorch's ``proj_size``), uniform in ``±1/sqrt(hidden_size)``.
Final states are ``[num_layers * num_directions, batch, hidden]`` with layer ``k``'s
forward state at ``2k`` and backward state at ``2k+1``.

Dialects. PyTorch's ``forward(input, hx)`` reads time-major input unless
``batch_first=True``; Paddle's ``forward(inputs, initial_states, sequence_length)`` reads
batch-major input unless ``time_major=True``. ``LSTM`` and ``GRU`` have both peers'
names: they take Paddle's layout when built with a Paddle-only argument (``direction``,
``time_major``, ``*_attr``, ``name``) or called with ``initial_states=`` /
``sequence_length=``, PyTorch's otherwise — so Paddle code that relies on the default
layout should say ``time_major=False``.

Padded batches: a ``PackedSequence`` (PyTorch) or ``sequence_length`` (Paddle) runs each
sequence only over its own steps; final states are taken at each sequence's length and
outputs past it are zero. The input projection of all steps is one matmul. LSTM, GRU and
tanh/relu RNN layers without padding or ``proj_size`` then run the whole recurrence as
one Rust op per layer and direction (``_core._rnn_layer``, backward through time in Rust);
``proj_size`` and padded batches run a Python loop over steps of composed differentiable
ops.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core
from ..autograd import PyLayer
from . import functional as F
from ._layouts import construction_dialect
from .module import Module
from .rnn_cells import GATES, PADDLE_ONLY, activation_mode, check_sizes, new_param, step
from .rnn_packing import PackedSequence, lengths_array, packed_lengths, repack

Tensor = _core.Tensor

_TORCH_POS = {
    "RNN": ["nonlinearity", "bias", "batch_first", "dropout", "bidirectional", "device", "dtype"],
    "LSTM": ["bias", "batch_first", "dropout", "bidirectional", "proj_size", "device", "dtype"],
    "GRU": ["bias", "batch_first", "dropout", "bidirectional", "device", "dtype"],
}
_TORCH_ONLY = frozenset({"nonlinearity", "bias", "batch_first", "bidirectional", "device", "dtype"})
_ATTRS = ["weight_ih_attr", "weight_hh_attr", "bias_ih_attr", "bias_hh_attr"]
_PADDLE_POS = {
    "SimpleRNN": ["direction", "time_major", "dropout", "activation"] + _ATTRS + ["name"],
    "LSTM": ["direction", "time_major", "dropout"] + _ATTRS + ["proj_size", "name"],
    "GRU": ["direction", "time_major", "dropout"] + _ATTRS + ["name"],
}
_DIRECTIONS = {"forward": 1, "bidirect": 2, "bidirectional": 2}


class _Unbind(PyLayer):
    """``x.unbind(0)`` whose backward stacks the step gradients in one op: the views'
    own backward would scatter each step's gradient into a full-size zero tensor
    (T times the work). Its backward is differentiable (second derivatives flow)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> tuple[Tensor, ...]:
        return tuple(x.unbind(0))

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> Tensor:
        return _core.stack(list(grads), 0)


def unbind_steps(x: Tensor) -> tuple[Tensor, ...]:
    """The time steps of ``x`` (``[T, ...]``), cheap to differentiate."""
    if not x.requires_grad or not _core.is_grad_enabled():
        return tuple(x.unbind(0))
    return _Unbind.apply(x)


_FUSED_MODES = ("LSTM", "GRU", "RNN_TANH", "RNN_RELU")


def _fusable(mode: str, gx: Tensor) -> bool:
    """Whether the fused Rust layer op runs this layer (``proj_size`` and padded batches
    keep the composed step loop)."""
    return mode in _FUSED_MODES and str(gx.dtype).endswith(("float32", "float64"))


def _fused_layer(
    mode: str, gx: Tensor, w_hh: Tensor, b_hh: Optional[Tensor], state: tuple, reverse: bool
) -> tuple[Tensor, tuple]:
    """One layer and direction through ``_core._rnn_layer`` (one graph node for all
    steps): the outputs ``[T, B, H]`` and the final state tuple. ``b_hh`` is the GRU's
    recurrent bias (the other cells have it folded into ``gx``)."""
    extra = None
    if mode == "LSTM":
        extra = state[1]
    elif mode == "GRU":
        extra = b_hh if b_hh is not None else _core.zeros([w_hh.shape[0]], dtype=gx.dtype)
    allstates = _core._rnn_layer(gx, w_hh, state[0], extra, mode, reverse)
    last = 0 if reverse else gx.shape[0] - 1
    out = allstates[0]
    if mode == "LSTM":
        return out, (out[last], allstates[1][last])
    return out, (out[last],)


class _RNNBase(Module):
    """The stacked recurrent layer shared by every class here."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "the recurrent layers run their loop in Rust on eager tensors and are not recorded",
        "train the model in dynamic mode, or write the recurrence with static ops (matmul, tanh, sigmoid, concat)",
    )

    _kind = "RNN"

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, *args: Any, **kw: Any
    ) -> None:
        super().__init__()
        what = type(self).__name__
        check_sizes(input_size, hidden_size, what)
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{what}: num_layers must be a positive int, got {num_layers!r}")
        kind = self._kind
        paddle = kind == "SimpleRNN" or bool(PADDLE_ONLY & set(kw))
        if args and kind == "RNN":
            paddle = paddle or args[0] in _DIRECTIONS
        elif args:
            paddle = paddle or isinstance(args[0], str)
        if not paddle and not (_TORCH_ONLY & set(kw)) and construction_dialect() == "paddle":
            paddle = True  # Paddle code: Paddle's arguments, batch-first input and keys
        names = _PADDLE_POS[kind] if paddle else _TORCH_POS[kind]
        if len(args) > len(names):
            raise TypeError(f"{what}() takes at most {len(names) + 3} positional arguments")
        o = dict(zip(names, args))
        for k, v in kw.items():
            if k in o:
                raise TypeError(f"{what}() got multiple values for argument {k!r}")
            o[k] = v
        known = set(names) | set(_TORCH_POS.get(kind, [])) | set(_PADDLE_POS.get(kind, []))
        known.add("proj_size")  # for LSTM only: a ValueError below says so
        if set(o) - known:
            raise TypeError(f"{what}() got unexpected keyword arguments {sorted(set(o) - known)}")
        direction = o.get("direction", "bidirect" if o.get("bidirectional") else "forward")
        if direction not in _DIRECTIONS:
            raise ValueError(
                f"{what}: direction must be 'forward', 'bidirect' or 'bidirectional', "
                f"got {direction!r}"
            )
        dropout = o.get("dropout", 0.0)
        if not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{what}: dropout must be a probability in [0, 1], got {dropout!r}")
        proj = o.get("proj_size", 0) or 0
        if proj and (kind != "LSTM" or not 0 < proj < hidden_size):
            raise ValueError(
                f"{what}: proj_size is an LSTM option and must be in (0, hidden_size), got {proj}"
            )
        if kind in ("RNN", "SimpleRNN"):
            act = o.get("nonlinearity", o.get("activation", "tanh"))
            self.mode = activation_mode(act, what)
        else:
            self.mode = kind
        self._paddle = paddle
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.num_directions = _DIRECTIONS[direction]
        self.bidirectional = self.num_directions == 2
        self.dropout = float(dropout)
        self.proj_size = int(proj)
        # a layout not given explicitly follows the dialect of the forward call
        self._layout_given = "time_major" in o or "batch_first" in o
        if "time_major" in o:
            self.batch_first = not o["time_major"]
        else:
            self.batch_first = bool(o.get("batch_first", paddle))
        bias = o.get("bias", True)
        self.bias = bool(bias)  # PyTorch's attribute (the parameters are bias_ih_l0, ...)
        self._make_params(o.get("dtype"), bias, o)
        if paddle and not self.proj_size:
            self._alias_cells()

    def _alias_cells(self) -> None:
        """Paddle's ``state_dict`` lists each layer's parameters twice: ``weight_ih_l0``
        and, through the layer's cell, ``0.cell.weight_ih`` (``0.cell_fw`` /
        ``0.cell_bw`` when bidirectional). The same Parameter objects are registered
        under both names, so a Paddle checkpoint loads with no missing or unexpected
        keys (``parameters()`` lists each once)."""
        for layer in range(self.num_layers):
            holder = Module()
            for d in range(self.num_directions):
                cell = Module()
                for n in self._names[layer * self.num_directions + d][:4]:
                    if n is not None:
                        cell.register_parameter(n.split("_l")[0], getattr(self, n))
                cell_name = ("cell_bw" if d else "cell_fw") if self.bidirectional else "cell"
                holder.add_module(cell_name, cell)
            self.add_module(str(layer), holder)

    def _layout_hint(self, batch_first: bool) -> str:
        if self._layout_given or batch_first:
            return ""
        return (
            "; the input is read as [time, batch, features] (PyTorch's default): for "
            "[batch, time, features] pass batch_first=True (Paddle: time_major=False)"
        )

    @property
    def time_major(self) -> bool:
        """Paddle's name: True when the input is ``[time, batch, features]``."""
        return not self.batch_first

    def _make_params(self, dtype: Any, bias: bool, o: dict) -> None:
        rows = GATES[self.mode] * self.hidden_size
        bound = 1.0 / math.sqrt(self.hidden_size)
        h_out = self.proj_size or self.hidden_size
        self._names: list[list[Optional[str]]] = []
        for layer in range(self.num_layers):
            in_size = self.input_size if layer == 0 else h_out * self.num_directions
            for d in range(self.num_directions):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                names: list[Optional[str]] = []
                for base, shape in (("weight_ih", [rows, in_size]), ("weight_hh", [rows, h_out])):
                    setattr(self, base + sfx, new_param(shape, bound, dtype, o.get(base + "_attr")))
                    names.append(base + sfx)
                for base in ("bias_ih", "bias_hh"):
                    attr = o.get(base + "_attr")
                    if bias and attr is not False:
                        setattr(self, base + sfx, new_param([rows], bound, dtype, attr))
                        names.append(base + sfx)
                    else:
                        names.append(None)
                if self.proj_size:
                    w_hr = new_param([self.proj_size, self.hidden_size], bound, dtype, None)
                    setattr(self, "weight_hr" + sfx, w_hr)
                    names.append("weight_hr" + sfx)
                else:
                    names.append(None)
                self._names.append(names)

    def _params(self, idx: int) -> list[Any]:
        return [None if n is None else getattr(self, n) for n in self._names[idx]]

    # ------------------------------------------------------------------ running

    def _initial(
        self, hx: Any, batch: int, x: Tensor, unbatched: bool, batch_first: bool = False
    ) -> list[tuple]:
        """Per (layer, direction): the initial state tuple, checked."""
        what = type(self).__name__
        n = self.num_layers * self.num_directions
        h_out = self.proj_size or self.hidden_size
        sizes = [h_out, self.hidden_size] if self.mode == "LSTM" else [h_out]
        if hx is None:
            parts = [_core.zeros([n, batch, s], dtype=x.dtype) for s in sizes]
        else:
            if self.mode == "LSTM":
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise TypeError(f"{what}: the initial state must be a pair (h_0, c_0)")
                parts = list(hx)
            else:
                parts = [hx[0] if isinstance(hx, (tuple, list)) and len(hx) == 1 else hx]
            for i, (p, s) in enumerate(zip(parts, sizes)):
                want = [n, s] if unbatched else [n, batch, s]
                if not isinstance(p, Tensor) or list(p.shape) != want:
                    got = list(p.shape) if isinstance(p, Tensor) else type(p).__name__
                    raise ValueError(
                        f"{what}: expected initial state {i} of shape {want} ([num_layers * "
                        f"num_directions, batch, size]), got {got}" + self._layout_hint(batch_first)
                    )
            if unbatched:
                parts = [p.unsqueeze(1) for p in parts]
        per = [p.unbind(0) for p in parts]
        return [tuple(q[i] for q in per) for i in range(n)]

    def _run(self, x: Tensor, states: list[tuple], lengths: Optional[np.ndarray]):
        """Time-major ``x`` ``[T, B, I]`` through every layer: (output, final states)."""
        steps = x.shape[0]
        masks = None
        if lengths is not None:
            on = np.arange(steps)[:, None] < lengths[None, :]  # [T, B]
            masks = [_core.tensor(on[t][:, None]) for t in range(steps)]
        finals: list[tuple] = []
        inp = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._params(layer * self.num_directions + d)
                bias = b_ih
                if b_hh is not None and self.mode != "GRU":
                    # bias_hh joins bias_ih before the input projection (GRU needs it
                    # inside r * (...)): one [G*H] add instead of a pass over [T, B, G*H]
                    # forward and a reduction over T * B rows backward
                    bias, b_hh = (b_hh if b_ih is None else b_ih + b_hh), None
                gx_all = F.linear(inp, w_ih, bias)
                state = states[layer * self.num_directions + d]
                if masks is None and w_hr is None and _fusable(self.mode, gx_all):
                    out, state = _fused_layer(self.mode, gx_all, w_hh, b_hh, state, d == 1)
                    outs.append(out)
                    finals.append(state)
                    continue
                gx = unbind_steps(gx_all)
                seq: list[Any] = [None] * steps
                for t in range(steps) if d == 0 else range(steps - 1, -1, -1):
                    new = step(self.mode, gx[t], state, w_hh, b_hh, w_hr)
                    if masks is None:
                        seq[t] = new[0]
                    else:
                        m = masks[t]
                        new = tuple(_core.where(m, a, b) for a, b in zip(new, state))
                        seq[t] = _core.where(m, new[0], _core.zeros([1, 1], dtype=x.dtype))
                    state = new
                outs.append(_core.stack(seq, 0))
                finals.append(state)
            inp = outs[0] if len(outs) == 1 else _core.concat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                inp = F.dropout(inp, self.dropout, True)
        return inp, finals

    def _forward(self, x: Any, hx: Any, lengths: Any, paddle: bool) -> tuple[Any, Any]:
        what = type(self).__name__
        packed = isinstance(x, PackedSequence)
        lens: Optional[np.ndarray] = None
        batch_first = self.batch_first
        if paddle and not self._layout_given:
            batch_first = True  # Paddle's default layout
        if packed:
            from .rnn_packing import pad_packed_sequence

            lens = packed_lengths(x)
            template = x
            x, _ = pad_packed_sequence(x)
            batch_first = False
        if not isinstance(x, Tensor):
            raise TypeError(f"{what}: the input must be a Tensor, got {type(x).__name__}")
        unbatched = x.ndim == 2 and not paddle and not packed
        if unbatched:
            x = x.unsqueeze(1)  # [time, 1, features]: time-major whatever batch_first says
            batch_first = False
        if x.ndim != 3 or x.shape[-1] != self.input_size:
            layout = "[batch, time, features]" if batch_first else "[time, batch, features]"
            raise ValueError(
                f"{what}: expected an input {layout} with {self.input_size} features, got "
                f"shape {list(x.shape)}"
            )
        xt = x.transpose(0, 1) if batch_first else x
        steps, batch = xt.shape[0], xt.shape[1]
        if steps == 0:
            raise ValueError(f"{what}: the input has no time steps")
        if not packed:
            lens = None if lengths is None else lengths_array(lengths, batch, steps, what)
        states = self._initial(hx, batch, xt, unbatched, batch_first)
        out, finals = self._run(xt, states, lens)
        stacked = tuple(_core.stack([f[i] for f in finals], 0) for i in range(len(finals[0])))
        if unbatched:
            out, stacked = out.squeeze(1), tuple(s.squeeze(1) for s in stacked)
        final: Any = stacked if self.mode == "LSTM" else stacked[0]
        if packed and lens is not None:
            return repack(out, lens, template), final
        return (out.transpose(0, 1) if batch_first else out), final

    def forward(
        self,
        input: Any = None,
        hx: Any = None,
        sequence_length: Any = None,
        *,
        inputs: Any = None,
        initial_states: Any = None,
    ) -> tuple[Any, Any]:
        """PyTorch ``(input, hx)`` → ``(output, h_n)`` / ``(output, (h_n, c_n))``;
        Paddle ``(inputs, initial_states, sequence_length)`` → ``(outputs,
        final_states)``."""
        x = inputs if inputs is not None else input
        paddle = self._paddle or inputs is not None or initial_states is not None
        paddle = paddle or sequence_length is not None
        h0 = initial_states if initial_states is not None else hx
        return self._forward(x, h0, sequence_length, paddle)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bidirectional:
            s += ", bidirectional=True"
        if self.batch_first != self._paddle:
            s += f", batch_first={self.batch_first}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        return s


class _CellRNN(Module):
    """Paddle's ``nn.RNN(cell, is_reverse=False, time_major=False)``: runs any cell over
    the time steps; ``forward(inputs, initial_states, sequence_length)`` returns
    ``(outputs, final_states)``."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "the recurrent layers run their loop in Rust on eager tensors and are not recorded",
        "train the model in dynamic mode, or write the recurrence with static ops (matmul, tanh, sigmoid, concat)",
    )

    def __init__(self, cell: Module, is_reverse: bool = False, time_major: bool = False) -> None:
        super().__init__()
        if not hasattr(cell, "_step"):
            raise TypeError(f"RNN(cell): expected a recurrent cell, got {type(cell).__name__}")
        self.cell = cell
        self.is_reverse = bool(is_reverse)
        self.time_major = bool(time_major)

    def forward(
        self, inputs: Tensor, initial_states: Any = None, sequence_length: Any = None
    ) -> tuple[Tensor, Any]:
        """The cell applied step by step (backwards with ``is_reverse``)."""
        return run_cell(
            self.cell, inputs, initial_states, sequence_length, self.time_major, self.is_reverse
        )


def run_cell(
    cell: Any, inputs: Tensor, states: Any, lengths: Any, time_major: bool, reverse: bool
) -> tuple[Tensor, Any]:
    """One cell over a sequence (Paddle's ``rnn``): padded steps keep the state and
    output zeros."""
    x = inputs if time_major else inputs.transpose(0, 1)
    steps, batch = x.shape[0], x.shape[1]
    if steps == 0:
        raise ValueError("RNN: the input has no time steps")
    xs = unbind_steps(x)
    mask = None
    if lengths is not None:
        lens = lengths_array(lengths, batch, steps, "RNN")
        on = np.arange(steps)[:, None] < lens[None, :]
        mask = [_core.tensor(on[t][:, None]) for t in range(steps)]
    outs: list[Any] = [None] * steps
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        out, new = cell._step(xs[t], states)
        if mask is not None:
            m = mask[t]
            zero = _core.zeros([1, 1], dtype=out.dtype)
            out = _core.where(m, out, zero)
            if states is not None:
                if isinstance(new, tuple):
                    new = tuple(_core.where(m, a, b) for a, b in zip(new, states))
                else:
                    new = _core.where(m, new, states)
            else:
                new = (
                    tuple(_core.where(m, a, zero) for a in new)
                    if isinstance(new, tuple)
                    else _core.where(m, new, zero)
                )
        outs[t] = out
        states = new
    y = _core.stack(outs, 0)
    return (y if time_major else y.transpose(0, 1)), states


class BiRNN(Module):
    """Paddle's ``nn.BiRNN(cell_fw, cell_bw, time_major=False)``: outputs of both
    directions concatenated on the last axis; final states ``(fw, bw)``."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "the recurrent layers run their loop in Rust on eager tensors and are not recorded",
        "train the model in dynamic mode, or write the recurrence with static ops (matmul, tanh, sigmoid, concat)",
    )

    def __init__(self, cell_fw: Module, cell_bw: Module, time_major: bool = False) -> None:
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        self.time_major = bool(time_major)

    def forward(
        self, inputs: Tensor, initial_states: Any = None, sequence_length: Any = None
    ) -> tuple[Tensor, Any]:
        """Both directions over ``inputs``."""
        fw0, bw0 = (None, None) if initial_states is None else initial_states
        y_fw, s_fw = run_cell(self.cell_fw, inputs, fw0, sequence_length, self.time_major, False)
        y_bw, s_bw = run_cell(self.cell_bw, inputs, bw0, sequence_length, self.time_major, True)
        return _core.concat([y_fw, y_bw], -1), (s_fw, s_bw)


class RNN(_RNNBase):
    """PyTorch's Elman ``RNN`` (``nonlinearity`` "tanh"/"relu"); ``RNN(cell)`` with a
    cell as first argument is Paddle's step-loop wrapper."""

    _kind = "RNN"

    def __new__(cls, *args: Any, **kw: Any) -> Any:
        first = args[0] if args else kw.get("cell")
        if isinstance(first, Module):
            return _CellRNN(*args, **kw)
        return super().__new__(cls)


class SimpleRNN(_RNNBase):
    """Paddle's Elman network (``activation`` "tanh"/"relu"), batch-major by default."""

    _kind = "SimpleRNN"


class LSTM(_RNNBase):
    """Long short-term memory, gates i, f, g, o (``proj_size`` projects ``h``)."""

    _kind = "LSTM"


class GRU(_RNNBase):
    """Gated recurrent unit, gates r, z, n."""

    _kind = "GRU"


__all__ = ["RNN", "SimpleRNN", "LSTM", "GRU", "BiRNN"]
