"""ferrograd: reverse-mode autograd for Python with a Rust core.

One API, two dialects: Paddle's (``to_tensor``, ``stop_gradient``, ``PyLayer``) and
PyTorch's (``tensor``, ``requires_grad``, ``autograd.Function``). Code written for either
runs with only its import line changed::

    import ferrograd as paddle        # or: import ferrograd as torch

Every public name is re-exported explicitly (``from m import x as x``) and listed in
``__all__``, so type checkers see the same namespace as the interpreter. Like NumPy's,
that list holds names that shadow builtins (``bool``, ``int``, ``float``, ``sum``,
``max``, ...): prefer ``import ferrograd as fg`` to ``from ferrograd import *``.
"""

from __future__ import annotations

import builtins
import importlib
import sys

from . import _core, _dialect_aliases
from ._complex_ops import angle as angle
from ._complex_ops import complex as complex  # noqa: A004
from ._complex_ops import conj as conj
from ._complex_ops import imag as imag
from ._complex_ops import is_complex as is_complex
from ._complex_ops import real as real
from ._core import Tensor as Tensor
from ._core import arange as arange
from ._core import bfloat16 as bfloat16
from ._core import bool as bool  # noqa: A004  (the dtype, as torch.bool / paddle.bool)
from ._core import buffer_cache_info as buffer_cache_info
from ._core import complex64 as complex64
from ._core import complex128 as complex128
from ._core import concat as concat
from ._core import dtype as dtype
from ._core import empty_buffer_cache as empty_buffer_cache
from ._core import eye as eye
from ._core import float16 as float16
from ._core import float32 as float32
from ._core import float64 as float64
from ._core import from_dlpack as from_dlpack
from ._core import from_numpy as from_numpy
from ._core import full as full
from ._core import full_like as full_like
from ._core import int8 as int8
from ._core import int16 as int16
from ._core import int32 as int32
from ._core import int64 as int64
from ._core import randint as randint
from ._core import set_buffer_cache_limit as set_buffer_cache_limit
from ._core import stack as stack
from ._core import tensor as tensor
from ._core import to_tensor as to_tensor
from ._core import uint8 as uint8
from ._core import where as where
from ._dialect_aliases import *  # noqa: F403  (the method-backed functions; listed in _dialect_aliases.__all__)
from ._dialect_aliases import install_tensor_aliases
from ._shared_spellings import split as split  # (the dialect rule: _shared_spellings.py)
from ._size import Size as Size
from .grad_mode import enable_grad as enable_grad
from .grad_mode import inference_mode as inference_mode
from .grad_mode import is_grad_enabled as is_grad_enabled
from .grad_mode import no_grad as no_grad
from .grad_mode import set_grad_enabled as set_grad_enabled

_core._set_size_class(Size)
install_tensor_aliases()

from . import autograd as autograd  # noqa: E402  (needs the names above)

# data-parallel training over MPI (mpi4py is imported only when first used)
from . import distributed as distributed  # noqa: E402
from . import fft as fft  # noqa: E402  (torch.fft / paddle.fft)
from . import geometric as geometric  # noqa: E402  (paddle.geometric)
from . import hapi as hapi  # noqa: E402  (paddle.Model, paddle.callbacks)

# data loading (torch.utils.data / paddle.io), metrics and model summaries
from . import io as io  # noqa: E402
from . import metric as metric  # noqa: E402
from . import nn as nn  # noqa: E402
from . import optim as optim  # noqa: E402
from . import optimizer as optimizer  # noqa: E402
from . import profiler as profiler  # noqa: E402  (torch.profiler / paddle.profiler)
from . import regularizer as regularizer  # noqa: E402
from . import signal as signal  # noqa: E402  (torch.signal.windows / paddle.signal)
from . import special as special  # noqa: E402  (torch.special)
from . import text as text  # noqa: E402  (paddle.text: viterbi_decode)
from . import utils as utils  # noqa: E402  (data loading; activation checkpointing)
from . import version as version  # noqa: E402
from ._paddle_grad import grad as grad  # noqa: E402  (paddle.grad)
from .distributed import DataParallel as DataParallel  # noqa: E402
from .hapi import Model as Model  # noqa: E402
from .hapi import callbacks as callbacks  # noqa: E402
from .hapi.flops import flops as flops  # noqa: E402
from .io.batch_reader import batch as batch  # noqa: E402  (paddle.batch)
from .nn.summary import summary as summary  # noqa: E402
from .serialization import load as load  # noqa: E402
from .serialization import save as save  # noqa: E402

