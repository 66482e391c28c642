"""``static.nn`` layers as Paddle's static mode spells them: ``conv2d``, ``conv3d``,
``conv2d_transpose``, ``conv3d_transpose``, ``batch_norm``, ``layer_norm``,
``group_norm``, ``instance_norm``, ``embedding``.

Each creates its parameters in the default main program (initialised by the default
startup program, as ``fc`` does) and records the ``nn.functional`` function of the
same meaning — a traced op running the eager function (``static/eager_ops.py``), or for
``layer_norm`` the recorded ops of its composition — so values and gradients are the
eager layer's. ``batch_norm``'s moving mean and variance are persistable, non-trainable
variables that each training run updates (the eager function updates them in place, as
Paddle's op writes ``MeanOut`` into ``Mean``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import initializer as _init
from . import program as _program
from .variable import Variable


def _functional() -> Any:
    """``ferrograd.nn.functional`` (imported when first used: it imports this package;
    typed ``Any``: its functions are annotated for Tensors and record given Variables)."""
    from ..nn import functional

    return functional


def _check(x: Any, op: str, ndim: int | None = None) -> Variable:
    if not isinstance(x, Variable):
        raise TypeError(f"static.nn.{op}: input must be a static Variable, got {type(x).__name__}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"static.nn.{op}: expects a {ndim}-D input, got shape {x.shape}")
    return x


def _known(x: Variable, dim: int, op: str) -> int:
    n = x.shape[dim]
    if n < 0:
        raise ValueError(
            f"static.nn.{op}: dimension {dim} of '{x.name}' (shape {x.shape}) must be known when "
            "the program is built (it sizes a parameter)"
        )
    return n


def _attr(attr: Any) -> tuple[str | None, Any]:
    """``(name, initializer)`` of a ``param_attr``/``bias_attr``: a ParamAttr-like object
    (``name``, ``initializer``), an initializer, or None."""
    if attr is None:
        return None, None
    if hasattr(attr, "_static_init"):
        return None, attr
    if getattr(attr, "regularizer", None) is not None:
        raise NotImplementedError(
            "static.nn: ParamAttr(regularizer=...) is not carried into static programs yet; "
            "give the optimizer weight_decay= (per parameter group), or train eagerly"
        )
    return getattr(attr, "name", None), getattr(attr, "initializer", None)


def _param(
    shape: Sequence[int], dtype: Any, attr: Any, default: Any, is_bias: bool = False
) -> Variable:
    name, init = _attr(attr)
    return _program.create_parameter(
        list(shape), dtype, name=name, is_bias=is_bias, default_initializer=init or default
    )


def _moving(name: str | None, shape: list[int], dtype: Any, value: float) -> Variable:
    """A persistable, non-trainable variable (batch_norm's moving statistics)."""
    from .optimizer import _state_var

    main, startup = _program.default_main_program(), _program.default_startup_program()
    if name is None:
        name = f"batch_norm_{_program._param_counter[0]}.moving_{'var' if value else 'mean'}"
        _program._param_counter[0] += 1
    return _state_var(main, startup, name, dtype, shape, value)


def _ntuple(v: Any, n: int) -> list[int]:
    return [int(i) for i in v] if isinstance(v, (list, tuple)) else [int(v)] * n


def _act(y: Variable, act: str | None) -> Variable:
    return y if act is None else getattr(y, act)()


def _channels_last(data_format: str) -> bool:
    return data_format in ("NHWC", "NDHWC", "NLC")


def _conv(
    nd: int,
    op: str,
    x: Any,
    num_filters: int,
    filter_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: Any,
    param_attr: Any,
    bias_attr: Any,
    act: str | None,
    data_format: str,
    transpose: bool = False,
    output_size: Any = None,
) -> Variable:
    F = _functional()

    x = _check(x, op, nd + 2)
    c = _known(x, -1 if _channels_last(data_format) else 1, op)
    g = int(groups or 1)
    if c % g or (not transpose and num_filters % g):
        raise ValueError(
            f"static.nn.{op}: channels ({c} in, {num_filters} out) must be divisible by groups={g}"
        )
    k = _ntuple(filter_size, nd)
    if transpose:
        shape = [c, num_filters // g, *k]
        fn = getattr(F, f"conv{nd}d_transpose")
    else:
        shape = [num_filters, c // g, *k]
        fn = getattr(F, f"conv{nd}d")
    # Paddle's default: N(0, sqrt(2 / (k elements * input channels)))
    std = math.sqrt(2.0 / (math.prod(k) * c))
    w = _param(shape, x.dtype, param_attr, _init.Normal(0.0, std))
    b = None if bias_attr is False else _param([num_filters], x.dtype, bias_attr, None, True)
    kwargs: dict[str, Any] = {
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
        "groups": g,
        "data_format": data_format,
    }
    if transpose and output_size is not None:
        kwargs["output_size"] = output_size
    return _act(fn(x, w, b, **kwargs), act)


def conv2d(
    input: Any,  # noqa: A002
    num_filters: int,
    filter_size: Any,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: Any = None,
    param_attr: Any = None,
    bias_attr: Any = None,
    use_cudnn: bool = True,
    act: str | None = None,
    name: str | None = None,
    data_format: str = "NCHW",
) -> Variable:
    """2-D convolution layer: creates ``weight`` ``[num_filters, C/groups, kh, kw]``
    (Paddle's default N(0, sqrt(2/(kh*kw*C)))) and ``bias`` ``[num_filters]`` (zeros;
    ``bias_attr=False``: none), then ``act(F.conv2d(input, weight, bias, ...))``."""
    return _conv(
        2, "conv2d", input, num_filters, filter_size, stride, padding, dilation, groups,
        param_attr, bias_attr, act, data_format,
    )  # fmt: skip


def conv3d(
    input: Any,  # noqa: A002
    num_filters: int,
    filter_size: Any,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: Any = None,
    param_attr: Any = None,
    bias_attr: Any = None,
    use_cudnn: bool = True,
    act: str | None = None,
    name: str | None = None,
    data_format: str = "NCDHW",
) -> Variable:
    """3-D convolution layer (as ``conv2d``, weight ``[num_filters, C/groups, kd, kh, kw]``)."""
    return _conv(
        3, "conv3d", input, num_filters, filter_size, stride, padding, dilation, groups,
        param_attr, bias_attr, act, data_format,
    )  # fmt: skip


def conv2d_transpose(
    input: Any,  # noqa: A002
    num_filters: int,
    output_size: Any = None,
    filter_size: Any = None,
    padding: Any = 0,
    stride: Any = 1,
    dilation: Any = 1,
    groups: Any = None,
    param_attr: Any = None,
    bias_attr: Any = None,
    use_cudnn: bool = True,
    act: str | None = None,
    name: str | None = None,
    data_format: str = "NCHW",
) -> Variable:
    """2-D transposed convolution layer: weight ``[C, num_filters/groups, kh, kw]``.
    ``filter_size`` is required (ferrograd does not derive it from ``output_size``);
    ``output_size`` picks among the output sizes a stride > 1 leaves open."""
    if filter_size is None:
        raise ValueError("static.nn.conv2d_transpose: give filter_size")
    return _conv(
        2, "conv2d_transpose", input, num_filters, filter_size, stride, padding, dilation,
        groups, param_attr, bias_attr, act, data_format, True, output_size,
    )  # fmt: skip


def conv3d_transpose(
    input: Any,  # noqa: A002
    num_filters: int,
    output_size: Any = None,
    filter_size: Any = None,
    padding: Any = 0,
    stride: Any = 1,
    dilation: Any = 1,
    groups: Any = None,
    param_attr: Any = None,
    bias_attr: Any = None,
    use_cudnn: bool = True,
    act: str | None = None,
    name: str | None = None,
    data_format: str = "NCDHW",
) -> Variable:
    """3-D transposed convolution layer (as ``conv2d_transpose``)."""
    if filter_size is None:
        raise ValueError("static.nn.conv3d_transpose: give filter_size")
    return _conv(
        3, "conv3d_transpose", input, num_filters, filter_size, stride, padding, dilation,
        groups, param_attr, bias_attr, act, data_format, True, output_size,
    )  # fmt: skip


def batch_norm(
    input: Any,  # noqa: A002
    act: str | None = None,
    is_test: bool = False,
    momentum: float = 0.9,
    epsilon: float = 1e-05,
    param_attr: Any = None,
    bias_attr: Any = None,
    data_layout: str = "NCHW",
    in_place: bool = False,
    name: str | None = None,
    moving_mean_name: str | None = None,
    moving_variance_name: str | None = None,
    do_model_average_for_mean_and_var: bool = True,
    use_global_stats: bool = False,
) -> Variable:
    """Batch normalisation layer: ``scale`` (ones) and ``bias`` (zeros) parameters, and
    the moving mean (zeros) and variance (ones), updated by each run with ``is_test=False``
    as ``moving = momentum * moving + (1 - momentum) * batch`` (Paddle's rule)."""
    F = _functional()

    x = _check(input, "batch_norm")
    if x.ndim < 2:
        raise ValueError(f"static.nn.batch_norm: expects at least 2-D input, got {x.shape}")
    c = _known(x, -1 if data_layout in ("NHWC", "NLC", "NDHWC") else 1, "batch_norm")
    scale = _param([c], x.dtype, param_attr, _init.Constant(1.0))
    bias = _param([c], x.dtype, bias_attr, _init.Constant(0.0), True)
    mean = _moving(moving_mean_name, [c], x.dtype, 0.0)
    var = _moving(moving_variance_name, [c], x.dtype, 1.0)
    y = F.batch_norm(
        x,
        mean,
        var,
        scale,
        bias,
        training=not is_test,
        momentum=momentum,
        epsilon=epsilon,
        data_format=data_layout,
        use_global_stats=use_global_stats or None,
    )
    return _act(y, act)


def layer_norm(
    input: Any,  # noqa: A002
    scale: bool = True,
    shift: bool = True,
    begin_norm_axis: int = 1,
    epsilon: float = 1e-05,
    param_attr: Any = None,
    bias_attr: Any = None,
    act: str | None = None,
    name: str | None = None,
) -> Variable:
    """Layer normalisation over the dims from ``begin_norm_axis`` on, with a ``scale``
    (ones) and ``shift`` (zeros) parameter of that (flattened) size, as Paddle."""
    F = _functional()

    x = _check(input, "layer_norm")
    axis = begin_norm_axis + x.ndim if begin_norm_axis < 0 else begin_norm_axis
    if not 0 < axis < x.ndim + (x.ndim == 0):
        raise ValueError(
            f"static.nn.layer_norm: begin_norm_axis {begin_norm_axis} is out of range for shape "
            f"{x.shape}"
        )
    tail = [_known(x, d, "layer_norm") for d in range(axis, x.ndim)]
    n = math.prod(tail)
    w = _param([n], x.dtype, param_attr, _init.Constant(1.0)) if scale else None
    b = _param([n], x.dtype, bias_attr, _init.Constant(0.0), True) if shift else None
    if len(tail) != 1 and sum(d < 0 for d in x.shape[:axis]) > 1:
        raise ValueError(
            "static.nn.layer_norm: at most one dimension before begin_norm_axis may be -1"
        )
    flat = x.reshape([*x.shape[:axis], n]) if len(tail) != 1 else x
    y = F.layer_norm(flat, [n], w, b, epsilon=epsilon)
    if flat is not x:
        y = y.reshape(x.shape)
    return _act(y, act)


def group_norm(
    input: Any,  # noqa: A002
    groups: int,
    epsilon: float = 1e-05,
    param_attr: Any = None,
    bias_attr: Any = None,
    act: str | None = None,
    data_layout: str = "NCHW",
    name: str | None = None,
) -> Variable:
    """Group normalisation: ``groups`` groups of channels, with per-channel ``scale``
    (ones) and ``bias`` (zeros) parameters."""
    F = _functional()

    x = _check(input, "group_norm")
    c = _known(x, -1 if data_layout in ("NHWC",) else 1, "group_norm")
    w = None if param_attr is False else _param([c], x.dtype, param_attr, _init.Constant(1.0))
    b = None if bias_attr is False else _param([c], x.dtype, bias_attr, _init.Constant(0.0), True)
    return _act(F.group_norm(x, groups, w, b, epsilon=epsilon, data_format=data_layout), act)


def instance_norm(
    input: Any,  # noqa: A002
    epsilon: float = 1e-05,
    param_attr: Any = None,
    bias_attr: Any = None,
    name: str | None = None,
) -> Variable:
    """Instance normalisation with per-channel ``scale`` (ones) and ``bias`` (zeros)."""
    F = _functional()

    x = _check(input, "instance_norm")
    c = _known(x, 1, "instance_norm")
    w = None if param_attr is False else _param([c], x.dtype, param_attr, _init.Constant(1.0))
    b = None if bias_attr is False else _param([c], x.dtype, bias_attr, _init.Constant(0.0), True)
    return F.instance_norm(x, weight=w, bias=b, epsilon=epsilon)


def embedding(
    input: Any,  # noqa: A002
    size: Sequence[int],
    is_sparse: bool = False,
    is_distributed: bool = False,
    padding_idx: int | None = None,
    param_attr: Any = None,
    dtype: Any = "float32",
) -> Variable:
    """Embedding lookup: a ``size`` = ``[vocabulary, dim]`` weight (Xavier uniform),
    rows picked by the integer ids in ``input``; ``padding_idx`` rows get no gradient."""
    F = _functional()

    x = _check(input, "embedding")
    if len(size) != 2:
        raise ValueError(f"static.nn.embedding: size must be [vocabulary, dim], got {size}")
    w = _param(list(size), dtype, param_attr, None)
    return F.embedding(x, w, padding_idx=padding_idx)


__all__ = [
    "batch_norm",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "embedding",
    "group_norm",
    "instance_norm",
    "layer_norm",
]
