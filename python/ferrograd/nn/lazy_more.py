"""PyTorch's lazy convolution and normalization modules: ``LazyConv1d/2d/3d``,
``LazyConvTranspose1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``,
and ``UninitializedBuffer``.

Each takes the arguments of its regular module without the first one (``in_channels`` /
``num_features``), which it reads from the first input (``input.shape[1]``; an
unbatched convolution input: ``shape[0]``). Until then its parameters are
:class:`UninitializedParameter` placeholders (running statistics:
:class:`UninitializedBuffer`); the first call (or ``initialize_parameters(x)``, or loading
a ``state_dict``, which gives the saved shapes) builds the regular module's parameters and
buffers, drawn as that module draws them, and the object becomes that module (its class
changes to ``Conv2d``, ``BatchNorm1d``, ...), as PyTorch's ``cls_to_become``. Hooks and the
training mode registered before are kept. As with ``LazyLinear``: build the optimizer
after the first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _core
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from .layers import _dtype_name
from .lazy import UninitializedParameter, _features
from .module import Module
from .norm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)

Tensor = _core.Tensor


class UninitializedBuffer(Tensor):
    """The placeholder of a lazy module's buffer before its shape is known: an empty
    tensor (``shape [0]``) that the first forward pass replaces (torch's
    ``nn.UninitializedBuffer``)."""

    def __new__(
        cls, requires_grad: bool = False, dtype: Any = None, persistent: bool = True
    ) -> Any:
        return Tensor.__new__(cls, _core.empty([0], dtype=_dtype_name(dtype)))

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"


class _LazyModule(Module):
    """Shared body: the saved constructor arguments and the materialization."""

    cls_to_become: Any = None
    _spatial = 1  # spatial dims of the input (convolutions)
    _kind = "conv"

    def _lazy_init(self, kwargs: dict, bias: bool, stats: bool) -> None:
        Module.__init__(self)
        self._lazy_kwargs = kwargs
        dtype = kwargs.get("dtype")
        if self._kind == "norm":
            self.num_features = 0
            # None entries where there is no weight / bias (PyTorch's)
            affine, use_bias = kwargs["affine"], kwargs["affine"] and kwargs["bias"]
            self.register_parameter(
                "weight", UninitializedParameter(dtype=dtype) if affine else None
            )
            self.register_parameter(
                "bias", UninitializedParameter(dtype=dtype) if use_bias else None
            )
            if stats:
                self.register_buffer("running_mean", UninitializedBuffer(dtype=dtype))
                self.register_buffer("running_var", UninitializedBuffer(dtype=dtype))
                self.register_buffer("num_batches_tracked", _core.tensor(0))
        else:
            self.in_channels = 0
            self.out_channels = kwargs["out_channels"]
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
            else:
                self.register_parameter("bias", None)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still a placeholder."""
        items = [*self._parameters.values(), *self._buffers.values()]
        return any(isinstance(p, (UninitializedParameter, UninitializedBuffer)) for p in items)

    def reset_parameters(self) -> None:
        """Nothing to draw before the parameters exist (afterwards the regular module's)."""

    def _cast(
        self,
        dtype: Any,
        floating_only: bool = True,
        excluded: tuple = (),
        complex_too: bool = False,
    ) -> Any:
        """``to(dtype)`` / ``double()`` ... before the first call: the parameters will be
        created with ``dtype`` (the placeholders take it now)."""
        if excluded and isinstance(self, excluded):
            return self
        self._lazy_kwargs["dtype"] = dtype
        for name, p in list(self._parameters.items()):
            if isinstance(p, UninitializedParameter):
                self._parameters[name] = UninitializedParameter(dtype=dtype)
        for name, b in list(self._buffers.items()):
            if isinstance(b, UninitializedBuffer):
                self._buffers[name] = UninitializedBuffer(dtype=dtype)
        return self

    def _count(self, input: Any) -> int:
        what = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{what}: the first call needs an eager Tensor to read its sizes from, got "
                f"{type(input).__name__}"
            )
        if self._kind == "conv" and input.ndim == self._spatial + 1:
            return int(input.shape[0])  # an unbatched input [C, *spatial]
        if input.ndim < 2:
            raise ValueError(f"{what}: the input must have at least 2 dims, got {input.ndim}")
        return int(input.shape[1])

    def _materialize(self, n: int) -> None:
        fresh = self.cls_to_become(n, **self._lazy_kwargs)
        kept = {"training", "_full_name"}
        d = self.__dict__
        d.pop("_lazy_kwargs", None)
        for k, v in fresh.__dict__.items():
            if k not in kept and "hook" not in k:
                d[k] = v
        self.__class__ = self.cls_to_become  # torch: cls_to_become

    def initialize_parameters(self, input: Tensor) -> None:
        """Builds the parameters and buffers from the input's channel count; the module
        becomes the regular one (also when it has no parameters: an instance norm without
        ``affine`` or running statistics)."""
        if isinstance(self, _LazyModule):
            self._materialize(self._count(input))

    def forward(self, x: Tensor) -> Tensor:
        """Materializes on the first call, then the regular module's forward."""
        become = self.cls_to_become
        self.initialize_parameters(x)
        return become.forward(self, x)

    def _materialize_from_state(self, state_dict: Mapping[str, Any], prefix: str) -> None:
        """``load_state_dict`` hook: the saved tensors' shapes give the channel count."""
        if not self.has_uninitialized_params():
            return
        n = None
        if self._kind == "norm":
            for name in ("weight", "running_mean"):
                t = state_dict.get(prefix + name)
                if t is not None and len(t.shape) == 1:
                    n = int(t.shape[0])
                    break
        else:
            w = state_dict.get(prefix + "weight")
            if w is not None and len(w.shape) == self._spatial + 2:
                transposed = getattr(self.cls_to_become, "_transposed", False)
                groups = int(self._lazy_kwargs.get("groups", 1))
                n = int(w.shape[0]) if transposed else int(w.shape[1]) * groups
        if n is not None:
            self._materialize(n)

    def extra_repr(self) -> str:
        """The saved arguments (the channel count is not known yet)."""
        return ", ".join(f"{k}={v!r}" for k, v in self._lazy_kwargs.items() if v is not None)