# PyTorch dtype spellings (cat = concat is bound with the static dispatch below)
float = float32  # noqa: A001
double = float64
half = float16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128
byte = uint8  # the narrow integers' PyTorch spellings: byte, char, short
char = int8
short = int16

__version__ = version.__version__


def is_tensor(obj: object) -> builtins.bool:
    """True when ``obj`` is a ferrograd Tensor."""
    return isinstance(obj, Tensor)


def dtype_from_name(name: str) -> dtype:
    """The dtype object called ``name`` (used by pickling)."""
    d = getattr(_core, name, None)
    if not isinstance(d, dtype):
        raise ValueError(f"dtype_from_name: {name!r} is not a ferrograd dtype name")
    return d


# drop-in names for the peers' code (device queries, constants, torch.cuda, paddle.tensor)
from . import _dropin  # noqa: E402
from . import amp as amp  # noqa: E402  (autocast, GradScaler, decorate)
from . import backends as backends  # noqa: E402  (torch.backends.cudnn / mps / ...)
from . import cpu as cpu  # noqa: E402  (torch.cpu.amp)
from . import cuda as cuda  # noqa: E402
from . import jit as jit  # noqa: E402  (paddle.jit.to_static runs eagerly)
from ._dropin import CPUPlace as CPUPlace  # noqa: E402
from ._dropin import CUDAPinnedPlace as CUDAPinnedPlace  # noqa: E402
from ._dropin import CUDAPlace as CUDAPlace  # noqa: E402
from ._dropin import add_n as add_n  # noqa: E402
from ._dropin import create_parameter as create_parameter  # noqa: E402
from ._dropin import device as device  # noqa: E402
from ._dropin import e as e  # noqa: E402
from ._dropin import equal_all as equal_all  # noqa: E402
from ._dropin import get_cudnn_version as get_cudnn_version  # noqa: E402
from ._dropin import get_device as get_device  # noqa: E402
from ._dropin import inf as inf  # noqa: E402
from ._dropin import is_compiled_with_cuda as is_compiled_with_cuda  # noqa: E402
from ._dropin import is_compiled_with_rocm as is_compiled_with_rocm  # noqa: E402
from ._dropin import is_compiled_with_xpu as is_compiled_with_xpu  # noqa: E402
from ._dropin import is_inference as is_inference  # noqa: E402
from ._dropin import is_inference_mode_enabled as is_inference_mode_enabled  # noqa: E402
from ._dropin import nan as nan  # noqa: E402
from ._dropin import pi as pi  # noqa: E402
from ._dropin import set_device as set_device  # noqa: E402
from ._errors import AutogradArgumentError as AutogradArgumentError  # noqa: E402
from ._errors import AutogradTypeError as AutogradTypeError  # noqa: E402
from ._errors import AutogradUsageError as AutogradUsageError  # noqa: E402
from ._errors import BackwardNotImplementedError as BackwardNotImplementedError  # noqa: E402
from ._flags import get_flags as get_flags  # noqa: E402  (paddle.get_flags)
from ._flags import set_flags as set_flags  # noqa: E402  (paddle.set_flags)
from .amp import autocast as autocast  # noqa: E402  (torch.autocast)
from .amp import get_autocast_dtype as get_autocast_dtype  # noqa: E402  (torch's)
from .amp import is_autocast_enabled as is_autocast_enabled  # noqa: E402  (torch's)
from .nn.param_attr import ParamAttr as ParamAttr  # noqa: E402

_dropin.install_tensor_methods()
_dropin._attach_cuda_namespace()
# ferrograd.tensor: the creation function and paddle.tensor in one object (_paddle_tensor)
_tensor_pkg = importlib.import_module("._paddle_tensor", __name__)
globals()["tensor"] = sys.modules.setdefault(__name__ + ".tensor", _tensor_pkg)

from . import static as static  # noqa: E402  (static graphs; needs the names above)
from .static.mode_switch import disable_static as disable_static  # noqa: E402
from .static.mode_switch import enable_static as enable_static  # noqa: E402
from .static.mode_switch import in_dynamic_mode as in_dynamic_mode  # noqa: E402

