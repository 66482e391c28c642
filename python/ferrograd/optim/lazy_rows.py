"""Paddle's ``lazy_mode`` of ``Adam`` / ``AdamW``: with a sparse embedding gradient only the
rows the batch looked up are updated.

Paddle gives ``nn.Embedding(sparse=True)`` a SelectedRows gradient (the looked-up rows);
its Adam kernels with ``lazy_mode=True`` update the moments and values of those rows only,
leaving every other row (and its moments) as it was, while the step count (``beta1_pow``
/ ``beta2_pow``) advances for the whole parameter (``python/paddle/optimizer/adam.py``,
``lazy_mode``). ferrograd keeps the gradient dense and records, when the backward reaches
the lookup, which rows it covered (:func:`record_rows`); :func:`lazy_update` runs the
ordinary dense update and puts the other rows of the parameter and of its state buffers
back (``AdamW``'s decoupled decay still shrinks them: Paddle's sparse AdamW kernel decays
the whole parameter). A coupled L2 decay (``weight_decay`` of ``Adam``, a parameter's ``L2Decay``
regularizer) makes Paddle's gradient dense (``add_n`` of the rows and the dense decay
term, ``Optimizer._create_regularization_of_grad``), so such parameters get the dense
update there and here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor
from ..grad_mode import no_grad
from .grad_terms import param_lr_scale

_ATTR = "_lazy_rows"


def record_rows(rows: Tensor, weight: Tensor, ids: Tensor) -> None:
    """Registers on ``rows`` (the gathered rows of ``weight``) a gradient hook that adds
    ``ids`` to the rows recorded on ``weight`` once the backward reaches the lookup."""
    if not rows.requires_grad:
        return
    picked = np.unique(ids.numpy().reshape(-1)).astype(np.int64)

    def hook(grad: Tensor) -> None:
        seen = getattr(weight, _ATTR, None)
        setattr(weight, _ATTR, picked if seen is None else np.union1d(seen, picked))

    rows.register_hook(hook)


def take_rows(param: Tensor) -> Any:
    """The rows recorded on ``param`` since the last step (None when none), cleared."""
    seen = getattr(param, _ATTR, None)
    if seen is not None:
        setattr(param, _ATTR, None)
    return seen


def lazy_update(opt: Any, update: Callable[[], None]) -> None:
    """Runs ``update`` (the optimizer's dense step) and restores, for each parameter with
    recorded rows, a gradient and no coupled L2 decay, the rows it did not look up:
    their values and their state buffers (zeros where the buffers did not exist yet)."""
    saved = []
    for gi, group in enumerate(opt.param_groups):
        st = opt._group_states[gi]
        for pi, p in enumerate(group["params"]):
            seen = take_rows(p)
            if seen is None or p.grad is None or _dense_terms(opt, group, p):
                continue
            keep = np.setdiff1d(np.arange(p.shape[0]), seen)
            if keep.size == 0:
                continue
            idx = _core.tensor(keep)
            bufs = [b[idx].clone() for b in st.buffers(pi)]
            saved.append((group, p, st, pi, idx, p.detach()[idx].clone(), bufs))
    update()
    with no_grad():
        for group, p, st, pi, idx, value, bufs in saved:
            wd = 0.0 if opt._l2_in_grad(group) else float(group.get("weight_decay") or 0.0)
            if wd:
                # AdamW's decoupled decay covers every row (Paddle's sparse AdamW kernel,
                # phi/kernels/selected_rows/cpu/adamw_kernel.cc, decays the whole param)
                value = value * (1.0 - float(group["lr"]) * param_lr_scale(p) * wd)
            p[idx] = value
            for i, b in enumerate(st.buffers(pi)):
                b[idx] = bufs[i] if i < len(bufs) else 0.0


def _dense_terms(opt: Any, group: dict[str, Any], p: Tensor) -> bool:
    """Whether a decay term is added to ``p``'s gradient (its own regularizer, else the
    group's coupled ``weight_decay`` or ``l1_decay``), which makes Paddle's gradient dense."""
    reg = getattr(p, "regularizer", None)
    if reg is not None:
        return float(getattr(reg, "coeff", 0.0)) != 0.0
    wd = float(group.get("weight_decay") or 0.0) if opt._l2_in_grad(group) else 0.0
    return wd != 0.0 or float(group.get("l1_decay") or 0.0) != 0.0
