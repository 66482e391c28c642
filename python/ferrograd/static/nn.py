"""``ferrograd.static.nn``: ``py_func`` (a Python operator whose forward and backward
are NumPy functions), ``fc``, and the layers of ``nn_layers`` (conv, norms, embedding)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import _core
from . import program as _program
from .variable import Variable


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _contains(items: Sequence[Any], v: Any) -> bool:
    return any(i is v for i in items)


def py_func(
    func: Any,
    x: Any,
    out: Any,
    backward_func: Any = None,
    skip_vars_in_backward_input: Any = None,
) -> Any:
    """A Python operator: ``func(*x)`` computes ``out`` when the program runs.

    ``x``: one variable or a list/tuple; ``out``: variables created beforehand (e.g. with
    ``program.current_block().create_var``) whose shapes and dtypes ``func``'s results must
    match. ``func`` receives tensors (readable by NumPy: ``np.array(t)``) and returns NumPy
    arrays or tensors. ``backward_func`` receives (inputs..., outputs..., output grads...)
    minus ``skip_vars_in_backward_input`` and returns one gradient (or None) per input; an
    output without a gradient arrives as ``None``. Without ``backward_func`` no gradient
    flows. In dynamic mode (tensors instead of variables) it runs now and returns new
    tensors, recording a node like a PyLayer. Returns ``out``."""
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    if backward_func is not None and not callable(backward_func):
        raise TypeError(
            f"py_func: backward_func must be callable or None, got {type(backward_func).__name__}"
        )
    xs, outs, skips = _as_list(x), _as_list(out), _as_list(skip_vars_in_backward_input)
    for s in skips:
        if not (_contains(xs, s) or _contains(outs, s)):
            name = getattr(s, "name", None) or repr(s)
            raise ValueError(
                f"py_func: skip_vars_in_backward_input variable '{name}' is not found in the forward inputs "
                "and outputs; only inputs and outputs can be skipped"
            )
    if all(isinstance(v, _core.Tensor) for v in xs + outs) and xs:
        specs = [(f"out_{k}", o.dtype, list(o.shape)) for k, o in enumerate(outs)]
        results = _core._py_func_eager(
            func,
            backward_func,
            xs,
            specs,
            [_contains(skips, v) for v in xs],
            [_contains(skips, v) for v in outs],
        )
        if isinstance(out, (list, tuple)):
            return type(out)(results)
        return results[0] if results else None
    for v in xs + outs:
        if not isinstance(v, Variable):
            raise TypeError(
                f"py_func: x and out must all be static Variables (or all Tensors in dynamic mode), "
                f"got {type(v).__name__}"
            )
    block = (xs + outs)[0].block
    for v in xs + outs:
        if v.block is not block:
            raise ValueError(f"py_func: variable '{v.name}' belongs to another program")
    in_ids, out_ids, skip_ids = [v.id for v in xs], [o.id for o in outs], [s.id for s in skips]
    block.program._core.append_py_func(func, backward_func, in_ids, out_ids, skip_ids)
    block.program._calls.append(  # (static/program_log.py)
        {
            "call": "py_func",
            "func": func,
            "backward_func": backward_func,
            "inputs": in_ids,
            "outputs": out_ids,
            "skip": skip_ids,
        }
    )
    for o in outs:  # (without backward_func, no gradient flows: stop_gradient True)
        block._derived(o, xs if backward_func is not None else [])
    return out


def _attr_kwargs(attr: Any) -> dict[str, Any]:
    """``create_parameter`` keywords for a ``weight_attr``/``bias_attr``: a ParamAttr (or
    a name) goes in as ``attr``, anything else (an initializer, None) as the initializer."""
    from ..nn.param_attr import ParamAttr

    if isinstance(attr, (ParamAttr, str)):
        return {"attr": attr}
    return {"default_initializer": attr}


def fc(
    x: Variable,
    size: int,
    num_flatten_dims: int = 1,
    weight_attr: Any = None,
    bias_attr: Any = None,
    activation: str | None = None,
    name: str | None = None,
) -> Variable:
    """Fully connected layer ``act(x @ W + b)`` over the last dimension of a 2-D ``x``;
    creates ``W`` ([in, size], Xavier uniform) and ``b`` ([size], zeros) as parameters.
    ``weight_attr``/``bias_attr``: a ``ParamAttr``, an initializer or None
    (``bias_attr=False``: no bias)."""
    if not isinstance(x, Variable):
        raise TypeError(f"fc: x must be a static Variable, got {type(x).__name__}")
    if x.ndim != num_flatten_dims + 1 or x.shape[-1] < 0:
        raise ValueError(
            f"fc: expects x with {num_flatten_dims + 1} dims and a known last dim, got {x.shape}"
        )
    w = _program.create_parameter([x.shape[-1], size], x.dtype, **_attr_kwargs(weight_attr))
    y = x @ w
    if bias_attr is not False:
        b = _program.create_parameter([size], x.dtype, is_bias=True, **_attr_kwargs(bias_attr))
        y = y + b
    if activation is not None:
        y = getattr(y, activation)()
    return y


from .nn_layers import batch_norm as batch_norm  # noqa: E402
from .nn_layers import conv2d as conv2d  # noqa: E402
from .nn_layers import conv2d_transpose as conv2d_transpose  # noqa: E402
from .nn_layers import conv3d as conv3d  # noqa: E402
from .nn_layers import conv3d_transpose as conv3d_transpose  # noqa: E402
from .nn_layers import embedding as embedding  # noqa: E402
from .nn_layers import group_norm as group_norm  # noqa: E402
from .nn_layers import instance_norm as instance_norm  # noqa: E402
from .nn_layers import layer_norm as layer_norm  # noqa: E402

__all__ = [
    "batch_norm",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "embedding",
    "fc",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "py_func",
]