__all__ = [
    # the tensor type, dtypes and shapes
    "Tensor",
    "dtype",
    "Size",
    "bool",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float",
    "double",
    "half",
    "int",
    "long",
    "cfloat",
    "cdouble",
    "uint8",
    "int8",
    "int16",
    "byte",
    "char",
    "short",
    "get_default_dtype",
    "dtype_from_name",
    "is_tensor",
    # complex numbers
    "complex",
    "real",
    "imag",
    "conj",
    "angle",
    "is_complex",
    # creation
    "tensor",
    "to_tensor",
    "from_numpy",
    "as_tensor",
    "from_dlpack",
    "full",
    "full_like",
    "arange",
    "linspace",
    "eye",
    "randint",
    "seed",
    "manual_seed",
    # joining, splitting and selecting
    "concat",
    "cat",
    "stack",
    "split",
    "where",
    # autograd and grad mode
    "autograd",
    "optim",
    "optimizer",
    "profiler",
    "regularizer",
    "special",
    "signal",
    "fft",
    "geometric",
    "hapi",
    "text",
    "Model",
    "callbacks",
    "version",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    # layers and checkpoints
    "nn",
    "save",
    "load",
    # data loading, metrics, summaries
    "io",
    "utils",
    "metric",
    "summary",
    "flops",
    # Paddle mode switches
    "in_dynamic_mode",
    "disable_static",
    "enable_static",
    "static",
    # drop-in names: devices, constants
    "cuda",
    "backends",
    "amp",
    "autocast",
    "get_autocast_dtype",
    "is_autocast_enabled",
    "cpu",
    "jit",
    "device",
    "create_parameter",
    "add_n",
    "CPUPlace",
    "CUDAPlace",
    "CUDAPinnedPlace",
    "set_device",
    "get_device",
    "is_compiled_with_cuda",
    "get_cudnn_version",
    "is_compiled_with_rocm",
    "is_compiled_with_xpu",
    "is_inference",
    "is_inference_mode_enabled",
    "equal_all",
    "ParamAttr",
    "AutogradUsageError",
    "AutogradTypeError",
    "AutogradArgumentError",
    "BackwardNotImplementedError",
    "inf",
    "nan",
    "pi",
    "e",
    # memory
    "set_buffer_cache_limit",
    "empty_buffer_cache",
    "buffer_cache_info",
]
__all__ += _dialect_aliases.__all__

# PyTorch / Paddle names ferrograd lacks raise an AttributeError that says so (reached only
# for names this module does not define; see _missing.py).
from ._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
__all__ += ["distributed", "DataParallel"]

# torch.func and torch.vmap (issue 17; func.py; vmap an honest loop)
from . import func as func  # noqa: E402
from .func import vmap as vmap  # noqa: E402

__all__ += ["func", "vmap"]
# -- scatter / masking / index-put family and shape & layout ops (issue 19; _ops_*.py) --
from . import _ops_index_put, _ops_shape  # noqa: E402
from ._ops_index_put import gather_nd as gather_nd  # noqa: E402
from ._ops_index_put import index_put as index_put  # noqa: E402
from ._ops_index_put import masked_fill as masked_fill  # noqa: E402
from ._ops_index_put import masked_scatter as masked_scatter  # noqa: E402
from ._ops_index_put import scatter_nd as scatter_nd  # noqa: E402
from ._ops_index_put import scatter_nd_add as scatter_nd_add  # noqa: E402
from ._ops_index_put import take as take  # noqa: E402
from ._ops_scatter import index_add as index_add  # noqa: E402
from ._ops_scatter import index_fill as index_fill  # noqa: E402
from ._ops_scatter import index_reduce as index_reduce  # noqa: E402
from ._ops_scatter import put_along_axis as put_along_axis  # noqa: E402
from ._ops_scatter import scatter as scatter  # noqa: E402
from ._ops_scatter import scatter_add as scatter_add  # noqa: E402
from ._ops_scatter import scatter_reduce as scatter_reduce  # noqa: E402
from ._ops_shape import broadcast_tensors as broadcast_tensors  # noqa: E402
from ._ops_shape import diag as diag  # noqa: E402
from ._ops_shape import diag_embed as diag_embed  # noqa: E402
from ._ops_shape import diagonal as diagonal  # noqa: E402
from ._ops_shape import flip as flip  # noqa: E402
from ._ops_shape import meshgrid as meshgrid  # noqa: E402
from ._ops_shape import movedim as movedim  # noqa: E402
from ._ops_shape import narrow as narrow  # noqa: E402
from ._ops_shape import ravel as ravel  # noqa: E402
from ._ops_shape import repeat_interleave as repeat_interleave  # noqa: E402
from ._ops_shape import roll as roll  # noqa: E402
from ._ops_shape import rot90 as rot90  # noqa: E402
from ._ops_shape import swapaxes as swapaxes  # noqa: E402
from ._ops_shape import tile as tile  # noqa: E402
from ._ops_shape import trace as trace  # noqa: E402
from ._ops_shape import tril as tril  # noqa: E402
from ._ops_shape import triu as triu  # noqa: E402
from ._ops_shape import unflatten as unflatten  # noqa: E402
from ._ops_shape import unstack as unstack  # noqa: E402

