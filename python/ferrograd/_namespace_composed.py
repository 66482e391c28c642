"""The top-level functions that are compositions of other ops, re-exported from the
modules that define them, so that ``ferrograd/__init__.py`` stays a short table of
contents. Each name is imported as ``name as name`` (an explicit re-export, which type
checkers and ``mypy.stubtest`` read) and listed in ``__all__``; the package imports this
module with ``*``.
"""

from __future__ import annotations

# paddle.audio (functional, features, backends / load / save / info, datasets; docs/audio.md)
from . import audio as audio

# paddle.incubate.autograd (Jacobian, Hessian, vjp, jvp of a function)
from . import incubate as incubate

# torch.testing, torch.mps / torch.xpu (no such device here), torch.multiprocessing (not
# in __all__: `from ferrograd import *` would shadow the standard library's)
from . import mps as mps
from . import multiprocessing as multiprocessing  # noqa: F401
from . import testing as testing
from . import xpu as xpu

# PyTorch's conj_physical (the conjugate, materialised)
from ._creation_spellings import conj_physical as conj_physical

# dtype queries and process settings (finfo, iinfo, promote_types, ...)
from ._dropin_fixes import index_sample as index_sample
from ._dropin_fixes import put as put
from ._dtype_info import (
    are_deterministic_algorithms_enabled as are_deterministic_algorithms_enabled,
)
from ._dtype_info import can_cast as can_cast
from ._dtype_info import finfo as finfo
from ._dtype_info import get_float32_matmul_precision as get_float32_matmul_precision
from ._dtype_info import get_num_threads as get_num_threads
from ._dtype_info import iinfo as iinfo
from ._dtype_info import promote_types as promote_types
from ._dtype_info import result_type as result_type
from ._dtype_info import set_float32_matmul_precision as set_float32_matmul_precision
from ._dtype_info import set_num_threads as set_num_threads
from ._dtype_info import use_deterministic_algorithms as use_deterministic_algorithms

# fake quantization for quantization-aware training (PyTorch): _fake_quant.py
from ._fake_quant import fake_quantize_per_channel_affine as fake_quantize_per_channel_affine
from ._fake_quant import fake_quantize_per_tensor_affine as fake_quantize_per_tensor_affine

# histogram_bin_edges / histogramdd, the peers' plain samplers (poisson, binomial,
# standard_gamma, log_normal) and Paddle's where_
from ._histogram_more import histogram_bin_edges as histogram_bin_edges
from ._histogram_more import histogramdd as histogramdd

# torch.as_strided_(x, size, stride, storage_offset): x becomes that view of its memory;
# the in-place view ops as functions (transpose_, unsqueeze_, Paddle's reshape_, ...)
from ._inplace_views import as_strided_ as as_strided_
from ._inplace_views import flatten_ as flatten_
from ._inplace_views import reshape_ as reshape_
from ._inplace_views import squeeze_ as squeeze_
from ._inplace_views import t_ as t_
from ._inplace_views import transpose_ as transpose_
from ._inplace_views import unsqueeze_ as unsqueeze_

# PyTorch's legacy typed constructors (FloatTensor, LongTensor, ...)
from ._legacy_types import BFloat16Tensor as BFloat16Tensor
from ._legacy_types import BoolTensor as BoolTensor
from ._legacy_types import ByteTensor as ByteTensor
from ._legacy_types import CharTensor as CharTensor
from ._legacy_types import ComplexDoubleTensor as ComplexDoubleTensor
from ._legacy_types import ComplexFloatTensor as ComplexFloatTensor
from ._legacy_types import DoubleTensor as DoubleTensor
from ._legacy_types import FloatTensor as FloatTensor
from ._legacy_types import HalfTensor as HalfTensor
from ._legacy_types import IntTensor as IntTensor
from ._legacy_types import LongTensor as LongTensor
from ._legacy_types import ShortTensor as ShortTensor

