"""``ferrograd.autograd.functional``: Jacobians, Hessians and Jacobian/Hessian-vector
products of Python functions (PyTorch's ``torch.autograd.functional``), computed with
reverse-mode passes of the engine (``strategy="forward-mode"``: with
``autograd.forward_ad``).

As PyTorch's: the work runs with grad mode on (so ``create_graph=True`` builds a graph
even under ``no_grad``); results are detached unless ``create_graph=True``; the inputs
are fresh tensors (a view of each input that requires grad when ``create_graph=True``, a
detached copy otherwise), so tensors the function captures are not differentiated;
``strict=True`` refuses, with PyTorch's words, an output or derivative that does not
depend on an input (where ``strict=False`` gives the mathematically right zeros).
``vectorize=True`` computes the rows of a Jacobian in one batched backward pass
(``autograd.grad(..., is_grads_batched=True)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from . import forward_ad as _fwd
from ._functional_utils import (
    _as_tuple,
    _autograd_grad,
    _check_requires_grad,
    _fill_in_zeros,
    _grad_postprocess,
    _grad_preprocess,
    _Tensors,
    _tuple_postprocess,
    _validate_v,
)

# a private helper of PyTorch's module that PyTorch's own tests call
from ._functional_utils import _construct_standard_basis_for as _construct_standard_basis_for


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product (``v`` may be omitted for a
    single-element output)."""
    with enable_grad():
        is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
        xs = _grad_preprocess(xs, create_graph, need_graph=True)
        outputs = func(*xs)
        is_outputs_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outs, "outputs", strict)
        vs: Optional[_Tensors] = None
        if v is not None:
            _, vs = _as_tuple(v, "v", "vjp")
            vs = _grad_preprocess(vs, create_graph, need_graph=False)
            _validate_v(vs, outs, is_outputs_tuple)
        elif len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outs, xs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, xs, strict, create_graph, "back")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick
    (the transpose of the linear vector-Jacobian map). ``v`` may be omitted for a
    single-element input."""
    with enable_grad():
        is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
        xs = _grad_preprocess(xs, create_graph, need_graph=True)
        vs: Optional[_Tensors] = None
        if v is not None:
            _, vs = _as_tuple(v, "v", "jvp")
            vs = _grad_preprocess(vs, create_graph, need_graph=False)
            _validate_v(vs, xs, is_inputs_tuple)
        elif len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is "
                "a single Tensor with a single element."
            )
        outputs = func(*xs)
        is_outputs_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outs, "outputs", strict)
        # the vector-Jacobian map is linear in these: their value never matters
        us = tuple(_core.zeros_like(o).requires_grad_(True) for o in outs)
        grad_inputs = _autograd_grad(outs, xs, us, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, us, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outs, strict, create_graph, "back_trick")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_outputs_tuple),
    )


def _jacobian_reverse(
    outs: _Tensors,
    xs: _Tensors,
    create_graph: bool,
    strict: bool,
    vectorize: bool,
    as_torch: bool = True,
) -> tuple[_Tensors, ...]:
    """``J[k][i]`` of shape ``outs[k].shape + xs[i].shape``: one backward pass per output
    element, or one batched pass per output with ``vectorize``."""
    table = []
    for k, out in enumerate(outs):
        n = out.numel()
        if vectorize:
            basis = _core.eye(n, dtype=out.dtype, device=out.device).reshape([n, *out.shape])
            gs = _autograd_grad(
                (out,), xs, (basis,), retain_graph=True, create_graph=create_graph,
                is_grads_batched=True, as_torch=as_torch,
            )  # fmt: skip
            row = [
                g.reshape([*out.shape, *x.shape])
                if g is not None
                else _core.zeros([*out.shape, *x.shape], dtype=x.dtype, device=x.device)
                for g, x in zip(gs, xs)
            ]
            table.append(tuple(row))
            continue
        cols: list[list[Tensor]] = [[] for _ in xs]
        flat = out.reshape([-1])
        for j in range(n):
            gs = _autograd_grad(
                (flat[j],), xs, retain_graph=True, create_graph=create_graph, as_torch=as_torch
            )
            for i, (g, x) in enumerate(zip(gs, xs)):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {k} of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode."
                        )
                    g = _core.zeros_like(x)
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError(
                        f"The jacobian of the user-provided function is independent of input "
                        f"{i}. This is not allowed in strict mode when create_graph=True."
                    )
                cols[i].append(g)
        table.append(
            tuple(
                _core.stack(c, 0).reshape([*out.shape, *x.shape])
                if c
                else _core.zeros([*out.shape, *x.shape], dtype=x.dtype, device=x.device)
                for c, x in zip(cols, xs)
            )
        )
    return tuple(table)


def _numel(t: Tensor) -> int:
    return int(t.numel())


def _tuple(x: Any, what: str) -> _Tensors:
    """The tensors of ``x`` (one or a tuple/list) as a tuple (for Paddle's
    ``autograd.jacobian``, ``paddle_jacobian.py``)."""
    items = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor, got {type(t).__name__}")
    return items


def jacobian_of(
    outputs: _Tensors, inputs: _Tensors, create_graph: bool = False, strict: bool = False
) -> tuple[_Tensors, ...]:
    """``J[k][i]`` of shape ``outputs[k].shape + inputs[i].shape`` for computed tensors,
    one backward pass per output element, with ferrograd's default answers (Paddle's
    ``autograd.jacobian`` / ``hessian``, ``paddle_jacobian.py``)."""
    return _jacobian_reverse(outputs, inputs, create_graph, strict, False, as_torch=False)


def _jacobian_forward(func: Callable[..., Any], xs: _Tensors) -> tuple[bool, tuple]:
    """``(outputs were a tuple, J)`` by forward-mode AD: one dual pass per input element;
    each block has the output's dtype, as PyTorch's forward-mode Jacobian."""
    cols: Optional[list[list[list[Tensor]]]] = None  # [output][input] -> columns
    is_outputs_tuple = False
    outs: _Tensors = ()
    for i, x in enumerate(xs):
        for j in range(x.numel()):
            with _fwd.dual_level():
                duals = []
                for m, y in enumerate(xs):
                    t = _core.zeros_like(y)
                    if m == i:
                        t.reshape([-1])[j] = 1
                    duals.append(_fwd.make_dual(y, t))
                res = func(*duals)
                is_outputs_tuple, outs = _as_tuple(
                    res, "outputs of the user-provided function", "jacobian"
                )
                if cols is None:
                    cols = [[[] for _ in xs] for _ in outs]
                for k, o in enumerate(outs):
                    tangent = _fwd.unpack_dual(o).tangent
                    if tangent is None:
                        tangent = _core.zeros_like(o)
                    cols[k][i].append(tangent.detach().reshape([-1]))
    if cols is None:  # no input elements: run once for the output shapes
        is_outputs_tuple, outs = _as_tuple(
            func(*xs), "outputs of the user-provided function", "jacobian"
        )
        cols = [[[] for _ in xs] for _ in outs]
    table = []
    for k, o in enumerate(outs):
        row = []
        for i, x in enumerate(xs):
            shape = [*o.shape, *x.shape]
            if cols[k][i]:
                row.append(_core.stack(cols[k][i], -1).reshape(shape))
            else:
                row.append(_core.zeros(shape, dtype=o.dtype, device=o.device))
        table.append(tuple(row))
    return is_outputs_tuple, tuple(table)


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: a Tensor of shape ``out.shape + in.shape``
    for one input and one output; a tuple over inputs, over outputs, or a tuple (outputs)
    of tuples (inputs) when either is a tuple."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        with enable_grad():
            is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
            is_outputs_tuple, table = _jacobian_forward(func, xs)
        return _tuple_postprocess(table, (is_outputs_tuple, is_inputs_tuple))
    with enable_grad():
        is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
        xs = _grad_preprocess(xs, create_graph, need_graph=True)
        outputs = func(*xs)
        is_outputs_tuple, outs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or `vectorize=False`."
            )
        table = _jacobian_reverse(outs, xs, create_graph, strict, vectorize)
        table = _grad_postprocess(table, create_graph)
    return _tuple_postprocess(table, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar ``func``: shape ``in.shape + in.shape`` for one input, a
    tuple of tuples ``H[i][j]`` for several (the Jacobian of the gradient)."""
    is_inputs_tuple, xs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def jac_func(*inp: Tensor) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            # the dual inputs must stay connected: create_graph keeps them when they
            # require grad
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(
        jac_func,
        xs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_prelude(
    func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool, name: str
) -> tuple[bool, _Tensors, Optional[_Tensors], bool, _Tensors]:
    """The checks and first pass shared by ``vhp`` and ``hvp`` (run with grad mode on):
    ``(inputs were a tuple, inputs, v, outputs were a tuple, outputs)``."""
    is_inputs_tuple, xs = _as_tuple(inputs, "inputs", name)
    xs = _grad_preprocess(xs, create_graph, need_graph=True)
    vs: Optional[_Tensors] = None
    if v is not None:
        _, vs = _as_tuple(v, "v", name)
        vs = _grad_preprocess(vs, create_graph, need_graph=False)
        _validate_v(vs, xs, is_inputs_tuple)
    elif len(xs) != 1 or xs[0].numel() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    outputs = func(*xs)
    is_outputs_tuple, outs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outs, "outputs", strict)
    if is_outputs_tuple or not isinstance(outs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )
    return is_inputs_tuple, xs, vs, is_outputs_tuple, outs


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), v^T H)`` for a scalar ``func``."""
    with enable_grad():
        is_inputs_tuple, xs, vs, is_outputs_tuple, outs = _scalar_prelude(
            func, inputs, v, create_graph, strict, "vhp"
        )
        jac = _autograd_grad(outs, xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, xs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, xs, strict, create_graph, "double_back")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), H v)`` for a scalar ``func``, by the double-backward trick (equal
    to ``vhp`` for a twice continuously differentiable ``func``)."""
    with enable_grad():
        is_inputs_tuple, xs, vs, is_outputs_tuple, outs = _scalar_prelude(
            func, inputs, v, create_graph, strict, "hvp"
        )
        jac = _autograd_grad(outs, xs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(_core.zeros_like(x).requires_grad_(True) for x in xs)
        double_back = _autograd_grad(jac, xs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, xs, strict, create_graph, "double_back_trick")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


__all__ = ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"]
