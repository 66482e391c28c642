"""``paddle.audio.datasets``: ``ESC50`` and ``TESS``. Paddle downloads both archives on
first use; ferrograd downloads nothing and has no reader for them, so constructing either
raises ``NotImplementedError`` saying so (load the WAV files with ``paddle.audio.load``
and wrap them in a ``paddle.io.Dataset`` instead)."""

from __future__ import annotations

from typing import Any

__all__ = ["ESC50", "TESS"]


def _unavailable(name: str, what: str) -> NotImplementedError:
    return NotImplementedError(
        f"paddle.audio.datasets.{name} ({what}) is not available in ferrograd: Paddle "
        "downloads it on first use and ferrograd downloads nothing. Read local WAV files "
        "with paddle.audio.load and wrap them in a paddle.io.Dataset instead."
    )


class ESC50:
    """Paddle's ESC-50 environmental sound dataset (2000 clips, 50 classes, 5 folds):
    not available (it needs a download); constructing it raises ``NotImplementedError``."""

    def __init__(
        self,
        mode: str = "train",
        split: int = 1,
        feat_type: str = "raw",
        archive: Any = None,
        **kwargs: Any,
    ) -> None:
        raise _unavailable("ESC50", "environmental sound classification")


class TESS:
    """Paddle's Toronto Emotional Speech Set (2800 clips, 7 emotions): not available (it
    needs a download); constructing it raises ``NotImplementedError``."""

    def __init__(
        self,
        mode: str = "train",
        n_folds: int = 5,
        split: int = 1,
        feat_type: str = "raw",
        archive: Any = None,
        **kwargs: Any,
    ) -> None:
        raise _unavailable("TESS", "emotional speech")
