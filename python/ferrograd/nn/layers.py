"""Layers: ``Linear``, ``Sequential``, activations, ``Dropout``, ``LayerNorm``,
``Embedding`` and the loss modules. Each forwards to ``nn.functional``.

``Linear.weight`` has PyTorch's shape ``[out_features, in_features]`` when the layer is
built by PyTorch code (or ferrograd's neutral code), and Paddle's ``[in_features,
out_features]`` when built by Paddle code (docs/dialects.md, "Parameter layouts"), so
each peer's checkpoints load unchanged. Parameters are named ``weight`` and ``bias`` in
``state_dict``, as in both frameworks.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

from .. import _core
from . import functional as F
from . import init
from ._layouts import construction_dialect as construction_dialect
from ._layouts import layout_of as layout_of
from ._reduction import legacy_get_string
from .layers_embedding_bag import Embedding as Embedding
from .module import Module
from .param_attr import apply_param_attr
from .parameter import Parameter
from .sequential_ops import SequentialArithmetic

Tensor = _core.Tensor


def _wants_param(attr: Any) -> bool:
    """Paddle's ``weight_attr=False`` / ``bias_attr=False`` mean "no such parameter"."""
    return attr is not False


def _dtype_name(dtype: Any) -> Any:
    return dtype if dtype is not None else _core._get_default_dtype()


class Identity(Module):
    """Returns its input."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        """``x`` unchanged."""
        return x


class Linear(Module):
    """A fully connected layer: ``y = x @ weight.T + bias`` with ``weight``
    ``[out_features, in_features]`` (PyTorch's layout and init: both uniform in
    ``±1/sqrt(in_features)``) when built by PyTorch or neutral code, ``y = x @ weight +
    bias`` with ``weight`` ``[in_features, out_features]`` (Paddle's layout and init:
    Xavier-uniform weight, zero bias) when built by Paddle code. The layout is fixed at
    construction (``weight_layout``). ``bias=False`` (torch) or ``bias_attr=False``
    (Paddle) leaves the bias out.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        dtype: Any = None,
        *,
        weight_attr: Any = None,
        bias_attr: Any = None,
        name: Optional[str] = None,
        device: Any = None,
    ) -> None:
        super().__init__()
        if in_features < 0 or out_features < 0:
            raise ValueError(
                f"Linear: feature counts must be non-negative, got {in_features}, {out_features}"
            )
        self.in_features = in_features
        self.out_features = out_features
        paddle = construction_dialect() == "paddle"
        #: ``"in_out"`` (Paddle's ``[in, out]``) or ``"out_in"`` (PyTorch's ``[out, in]``)
        self.weight_layout = "in_out" if paddle else "out_in"
        d = _dtype_name(dtype)
        shape = [in_features, out_features] if paddle else [out_features, in_features]
        self.weight = Parameter(_core.empty(shape, dtype=d))
        if paddle:
            self.weight._in_out_layout = True  # Paddle's initializers read fans from [in, out]
        if bias and _wants_param(bias_attr):
            self.bias = Parameter(_core.empty([out_features], dtype=d))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        apply_param_attr(self.weight, weight_attr)
        if self.bias is not None:
            apply_param_attr(self.bias, bias_attr, is_bias=True)

    def reset_parameters(self) -> None:
        """Draws fresh initial values (from ferrograd's seeded generator): PyTorch's
        uniform ``±1/sqrt(in_features)``, or Paddle's Xavier-uniform weight and zero bias
        for a layer in Paddle's layout."""
        if getattr(self, "weight_layout", "out_in") == "in_out":
            if self.weight.numel() > 0:
                init.xavier_uniform_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)
            return
        bound = 1.0 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        """``x @ weight.T + bias`` (``x @ weight + bias`` in Paddle's layout)."""
        in_out = getattr(self, "weight_layout", "out_in") == "in_out"
        return F._linear_in_layout(x, self.weight, self.bias, in_out)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Sequential(SequentialArithmetic, Module):
    """Runs its layers in order: ``Sequential(a, b, c)(x) == c(b(a(x)))``.

    Layers may be given positionally (named ``"0"``, ``"1"``, ...), as an ``OrderedDict``
    or, as in Paddle, as ``(name, layer)`` pairs. ``+`` and ``*`` concatenate and repeat
    (PyTorch's; see sequential_ops.py).
    """

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (OrderedDict, dict)):
            for name, layer in layers[0].items():
                self.add_module(name, layer)
            return
        for i, layer in enumerate(layers):
            if isinstance(layer, tuple) and len(layer) == 2 and isinstance(layer[0], str):
                self.add_module(layer[0], layer[1])
            else:
                self.add_module(str(i), layer)

    def forward(self, x: Any) -> Any:
        """Each layer applied to the previous one's output."""
        for layer in self._modules.values():
            x = layer(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Union[int, slice, str]) -> Any:
        if isinstance(idx, str):
            return self._modules[idx]
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(items[idx]))
        if not -len(items) <= idx < len(items):
            raise IndexError(f"Sequential index {idx} out of range for {len(items)} layers")
        return items[idx][1]

    def append(self, layer: Module) -> Sequential:
        """Adds ``layer`` at the end."""
        self.add_module(str(len(self._modules)), layer)
        return self

    def __setitem__(self, idx: int, layer: Module) -> None:
        """Replaces the layer at position ``idx``, keeping its name and place."""
        _replace_at(self, _key_at(self, idx, "Sequential"), layer)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        """Removes the layer(s) at ``idx``; the rest are renamed ``"0"``, ``"1"``, ...
        (as in PyTorch)."""
        _delete_and_renumber(self, idx, "Sequential")

    def insert(self, index: int, layer: Module) -> Sequential:
        """Inserts ``layer`` before position ``index``; layers are renamed ``"0"``,
        ``"1"``, ..."""
        _insert_and_renumber(self, index, layer)
        return self

    def extend(self, layers: Iterable[Module]) -> Sequential:
        """Adds each of ``layers`` at the end."""
        for layer in layers:
            self.append(layer)
        return self

    def pop(self, idx: Union[int, slice]) -> Any:
        """Removes the layer at ``idx`` (a slice: a ``Sequential`` of them) and returns
        it; the rest are renamed ``"0"``, ``"1"``, ... (as in PyTorch)."""
        v = self[idx]
        del self[idx]
        return v


