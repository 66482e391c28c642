"""ferrograd: reverse-mode autograd for Python with a Rust core.

One API, two dialects: Paddle's (``to_tensor``, ``stop_gradient``, ``PyLayer``) and
PyTorch's (``tensor``, ``requires_grad``, ``autograd.Function``). Code written for either
runs with only its import line changed::

    import ferrograd as paddle        # or: import ferrograd as torch
"""

from __future__ import annotations

from . import _core
from ._api import export_functions, install_tensor_aliases
from ._core import (
    Tensor,
    arange,
    bfloat16,
    complex64,
    complex128,
    empty,
    empty_like,
    eye,
    float16,
    float32,
    float64,
    from_numpy,
    full,
    full_like,
    int32,
    int64,
    linspace,
    ones,
    ones_like,
    rand,
    randint,
    randn,
    seed,
    tensor,
    to_tensor,
    zeros,
    zeros_like,
)
from ._core import bool as bool  # noqa: A004  (the dtype, as torch.bool / paddle.bool)
from ._core import dtype as dtype
from ._size import Size
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled

_core._set_size_class(Size)
install_tensor_aliases()
export_functions(globals())

from . import autograd  # noqa: E402  (needs the names above)

grad = autograd.grad
manual_seed = seed

# PyTorch dtype spellings
float = float32  # noqa: A001
double = float64
half = float16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

__version__ = "0.1.0"


def is_tensor(obj: object) -> bool:
    """True when ``obj`` is a ferrograd Tensor."""
    return isinstance(obj, Tensor)


def get_default_dtype() -> dtype:
    """The dtype of floating tensors created without one: float32."""
    return float32


def dtype_from_name(name: str) -> dtype:
    """The dtype object called ``name`` (used by pickling)."""
    return getattr(_core, name)


def in_dynamic_mode() -> bool:
    """True: ferrograd runs eagerly (dynamic graph)."""
    return True


def disable_static() -> None:
    """Paddle compatibility: dynamic mode is the default and only mode here."""
