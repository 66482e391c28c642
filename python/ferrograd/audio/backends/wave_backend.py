"""``paddle.audio.backends.wave_backend``: Paddle's default audio backend, 16-bit PCM WAV
files through the standard library's ``wave`` module (``info``, ``load``, ``save``).

Where Paddle 3.3.1's ``wave_backend.py`` gives a wrong result silently, this one does
what its documentation says or raises instead:

- ``load`` starts at ``frame_offset`` also when ``num_frames=-1`` (Paddle reads from the
  start then), and refuses WAV files that are not 16-bit (Paddle reads their bytes as
  16-bit samples);
- ``save`` clips floating samples to the 16-bit range (Paddle's ``astype('<h')`` wraps
  ``1.0`` round to ``-32768``), scales every floating dtype (Paddle scales only float32
  and writes the raw bytes of float64), and converts other integer dtypes when their
  values fit in 16 bits.

A file object passed to ``info`` / ``load`` is read from its current position and left
open (Paddle closes it).
"""

from __future__ import annotations

import os
import wave
from typing import Any, BinaryIO, Union

import numpy as np

from ... import _core
from .backend import AudioInfo

Tensor = _core.Tensor

__all__ = ["info", "load", "save"]

_PathOrFile = Union[str, "os.PathLike[str]", BinaryIO]


def _not_pcm16(path: Any, why: str) -> NotImplementedError:
    return NotImplementedError(
        f"{path!r}: {why}; the wave backend reads only 16-bit PCM WAV files (Paddle's "
        "'soundfile' backend from paddleaudio is not available in ferrograd)"
    )


def _open(filepath: _PathOrFile) -> tuple[Any, Any]:
    """``(wave reader, file it owns or None)`` for a path or a readable file object."""
    if hasattr(filepath, "read"):
        owned = None
        handle: Any = filepath
    else:
        owned = handle = open(os.fspath(filepath), "rb")  # noqa: SIM115 (closed by callers)
    try:
        return wave.open(handle, "rb"), owned
    except (wave.Error, EOFError) as e:
        if owned is not None:
            owned.close()
        raise _not_pcm16(filepath, f"not a PCM WAV file ({e})") from None


def info(filepath: _PathOrFile) -> AudioInfo:
    """The header of the WAV file at ``filepath`` (a path or a binary file object):
    sample rate, frames, channels, bits per sample and ``encoding='PCM_S'``."""
    reader, owned = _open(filepath)
    try:
        return AudioInfo(
            reader.getframerate(),
            reader.getnframes(),
            reader.getnchannels(),
            reader.getsampwidth() * 8,
            "PCM_S",
        )
    finally:
        if owned is not None:
            owned.close()


def load(
    filepath: _PathOrFile,
    frame_offset: int = 0,
    num_frames: int = -1,
    normalize: bool = True,
    channels_first: bool = True,
) -> tuple[Tensor, int]:
    """``(waveform, sample_rate)`` from a 16-bit PCM WAV file: ``num_frames`` frames
    (``-1``: all the rest) from ``frame_offset``. The waveform is float32 ``(channels,
    frames)`` (``channels_first=False``: ``(frames, channels)``), scaled to ``[-1, 1)``
    by ``1 / 32768`` when ``normalize`` and holding the raw integer sample values
    otherwise (float32, as Paddle's code; its docstring says int16)."""
    op = "load"
    offset, count = int(frame_offset), int(num_frames)
    reader, owned = _open(filepath)
    try:
        width, channels = reader.getsampwidth(), reader.getnchannels()
        if width != 2:
            raise _not_pcm16(filepath, f"its samples have {8 * width} bits")
        total = reader.getnframes()
        if not 0 <= offset <= total:
            raise ValueError(f"{op}: frame_offset must be in [0, {total}], got {frame_offset}")
        if count < -1:
            raise ValueError(f"{op}: num_frames must be -1 (all) or >= 0, got {num_frames}")
        reader.setpos(offset)
        data = reader.readframes(total - offset if count == -1 else count)
        sample_rate = reader.getframerate()
    finally:
        if owned is not None:
            owned.close()
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32)
    if normalize:
        samples /= 2**15
    wave_np = samples.reshape(-1, channels)
    if channels_first:
        wave_np = wave_np.T
    return _core.tensor(np.ascontiguousarray(wave_np)), sample_rate


def _pcm16(op: str, audio: np.ndarray) -> np.ndarray:
    """Samples as little-endian int16: floats scaled by 32768 (truncated, as Paddle, and
    clipped to the int16 range), integers kept when they fit."""
    if audio.dtype.kind == "f":
        if not np.isfinite(audio).all():
            raise ValueError(f"{op}: the audio holds NaN or infinite samples")
        return np.clip(audio.astype(np.float64) * 2**15, -(2**15), 2**15 - 1).astype("<i2")
    if audio.dtype.kind in "iu":
        if audio.size and (audio.min() < -(2**15) or audio.max() > 2**15 - 1):
            raise ValueError(
                f"{op}: integer samples must fit in 16 bits ([-32768, 32767]); scale them or "
                "pass floats in [-1, 1]"
            )
        return audio.astype("<i2")
    raise TypeError(f"{op}: expected floating or integer samples, got {audio.dtype}")


def save(
    filepath: _PathOrFile,
    src: Tensor,
    sample_rate: int,
    channels_first: bool = True,
    encoding: str | None = None,
    bits_per_sample: int | None = 16,
) -> None:
    """Write ``src`` (2-D: ``(channels, time)``, or ``(time, channels)`` when not
    ``channels_first``) as a 16-bit PCM WAV file at ``sample_rate``. Floating samples
    are in ``[-1, 1]`` (times 32768, truncated; clipped to the int16 range); integer
    samples are written as they are. ``encoding`` (``None``, ``'PCM_S'`` or
    ``'PCM_16'``) and ``bits_per_sample`` (16 or None) can only say 16-bit PCM."""
    op = "save"
    if not isinstance(src, Tensor):
        raise TypeError(f"{op}: src must be a Tensor, got {type(src).__name__}")
    if len(src.shape) != 2:
        raise ValueError(
            f"{op}: expected a 2D tensor (channels, time), got shape {list(src.shape)}"
        )
    if bits_per_sample not in (None, 16):
        raise ValueError(f"{op}: invalid bits_per_sample {bits_per_sample!r}, only 16 is supported")
    if encoding not in (None, "PCM_S", "PCM_16"):
        raise ValueError(f"{op}: invalid encoding {encoding!r}, only 16-bit PCM ('PCM_S')")
    rate = int(sample_rate)
    if rate <= 0:
        raise ValueError(f"{op}: sample_rate must be positive, got {sample_rate!r}")
    audio = np.asarray(src.detach().numpy())
    if channels_first:
        audio = audio.T
    if audio.shape[1] == 0:
        raise ValueError(f"{op}: the audio has no channels (shape {list(src.shape)})")
    pcm = _pcm16(op, audio)
    target: Any = filepath if hasattr(filepath, "write") else os.fspath(filepath)  # type: ignore[arg-type]
    with wave.open(target, "wb") as f:
        f.setnchannels(pcm.shape[1])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.ascontiguousarray(pcm).tobytes())
