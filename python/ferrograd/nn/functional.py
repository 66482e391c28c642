"""``ferrograd.nn.functional`` (``F``): stateless layers, activations and losses.

Every function is built from differentiable tensor ops, so gradients of any order flow
through it. Argument names follow PyTorch, with Paddle's spellings accepted where they
differ (``axis`` for ``dim``, ``label`` for ``target``, ``epsilon`` for ``eps``).

Layout note: ``linear(x, weight, bias)`` follows the caller's dialect
(docs/dialects.md): PyTorch code (and ferrograd's own modules) pass ``weight`` as
``[out_features, in_features]`` (``x @ weight.T + b``), Paddle code as ``[in_features,
out_features]`` (``x @ weight + b``).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .. import _core
from .._core import _caller_dialect  # (the rule in Rust)
from .._memory_format import inverse, memory_order
from ._inplace import run_inplace

Tensor = _core.Tensor

# dtypes the fused Rust ops (layer_norm, losses, dropout, linear) compute in; others compose
_FUSED_DTYPES = (_core.float32, _core.float64)

# Activations: the Tensor methods themselves (no extra Python frame).
# BEGIN generated: unary activations (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
tanh = Tensor.tanh
sigmoid = Tensor.sigmoid
_relu_method = Tensor.relu
_mish_method = Tensor.mish
swish = Tensor.silu
softsign = Tensor.softsign
tanhshrink = Tensor.tanhshrink
log_sigmoid = Tensor.log_sigmoid
logsigmoid = Tensor.log_sigmoid
# END generated: unary activations

# relu and mish also take torch's ``inplace`` (see _inplace.py): thin functions over the
# table's methods (bound above by the generator), which stay the kernels (Paddle's second
# positional is ``name``).


def relu(x: Tensor, inplace: Any = False, name: Optional[str] = None) -> Tensor:
    """``max(x, 0)``; ``inplace=True`` writes the result into ``x`` and returns ``x``."""
    if inplace is True:
        return run_inplace(x, _relu_method, "relu")
    return _relu_method(x)


def mish(x: Tensor, inplace: Any = False, name: Optional[str] = None) -> Tensor:
    """``x * tanh(softplus(x))``; ``inplace=True`` writes the result into ``x``."""
    if inplace is True:
        return run_inplace(x, _mish_method, "mish")
    return _mish_method(x)


# the registry's check (tests/python/test_op_registry.py) follows these to the table's method
relu._table_method = _relu_method  # type: ignore[attr-defined]
mish._table_method = _mish_method  # type: ignore[attr-defined]


def gelu(x: Tensor, approximate: Union[bool, str] = "none", name: Optional[str] = None) -> Tensor:
    """GELU: ``x * Phi(x)`` exactly, or with ``approximate="tanh"`` (Paddle:
    ``approximate=True``) the tanh approximation."""
    if approximate in (False, "none", None):
        return x.gelu()
    if approximate in (True, "tanh"):
        return x.gelu_tanh()  # one op, the same values as the composed formula
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def _axis(dim: Optional[int], axis: Optional[int], default: int) -> int:
    if dim is not None and axis is not None and dim != axis:
        raise TypeError(f"pass one of dim ({dim}) and axis ({axis}), not both")
    return default if dim is None and axis is None else (dim if dim is not None else axis)  # type: ignore[return-value]


def softmax(
    x: Tensor,
    dim: Optional[int] = None,
    dtype: Any = None,
    name: Optional[str] = None,
    *,
    axis: Optional[int] = None,
) -> Tensor:
    """Softmax along ``dim``/``axis`` (default: the last)."""
    return x.softmax(_axis(dim, axis, -1), dtype)


def log_softmax(
    x: Tensor,
    dim: Optional[int] = None,
    dtype: Any = None,
    name: Optional[str] = None,
    *,
    axis: Optional[int] = None,
) -> Tensor:
    """Log-softmax along ``dim``/``axis`` (default: the last)."""
    return x.log_softmax(_axis(dim, axis, -1), dtype)


def linear(
    x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, name: Optional[str] = None
) -> Tensor:
    """A fully connected layer's function. PyTorch code (and ferrograd's own modules):
    ``x @ weight.T + bias`` with ``weight`` ``[out_features, in_features]``; Paddle code
    (a module that imported ferrograd as ``paddle``): ``x @ weight + bias`` with
    ``weight`` ``[in_features, out_features]``, as each peer's ``F.linear`` does."""
    return _linear_in_layout(x, weight, bias, _caller_dialect(2) == "paddle")


