"""``torch.signal`` / ``paddle.signal``: Paddle's ``stft`` and ``istft`` (complex
results, ``onesided=True`` by default; see ``ferrograd/_signal_stft.py``) and PyTorch's
``windows`` submodule (``torch.signal.windows.hann`` ...); Paddle's ``frame`` and
``overlap_add`` (frames.py)."""

from __future__ import annotations

from .._signal_stft import paddle_istft as istft
from .._signal_stft import paddle_stft as stft
from . import windows as windows
from .frames import frame as frame
from .frames import overlap_add as overlap_add

__all__ = ["stft", "istft", "windows", "frame", "overlap_add"]
