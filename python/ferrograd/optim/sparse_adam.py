"""PyTorch's ``optim.SparseAdam``: Adam's "lazy" variant, which updates the moments and
the parameter only where the gradient has entries.

With a sparse COO ``.grad`` (``nn.Embedding(..., sparse=True)``, ``p.grad =
sparse_coo_tensor(...)``) that is PyTorch's update exactly: the rows are the gradient's
stored entries (coalesced; an entry whose value is zero still counts), and only those
rows of the moments and the parameter are read and written.

PyTorch raises on a dense gradient; here a dense gradient is taken too, and then "has an
entry" means "is nonzero": for a parameter with two or more dimensions a row (an index
along dim 0, as the rows of an embedding table) is updated when any element of its
gradient row is nonzero, the whole row; a 1-D (or 0-d) parameter is updated element by
element. A looked-up row whose dense gradient happens to be exactly zero counts as
untouched then (PyTorch's sparse gradient would still decay its moments).
"""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from ..grad_mode import no_grad
from .optimizer import Optimizer, _check_betas, _real_grads


class SparseAdam(Optimizer):
    """Lazy Adam: ``SparseAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
    maximize=False)``. At step ``t``, on the rows ``R`` where the gradient is nonzero
    (see the module note; elsewhere nothing changes)::

        m[R] = b1 * m[R] + (1 - b1) * g[R];   v[R] = b2 * v[R] + (1 - b2) * g[R]**2
        p[R] -= lr * sqrt(1 - b2**t) / (1 - b1**t) * m[R] / (sqrt(v[R]) + eps)

    ``t`` counts the steps in which the parameter had a gradient. State per parameter:
    ``step``, ``exp_avg``, ``exp_avg_sq``.
    """

    _buffer_names = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        b1, b2 = betas
        defaults = {
            "lr": lr,
            "betas": (float(b1), float(b2)),
            "eps": float(eps),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_betas(group)
        eps = float(group["eps"])
        if not eps > 0.0:
            raise ValueError(f"Invalid epsilon value: {eps} (it must be > 0)")

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        lr, eps = float(group["lr"]), float(group["eps"])
        b1, b2 = (float(b) for b in group["betas"])
        with no_grad():
            sparse = set(state.sparse_grads())
            for pi, p, grad in _real_grads(group, "SparseAdam", sparse_ok=sparse):
                bufs = state.buffers(pi) or [_core.zeros_like(p), _core.zeros_like(p)]
                step = state.step_count(pi) + 1
                size = lr * math.sqrt(1.0 - b2**step) / (1.0 - b1**step)
                if pi in sparse:
                    _lazy_rows(p, grad, bufs, (b1, b2), size, eps)
                    state.set_state(pi, bufs, step)
                    continue
                touched = grad != 0
                if p.ndim >= 2:
                    touched = touched.reshape([p.shape[0], -1]).any(dim=1)
                    touched = touched.reshape([p.shape[0]] + [1] * (p.ndim - 1))
                m = _core.where(touched, bufs[0] * b1 + grad * (1.0 - b1), bufs[0])
                v = _core.where(touched, bufs[1] * b2 + grad * grad * (1.0 - b2), bufs[1])
                delta = m / (v.sqrt() + eps) * size
                p.sub_(_core.where(touched, delta, _core.zeros_like(delta)))
                state.set_state(pi, [m, v], step)


def _lazy_rows(
    p: Any, grad: Any, bufs: list[Any], betas: tuple[float, float], size: float, eps: float
) -> None:
    """The SparseAdam update at the stored entries of the sparse gradient ``grad`` only
    (the parameter viewed as [entries of the sparse dims, *dense dims])."""
    b1, b2 = betas
    g = grad.coalesce()
    keys = g._keys("SparseAdam")
    vals = g._values().detach()
    nsd = g.sparse_dim()
    rows = 1
    for s in p.shape[:nsd]:
        rows *= int(s)
    flat = [rows, *p.shape[nsd:]]
    target = p if p.is_contiguous() else p.contiguous()
    pf, mf, vf = target.view(flat), bufs[0].view(flat), bufs[1].view(flat)
    m = mf.index_select(0, keys) * b1 + vals * (1.0 - b1)
    v = vf.index_select(0, keys) * b2 + vals * vals * (1.0 - b2)
    mf.index_copy_(0, keys, m)
    vf.index_copy_(0, keys, v)
    pf.index_add_(0, keys, m / (v.sqrt() + eps), alpha=-size)
    if target is not p:
        p.copy_(target)