def _linear_in_layout(x: Tensor, weight: Tensor, bias: Optional[Tensor], in_out: bool) -> Tensor:
    """``x @ weight + bias`` (``in_out``: weight ``[in, out]``, Paddle's layout) or
    ``x @ weight.T + bias`` (weight ``[out, in]``, PyTorch's)."""
    if isinstance(weight, Tensor) and weight.ndim == 1:
        out = x.matmul(weight)  # PyTorch: a 1-D weight is one output feature, dropped
        return out if bias is None else out + bias
    try:
        if isinstance(x, Tensor) and isinstance(weight, Tensor):
            if bias is None or isinstance(bias, Tensor):
                return _core._linear(x, weight, bias, in_out)  # one op and graph node
        out = x.matmul(weight) if in_out else x.matmul(weight, False, True)
    except ValueError as e:
        feat = 0 if in_out else -1
        if x.ndim == 0 or weight.ndim != 2 or x.shape[-1] == weight.shape[feat]:
            raise
        layout = (
            "[in_features, out_features] (Paddle's layout, used in Paddle code)"
            if in_out
            else "[out_features, in_features] (PyTorch's layout)"
        )
        raise ValueError(
            f"linear: the input has {x.shape[-1]} features (shape {list(x.shape)}) but the "
            f"weight {layout} = {list(weight.shape)} expects {weight.shape[feat]}"
        ) from e
    return out if bias is None else out + bias


def dropout(
    x: Tensor,
    p: float = 0.5,
    training: bool = True,
    inplace: bool = False,
    axis: Any = None,
    mode: str = "upscale_in_train",
    name: Optional[str] = None,
) -> Tensor:
    """Zeroes each element with probability ``p`` and scales the rest by ``1/(1-p)`` in
    training; the identity otherwise. Draws from ferrograd's generator (``seed``).
    Paddle's ``axis=``: one mask value per index of those dims, shared along the others."""
    if not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be a probability in [0, 1], got {p!r}")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(
            f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}"
        )
    if training is None or isinstance(training, (list, tuple)) or type(training) is int:
        raise TypeError(
            f"dropout: training must be a bool, got {training!r}; the positional order is "
            "(x, p, training, inplace) (PyTorch's): pass Paddle's axis by keyword (axis=...)"
        )
    if inplace is True:
        return run_inplace(x, lambda v: dropout(v, p, training, False, axis, mode), "dropout")
    if axis is not None:
        from .fn_dropout import dropout_axes

        return dropout_axes(x, float(p), axis, bool(training), mode)
    if not training:
        return x * (1.0 - p) if mode == "downscale_in_infer" and p > 0 else x
    if p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    order = memory_order(x) if isinstance(x, Tensor) else None
    if order is None and isinstance(x, Tensor) and x.dtype in _FUSED_DTYPES:
        # one op; its mask is drawn as `rand(x.shape) >= p` below draws it
        return _core._dropout(x, float(p), mode == "upscale_in_train")
    keep = (_core.rand(list(x.shape), dtype=x.dtype) >= p).astype(x.dtype)
    if mode == "upscale_in_train":
        keep = keep * (1.0 / (1.0 - p))
    if order is not None:
        # the same row-major draws, multiplied in x's memory order and permuted back: the
        # result and x's gradient keep x's layout (channels_last ...), as PyTorch's do
        return (x.permute(order) * keep.permute(order)).permute(inverse(order))
    return x * keep