def _key_at(owner: Module, idx: int, what: str) -> str:
    """The name of the child at position ``idx`` (negative counts from the end)."""
    keys = list(owner._modules)
    if isinstance(idx, bool) or not isinstance(idx, int):
        raise TypeError(f"{what} indices must be integers, got {type(idx).__name__}")
    if not -len(keys) <= idx < len(keys):
        raise IndexError(f"{what} index {idx} out of range for {len(keys)} modules")
    return keys[idx]


def _replace_at(owner: Module, key: str, module: Module) -> None:
    """Registers ``module`` as the child ``key``, in that child's place."""
    if not isinstance(module, Module):
        raise TypeError(f"expected a Module, got {type(module).__name__}")
    owner.add_module(key, module)


def _renumber(owner: Module, modules: list[Module]) -> None:
    """Re-registers ``modules`` as the children ``"0"``, ``"1"``, ... in order."""
    for name in list(owner._modules):
        delattr(owner, name)
    for i, m in enumerate(modules):
        owner.add_module(str(i), m)


def _delete_and_renumber(owner: Module, idx: Union[int, slice], what: str) -> None:
    mods = list(owner._modules.values())
    if isinstance(idx, slice):
        del mods[idx]
    else:
        del mods[list(owner._modules).index(_key_at(owner, idx, what))]
    _renumber(owner, mods)


def _insert_and_renumber(owner: Module, index: int, module: Module) -> None:
    if not isinstance(module, Module):
        raise TypeError(f"insert: expected a Module, got {type(module).__name__}")
    mods = list(owner._modules.values())
    mods.insert(index, module)
    _renumber(owner, mods)


