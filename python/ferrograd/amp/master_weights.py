"""Float32 master weights for ``amp.decorate(level='O2')`` (Paddle's ``master_weight``,
on by default at O2; the optimizers' ``multi_precision``).

The model computes with its low-precision (float16 / bfloat16) parameters, and the
optimizer keeps pointing at them, so ``clear_grad``, ``GradScaler`` and gradient
clipping see the gradients backward writes. At each ``step`` the gradients are widened
onto the float32 originals (the master copies, which keep the optimizer's moments and
the parameters' ``ParamAttr`` settings), the update runs on those, and the results are
rounded back into the low-precision parameters. Updates smaller than the low dtype's
spacing therefore accumulate instead of being lost (``1 - 1e-4`` is ``1.0`` in
float16). ``state_dict`` / ``set_state_dict`` read and write the masters' state.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..grad_mode import enable_grad, no_grad


class _Masters:
    """The low-precision parameters of each group and their float32 masters."""

    def __init__(self, optimizer: Any, pairs: dict[int, tuple[Any, Any]]) -> None:
        # pairs: id(master) -> (master, low); the optimizer still holds the masters here
        self.opt = optimizer
        self.master_params = [list(g["params"]) for g in optimizer.param_groups]
        self.master_states = list(optimizer._group_states)
        self.low_params = [[pairs.get(id(p), (p, p))[1] for p in ps] for ps in self.master_params]

    @contextlib.contextmanager
    def swapped(self) -> Iterator[None]:
        """Points the optimizer at the masters (and their state) inside the block."""
        opt = self.opt
        if len(opt.param_groups) != len(self.master_params):
            raise RuntimeError(
                "amp.decorate(level='O2') master weights: parameter groups were added after "
                "decorate; add every group before decorating (or pass master_weight=False)"
            )
        saved = ([g["params"] for g in opt.param_groups], opt._group_states)
        for g, ps in zip(opt.param_groups, self.master_params):
            g["params"] = ps
        opt._group_states = self.master_states
        try:
            yield
        finally:
            for g, ps in zip(opt.param_groups, saved[0]):
                g["params"] = ps
            opt._group_states = saved[1]

    def pairs(self) -> Iterator[tuple[Any, Any]]:
        """``(master, low)`` for every parameter that has a low-precision copy."""
        for ms, ls in zip(self.master_params, self.low_params):
            for m, lo in zip(ms, ls):
                if m is not lo:
                    yield m, lo

    def step(self, step: Any, closure: Any = None) -> Any:
        """Widens the gradients, runs ``step`` on the masters, rounds the results back."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for m, lo in self.pairs():
            m.grad = None if lo.grad is None else lo.grad.astype(m.dtype)
            m.stop_gradient = lo.stop_gradient  # a layer frozen after decorate stays frozen
        with self.swapped():
            step()
        with no_grad():
            for m, lo in self.pairs():
                lo.set_value(m.astype(lo.dtype))
                m.grad = None
        return loss


def attach(optimizer: Any, pairs: dict[int, tuple[Any, Any]]) -> None:
    """Makes ``optimizer`` (still holding the float32 parameters) step through float32
    masters of the low-precision parameters ``pairs`` maps to (``id(master) -> (master,
    low)``); afterwards it holds the low-precision parameters."""
    masters = _Masters(optimizer, pairs)
    step, state_dict = optimizer.step, optimizer.state_dict
    load = getattr(optimizer, "load_state_dict", None)

    def master_step(closure: Any = None) -> Any:
        """Updates the float32 master weights and rounds them into the parameters."""
        return masters.step(step, closure)

    def master_state_dict(*args: Any, **kwargs: Any) -> Any:
        """The optimizer's state (of the master weights)."""
        with masters.swapped():
            return state_dict(*args, **kwargs)

    def master_load_state_dict(*args: Any, **kwargs: Any) -> Any:
        """Restores the optimizer's state (into the master weights' state)."""
        with masters.swapped():
            out = load(*args, **kwargs)  # type: ignore[misc]
        return out

    optimizer.step = master_step
    optimizer.state_dict = master_state_dict
    if load is not None:
        optimizer.load_state_dict = master_load_state_dict
        optimizer.set_state_dict = master_load_state_dict
    optimizer._fg_master_weights = masters
