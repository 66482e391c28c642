"""Shared helpers of the datasets: local files only, image backend choice."""

from __future__ import annotations

import os
from typing import Any, Optional


def require_file(dataset: str, arg: str, path: Optional[str], expected: str) -> str:
    """``path`` when it names an existing file; otherwise a ``FileNotFoundError`` that says
    which file is missing, that ferrograd downloads nothing and how to pass it.
    """
    if path is None:
        raise FileNotFoundError(
            f"{dataset}: ferrograd cannot download datasets; pass {arg}= with the path of a "
            f"local copy of {expected} (download=False says not to try)"
        )
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{dataset}: {arg}={path!r} does not exist (expected a local copy of {expected})"
        )
    return path


def resolve_backend(dataset: str, backend: Optional[str]) -> str:
    """``"pil"`` or ``"cv2"``; ``None`` means ``vision.get_image_backend()``: as set, else
    ``"pil"`` when Pillow is installed (Paddle's default) and ``"cv2"`` (NumPy arrays).
    """
    if backend is None:
        from ..image import get_image_backend

        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{dataset}: backend must be 'pil' or 'cv2', got {backend!r}")
    return backend


def check_mode(dataset: str, mode: Any) -> str:
    """``mode`` lower-cased, which must be ``"train"`` or ``"test"``."""
    m = str(mode).lower()
    if m not in ("train", "test"):
        raise ValueError(f"{dataset}: mode must be 'train' or 'test', got {mode!r}")
    return m