def layer_norm(
    x: Tensor,
    normalized_shape: Union[int, Sequence[int]],
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    eps: float = 1e-5,
    name: Optional[str] = None,
    *,
    epsilon: Optional[float] = None,
) -> Tensor:
    """Normalises over the last ``len(normalized_shape)`` dims (biased variance), then
    scales by ``weight`` and shifts by ``bias``."""
    if epsilon is not None:
        eps = epsilon
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if list(x.shape[x.ndim - len(shape) :]) != shape or len(shape) > x.ndim:
        raise ValueError(
            f"layer_norm: normalized_shape {shape} must match the last dims of the input, "
            f"whose shape is {list(x.shape)}"
        )
    if _fusable(x, weight, bias) and len(shape) > 0 and all(shape):
        return _core._layer_norm(x, len(shape), weight, bias, float(eps))
    half = (_core.float16, _core.bfloat16)
    if (
        isinstance(x, Tensor)
        and x.dtype in half
        and all(p is None or (isinstance(p, Tensor) and p.dtype in half) for p in (weight, bias))
    ):
        # PyTorch normalises float16/bfloat16 in float32 and rounds once (composed in the
        # half dtype, statistics and all, it was off by tens of ulps)
        wide = [None if p is None else p.float() for p in (weight, bias)]
        return layer_norm(x.float(), shape, wide[0], wide[1], eps).astype(x.dtype)
    axes = list(range(x.ndim - len(shape), x.ndim))
    centred = x - x.mean(axes, keepdim=True)
    var = (centred * centred).mean(axes, keepdim=True)
    out = centred * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def _fusable(x: Any, *params: Any) -> bool:
    """Whether the fused Rust op can run: float32/float64 tensors of one dtype, non-empty,
    parameters of the input's dtype (``None`` allowed); otherwise the composition runs."""
    if not isinstance(x, Tensor) or x.dtype not in _FUSED_DTYPES or x.numel() == 0:
        return False
    return all(p is None or (isinstance(p, Tensor) and p.dtype == x.dtype) for p in params)


def _constant_weight(x: Tensor, weight: Optional[Tensor]) -> bool:
    """The fused losses treat ``weight`` as a constant: compose when it needs a gradient."""
    return _fusable(x, weight) and (weight is None or not weight.requires_grad)


# F.embedding and the lookup nn.Embedding calls (fn_embedding.py)
from .fn_embedding import _embedding_lookup as _embedding_lookup  # noqa: E402
from .fn_embedding import embedding as embedding  # noqa: E402

__all__ = [
    # BEGIN generated: unary __all__ (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
    "tanh",
    "sigmoid",
    "relu",
    "mish",
    "swish",
    "softsign",
    "tanhshrink",
    "log_sigmoid",
    "logsigmoid",
    # END generated: unary __all__
    "gelu",
    "softmax",
    "log_softmax",
    "linear",
    "dropout",
    "layer_norm",
    "embedding",
    "nll_loss",
    "cross_entropy",
    "mse_loss",
    "leaky_relu",
    "one_hot",
]


def leaky_relu(
    x: Tensor,
    negative_slope: float = 0.01,
    inplace: bool = False,
    name: Optional[str] = None,
) -> Tensor:
    """``x`` where positive, ``negative_slope * x`` elsewhere (Paddle's and PyTorch's
    argument order: ``leaky_relu(x, 0.2)``)."""
    if not isinstance(negative_slope, (int, float)):
        raise TypeError(
            f"leaky_relu: negative_slope must be a number, got {type(negative_slope).__name__}"
        )
    if inplace is True:
        return run_inplace(x, lambda v: leaky_relu(v, negative_slope), "leaky_relu")
    return _core.where(x > 0, x, x * float(negative_slope))


# attention (fn_attention.py)
from .fn_attention import scaled_dot_product_attention as scaled_dot_product_attention  # noqa: E402
from .fn_mha import multi_head_attention_forward as multi_head_attention_forward  # noqa: E402

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]
# Activations with arguments, class-index / regression / binary / ranking losses and
# normalisation, each family in its own file (they import helpers defined above).
from .fn_activation import celu as celu  # noqa: E402
from .fn_activation import elu as elu  # noqa: E402
from .fn_activation import glu as glu  # noqa: E402
from .fn_activation import hardshrink as hardshrink  # noqa: E402
from .fn_activation import hardsigmoid as hardsigmoid  # noqa: E402
from .fn_activation import hardswish as hardswish  # noqa: E402
from .fn_activation import hardtanh as hardtanh  # noqa: E402
from .fn_activation import prelu as prelu  # noqa: E402
from .fn_activation import relu6 as relu6  # noqa: E402
from .fn_activation import rrelu as rrelu  # noqa: E402
from .fn_activation import selu as selu  # noqa: E402
from .fn_activation import silu as silu  # noqa: E402
from .fn_activation import softplus as softplus  # noqa: E402
from .fn_activation import softshrink as softshrink  # noqa: E402
from .fn_activation import threshold as threshold  # noqa: E402
from .fn_activation import thresholded_relu as thresholded_relu  # noqa: E402
from .fn_class_loss import cross_entropy as cross_entropy  # noqa: E402
from .fn_class_loss import mse_loss as mse_loss  # noqa: E402
from .fn_class_loss import nll_loss as nll_loss  # noqa: E402
from .fn_loss import binary_cross_entropy as binary_cross_entropy  # noqa: E402
from .fn_loss import binary_cross_entropy_with_logits as binary_cross_entropy_with_logits  # noqa: E402
from .fn_loss import cosine_embedding_loss as cosine_embedding_loss  # noqa: E402
from .fn_loss import huber_loss as huber_loss  # noqa: E402
from .fn_loss import kl_div as kl_div  # noqa: E402
from .fn_loss import l1_loss as l1_loss  # noqa: E402
from .fn_loss import margin_ranking_loss as margin_ranking_loss  # noqa: E402
from .fn_loss import smooth_l1_loss as smooth_l1_loss  # noqa: E402
from .fn_loss import soft_margin_loss as soft_margin_loss  # noqa: E402
from .fn_norm import batch_norm as batch_norm  # noqa: E402
from .fn_norm import group_norm as group_norm  # noqa: E402
from .fn_norm import instance_norm as instance_norm  # noqa: E402
from .fn_norm import rms_norm as rms_norm  # noqa: E402

