"""``einsum`` with a contraction-order planner that routes through matmul.

Plan (cached per equation and operand shapes): parse the subscripts (``...`` included,
implicit output = the labels seen once, sorted, after the broadcast dims; PyTorch's sublist
form is turned into such an equation first); take repeated labels of one operand as its
diagonal (a ``diagonal`` view: no arithmetic, so the dtype and any inf / NaN off the
diagonal are left alone); drop size-1 dims that broadcast against another size (0
included: a label of sizes 1 and 0 has size 0); sum out each label used by one operand
only; then contract the pair of operands whose contraction costs fewest multiply-adds,
greedily, each contraction one batched matmul (permute + reshape to
``[batch, M, K] @ [batch, K, N]``); finally sum and permute to the output. Every step is a
differentiable op, so gradients of any order follow. A batched-matmul pattern such as
``bij,bjk->bik`` is exactly one matmul. Operands of mixed dtypes (PyTorch refuses them)
are first cast to their promoted dtype, so no contraction runs narrower than the result.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import _core
from .._dtype_info import promote_types
from ._common import as_tensor

Tensor = _core.Tensor

# labels are ints: letters by ord(), broadcast (ellipsis) dims by -1, -2, ... (from the right)
Label = int


def _err(msg: str) -> ValueError:
    return ValueError(f"einsum(): {msg}")


def _parse_term(term: str, ndim: int | None) -> tuple[list[Label], bool]:
    """The labels of one term; ``ndim`` (for input terms) sizes the ellipsis."""
    ell = term.count("...")
    if ell > 1 or ("." in term.replace("...", "")):
        raise _err(f"each term may hold '...' once and no other '.', got {term!r}")
    body = term.replace("...", "")
    for c in body:
        if not c.isalpha() or not c.isascii():
            raise _err(f"subscripts must be letters a-z, A-Z (and '...'), got {c!r} in {term!r}")
    if ndim is None:
        head, _, tail = term.partition("...")
        return [ord(c) for c in head] + ([0] if ell else []) + [ord(c) for c in tail], bool(ell)
    n_ell = ndim - len(body)
    if (n_ell < 0) or (n_ell > 0 and not ell):
        raise _err(
            f"the term {term!r} names {len(body)} dims but its operand has {ndim}"
            + ("" if ell else " (use '...' for the rest)")
        )
    head, _, tail = term.partition("...")
    return [ord(c) for c in head] + [-(n_ell - i) for i in range(n_ell)] + [
        ord(c) for c in tail
    ], bool(ell)


#: Plans by (equation, operand shapes); cleared when it reaches 512 entries.
_PLANS: dict[tuple[str, tuple[tuple[int, ...], ...]], tuple[Any, ...]] = {}


def _plan(eq: str, shapes: tuple[tuple[int, ...], ...]) -> tuple[Any, ...]:
    """The (cached) steps for ``eq`` on operands of ``shapes``."""
    key = (eq, shapes)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _make_plan(eq, shapes)
        if len(_PLANS) >= 512:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _make_plan(eq: str, shapes: tuple[tuple[int, ...], ...]) -> tuple[Any, ...]:
    """The steps for ``eq`` on operands of ``shapes`` (see the module docs)."""
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise _err(
            f"the equation has {len(terms)} operand terms but {len(shapes)} operands were given"
        )
    labels = [_parse_term(t, len(s))[0] for t, s in zip(terms, shapes)]
    n_ell = max((-min([lab for lab in ls if lab < 0], default=0) for ls in labels), default=0)
    sizes: dict[Label, int] = {}
    for ls, s in zip(labels, shapes):
        for lab, d in zip(ls, s):
            if lab in sizes and sizes[lab] != d and 1 not in (sizes[lab], d):
                name = chr(lab) if lab > 0 else "..."
                raise _err(f"label {name!r} has sizes {sizes[lab]} and {d}, which do not broadcast")
            # a size-1 dim broadcasts: the label takes the other size, 0 included
            if d != 1 or lab not in sizes:
                sizes[lab] = d
    ell_labels = [-(n_ell - i) for i in range(n_ell)]
    if arrow:
        out_raw, has_ell = _parse_term(rhs, None)
        out: list[Label] = []
        for lab in out_raw:
            out.extend(ell_labels if lab == 0 else [lab])
        if len(set(out)) != len(out):
            raise _err(f"the output {rhs!r} names a label twice")
        for lab in out:
            if lab > 0 and lab not in sizes:
                raise _err(f"the output label {chr(lab)!r} is not in any input")
    else:
        counts: dict[Label, int] = {}
        for ls in labels:
            for lab in ls:
                counts[lab] = counts.get(lab, 0) + 1
        out = ell_labels + sorted(lab for lab, c in counts.items() if c == 1 and lab > 0)
    steps: list[Any] = []
    ops: list[list[Label]] = []
    for i, ls in enumerate(labels):
        ls, shp = list(ls), list(shapes[i])
        # repeated labels: take the diagonal (one ("diag", i, a, b) step per repeat)
        while len(set(ls)) != len(ls):
            seen: dict[Label, int] = {}
            for pos, lab in enumerate(ls):
                if lab in seen:
                    if shp[seen[lab]] != shp[pos]:
                        raise _err(
                            f"the repeated label {chr(lab)!r} of operand {i} has sizes "
                            f"{shp[seen[lab]]} and {shp[pos]}; a diagonal needs equal sizes"
                        )
                    steps.append(("diag", i, seen[lab], pos))
                    del ls[pos], shp[pos]
                    break
                seen[lab] = pos
        # size-1 dims broadcasting against another size (0 too): drop them
        drop = tuple(pos for pos, lab in enumerate(ls) if shp[pos] == 1 and sizes[lab] != 1)
        if drop:
            steps.append(("squeeze", i, drop))
            ls = [lab for pos, lab in enumerate(ls) if pos not in drop]
        ops.append(ls)
    # contract greedily
    alive = list(range(len(ops)))
    while True:
        needed_by = _needed(ops, alive, out)
        for i in alive:
            lone = [pos for pos, lab in enumerate(ops[i]) if needed_by(lab, i) is False]
            if lone:
                steps.append(("sum", i, tuple(lone)))
                ops[i] = [lab for pos, lab in enumerate(ops[i]) if pos not in lone]
        if len(alive) == 1:
            break
        best = None
        for x in range(len(alive)):
            for y in range(x + 1, len(alive)):
                i, j = alive[x], alive[y]
                union = set(ops[i]) | set(ops[j])
                cost = int(np.prod([sizes[lab] for lab in union], dtype=np.float64))
                keep = [lab for lab in union if needed_by(lab, i, j)]
                res = int(np.prod([sizes[lab] for lab in keep], dtype=np.float64))
                key = (cost, res, x, y)
                if best is None or key < best[0]:
                    best = (key, i, j)
        assert best is not None
        _, i, j = best
        li, lj = ops[i], ops[j]
        batch = [lab for lab in li if lab in lj and needed_by(lab, i, j)]
        contr = [lab for lab in li if lab in lj and not needed_by(lab, i, j)]
        only_i = [lab for lab in li if lab not in lj]
        only_j = [lab for lab in lj if lab not in li]
        perm_i = tuple(li.index(lab) for lab in batch + only_i + contr)
        perm_j = tuple(lj.index(lab) for lab in batch + contr + only_j)
        sz = [sizes[lab] for lab in batch]
        m = int(np.prod([sizes[lab] for lab in only_i]))
        k = int(np.prod([sizes[lab] for lab in contr]))
        n = int(np.prod([sizes[lab] for lab in only_j]))
        res_shape = sz + [sizes[lab] for lab in only_i] + [sizes[lab] for lab in only_j]
        # None where a permute / reshape would change nothing (no extra graph node)
        shape_i = [sizes[lab] for lab in batch + only_i + contr]
        shape_j = [sizes[lab] for lab in batch + contr + only_j]
        steps.append(
            (
                "mm",
                i,
                j,
                None if perm_i == tuple(range(len(perm_i))) else perm_i,
                None if perm_j == tuple(range(len(perm_j))) else perm_j,
                None if shape_i == sz + [m, k] else sz + [m, k],
                None if shape_j == sz + [k, n] else sz + [k, n],
                None if res_shape == sz + [m, n] else res_shape,
            )
        )
        ops[i] = batch + only_i + only_j
        alive.remove(j)
    (last,) = alive
    final = ops[last]
    assert sorted(final) == sorted(out), (final, out)
    perm = tuple(final.index(lab) for lab in out)
    steps.append(("final", last, None if perm == tuple(range(len(perm))) else perm))
    return tuple(steps)


def _needed(ops: list[list[Label]], alive: list[int], out: list[Label]) -> Any:
    """``needed_by(lab, *skip)``: whether ``lab`` is in the output or in an alive operand
    other than those in ``skip``."""

    def needed_by(lab: Label, *skip: int) -> bool:
        if lab in out:
            return True
        return any(lab in ops[t] for t in alive if t not in skip)

    return needed_by


def _diag(t: Tensor, a: int, b: int) -> Tensor:
    """The diagonal of dims ``a < b`` of ``t``, kept at position ``a`` (dim ``b`` removed).

    A view (``diagonal`` then ``movedim``), not ``(t * eye).sum(b)``: that turned an
    infinity off the diagonal into NaN and summed ints into int64."""
    return t.diagonal(0, a, b).movedim(-1, a)


_SUBSCRIPTS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sublist_term(sub: Any, what: str) -> str:
    """One sublist of PyTorch's sublist form as equation text: 0-25 are ``A``-``Z``,
    26-51 ``a``-``z``, ``Ellipsis`` is ``...``."""
    if isinstance(sub, (str, bytes, Tensor)) or not hasattr(sub, "__iter__"):
        raise TypeError(
            f"einsum(): the {what} must be a list of ints in [0, 52) and Ellipsis, "
            f"got {type(sub).__name__} (the equation form takes the equation str first: "
            "einsum('ij,jk->ik', a, b))"
        )
    out = []
    for n in sub:
        if n is Ellipsis:
            out.append("...")
            continue
        try:
            i = operator.index(n)
        except TypeError:
            raise TypeError(
                f"einsum(): the {what} holds {n!r}; its items must be ints in [0, 52) or Ellipsis"
            ) from None
        if not 0 <= i < 52:
            raise ValueError(
                f"einsum(): subscript {i} in the {what} is not within the valid range [0, 52)"
            )
        out.append(_SUBSCRIPTS[i])
    return "".join(out)


def _from_sublists(args: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """PyTorch's sublist form ``einsum(op1, sub1, op2, sub2, ..., [sub_out])`` as
    ``(equation, operands)``."""
    n_ops = len(args) // 2
    terms = [_sublist_term(args[2 * k + 1], f"subscript list of operand {k}") for k in range(n_ops)]
    eq = ",".join(terms)
    if len(args) % 2:  # an odd count: the last list is the output's
        eq += "->" + _sublist_term(args[-1], "output subscript list")
    return eq, tuple(args[2 * k] for k in range(n_ops))


def einsum(equation: Any, *operands: Any) -> Tensor:
    """Einstein summation: ``einsum("bij,bjk->bik", a, b)``; operands as arguments or one
    list (torch and Paddle both), or PyTorch's sublist form ``einsum(a, [0, 1], b, [1, 2],
    [0, 2])`` (ints 0-51 and ``Ellipsis``; the output list optional). See the module docs
    for the contraction planner."""
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation, *operands))
    elif not isinstance(equation, str):
        raise TypeError(
            "einsum(): expected an equation str first (einsum('ij,jk->ik', a, b)), or a "
            "Tensor for the sublist form (einsum(a, [0, 1], b, [1, 2])), got "
            f"{type(equation).__name__}"
        )
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise _err("expected at least one operand")
    ts = [as_tensor(o, "einsum") for o in operands]
    dtype = ts[0].dtype
    for t in ts[1:]:
        if t.dtype != dtype:
            dtype = promote_types(dtype, t.dtype)
    # mixed dtypes: every operand in the promoted one first (PyTorch refuses them), so no
    # pairwise contraction runs in a narrower dtype than the result's
    ts = [t if t.dtype == dtype else t.astype(dtype) for t in ts]
    steps = _plan(equation, tuple(tuple(t.shape) for t in ts))
    for st in steps:
        kind, i = st[0], st[1]
        if kind == "diag":
            ts[i] = _diag(ts[i], st[2], st[3])
        elif kind == "squeeze":
            ts[i] = ts[i].reshape([s for p, s in enumerate(ts[i].shape) if p not in st[2]])
        elif kind == "sum":
            ts[i] = ts[i].sum(list(st[2])) if ts[i].ndim else ts[i]
        elif kind == "mm":
            _, i, j, pi, pj, ra, rb, rc = st
            a = ts[i] if pi is None else ts[i].permute(*pi)
            b = ts[j] if pj is None else ts[j].permute(*pj)
            c = (a if ra is None else a.reshape(ra)) @ (b if rb is None else b.reshape(rb))
            ts[i] = c if rc is None else c.reshape(rc)
        else:  # final
            return ts[i] if st[2] is None else ts[i].permute(*st[2])
    raise AssertionError("einsum plan has no final step")
