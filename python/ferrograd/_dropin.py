"""Small public names the peers' code uses that are about the machine rather than the
maths: constants, device queries (ferrograd runs on the CPU only), whole-tensor
equality, Paddle's ``Tensor.gradient()``."""

from __future__ import annotations

import builtins
import itertools
import math
import operator
import weakref
from typing import Any

from . import _core

Tensor = _core.Tensor

__all__ = [
    "inf",
    "nan",
    "pi",
    "e",
    "equal_all",
    "is_compiled_with_cuda",
    "get_cudnn_version",
    "is_compiled_with_rocm",
    "is_compiled_with_xpu",
    "set_device",
    "get_device",
    "device",
    "is_inference_mode_enabled",
    "is_inference",
    "install_tensor_methods",
]

inf = math.inf
nan = math.nan
pi = math.pi
e = math.e

is_inference_mode_enabled = _core.is_inference_mode_enabled
is_inference = _core.is_inference


def _is_inference(self: Tensor) -> bool:
    """``Tensor.is_inference()``: allocated inside ``inference_mode()`` (PyTorch)."""
    return _core.is_inference(self)


def _is_view(self: Tensor) -> bool:
    """``Tensor._is_view()`` (PyTorch): whether the tensor is a view of another one (its
    ``_base``)."""
    return self._base is not None


def equal_all(x: Tensor, y: Tensor, name: Any = None) -> Tensor:
    """Paddle: a bool scalar tensor, True when ``x`` and ``y`` have the same shape and
    equal elements."""
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError(
            f"equal_all expects two Tensors, got {type(x).__name__} and {type(y).__name__}"
        )
    same = list(x.shape) == list(y.shape) and builtins.bool((x == y).all())
    return _core.tensor(same)


def is_compiled_with_cuda() -> builtins.bool:
    """False: ferrograd computes on the CPU only."""
    return False


def is_compiled_with_rocm() -> builtins.bool:
    """False: ferrograd computes on the CPU only."""
    return False


def is_compiled_with_xpu() -> builtins.bool:
    """False: ferrograd computes on the CPU only."""
    return False


def get_cudnn_version() -> None:
    """Paddle: the cuDNN version, ``None`` on a build without CUDA (as Paddle answers)."""
    return None


def _check_cpu(where: str, name: Any) -> str:
    text = str(name).lower() if name is not None else "cpu"
    if text != "cpu" and not text.startswith("cpu:"):
        raise ValueError(
            f"{where}: ferrograd runs on the CPU only, so the device must be 'cpu', got "
            f"{name!r} (check is_compiled_with_cuda() / cuda.is_available() first)"
        )
    return "cpu"


def set_device(device: Any) -> str:
    """Paddle: selects the device. Only ``"cpu"`` exists here; anything else is a
    ValueError (Paddle raises too when it was built without that device)."""
    return _check_cpu("set_device", device)


def get_device() -> str:
    """Paddle: the current device, always ``"cpu"``."""
    return "cpu"


class device:  # noqa: N801  (torch's name)
    """PyTorch's ``torch.device``: only ``device("cpu")`` (or ``"cpu:0"``) exists here."""

    def __init__(self, type: Any = "cpu", index: Any = None) -> None:
        if isinstance(type, device):
            type = type.type
        _check_cpu("device", type)
        self.type: str = "cpu"
        self.index = index

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other: object) -> builtins.bool:
        return isinstance(other, device) or other == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")

    # Paddle's `paddle.device` is a module of functions; the same name here is torch's
    # class, so the functions Paddle code calls on it are its static attributes:
    # paddle.device.set_device("cpu"), paddle.device.get_device(),
    # paddle.device.cuda.device_count(), paddle.device.is_compiled_with_cuda()
    @staticmethod
    def set_device(device: Any) -> str:
        """Paddle's ``paddle.device.set_device``: only ``"cpu"``."""
        return _check_cpu("set_device", device)

    @staticmethod
    def get_device() -> str:
        """Paddle's ``paddle.device.get_device()``: ``"cpu"``."""
        return "cpu"

    @staticmethod
    def is_compiled_with_cuda() -> builtins.bool:
        """False: ferrograd computes on the CPU only."""
        return False

    @staticmethod
    def get_all_device_type() -> list[str]:
        """The device types: ``["cpu"]``."""
        return ["cpu"]

    @staticmethod
    def get_available_device() -> list[str]:
        """The available devices: ``["cpu"]``."""
        return ["cpu"]

    cuda: Any = None  # set to ferrograd.cuda below (no import cycle at class creation)


class CPUPlace:
    """Paddle's ``paddle.CPUPlace()``: the CPU (the only place ferrograd computes on);
    equal to another ``CPUPlace``, to ``"cpu"`` and to a tensor's ``.place``."""

    def __repr__(self) -> str:
        return "Place(cpu)"

    def __eq__(self, other: object) -> builtins.bool:
        return isinstance(other, CPUPlace) or other in ("cpu", "Place(cpu)")

    def __hash__(self) -> int:
        return hash("Place(cpu)")