_ops_index_put.install()
_ops_shape.install()
moveaxis = movedim
swapdims = swapaxes
# in-place variants as module functions (Paddle: paddle.scatter_, paddle.index_add_, ...)
scatter_ = Tensor.scatter_
index_add_ = Tensor.index_add_
index_fill_ = Tensor.index_fill_
index_put_ = Tensor.index_put_
masked_fill_ = Tensor.masked_fill_
masked_scatter_ = Tensor.masked_scatter_
put_along_axis_ = Tensor.put_along_axis_
__all__ += [
    "gather_nd", "index_put", "masked_fill", "masked_scatter", "scatter_nd", "scatter_nd_add",
    "take", "index_add", "index_fill", "index_reduce", "put_along_axis", "scatter", "scatter_add",
    "scatter_reduce", "broadcast_tensors", "diag", "diag_embed", "diagonal", "flip",
    "meshgrid", "movedim", "moveaxis", "narrow", "ravel", "repeat_interleave", "roll", "rot90",
    "swapaxes", "swapdims", "tile", "trace", "tril", "triu", "unflatten", "unstack",
    "scatter_", "index_add_", "index_fill_", "index_put_", "masked_fill_", "masked_scatter_",
    "put_along_axis_",
]  # fmt: skip
# scans, sorting, searching, counting (issue #19; docs/tensor-sort-scan.md)
from . import _sort_scan  # noqa: E402
from ._shared_spellings import histogram as histogram  # noqa: E402  (both dialects)
from ._sort_scan import argsort as argsort  # noqa: E402
from ._sort_scan import bucketize as bucketize  # noqa: E402
from ._sort_scan import cummax as cummax  # noqa: E402
from ._sort_scan import cummin as cummin  # noqa: E402
from ._sort_scan import cumprod as cumprod  # noqa: E402
from ._sort_scan import cumsum as cumsum  # noqa: E402
from ._sort_scan import histc as histc  # noqa: E402
from ._sort_scan import kthvalue as kthvalue  # noqa: E402
from ._sort_scan import logcumsumexp as logcumsumexp  # noqa: E402
from ._sort_scan import median as median  # noqa: E402
from ._sort_scan import mode as mode  # noqa: E402
from ._sort_scan import nanmedian as nanmedian  # noqa: E402
from ._sort_scan import searchsorted as searchsorted  # noqa: E402
from ._sort_scan import sort as sort  # noqa: E402
from ._sort_scan import topk as topk  # noqa: E402
from ._sort_scan import unique as unique  # noqa: E402
from ._sort_scan import unique_consecutive as unique_consecutive  # noqa: E402

_sort_scan.install_tensor_methods()
__all__ += _sort_scan.__all__
# elementwise math (fmod, hypot, logaddexp, xlogy, lerp, clamp/clip with tensor bounds,
# nan_to_num, isclose/allclose), random sampling and Generator objects, conveniences
# (default dtype, print options, Tensor.type/cuda/set_value, shape): see _ops_math.py,
# random_gen.py, _conveniences.py; the compositions, dtype queries and PyTorch's legacy
# typed constructors come through _namespace_composed.py
from . import (  # noqa: E402
    _conveniences,
    _namespace_composed,
    _ops_compose_more,
    _ops_gamma,
    _ops_math,
    _ops_more_math,
    random_gen,
)
from ._conveniences import as_tensor as as_tensor  # noqa: E402
from ._conveniences import get_default_dtype as get_default_dtype  # noqa: E402
from ._conveniences import get_printoptions as get_printoptions  # noqa: E402
from ._conveniences import rank as rank  # noqa: E402
from ._conveniences import set_default_dtype as set_default_dtype  # noqa: E402
from ._conveniences import set_printoptions as set_printoptions  # noqa: E402
from ._conveniences import shape as shape  # noqa: E402
from ._foreach import *  # noqa: E402,F403  (torch._foreach_*: private names, not in __all__)
from ._namespace_composed import *  # noqa: E402,F403  (see that module)

