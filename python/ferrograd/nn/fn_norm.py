"""Normalisation functions of ``nn.functional``: ``batch_norm``, ``instance_norm``,
``group_norm`` and ``rms_norm`` (``layer_norm`` lives in ``functional``).

``batch_norm`` (and ``instance_norm``, which is batch norm over a reshaped input) runs one
fused Rust op for float32/float64 (``_core._batch_norm``: one graph node, the closed-form
backward, second derivatives through the differentiated composition); the composition
below stays the reference and serves the other cases. The rest are compositions of
differentiable tensor ops (mean, subtraction, ``rsqrt``, products), so first and second
derivatives flow through them; the running statistics are updated in place outside the
graph.

Running statistics: ``running = (1 - m) * running + m * batch`` with PyTorch's ``momentum``
``m`` (default 0.1) and the *unbiased* batch variance. Paddle's ``momentum`` is the
fraction kept (default 0.9: ``running = m * running + (1 - m) * batch``) and Paddle stores
the *biased* batch variance. ``F.batch_norm`` / ``F.instance_norm`` use Paddle's meaning
when the call uses one of Paddle's own argument names (``epsilon=``, ``data_format=``,
``use_global_stats=``); otherwise PyTorch's. The layers of each dialect
(``BatchNorm2d`` vs ``BatchNorm2D``) always use their own.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .. import _core
from ..grad_mode import no_grad

Tensor = _core.Tensor

_CHANNEL_LAST = ("NHWC", "NLC", "NDHWC", "NWC")
_CHANNEL_FIRST = ("NCHW", "NCL", "NCDHW", "NC", "NCW")


def _channel_dim(x: Tensor, data_format: Optional[str], what: str) -> int:
    if data_format is None:
        return 1
    fmt = str(data_format).upper()
    if fmt in _CHANNEL_LAST:
        return x.ndim - 1
    if fmt in _CHANNEL_FIRST:
        return 1
    raise ValueError(
        f"{what}: data_format must be one of {_CHANNEL_FIRST + _CHANNEL_LAST}, got {data_format!r}"
    )


def _per_channel(t: Optional[Tensor], c: int, cdim: int, ndim: int, what: str, arg: str) -> Any:
    """``t`` (shape ``[C]``) shaped to broadcast against the input's channel dim."""
    if t is None:
        return None
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {arg} must be a Tensor or None, got {type(t).__name__}")
    if list(t.shape) != [c]:
        raise ValueError(
            f"{what}: {arg} must have shape [{c}] (one per channel), got {list(t.shape)}"
        )
    shape = [1] * ndim
    shape[cdim] = c
    return t.reshape(shape)


def _update_running(
    running: Tensor, batch: Tensor, new_fraction: float, what: str, arg: str
) -> None:
    """``running <- (1 - f) * running + f * batch`` in place, outside the graph."""
    if list(running.shape) != list(batch.shape):
        raise ValueError(
            f"{what}: {arg} must have shape {list(batch.shape)}, got {list(running.shape)}"
        )
    with no_grad():
        new = running * (1.0 - new_fraction) + batch.detach().astype(running.dtype) * new_fraction
        running.copy_(new)


def _fusable(x: Tensor, c: int, *params: Any) -> bool:
    """Whether the fused Rust op takes ``x`` and the per-channel tensors (each None or a
    ``[C]`` tensor of x's dtype that needs no gradient of its own unless it is a
    weight/bias); otherwise the composition runs (and reports bad arguments)."""
    if x.dtype not in (_core.float32, _core.float64) or x.numel() == 0:
        return False
    return all(
        p is None or (isinstance(p, Tensor) and p.dtype == x.dtype and list(p.shape) == [c])
        for p in params
    )


