"""Loss scaling for low-precision training: ``paddle.amp.GradScaler`` / ``AmpScaler``
and ``torch.amp.GradScaler`` / ``torch.cpu.amp.GradScaler``, one class for both
spellings.

``scale(loss)`` multiplies the loss by the scale; after ``backward()``, ``unscale_(opt)``
divides the gradients of ``opt``'s parameters by it and records whether any is inf/NaN;
``step(opt)`` unscales (if not done yet) and steps unless a gradient was inf/NaN;
``update()`` adjusts the scale (dynamic loss scaling): after ``decr_every_n_nan_or_inf``
steps with inf/NaN gradients in a row it is multiplied by ``decr_ratio`` (PyTorch:
``backoff_factor``, every such step), after ``incr_every_n_steps`` finite steps in a row
by ``incr_ratio`` (PyTorch: ``growth_interval`` / ``growth_factor``). Paddle's
``minimize(opt, loss)`` is ``step`` then ``update``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core
from ..grad_mode import no_grad

__all__ = ["GradScaler", "AmpScaler", "OptimizerState"]


class OptimizerState:
    """PyTorch's per-optimizer stage names (``READY`` / ``UNSCALED`` / ``STEPPED``)."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _params(optimizer: Any) -> list[Any]:
    groups = getattr(optimizer, "param_groups", None)
    if groups is not None:
        return [p for g in groups for p in g["params"]]
    plist = getattr(optimizer, "_parameter_list", None)
    if plist is not None:
        return list(plist)
    raise TypeError(
        f"GradScaler: expected an optimizer with param_groups, got {type(optimizer).__name__}"
    )