# session 42: the peers' public names from their sources (docs/user-scripts.md):
# PyTorch's ATen spellings of functional ops (torch.layer_norm, torch.embedding, ...),
# Paddle's bitwise_invert, and Tensor methods of both (installed below)
from ._names_s42_paddle import bitwise_invert as bitwise_invert
from ._names_s42_paddle import bitwise_invert_ as bitwise_invert_
from ._names_s42_paddle import install_tensor_methods as _install_s42_paddle
from ._names_s42_tensor import install_tensor_methods as _install_s42_tensor
from ._names_s42_torch import adaptive_avg_pool1d as adaptive_avg_pool1d
from ._names_s42_torch import adaptive_max_pool1d as adaptive_max_pool1d
from ._names_s42_torch import adjoint as adjoint
from ._names_s42_torch import alpha_dropout as alpha_dropout
from ._names_s42_torch import avg_pool1d as avg_pool1d
from ._names_s42_torch import batch_norm as batch_norm
from ._names_s42_torch import bilinear as bilinear
from ._names_s42_torch import binary_cross_entropy_with_logits as binary_cross_entropy_with_logits
from ._names_s42_torch import celu as celu
from ._names_s42_torch import channel_shuffle as channel_shuffle
from ._names_s42_torch import constant_pad_nd as constant_pad_nd
from ._names_s42_torch import cosine_embedding_loss as cosine_embedding_loss
from ._names_s42_torch import dropout as dropout
from ._names_s42_torch import embedding as embedding
from ._names_s42_torch import feature_alpha_dropout as feature_alpha_dropout
from ._names_s42_torch import feature_dropout as feature_dropout
from ._names_s42_torch import group_norm as group_norm
from ._names_s42_torch import hardshrink as hardshrink
from ._names_s42_torch import hinge_embedding_loss as hinge_embedding_loss
from ._names_s42_torch import instance_norm as instance_norm
from ._names_s42_torch import is_same_size as is_same_size
from ._names_s42_torch import is_signed as is_signed
from ._names_s42_torch import kl_div as kl_div
from ._names_s42_torch import layer_norm as layer_norm
from ._names_s42_torch import margin_ranking_loss as margin_ranking_loss
from ._names_s42_torch import max_pool1d as max_pool1d
from ._names_s42_torch import max_pool1d_with_indices as max_pool1d_with_indices
from ._names_s42_torch import max_pool2d as max_pool2d
from ._names_s42_torch import max_pool3d as max_pool3d
from ._names_s42_torch import pixel_shuffle as pixel_shuffle
from ._names_s42_torch import pixel_unshuffle as pixel_unshuffle
from ._names_s42_torch import poisson_nll_loss as poisson_nll_loss
from ._names_s42_torch import prelu as prelu
from ._names_s42_torch import rms_norm as rms_norm
from ._names_s42_torch import rrelu as rrelu
from ._names_s42_torch import rsub as rsub
from ._names_s42_torch import split_with_sizes as split_with_sizes
from ._names_s42_torch import threshold as threshold
from ._names_s42_torch import triplet_margin_loss as triplet_margin_loss

# everyday functions composed of other ops
from ._ops_compose_more import addbmm as addbmm
from ._ops_compose_more import addr as addr
from ._ops_compose_more import bartlett_window as bartlett_window
from ._ops_compose_more import blackman_window as blackman_window
from ._ops_compose_more import combinations as combinations
from ._ops_compose_more import compile as compile
from ._ops_compose_more import diagonal_scatter as diagonal_scatter
from ._ops_compose_more import float_power as float_power
from ._ops_compose_more import fmax as fmax
from ._ops_compose_more import fmin as fmin
from ._ops_compose_more import gcd as gcd
from ._ops_compose_more import hamming_window as hamming_window
from ._ops_compose_more import hann_window as hann_window
from ._ops_compose_more import heaviside as heaviside
from ._ops_compose_more import index_copy as index_copy
from ._ops_compose_more import is_storage as is_storage
from ._ops_compose_more import lcm as lcm
from ._ops_compose_more import ldexp as ldexp
from ._ops_compose_more import narrow_copy as narrow_copy
from ._ops_compose_more import polar as polar
from ._ops_compose_more import renorm as renorm
from ._ops_compose_more import resolve_conj as resolve_conj
from ._ops_compose_more import resolve_neg as resolve_neg
from ._ops_compose_more import select_scatter as select_scatter
from ._ops_compose_more import sinc as sinc
from ._ops_compose_more import slice_scatter as slice_scatter
from ._ops_compose_more import typename as typename
from ._ops_compose_more import unravel_index as unravel_index
from ._ops_gammainc import gammainc as gammainc
from ._ops_gammainc import gammaincc as gammaincc
from ._ops_gammainc import gammaln as gammaln
from ._ops_gammainc import igamma as igamma
from ._ops_gammainc import igammac as igammac