__all__ += _namespace_composed.__all__
# torch.random / paddle.random; not in __all__ (a star import would shadow stdlib random)
from . import random as random  # noqa: E402
from ._ops_gamma import multigammaln as multigammaln  # noqa: E402
from ._ops_gamma import mvlgamma as mvlgamma  # noqa: E402
from ._ops_gamma import polygamma as polygamma  # noqa: E402
from ._ops_math import allclose as allclose  # noqa: E402
from ._ops_math import clamp as clamp  # type: ignore[assignment]  # noqa: E402
from ._ops_math import clip as clip  # type: ignore[assignment]  # noqa: E402
from ._ops_math import cosine_similarity as cosine_similarity  # noqa: E402
from ._ops_math import fmod as fmod  # noqa: E402
from ._ops_math import hypot as hypot  # noqa: E402
from ._ops_math import isclose as isclose  # noqa: E402
from ._ops_math import lerp as lerp  # noqa: E402
from ._ops_math import logaddexp as logaddexp  # noqa: E402
from ._ops_math import logaddexp2 as logaddexp2  # noqa: E402
from ._ops_math import nan_to_num as nan_to_num  # noqa: E402
from ._ops_math import pairwise_distance as pairwise_distance  # noqa: E402
from ._ops_math import xlogy as xlogy  # noqa: E402

# everyday functions composed of other ops, dtype queries, process settings
from .random_gen import Generator as Generator  # noqa: E402
from .random_gen import bernoulli as bernoulli  # noqa: E402
from .random_gen import default_generator as default_generator  # noqa: E402
from .random_gen import get_rng_state as get_rng_state  # noqa: E402
from .random_gen import initial_seed as initial_seed  # noqa: E402
from .random_gen import manual_seed as manual_seed  # noqa: E402
from .random_gen import multinomial as multinomial  # noqa: E402
from .random_gen import normal as normal  # noqa: E402
from .random_gen import rand_like as rand_like  # noqa: E402
from .random_gen import randint_like as randint_like  # noqa: E402
from .random_gen import randn_like as randn_like  # noqa: E402
from .random_gen import randperm as randperm  # noqa: E402
from .random_gen import seed as seed  # noqa: E402
from .random_gen import set_rng_state as set_rng_state  # noqa: E402
from .random_gen import standard_normal as standard_normal  # noqa: E402
from .random_gen import uniform as uniform  # noqa: E402

for _m in (_ops_math, _ops_more_math, _ops_compose_more, _ops_gamma, random_gen, _conveniences):
    _m.install_tensor_methods()
del _m
# in-place view ops (`transpose_`, `unsqueeze_`, Paddle's `reshape_`) and `resize_`
# (the functions are re-exported through _namespace_composed.py)
from . import _gather_sparse, _inplace_views  # noqa: E402

_inplace_views.install_tensor_methods()
gather = _gather_sparse.install_tensor_methods()  # Tensor.gather / gather: sparse_grad=True
from . import _dense_tensor  # noqa: E402

_dense_tensor.install_tensor_methods()  # Paddle's Tensor.get_tensor()
__all__ += _ops_gamma.__all__
__all__ += [
    "fmod",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "lerp",
    "nan_to_num",
    "isclose",
    "allclose",
    "cosine_similarity",  # torch.cosine_similarity (also nn.functional's)
    "pairwise_distance",  # torch.pairwise_distance (also nn.functional's)
    "Generator",
    "default_generator",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "normal",
    "standard_normal",
    "uniform",
    "bernoulli",
    "multinomial",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "set_default_dtype",
    "set_printoptions",
    "get_printoptions",
    "shape",
    "rank",
]
# linear algebra, norms, einsum and the matmul family (docs/linalg.md)
from . import _namespace_linalg  # noqa: E402
from ._namespace_linalg import *  # noqa: E402,F403  (see that module)

