"""``ferrograd.func`` (PyTorch's ``torch.func``): function transforms built on the
reverse-mode engine.

- :func:`vmap` maps a function over a batch dimension by an honest Python loop: it calls
  the function once per batch entry and stacks the results. It is *not* faster than
  writing the loop (PyTorch's vmap batches the ops; this one does not), it only spares
  rewriting code written for ``torch.vmap``. It is also more permissive: data-dependent
  control flow and ``.item()`` work, and random ops draw per entry (``randomness=
  'different'``) rather than raising.
- :func:`grad`, :func:`grad_and_value`, :func:`jacrev`, :func:`jacfwd` differentiate
  with ``autograd.grad`` / ``autograd.functional.jacobian`` (``jacfwd`` gives the same
  values as ``jacrev``: the columns come from reverse passes, as ferrograd's forward
  mode, ``autograd.forward_ad``, builds its tangents on the reverse engine too).
- :func:`vjp`, :func:`jvp`, :func:`linearize` and :func:`hessian` (in ``_func_linear.py``)
  give a function's linear maps at a point; ``jvp`` costs two reverse passes.
- :func:`functional_call` calls a module with some of its parameters and buffers
  replaced for the one call.

Composition: a transform builds a graph on its result when grad mode is on and one of
the tensors passed to the transformed function requires grad, so ``grad(grad(f))(x)``,
``jacrev(grad(f))(x)`` and ``vmap(grad(f))(xs)`` work; tensors the function only
captures (a closure over parameters) are not tracked through ``grad``'s result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Union

import numpy as np

from . import _core
from ._core import Tensor
from ._func_pytree import is_node, rebuild, tree_flatten, tree_unflatten
from .autograd import functional as _functional
from .grad_mode import enable_grad, is_grad_enabled

__all__ = ["vmap", "grad", "grad_and_value", "jacrev", "jacfwd", "functional_call"]
__all__ += ["vjp", "jvp", "linearize", "hessian"]

InDims = Union[int, None, Sequence[Any]]


# ---- vmap ------------------------------------------------------------------------------


def _map_leaves(fn: Callable[[Any, Any], Any], tree: Any, dims: Any) -> Any:
    """``fn(leaf, dim)`` over the tensors of a nested tuple/list/dict ``tree``; ``dims``
    is one int/None for the whole subtree or a structure matching it."""
    if isinstance(tree, (tuple, list)):
        if isinstance(dims, (tuple, list)):
            if len(dims) != len(tree):
                raise ValueError(
                    f"vmap: in_dims {dims!r} does not match an argument of {len(tree)} items"
                )
            parts = [_map_leaves(fn, t, d) for t, d in zip(tree, dims)]
        else:
            parts = [_map_leaves(fn, t, dims) for t in tree]
        return type(tree)(parts)
    if isinstance(tree, dict):
        if isinstance(dims, dict):
            return {k: _map_leaves(fn, v, dims.get(k)) for k, v in tree.items()}
        return {k: _map_leaves(fn, v, dims) for k, v in tree.items()}
    return fn(tree, dims)


def _check_dim(dim: Any, what: str) -> None:
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
        raise TypeError(f"vmap: {what} must be an int or None, got {dim!r}")


def vmap(
    func: Callable[..., Any],
    in_dims: InDims = 0,
    out_dims: Union[int, None, Sequence[Any]] = 0,
    randomness: str = "error",
    *,
    chunk_size: Any = None,
) -> Callable[..., Any]:
    """``func`` mapped over dimension ``in_dims`` of its arguments (an int for all, or one
    entry per positional argument: an int, None for an unmapped argument, or a nested
    structure matching the argument); the results are stacked along ``out_dims``
    (``None`` for an output that does not depend on the mapped inputs: returned once,
    not stacked). ``randomness="same"``: random ops (of the default generator) draw the
    same values for every entry; otherwise they draw anew per entry. A loop over the
    batch (see the module docstring): no faster than writing it."""
    if not callable(func):
        raise TypeError(f"vmap: func must be callable, got {type(func).__name__}")
    if randomness not in ("error", "different", "same"):
        raise ValueError(
            f"vmap: randomness must be 'error', 'different' or 'same', got {randomness!r}"
        )
    del chunk_size  # the loop handles one entry at a time anyway

    def mapped(*args: Any, **kwargs: Any) -> Any:
        dims: Any = in_dims
        if isinstance(dims, (tuple, list)):
            if len(dims) != len(args):
                raise ValueError(
                    f"vmap: in_dims has {len(dims)} entries for {len(args)} positional arguments"
                )
        else:
            _check_dim(dims, "in_dims")
            dims = [dims] * len(args)
        sizes: list[int] = []

        def size_of(x: Any, d: Any) -> Any:
            _check_dim(d, "an in_dims entry")
            if d is None:
                return x
            if not isinstance(x, Tensor):
                raise TypeError(
                    f"vmap: in_dims {d} given for a {type(x).__name__}, which is not a Tensor"
                )
            if not -x.ndim <= d < max(x.ndim, 1) or x.ndim == 0:
                raise IndexError(f"vmap: in_dim {d} is out of range for a {x.ndim}-d tensor")
            sizes.append(int(x.shape[d]))
            return x

        _map_leaves(size_of, list(args), list(dims))
        if not sizes:
            raise ValueError("vmap: no argument is mapped (every in_dims entry is None)")
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: the mapped dimensions have different sizes {sizes}")
        if sizes[0] == 0:
            return _empty_batch(func, args, dims, out_dims, kwargs)
        results = []
        first_slices: list[Tensor] = []  # the mapped inputs of entry 0 (for out_dims=None)
        # randomness="same": every entry starts from the same state of the default
        # generator, so its random ops draw the same values for each entry
        rng = _core._rng_state() if randomness == "same" else None
        for i in range(sizes[0]):
            if rng is not None:
                _core._set_rng_state(rng)

            def pick(x: Any, d: Any, i: int = i) -> Any:
                if d is None:
                    return x
                piece = x.select(d, i)
                if i == 0:
                    first_slices.append(piece)
                return piece

            picked = _map_leaves(pick, list(args), list(dims))
            results.append(func(*picked, **kwargs))
        return _stack_results(results, out_dims, first_slices)

    mapped.__name__ = f"vmap({getattr(func, '__name__', 'func')})"
    mapped.__doc__ = func.__doc__
    return mapped


def _empty_batch(func: Any, args: Any, dims: Any, out_dims: Any, kwargs: Any) -> Any:
    """vmap over a batch of size 0: ``func`` runs once on zero-filled entries to learn the
    results' shapes and dtypes, and each mapped result has size 0 along its out_dim
    (PyTorch's shapes)."""
    slices: list[Tensor] = []

    def zero_entry(x: Any, d: Any) -> Any:
        if d is None:
            return x
        shape = list(x.shape)
        del shape[d]
        z = _core.zeros(shape, dtype=x.dtype)
        slices.append(z)
        return z

    result = func(*_map_leaves(zero_entry, list(args), list(dims)), **kwargs)
    return _stack_results([result], out_dims, slices, empty=True)


def _stack_results(
    results: list[Any], out_dims: Any, slices: list[Tensor], empty: bool = False
) -> Any:
    """The entries' results stacked leaf by leaf: a tuple, list or dict result (nested
    to any depth) comes back in its structure, each tensor leaf stacked along its
    ``out_dims`` entry (one int or None for a whole subtree, or a matching structure)."""
    first: Any = results[0] if results else None
    if isinstance(first, dict):
        keys = list(first.keys())
        if any(not isinstance(r, dict) or list(r.keys()) != keys for r in results[1:]):
            raise ValueError("vmap: the function returned dicts with different keys")
        dmap = out_dims if isinstance(out_dims, dict) else dict.fromkeys(keys, out_dims)
        if isinstance(out_dims, (tuple, list)):
            raise ValueError("vmap: out_dims is a sequence but the function returns a dict")
        parts = [_stack_results([r[k] for r in results], dmap.get(k), slices, empty) for k in keys]
        return rebuild(first, parts)
    if is_node(first):
        n = len(first)
        if any(not is_node(r) or len(r) != n for r in results[1:]):
            raise ValueError("vmap: the function returned sequences of different lengths")
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * n
        if len(dims) != n:
            raise ValueError(f"vmap: out_dims {out_dims!r} does not match {n} outputs")
        parts = [_stack_results([r[k] for r in results], dims[k], slices, empty) for k in range(n)]
        return rebuild(first, parts)
    if isinstance(out_dims, (tuple, list)):
        raise ValueError("vmap: out_dims is a sequence but the function returns one value")
    return _stack_one(results, out_dims, slices, empty)


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
            return False
        if a.dtype != b.dtype or list(a.shape) != list(b.shape):
            return False
        x, y = a.detach().numpy(), b.detach().numpy()
        return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _depends_on(value: Any, slices: list[Tensor]) -> bool:
    """Whether the graph of ``value`` reaches one of the mapped inputs' slices."""
    if not isinstance(value, Tensor) or not value.requires_grad:
        return False
    inputs = [t for t in slices if t.requires_grad]
    if not inputs:
        return False
    grads = _core.grad(
        [value], inputs, [_core.ones_like(value)], retain_graph=True, allow_unused=True
    )
    return any(g is not None for g in grads)


def _unmapped(values: list[Any], slices: list[Tensor]) -> Any:
    """``out_dims=None``: the one value every entry returned, which must not depend on
    the mapped inputs (PyTorch's rule); checked by its value across the entries and by
    its graph."""
    if not values:
        raise ValueError("vmap: out_dims=None needs at least one batch entry")
    first = values[0]
    if not all(_same_value(v, first) for v in values[1:]) or _depends_on(first, slices):
        raise ValueError(
            "vmap: an output with out_dims=None must not depend on the mapped inputs (it "
            "differs between the batch entries, or its graph reaches them)"
        )
    return first


def _stack_one(values: list[Any], dim: Any, slices: list[Tensor], empty: bool = False) -> Any:
    """``values`` stacked along ``dim``; ``empty``: ``values`` is the one result of a
    size-0 batch's probe call, so the stack keeps none of it along ``dim``."""
    if dim is None:
        return _unmapped(values, slices)
    _check_dim(dim, "out_dims")
    values = [v if isinstance(v, Tensor) else _core.tensor(v) for v in values]
    ndim = values[0].ndim + 1
    if not -ndim <= dim < ndim:
        raise IndexError(f"vmap: out_dims {dim} is out of range for {ndim}-d results")
    stacked = _core.stack(values, dim)
    return stacked.narrow(dim, 0, 0) if empty else stacked


# ---- grad and Jacobians ----------------------------------------------------------------


def _argnums(argnums: Any, nargs: int, what: str) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for a in nums:
        if isinstance(a, bool) or not isinstance(a, int) or not -nargs <= a < nargs:
            raise ValueError(f"{what}: argnums {argnums!r} is out of range for {nargs} arguments")
    return tuple(a % nargs for a in nums)


def _tracking(args: Sequence[Any]) -> bool:
    """Whether the transform's result should keep a graph (see the module docstring)."""
    if not is_grad_enabled():
        return False
    found = []
    _map_leaves(
        lambda x, d: found.append(isinstance(x, Tensor) and x.requires_grad), list(args), None
    )
    return any(found)


def _leaf(x: Any, keep: bool, what: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{what}: the argument to differentiate must be a Tensor, got {type(x).__name__}"
        )
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise TypeError(
            f"{what}: can only differentiate with respect to floating tensors, got {x.dtype}"
        )
    return x if keep and x.requires_grad else x.detach().requires_grad_(True)


def _split_aux(out: Any, has_aux: bool, what: str) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError(f"{what}: with has_aux=True the function must return (output, aux)")
    return out[0], out[1]


def _detach_tree(tree: Any, keep: bool) -> Any:
    if keep:
        return tree
    return _map_leaves(lambda x, d: x.detach() if isinstance(x, Tensor) else x, tree, None)


def grad_and_value(
    func: Callable[..., Any], argnums: Union[int, tuple[int, ...]] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function returning ``(gradient, value)`` of ``func``, whose output must be a
    single-element tensor, with respect to argument(s) ``argnums`` (a tuple gives a tuple
    of gradients). With ``has_aux``, ``func`` returns ``(output, aux)`` and the value is
    ``(output, aux)``."""
    what = "grad_and_value"

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), what)
        keep = _tracking(list(args) + list(kwargs.values()))
        args_l = list(args)
        # each differentiated argument may be a pytree (a dict of parameters ...): its
        # leaves are the inputs, and its gradient comes back in the same structure
        specs, inputs = [], []
        for a in nums:
            leaves, spec = tree_flatten(args_l[a])
            leaves = [_leaf(x, keep, what) for x in leaves]
            args_l[a] = tree_unflatten(spec, leaves)
            specs.append((spec, len(leaves)))
            inputs += leaves
        with enable_grad():
            out, aux = _split_aux(func(*args_l, **kwargs), has_aux, what)
            if not isinstance(out, Tensor) or out.numel() != 1:
                got = f"shape {list(out.shape)}" if isinstance(out, Tensor) else type(out).__name__
                raise RuntimeError(
                    f"{what}: the function must return a single-element Tensor, got {got}"
                )
            if not out.dtype.is_floating_point:
                raise RuntimeError(
                    f"{what}: the function's output must be floating, got {out.dtype}"
                )
            gs: Sequence[Any] = [None] * len(inputs)
            if out.requires_grad and inputs:
                gs = _core.grad(
                    [out], inputs, None, retain_graph=keep, create_graph=keep, allow_unused=True
                )
        flat = [
            _detach_tree(g, keep) if g is not None else _core.zeros_like(x)
            for g, x in zip(gs, inputs)
        ]
        grads = tuple(_regroup(flat, specs))
        g_out = grads if isinstance(argnums, tuple) else grads[0]
        value = _detach_tree(out, keep)
        return g_out, ((value, _detach_tree(aux, keep)) if has_aux else value)

    return wrapper


def grad(
    func: Callable[..., Any], argnums: Union[int, tuple[int, ...]] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function returning the gradient of ``func`` (a single-element output) with
    respect to argument(s) ``argnums``; with ``has_aux``, ``(gradient, aux)``."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def jacrev(
    func: Callable[..., Any],
    argnums: Union[int, tuple[int, ...]] = 0,
    *,
    has_aux: bool = False,
    chunk_size: Any = None,
    _preallocate_and_copy: bool = False,
) -> Callable[..., Any]:
    """A function returning the Jacobian of ``func`` with respect to argument(s)
    ``argnums``: shape ``output.shape + input.shape``; tuples over inputs (a tuple
    ``argnums``) and over outputs (a tuple output), outputs outermost. With ``has_aux``,
    ``(jacobian, aux)``."""
    del chunk_size, _preallocate_and_copy
    return _jacobian_transform(func, argnums, has_aux, "jacrev")


def jacfwd(
    func: Callable[..., Any],
    argnums: Union[int, tuple[int, ...]] = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
) -> Callable[..., Any]:
    """:func:`jacrev`'s values under PyTorch's forward-mode name (computed by reverse
    passes, as ferrograd's forward mode is built on the reverse engine)."""
    del randomness
    return _jacobian_transform(func, argnums, has_aux, "jacfwd")


def _jacobian_transform(
    func: Callable[..., Any], argnums: Any, has_aux: bool, what: str
) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), what)
        keep = _tracking(list(args) + list(kwargs.values()))
        specs, xs_l = [], []
        for a in nums:  # pytree arguments: their leaves are the inputs (see grad_and_value)
            leaves, spec = tree_flatten(args[a])
            for x in leaves:
                _leaf(x, keep, what)  # the checks
            specs.append((spec, len(leaves)))
            xs_l += leaves
        aux_box: list[Any] = []

        def restricted(*xs: Tensor) -> Any:
            full = list(args)
            for a, part in zip(nums, _regroup(list(xs), specs)):
                full[a] = part
            out, aux = _split_aux(func(*full, **kwargs), has_aux, what)
            aux_box.append(aux)
            return tuple(out) if isinstance(out, list) else out

        jac = _functional.jacobian(restricted, tuple(xs_l), create_graph=keep)
        nested = _is_nested(jac)  # a tuple output: one row of input Jacobians per output
        rows = [tuple(_regroup(list(r), specs)) for r in (jac if nested else (jac,))]
        if not isinstance(argnums, tuple):  # one argument: drop the per-argument level
            rows = [r[0] for r in rows]
        jac = tuple(rows) if nested else rows[0]
        return (jac, _detach_tree(aux_box[-1], keep)) if has_aux else jac

    return wrapper


def _regroup(flat: list[Any], specs: list[tuple[Any, int]]) -> list[Any]:
    """``flat`` (the leaves of several arguments in turn) cut per argument and rebuilt in
    each argument's structure."""
    parts, at = [], 0
    for spec, n in specs:
        parts.append(tree_unflatten(spec, flat[at : at + n]))
        at += n
    return parts


def _is_nested(jac: Any) -> bool:
    return isinstance(jac, tuple) and bool(jac) and isinstance(jac[0], tuple)


# ---- functional_call -------------------------------------------------------------------


def _owner(module: Any, path: str) -> tuple[Any, str]:
    *parents, leaf = path.split(".")
    m = module
    for p in parents:
        sub = m._modules.get(p) if hasattr(m, "_modules") else None
        if sub is None:
            raise KeyError(
                f"functional_call: {type(module).__name__} has no submodule for {path!r}"
            )
        m = sub
    return m, leaf


@contextmanager
def _swapped(module: Any, tensors: Mapping[str, Any]) -> Iterator[None]:
    saved = []
    try:
        for path, value in tensors.items():
            owner, leaf = _owner(module, path)
            for registry in ("_parameters", "_buffers"):
                reg = owner.__dict__.get(registry)
                if reg is not None and leaf in reg:
                    saved.append((owner, registry, leaf, reg[leaf], leaf in owner.__dict__))
                    reg[leaf] = value
                    owner.__dict__[leaf] = value
                    break
            else:
                raise KeyError(
                    f"functional_call: {path!r} is not a parameter or buffer of "
                    f"{type(module).__name__}"
                )
        yield
    finally:
        for owner, registry, leaf, old, had_attr in reversed(saved):
            owner.__dict__[registry][leaf] = old
            if had_attr:
                owner.__dict__[leaf] = old
            else:
                owner.__dict__.pop(leaf, None)


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: Any = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Calls ``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict ``{"layer.weight": tensor, ...}`` or a tuple of
    such dicts) standing in for the module's own for this one call; the module is left
    as it was afterwards. ``strict=True`` requires every parameter and buffer to be
    given. ``args`` may be one tensor or a tuple."""
    dicts = (
        parameter_and_buffer_dicts
        if isinstance(parameter_and_buffer_dicts, (tuple, list))
        else (parameter_and_buffer_dicts,)
    )
    merged: dict[str, Any] = {}
    for d in dicts:
        if not isinstance(d, Mapping):
            raise TypeError(
                f"functional_call: expected a dict of tensors (or a tuple of dicts), got {type(d).__name__}"
            )
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"functional_call: {k!r} is given in more than one dict")
            merged[k] = v
    if strict:
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(names - set(merged)), sorted(set(merged) - names)
        if missing or unexpected:
            raise RuntimeError(
                f"functional_call (strict): missing {missing}, unexpected {unexpected}"
            )
    if tie_weights:
        # a tensor shared under several names follows the one given for any of them
        by_id: dict[int, list[str]] = {}
        for n, t in module.named_parameters(remove_duplicate=False):
            by_id.setdefault(id(t), []).append(n)
        for tied in by_id.values():
            given = [n for n in tied if n in merged]
            if given:
                for n in tied:
                    merged.setdefault(n, merged[given[0]])
    call_args = args if isinstance(args, tuple) else (() if args is None else (args,))
    with _swapped(module, merged):
        return module(*call_args, **(kwargs or {}))


from ._func_linear import hessian, jvp, linearize, vjp  # noqa: E402