# more elementwise math (addcmul, logit, heaviside, sinc, ...)
from ._ops_more_math import addcdiv as addcdiv
from ._ops_more_math import addcmul as addcmul
from ._ops_more_math import argwhere as argwhere
from ._ops_more_math import broadcast_shapes as broadcast_shapes
from ._ops_more_math import clamp_max as clamp_max
from ._ops_more_math import clamp_min as clamp_min
from ._ops_more_math import diagflat as diagflat
from ._ops_more_math import is_floating_point as is_floating_point
from ._ops_more_math import is_nonzero as is_nonzero
from ._ops_more_math import isin as isin
from ._ops_more_math import isreal as isreal
from ._ops_more_math import logit as logit
from ._ops_more_math import logspace as logspace
from ._ops_more_math import msort as msort
from ._ops_more_math import nextafter as nextafter
from ._ops_more_math import positive as positive
from ._ops_more_math import select as select
from ._ops_more_math import tril_indices as tril_indices
from ._ops_more_math import triu_indices as triu_indices
from ._ops_more_math import vander as vander
from ._ops_more_math import vdot as vdot

# Paddle's functional slicing (paddle.slice / strided_slice / crop / increment)
from ._ops_paddle_slicing import crop as crop
from ._ops_paddle_slicing import increment as increment
from ._ops_paddle_slicing import slice as slice  # noqa: A004
from ._ops_paddle_slicing import strided_slice as strided_slice
from ._ops_shift import bitwise_left_shift as bitwise_left_shift
from ._ops_shift import bitwise_right_shift as bitwise_right_shift
from ._ops_special_more import frexp as frexp
from ._ops_special_more import pdist as pdist
from ._ops_special_more import view_as_complex as view_as_complex
from ._ops_special_more import view_as_real as view_as_real

# stacking and splitting (hstack .. dsplit, tensor_split, atleast_Nd, block_diag, ...)
from ._ops_stack_split import atleast_1d as atleast_1d
from ._ops_stack_split import atleast_2d as atleast_2d
from ._ops_stack_split import atleast_3d as atleast_3d
from ._ops_stack_split import block_diag as block_diag
from ._ops_stack_split import cartesian_prod as cartesian_prod
from ._ops_stack_split import column_stack as column_stack
from ._ops_stack_split import concatenate as concatenate
from ._ops_stack_split import dsplit as dsplit
from ._ops_stack_split import dstack as dstack
from ._ops_stack_split import fliplr as fliplr
from ._ops_stack_split import flipud as flipud
from ._ops_stack_split import hsplit as hsplit
from ._ops_stack_split import hstack as hstack
from ._ops_stack_split import row_stack as row_stack
from ._ops_stack_split import take_along_dim as take_along_dim
from ._ops_stack_split import tensor_split as tensor_split
from ._ops_stack_split import vsplit as vsplit
from ._ops_stack_split import vstack as vstack

# statistics (var_mean, aminmax, cov, corrcoef, quantile, bincount, ...)
from ._ops_stats import aminmax as aminmax
from ._ops_stats import bincount as bincount
from ._ops_stats import corrcoef as corrcoef
from ._ops_stats import cov as cov
from ._ops_stats import cumulative_trapezoid as cumulative_trapezoid
from ._ops_stats import diff as diff
from ._ops_stats import nanquantile as nanquantile
from ._ops_stats import quantile as quantile
from ._ops_stats import std_mean as std_mean
from ._ops_stats import trapezoid as trapezoid
from ._ops_stats import trapz as trapz
from ._ops_stats import var_mean as var_mean

# a view of the memory with any sizes and strides (both dialects)
from ._ops_strided import as_strided as as_strided

