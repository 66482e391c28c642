"""Recurrent cells: one time step of an Elman RNN, an LSTM or a GRU, in both dialects.

PyTorch: ``RNNCell``, ``LSTMCell``, ``GRUCell`` (``forward(input, hx)`` returns the new
``h``, or ``(h, c)`` for the LSTM). Paddle: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``
(``forward(inputs, states)`` returns ``(outputs, new_states)``). ``LSTMCell`` and
``GRUCell`` exist in both peers with different return values: a cell follows Paddle's
convention when it is built with a Paddle-only argument (``weight_ih_attr``, ``bias_ih_attr``,
``name``, ...) or called with ``states=``; PyTorch's otherwise.

Parameters (both peers): ``weight_ih`` ``[G*hidden, input]``, ``weight_hh``
``[G*hidden, hidden]``, ``bias_ih``/``bias_hh`` ``[G*hidden]`` with the gates stacked in
the peers' order (LSTM: i, f, g, o; GRU: r, z, n), all uniform in ``±1/sqrt(hidden)``.

Each step is a composition of differentiable ops (matmul, sigmoid, tanh, chunk), so
gradients of every order flow through it; there is no fused Rust kernel yet.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from .. import _core
from . import functional as F
from . import init
from ._layouts import construction_dialect
from .module import Module
from .param_attr import apply_param_attr
from .parameter import Parameter

Tensor = _core.Tensor

#: Gates per cell kind: rows of ``weight_ih`` per hidden unit.
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}

#: Constructor arguments only Paddle's cells and layers have.
PADDLE_ONLY = frozenset(
    {
        "weight_ih_attr",
        "weight_hh_attr",
        "bias_ih_attr",
        "bias_hh_attr",
        "name",
        "direction",
        "time_major",
        "activation",
    }
)


def step(
    mode: str,
    gx: Tensor,
    state: tuple[Tensor, ...],
    w_hh: Tensor,
    b_hh: Optional[Tensor],
    w_hr: Optional[Tensor] = None,
) -> tuple[Tensor, ...]:
    """One recurrent step. ``gx`` is the input's contribution ``x @ weight_ih.T + bias_ih``
    (computed for all steps at once by the layers); returns the new state tuple
    (``(h,)`` or ``(h, c)``). ``w_hr`` is the LSTM's projection (``proj_size``)."""
    h = state[0]
    gh = h.matmul(w_hh, False, True)
    if b_hh is not None:
        gh = gh + b_hh
    if mode == "LSTM":
        # one sigmoid over all four gates (the g quarter is not used) and one tanh on
        # g: fewer ops per step than four separate activations
        gates = gx + gh
        i, f, _, o = gates.sigmoid().chunk(4, -1)
        n = gates.shape[-1] // 4
        c = f * state[1] + i * gates[..., 2 * n : 3 * n].tanh()
        h = o * c.tanh()
        if w_hr is not None:
            h = h.matmul(w_hr, False, True)
        return (h, c)
    if mode == "GRU":
        xr, xz, xn = gx.chunk(3, -1)
        hr, hz, hn = gh.chunk(3, -1)
        r = (xr + hr).sigmoid()
        z = (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return (n + z * (h - n),)
    pre = gx + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu(),)


def activation_mode(name: str, what: str) -> str:
    """``"RNN_TANH"``/``"RNN_RELU"`` for the nonlinearity/activation ``name``."""
    if name == "tanh":
        return "RNN_TANH"
    if name == "relu":
        return "RNN_RELU"
    raise ValueError(f"{what}: the nonlinearity must be 'tanh' or 'relu', got {name!r}")


def check_sizes(input_size: Any, hidden_size: Any, what: str) -> None:
    """Sizes must be ints, the hidden size positive."""
    for label, v in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{what}: {label} must be a non-negative int, got {v!r}")
    if hidden_size == 0:
        raise ValueError(f"{what}: hidden_size must be positive, got 0")


def new_param(
    shape: Sequence[int], bound: float, dtype: Any, attr: Any, fill: float = 1.0
) -> Parameter:
    """A parameter uniform in ``±bound`` with Paddle's ``ParamAttr`` applied; ``attr=False``
    is Paddle's frozen parameter (``stop_gradient=True``) of ``fill``: ones for a weight,
    zeros for a cell's bias."""
    p = Parameter(
        _core.empty(list(shape), dtype=dtype if dtype is not None else _core._get_default_dtype())
    )
    if attr is False:
        init.constant_(p, fill)
        p.stop_gradient = True
        return p
    init.uniform_(p, -bound, bound)
    apply_param_attr(p, attr, is_bias=len(shape) == 1)  # (weights are 2-D)
    return p


