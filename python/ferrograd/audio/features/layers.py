"""``paddle.audio.features``: ``Spectrogram``, ``MelSpectrogram``, ``LogMelSpectrogram``
and ``MFCC`` layers with Paddle 3.3.1's signatures, defaults, buffer names and output
shapes (``python/paddle/audio/features/layers.py``).

Each is a composition of differentiable ops (``signal.stft``, ``abs``, ``pow``,
``matmul``, ``power_to_db``), so gradients reach the waveform. The window, the mel filter
bank and the DCT matrix are persistent buffers (``fft_window``, ``fbank_matrix``,
``dct_matrix``), nested under the same sublayer names as Paddle's (``_spectrogram``,
``_melspectrogram``, ``_log_melspectrogram``), so state dicts line up. A waveform is
``(N, T)`` or ``(T,)``; the batch dimension is kept or left out accordingly.
"""

from __future__ import annotations

from typing import Any, Optional, Union

from ... import _core, nn
from ..._signal_stft import _PAD_MODES, _lengths, paddle_stft
from ..functional import compute_fbank_matrix, create_dct, power_to_db
from ..functional.window import get_window

Tensor = _core.Tensor

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]


class Spectrogram(nn.Layer):
    """``|stft(x)| ** power`` with a ``window`` (a name or a ``(name, *params)`` tuple, as
    ``get_window``) of ``win_length`` (default ``n_fft``) points, periodic, zero-padded
    to ``n_fft`` in the centre. ``hop_length=None`` means ``n_fft // 4`` (Paddle's
    default here is 512). ``center`` pads ``n_fft // 2`` on each side by ``pad_mode``.
    Output: ``(N, n_fft // 2 + 1, num_frames)``."""

    def __init__(
        self,
        n_fft: int = 512,
        hop_length: Optional[int] = 512,
        win_length: Optional[int] = None,
        window: Any = "hann",
        power: float = 1.0,
        center: bool = True,
        pad_mode: str = "reflect",
        dtype: Any = "float32",
    ) -> None:
        super().__init__()
        if not power > 0:
            raise ValueError(f"Spectrogram: power must be > 0, got {power!r}")
        n_fft, hop, win = _lengths("Spectrogram", n_fft, hop_length, win_length)
        if center and pad_mode not in _PAD_MODES:
            raise ValueError(f"Spectrogram: pad_mode must be one of {_PAD_MODES}, got {pad_mode!r}")
        self.power = power
        self.n_fft, self.hop_length, self.win_length = n_fft, hop, win
        self.center, self.pad_mode = center, pad_mode
        self.register_buffer("fft_window", get_window(window, win, fftbins=True, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        """The spectrogram of waveforms ``x`` ``(N, T)`` (or one ``(T,)``):
        ``(N, n_fft // 2 + 1, num_frames)``."""
        stft = paddle_stft(
            x,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            window=self.fft_window,
            center=self.center,
            pad_mode=self.pad_mode,
        )
        return stft.abs().pow(self.power)


class MelSpectrogram(nn.Layer):
    """A :class:`Spectrogram` (``power=2.0``: power) mapped onto ``n_mels`` mel bands by
    ``compute_fbank_matrix(sr, n_fft, n_mels, f_min, f_max (default sr // 2), htk,
    norm)``. Output: ``(N, n_mels, num_frames)``."""

    def __init__(
        self,
        sr: int = 22050,
        n_fft: int = 2048,
        hop_length: Optional[int] = 512,
        win_length: Optional[int] = None,
        window: Any = "hann",
        power: float = 2.0,
        center: bool = True,
        pad_mode: str = "reflect",
        n_mels: int = 64,
        f_min: float = 50.0,
        f_max: Optional[float] = None,
        htk: bool = False,
        norm: Union[str, float] = "slaney",
        dtype: Any = "float32",
    ) -> None:
        super().__init__()
        self._spectrogram = Spectrogram(
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            power=power,
            center=center,
            pad_mode=pad_mode,
            dtype=dtype,
        )
        self.n_mels = n_mels
        self.f_min = f_min
        self.f_max = f_max
        self.htk = htk
        self.norm = norm
        fbank = compute_fbank_matrix(
            sr=sr,
            n_fft=n_fft,
            n_mels=n_mels,
            f_min=f_min,
            f_max=sr // 2 if f_max is None else f_max,  # Paddle's sr // 2 here
            htk=htk,
            norm=norm,
            dtype=dtype,
        )
        self.register_buffer("fbank_matrix", fbank)

    def forward(self, x: Tensor) -> Tensor:
        """Mel spectrograms of waveforms ``x`` ``(N, T)``: ``(N, n_mels, num_frames)``."""
        return self.fbank_matrix @ self._spectrogram(x)


class LogMelSpectrogram(nn.Layer):
    """A :class:`MelSpectrogram` in decibels: ``power_to_db(mel, ref_value, amin,
    top_db)`` (``top_db=None`` by default here: no clipping). Output: ``(N, n_mels,
    num_frames)``."""

    def __init__(
        self,
        sr: int = 22050,
        n_fft: int = 512,
        hop_length: Optional[int] = None,
        win_length: Optional[int] = None,
        window: Any = "hann",
        power: float = 2.0,
        center: bool = True,
        pad_mode: str = "reflect",
        n_mels: int = 64,
        f_min: float = 50.0,
        f_max: Optional[float] = None,
        htk: bool = False,
        norm: Union[str, float] = "slaney",
        ref_value: float = 1.0,
        amin: float = 1e-10,
        top_db: Optional[float] = None,
        dtype: Any = "float32",
    ) -> None:
        super().__init__()
        if amin <= 0 or ref_value <= 0 or (top_db is not None and top_db < 0):
            raise ValueError(
                "LogMelSpectrogram: need amin > 0, ref_value > 0 and top_db >= 0 (or None), "
                f"got amin={amin!r}, ref_value={ref_value!r}, top_db={top_db!r}"
            )
        self._melspectrogram = MelSpectrogram(
            sr=sr,
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            power=power,
            center=center,
            pad_mode=pad_mode,
            n_mels=n_mels,
            f_min=f_min,
            f_max=f_max,
            htk=htk,
            norm=norm,
            dtype=dtype,
        )
        self.ref_value = ref_value
        self.amin = amin
        self.top_db = top_db

    def forward(self, x: Tensor) -> Tensor:
        """Log-mel spectrograms of waveforms ``x`` ``(N, T)``: ``(N, n_mels, num_frames)``."""
        mel = self._melspectrogram(x)
        return power_to_db(mel, ref_value=self.ref_value, amin=self.amin, top_db=self.top_db)


class MFCC(nn.Layer):
    """Mel-frequency cepstral coefficients: the first ``n_mfcc`` (at most ``n_mels``)
    coefficients of the orthonormal DCT-II of a :class:`LogMelSpectrogram` along the mel
    axis. Output: ``(N, n_mfcc, num_frames)``."""

    def __init__(
        self,
        sr: int = 22050,
        n_mfcc: int = 40,
        n_fft: int = 512,
        hop_length: Optional[int] = None,
        win_length: Optional[int] = None,
        window: Any = "hann",
        power: float = 2.0,
        center: bool = True,
        pad_mode: str = "reflect",
        n_mels: int = 64,
        f_min: float = 50.0,
        f_max: Optional[float] = None,
        htk: bool = False,
        norm: Union[str, float] = "slaney",
        ref_value: float = 1.0,
        amin: float = 1e-10,
        top_db: Optional[float] = None,
        dtype: Any = "float32",
    ) -> None:
        super().__init__()
        if n_mfcc > n_mels:
            raise ValueError(f"MFCC: n_mfcc cannot be larger than n_mels: {n_mfcc} vs {n_mels}")
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr,
            n_fft=n_fft,
            hop_length=hop_length,
            win_length=win_length,
            window=window,
            power=power,
            center=center,
            pad_mode=pad_mode,
            n_mels=n_mels,
            f_min=f_min,
            f_max=f_max,
            htk=htk,
            norm=norm,
            ref_value=ref_value,
            amin=amin,
            top_db=top_db,
            dtype=dtype,
        )
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        """MFCCs of waveforms ``x`` ``(N, T)``: ``(N, n_mfcc, num_frames)``."""
        log_mel = self._log_melspectrogram(x)  # (N, n_mels, frames)
        return (log_mel.swapaxes(-1, -2) @ self.dct_matrix).swapaxes(-1, -2)
