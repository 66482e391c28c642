"""Helpers of ``ferrograd.autograd.functional`` (PyTorch's ``torch.autograd.functional``):
the argument checks and messages, in PyTorch's words, the pre- and post-processing of
inputs and results, and the engine calls, made as PyTorch code."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Sequence
from typing import Any, Optional

from .. import _core
from .._core import Tensor
from .._dialect import caller_dialect

_Tensors = tuple[Tensor, ...]


def _call_grad(*args: Any, **kwargs: Any) -> Any:
    return _core.grad(*args, **kwargs)


_TORCH_GRAD: Optional[Callable[..., Any]] = None


def _grad_as_torch(*args: Any, **kwargs: Any) -> Any:
    """``autograd.grad`` answering as in PyTorch code. This module is PyTorch's API, but
    as ferrograd's own code it has no dialect, and the engine's default is Paddle's: a
    gradient that is a constant under ``create_graph=True`` would come back as a new leaf
    that requires grad (docs/dialects.md). So the call runs from a function whose module
    globals name ferrograd ``torch`` (the rule the engine reads), under this API's name."""
    global _TORCH_GRAD
    if _TORCH_GRAD is None:
        namespace = {
            "__name__": "torch.autograd.functional",
            "__builtins__": __builtins__,
            "torch": sys.modules[_core.__name__.rpartition(".")[0]],
            "_core": _core,
        }
        _TORCH_GRAD = types.FunctionType(_call_grad.__code__, namespace, "_call_grad")
    return _TORCH_GRAD(*args, **kwargs)


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, _Tensors]:
    """``(was a tuple, the tensors as a tuple)``; a ``TypeError`` for a non-Tensor."""
    is_tuple = isinstance(inp, (tuple, list))
    items = tuple(inp) if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but {where} has type {type(el)}."
            )
    return is_tuple, items


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    """Undoes ``_as_tuple`` on a result: ``to_unpack`` is one flag, or two for a table
    (outer, inner)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: _Tensors, create_graph: bool, need_graph: bool) -> _Tensors:
    """New tensor objects for the inputs: a view (keeps the caller's graph) when building
    a graph on an input that requires grad, a detached copy otherwise. A new object tells
    the inputs apart from the same tensors captured by the function."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.clone() if getattr(inp, "is_sparse", False) else inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs: Any, create_graph: bool) -> Any:
    """Detaches (nested tuples of) results unless ``create_graph``."""
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(t.detach() for t in inputs)
    return tuple(_grad_postprocess(t, create_graph) for t in inputs)


def _size_text(t: Tensor) -> str:
    prefix = "torch" if caller_dialect(2, through_layers=True) == "torch" else "ferrograd"
    return f"{prefix}.Size({list(t.shape)})"


def _validate_v(v: _Tensors, other: _Tensors, is_other_tuple: bool) -> None:
    """``v`` must hold one tensor per tensor of ``other``, each of its size."""
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if tuple(el_v.shape) != tuple(el_other.shape):
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {_size_text(el_other)} but got "
                f"{_size_text(el_v)}."
            )


def _check_requires_grad(inputs: Sequence[Optional[Tensor]], input_type: str, strict: bool):
    """With ``strict``: refuses a missing gradient or a tensor that does not require grad
    (``input_type`` says which stage, for the message)."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if inp.requires_grad:
            continue
        if input_type == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."
            )
        if input_type == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)."
            )
        if input_type == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode."
            )
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The "
            "outputs must be computed in a differentiable manner from the input when running "
            "in strict mode."
        )


def _autograd_grad(
    outputs: Sequence[Optional[Tensor]],
    inputs: _Tensors,
    grad_outputs: Optional[Sequence[Optional[Tensor]]] = None,
    create_graph: bool = False,
    retain_graph: Optional[bool] = None,
    is_grads_batched: bool = False,
    as_torch: bool = True,
) -> tuple[Optional[Tensor], ...]:
    """``autograd.grad`` over the outputs that exist and require grad (None per input
    when none does), unused inputs giving None; ``as_torch``: PyTorch's answers (see
    :func:`_grad_as_torch`), else ferrograd's default (for Paddle's ``jacobian``)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    live = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not live:
        return (None,) * len(inputs)
    return tuple(
        (_grad_as_torch if as_torch else _core.grad)(
            [o for o, _ in live],
            list(inputs),
            [g for _, g in live],
            retain_graph=retain_graph,
            create_graph=create_graph,
            allow_unused=True,
            is_grads_batched=is_grads_batched,
        )
    )


_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
    "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(
    grads: Sequence[Optional[Tensor]], refs: _Tensors, strict: bool, create_graph: bool, stage: str
) -> _Tensors:
    """Zeros shaped like ``refs[i]`` for a missing gradient; with ``strict``, an error
    instead (and, with ``create_graph``, for a gradient that does not require grad)."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_NONE_MESSAGES[stage].format(i=i))
            g = _core.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        res.append(g)
    return tuple(res)


def _construct_standard_basis_for(tensors: _Tensors, tensor_numels: Sequence[int]) -> _Tensors:
    """The identity of size ``sum(tensor_numels)`` cut into column blocks, one per tensor
    (each with that tensor's dtype and device): the batched grad_outputs of a Jacobian."""
    total = sum(tensor_numels)
    chunks = []
    start = 0
    for t, numel in zip(tensors, tensor_numels):
        chunk = _core.zeros([total, numel], dtype=t.dtype, device=t.device)
        if numel:
            chunk[start : start + numel] = _core.eye(numel, dtype=t.dtype, device=t.device)
        chunks.append(chunk)
        start += numel
    return tuple(chunks)
