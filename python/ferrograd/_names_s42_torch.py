"""PyTorch's top-level spellings of functional ops, which session 42's count of
``torch/overrides.py`` ``get_testing_overrides()`` found missing (``torch.layer_norm``,
``torch.dropout``, ``torch.embedding``, ``torch.kl_div`` ...). (The small ``Tensor`` methods
that count found are in ``_names_s42_tensor.py``.)

These are the ATen signatures (``aten/src/ATen/native/native_functions.yaml``), not
``torch.nn.functional``'s: ``torch.embedding(weight, indices, padding_idx=-1, ...)`` takes
the table first, ``torch.batch_norm`` / ``instance_norm`` take ``weight, bias`` before the
running statistics and every argument is required, ``torch.dropout(input, p, train)``
has no defaults, the pools default ``stride=()`` (the kernel size), and the losses take
``reduction`` as ATen's int enum (0 none, 1 mean, 2 sum; ``at::Reduction``). Each one
composes ``nn.functional``'s op, so gradients come for free.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional, Sequence

from . import _core

Tensor = _core.Tensor

# at::Reduction (aten/src/ATen/core/Reduction.h): None = 0, Mean = 1, Sum = 2
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _F() -> Any:
    """``ferrograd.nn.functional`` (imported late: this module loads before ``nn``)."""
    from .nn import functional

    return functional


def _reduction(name: str, reduction: Any) -> str:
    """ATen's int reduction as nn.functional's string; a string is refused as PyTorch's
    argument parser refuses it (``torch.kl_div(x, y, reduction='mean')`` is a TypeError)."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(
            f"{name}(): argument 'reduction' must be int (0: 'none', 1: 'mean', 2: 'sum'), "
            f"not {type(reduction).__name__}; torch.nn.functional.{name} takes the string"
        )
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{name}(): {reduction} is not a valid value for reduction (0, 1 or 2)")
    return _REDUCTIONS[reduction]


def _stride(stride: Any) -> Any:
    """ATen's empty ``stride=()`` means the kernel size (nn.functional's ``None``)."""
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        return None
    return stride


# --- small queries and shape helpers -------------------------------------------------


def adjoint(input: Tensor) -> Tensor:
    """``torch.adjoint(x)``: the conjugate transpose of the last two dimensions (a view)."""
    return input.adjoint()


def is_signed(input: Tensor) -> bool:
    """``torch.is_signed(x)``: whether ``x``'s dtype holds negative values."""
    return bool(input.is_signed())


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """``torch.is_same_size(a, b)``: whether the two tensors have the same shape."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError("is_same_size(): expected two Tensors")
    return tuple(input.shape) == tuple(other.shape)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> Any:
    """``torch.split_with_sizes(x, split_sizes, dim=0)``: pieces of the given sizes."""
    return input.split_with_sizes(split_sizes, dim)


def rsub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    """``torch.rsub(input, other, alpha=1)``: ``other - alpha * input`` (ATen ``rsub``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"rsub(): argument 'input' must be Tensor, not {type(input).__name__}")
    scaled = input if alpha == 1 else input * alpha
    return -scaled + other


# --- activations -----------------------------------------------------------------------


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``torch.threshold(x, threshold, value)``: ``x`` where ``x > threshold``, else ``value``."""
    return _F().threshold(input, threshold, value)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``torch.celu(x, alpha=1.0)``."""
    return _F().celu(input, alpha)


