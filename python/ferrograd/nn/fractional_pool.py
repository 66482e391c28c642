"""PyTorch's fractional max pooling (Graham, 2014): ``F.fractional_max_pool2d/3d``
(``*_with_indices``) and ``nn.FractionalMaxPool2d/3d``.

Each ``[N, C]`` plane is pooled with ``kernel_size`` windows whose starts follow a
pseudo-random sequence per spatial dim: with ``alpha = (in - k) / (out - 1)`` and the
plane's sample ``u`` in ``[0, 1)``, the starts are ``int((i + u) * alpha) - int(u *
alpha)`` for ``i < out - 1`` and ``in - k`` for the last (PyTorch's rule). The samples are
drawn from ferrograd's generator, shape ``[N, C, dims]``, or given as ``_random_samples``
(the order of the last dim is PyTorch's: ``(w, h)`` in 2-D, ``(t, h, w)`` in 3-D).
A composite of a gather and a max (the gradient goes to each window's maximum).

Paddle's ``F.fractional_max_pool2d/3d(x, output_size, kernel_size=None, random_u=None,
return_mask=False)`` and ``nn.FractionalMaxPool2D/3D`` (in Paddle code, or with Paddle's
keywords) take one sample for the whole call and, without ``kernel_size``, pool disjoint
windows of ``floor(in / out)`` or one more elements (``_paddle_windows``); the mask is int32.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from .. import _core
from .._dialect import caller_dialect
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
    planes = []
    for b in range(n):
        for ch in range(c):
            windows = []
            for d in range(nd):
                starts = _starts(size[d], outs[d], ks[d], float(u[b, ch, order[d]]))
                windows.append([(st, st + ks[d]) for st in starts])
            planes.append(_window_index(size, windows))
    idx = np.stack(planes).reshape(n, c, *planes[0].shape)
    return _pooled(x, idx, unbatched)


def _window_index(size: list, windows: list) -> np.ndarray:
    """Flat positions in a plane of shape ``size`` of every window (``windows[d]``: the
    ``(start, end)`` of each output position along dim ``d``), ``[*outs, width]``; a
    window narrower than the widest repeats its last position (which leaves its maximum
    and the first position of it unchanged)."""
    nd = len(size)
    strides = [math.prod(size[d + 1 :]) for d in range(nd)]
    flat = np.zeros([1] * (2 * nd), dtype=np.int64)
    for d in range(nd):
        starts = np.array([w[0] for w in windows[d]], dtype=np.int64)
        ends = np.array([w[1] for w in windows[d]], dtype=np.int64)
        if np.any(ends <= starts):
            raise RuntimeError("fractional max pooling: a pooling window is empty")
        width = int((ends - starts).max())
        pos = starts[:, None] + np.minimum(np.arange(width)[None, :], (ends - starts - 1)[:, None])
        shape = [1] * (2 * nd)
        shape[d], shape[nd + d] = len(starts), width
        flat = flat + pos.reshape(shape) * strides[d]
    outs = flat.shape[:nd]
    return flat.reshape(*outs, -1)


def _pooled(x: Tensor, idx: np.ndarray, unbatched: bool, index_dtype: Any = None) -> tuple:
    """The maximum of every window (``idx``: ``[n or 1, c or 1, *outs, width]`` flat plane
    positions) and its position; the gradient goes to the maximum."""
    n, c = int(x.shape[0]), int(x.shape[1])
    idx = np.ascontiguousarray(np.broadcast_to(idx, (n, c, *idx.shape[2:])))
    outs = list(idx.shape[2:-1])
    flat = x.reshape([n, c, -1])
    gather = _core.tensor(idx.reshape(n, c, -1))
    windows = flat.take_along_dim(gather, 2).reshape([n, c, *outs, int(idx.shape[-1])])
    best = windows.argmax(-1, keepdim=True)
    out = windows.take_along_dim(best, -1).squeeze(-1)
    indices = _core.tensor(idx).take_along_dim(best, -1).squeeze(-1)
    if index_dtype is not None:
        indices = indices.astype(index_dtype)
    if unbatched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


def _paddle_windows(inp: int, out: int, k: int, u: float) -> list:
    """Paddle's windows along one dim (its float32 arithmetic): with ``kernel_size``,
    PyTorch's starts (``alpha = (in - k) / (out - 1)``, the sample as given) and width
    ``k``; without, disjoint windows between ``int((i + u') * alpha) - int(u' * alpha)``
    for ``alpha = in / out`` and ``u'`` the sample scaled into the range that keeps every
    gap within ``[floor(alpha), floor(alpha) + 1]`` (Graham's pseudo-random sequence)."""
    f = np.float32
    if k > 0:
        alpha = f(inp - k) / f(out - 1) if out > 1 else f(inp - k)
        uu = f(u)
    else:
        alpha = f(inp) / f(out)
        whole = inp // out
        u_max = min(f(whole + 2) / alpha - f(1), f(inp + 1 - whole) / alpha - f(out - 1))
        uu = f(u) * f(u_max)
    base = int(f(uu * alpha))
    starts = [int(f(f(i + uu) * alpha)) - base for i in range(out)]
    if k > 0:
        return [(max(st, 0), min(st + k, inp)) for st in starts]
    ends = [int(f(f(i + 1 + uu) * alpha)) - base for i in range(out)]
    return [(max(st, 0), min(en, inp)) for st, en in zip(starts, ends)]


def _paddle_fractional(
    nd: int, x: Any, output_size: Any, kernel_size: Any, random_u: Any, return_mask: Any
) -> Any:
    op = f"fractional_max_pool{nd}d"
    if not isinstance(x, Tensor) or x.ndim != nd + 2:
        got = f"{x.ndim}-D" if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"{op}: expects a {nd + 2}-D Tensor input, got {got}")
    size = [int(v) for v in x.shape[2:]]
    outs = list(_tuple(output_size, nd, "output_size", int))
    outs = [size[d] if o is None else int(o) for d, o in enumerate(outs)]
    ks = [0] * nd if kernel_size is None else [int(k) for k in _tuple(kernel_size, nd, "kernel_size", int)]  # fmt: skip
    for d in range(nd):
        if outs[d] < 1 or ks[d] < 0 or size[d] < outs[d] - 1 + ks[d]:
            raise ValueError(
                f"{op}: input size {size[d]} is less than valid output size {outs[d]} "
                f"(needs input >= output - 1 + kernel_size)"
            )
    if random_u is None:
        from ..random_gen import _gen

        u = float(_core._uniform([1], 0.0, 1.0, _core.float64, _gen(None, op)).item())
    else:
        u = random_u
        if isinstance(u, bool) or not isinstance(u, float) or not 0.0 < u < 1.0:
            raise ValueError("The param `random_u` should be a `float` in (0, 1).")
    windows = [_paddle_windows(size[d], outs[d], ks[d], u) for d in range(nd)]
    idx = _window_index(size, windows)[None, None]
    out, mask = _pooled(x, idx, False, _core.int32)
    return (out, mask) if return_mask else out


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


_PADDLE_KW = {"x", "random_u", "return_mask", "name"}
_TORCH_KW = {"input", "output_ratio", "return_indices", "_random_samples"}


def _dispatch(nd: int, args: tuple, kwargs: dict) -> Any:
    keys = set(kwargs)
    if keys & _PADDLE_KW:
        paddle = True
    elif keys & _TORCH_KW:
        paddle = False
    else:
        paddle = caller_dialect(3, through_layers=True) == "paddle"
    if paddle:
        names = ("x", "output_size", "kernel_size", "random_u", "return_mask", "name")
        if len(args) > len(names):
            raise TypeError(f"fractional_max_pool{nd}d() takes at most {len(names)} arguments")
        o = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in o or k not in names:
                raise TypeError(f"fractional_max_pool{nd}d() got an unexpected or repeated argument {k!r}")  # fmt: skip
            o[k] = v
        if "x" not in o or "output_size" not in o:
            raise TypeError(f"fractional_max_pool{nd}d() needs x and output_size")
        return _paddle_fractional(
            nd, o["x"], o["output_size"], o.get("kernel_size"), o.get("random_u"),
            o.get("return_mask", False),
        )  # fmt: skip
    return _torch_fractional(nd, *args, **kwargs)


def _torch_fractional(
    nd: int,
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Any = None,
) -> Any:
    out = _fractional(nd, input, kernel_size, output_size, output_ratio, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool2d(*args: Any, **kwargs: Any) -> Any:
    """2-D fractional max pooling. PyTorch's ``(input, kernel_size, output_size=None,
    output_ratio=None, return_indices=False, _random_samples=None)``: ``[N, C, H, W]`` (or
    ``[C, H, W]``) to ``output_size`` (or ``int(size * output_ratio)``). Paddle's ``(x,
    output_size, kernel_size=None, random_u=None, return_mask=False)`` in Paddle code or
    with its keywords: one sample ``random_u`` for the call, disjoint windows without
    ``kernel_size``, an int32 mask."""
    return _dispatch(2, args, kwargs)


def fractional_max_pool3d(*args: Any, **kwargs: Any) -> Any:
    """3-D fractional max pooling (``[N, C, T, H, W]``); arguments as
    :func:`fractional_max_pool2d`."""
    return _dispatch(3, args, kwargs)


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


class _PaddleFractionalMaxPool(Module):
    _nd = 2

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any = None,
        random_u: Optional[float] = None,
        return_mask: bool = False,
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        self._output_size, self._kernel_size = output_size, kernel_size
        self._random_u, self._return_mask = random_u, return_mask

    def forward(self, x: Tensor) -> Any:
        """The pooled input (and the int32 mask with ``return_mask``)."""
        return _paddle_fractional(
            self._nd, x, self._output_size, self._kernel_size, self._random_u,
            self._return_mask,
        )  # fmt: skip

    def extra_repr(self) -> str:
        """The output size (and the options given)."""
        s = f"output_size={self._output_size}"
        if self._kernel_size is not None:
            s += f", kernel_size={self._kernel_size}"
        return s + (", return_mask=True" if self._return_mask else "")


class FractionalMaxPool2D(_PaddleFractionalMaxPool):
    """Paddle's ``FractionalMaxPool2D(output_size, kernel_size=None, random_u=None,
    return_mask=False)``."""

    _nd = 2


class FractionalMaxPool3D(_PaddleFractionalMaxPool):
    """Paddle's ``FractionalMaxPool3D(output_size, kernel_size=None, random_u=None,
    return_mask=False)``."""

    _nd = 3


__all__ = [
    "FractionalMaxPool2D", "FractionalMaxPool3D",
    "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices", "FractionalMaxPool2d", "FractionalMaxPool3d",
]  # fmt: skip
