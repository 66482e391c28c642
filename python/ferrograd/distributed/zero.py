"""``ZeroRedundancyOptimizer`` (ZeRO stage 1, as torch's): the optimizer state is
sharded across ranks. Each parameter has one owner rank (parameters are dealt out
largest first to the least-loaded rank, the same way on every rank); each rank's inner
optimizer holds and updates only the parameters it owns, then every parameter is
broadcast from its owner. Gradients must already be averaged (use it with DDP), so the
result equals the unsharded optimizer's, with about ``1/world_size`` of its state per
rank (``local_state_bytes()``)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

import ferrograd as fg

from . import _buffers as B
from .group import ProcessGroup, resolve, wait_all


def _param_list(params: Iterable[Any]) -> list:
    out, seen = [], set()
    for p in params:
        if isinstance(p, dict):
            raise TypeError(
                "ZeroRedundancyOptimizer takes a flat iterable of parameters (parameter "
                "groups are not supported yet)"
            )
        if id(p) not in seen:
            seen.add(id(p))
            out.append(p)
    return out


class ZeroRedundancyOptimizer:
    """Wraps ``optimizer_class(my_params, **defaults)`` so that each rank keeps only its
    shard of the optimizer state (see the module documentation)."""

    def __init__(
        self,
        params: Iterable[Any],
        optimizer_class: Callable[..., Any],
        process_group: Optional[ProcessGroup] = None,
        **defaults: Any,
    ) -> None:
        self._group = resolve(process_group)
        self.params = _param_list(params)
        n = self._group.size()
        load = [0] * n
        self.owner = [0] * len(self.params)
        order = sorted(range(len(self.params)), key=lambda i: (-self.params[i].numel(), i))
        for i in order:
            r = min(range(n), key=lambda k: (load[k], k))
            self.owner[i] = r
            load[r] += self.params[i].numel() * self.params[i].element_size()
        me = self._group.rank()
        mine = [p for p, o in zip(self.params, self.owner) if o == me]
        # a rank that owns nothing still needs an optimizer for lr etc.; it gets no params
        self.optim = optimizer_class(mine, **defaults) if mine else None

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Updates this rank's shard, then broadcasts every parameter from its owner."""
        loss = None
        if closure is not None:
            with fg.enable_grad():
                loss = closure()
        if self.optim is not None:
            self.optim.step()
        g = self._group
        reqs = [
            g.comm.Ibcast(B.msg(B.raw_view(p)), root=o)
            for p, o in zip(self.params, self.owner)
            if p.numel()
        ]
        wait_all(reqs, g, "ZeroRedundancyOptimizer: broadcast of updated parameters")
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears every parameter's gradient (not only this rank's shard)."""
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad = fg.zeros_like(p.grad)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Paddle's spelling of ``zero_grad``."""
        self.zero_grad(set_to_none=not set_to_zero)

    def local_state_bytes(self) -> int:
        """Bytes of optimizer state (buffers such as Adam's moments) held by this rank."""
        if self.optim is None:
            return 0
        total = 0
        for st in self.optim.state.values():
            for v in st.values():
                if isinstance(v, fg.Tensor):
                    total += v.numel() * v.element_size()
        return total

    @property
    def param_groups(self) -> list:
        """The inner optimizer's groups (this rank's shard)."""
        return [] if self.optim is None else self.optim.param_groups