__all__ += [
    "silu",
    "selu",
    "relu6",
    "hardswish",
    "hardsigmoid",
    "elu",
    "celu",
    "softplus",
    "hardtanh",
    "glu",
    "prelu",
    "rrelu",
    "threshold",
    "thresholded_relu",
    "hardshrink",
    "softshrink",
    "l1_loss",
    "huber_loss",
    "smooth_l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "margin_ranking_loss",
    "soft_margin_loss",
    "cosine_embedding_loss",
    "batch_norm",
    "instance_norm",
    "group_norm",
    "rms_norm",
]
# padding and resizing (issue 19; nn/fn_pad.py)
from .fn_pad import interpolate as interpolate  # noqa: E402
from .fn_pad import pad as pad  # noqa: E402
from .fn_pad import upsample as upsample  # noqa: E402

__all__ += ["pad", "interpolate", "upsample"]
# vector helpers (normalize, cosine_similarity, pairwise_distance; see _ops_math.py), and
# pdist (_ops_special_more.py)
from .._ops_math import cosine_similarity as cosine_similarity  # noqa: E402
from .._ops_math import normalize as normalize  # noqa: E402
from .._ops_math import pairwise_distance as pairwise_distance  # noqa: E402
from .._ops_special_more import pdist as pdist  # noqa: E402

__all__ += ["normalize", "cosine_similarity", "pairwise_distance", "pdist"]

# PyTorch / Paddle names ferrograd lacks raise an AttributeError that says so (reached only
# for names this module does not define; see ferrograd/_missing.py).
from .._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)

# convolution and pooling (fn_conv.py, fn_pool.py)
from .fn_conv import conv1d as conv1d  # noqa: E402
from .fn_conv import conv1d_transpose as conv1d_transpose  # noqa: E402
from .fn_conv import conv2d as conv2d  # noqa: E402
from .fn_conv import conv2d_transpose as conv2d_transpose  # noqa: E402
from .fn_conv import conv3d as conv3d  # noqa: E402
from .fn_conv import conv3d_transpose as conv3d_transpose  # noqa: E402
from .fn_conv import conv_transpose1d as conv_transpose1d  # noqa: E402
from .fn_conv import conv_transpose2d as conv_transpose2d  # noqa: E402
from .fn_conv import conv_transpose3d as conv_transpose3d  # noqa: E402
from .fn_conv import fold as fold  # noqa: E402
from .fn_conv import unfold as unfold  # noqa: E402
from .fn_pool import adaptive_avg_pool1d as adaptive_avg_pool1d  # noqa: E402
from .fn_pool import adaptive_avg_pool2d as adaptive_avg_pool2d  # noqa: E402
from .fn_pool import adaptive_avg_pool3d as adaptive_avg_pool3d  # noqa: E402
from .fn_pool import adaptive_max_pool1d as adaptive_max_pool1d  # noqa: E402
from .fn_pool import adaptive_max_pool2d as adaptive_max_pool2d  # noqa: E402
from .fn_pool import adaptive_max_pool3d as adaptive_max_pool3d  # noqa: E402
from .fn_pool import avg_pool1d as avg_pool1d  # noqa: E402
from .fn_pool import avg_pool2d as avg_pool2d  # noqa: E402
from .fn_pool import avg_pool3d as avg_pool3d  # noqa: E402
from .fn_pool import max_pool1d as max_pool1d  # noqa: E402
from .fn_pool import max_pool2d as max_pool2d  # noqa: E402
from .fn_pool import max_pool3d as max_pool3d  # noqa: E402
from .fn_pool import max_unpool1d as max_unpool1d  # noqa: E402
from .fn_pool import max_unpool2d as max_unpool2d  # noqa: E402
from .fn_pool import max_unpool3d as max_unpool3d  # noqa: E402