# Paddle names its docstring examples call (session 41): _paddle_docex_names.py
from ._paddle_docex_names import as_complex as as_complex
from ._paddle_docex_names import as_real as as_real
from ._paddle_docex_names import eigvalsh as eigvalsh
from ._paddle_docex_names import floor_mod as floor_mod
from ._paddle_docex_names import is_empty as is_empty
from ._paddle_docex_names import reduce_as as reduce_as
from ._random_counts import binomial as binomial
from ._random_counts import log_normal as log_normal
from ._random_counts import poisson as poisson
from ._random_counts import standard_gamma as standard_gamma
from ._random_counts import where_ as where_

# torch.segment_reduce: reductions over consecutive segments (lengths / offsets)
from ._segment_reduce import segment_reduce as segment_reduce

# the short-time Fourier transform and the Kaiser window (_signal_stft.py, _windows.py)
from ._signal_stft import istft as istft
from ._signal_stft import stft as stft
from ._tensor_extras import assign as assign
from ._tensor_extras import greater as greater
from ._tensor_extras import is_integer as is_integer
from ._tensor_extras import less as less
from ._tensor_peer_names import broadcast_shape as broadcast_shape
from ._tensor_peer_names import cast_ as cast_
from ._tensor_peer_names import multiplex as multiplex
from ._tensor_peer_names import reverse as reverse
from ._tensor_peer_names import stanh as stanh
from ._tensor_peer_names import tolist as tolist
from ._tensor_peer_names import unfold as unfold
from ._tensor_peer_names import vecdot as vecdot
from ._tensor_peer_names import view_as as view_as

# PyTorch creation functions and queries its docstring examples call (session 41)
from ._torch_more_creation import asarray as asarray
from ._torch_more_creation import empty_permuted as empty_permuted
from ._torch_more_creation import empty_strided as empty_strided
from ._torch_more_creation import frombuffer as frombuffer
from ._torch_more_creation import is_conj as is_conj
from ._torch_more_creation import is_neg as is_neg
from ._torch_more_creation import nonzero_static as nonzero_static
from ._torch_more_grad import as_strided_scatter as as_strided_scatter
from ._torch_more_grad import gradient as gradient
from ._windows import kaiser_window as kaiser_window

# the top-level linear-algebra functions (docs/linalg.md; torch's legacy spellings and
# the linalg Tensor methods stay in ferrograd/__init__.py)
from .linalg._cholesky_solve import cholesky_inverse as cholesky_inverse
from .linalg._cholesky_solve import cholesky_solve as cholesky_solve
from .linalg._derived import matrix_power as matrix_power
from .linalg._derived import pinverse as pinverse
from .linalg._einsum import einsum as einsum
from .linalg._factor import cholesky as cholesky
from .linalg._factor import det as det
from .linalg._factor import logdet as logdet
from .linalg._factor import slogdet as slogdet
from .linalg._lowrank import pca_lowrank as pca_lowrank
from .linalg._lowrank import svd_lowrank as svd_lowrank
from .linalg._lu import lu_unpack as lu_unpack
from .linalg._matfn import matrix_exp as matrix_exp
from .linalg._norms import dist as dist
from .linalg._paddle_names import matrix_transpose as matrix_transpose
from .linalg._products import addmm as addmm
from .linalg._products import addmv as addmv
from .linalg._products import baddbmm as baddbmm
from .linalg._products import cdist as cdist
from .linalg._products import chain_matmul as chain_matmul
from .linalg._products import cross as cross
from .linalg._products import ger as ger
from .linalg._products import inner as inner
from .linalg._products import kron as kron
from .linalg._products import mv as mv
from .linalg._products import tensordot as tensordot
from .linalg._toplevel import inverse as inverse
from .linalg._toplevel import svd as svd

# torch.conv1d/2d/3d, torch.conv_transpose1d/2d/3d (the nn.functional forms; nn/fn_conv.py)
from .nn.fn_conv import conv1d as conv1d
from .nn.fn_conv import conv2d as conv2d
from .nn.fn_conv import conv3d as conv3d
from .nn.fn_conv import conv_transpose1d as conv_transpose1d
from .nn.fn_conv import conv_transpose2d as conv_transpose2d
from .nn.fn_conv import conv_transpose3d as conv_transpose3d

