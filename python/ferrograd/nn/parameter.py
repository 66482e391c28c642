"""``Parameter``: a leaf tensor that a ``Module`` registers as one of its weights."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import _core
from .._dialect import caller_dialect
from .._dropin import _pickled_state
from .._paddle_repr import tensor_paddle_repr
from ..grad_mode import no_grad

Tensor = _core.Tensor
_NAMES = itertools.count()


class Parameter(Tensor):
    """A trainable tensor: assigning one to a ``Module`` attribute registers it.

    ``Parameter(data, requires_grad=True)`` shares a Tensor ``data``'s memory, dtype and
    strides (as PyTorch's, a detached alias: writes to one show in the other; a NumPy
    array, list or number is copied) and requires grad by default — also when created under
    ``no_grad``, as in PyTorch. Paddle's ``trainable`` is the same flag as
    ``requires_grad`` (and ``not stop_gradient``).

    Ops on a Parameter return plain Tensors; only the Parameter itself is a leaf.
    """

    def __new__(cls, data: Any = None, requires_grad: bool = True, *, trainable: Any = None) -> Any:
        if trainable is not None:
            requires_grad = bool(trainable)
        if data is None:
            data = _core.empty(0)
        elif not isinstance(data, Tensor):
            data = _core.tensor(data)
        if requires_grad and not data.dtype.is_floating_point and not data.dtype.is_complex:
            raise TypeError(
                f"Parameter: only floating point and complex tensors can require grad, got "
                f"{data.dtype}; pass a float tensor or requires_grad=False"
            )
        with no_grad():
            self = Tensor.__new__(cls, data, dtype=data.dtype)
        self.requires_grad_(bool(requires_grad))
        return self

    @property
    def trainable(self) -> bool:
        """Paddle's name for ``requires_grad``."""
        return bool(self.requires_grad)

    @trainable.setter
    def trainable(self, flag: bool) -> None:
        # Paddle takes only a bool here: a string such as "1" or "False" is a mistake
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(
                f"trainable must be a bool (True or False), got {type(flag).__name__} {flag!r}"
            )
        self.requires_grad_(bool(flag))

    @property
    def name(self) -> str:
        """Paddle's parameter name: given by ``ParamAttr(name=...)`` or assignment, else
        a unique ``param_<n>`` chosen on first read."""
        n = self.__dict__.get("_fg_name")
        if n is None:
            n = self.__dict__["_fg_name"] = f"param_{next(_NAMES)}"
        return n

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"a parameter name must be a str, got {type(value).__name__}")
        self.__dict__["_fg_name"] = value

    def __repr__(self) -> str:
        # Paddle's EagerParamBase and torch's Parameter both print this header; the
        # tensor below it in the caller's dialect's look
        if caller_dialect(2) == "paddle":
            return "Parameter containing:\n" + tensor_paddle_repr(self)
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> Parameter:
        # PyTorch's: a Parameter over a clone of the values (a Parameter aliases what it
        # is given), registered in the memo; attributes set on it are not copied
        result = Parameter(self.detach().clone(), bool(self.requires_grad))
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        # pickle (and copy.copy): the values as a NumPy array, the dtype by name, the flag,
        # and the attributes set on the parameter, as PyTorch's
        data = self.detach()
        if data.dtype == "bfloat16":
            data = data.astype("float32")
        args = (data.numpy(), self.dtype.name, bool(self.requires_grad))
        state = _pickled_state(self)
        return (_rebuild, args, state) if state else (_rebuild, args)


def _rebuild(values: Any, dtype: str, requires_grad: bool) -> Parameter:
    """Unpickles a Parameter."""
    return Parameter(_core.tensor(values).astype(dtype), requires_grad)


def is_parameter(obj: object) -> bool:
    """True when ``obj`` is a ``Parameter``."""
    return isinstance(obj, Parameter)


class _BufferMeta(type):
    # a Buffer is a plain Tensor marked as one (as PyTorch's): isinstance reads the mark
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and bool(getattr(obj, "_is_buffer", False))


class Buffer(metaclass=_BufferMeta):
    """PyTorch's ``nn.Buffer(data=None, *, persistent=True)``: a tensor that, assigned to
    a ``Module`` attribute, is registered as a buffer (``persistent=False``: left out of
    ``state_dict``). ``Buffer(t)`` is a Tensor sharing ``t``'s values (detached, keeping
    ``requires_grad``), marked so that ``isinstance(b, nn.Buffer)`` is True."""

    persistent: bool

    def __new__(cls, data: Any = None, *, persistent: bool = True) -> Any:
        if data is None:
            data = _core.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Buffer: expected a Tensor, got {type(data).__name__}")
        t = data.detach()
        if data.requires_grad:
            t.requires_grad_(True)
        t.persistent = bool(persistent)
        t._is_buffer = True
        return t