def normalize_batch(
    x: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor],
    bias: Optional[Tensor],
    use_batch_stats: bool,
    new_fraction: float,
    unbiased_running_var: bool,
    eps: float,
    cdim: int,
    what: str,
    single_value_passes: bool = False,
) -> Tensor:
    """The batch-norm core both dialects share: statistics over every dim but ``cdim``
    (from the batch, or the running buffers), then the per-channel affine map.
    One value per channel in training is an error (PyTorch), or with
    ``single_value_passes`` returns the input unchanged (Paddle).
    ``new_fraction`` is the weight of the batch statistics in the running update."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor input, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(
            f"{what}: the input must be [N, C, ...] (at least 2-d), got shape {list(x.shape)}"
        )
    if not x.dtype.is_floating_point:
        raise TypeError(f"{what}: the input must be floating point, got {x.dtype}")
    c = x.shape[cdim]
    if use_batch_stats and x.numel() // max(c, 1) > 1 and _fusable(x, c, weight, bias):
        # one Rust op (closed-form backward); the running update stays outside the graph
        out, mean, var = _core._batch_norm(x, weight, bias, None, None, True, eps, cdim)
        assert mean is not None and var is not None  # always returned with batch statistics
        n = x.numel() // c
        if running_mean is not None:
            _update_running(running_mean, mean, new_fraction, what, "running_mean")
        if running_var is not None:
            batch_var = var * (n / (n - 1)) if unbiased_running_var else var
            _update_running(running_var, batch_var, new_fraction, what, "running_var")
        return out
    if not use_batch_stats and running_mean is not None and running_var is not None:
        rm, rv = running_mean, running_var
        if isinstance(rm, Tensor) and isinstance(rv, Tensor) and rm.dtype != x.dtype:
            rm, rv = rm.astype(x.dtype), rv.astype(x.dtype)
        grads = _core.is_grad_enabled() and any(
            isinstance(t, Tensor) and t.requires_grad for t in (rm, rv)
        )
        if not grads and _fusable(x, c, weight, bias, rm, rv):
            return _core._batch_norm(x, weight, bias, rm, rv, False, eps, cdim)[0]
    axes = [d for d in range(x.ndim) if d != cdim]
    w = _per_channel(weight, c, cdim, x.ndim, what, "weight")
    b = _per_channel(bias, c, cdim, x.ndim, what, "bias")
    if use_batch_stats:
        n = x.numel() // c if c else 0
        if n == 1 and single_value_passes:
            return x
        if n == 1:
            raise ValueError(
                f"{what}: expected more than 1 value per channel when training, got input "
                f"shape {list(x.shape)}"
            )
        if n == 0:  # an empty batch: nothing to normalise, nothing to learn from
            running_mean = running_var = None
        mean = x.mean(axes, keepdim=True)
        centred = x - mean
        var = (centred * centred).mean(axes, keepdim=True)
        # the weight joins the per-channel factor: one full-size product fewer
        factor = (var + eps).rsqrt()
        out = centred * (factor if w is None else factor * w)
        if running_mean is not None:
            _update_running(running_mean, mean.reshape([c]), new_fraction, what, "running_mean")
        if running_var is not None:
            batch_var = var.reshape([c])
            if unbiased_running_var:
                batch_var = batch_var * (n / (n - 1))
            _update_running(running_var, batch_var, new_fraction, what, "running_var")
    else:
        if running_mean is None or running_var is None:
            raise ValueError(
                f"{what}: running_mean and running_var must be given when the running "
                f"statistics are used (evaluation mode / use_global_stats=True)"
            )
        rm = _per_channel(running_mean, c, cdim, x.ndim, what, "running_mean")
        rv = _per_channel(running_var, c, cdim, x.ndim, what, "running_var")
        # a per-channel affine map: scale and shift are computed on [C]-sized tensors
        scale = (rv.astype(x.dtype) + eps).rsqrt()
        if w is not None:
            scale = scale * w
        shift = rm.astype(x.dtype) * scale
        out = x * scale - shift if b is None else x * scale + (b - shift)
        return out
    return out if b is None else out + b


_UNSET: Any = object()


def batch_norm(
    x: Tensor,
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    training: bool = False,
    momentum: Optional[float] = None,
    eps: float = 1e-5,
    data_format: Any = _UNSET,
    use_global_stats: Any = _UNSET,
    name: Optional[str] = None,
    *,
    epsilon: Any = _UNSET,
) -> Tensor:
    """Batch normalisation over every dim but the channel dim (1, or the last with
    Paddle's channel-last ``data_format``).

    In training the batch's mean and (biased) variance normalise the input and the
    running buffers, if given, are updated in place; otherwise the running statistics
    are used. ``momentum`` is PyTorch's batch weight (default 0.1), or — when the call
    uses Paddle's ``epsilon``/``data_format``/``use_global_stats`` — Paddle's keep
    fraction (default 0.9). ``use_global_stats=True`` uses the running statistics even
    in training, ``False`` the batch's even in evaluation.
    """
    paddle_style = any(v is not _UNSET for v in (data_format, use_global_stats, epsilon))
    what = "batch_norm"
    if epsilon is not _UNSET and epsilon is not None:
        eps = epsilon
    fmt = None if data_format is _UNSET else data_format
    cdim = _channel_dim(x, fmt, what) if isinstance(x, Tensor) else 1
    if paddle_style:
        keep = 0.9 if momentum is None else float(momentum)
        new_fraction = 1.0 - keep
    else:
        new_fraction = 0.1 if momentum is None else float(momentum)
    ugs = None if use_global_stats is _UNSET else use_global_stats
    use_batch = (not ugs) if ugs is not None else bool(training)
    if not 0.0 <= new_fraction <= 1.0:
        raise ValueError(f"{what}: momentum must lie in [0, 1], got {momentum}")
    # running statistics are only updated in training with batch statistics
    rm, rv = (running_mean, running_var) if (not use_batch or training) else (None, None)
    return normalize_batch(
        x,
        rm,
        rv,
        weight,
        bias,
        use_batch,
        new_fraction,
        not paddle_style,
        float(eps),
        cdim,
        what,
        single_value_passes=paddle_style,
    )


def instance_norm(
    x: Tensor,
    running_mean: Optional[Tensor] = None,
    running_var: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    use_input_stats: bool = True,
    momentum: Optional[float] = None,
    eps: float = 1e-5,
    data_format: Any = _UNSET,
    name: Optional[str] = None,
    *,
    epsilon: Any = _UNSET,
) -> Tensor:
    """Normalises each (sample, channel) slice over its spatial dims, then applies the
    per-channel ``weight``/``bias``. Running buffers, if given, are updated with the
    mean over the batch of the per-instance statistics (``momentum`` as in
    ``batch_norm``); ``use_input_stats=False`` uses them instead."""
    what = "instance_norm"
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor input, got {type(x).__name__}")
    paddle_style = data_format is not _UNSET or epsilon is not _UNSET
    if epsilon is not _UNSET and epsilon is not None:
        eps = epsilon
    cdim = _channel_dim(x, None if data_format is _UNSET else data_format, what)
    if x.ndim < 3:
        # (as PyTorch's F.instance_norm: an unbatched [C, L] input is the layers' form)
        raise ValueError(
            f"{what}: the input must be [N, C, *spatial] (at least 3-d), got {list(x.shape)}; "
            "for an unbatched [C, *spatial] input use x.unsqueeze(0) (InstanceNorm1d/2d/3d "
            "accept it as it is)"
        )
    if cdim != 1:
        perm = [0, cdim] + [d for d in range(1, x.ndim) if d != cdim]
        inv = [perm.index(d) for d in range(x.ndim)]
        out = instance_norm(
            x.permute(perm),
            running_mean,
            running_var,
            weight,
            bias,
            use_input_stats,
            momentum,
            eps,
            "NCHW" if paddle_style else _UNSET,
        )
        return out.permute(inv)
    n, c = x.shape[0], x.shape[1]
    if paddle_style:
        new_fraction = 1.0 - (0.9 if momentum is None else float(momentum))
    else:
        new_fraction = 0.1 if momentum is None else float(momentum)
    spatial = list(x.shape[2:])
    # one "channel" per (sample, channel) pair: batch norm over the spatial dims
    flat = x.reshape([1, n * c] + spatial)

    def tiled(t: Optional[Tensor], arg: str) -> Optional[Tensor]:
        if t is None:
            return None
        if list(t.shape) != [c]:
            raise ValueError(f"{what}: {arg} must have shape [{c}], got {list(t.shape)}")
        return t.unsqueeze(0).expand([n, c]).reshape([n * c])

    if use_input_stats:
        out = normalize_batch(
            flat, None, None, None, None, True, new_fraction, False, float(eps), 1, what
        )
        if running_mean is not None or running_var is not None:
            axes = list(range(2, x.ndim))
            m = x.mean(axes)  # [N, C]
            centred = x - m.reshape([n, c] + [1] * len(spatial))
            cnt = x.numel() // (n * c) if n * c else 0
            v = (centred * centred).mean(axes)
            if not paddle_style and cnt > 1:
                v = v * (cnt / (cnt - 1))
            if running_mean is not None:
                _update_running(running_mean, m.mean(0), new_fraction, what, "running_mean")
            if running_var is not None:
                _update_running(running_var, v.mean(0), new_fraction, what, "running_var")
    else:
        out = normalize_batch(
            flat,
            tiled(running_mean, "running_mean"),
            tiled(running_var, "running_var"),
            None,
            None,
            False,
            new_fraction,
            False,
            float(eps),
            1,
            what,
        )
    out = out.reshape(list(x.shape))
    shape = [1, c] + [1] * len(spatial)
    if weight is not None:
        out = out * _per_channel(weight, c, 1, x.ndim, what, "weight").reshape(shape)
    if bias is not None:
        out = out + _per_channel(bias, c, 1, x.ndim, what, "bias").reshape(shape)
    return out


def group_norm(
    x: Tensor,
    num_groups: int,
    weight: Any = None,
    bias: Any = None,
    eps: Any = 1e-5,
    data_format: str = "NCHW",
    name: Optional[str] = None,
    *,
    epsilon: Optional[float] = None,
) -> Tensor:
    """Splits the channels into ``num_groups`` groups and normalises each (sample, group)
    over its channels and spatial dims, then applies the per-channel affine map.

    Accepts torch's order ``(x, num_groups, weight, bias, eps)`` and Paddle's
    ``(x, num_groups, epsilon, weight, bias, data_format)``: a number in the third place
    is read as Paddle's ``epsilon``."""
    what = "group_norm"
    if isinstance(weight, (int, float)) and not isinstance(weight, bool):
        # Paddle's positional order: epsilon, weight, bias, data_format
        eps, weight, bias, extra = weight, bias, eps, data_format
        if isinstance(extra, str) and extra != "NCHW":
            data_format = extra
        if not isinstance(bias, Tensor):
            bias = None
    if epsilon is not None:
        eps = epsilon
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor input, got {type(x).__name__}")
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups <= 0:
        raise ValueError(f"{what}: num_groups must be a positive int, got {num_groups!r}")
    cdim = _channel_dim(x, data_format, what)
    if x.ndim < 2:
        raise ValueError(f"{what}: the input must be [N, C, ...], got shape {list(x.shape)}")
    if cdim != 1:
        perm = [0, cdim] + [d for d in range(1, x.ndim) if d != cdim]
        inv = [perm.index(d) for d in range(x.ndim)]
        return group_norm(x.permute(perm), num_groups, weight, bias, eps).permute(inv)
    n, c = x.shape[0], x.shape[1]
    if c % num_groups:
        raise ValueError(f"{what}: the {c} channels cannot be split into {num_groups} equal groups")
    grouped = x.reshape([n, num_groups, -1]) if n * c else x.reshape([n, num_groups, 0])
    mean = grouped.mean([2], keepdim=True)
    centred = grouped - mean
    var = (centred * centred).mean([2], keepdim=True)
    out = (centred * (var + float(eps)).rsqrt()).reshape(list(x.shape))
    if weight is not None:
        out = out * _per_channel(weight, c, 1, x.ndim, what, "weight")
    if bias is not None:
        out = out + _per_channel(bias, c, 1, x.ndim, what, "bias")
    return out


def _finfo_eps(x: Tensor) -> float:
    import numpy as np

    name = str(x.dtype).rsplit(".", 1)[-1]
    try:
        return float(np.finfo(name).eps)
    except (TypeError, ValueError):
        return float(np.finfo("float32").eps)  # bfloat16 and the like


def rms_norm(
    x: Tensor,
    normalized_shape: Union[int, Sequence[int]],
    weight: Optional[Tensor] = None,
    eps: Optional[float] = None,
    name: Optional[str] = None,
    *,
    epsilon: Optional[float] = None,
) -> Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight``, the mean over the trailing
    ``normalized_shape`` dims; ``eps=None`` is the machine epsilon of ``x``'s dtype (torch's
    default)."""
    what = "rms_norm"
    if epsilon is not None:
        eps = epsilon
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor input, got {type(x).__name__}")
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if len(shape) > x.ndim or list(x.shape[x.ndim - len(shape) :]) != shape:
        raise ValueError(
            f"{what}: normalized_shape {shape} must match the last dims of the input, whose "
            f"shape is {list(x.shape)}"
        )
    if not x.dtype.is_floating_point:
        raise TypeError(f"{what}: the input must be floating point, got {x.dtype}")
    e = _finfo_eps(x) if eps is None else float(eps)
    axes = list(range(x.ndim - len(shape), x.ndim))
    if not axes:
        out = x * (x * x + e).rsqrt()
    else:
        out = x * ((x * x).mean(axes, keepdim=True) + e).rsqrt()
    if weight is not None:
        if list(weight.shape) != shape:
            raise ValueError(f"{what}: weight must have shape {shape}, got {list(weight.shape)}")
        out = out * weight
    return out


__all__ = ["batch_norm", "instance_norm", "group_norm", "rms_norm"]
