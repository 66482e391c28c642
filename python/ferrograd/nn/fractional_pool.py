"""PyTorch's fractional max pooling (Graham, 2014): ``F.fractional_max_pool2d/3d``
(``*_with_indices``) and ``nn.FractionalMaxPool2d/3d``.

Each ``[N, C]`` plane is pooled with ``kernel_size`` windows whose starts follow a
pseudo-random sequence per spatial dim: with ``alpha = (in - k) / (out - 1)`` and the
plane's sample ``u`` in ``[0, 1)``, the starts are ``int((i + u) * alpha) - int(u *
alpha)`` for ``i < out - 1`` and ``in - k`` for the last (PyTorch's rule). The samples are
drawn from ferrograd's generator, shape ``[N, C, dims]``, or given as ``_random_samples``
(the order of the last dim is PyTorch's: ``(w, h)`` in 2-D, ``(t, h, w)`` in 3-D).
A composite of a gather and a max (the gradient goes to each window's maximum).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from .module import Module

Tensor = _core.Tensor


def _tuple(v: Any, nd: int, what: str, kind: type) -> tuple:
    vals = tuple(v) if isinstance(v, (list, tuple)) else (v,) * nd
    if len(vals) != nd:
        raise ValueError(f"{what} must be a {kind.__name__} or a tuple of {nd}, got {v!r}")
    return vals


def _starts(inp: int, out: int, k: int, u: float) -> list:
    if out == 1:
        return [inp - k]
    alpha = (inp - k) / (out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [inp - k]


def _fractional(
    nd: int,
    x: Any,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    samples: Any,
) -> tuple:
    op = f"fractional_max_pool{nd}d"
    if not isinstance(x, Tensor) or x.ndim not in (nd + 1, nd + 2):
        raise ValueError(f"{op}: expects a {nd + 1}-D or {nd + 2}-D Tensor input")
    unbatched = x.ndim == nd + 1
    if unbatched:
        x = x.unsqueeze(0)
    n, c, *size = [int(s) for s in x.shape]
    ks = _tuple(kernel_size, nd, "kernel_size", int)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _tuple(output_ratio, nd, "output_ratio", float)
        outs = tuple(int(s * float(r)) for s, r in zip(size, ratio))
    else:
        outs = tuple(int(o) for o in _tuple(output_size, nd, "output_size", int))
    names = ("time", "height", "width")[3 - nd :]
    for k, o, s, name in zip(ks, outs, size, names):
        if k < 1 or o < 1:
            raise ValueError(f"{op}: kernel_size and output_size must be positive")
        if o + k - 1 > s:
            raise RuntimeError(
                f"{op}(): pool {name} {k} too large relative to input {name} {s} "
                f"(output {name} {o}: needs output + pool - 1 <= input)"
            )
    if samples is None:
        from ..random_gen import _gen

        u = _core._uniform([n, c, nd], 0.0, 1.0, _core.float64, _gen(None, op)).numpy()
    else:
        u = samples.detach().numpy() if isinstance(samples, Tensor) else np.asarray(samples)
        if u.shape != (n, c, nd):
            raise RuntimeError(f"{op}: _random_samples must have shape {[n, c, nd]}, got {list(u.shape)}")  # fmt: skip
    # the sample for spatial dim d: PyTorch's order, (w, h) in 2-D and (t, h, w) in 3-D
    order = (1, 0) if nd == 2 else (0, 1, 2)
    strides = [math.prod(size[d + 1 :]) for d in range(nd)]
    offsets = np.zeros([*ks], dtype=np.int64)  # flat offsets of a window's elements
    for d in range(nd):
        shape = [1] * nd
        shape[d] = ks[d]
        offsets = offsets + np.arange(ks[d]).reshape(shape) * strides[d]
    idx = np.zeros((n, c, *outs, math.prod(ks)), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            starts = [np.array(_starts(size[d], outs[d], ks[d], float(u[b, ch, order[d]])))
                      for d in range(nd)]  # fmt: skip
            base = np.zeros(outs, dtype=np.int64)
            for d in range(nd):
                shape = [1] * nd
                shape[d] = outs[d]
                base = base + starts[d].reshape(shape) * strides[d]
            idx[b, ch] = base[..., None] + offsets.reshape(-1)
    flat = x.reshape([n, c, -1])
    gather = _core.tensor(idx.reshape(n, c, -1))
    windows = flat.take_along_dim(gather, 2).reshape([n, c, *outs, math.prod(ks)])
    best = windows.argmax(-1, keepdim=True)
    out = windows.take_along_dim(best, -1).squeeze(-1)
    indices = _core.tensor(idx).take_along_dim(best, -1).squeeze(-1)
    if unbatched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> tuple:
    """2-D fractional max pooling: ``(output, indices)`` (flat positions in each
    ``H * W`` plane)."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> tuple:
    """3-D fractional max pooling: ``(output, indices)``."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """2-D fractional max pooling of ``[N, C, H, W]`` (or ``[C, H, W]``) to
    ``output_size`` (or ``int(size * output_ratio)``); ``return_indices`` also returns
    the positions."""
    out = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    """3-D fractional max pooling of ``[N, C, T, H, W]`` (or unbatched)."""
    out = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


class _FractionalMaxPool(Module):
    _nd = 2

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Any = None,
    ) -> None:
        super().__init__()
        what = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{what} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if output_ratio is not None:
            ratio = _tuple(output_ratio, self._nd, "output_ratio", float)
            for r in ratio:
                if not 0 < float(r) < 1:
                    raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
            output_ratio = ratio
        self.kernel_size = _tuple(kernel_size, self._nd, "kernel_size", int)
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def forward(self, input: Tensor) -> Any:
        """The pooled input (and the indices with ``return_indices``)."""
        out = _fractional(
            self._nd, input, self.kernel_size, self.output_size, self.output_ratio,
            self._random_samples,
        )  # fmt: skip
        return out if self.return_indices else out[0]


class FractionalMaxPool2d(_FractionalMaxPool):
    """``FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: ``F.fractional_max_pool2d``."""

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    """``FractionalMaxPool3d(...)``: ``F.fractional_max_pool3d``."""

    _nd = 3


__all__ = [
    "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices", "FractionalMaxPool2d", "FractionalMaxPool3d",
]  # fmt: skip
