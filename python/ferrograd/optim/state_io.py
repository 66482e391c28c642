"""The optimizer's state: ``optimizer.state``, ``state_dict`` and ``load_state_dict``
(Paddle's ``set_state_dict``), a base class of ``Optimizer``.

The state dict has PyTorch's layout, ``{"state": {index: {...}}, "param_groups": [...]}``,
parameters numbered across groups; an optimizer driven by a Paddle ``LRScheduler`` also
saves the scheduler under ``"LR_Scheduler"`` as Paddle does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import _core
from .._core import Tensor
from .optimizer_hooks import OptimizerHooks
from .state_view import StateView as _StateView


class OptimizerStateIO(OptimizerHooks):
    """Reads and restores an optimizer's per-parameter state (buffers kept by the Rust
    group states, or Python dicts for ``differentiable`` groups)."""

    #: names of the per-parameter state buffers, in the order the Rust kernel keeps them
    _buffer_names: tuple[str, ...] = ()
    param_groups: list[dict[str, Any]]
    _group_states: list[Any]
    #: group index -> parameter index -> state, for the groups with ``differentiable``
    _diff_state: dict[int, dict[int, dict[str, Any]]]
    _lr_scheduler: Any
    _sync_scheduler: Callable[[], None]

    @property
    def state(self) -> _StateView:
        """``state[param]``: that parameter's ``step`` and buffers (shared tensors)."""
        return _StateView(self)

    def _diff_states(self, state: Any) -> dict[int, dict[str, Any]]:
        """The per-parameter states (index -> dict) of the group whose Rust state is
        ``state``, for a differentiable step (kept in Python: they hold graphs)."""
        gi = next(i for i, st in enumerate(self._group_states) if st is state)
        return self._diff_state.setdefault(gi, {})

    def _param_state(self, gi: int, pi: int) -> dict[str, Any]:
        if self.param_groups[gi].get("differentiable"):
            # the live dict, as PyTorch's: opt.state[p].update(...) sets the state
            return self._diff_state.setdefault(gi, {}).setdefault(pi, {})
        st = self._group_states[gi]
        bufs = st.buffers(pi)
        if not bufs and st.step_count(pi) == 0:
            return {}
        out: dict[str, Any] = {"step": st.step_count(pi)}
        out.update(zip(self._buffer_names, bufs))
        return out

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [...]}`` in PyTorch's layout;
        parameters are referred to by their index across groups."""
        state: dict[int, dict[str, Any]] = {}
        groups = []
        index = 0
        for gi, group in enumerate(self.param_groups):
            ids = []
            for pi in range(len(group["params"])):
                s = self._param_state(gi, pi)
                if s:
                    state[index] = {
                        k: (v.clone() if isinstance(v, Tensor) else v) for k, v in s.items()
                    }
                ids.append(index)
                index += 1
            g = {k: v for k, v in group.items() if k != "params"}
            g["params"] = ids
            groups.append(g)
        out: dict[str, Any] = {"state": state, "param_groups": groups}
        if self._lr_scheduler is not None:  # Paddle's optimizer saves its scheduler
            out["LR_Scheduler"] = self._lr_scheduler.state_dict()
        return out

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restores hyper-parameters and per-parameter state saved by ``state_dict``
        (buffers are copied). The groups must have the same sizes as this optimizer's."""
        groups = state_dict.get("param_groups")
        if groups is None or "state" not in state_dict:
            raise ValueError("load_state_dict: expected a dict with 'state' and 'param_groups'")
        if len(groups) != len(self.param_groups):
            raise ValueError(
                f"load_state_dict: the state has {len(groups)} parameter groups, this "
                f"optimizer has {len(self.param_groups)}"
            )
        for gi, (saved, mine) in enumerate(zip(groups, self.param_groups)):
            if len(saved["params"]) != len(mine["params"]):
                raise ValueError(
                    f"load_state_dict: group {gi} has {len(saved['params'])} parameters in "
                    f"the state, {len(mine['params'])} here"
                )
        states = state_dict["state"]
        for gi, (saved, mine) in enumerate(zip(groups, self.param_groups)):
            for pi, idx in enumerate(saved["params"]):
                s = states.get(idx)
                if self.param_groups[gi].get("differentiable"):
                    self._diff_state.setdefault(gi, {})[pi] = {
                        k: (v.clone() if isinstance(v, Tensor) else v) for k, v in (s or {}).items()
                    }
                    continue
                if s is None:
                    self._group_states[gi].set_state(pi, [], 0)
                    continue
                bufs = self._buffers_from(s, mine["params"][pi])
                step = s.get("step", 0)
                step = int(step.item() if isinstance(step, Tensor) else step)
                self._group_states[gi].set_state(pi, bufs, step)
            for k, v in saved.items():
                if k != "params":
                    mine[k] = v
        scheduler_state = state_dict.get("LR_Scheduler")
        if scheduler_state is not None and self._lr_scheduler is not None:
            self._lr_scheduler.load_state_dict(scheduler_state)
            self._sync_scheduler()

    set_state_dict = load_state_dict

    def _buffers_from(self, saved: Mapping[str, Any], param: Tensor) -> list[Any]:
        """The kernel's buffer list (``_buffer_names`` order, by position) from a saved
        state: a buffer missing before a present one is zeros (torch leaves out buffers a
        configuration does not use: RMSprop(centered=True) saves ``grad_avg`` but no
        ``momentum_buffer``, which put ``grad_avg`` in the momentum slot)."""
        names = self._buffer_names
        present = [i for i, n in enumerate(names) if saved.get(n) is not None]
        if not present:
            return []
        return [
            saved[n] if saved.get(n) is not None else _core.zeros_like(param)
            for n in names[: present[-1] + 1]
        ]
