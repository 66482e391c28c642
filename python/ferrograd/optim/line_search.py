"""The strong-Wolfe line search of ``LBFGS(line_search_fn="strong_wolfe")``, following
PyTorch's (itself after minFunc): bracket a step satisfying the strong Wolfe conditions,
then zoom with safeguarded cubic interpolation. Step sizes and losses are Python floats;
gradients are flat ferrograd tensors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Tensor = Any
Evaluate = Callable[[float], tuple[float, Tensor]]


def cubic_interpolate(
    x1: float,
    f1: float,
    g1: float,
    x2: float,
    f2: float,
    g2: float,
    bounds: tuple[float, float] | None = None,
) -> float:
    """The minimiser of the cubic through ``(x1, f1, g1)`` and ``(x2, f2, g2)``, clamped
    to ``bounds`` (default: the interval between the points); the midpoint when the cubic
    has no minimum."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square >= 0:
        d2 = math.sqrt(d2_square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def strong_wolfe(
    evaluate: Evaluate,
    t: float,
    d: Tensor,
    f: float,
    g: Tensor,
    gtd: float,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Tensor, float, int]:
    """Searches along ``d`` from the current point (loss ``f``, gradient ``g``, slope
    ``gtd``) starting at step ``t``; ``evaluate(t)`` gives the loss and flat gradient at
    ``x + t d``. Returns ``(loss, grad, t, evaluations)`` at the chosen step."""
    d_norm = float(d.abs().max())
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = float(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[float] = []
    bracket_f: list[float] = []
    bracket_g: list[Tensor] = []
    bracket_gtd: list[float] = []
    while ls_iter < max_ls:
        sufficient = not (f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev))
        if sufficient and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, bracket_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if not sufficient or gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        # extrapolate
        lo, hi = t + 0.01 * (t - t_prev), t * 10
        t_next = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo, hi))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g, bracket_gtd = (
            [0.0, t],
            [f, f_new],
            [g, g_new],
            [gtd, gtd_new],
        )

    # zoom: shrink the bracket until a point satisfies the strong Wolfe conditions
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            # too close to an end: move away from it unless the last step already did
            if insuf_progress or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = (
                t,
                f_new,
                g_new,
                gtd_new,
            )
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = (
                t,
                f_new,
                g_new,
                gtd_new,
            )
    return bracket_f[low], bracket_g[low], bracket[low], evals
