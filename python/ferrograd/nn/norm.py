"""Normalisation layers of both dialects: batch, instance, group and RMS norm.

PyTorch's ``BatchNorm1d/2d/3d`` keep ``running_mean``, ``running_var`` (the unbiased
batch variance) and ``num_batches_tracked`` buffers, with ``momentum`` the weight of each
new batch (0.1; ``None`` = cumulative average). Paddle's ``BatchNorm1D/2D/3D`` and
``BatchNorm`` keep ``_mean`` and ``_variance`` (the biased batch variance), with
``momentum`` the fraction kept (0.9), and read ``data_format`` / ``use_global_stats``.
All buffers are registered, so ``state_dict`` holds them under each peer's names; every
layer uses the batch statistics in training mode and the running ones after ``eval()``.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from ..grad_mode import no_grad
from . import fn_norm
from .module import Module
from .norm_state import NormStateVersion
from .param_attr import apply_param_attr
from .parameter import Parameter
from .static_build import recording, unsupported

Tensor = _core.Tensor


def _wants(attr: Any) -> bool:
    return attr is not False


def _dt(dtype: Any) -> Any:
    return dtype if dtype is not None else _core._get_default_dtype()


def _check_features(n: Any, what: str, arg: str = "num_features") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"{what}: {arg} must be a positive int, got {n!r}")
    return n


def _torch_state(m: Module, n: int, affine: bool, track: bool, d: Any, bias: bool) -> None:
    """PyTorch's batch/instance-norm state: ``weight`` when ``affine``, ``bias`` when
    ``affine`` and ``bias``, the running statistics and ``num_batches_tracked`` when
    ``track`` (else None entries)."""
    m.register_parameter("weight", Parameter(_core.ones([n], dtype=d)) if affine else None)
    use_bias = affine and bias
    m.register_parameter("bias", Parameter(_core.zeros([n], dtype=d)) if use_bias else None)
    buffers = (
        (_core.zeros([n], dtype=d), _core.ones([n], dtype=d), _core.tensor(0, dtype="int64"))
        if track
        else (None, None, None)
    )
    for name, value in zip(("running_mean", "running_var", "num_batches_tracked"), buffers):
        m.register_buffer(name, value)


class _BatchNormTorch(NormStateVersion, Module):
    """PyTorch's batch norm; subclasses fix the accepted input ranks. ``bias=False``
    (keyword, PyTorch 2.x) keeps ``weight`` without ``bias``."""

    _ranks: tuple = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: Optional[float] = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        what = type(self).__name__
        self.num_features = _check_features(num_features, what)
        if momentum is not None and not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{what}: momentum must lie in [0, 1] or be None, got {momentum}")
        self.eps = float(eps)
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _torch_state(self, num_features, affine, track_running_stats, _dt(dtype), bias)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, weight 1 and bias 0."""
        self.reset_running_stats()
        if self.affine:
            with no_grad():
                self.weight.fill_(1.0)
                if self.bias is not None:
                    self.bias.zero_()

    def forward(self, x: Tensor) -> Tensor:
        """Batch-normalised ``x`` (batch statistics in training, running ones in eval)."""
        what = type(self).__name__
        if isinstance(x, Tensor) and self._ranks and x.ndim not in self._ranks:
            raise ValueError(
                f"{what}: expected a {' or '.join(f'{r}-d' for r in self._ranks)} input, got "
                f"shape {list(x.shape)}"
            )
        if not isinstance(x, Tensor):
            return self._record(x)
        factor = 0.0 if self.momentum is None else float(self.momentum)
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep_running = not self.training or self.track_running_stats
        return fn_norm.normalize_batch(
            x,
            self.running_mean if keep_running else None,
            self.running_var if keep_running else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            True,
            self.eps,
            1,
            what,
        )

    def _record(self, x: Any) -> Any:
        """The static path: ``F.batch_norm`` recorded (the running statistics, static
        persistable variables, are updated when a training program runs;
        ``num_batches_tracked`` is not counted there)."""
        if self.training and self.track_running_stats and self.momentum is None:
            raise unsupported(
                self, "momentum=None (a cumulative average over the batches seen) is not "
                "recorded", "give a momentum (e.g. 0.1)",
            )  # fmt: skip
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep_running = not self.training or self.track_running_stats
        return recording("batch_norm")(
            x,
            self.running_mean if keep_running else None,
            self.running_var if keep_running else None,
            self.weight,
            self.bias,
            training=use_batch,
            momentum=self.momentum,
            eps=self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNormTorch):
    """PyTorch's batch norm of ``[N, C]`` or ``[N, C, L]`` inputs."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNormTorch):
    """PyTorch's batch norm of ``[N, C, H, W]`` inputs."""

    _ranks = (4,)