def _lazy_conv(cls: Any, spatial: int) -> Any:
    def __init__(
        self: Any,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        kw = dict(
            out_channels=_features(out_channels, type(self).__name__),
            kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
            groups=groups, bias=bias, padding_mode=padding_mode, dtype=dtype,
        )  # fmt: skip
        self._lazy_init(kw, bias, False)

    name = f"Lazy{cls.__name__}"
    doc = f"PyTorch's ``{name}``: ``nn.{cls.__name__}`` with ``in_channels`` inferred."
    attrs = {"__init__": __init__, "__doc__": doc, "cls_to_become": cls, "_spatial": spatial}
    return type(name, (_LazyModule,), {**attrs, "__module__": __name__})


def _lazy_transpose(cls: Any, spatial: int) -> Any:
    def __init__(
        self: Any,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        kw = dict(
            out_channels=_features(out_channels, type(self).__name__),
            kernel_size=kernel_size, stride=stride, padding=padding,
            output_padding=output_padding, groups=groups, bias=bias, dilation=dilation,
            padding_mode=padding_mode, dtype=dtype,
        )  # fmt: skip
        self._lazy_init(kw, bias, False)

    name = f"Lazy{cls.__name__}"
    doc = f"PyTorch's ``{name}``: ``nn.{cls.__name__}`` with ``in_channels`` inferred."
    attrs = {"__init__": __init__, "__doc__": doc, "cls_to_become": cls, "_spatial": spatial}
    return type(name, (_LazyModule,), {**attrs, "__module__": __name__})


def _lazy_norm(cls: Any, affine_default: bool, stats_default: bool) -> Any:
    def __init__(
        self: Any,
        eps: float = 1e-5,
        momentum: Any = 0.1,
        affine: bool = affine_default,
        track_running_stats: bool = stats_default,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        kw = dict(
            eps=eps, momentum=momentum, affine=affine, bias=bool(bias),
            track_running_stats=track_running_stats, dtype=dtype,
        )  # fmt: skip
        self._lazy_init(kw, affine, track_running_stats)

    name = f"Lazy{cls.__name__}"
    doc = f"PyTorch's ``{name}``: ``nn.{cls.__name__}`` with ``num_features`` inferred."
    attrs = {"__init__": __init__, "__doc__": doc, "cls_to_become": cls, "_kind": "norm"}
    return type(name, (_LazyModule,), {**attrs, "__module__": __name__})


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d = _lazy_transpose(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_transpose(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_transpose(ConvTranspose3d, 3)
# PyTorch's lazy instance norms default to affine=True, track_running_stats=True, unlike
# InstanceNorm*d (both False): its signatures, kept as they are
LazyBatchNorm1d = _lazy_norm(BatchNorm1d, True, True)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, True, True)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, True, True)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, True, True)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, True, True)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, True, True)

__all__ = [
    "UninitializedBuffer", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]  # fmt: skip