__all__ += [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "conv1d_transpose",
    "conv2d_transpose",
    "conv3d_transpose",
    "unfold",
    "fold",
    "max_pool1d",
    "avg_pool1d",
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "max_unpool1d",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "max_unpool2d",
    "max_pool3d",
    "avg_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "max_unpool3d",
]

# BEGIN static dispatch: activations and softmax given static Variables record into the
# Variable's program (a Tensor runs at once; see ferrograd/_op_functions.py)
from .._op_functions import wrap_names as _wrap_names  # noqa: E402

_STATIC_METHOD = {f: methods[0] for methods, names, *_ in _core._unary_op_table() for f in names}
_wrap_names(
    globals(),
    [*_STATIC_METHOD, "softmax", "log_softmax", "gelu", "softplus"],
    _STATIC_METHOD,
)
# END static dispatch

# issue 17 (drop-in): shuffles, dropout variants, margin / likelihood losses, softmin,
# gumbel_softmax, bilinear, embedding_bag, lp_pool, local_response_norm (one file each
# family: fn_shuffle.py, fn_dropout.py, fn_loss_margin.py, fn_loss_nll.py,
# fn_softmax_variants.py, fn_bilinear.py, fn_embedding_bag.py, fn_lp_pool_lrn.py)
from .fn_bilinear import bilinear as bilinear  # noqa: E402
from .fn_dropout import alpha_dropout as alpha_dropout  # noqa: E402
from .fn_dropout import dropout1d as dropout1d  # noqa: E402
from .fn_dropout import dropout2d as dropout2d  # noqa: E402
from .fn_dropout import dropout3d as dropout3d  # noqa: E402
from .fn_dropout import feature_alpha_dropout as feature_alpha_dropout  # noqa: E402
from .fn_embedding_bag import embedding_bag as embedding_bag  # noqa: E402
from .fn_loss_margin import hinge_embedding_loss as hinge_embedding_loss  # noqa: E402
from .fn_loss_margin import multi_label_soft_margin_loss as multi_label_soft_margin_loss  # noqa: E402
from .fn_loss_margin import multi_margin_loss as multi_margin_loss  # noqa: E402
from .fn_loss_margin import multilabel_soft_margin_loss as multilabel_soft_margin_loss  # noqa: E402
from .fn_loss_margin import triplet_margin_loss as triplet_margin_loss  # noqa: E402
from .fn_loss_margin import (  # noqa: E402
    triplet_margin_with_distance_loss as triplet_margin_with_distance_loss,
)
from .fn_loss_nll import gaussian_nll_loss as gaussian_nll_loss  # noqa: E402
from .fn_loss_nll import poisson_nll_loss as poisson_nll_loss  # noqa: E402
from .fn_lp_pool_lrn import local_response_norm as local_response_norm  # noqa: E402
from .fn_lp_pool_lrn import lp_pool1d as lp_pool1d  # noqa: E402
from .fn_lp_pool_lrn import lp_pool2d as lp_pool2d  # noqa: E402
from .fn_lp_pool_lrn import lp_pool3d as lp_pool3d  # noqa: E402
from .fn_shuffle import channel_shuffle as channel_shuffle  # noqa: E402
from .fn_shuffle import pixel_shuffle as pixel_shuffle  # noqa: E402
from .fn_shuffle import pixel_unshuffle as pixel_unshuffle  # noqa: E402
from .fn_softmax_variants import gumbel_softmax as gumbel_softmax  # noqa: E402
from .fn_softmax_variants import softmin as softmin  # noqa: E402

__all__ += [
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "dropout1d", "dropout2d",
    "dropout3d", "alpha_dropout", "feature_alpha_dropout", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "hinge_embedding_loss", "multi_margin_loss",
    "multilabel_soft_margin_loss", "multi_label_soft_margin_loss", "poisson_nll_loss",
    "gaussian_nll_loss", "softmin", "gumbel_softmax", "bilinear", "embedding_bag",
    "lp_pool1d", "lp_pool2d", "lp_pool3d", "local_response_norm",
]  # fmt: skip

# issue 17 (drop-in): sampling grids (fn_grid_sample.py)
from .fn_grid_sample import affine_grid as affine_grid  # noqa: E402
from .fn_grid_sample import grid_sample as grid_sample  # noqa: E402

