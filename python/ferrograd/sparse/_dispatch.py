"""Lets the top-level product functions (``torch.mm``, ``torch.matmul``,
``torch.addmm``, ``torch.bmm``, ``paddle.matmul``, ``paddle.mm``) take sparse operands:
each is wrapped once, at import, to hand a call with a sparse operand to the sparse
product and every other call, unchanged, to the dense function."""

from __future__ import annotations

from typing import Any, Callable

from .. import _core
from ._base import SparseTensor
from ._products import addmm, matmul, mm


def _wrap(dense: Callable[..., Any], sparse: Callable[..., Any], name: str) -> Callable[..., Any]:
    # (a closure variable, not a module global: stubtest would read a module-level alias
    # of Tensor as a class of this module)
    tensor_type = _core.Tensor

    def op(*args: Any, **kwargs: Any) -> Any:
        # the common call, dense operands given positionally, costs one type check each
        # (a loop, not all(...): no generator per call)
        if not kwargs:
            for a in args:
                if a.__class__ is not tensor_type:
                    break
            else:
                return dense(*args)
        if any(isinstance(a, SparseTensor) for a in (*args, *kwargs.values())):
            return sparse(*args, **kwargs)
        return dense(*args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (getattr(dense, "__doc__", None) or name) + (
        "\n\nA sparse operand (``ferrograd.sparse``) is handed to the sparse product."
    )
    # signatures and the API tests look through to the Tensor method the dense function
    # itself wraps; the module is where pickle finds the wrapper again
    op.__wrapped__ = getattr(dense, "__wrapped__", dense)  # type: ignore[attr-defined]
    op.__module__ = "ferrograd"
    return op


def _sparse_addmm(
    input: Any = None,
    mat1: Any = None,
    mat2: Any = None,
    beta: Any = 1,
    alpha: Any = 1,
    *,
    x: Any = None,
    y: Any = None,
    **_: Any,
) -> Any:
    # torch.addmm(input, mat1, mat2, *, beta, alpha) / paddle.addmm(input, x, y, beta, alpha)
    return addmm(
        input, mat1 if mat1 is not None else x, mat2 if mat2 is not None else y, beta, alpha
    )


def _sparse_matmul(x: Any, y: Any = None, *args: Any, other: Any = None, **kwargs: Any) -> Any:
    # torch.matmul(input, other) / paddle.matmul(x, y, transpose_x, transpose_y)
    y = y if y is not None else other
    flags = dict(zip(("transpose_x", "transpose_y"), args))
    flags.update({k: kwargs[k] for k in ("transpose_x", "transpose_y") if k in kwargs})
    if flags.get("transpose_x"):
        x = x.transpose(-2, -1)
    if flags.get("transpose_y"):
        y = y.transpose(-2, -1)
    return matmul(x, y)


def install(namespace: dict[str, Any]) -> None:
    """Wraps the product functions of the ``ferrograd`` namespace."""
    sparse_fns: dict[str, Callable[..., Any]] = {
        "mm": lambda a, b, *r, **k: mm(a, b),
        "matmul": _sparse_matmul,
        "addmm": _sparse_addmm,
        "bmm": lambda a, b, *r, **k: matmul(a, b),
    }
    for name, fn in sparse_fns.items():
        namespace[name] = _wrap(namespace[name], fn, name)
