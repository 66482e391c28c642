"""The names of the functions static programs record as traced ops (the eager
function runs on the values when the program runs; see ``ferrograd/static/eager_ops.py``).

A leaf module (no imports), so that the package and ``ferrograd.nn`` can wrap these
names as dispatching functions at import time without importing ``ferrograd.static``.
"""

from __future__ import annotations

#: ops whose output shape depends on the input values
DATA_DEPENDENT = frozenset(
    {"masked_select", "nonzero", "unique", "unique_consecutive", "repeat_interleave"}
)

#: ``ferrograd.<name>`` functions and ``Variable.<name>`` methods recorded as traced ops
TENSOR_OPS = (
    "einsum",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_add",
    "index_fill",
    "index_put",
    "masked_scatter",
    "scatter_nd",
    "scatter_nd_add",
    "gather_nd",
    "take",
    "put_along_axis",
    "masked_select",
    "nonzero",
    "cumprod",
    "cummax",
    "cummin",
    "logcumsumexp",
    "median",
    "nanmedian",
    "mode",
    "unique",
    "unique_consecutive",
    "kthvalue",
    "diag",
    "diagonal",
    "diag_embed",
    "trace",
    "rot90",
    "repeat_interleave",
    # (session 41, Paddle's API tests: functions composed in Python)
    "quantile",
    "nanquantile",
    "inner",
    # (session 42, Paddle's API tests)
    "histogram",
    "cross",
    "lerp",
    "logit",
    # (session 42 second round, Paddle's API tests)
    "isclose",
    "allclose",
    "diff",
    "bucketize",
    "searchsorted",
    "meshgrid",
    "dist",
)

#: ``ferrograd.nn.functional`` functions recorded as traced ops (no name is also in
#: ``TENSOR_OPS``: the handler receives the bare name)
FUNCTIONAL_OPS = (
    "conv1d",
    "conv2d",
    "conv3d",
    "conv1d_transpose",
    "conv2d_transpose",
    "conv3d_transpose",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "batch_norm",
    "instance_norm",
    "group_norm",
    "dropout",
    "embedding",
    "pad",
    "interpolate",
    # activations whose eager functions are Tensor-only code (nn.ELU & co. in static mode)
    "elu",
    "celu",
    "leaky_relu",
    "hardtanh",
    "hardshrink",
    "softshrink",
    "threshold",
    "thresholded_relu",
    "prelu",
    "rms_norm",
    # losses whose eager functions are Tensor-only code (nn.CrossEntropyLoss in static mode)
    "cross_entropy",
    "nll_loss",
    # sampling grids (fn_grid_sample.py)
    "affine_grid",
    "grid_sample",
)

#: ``TENSOR_OPS`` that are module functions only (no ``Tensor`` method)
FUNCTION_ONLY = frozenset(
    {"einsum", "scatter_nd", "quantile", "nanquantile", "inner", "searchsorted", "meshgrid"}
)


__all__ = ["DATA_DEPENDENT", "FUNCTIONAL_OPS", "FUNCTION_ONLY", "TENSOR_OPS"]
