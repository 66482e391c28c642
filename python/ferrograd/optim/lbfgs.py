"""L-BFGS (PyTorch's ``torch.optim.LBFGS``), in Python over ferrograd tensor ops."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

from .._core import Tensor
from .._ops_special_more import view_as_real
from ..grad_mode import enable_grad, no_grad
from .line_search import strong_wolfe
from .optimizer import Optimizer, _check_number, _coeff, _refuse_sparse


def _accept_unused(weight_decay: Any, grad_clip: Any) -> None:
    """Checks Paddle's ``weight_decay`` / ``grad_clip`` arguments of ``LBFGS``, which
    Paddle accepts but never applies (its ``step`` reads the raw gradients: the steps are
    the same with or without them); ferrograd takes the same steps and says so once."""
    if grad_clip is not None and not callable(grad_clip):
        raise TypeError(
            "grad_clip must be a gradient clip object such as nn.ClipGradByGlobalNorm(1.0), "
            f"got {type(grad_clip).__name__}"
        )
    if weight_decay is not None:
        _coeff(weight_decay, "weight_decay")  # a number or a regularizer object
    given = [n for n, v in (("weight_decay", weight_decay), ("grad_clip", grad_clip)) if v]
    if given:
        warnings.warn(
            f"LBFGS: {' and '.join(given)} {'is' if len(given) == 1 else 'are'} not applied, "
            "as in Paddle (whose LBFGS accepts them but steps on the raw gradients); add "
            "the penalty to the closure's loss instead",
            UserWarning,
            stacklevel=3,
        )


class LBFGS(Optimizer):
    """Limited-memory BFGS, as in PyTorch: ``LBFGS(params, lr=1, max_iter=20,
    max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9, history_size=100,
    line_search_fn=None)``; Paddle: ``LBFGS(learning_rate=1.0, ..., parameters=...)``.
    ``step(closure)`` needs the closure (which clears the
    gradients, computes the loss, calls ``backward()`` and returns the loss); it runs up
    to ``max_iter`` iterations and returns the first loss. One parameter group only.
    Directions come from the two-loop recursion over the last ``history_size`` curvature
    pairs; the step starts at ``lr`` (on the very first iteration ``min(1, 1 / |g|_1) *
    lr``) and is kept as is, or with ``line_search_fn="strong_wolfe"`` adjusted by a
    line search satisfying the strong Wolfe conditions (PyTorch's). Paddle's
    ``weight_decay`` and ``grad_clip`` are accepted and, as in Paddle, not applied (a
    warning says so).
    """

    def __init__(
        self,
        params: Any = None,
        lr: float = 1.0,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
        maximize: bool = False,
        *,
        learning_rate: Any = None,
        parameters: Any = None,
        weight_decay: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _accept_unused(weight_decay, grad_clip)
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(
                f"LBFGS: line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}"
            )
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults: dict[str, Any] = {
            "lr": lr,
            "max_iter": int(max_iter),
            "max_eval": int(max_eval),
            "tolerance_grad": float(tolerance_grad),
            "tolerance_change": float(tolerance_change),
            "history_size": int(history_size),
            "line_search_fn": line_search_fn,
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        for key in ("max_iter", "max_eval", "history_size"):
            if defaults[key] < 1:
                raise ValueError(f"LBFGS: {key} must be at least 1, got {defaults[key]}")
        self._params: list[Tensor] = self.param_groups[0]["params"]
        self._state: dict[str, Any] = {"func_evals": 0, "n_iter": 0}

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("tolerance_grad", float(group["tolerance_grad"]))
        _check_number("tolerance_change", float(group["tolerance_change"]))

    def _flat_grad(self) -> Tensor:
        from .. import cat, zeros

        parts = []
        for p in self._params:
            g = p.grad
            _refuse_sparse("LBFGS", g)
            g = zeros(list(p.shape), dtype=p.dtype) if g is None else g
            # a complex parameter is two real numbers per element (PyTorch's
            # _gather_flat_grad flattens view_as_real of the gradient): the dot products
            # below must not mix real and imaginary parts
            parts.append((view_as_real(g) if g.dtype.is_complex else g).reshape([-1]))
        flat = cat(parts).detach()
        # maximize: minimise the negated loss (its gradient negated too), as PyTorch
        return -flat if self.param_groups[0].get("maximize", False) else flat

    def _loss(self, value: Any) -> float:
        """The closure's loss as minimised (negated when maximizing)."""
        v = float(value)
        return -v if self.param_groups[0].get("maximize", False) else v

    def _add(self, t: float, d: Tensor) -> None:
        """``p += t * d`` over the parameters, ``d`` flat."""
        offset = 0
        with no_grad():
            for p in self._params:
                if p.dtype.is_complex:
                    p = view_as_real(p)  # steps the real view, as PyTorch's _add_grad
                n = p.numel()
                p.add_((d[offset : offset + n] * t).reshape(list(p.shape)))
                offset += n

    def _flat_params(self) -> list[Tensor]:
        return [p.detach().clone() for p in self._params]

    def _restore(self, saved: list[Tensor]) -> None:
        with no_grad():
            for p, s in zip(self._params, saved):
                p.copy_(s)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # noqa: C901
        """Runs up to ``max_iter`` L-BFGS iterations; returns the closure's first loss."""
        if closure is None:
            raise TypeError("LBFGS.step() needs a closure that re-evaluates the model")
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history = group["history_size"]
        st = self._state

        with enable_grad():
            orig_loss = closure()
        loss = self._loss(orig_loss)
        current_evals = 1
        st["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(flat_grad.abs().max()) <= tol_grad:
            return orig_loss

        d: Any = st.get("d")
        t: Any = st.get("t")
        old_dirs, old_stps, ro = st.get("old_dirs", []), st.get("old_stps", []), st.get("ro", [])
        h_diag = st.get("H_diag", 1.0)
        prev_flat_grad: Any = st.get("prev_flat_grad")
        prev_loss: Any = st.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1.0
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = float(y.dot(s))
                if ys > 1e-10:  # keep the pair only if the curvature condition holds
                    if len(old_dirs) == history:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y.dot(y))
                al = [0.0] * len(old_dirs)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = float(old_stps[i].dot(q)) * ro[i]
                    q = q - old_dirs[i] * al[i]
                r = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = float(old_dirs[i].dot(r)) * ro[i]
                    r = r + old_stps[i] * (al[i] - be_i)
                d = r
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            if st["n_iter"] == 1:
                t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr
            else:
                t = lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tol_change:  # not a descent direction
                break
            ls_evals = 0
            if group["line_search_fn"] == "strong_wolfe":
                saved = self._flat_params()

                def evaluate(step: float, d: Tensor = d, saved: list[Tensor] = saved) -> Any:
                    self._add(step, d)
                    with enable_grad():
                        value = self._loss(closure())
                    grad = self._flat_grad()
                    self._restore(saved)
                    return value, grad

                loss, flat_grad, t, ls_evals = strong_wolfe(
                    evaluate, t, d, loss, flat_grad, gtd, tolerance_change=tol_change
                )
                self._add(t, d)
            else:
                self._add(t, d)
                if n_iter != max_iter:
                    with enable_grad():
                        loss = self._loss(closure())
                    flat_grad = self._flat_grad()
                    ls_evals = 1
            current_evals += ls_evals
            st["func_evals"] += ls_evals
            if n_iter == max_iter or current_evals >= max_eval:
                break
            if float(flat_grad.abs().max()) <= tol_grad:
                break
            if float((d * t).abs().max()) <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break

        st.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_stps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_flat_grad,
            prev_loss=prev_loss,
        )
        return orig_loss

    def _param_state(self, gi: int, pi: int) -> dict[str, Any]:
        return dict(self._state) if pi == 0 else {}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restores ``state_dict()``'s output (the history lives with parameter 0)."""
        groups = state_dict.get("param_groups")
        if groups is None or "state" not in state_dict or len(groups) != 1:
            raise ValueError("load_state_dict: expected one LBFGS parameter group")
        saved = dict(state_dict["state"].get(groups[0]["params"][0], {}))
        self._state = {"func_evals": 0, "n_iter": 0, **saved}
        for k, v in groups[0].items():
            if k != "params":
                self.param_groups[0][k] = v

    set_state_dict = load_state_dict
