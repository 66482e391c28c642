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


def check_mode(dataset: str, mode: Any, allowed: tuple[str, ...] = ("train", "test")) -> str:
    """``mode`` lower-cased, which must be one of ``allowed``."""
    m = str(mode).lower()
    if m not in allowed:
        names = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{dataset}: mode must be one of {names}, got {mode!r}")
    return m


class TarMembers:
    """Random access to the files of a tar archive, reopened in each process (a
    ``DataLoader`` worker gets its own handle; an open ``TarFile`` cannot be shared).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._pid = -1
        self._tar: Any = None
        self._members: dict[str, Any] = {}

    def _open(self) -> None:
        import tarfile

        if self._tar is None or self._pid != os.getpid():
            self._tar = tarfile.open(self.path)
            self._members = {m.name: m for m in self._tar.getmembers()}
            self._pid = os.getpid()

    def names(self) -> list[str]:
        """Every member name."""
        self._open()
        return list(self._members)

    def read(self, name: str) -> bytes:
        """The bytes of member ``name`` (a KeyError names the archive when it is absent)."""
        self._open()
        if name not in self._members:
            raise KeyError(f"{name!r} is not in the archive {self.path!r}")
        f = self._tar.extractfile(self._members[name])
        if f is None:
            raise KeyError(f"{name!r} in {self.path!r} is not a regular file")
        return bytes(f.read())

    def __getstate__(self) -> dict[str, Any]:
        # pickled for worker processes: the handle is reopened there
        return {"path": self.path, "_pid": -1, "_tar": None, "_members": {}}


def open_image(data: bytes, dataset: str) -> Any:
    """A PIL image from encoded bytes (Pillow is needed to decode JPEG / PNG files)."""
    import io

    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            f"{dataset} decodes JPEG / PNG files with Pillow (pip install pillow)"
        ) from e
    return Image.open(io.BytesIO(data))
