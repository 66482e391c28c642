"""A base for optimizers whose update is written in Python and whose per-parameter state
does not fit the Rust ``ParamGroupState`` (which keeps only buffers shaped like the
parameter): ASGD's scalars ``eta`` / ``mu``, Paddle ASGD's ``batch_num`` stored
gradients. The state lives in a dict per parameter; ``state[param]``, ``state_dict`` and
``load_state_dict`` read and write it in PyTorch's layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core import Tensor
from .optimizer import Optimizer, _real_grads


def _plain(value: Any) -> Any:
    """A saved state entry as kept here: tensors copied, 0-d ``step`` tensors as ints."""
    return value.clone() if isinstance(value, Tensor) else value


class PythonStateOptimizer(Optimizer):
    """Keeps each parameter's state in ``self._pstate[(group index, parameter index)]``;
    subclasses implement ``_update_param(group, state_dict_of_param, param, grad)``."""

    #: state entries that are numbers, exposed as 0-d float64 tensors as PyTorch does
    _scalar_names: tuple[str, ...] = ()
    #: step a complex parameter as its ``view_as_real`` (two independent reals), as
    #: PyTorch's Rprop and ASGD do; others refuse complex parameters with a TypeError
    _complex_as_real: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._pstate: dict[tuple[int, int], dict[str, Any]] = {}
        super().__init__(*args, **kwargs)

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        from ..grad_mode import no_grad

        gi = next(i for i, st in enumerate(self._group_states) if st is state)
        with no_grad():
            for pi, p, grad in _real_grads(
                group, type(self).__name__, complex_ok=self._complex_as_real
            ):
                st = self._pstate.setdefault((gi, pi), {})
                if p.dtype.is_complex:
                    self._update_as_real(group, st, p, grad)
                else:
                    self._update_param(group, st, p, grad)

    def _update_as_real(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        """Runs ``_update_param`` on the real views of complex ``p``, ``grad`` and the
        state tensors, then keeps the state complex and shaped like ``p`` (PyTorch's
        layout: ``state[p]["prev"]`` of a complex parameter is complex)."""
        from .._ops_special_more import view_as_complex, view_as_real

        real = {
            k: view_as_real(v) if isinstance(v, Tensor) and v.dtype.is_complex else v
            for k, v in st.items()
        }
        self._update_param(group, real, view_as_real(p), view_as_real(grad))
        paired = list(p.shape) + [2]
        for k, v in real.items():
            if isinstance(v, Tensor) and list(v.shape) == paired and not v.dtype.is_complex:
                v = view_as_complex(v.contiguous())
            st[k] = v

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        raise NotImplementedError

    def _param_state(self, gi: int, pi: int) -> dict[str, Any]:
        from .. import _core

        st = self._pstate.get((gi, pi))
        if not st:
            return {}
        out = dict(st)
        for name in self._scalar_names:
            if name in out:
                out[name] = _core.tensor(float(out[name]), dtype=_core.float64)
        return out

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restores hyper-parameters and per-parameter state saved by ``state_dict``
        (tensors are copied; ``step`` and the scalar entries may be numbers or 0-d
        tensors)."""
        super().load_state_dict(state_dict)
        self._pstate.clear()
        states = state_dict["state"]
        for gi, saved in enumerate(state_dict["param_groups"]):
            for pi, idx in enumerate(saved["params"]):
                s = states.get(idx)
                if not s:
                    continue
                mine = {k: _plain(v) for k, v in s.items()}
                for name in ("step", *self._scalar_names):
                    v = mine.get(name)
                    if isinstance(v, Tensor):
                        mine[name] = v.item()
                if "step" in mine:
                    mine["step"] = int(mine["step"])
                self._check_loaded(self.param_groups[gi]["params"][pi], mine)
                self._pstate[(gi, pi)] = mine

    set_state_dict = load_state_dict

    def _check_loaded(self, p: Any, st: dict[str, Any]) -> None:
        """Refuses a loaded state whose buffers do not fit parameter ``p``."""
        for name, v in st.items():
            if isinstance(v, Tensor) and name not in self._scalar_names:
                want = list(self._buffer_shape(name, p))
                if list(v.shape) != want:
                    raise ValueError(
                        f"load_state_dict: state '{name}' has shape {list(v.shape)}, the "
                        f"parameter needs {want}"
                    )

    def _buffer_shape(self, name: str, p: Any) -> list[int]:
        return list(p.shape)
