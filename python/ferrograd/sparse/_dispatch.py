"""Lets the top-level product functions (``torch.mm``, ``torch.matmul``,
``torch.addmm``, ``torch.bmm``, ``paddle.matmul``, ``paddle.mm``) take sparse operands:
each is wrapped once, at import, to hand a call with a sparse operand to the sparse
product and every other call, unchanged, to the dense function."""

from __future__ import annotations

from typing import Any, Callable

from ._base import SparseTensor
from ._products import addmm, matmul, mm


def _wrap(dense: Callable[..., Any], sparse: Callable[..., Any], name: str) -> Callable[..., Any]:
    def op(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, SparseTensor) for a in (*args, *kwargs.values())):
            return sparse(*args, **kwargs)
        return dense(*args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (getattr(dense, "__doc__", None) or name) + (
        "\n\nA sparse operand (``ferrograd.sparse``) is handed to the sparse product."
    )
    op.__wrapped__ = dense  # type: ignore[attr-defined]
    return op


def _sparse_addmm(
    input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1, **_: Any
) -> Any:
    return addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def _sparse_matmul(x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    if args or any(kwargs.get(k) for k in ("transpose_x", "transpose_y")):
        raise NotImplementedError(
            "matmul: transpose_x / transpose_y are not supported with a sparse operand; "
            "transpose it first (x.t())"
        )
    return matmul(x, y)


def install(namespace: dict[str, Any]) -> None:
    """Wraps the product functions of the ``ferrograd`` namespace."""
    sparse_fns = {
        "mm": lambda a, b, *r, **k: mm(a, b),
        "matmul": _sparse_matmul,
        "addmm": _sparse_addmm,
        "bmm": lambda a, b, *r, **k: matmul(a, b),
    }
    for name, fn in sparse_fns.items():
        namespace[name] = _wrap(namespace[name], fn, name)
