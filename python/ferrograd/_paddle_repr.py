"""Paddle's look for ``print(tensor)`` / ``repr(tensor)`` in Paddle code.

Paddle prints a tensor as ``Tensor(shape=[2], dtype=float32, place=Place(cpu),
stop_gradient=True,`` followed by the values on the next line, indented under the opening
parenthesis: every float with ``precision`` digits (8 unless ``set_printoptions`` says
otherwise), or as ``2.`` when it is a whole number, and each column padded to the widest
item. The rule is Paddle's own ``python/paddle/tensor/to_string.py``
(``tensor_to_string``, ``_format_item``, ``_format_tensor``); this module writes it again
over a NumPy array of the values. The Rust ``Tensor.__repr__`` calls :func:`paddle_repr`
when the calling module is Paddle code (docs/dialects.md); PyTorch code and code of no
dialect keep PyTorch's ``tensor([...])``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["paddle_repr"]

# Paddle's PrintOptions defaults; ``set_printoptions`` overrides them for both looks
_DEFAULTS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80}


def _options() -> dict[str, Any]:
    from ._conveniences import get_printoptions

    opts = dict(_DEFAULTS)
    set_ = get_printoptions()
    opts.update({k: v for k, v in set_.items() if k in _DEFAULTS})
    # Paddle's sci_mode is False unless set (ferrograd's None, "NumPy decides", is unset)
    opts["sci_mode"] = set_.get("sci_mode") is True
    return opts


def _summary(a: np.ndarray, edge: int) -> np.ndarray:
    """The elements that will be printed (the first and last ``edge`` of each long
    dimension), to size the columns over."""
    if a.size == 0:
        return np.array([])
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:edge], a[-edge:]]) if a.shape[0] > 2 * edge else a
    rows = list(a[:edge]) + list(a[-edge:]) if a.shape[0] > 2 * edge else list(a)
    return np.stack([_summary(r, edge) for r in rows])


def _item(v: Any, opts: dict[str, Any], width: int = 0, signed: bool = False) -> str:
    """One element in Paddle's spelling, padded to ``width`` (a leading space for the
    non-negative ones when some element is negative)."""
    if isinstance(v, np.floating):
        p = opts["precision"]
        if opts["sci_mode"]:
            s = f"{v:.{p}e}"
        elif np.ceil(v) == v:
            s = f"{v:.0f}."
        else:
            s = f"{v:.{p}f}"
    else:
        s = f"{v}"
    if width <= len(s):
        return s
    if signed:
        return s.ljust(width) if v < 0 else " " + s.ljust(width - 1)
    return s.ljust(width)


def _width(a: np.ndarray, opts: dict[str, Any]) -> tuple[int, bool]:
    width, signed = 0, False
    for v in a.flatten():
        if not signed and not np.iscomplexobj(v) and v < 0:
            signed = True
        width = max(width, len(_item(v, opts)))
    return width, signed


def _body(
    a: np.ndarray, opts: dict[str, Any], summary: bool, indent: int, width: int, signed: bool
) -> str:
    edge = opts["edgeitems"]
    if a.ndim == 0:
        return _item(a[()], opts, width, signed)
    long = summary and a.shape[0] > 2 * edge
    if a.ndim == 1:
        items = [_item(v, opts, width, signed) for v in (a[:edge] if long else a)]
        if long:
            items += ["..."] + [_item(v, opts, width, signed) for v in a[-edge:]]
        per_line = max(1, (opts["linewidth"] - indent) // (width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_body(r, opts, summary, indent + 1, width, signed) for r in (a[:edge] if long else a)]
    if long:
        parts += ["..."] + [_body(r, opts, summary, indent + 1, width, signed) for r in a[-edge:]]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def paddle_repr(values: np.ndarray, dtype: str, stop_gradient: bool) -> str:
    """``Tensor(shape=[...], dtype=..., place=Place(cpu), stop_gradient=...,`` and the
    values below it, as Paddle prints them (``values``: the tensor's elements as NumPy
    holds them; bfloat16 comes as float32, as Paddle converts it too)."""
    opts = _options()
    indent = len("Tensor") + 1
    summary = values.size > opts["threshold"] and values.ndim > 0
    width, signed = _width(_summary(values, opts["edgeitems"]), opts)
    data = _body(values, opts, summary, indent, width, signed)
    return (
        f"Tensor(shape={list(values.shape)}, dtype={dtype}, place=Place(cpu), "
        f"stop_gradient={stop_gradient},\n{' ' * indent}{data})"
    )


def tensor_paddle_repr(t: Any) -> str:
    """:func:`paddle_repr` of a tensor (``Parameter``'s repr in Paddle code)."""
    data = t.detach()
    name = str(data.dtype).rpartition(".")[2]
    if name == "bfloat16":
        data = data.float()
    return paddle_repr(np.asarray(data.numpy()), name, bool(t.stop_gradient))