class ModuleList(Module):
    """A list of modules, registered as children (Paddle: ``LayerList``)."""

    def __init__(self, modules: Optional[Iterable[Module]] = None) -> None:
        super().__init__()
        for m in modules or ():
            self.append(m)

    def append(self, module: Module) -> ModuleList:
        """Adds ``module`` at the end."""
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Adds each of ``modules`` at the end."""
        for m in modules:
            self.append(m)
        return self

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        items = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(items[idx])
        return items[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        """Replaces the module at position ``idx``."""
        _replace_at(self, _key_at(self, idx, "ModuleList"), module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        """Removes the module(s) at ``idx``; the rest are renumbered from ``"0"``."""
        _delete_and_renumber(self, idx, "ModuleList")

    def insert(self, index: int, module: Module) -> None:
        """Inserts ``module`` before position ``index`` (the modules are renumbered)."""
        _insert_and_renumber(self, index, module)

    def pop(self, idx: Union[int, slice]) -> Any:
        """Removes the module at ``idx`` (a slice: a ``ModuleList`` of them) and returns
        it; the rest are renumbered from ``"0"``."""
        v = self[idx]
        del self[idx]
        return v

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        """A new ``ModuleList`` of this one's modules, then ``other``'s (any iterable of
        modules), as PyTorch's."""
        combined = ModuleList()
        for i, m in enumerate([*self, *other]):
            combined.add_module(str(i), m)
        return combined

    def __iadd__(self, other: Iterable[Module]) -> ModuleList:  # type: ignore[misc]
        # (in place, as PyTorch's: extend() returns this list)
        return self.extend(other)

    def __repr__(self) -> str:
        # PyTorch's: runs of equal reprs print once, as "(first-last): n x repr"
        reprs = [repr(m) for m in self]
        if not reprs:
            return f"{type(self).__name__}()"
        runs: list[list] = []  # [first, last, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [
            (f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}").replace("\n", "\n  ")
            for a, b, r in runs
        ]
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


class ReLU(Module):
    """``max(x, 0)``."""

    def __init__(self, inplace: bool = False, name: Optional[str] = None) -> None:
        super().__init__()
        # True: the result is written into the input, as in PyTorch (nn/_inplace.py)
        self.inplace = inplace is True

    def forward(self, x: Tensor) -> Tensor:
        """ReLU of ``x``."""
        return F.relu(x, inplace=True) if self.inplace else x.relu()