__all__ += ["affine_grid", "grid_sample"]
from .fn_ctc import ctc_loss as ctc_loss  # noqa: E402

__all__ += ["ctc_loss"]
from .fn_rnnt import rnnt_loss as rnnt_loss  # noqa: E402

__all__ += ["rnnt_loss"]

# issue 17 (drop-in): torch's deprecated upsample aliases, Paddle's temporal_shift
# (fn_resize_shift.py), multilabel_margin_loss (fn_loss_multilabel.py) and Paddle's extra
# losses (fn_loss_paddle_extra.py)
from .fn_hsigmoid import hsigmoid_loss as hsigmoid_loss  # noqa: E402
from .fn_loss_multilabel import multilabel_margin_loss as multilabel_margin_loss  # noqa: E402
from .fn_loss_paddle_extra import dice_loss as dice_loss  # noqa: E402
from .fn_loss_paddle_extra import label_smooth as label_smooth  # noqa: E402
from .fn_loss_paddle_extra import margin_cross_entropy as margin_cross_entropy  # noqa: E402
from .fn_loss_paddle_extra import npair_loss as npair_loss  # noqa: E402
from .fn_loss_paddle_extra import sigmoid_focal_loss as sigmoid_focal_loss  # noqa: E402
from .fn_loss_paddle_extra import (  # noqa: E402
    softmax_with_cross_entropy as softmax_with_cross_entropy,
)
from .fn_loss_paddle_extra import square_error_cost as square_error_cost  # noqa: E402
from .fn_resize_shift import temporal_shift as temporal_shift  # noqa: E402
from .fn_resize_shift import upsample_bilinear as upsample_bilinear  # noqa: E402
from .fn_resize_shift import upsample_nearest as upsample_nearest  # noqa: E402

__all__ += [
    "upsample_bilinear", "upsample_nearest", "temporal_shift", "multilabel_margin_loss",
    "square_error_cost", "sigmoid_focal_loss", "dice_loss", "npair_loss",
    "margin_cross_entropy", "hsigmoid_loss", "label_smooth",
    "softmax_with_cross_entropy",
]  # fmt: skip
# in-place activations (fn_activation_inplace.py: F.relu_, elu_, ..., Paddle's tanh_, softmax_)
from .fn_activation_inplace import celu_ as celu_  # noqa: E402
from .fn_activation_inplace import elu_ as elu_  # noqa: E402
from .fn_activation_inplace import hardtanh_ as hardtanh_  # noqa: E402
from .fn_activation_inplace import leaky_relu_ as leaky_relu_  # noqa: E402
from .fn_activation_inplace import relu_ as relu_  # noqa: E402
from .fn_activation_inplace import rrelu_ as rrelu_  # noqa: E402
from .fn_activation_inplace import selu_ as selu_  # noqa: E402
from .fn_activation_inplace import softmax_ as softmax_  # noqa: E402
from .fn_activation_inplace import tanh_ as tanh_  # noqa: E402
from .fn_activation_inplace import threshold_ as threshold_  # noqa: E402
from .fn_activation_inplace import thresholded_relu_ as thresholded_relu_  # noqa: E402

__all__ += [
    "relu_", "elu_", "leaky_relu_", "hardtanh_", "threshold_", "selu_", "celu_", "rrelu_",
    "tanh_", "softmax_", "thresholded_relu_",
]  # fmt: skip
from .fn_sequence_mask import diag_embed as diag_embed  # noqa: E402
from .fn_sequence_mask import one_hot as one_hot  # noqa: E402
from .fn_sequence_mask import sequence_mask as sequence_mask  # noqa: E402

__all__ += ["sequence_mask", "diag_embed"]
from .fn_peer_names import *  # noqa: E402,F403  (session 22: *_with_indices, maxout, swiglu, ...)

__all__ += [
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",  # noqa: F405
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",  # noqa: F405
    "adaptive_max_pool3d_with_indices", "maxout", "log_loss", "zeropad2d", "swiglu",  # noqa: F405
    "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",  # noqa: F405
    "fractional_max_pool3d_with_indices",  # noqa: F405
]  # fmt: skip

from .decode import gather_tree as gather_tree  # noqa: E402  (Paddle's beam-search back-trace)

__all__ += ["gather_tree"]

from .._out_arg import wrap_out_functions as _wrap_out_functions  # noqa: E402

_wrap_out_functions(globals(), __all__)  # PyTorch's out= (see _out_arg.py)
