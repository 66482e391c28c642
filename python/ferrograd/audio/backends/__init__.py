"""``paddle.audio.backends``: the audio file backends. ferrograd has Paddle's default one,
``'wave_backend'`` (16-bit PCM WAV files through the standard library's ``wave``);
Paddle's optional ``'soundfile'`` backend comes from the ``paddleaudio`` package, which
needs Paddle itself, so it is not available here."""

from __future__ import annotations

from . import wave_backend as wave_backend
from .backend import AudioInfo as AudioInfo

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]


def list_available_backends() -> list[str]:
    """The backends that :func:`set_backend` accepts: ``['wave_backend']``."""
    return ["wave_backend"]


def get_current_backend() -> str:
    """The name of the backend behind ``paddle.audio.load / save / info``:
    ``'wave_backend'``."""
    return "wave_backend"


def set_backend(backend_name: str) -> None:
    """Select the audio backend; only ``'wave_backend'`` (already the current one) exists
    here, any other name raises ``NotImplementedError``."""
    if backend_name not in list_available_backends():
        raise NotImplementedError(
            f"audio backend {backend_name!r} is not available: ferrograd has only "
            "'wave_backend' (16-bit PCM WAV); Paddle's 'soundfile' backend needs paddleaudio"
        )