def rrelu(
    input: Tensor,
    lower: float = 0.125,
    upper: float = 1.0 / 3.0,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """``torch.rrelu(x, lower, upper, training=False)``: the fixed slope ``(lower +
    upper) / 2`` unless ``training``."""
    if generator is not None:
        raise TypeError("rrelu(): generator= is not supported; seed with manual_seed instead")
    return _F().rrelu(input, lower, upper, training)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``torch.prelu(x, weight)``: leaky ReLU with a learned slope per channel."""
    return _F().prelu(input, weight)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``torch.hardshrink(x, lambd=0.5)``: ``x`` where ``|x| > lambd``, else 0."""
    return _F().hardshrink(input, lambd)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``torch.pixel_shuffle(x, r)``: ``[*, C*r*r, H, W]`` to ``[*, C, H*r, W*r]``."""
    return _F().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``torch.pixel_unshuffle(x, r)``: the inverse of ``pixel_shuffle``."""
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle(x, groups)``: interleaves the channels of ``groups`` groups."""
    return _F().channel_shuffle(input, groups)


# --- normalization ---------------------------------------------------------------------


def layer_norm(
    input: Any = None,
    normalized_shape: Any = None,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-05,
    cudnn_enable: bool = True,
    *,
    x: Any = None,
    epsilon: Optional[float] = None,
    name: Optional[str] = None,
) -> Tensor:
    """``torch.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
    cudnn_enable=True)``; also Paddle 3's ``paddle.layer_norm(x, normalized_shape, weight,
    bias, epsilon)`` (the same positions)."""
    if x is not None:
        input = x
    if epsilon is not None:
        eps = epsilon
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(
    input: Any = None,
    num_groups: Any = None,
    weight: Any = None,
    bias: Any = None,
    eps: Any = 1e-05,
    cudnn_enabled: bool = True,
    *,
    x: Any = None,
    epsilon: Optional[float] = None,
    data_format: str = "NCHW",
    name: Optional[str] = None,
) -> Tensor:
    """``torch.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
    cudnn_enabled=True)``; also Paddle's ``paddle.group_norm(x, num_groups, epsilon=1e-05,
    weight=None, bias=None, data_format='NCHW')``: a number in the third place is Paddle's
    ``epsilon`` (PyTorch's ``weight`` there is a Tensor or None), and the two after it are
    then its ``weight`` and ``bias``."""
    if x is not None:
        input = x
    if isinstance(weight, (int, float)) and not isinstance(weight, bool):
        # Paddle's positional order: epsilon, weight, bias, data_format
        weight, bias, eps = bias, (eps if isinstance(eps, Tensor) else None), weight
        if isinstance(cudnn_enabled, str):
            data_format = cudnn_enabled
    if epsilon is not None:
        eps = epsilon
    return _F().group_norm(input, num_groups, weight, bias, eps, data_format)


def rms_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Optional[Tensor] = None,
    eps: Optional[float] = None,
) -> Tensor:
    """``torch.rms_norm(input, normalized_shape, weight=None, eps=None)`` (``eps`` None:
    the dtype's machine epsilon, as ``F.rms_norm``)."""
    return _F().rms_norm(input, normalized_shape, weight, eps)


def batch_norm(
    input: Tensor,
    weight: Optional[Tensor],
    bias: Optional[Tensor],
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """``torch.batch_norm(input, weight, bias, running_mean, running_var, training,
    momentum, eps, cudnn_enabled)``: ATen's order (``weight, bias`` first; all required)."""
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input: Tensor,
    weight: Optional[Tensor],
    bias: Optional[Tensor],
    running_mean: Optional[Tensor],
    running_var: Optional[Tensor],
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """``torch.instance_norm(input, weight, bias, running_mean, running_var,
    use_input_stats, momentum, eps, cudnn_enabled)``: ATen's order, all required."""
    return _F().instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


# --- dropout ---------------------------------------------------------------------------


def _check_p(name: str, p: float) -> None:
    """ATen's check (a RuntimeError in PyTorch)."""
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"{name}: dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.dropout(input, p, train)``: elementwise dropout, scaled by ``1 / (1 - p)``."""
    _check_p("dropout", p)
    return _F().dropout(input, p, training=train)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout(input, p, train)``: SELU-preserving dropout."""
    _check_p("alpha_dropout", p)
    return _F().alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout(input, p, train)``: alpha dropout of whole channels."""
    _check_p("feature_alpha_dropout", p)
    return _F().feature_alpha_dropout(input, p, train)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout(input, p, train)``: zeroes whole channels (dimension 1 of
    an input of at least 2 dimensions), scaling the rest by ``1 / (1 - p)``."""
    _check_p("feature_dropout", p)
    if not train or p == 0.0:
        return input
    if input.ndim < 2:
        raise RuntimeError(
            "Feature dropout requires at least 2 dimensions in the input (got "
            f"{input.ndim}); use torch.dropout for elementwise dropout"
        )
    if p == 1.0:
        return input * 0.0
    from . import bernoulli, full

    shape = list(input.shape[:2]) + [1] * (input.ndim - 2)
    keep = bernoulli(full(shape, 1.0 - p, dtype=input.dtype))
    return input * keep / (1.0 - p)


# --- embedding, bilinear, padding, pooling ---------------------------------------------


def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """``torch.embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
    sparse=False)``: ATen's order (the table first); a negative ``padding_idx`` is none."""
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return _F().embedding(
        indices, weight, padding_idx=pad, sparse=sparse, scale_grad_by_freq=scale_grad_by_freq
    )


def bilinear(
    input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None
) -> Tensor:
    """``torch.bilinear(x1, x2, weight, bias=None)``: ``x1^T W x2 + b``."""
    return _F().bilinear(input1, input2, weight, bias)


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    """``torch.constant_pad_nd(x, pad, value=0)``: ``F.pad(x, pad, 'constant', value)``,
    the pad pairs read from the last dimension (PyTorch's order)."""
    return _F().pad(input, list(pad), mode="constant", value=value, pad_from_left_axis=False)


def adaptive_avg_pool1d(
    input: Any = None, output_size: Any = None, *, x: Any = None, name: Optional[str] = None
) -> Tensor:
    """``torch.adaptive_avg_pool1d(input, output_size)`` (also ``paddle.adaptive_avg_pool1d``)."""
    return _F().adaptive_avg_pool1d(input if x is None else x, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> Any:
    """``torch.adaptive_max_pool1d(input, output_size)``: ``(values, indices)`` (ATen
    returns both)."""
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """``torch.avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
    count_include_pad=True)``."""
    return _F().avg_pool1d(
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad
    )


def _max_pool(
    fn: str,
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    indices: bool,
) -> Any:
    """The shared body of the ATen max pools (``stride=()``: the kernel size)."""
    f = getattr(_F(), fn)
    return f(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode, return_indices=indices
    )


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """``torch.max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1,
    ceil_mode=False)``."""
    return _max_pool("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, False)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """``torch.max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1,
    ceil_mode=False)``."""
    return _max_pool("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, False)


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """``torch.max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1,
    ceil_mode=False)``."""
    return _max_pool("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, False)


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Any:
    """``torch.max_pool1d_with_indices(...)``: ``(values, indices)``."""
    return _max_pool("max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, True)


# --- losses (ATen's int reduction) -----------------------------------------------------


def kl_div(
    input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False
) -> Tensor:
    """``torch.kl_div(input, target, reduction=1, *, log_target=False)``: ``mean`` (1) is
    the mean over every element, without ``F.kl_div``'s 'batchmean' warning."""
    red = _reduction("kl_div", reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _F().kl_div(input, target, reduction=red, log_target=log_target)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Optional[Tensor] = None,
    pos_weight: Optional[Tensor] = None,
    reduction: int = 1,
) -> Tensor:
    """``torch.binary_cross_entropy_with_logits(input, target, weight=None,
    pos_weight=None, reduction=1)``: ATen's order (``pos_weight`` before ``reduction``)."""
    red = _reduction("binary_cross_entropy_with_logits", reduction)
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=red, pos_weight=pos_weight
    )


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """``torch.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1)``."""
    red = _reduction("cosine_embedding_loss", reduction)
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=red)


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1
) -> Tensor:
    """``torch.hinge_embedding_loss(input, target, margin=1.0, reduction=1)``."""
    red = _reduction("hinge_embedding_loss", reduction)
    return _F().hinge_embedding_loss(input, target, margin, reduction=red)


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """``torch.margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1)``."""
    red = _reduction("margin_ranking_loss", reduction)
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=red)