_install_s42_tensor()
_install_s42_paddle()

__all__ = [
    "asarray",
    "empty_permuted",
    "empty_strided",
    "frombuffer",
    "is_conj",
    "is_neg",
    "nonzero_static",
    "as_strided_scatter",
    "gradient",
    "as_complex",
    "as_real",
    "eigvalsh",
    "floor_mod",
    "is_empty",
    "reduce_as",
    "mps",
    "testing",
    "xpu",
    "as_strided",
    "as_strided_",
    "index_sample",
    "put",
    "crop",
    "increment",
    "slice",
    "strided_slice",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "cartesian_prod",
    "column_stack",
    "concatenate",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "row_stack",
    "take_along_dim",
    "tensor_split",
    "vsplit",
    "vstack",
    "aminmax",
    "bincount",
    "corrcoef",
    "cov",
    "cumulative_trapezoid",
    "diff",
    "nanquantile",
    "quantile",
    "std_mean",
    "trapezoid",
    "trapz",
    "var_mean",
    "segment_reduce",
    "conj_physical",
    "histogram_bin_edges",
    "histogramdd",
    "binomial",
    "log_normal",
    "poisson",
    "standard_gamma",
    "where_",
    "fake_quantize_per_channel_affine",
    "fake_quantize_per_tensor_affine",
    "addcdiv",
    "addcmul",
    "argwhere",
    "broadcast_shapes",
    "clamp_max",
    "clamp_min",
    "diagflat",
    "is_floating_point",
    "is_nonzero",
    "isin",
    "nextafter",
    "isreal",
    "logit",
    "logspace",
    "msort",
    "positive",
    "select",
    "tril_indices",
    "triu_indices",
    "vander",
    "vdot",
    "addbmm",
    "addr",
    "bartlett_window",
    "blackman_window",
    "combinations",
    "compile",
    "diagonal_scatter",
    "float_power",
    "fmax",
    "fmin",
    "gcd",
    "hamming_window",
    "hann_window",
    "kaiser_window",
    "audio",
    "incubate",
    "stft",
    "istft",
    "heaviside",
    "index_copy",
    "is_storage",
    "lcm",
    "ldexp",
    "narrow_copy",
    "pdist",
    "polar",
    "renorm",
    "frexp",
    "view_as_complex",
    "view_as_real",
    "resolve_conj",
    "resolve_neg",
    "select_scatter",
    "sinc",
    "slice_scatter",
    "typename",
    "unravel_index",
    "are_deterministic_algorithms_enabled",
    "can_cast",
    "finfo",
    "get_float32_matmul_precision",
    "get_num_threads",
    "iinfo",
    "promote_types",
    "result_type",
    "set_float32_matmul_precision",
    "set_num_threads",
    "use_deterministic_algorithms",
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "ComplexDoubleTensor",
    "ComplexFloatTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "cholesky_inverse",
    "cholesky_solve",
    "matrix_power",
    "pinverse",
    "einsum",
    "cholesky",
    "det",
    "logdet",
    "slogdet",
    "dist",
    "addmm",
    "addmv",
    "baddbmm",
    "cdist",
    "chain_matmul",
    "cross",
    "ger",
    "inner",
    "kron",
    "mv",
    "tensordot",
    "inverse",
    "svd",
    "pca_lowrank",
    "svd_lowrank",
    "lu_unpack",
    "matrix_exp",
    "matrix_transpose",
    # small aliases (_tensor_extras.py)
    "assign",
    "greater",
    "is_integer",
    "less",
    # session 22 (_tensor_peer_names.py, _ops_gammainc.py)
    "cast_",
    "multiplex",
    "reverse",
    "stanh",
    "tolist",
    "vecdot",
    "gammainc",
    "gammaincc",
    "gammaln",
    "igamma",
    "igammac",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "view_as",
    "broadcast_shape",
    "unfold",
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
    "bitwise_invert",
    "bitwise_invert_",
    # in-place view ops (_inplace_views.py) and the top-level convolutions (nn/fn_conv.py)
    "squeeze_", "unsqueeze_", "reshape_", "flatten_", "transpose_", "t_",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
]  # fmt: skip