__all__ += _namespace_linalg.__all__

# probability distributions: torch.distributions / paddle.distribution (docs/distributions.md)
from . import distribution as distribution  # noqa: E402
from . import distributions as distributions  # noqa: E402

__all__ += ["distributions", "distribution"]

# paddle.vision: model zoo, transforms, datasets (docs/vision.md)
from . import vision as vision  # noqa: E402

__all__ += ["vision"]
# torch._standard_gamma / torch._standard_gamma_grad: Gamma(alpha, 1) draws with the
# implicit reparameterisation gradient (distributions/standard_gamma.py)
# -- module functions that static Variables also accept (they record into the Variable's
# program; a Tensor runs at once). Wrapped here once, at import: enable_static() never
# touches this namespace (see _op_functions.py and docs/static.md).
from ._op_functions import wrap_names as _wrap_names  # noqa: E402
from ._traced_op_names import TENSOR_OPS as _TRACED_OPS  # noqa: E402
from .distributions.standard_gamma import _standard_gamma as _standard_gamma  # noqa: E402
from .distributions.standard_gamma import _standard_gamma_grad as _standard_gamma_grad  # noqa: E402

_wrap_names(
    globals(),
    (
        *("concat", "stack", "split", "where", "clip", "clamp", "swapaxes", "flip", "roll"),
        *("tile", "tril", "triu", "masked_fill", "cumsum", "sort", "argsort", "topk"),
    ),
)
cat = concat
# (s10-static) functions a static program records as traced ops: the eager function runs
# on the values when the program runs (ferrograd/static/eager_ops.py)
_wrap_names(globals(), _TRACED_OPS)
# ... and the top-level spellings of nn.functional ones (torch.conv2d ...) are those objects
# (not the session-42 ATen spellings: torch.embedding / batch_norm / dropout ... take
# other arguments than nn.functional's; _names_s42_torch.py)
from ._names_s42_torch import ATEN_SPELLINGS as _ATEN  # noqa: E402
from ._traced_op_names import FUNCTIONAL_OPS as _TRACED_F  # noqa: E402

globals().update(
    {n: getattr(nn.functional, n) for n in _TRACED_F if n in globals() and n not in _ATEN}
)
# END static dispatch

# sparse tensors: torch.sparse / paddle.sparse, COO and CSR (docs/sparse.md)
from . import _namespace_sparse  # noqa: E402
from ._namespace_sparse import *  # noqa: E402,F403  (see that module)
from .sparse._create import install_tensor_methods as _install_sparse_methods  # noqa: E402
from .sparse._dispatch import install as _install_sparse_dispatch  # noqa: E402

_install_sparse_methods()
_install_sparse_dispatch(globals())
__all__ += _namespace_sparse.__all__
from . import _namespace_anomaly  # noqa: E402  (torch.set_anomaly_enabled, set_warn_always ...)
from ._namespace_anomaly import *  # noqa: E402,F403

__all__ += _namespace_anomaly.__all__
from . import _dropin_fixes  # noqa: E402,F401  (installs its methods when imported)

# in-place elementwise math (`x.sqrt_()`, `x.pow_(2)`, `x.lt_(y)`, ...), installed last so
# that every out-of-place method it writes back exists: _inplace_math.py
importlib.import_module("._inplace_math", __name__).install()
# small Tensor queries and aliases (greater / less, get_device, is_signed ...): _tensor_extras.py
# (its functions are re-exported through _namespace_composed.py)
importlib.import_module("._tensor_extras", __name__).install_tensor_methods()

# linspace(start, end, steps=) and torch.range (not in __all__: a star import keeps the builtin)
from ._creation_spellings import linspace as linspace  # noqa: E402
from ._creation_spellings import range as range  # noqa: E402,A004

# PyTorch's out= on the Python functions that declare it (native ones: OpFunction)
from ._out_arg import wrap_out_functions as _wrap_out_functions  # noqa: E402

_wrap_out_functions(globals(), __all__)
# paddle.zeros / full / rand / ... in static mode record into the program (static/creation.py)
importlib.import_module(".static.creation", __name__).install()