def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """``torch.poisson_nll_loss(input, target, log_input, full, eps, reduction)``: every
    argument required, as ATen declares it."""
    red = _reduction("poisson_nll_loss", reduction)
    return _F().poisson_nll_loss(input, target, log_input, full, eps, reduction=red)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-06,
    swap: bool = False,
    reduction: int = 1,
) -> Tensor:
    """``torch.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2,
    eps=1e-06, swap=False, reduction=1)``."""
    red = _reduction("triplet_margin_loss", reduction)
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=red)


__all__ = [
    "adjoint",
    "is_signed",
    "is_same_size",
    "split_with_sizes",
    "rsub",
    "threshold",
    "celu",
    "rrelu",
    "prelu",
    "hardshrink",
    "pixel_shuffle",
    "pixel_unshuffle",
    "channel_shuffle",
    "layer_norm",
    "group_norm",
    "rms_norm",
    "batch_norm",
    "instance_norm",
    "dropout",
    "alpha_dropout",
    "feature_alpha_dropout",
    "feature_dropout",
    "embedding",
    "bilinear",
    "constant_pad_nd",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "avg_pool1d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "kl_div",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
]

# the names above whose ATen signature differs from nn.functional's: ferrograd/__init__.py
# must not replace them with the functional objects (its traced-op table does that for
# torch.conv2d and the like, whose signatures agree)
ATEN_SPELLINGS = frozenset(__all__)