def CUDAPlace(device_id: Any = 0) -> Any:  # noqa: N802  (Paddle's name)
    """Paddle's GPU place: always a ValueError, ferrograd has no GPU build (check
    ``paddle.is_compiled_with_cuda()`` first, as portable Paddle code does)."""
    raise ValueError(
        f"CUDAPlace({device_id!r}): ferrograd runs on the CPU only; use paddle.CPUPlace() "
        "(check is_compiled_with_cuda() first)"
    )


CUDAPinnedPlace = CUDAPlace


_TENSOR_NAMES = itertools.count()


def _get_name(self: Tensor) -> str:
    """Paddle's ``Tensor.name``: given on first read (``eager_tmp_0``, ``eager_tmp_1``, ...,
    as Paddle 3 names eager tensors) unless assigned; kept by this Python object."""
    n = self.__dict__.get("_fg_name")
    if n is None:
        n = self.__dict__["_fg_name"] = f"eager_tmp_{next(_TENSOR_NAMES)}"
    return n


def _set_name(self: Tensor, value: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"a tensor name must be a str, got {type(value).__name__}")
    self.__dict__["_fg_name"] = value


def _inplace_version(self: Tensor) -> builtins.int:
    """Paddle's ``Tensor.inplace_version``: how many in-place writes the tensor's memory
    has had (PyTorch's ``_version``; detached tensors share it)."""
    return self._version


def _register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> Any:
    """Registers ``hook(tensor)``, run right after a backward pass has accumulated this
    leaf's gradient into ``.grad``; the hook must return None. Returns a handle with
    ``remove()``. The hook gets this very object (a ``Parameter`` stays one and works as a
    dict key, as in PyTorch), held weakly so the hook does not keep it alive."""
    if not callable(hook):
        raise TypeError(
            f"register_post_accumulate_grad_hook: hook must be callable, got {type(hook).__name__}"
        )
    own = weakref.ref(self)

    def call(t: Tensor) -> Any:
        obj = own()
        return hook(t if obj is None else obj)

    return _core_register_post_accumulate_grad_hook(self, call)


def _gradient(self: Tensor) -> Any:
    """Paddle: the gradient as a NumPy array, or None when there is none."""
    g = self.grad
    return None if g is None else g.numpy()


def _grad_ivar(self: Tensor) -> Any:
    """Paddle's private spelling of ``.grad`` (its own tests use it)."""
    return self.grad