class GradScaler:
    """One scaler for both peers. Paddle: ``GradScaler(enable=True,
    init_loss_scaling=65536.0, incr_ratio=2.0, decr_ratio=0.5, incr_every_n_steps=2000,
    decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True)``; PyTorch:
    ``GradScaler(device="cpu", init_scale=65536.0, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``. A string first argument
    is PyTorch's ``device`` (only ``"cpu"``), a bool Paddle's ``enable``."""

    def __init__(
        self,
        enable: Any = True,
        init_loss_scaling: float = 2.0**16,
        incr_ratio: float = 2.0,
        decr_ratio: float = 0.5,
        incr_every_n_steps: int = 2000,
        decr_every_n_nan_or_inf: int = 1,
        use_dynamic_loss_scaling: bool = True,
        *,
        device: Optional[str] = None,
        init_scale: Optional[float] = None,
        growth_factor: Optional[float] = None,
        backoff_factor: Optional[float] = None,
        growth_interval: Optional[int] = None,
        enabled: Optional[bool] = None,
    ) -> None:
        if isinstance(enable, str):  # torch: GradScaler("cpu", ...)
            device, enable = enable, True
        if device is not None and str(device).split(":")[0] != "cpu":
            raise ValueError(
                f"GradScaler: device {device!r} is not available: ferrograd runs on the CPU only"
            )
        self._enable = bool(enable if enabled is None else enabled)
        self._scale = float(init_loss_scaling if init_scale is None else init_scale)
        self._incr_ratio = float(incr_ratio if growth_factor is None else growth_factor)
        self._decr_ratio = float(decr_ratio if backoff_factor is None else backoff_factor)
        self._incr_every = int(incr_every_n_steps if growth_interval is None else growth_interval)
        self._decr_every = int(decr_every_n_nan_or_inf)
        self._dynamic = bool(use_dynamic_loss_scaling)
        if not self._scale > 0 or not math.isfinite(self._scale):
            raise ValueError(
                f"GradScaler: the initial scale must be a positive number, got {self._scale}"
            )
        if self._incr_ratio <= 1.0:
            raise ValueError(
                f"GradScaler: incr_ratio / growth_factor must be > 1, got {self._incr_ratio}"
            )
        if not 0.0 < self._decr_ratio < 1.0:
            raise ValueError(
                f"GradScaler: decr_ratio / backoff_factor must be in (0, 1), got {self._decr_ratio}"
            )
        if self._incr_every < 1 or self._decr_every < 1:
            raise ValueError(
                "GradScaler: incr_every_n_steps / growth_interval and decr_every_n_nan_or_inf must be >= 1"
            )
        self._init_scale = self._scale
        self._good_steps = 0
        self._bad_steps = 0
        self._found_inf = False
        self._stage: dict[int, int] = {}

    # ---- scaling --------------------------------------------------------------------

    def scale(self, var: Any) -> Any:
        """``var * scale`` (a Tensor, or a list / tuple of them); unchanged when disabled."""
        if not self._enable:
            return var
        if isinstance(var, (list, tuple)):
            return type(var)(self.scale(v) for v in var)
        if not isinstance(var, _core.Tensor):
            raise TypeError(f"GradScaler.scale: expected a Tensor, got {type(var).__name__}")
        return var * self._scale

    def unscale_(self, optimizer: Any) -> None:
        """Divides the gradients of ``optimizer``'s parameters by the scale (in place)
        and records whether any of them is inf or NaN. Once per step."""
        if not self._enable:
            return
        key = id(optimizer)
        stage = self._stage.get(key, OptimizerState.READY)
        if stage == OptimizerState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if stage == OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        with no_grad():
            for p in _params(optimizer):
                g = p.grad
                if g is None:
                    continue
                g2 = g * inv
                # a sparse .grad (nn.Embedding(sparse=True)): its coalesced values count
                vals = g2 if isinstance(g2, _core.Tensor) else g2.coalesce().values()
                if not bool(vals.isfinite().all()):
                    found = True
                p.grad = g2
        self._found_inf = self._found_inf or found
        self._stage[key] = OptimizerState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscales (if ``unscale_`` was not called), then ``optimizer.step()`` unless a
        gradient was inf/NaN. Returns what ``step`` returned (None when skipped)."""
        if not self._enable:
            return optimizer.step(*args, **kwargs)
        key = id(optimizer)
        if self._stage.get(key) == OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if self._stage.get(key, OptimizerState.READY) == OptimizerState.READY:
            self.unscale_(optimizer)
        out = None if self._found_inf else optimizer.step(*args, **kwargs)
        self._stage[key] = OptimizerState.STEPPED
        return out

    def update(self, new_scale: Optional[float] = None) -> None:
        """Adjusts the scale after a step (dynamic loss scaling), or sets ``new_scale``."""
        if not self._enable:
            return
        if new_scale is not None:
            self._scale = float(getattr(new_scale, "item", lambda: new_scale)())
        elif self._dynamic:
            if self._found_inf:
                self._good_steps = 0
                self._bad_steps += 1
                if self._bad_steps >= self._decr_every:
                    self._scale *= self._decr_ratio
                    self._bad_steps = 0
            else:
                self._bad_steps = 0
                self._good_steps += 1
                if self._good_steps >= self._incr_every:
                    self._scale *= self._incr_ratio
                    self._good_steps = 0
        self._found_inf = False
        self._stage.clear()

    def minimize(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Paddle's ``minimize(optimizer, scaled_loss)``: after ``scaled_loss.backward()``,
        unscales, steps unless a gradient was inf/NaN, and updates the scale."""
        del args, kwargs  # the loss: its gradients are already accumulated
        out = self.step(optimizer)
        self.update()
        return out

    # ---- queries and state ------------------------------------------------------------

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled, as PyTorch)."""
        return self._scale if self._enable else 1.0

    def get_loss_scaling(self) -> Any:
        """Paddle: the current scale as a Tensor."""
        return _core.tensor(self._scale, dtype=_core.float32)

    def is_enabled(self) -> bool:
        """Whether scaling is on."""
        return self._enable

    is_enable = is_enabled

    def is_use_dynamic_loss_scaling(self) -> bool:
        """Whether the scale changes with inf/NaN checks."""
        return self._dynamic

    # Paddle's get/set pairs (``paddle.amp.GradScaler``, ``AmpScaler`` in
    # python/paddle/amp/grad_scaler.py); ``set_init_loss_scaling`` also resets the scale

    def get_init_loss_scaling(self) -> float:
        """Paddle: the initial loss scaling factor (the current one: ``get_loss_scaling``)."""
        return self._init_scale

    def set_init_loss_scaling(self, new_init_loss_scaling: float) -> None:
        """Paddle: sets the initial factor and restarts the scale from it."""
        value = float(new_init_loss_scaling)
        if not value > 0 or not math.isfinite(value):
            raise ValueError(
                f"set_init_loss_scaling: the scale must be a positive number, got {value}"
            )
        self._init_scale = self._scale = value

    def get_incr_ratio(self) -> float:
        """Paddle: the factor the scale grows by."""
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio: float) -> None:
        """Paddle: sets the growth factor (must be > 1)."""
        if not float(new_incr_ratio) > 1.0:
            raise ValueError(f"set_incr_ratio: the ratio must be > 1.0, got {new_incr_ratio}")
        self._incr_ratio = float(new_incr_ratio)

    def get_decr_ratio(self) -> float:
        """Paddle: the factor the scale shrinks by after inf/NaN gradients."""
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio: float) -> None:
        """Paddle: sets the backoff factor (must be in (0, 1))."""
        if not 0.0 < float(new_decr_ratio) < 1.0:
            raise ValueError(f"set_decr_ratio: the ratio must be in (0, 1), got {new_decr_ratio}")
        self._decr_ratio = float(new_decr_ratio)

    def get_incr_every_n_steps(self) -> int:
        """Paddle: finite steps in a row before the scale grows."""
        return self._incr_every

    def set_incr_every_n_steps(self, new_incr_every_n_steps: int) -> None:
        """Paddle: sets the steps before the scale grows (>= 1)."""
        if int(new_incr_every_n_steps) < 1:
            raise ValueError(f"set_incr_every_n_steps: must be >= 1, got {new_incr_every_n_steps}")
        self._incr_every = int(new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self) -> int:
        """Paddle: inf/NaN steps before the scale shrinks."""
        return self._decr_every

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf: int) -> None:
        """Paddle: sets the inf/NaN steps before the scale shrinks (>= 1)."""
        if int(new_decr_every_n_nan_or_inf) < 1:
            raise ValueError(
                f"set_decr_every_n_nan_or_inf: must be >= 1, got {new_decr_every_n_nan_or_inf}"
            )
        self._decr_every = int(new_decr_every_n_nan_or_inf)

    def get_growth_factor(self) -> float:
        return self._incr_ratio

    def get_backoff_factor(self) -> float:
        return self._decr_ratio

    def get_growth_interval(self) -> int:
        return self._incr_every

    def state_dict(self) -> dict[str, Any]:
        """The scale and the counters (both peers' key names)."""
        if not self._enable:
            return {}
        return {
            "scale": self._scale,
            "growth_factor": self._incr_ratio,
            "backoff_factor": self._decr_ratio,
            "growth_interval": self._incr_every,
            "incr_ratio": self._incr_ratio,
            "decr_ratio": self._decr_ratio,
            "incr_every_n_steps": self._incr_every,
            "_growth_tracker": self._good_steps,
            "incr_count": self._good_steps,
            "decr_count": self._bad_steps,
            "decr_every_n_nan_or_inf": self._decr_every,
            "use_dynamic_loss_scaling": self._dynamic,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores what ``state_dict`` returned."""
        if not state_dict:
            raise RuntimeError(
                "GradScaler.load_state_dict: the state dict is empty (saved from a disabled scaler)"
            )
        # Paddle saves the scale as a [1] array (``self._scale.numpy()``), PyTorch a float
        self._scale = float(np.asarray(state_dict["scale"], dtype=np.float64).reshape(-1)[0])
        self._init_scale = self._scale  # Paddle's load_state_dict resets the initial scale too

        def either(torch_key: str, paddle_key: str, default: Any) -> Any:
            return state_dict.get(torch_key, state_dict.get(paddle_key, default))

        self._incr_ratio = float(either("growth_factor", "incr_ratio", self._incr_ratio))
        self._decr_ratio = float(either("backoff_factor", "decr_ratio", self._decr_ratio))
        self._incr_every = int(either("growth_interval", "incr_every_n_steps", self._incr_every))
        self._good_steps = int(state_dict.get("_growth_tracker", state_dict.get("incr_count", 0)))
        self._bad_steps = int(state_dict.get("decr_count", 0))
        self._decr_every = int(state_dict.get("decr_every_n_nan_or_inf", self._decr_every))
        self._dynamic = bool(state_dict.get("use_dynamic_loss_scaling", self._dynamic))

    set_state_dict = load_state_dict


AmpScaler = GradScaler
