"""The short-time Fourier transform and its inverse: PyTorch's ``torch.stft`` /
``torch.istft`` (and the ``Tensor`` methods) and Paddle's ``paddle.signal.stft`` /
``paddle.signal.istft``.

Both are compositions of differentiable ops, so gradients (w.r.t. the signal and the
window, of any order) come from the ops they are made of:

- ``stft`` pads the signal (``center``: ``n_fft // 2`` on each side, by ``pad_mode``),
  cuts it into frames with one gather (an index tensor maps every frame position to a
  position of the unpadded signal, so the padding is part of the same gather), multiplies
  by the window (zero-padded to ``n_fft`` in the centre) and runs ``fft.rfft`` /
  ``fft.fft`` along the frame (``norm='ortho'`` when ``normalized``).
- ``istft`` runs ``fft.irfft`` / ``fft.ifft`` per frame, multiplies by the window,
  overlap-adds the frames with ``index_add`` and divides by the overlap-added squared
  window (the envelope), after checking that it is nowhere (almost) zero: the NOLA
  condition, as PyTorch.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from . import _core
from . import fft as _fft

Tensor = _core.Tensor

__all__ = ["stft", "istft"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_INT_DTYPES = (_core.uint8, _core.int8, _core.int16, _core.int32, _core.int64)


class _SignalError(ValueError, RuntimeError):
    """A bad argument to ``stft`` / ``istft`` (PyTorch raises RuntimeError; a ValueError
    too, so that either ``except`` catches it)."""


def _pos_int(op: str, name: str, v: Any) -> int:
    if isinstance(v, bool):
        raise TypeError(f"{op}: {name} must be an int, got {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{op}: {name} must be an int, got {v!r}") from None


def _real_dtype(t: Tensor) -> Any:
    d = t.dtype
    if d.is_complex:
        return _core.float64 if d.name == "complex128" else _core.float32
    return d if d.is_floating_point else _core._get_default_dtype()


def _window(op: str, window: Any, win_length: int, n_fft: int, dtype: Any) -> Tensor:
    """The window zero-padded to ``n_fft`` in the centre (ones when None)."""
    if window is None:
        w = _core.ones([win_length], dtype=dtype)
    else:
        w = window if isinstance(window, Tensor) else _core.tensor(window)
        if len(w.shape) != 1 or w.shape[0] != win_length:
            raise _SignalError(
                f"{op}: expected a 1D window tensor of size equal to win_length={win_length}, "
                f"but got window with size {list(w.shape)}"
            )
    if win_length == n_fft:
        return w
    left = (n_fft - win_length) // 2
    right = n_fft - win_length - left
    parts = [_core.zeros([left], dtype=w.dtype), w, _core.zeros([right], dtype=w.dtype)]
    return _core.concat(parts, 0)


def _lengths(op: str, n_fft: Any, hop_length: Any, win_length: Any) -> tuple[int, int, int]:
    n = _pos_int(op, "n_fft", n_fft)
    if n <= 0:
        raise _SignalError(f"{op}: expected n_fft > 0, but got n_fft={n}")
    hop = n // 4 if hop_length is None else _pos_int(op, "hop_length", hop_length)
    if hop <= 0:
        raise _SignalError(f"{op}: expected hop_length > 0, but got hop_length={hop}")
    win = n if win_length is None else _pos_int(op, "win_length", win_length)
    if not 0 < win <= n:
        raise _SignalError(f"{op}: expected 0 < win_length <= n_fft, but got win_length={win}")
    return n, hop, win


def _positions(length: int, pad: int, mode: str) -> np.ndarray:
    """For each position of the padded signal, the position of the unpadded one it reads
    (``length``: a zero appended for ``'constant'``)."""
    j = np.arange(-pad, length + pad, dtype=np.int64)
    if mode == "reflect":
        j = np.abs(j)
        return np.where(j >= length, 2 * (length - 1) - j, j)
    if mode == "replicate":
        return np.clip(j, 0, length - 1)
    if mode == "circular":
        return j % length
    return np.where((j < 0) | (j >= length), length, j)


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """Short-time Fourier transform of a 1-D ``(L,)`` or batched 2-D ``(B, L)`` signal,
    as ``torch.stft``: a complex ``(B?, n_fft // 2 + 1 or n_fft, n_frames)`` tensor
    (``return_complex=False``: its ``view_as_real`` layout, a trailing dimension of 2).

    ``hop_length`` defaults to ``n_fft // 4``, ``win_length`` to ``n_fft``, ``window`` to
    ones; a window shorter than ``n_fft`` is zero-padded in the centre. ``center`` pads
    ``n_fft // 2`` on each side by ``pad_mode`` (``'reflect'``, ``'constant'``,
    ``'replicate'``, ``'circular'``). ``normalized`` scales by ``n_fft ** -0.5``.
    ``onesided`` (default: True for a real signal and window) keeps ``n_fft // 2 + 1``
    bins. A real signal needs ``return_complex`` given, as PyTorch 2.x.
    ``align_to_window=True`` (with ``center=False``) starts each frame where its window
    starts (frames at ``t * hop_length`` of the window, ``1 + (L - win_length) // hop``
    of them) instead of where the ``n_fft`` frame starts."""
    op = "stft"
    x = input if isinstance(input, Tensor) else _core.tensor(input)
    if len(x.shape) not in (1, 2):
        raise _SignalError(f"{op}: expected a 1D or 2D tensor, got {len(x.shape)}D")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        # SpectralOps.cpp stft (paddle_stft casts an integer signal first, as Paddle)
        raise _SignalError(
            f"{op}: expected a tensor of floating point or complex values, got {x.dtype}"
        )
    if align_to_window is not None and center:
        raise _SignalError(f"{op}: align_to_window should only be set when center = false")
    n, hop, win = _lengths(op, n_fft, hop_length, win_length)
    w = _window(op, window, win, n, _real_dtype(x))
    is_complex = x.dtype.is_complex or w.dtype.is_complex
    if return_complex is None:
        if not is_complex:
            raise _SignalError(
                "stft requires the return_complex parameter be given for real inputs, "
                "and will further require that return_complex=True in a future PyTorch "
                "release."
            )
        return_complex = True
    elif not return_complex:
        warnings.warn(
            "stft with return_complex=False is deprecated: it returns the "
            "view_as_real layout of the complex result",
            UserWarning,
            stacklevel=2,
        )
    if onesided is None:
        onesided = not is_complex
    elif onesided and is_complex:
        raise _SignalError("Cannot have onesided output if window or input is complex")
    batched = len(x.shape) == 2
    x2 = x if batched else x.reshape([1, -1])
    if align_to_window and win < n:
        # frames start where their window starts: the signal framed as if zero-padded by
        # the window's offset inside the n_fft frame
        left = (n - win) // 2
        zeros = [_core.zeros([x2.shape[0], k], dtype=x2.dtype) for k in (left, n - win - left)]
        x2 = _core.concat([zeros[0], x2, zeros[1]], 1)
    length = x2.shape[1]
    pad = n // 2 if center else 0
    if pad:
        if pad_mode not in _PAD_MODES:
            raise _SignalError(f"{op}: pad_mode must be one of {_PAD_MODES}, got {pad_mode!r}")
        if (pad_mode == "reflect" and pad >= length) or (pad_mode == "circular" and pad > length):
            raise _SignalError(
                f"{op}: padding size should be less than the signal length, but got "
                f"padding ({pad}, {pad}) for a signal of length {length} (pad_mode={pad_mode!r})"
            )
        if pad_mode == "constant":
            x2 = _core.concat([x2, _core.zeros([x2.shape[0], 1], dtype=x2.dtype)], 1)
    padded = length + 2 * pad
    if not 0 < n <= padded:
        raise _SignalError(f"{op}: expected 0 < n_fft <= {padded}, but got n_fft={n}")
    n_frames = 1 + (padded - n) // hop
    pos = _positions(length, pad, pad_mode)
    idx = pos[np.arange(n_frames)[:, None] * hop + np.arange(n)[None, :]]
    frames = x2[:, _core.tensor(idx)] * w  # (B, n_frames, n_fft)
    norm = "ortho" if normalized else "backward"
    if onesided:
        spec = _fft.rfft(frames, dim=-1, norm=norm)
    else:
        spec = _fft.fft(frames, dim=-1, norm=norm)
    out = spec.transpose(1, 2)
    if not batched:
        out = out.reshape(list(out.shape[1:]))
    return out if return_complex else out.view_as_real()


def istft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """Inverse short-time Fourier transform, as ``torch.istft``: the complex
    ``(B?, n_freq, n_frames)`` spectrogram back to a ``(B?, L)`` signal by inverse FFT of
    each frame, windowing, overlap-add and division by the overlap-added squared window.

    ``onesided`` defaults to ``n_freq != n_fft``; ``length`` crops (or zero-pads) the
    result; ``center`` removes the ``n_fft // 2`` padding ``stft`` added. Raises when the
    window envelope is (almost) zero somewhere in the kept range (NOLA)."""
    op = "istft"
    x = input if isinstance(input, Tensor) else _core.tensor(input)
    if not x.dtype.is_complex:
        raise _SignalError(f"{op} requires a complex-valued input tensor, got {x.dtype.name}")
    if len(x.shape) not in (2, 3):
        raise _SignalError(f"{op}: expected a tensor with 2 or 3 dimensions, got {len(x.shape)}")
    n, hop, win = _lengths(op, n_fft, hop_length, win_length)
    w = _window(op, window, win, n, _real_dtype(x))
    batched = len(x.shape) == 3
    x3 = x if batched else x.reshape([1, *x.shape])
    n_freq, n_frames = x3.shape[1], x3.shape[2]
    if onesided is None:
        onesided = n_freq != n
    if onesided and n_freq != n // 2 + 1:
        raise _SignalError(
            f"{op}: expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft / 2 + 1 when onesided=True, but got {n_freq}"
        )
    if not onesided and n_freq != n:
        raise _SignalError(
            f"{op}: expected the frequency dimension (3rd to the last) of the input tensor "
            f"to match n_fft when onesided=False, but got {n_freq}"
        )
    if n_frames <= 0:
        raise _SignalError(f"{op}: expected at least one frame, got {n_frames}")
    spec = x3.transpose(1, 2)  # (B, n_frames, n_freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise _SignalError("Cannot have onesided output if window or input is complex")
        frames = _fft.ifft(spec, dim=-1, norm=norm)
    else:
        if w.dtype.is_complex:
            raise _SignalError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            spec = spec[:, :, : n // 2 + 1]
        frames = _fft.irfft(spec, n, dim=-1, norm=norm)
    frames = frames * w
    total = n + hop * (n_frames - 1)
    flat = (np.arange(n_frames)[:, None] * hop + np.arange(n)[None, :]).reshape(-1)
    idx = _core.tensor(flat)
    y = _core.zeros([frames.shape[0], total], dtype=frames.dtype)
    y = y.index_add(1, idx, frames.reshape([frames.shape[0], -1]))
    w2 = (w * w).reshape([1, n]).expand([n_frames, n]).reshape([-1])
    env = _core.zeros([total], dtype=w2.dtype).index_add(0, idx, w2)
    start = n // 2 if center else 0
    if length is not None:
        end = start + _pos_int(op, "length", length)
    else:
        end = total - n // 2 if center else total
    stop = min(end, total)
    y = y[:, start:stop]
    env = env[start:stop]
    lowest = float(env.abs().min().item()) if env.shape[0] else 0.0
    if lowest < 1e-11:
        raise _SignalError(
            f"{op}(n_fft={n}, hop_length={hop}, win_length={win}, center={center}): "
            f"window overlap add min: {lowest:g} (the window does not satisfy the NOLA "
            "condition: its squared overlap-add is zero somewhere)"
        )
    y = y / env
    if end > total:
        warnings.warn(
            "The length of signal is shorter than the length parameter. Result is being "
            "padded with zeros in the tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=2,
        )
        y = _core.concat([y, _core.zeros([y.shape[0], end - total], dtype=y.dtype)], 1)
    return y if batched else y.reshape([-1])


def paddle_stft(
    x: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool = True,
    name: str | None = None,
) -> Tensor:
    """``paddle.signal.stft``: as :func:`stft` with ``return_complex=True`` (the result is
    always complex); ``onesided`` defaults to True and is ignored for a complex signal
    or window (the full spectrum, as Paddle 3.3.1)."""
    xt = x if isinstance(x, Tensor) else _core.tensor(x)
    if xt.dtype in _INT_DTYPES:  # Paddle's fft_r2c casts it to the default float dtype
        xt = xt.astype(_core._get_default_dtype())
    if xt.dtype.is_complex or (isinstance(window, Tensor) and window.dtype.is_complex):
        onesided = False
    return stft(
        xt,
        n_fft,
        hop_length,
        win_length,
        window,
        center,
        pad_mode,
        normalized,
        onesided,
        return_complex=True,
    )


def paddle_istft(
    x: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool = True,
    length: int | None = None,
    return_complex: bool = False,
    name: str | None = None,
) -> Tensor:
    """``paddle.signal.istft``: as :func:`istft` with ``onesided`` defaulting to True."""
    return istft(
        x, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
        return_complex,
    )  # fmt: skip


def _stft_method(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """PyTorch: the short-time Fourier transform (``ferrograd.stft``)."""
    return stft(
        self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
        return_complex, align_to_window,
    )  # fmt: skip


def _istft_method(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """PyTorch: the inverse short-time Fourier transform (``ferrograd.istft``)."""
    return istft(
        self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
        return_complex,
    )  # fmt: skip


def _install_tensor_methods() -> None:
    """``Tensor.stft`` / ``Tensor.istft`` (PyTorch's methods)."""
    Tensor.stft = _stft_method  # type: ignore[method-assign]  # installed here
    Tensor.istft = _istft_method  # type: ignore[method-assign]  # installed here


_install_tensor_methods()