class _CellBase(Module):
    """Shared body of the cells: parameters, the dialect, state checks."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "the recurrent layers run their loop in Rust on eager tensors and are not recorded",
        "train the model in dynamic mode, or write the recurrence with static ops (matmul, tanh, sigmoid, concat)",
    )

    _mode = "RNN_TANH"
    _paddle_default = False

    def _build(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        dtype: Any,
        attrs: dict,
        proj_size: int = 0,
    ) -> None:
        what = type(self).__name__
        check_sizes(input_size, hidden_size, what)
        if not isinstance(proj_size, int) or not 0 <= proj_size < max(hidden_size, 1):
            raise ValueError(f"{what}: proj_size must be in [0, hidden_size), got {proj_size!r}")
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.proj_size = proj_size
        self.bias = bool(bias)
        rows = GATES[self._mode] * hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        h_in = proj_size or hidden_size
        self.weight_ih = new_param([rows, input_size], bound, dtype, attrs.get("weight_ih_attr"))
        self.weight_hh = new_param([rows, h_in], bound, dtype, attrs.get("weight_hh_attr"))
        for name in ("bias_ih", "bias_hh"):
            attr = attrs.get(name + "_attr")
            if not bias:
                self.register_parameter(name, None)
            elif attr is False:  # Paddle's cells: a frozen bias of zeros, in the state_dict
                setattr(self, name, new_param([rows], bound, dtype, False, fill=0.0))
            else:
                setattr(self, name, new_param([rows], bound, dtype, attr))
        if proj_size:
            # Paddle's name and layout: h @ weight_ho, [hidden, proj]
            self.weight_ho = new_param([hidden_size, proj_size], bound, dtype, None)
        else:
            self.register_parameter("weight_ho", None)

    @property
    def state_shape(self) -> Any:
        """Paddle: the state's shape without the batch dim."""
        if self._mode == "LSTM":
            return ((self.proj_size or self.hidden_size,), (self.hidden_size,))
        return (self.hidden_size,)

    def get_initial_states(
        self,
        batch_ref: Any,
        shape: Any = None,
        dtype: Any = None,
        init_value: float = 0.0,
        batch_dim_idx: int = 0,
    ) -> Any:
        """Paddle's ``RNNCellBase.get_initial_states``: states filled with ``init_value``
        whose batch size is ``batch_ref.shape[batch_dim_idx]`` (the first tensor of a
        nested ``batch_ref``) and whose other dims are ``shape`` (default
        :attr:`state_shape`); an LSTM cell gives the pair ``(h, c)``. ``dtype`` defaults
        to the default float dtype, as Paddle's."""
        ref = batch_ref
        while isinstance(ref, (list, tuple)):
            if not ref:
                raise ValueError("get_initial_states: batch_ref holds no tensor")
            ref = ref[0]
        if not isinstance(ref, Tensor):
            raise TypeError(
                f"get_initial_states: batch_ref must be a Tensor (or a nest of them), got "
                f"{type(ref).__name__}"
            )
        batch = int(ref.shape[batch_dim_idx])
        shapes = self.state_shape if shape is None else shape
        fill_dtype = dtype if dtype is not None else _core._get_default_dtype()

        def _is_shape(s: Any) -> bool:
            return isinstance(s, (list, tuple)) and all(isinstance(d, int) for d in s)

        def _make(s: Any) -> Any:
            if _is_shape(s):
                return _core.full([batch] + [int(d) for d in s], init_value, dtype=fill_dtype)
            if isinstance(s, int):
                return _core.full([batch, s], init_value, dtype=fill_dtype)
            return tuple(_make(part) for part in s)

        return _make(shapes)

    def _zeros(self, x: Tensor, size: int) -> Tensor:
        return _core.zeros(list(x.shape[:-1]) + [size], dtype=x.dtype)

    def _states(self, x: Tensor, hx: Any) -> tuple[Tensor, ...]:
        """The incoming state as a tuple, zeros where not given, shapes checked."""
        what = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{what}: the input must be a Tensor, got {type(x).__name__}")
        if x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(
                f"{what}: expected an input of shape [batch, {self.input_size}] or "
                f"[{self.input_size}], got {list(x.shape)}"
            )
        h_size = self.proj_size or self.hidden_size
        if self._mode == "LSTM":
            if hx is None:
                return (self._zeros(x, h_size), self._zeros(x, self.hidden_size))
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{what}: the state must be a pair (h, c) of Tensors")
            states = tuple(hx)
            sizes: tuple[int, ...] = (h_size, self.hidden_size)
        else:
            if hx is None:
                return (self._zeros(x, h_size),)
            states = (hx,)
            sizes = (h_size,)
        for s, size in zip(states, sizes):
            want = list(x.shape[:-1]) + [size]
            if not isinstance(s, Tensor) or list(s.shape) != want:
                got = list(s.shape) if isinstance(s, Tensor) else type(s).__name__
                raise ValueError(f"{what}: expected a state of shape {want}, got {got}")
        return states

    def _step(self, x: Tensor, states: Any = None) -> tuple[Tensor, Any]:
        """Paddle's convention, whatever the cell's dialect: ``(output, new_states)``."""
        st = self._states(x, states)
        gx = F.linear(x, self.weight_ih, self.bias_ih)
        new = step(self._mode, gx, st, self.weight_hh, self.bias_hh)
        if self.weight_ho is not None:
            new = (new[0].matmul(self.weight_ho), new[1])
        return new[0], (new if self._mode == "LSTM" else new[0])

    def forward(self, x: Tensor, hx: Any = None, *, states: Any = None) -> Any:
        """PyTorch: the new ``h`` (LSTM: ``(h, c)``); Paddle (built with a Paddle argument,
        or called with ``states=``): ``(output, new_states)``."""
        paddle = self._paddle_default or states is not None
        out, new = self._step(x, states if states is not None else hx)
        return (out, new) if paddle else new

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