class BatchNorm3d(_BatchNormTorch):
    """PyTorch's batch norm of ``[N, C, D, H, W]`` inputs."""

    _ranks = (5,)


class _BatchNormPaddle(Module):
    """Paddle's batch norm; subclasses fix the accepted ranks and data formats."""

    _ranks: tuple = ()
    _formats: tuple = ()

    def __init__(
        self,
        num_features: int,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: Optional[str] = None,
        use_global_stats: Optional[bool] = None,
        name: Optional[str] = None,
        *,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        what = type(self).__name__
        self.num_features = _check_features(num_features, what)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{what}: momentum must lie in [0, 1], got {momentum}")
        fmt = self._formats[0] if data_format is None else str(data_format).upper()
        if self._formats and fmt not in self._formats:
            raise ValueError(
                f"{what}: data_format must be one of {self._formats}, got {data_format!r}"
            )
        self._momentum = float(momentum)
        self._epsilon = float(epsilon)
        self._data_format = fmt
        self._use_global_stats = use_global_stats
        d = _dt(dtype)
        if _wants(weight_attr):
            self.weight = Parameter(_core.ones([num_features], dtype=d))
            apply_param_attr(self.weight, weight_attr)
        else:
            self.register_parameter("weight", None)
        if _wants(bias_attr):
            self.bias = Parameter(_core.zeros([num_features], dtype=d))
            apply_param_attr(self.bias, bias_attr, is_bias=True)
        else:
            self.register_parameter("bias", None)
        self.register_buffer("_mean", _core.zeros([num_features], dtype=d))
        self.register_buffer("_variance", _core.ones([num_features], dtype=d))

    def forward(self, x: Tensor) -> Tensor:
        """Batch-normalised ``x``."""
        what = type(self).__name__
        if isinstance(x, Tensor) and self._ranks and x.ndim not in self._ranks:
            raise ValueError(
                f"{what}: expected a {' or '.join(f'{r}-d' for r in self._ranks)} input, got "
                f"shape {list(x.shape)}"
            )
        ugs = self._use_global_stats
        if not isinstance(x, Tensor):  # static: F.batch_norm recorded
            return recording("batch_norm")(
                x, self._mean, self._variance, self.weight, self.bias, training=self.training,
                momentum=self._momentum, epsilon=self._epsilon, data_format=self._data_format,
                use_global_stats=ugs,
            )  # fmt: skip
        use_batch = (not ugs) if ugs is not None else self.training
        cdim = fn_norm._channel_dim(x, self._data_format, what) if isinstance(x, Tensor) else 1
        update = use_batch and self.training
        return fn_norm.normalize_batch(
            x,
            self._mean if (update or not use_batch) else None,
            self._variance if (update or not use_batch) else None,
            self.weight,
            self.bias,
            use_batch,
            1.0 - self._momentum,
            False,
            self._epsilon,
            cdim,
            what,
            single_value_passes=True,
        )

    def extra_repr(self) -> str:
        return (
            f"num_features={self.num_features}, momentum={self._momentum}, "
            f"epsilon={self._epsilon}, data_format={self._data_format}"
        )


class BatchNorm1D(_BatchNormPaddle):
    """Paddle's batch norm of ``[N, C]`` / ``[N, C, L]`` (``"NCL"``) or ``[N, L, C]``
    (``"NLC"``) inputs."""

    _ranks = (2, 3)
    _formats = ("NCL", "NC", "NLC")


class BatchNorm2D(_BatchNormPaddle):
    """Paddle's batch norm of ``[N, C, H, W]`` (``"NCHW"``) or ``"NHWC"`` inputs."""

    _ranks = (4,)
    _formats = ("NCHW", "NHWC")


class BatchNorm3D(_BatchNormPaddle):
    """Paddle's batch norm of ``[N, C, D, H, W]`` (``"NCDHW"``) or ``"NDHWC"`` inputs."""

    _ranks = (5,)
    _formats = ("NCDHW", "NDHWC")


class BatchNorm(_BatchNormPaddle):
    """Paddle's general ``nn.BatchNorm(num_channels, act=None, is_test=False, momentum=0.9,
    epsilon=1e-5, param_attr, bias_attr, dtype, data_layout="NCHW", ...,
    use_global_stats=False)`` of inputs of any rank >= 2; ``act`` names an activation
    applied after it (``"relu"``, ``"sigmoid"``, ``"tanh"``...)."""

    _formats = ("NCHW", "NHWC", "NCL", "NLC", "NC", "NCDHW", "NDHWC")

    def __init__(
        self,
        num_channels: int,
        act: Optional[str] = None,
        is_test: bool = False,
        momentum: float = 0.9,
        epsilon: float = 1e-5,
        param_attr: Any = None,
        bias_attr: Any = None,
        dtype: Any = "float32",
        data_layout: str = "NCHW",
        in_place: bool = False,
        moving_mean_name: Optional[str] = None,
        moving_variance_name: Optional[str] = None,
        do_model_average_for_mean_and_var: bool = True,
        use_global_stats: bool = False,
        trainable_statistics: bool = False,
    ) -> None:
        super().__init__(
            num_channels,
            momentum,
            epsilon,
            param_attr,
            bias_attr,
            data_layout,
            True if is_test else (None if not use_global_stats else True),
            dtype=dtype,
        )
        if trainable_statistics:
            self._use_global_stats = False
        if act is not None and not hasattr(Tensor, str(act)):
            raise ValueError(f"BatchNorm: unknown activation act={act!r}")
        self._act = act

    def forward(self, x: Tensor) -> Tensor:
        """Batch-normalised ``x``, then ``act``."""
        out = super().forward(x)
        return getattr(out, self._act)() if self._act else out


class GroupNorm(Module):
    """Group norm (both dialects): ``GroupNorm(num_groups, num_channels, eps, affine, *,
    bias)`` (torch) / ``GroupNorm(num_groups, num_channels, epsilon, weight_attr,
    bias_attr, data_format)`` (Paddle). Parameters ``weight`` (ones) and ``bias`` (zeros),
    one per channel; no ``bias`` with ``bias=False`` / ``bias_attr=False``."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: Any = True,
        bias_attr: Any = None,
        data_format: str = "NCHW",
        name: Optional[str] = None,
        *,
        epsilon: Optional[float] = None,
        weight_attr: Any = None,
        device: Any = None,
        dtype: Any = None,
        bias: bool = True,
    ) -> None:
        super().__init__()
        _check_features(num_groups, "GroupNorm", "num_groups")
        _check_features(num_channels, "GroupNorm", "num_channels")
        if num_channels % num_groups:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                f"({num_groups})"
            )
        if not isinstance(affine, bool):  # Paddle's 4th positional argument: weight_attr
            weight_attr, affine = affine, True
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = float(eps if epsilon is None else epsilon)
        self.affine = affine
        self.data_format = data_format
        d = _dt(dtype)
        if affine and _wants(weight_attr):
            self.weight = Parameter(_core.ones([num_channels], dtype=d))
            apply_param_attr(self.weight, weight_attr)
        else:
            self.register_parameter("weight", None)
        if affine and bias and _wants(bias_attr):
            self.bias = Parameter(_core.zeros([num_channels], dtype=d))
            apply_param_attr(self.bias, bias_attr, is_bias=True)
        else:
            self.register_parameter("bias", None)

    def forward(self, x: Tensor) -> Tensor:
        """Group-normalised ``x``."""
        fn = fn_norm.group_norm if isinstance(x, Tensor) else recording("group_norm")
        return fn(x, self.num_groups, self.weight, self.bias, self.eps, self.data_format)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class _InstanceNormTorch(NormStateVersion, Module):
    """PyTorch's instance norm: no affine map and no running statistics by default;
    ``affine=True, bias=False`` keeps ``weight`` without ``bias``."""

    _ranks: tuple = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        what = type(self).__name__
        self.num_features = _check_features(num_features, what)
        self.eps = float(eps)
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _torch_state(self, num_features, affine, track_running_stats, _dt(dtype), bias)

    def forward(self, x: Tensor) -> Tensor:
        """Instance-normalised ``x`` (``[N, C, *spatial]``, or PyTorch's unbatched
        ``[C, *spatial]``)."""
        what = type(self).__name__
        if isinstance(x, Tensor) and x.ndim == self._ranks[0] - 1:
            # PyTorch's unbatched input: normalised as a batch of one
            return _InstanceNormTorch.forward(self, x.unsqueeze(0)).squeeze(0)
        if isinstance(x, Tensor) and x.ndim not in self._ranks:
            raise ValueError(
                f"{what}: expected a {self._ranks[0]}-d [N, C, ...] input or an unbatched "
                f"{self._ranks[0] - 1}-d [C, ...] one, got shape {list(x.shape)}"
            )
        use_input = self.training or not self.track_running_stats
        fn = fn_norm.instance_norm
        if not isinstance(x, Tensor):
            if self.track_running_stats:
                raise unsupported(
                    self, "track_running_stats=True is not recorded",
                    "track_running_stats=False (statistics of each input)",
                )  # fmt: skip
            fn = recording("instance_norm")
        # PyTorch's instance norms keep num_batches_tracked at 0 and pass momentum=None as
        # 0.0: the running statistics then stay at their initial values
        return fn(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            use_input,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class InstanceNorm1d(_InstanceNormTorch):
    """PyTorch's instance norm of ``[N, C, L]`` inputs."""

    _ranks = (3,)


class InstanceNorm2d(_InstanceNormTorch):
    """PyTorch's instance norm of ``[N, C, H, W]`` inputs."""

    _ranks = (4,)


class InstanceNorm3d(_InstanceNormTorch):
    """PyTorch's instance norm of ``[N, C, D, H, W]`` inputs."""

    _ranks = (5,)


class _InstanceNormPaddle(Module):
    """Paddle's instance norm: a learned per-channel ``scale`` (ones) and ``bias`` (zeros)
    by default, no running statistics."""

    _ranks: tuple = ()
    _formats: tuple = ()

    def __init__(
        self,
        num_features: int,
        epsilon: float = 1e-5,
        momentum: float = 0.9,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
        *,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        what = type(self).__name__
        self.num_features = _check_features(num_features, what)
        self._epsilon = float(epsilon)
        fmt = self._formats[0] if data_format is None else str(data_format).upper()
        if fmt not in self._formats:
            raise ValueError(
                f"{what}: data_format must be one of {self._formats}, got {data_format!r}"
            )
        self._data_format = fmt
        d = _dt(dtype)
        if _wants(weight_attr) and _wants(bias_attr):
            self.scale = Parameter(_core.ones([num_features], dtype=d))
            self.bias = Parameter(_core.zeros([num_features], dtype=d))
            apply_param_attr(self.scale, weight_attr)
            apply_param_attr(self.bias, bias_attr, is_bias=True)
        else:
            self.register_parameter("scale", None)
            self.register_parameter("bias", None)

    def forward(self, x: Tensor) -> Tensor:
        """Instance-normalised ``x``."""
        what = type(self).__name__
        if isinstance(x, Tensor) and x.ndim not in self._ranks:
            raise ValueError(
                f"{what}: expected a {self._ranks[0]}-d input, got shape {list(x.shape)}"
            )
        fn = fn_norm.instance_norm if isinstance(x, Tensor) else recording("instance_norm")
        return fn(
            x, None, None, self.scale, self.bias, True, None, self._epsilon, self._data_format
        )


class InstanceNorm1D(_InstanceNormPaddle):
    """Paddle's instance norm of ``[N, C, L]`` inputs (``"NCL"`` / ``"NLC"``)."""

    _ranks = (3,)
    _formats = ("NCL", "NLC")


class InstanceNorm2D(_InstanceNormPaddle):
    """Paddle's instance norm of ``[N, C, H, W]`` inputs (``"NCHW"`` / ``"NHWC"``)."""

    _ranks = (4,)
    _formats = ("NCHW", "NHWC")


class InstanceNorm3D(_InstanceNormPaddle):
    """Paddle's instance norm of ``[N, C, D, H, W]`` inputs (``"NCDHW"`` / ``"NDHWC"``)."""

    _ranks = (5,)
    _formats = ("NCDHW", "NDHWC")


from .norm_rms import RMSNorm as RMSNorm  # noqa: E402  (moved out: this file was at 600 lines)

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "BatchNorm1D",
    "BatchNorm2D",
    "BatchNorm3D",
    "BatchNorm",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "InstanceNorm1D",
    "InstanceNorm2D",
    "InstanceNorm3D",
    "RMSNorm",
]
