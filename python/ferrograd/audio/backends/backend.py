"""``paddle.audio.backends.backend``: ``AudioInfo``, what ``info`` returns."""

from __future__ import annotations

__all__ = ["AudioInfo"]


class AudioInfo:
    """The header of an audio file: ``sample_rate``, ``num_samples`` (frames per
    channel), ``num_channels``, ``bits_per_sample`` and ``encoding`` (``'PCM_S'``)."""

    def __init__(
        self,
        sample_rate: int,
        num_samples: int,
        num_channels: int,
        bits_per_sample: int,
        encoding: str,
    ) -> None:
        self.sample_rate = sample_rate
        self.num_samples = num_samples
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    def __repr__(self) -> str:
        return (
            f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, "
            f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
            f"encoding={self.encoding!r})"
        )