def _rebuild_tensor(
    data: Any, dtype: str, requires_grad: builtins.bool, kind: str = "Tensor"
) -> Any:
    """Unpickles a Tensor (see ``_reduce``): values, dtype, ``requires_grad``, and whether it
    was a ``Parameter``."""
    t = _core.tensor(data, dtype=dtype)
    if kind == "Parameter":
        from .nn.parameter import Parameter

        return Parameter(t, requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce(self: Tensor) -> Any:
    """Pickling (``pickle.dumps(tensor)``, multiprocessing) and ``copy``: the values as a
    NumPy array, the dtype and ``requires_grad``, and the attributes set on the tensor
    (its ``__dict__``, which ``copy.deepcopy`` copies deeply), as PyTorch pickles a tensor
    (history and ``.grad`` are not kept; nor is the Paddle name, ``_fg_name``: a copy gets
    a name of its own)."""
    kind = "Parameter" if type(self).__name__ == "Parameter" else "Tensor"
    args = (self.detach().numpy(), self.dtype.name, self.requires_grad, kind)
    state = _pickled_state(self)
    return (_rebuild_tensor, args, state) if state else (_rebuild_tensor, args)


def _pickled_state(self: Tensor) -> dict:
    """The attributes a pickle or copy of ``self`` keeps: its ``__dict__`` less
    ferrograd's own ``_fg_`` entries."""
    return {k: v for k, v in self.__dict__.items() if not k.startswith("_fg_")}


def _itemsize(self: Tensor) -> int:
    """Bytes per element (PyTorch's ``x.itemsize``, the same as ``x.element_size()``)."""
    return self.element_size()


def _nbytes(self: Tensor) -> int:
    """Bytes of the elements (PyTorch's ``x.nbytes``: ``numel() * element_size()``)."""
    return self.numel() * self.element_size()


def install_tensor_methods() -> None:
    """Adds ``Tensor.gradient`` and ``Tensor._grad_ivar``; makes Paddle's
    ``retain_grads`` a no-op on tensors that stop the gradient."""
    # methods added to the native class on purpose (the Paddle drop-in surface)
    # (the stub lists them as Tensor methods, since they are there after import)
    Tensor.gradient = _gradient  # type: ignore[method-assign]  # installed here
    Tensor._grad_ivar = _grad_ivar  # type: ignore[method-assign]  # installed here
    Tensor.retain_grads = _retain_grads  # type: ignore[method-assign]  # Paddle's no-op variant
    Tensor.is_inference = _is_inference  # type: ignore[method-assign]  # installed here
    Tensor._is_view = _is_view  # type: ignore[method-assign]  # installed here
    Tensor.select = _select  # type: ignore[method-assign]  # installed here
    Tensor.name = property(_get_name, _set_name, doc=_get_name.__doc__)  # type: ignore[method-assign,assignment]  # Paddle's
    Tensor.inplace_version = property(_inplace_version, doc=_inplace_version.__doc__)  # type: ignore[method-assign,assignment]  # Paddle's
    Tensor.itemsize = property(_itemsize, doc=_itemsize.__doc__)  # type: ignore[method-assign,assignment]  # torch's
    Tensor.nbytes = property(_nbytes, doc=_nbytes.__doc__)  # type: ignore[method-assign,assignment]  # torch's
    Tensor.__reduce__ = _reduce  # type: ignore[method-assign,assignment]  # pickling
    global _core_requires_grad_, _core_register_post_accumulate_grad_hook
    _core_register_post_accumulate_grad_hook = Tensor.register_post_accumulate_grad_hook
    Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook  # type: ignore[method-assign]  # wraps the native method
    _core_requires_grad_ = Tensor.requires_grad_
    Tensor.requires_grad_ = _requires_grad_  # type: ignore[method-assign,assignment]  # wraps the native method


_core_requires_grad_: Any = None
_core_register_post_accumulate_grad_hook: Any = None


def _requires_grad_(self: Tensor, requires_grad: builtins.bool = True) -> Tensor:
    """``requires_grad_``, refusing to switch a non-leaf off (PyTorch: use ``detach()``);
    Paddle's ``stop_gradient = True`` on a non-leaf stays allowed."""
    if not requires_grad and not self.is_leaf:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use "
            "a computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        )
    return _core_requires_grad_(self, requires_grad)


def _select(self: Tensor, dim: builtins.int, index: builtins.int) -> Tensor:
    """PyTorch's ``x.select(dim, index)``: the view at ``index`` along ``dim``, without
    that dimension (``x[:, index]`` for ``dim=1``)."""
    n = self.ndim
    d = operator.index(dim)
    if not -n <= d < n:
        raise IndexError(
            f"select: dimension {d} is out of range for a tensor of {n} dimensions "
            f"(expected {-n} to {n - 1})"
        )
    return self[(slice(None),) * (d % n) + (operator.index(index),)]


def _retain_grads(self: Tensor) -> None:
    """Paddle's ``retain_grads()``: keeps this non-leaf's gradient in ``.grad``, as it is
    at this point of the tensor's hooks (registered before it change it, registered after
    do not), and zeros when its node runs without a gradient for it; on a tensor that
    stops the gradient it does nothing, as in Paddle. (PyTorch's ``retain_grad()``
    stores the gradient after all hooks, and raises on a tensor that does not require
    grad, as in PyTorch.)"""
    if self.requires_grad:
        self._retain_grads_in_order()


def create_parameter(
    shape: Any,
    dtype: Any,
    name: Any = None,
    attr: Any = None,
    is_bias: builtins.bool = False,
    default_initializer: Any = None,
) -> Any:
    """Paddle's ``paddle.create_parameter``: in dynamic mode a new ``Parameter`` (zeros for
    a bias, Xavier-uniform otherwise, unless ``default_initializer``; ``attr`` applied
    last); in static mode a parameter of the default program (``static.create_parameter``)."""
    from .static import mode_switch

    if not mode_switch.in_dynamic_mode():
        from .static.program import create_parameter as static_create

        return static_create(shape, dtype, name, attr, is_bias, default_initializer)
    from .nn.module import create_eager_parameter

    p = create_eager_parameter(shape, dtype, attr, is_bias, default_initializer)
    if name is not None:
        p.name = name
    return p


def add_n(inputs: Any, name: Any = None) -> Any:
    """Paddle's ``add_n``: the elementwise sum of a list of tensors of one shape and dtype
    (a single tensor is accepted as a list of one). Differentiable."""
    del name
    items = [inputs] if not isinstance(inputs, (list, tuple)) else list(inputs)
    if not items:
        raise ValueError("add_n: inputs must hold at least one tensor, got an empty list")
    first = items[0]
    for i, t in enumerate(items[1:], 1):
        if list(t.shape) != list(first.shape) or t.dtype != first.dtype:
            raise ValueError(
                f"add_n: every input must have the shape and dtype of inputs[0] "
                f"({list(first.shape)}, {first.dtype}); inputs[{i}] has "
                f"{list(t.shape)}, {t.dtype}"
            )
    out = first.clone() if len(items) == 1 else first + items[1]
    for t in items[2:]:
        out = out + t
    return out


def _attach_cuda_namespace() -> None:
    """``paddle.device.cuda`` -> ``ferrograd.cuda`` (device_count, is_available)."""
    from . import cuda

    device.cuda = cuda