class Tanh(Module):
    """Hyperbolic tangent."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        """tanh of ``x``."""
        return x.tanh()


class Sigmoid(Module):
    """Logistic sigmoid ``1 / (1 + exp(-x))``."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        """sigmoid of ``x``."""
        return x.sigmoid()


class GELU(Module):
    """GELU, exact or (``approximate="tanh"`` / Paddle ``True``) the tanh approximation."""

    def __init__(self, approximate: Union[bool, str] = "none", name: Optional[str] = None) -> None:
        super().__init__()
        if approximate not in (False, True, "none", "tanh", None):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        """GELU of ``x``."""
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    """Softmax along ``dim`` (Paddle: ``axis``; default the last)."""

    def __init__(self, dim: Optional[int] = None, *, axis: Optional[int] = None) -> None:
        super().__init__()
        self.dim = F._axis(dim, axis, -1)

    def forward(self, x: Tensor) -> Tensor:
        """softmax of ``x``."""
        return x.softmax(self.dim)


class LogSoftmax(Module):
    """Log-softmax along ``dim`` (Paddle: ``axis``; default the last)."""

    def __init__(self, dim: Optional[int] = None, *, axis: Optional[int] = None) -> None:
        super().__init__()
        self.dim = F._axis(dim, axis, -1)

    def forward(self, x: Tensor) -> Tensor:
        """log_softmax of ``x``."""
        return x.log_softmax(self.dim)


class Flatten(Module):
    """Flattens dims ``start_axis..stop_axis`` (torch: ``start_dim``/``end_dim``)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1, **kw: int) -> None:
        super().__init__()
        self.start = kw.get("start_axis", start_dim)
        self.end = kw.get("stop_axis", end_dim)

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with the chosen dims merged."""
        return x.flatten(self.start, self.end)


class Dropout(Module):
    """Zeroes each element with probability ``p`` in training mode (survivors scaled by
    ``1/(1-p)``); the identity after ``eval()``."""

    def __init__(
        self,
        p: float = 0.5,
        inplace: bool = False,
        *,
        axis: Any = None,
        mode: str = "upscale_in_train",
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be a probability in [0, 1], got {p!r}")
        self.p = float(p)
        self.mode = mode
        self.axis = axis
        # True: the result is written into the input, as in PyTorch (nn/_inplace.py)
        self.inplace = inplace is True

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with random elements zeroed (training) or unchanged (eval)."""
        return F.dropout(x, self.p, self.training, self.inplace, axis=self.axis, mode=self.mode)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class LayerNorm(Module):
    """Normalises over the trailing ``normalized_shape`` dims, then applies a learned
    scale (``weight``, ones) and shift (``bias``, zeros)."""

    def __init__(
        self,
        normalized_shape: Union[int, Sequence[int]],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        dtype: Any = None,
        *,
        epsilon: Optional[float] = None,
        weight_attr: Any = None,
        bias_attr: Any = None,
        name: Optional[str] = None,
        device: Any = None,
    ) -> None:
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps if epsilon is None else epsilon
        d = _dtype_name(dtype)
        # Paddle keeps the scale and shift of a multi-dim shape flat ([prod(shape)]), so
        # its checkpoints load only into flat parameters
        self._flat = len(shape) > 1 and construction_dialect() == "paddle"
        pshape = [math.prod(shape)] if self._flat else shape
        if elementwise_affine and _wants_param(weight_attr):
            self.weight = Parameter(_core.ones(pshape, dtype=d))
            apply_param_attr(self.weight, weight_attr)
        else:
            self.register_parameter("weight", None)
        if elementwise_affine and bias and _wants_param(bias_attr):
            self.bias = Parameter(_core.zeros(pshape, dtype=d))
            apply_param_attr(self.bias, bias_attr, is_bias=True)
        else:
            self.register_parameter("bias", None)

    def forward(self, x: Tensor) -> Tensor:
        """Layer-normalised ``x``."""
        w, b = self.weight, self.bias
        if self._flat:
            w = None if w is None else w.reshape(self.normalized_shape)
            b = None if b is None else b.reshape(self.normalized_shape)
        return F.layer_norm(x, self.normalized_shape, w, b, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}"


class CrossEntropyLoss(Module):
    """``F.cross_entropy`` as a module (same arguments)."""

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
        soft_label: bool = False,
        axis: Optional[int] = None,
        use_softmax: bool = True,
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = legacy_get_string(size_average, reduce)  # PyTorch's _Loss rule
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.label_smoothing = label_smoothing
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """The loss of logits ``input`` against ``label``."""
        return F.cross_entropy(
            input,
            label,
            self.weight,
            self.ignore_index,
            self.reduction,
            self.label_smoothing,
            self.soft_label,
            self.axis,
            self.use_softmax,
        )


class NLLLoss(Module):
    """``F.nll_loss`` as a module."""

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = legacy_get_string(size_average, reduce)  # PyTorch's _Loss rule
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """The loss of log-probabilities ``input`` against ``label``."""
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class MSELoss(Module):
    """``F.mse_loss`` as a module."""

    def __init__(
        self,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = legacy_get_string(size_average, reduce)  # PyTorch's _Loss rule
        self.reduction = reduction

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """Squared error of ``input`` against ``label``."""
        return F.mse_loss(input, label, self.reduction)


LayerList = ModuleList