def _cell_init(self: _CellBase, input_size: int, hidden_size: int, args: tuple, kw: dict) -> None:
    """Reads torch's ``(bias=True, [nonlinearity], device, dtype)`` or Paddle's
    ``(weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, [proj_size], name)``."""
    Module.__init__(self)
    what = type(self).__name__
    paddle_pos = ["weight_ih_attr", "weight_hh_attr", "bias_ih_attr", "bias_hh_attr"]
    if what == "LSTMCell":
        paddle_pos.append("proj_size")
    paddle_pos.append("name")
    torch_pos = ["bias", "device", "dtype"]
    if what == "RNNCell":
        torch_pos.insert(1, "nonlinearity")
    is_paddle = self._paddle_default or bool(PADDLE_ONLY & set(kw))
    if args and not isinstance(args[0], bool) and what != "RNNCell":
        is_paddle = True  # a ParamAttr / None in the third position
    if (
        not is_paddle
        and what != "RNNCell"
        and not args
        and not ({"bias", "nonlinearity", "device", "dtype"} & set(kw))
        and construction_dialect() == "paddle"
    ):
        # built by Paddle code (as the nn.LSTM / nn.GRU layers): Paddle's (output, states)
        is_paddle = True
    names = paddle_pos if is_paddle else torch_pos
    if what == "SimpleRNNCell":
        names = ["activation"] + paddle_pos
    if len(args) > len(names):
        raise TypeError(f"{what}() takes at most {len(names) + 2} positional arguments")
    opts = dict(zip(names, args))
    for k, v in kw.items():
        if k in opts:
            raise TypeError(f"{what}() got multiple values for argument {k!r}")
        opts[k] = v
    allowed = set(torch_pos) | set(paddle_pos) | {"activation", "nonlinearity", "proj_size"}
    unknown = set(opts) - allowed
    if unknown:
        raise TypeError(f"{what}() got unexpected keyword arguments {sorted(unknown)}")
    self._paddle_default = is_paddle
    if what == "RNNCell":
        self._mode = activation_mode(opts.get("nonlinearity", "tanh"), what)
    elif what == "SimpleRNNCell":
        self._mode = activation_mode(opts.get("activation", "tanh"), what)
    self._build(
        input_size,
        hidden_size,
        opts.get("bias", True),
        opts.get("dtype"),
        opts,
        opts.get("proj_size", 0) if what == "LSTMCell" else 0,
    )


class RNNCell(_CellBase):
    """PyTorch's Elman cell: ``h' = act(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)`` with
    ``nonlinearity`` ``"tanh"`` or ``"relu"``."""

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kw: Any) -> None:
        _cell_init(self, input_size, hidden_size, args, kw)


class SimpleRNNCell(_CellBase):
    """Paddle's Elman cell (``activation`` ``"tanh"`` or ``"relu"``);
    ``forward(inputs, states)`` returns ``(h, h)``."""

    _paddle_default = True

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kw: Any) -> None:
        _cell_init(self, input_size, hidden_size, args, kw)


class LSTMCell(_CellBase):
    """LSTM cell, gates i, f, g, o: ``c' = f*c + i*g``, ``h' = o*tanh(c')``.
    PyTorch: ``cell(x, (h, c))`` returns ``(h', c')``; Paddle: ``(h', (h', c'))``."""

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kw: Any) -> None:
        _cell_init(self, input_size, hidden_size, args, kw)


class GRUCell(_CellBase):
    """GRU cell, gates r, z, n: ``n = tanh(W_in x + b_in + r*(W_hn h + b_hn))``,
    ``h' = (1-z)*n + z*h``. PyTorch: ``cell(x, h)`` returns ``h'``; Paddle:
    ``(h', h')``."""

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kw: Any) -> None:
        _cell_init(self, input_size, hidden_size, args, kw)


__all__ = ["RNNCell", "SimpleRNNCell", "LSTMCell", "GRUCell"]
