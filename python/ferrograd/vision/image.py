"""``paddle.vision.set_image_backend`` / ``get_image_backend`` / ``image_load``."""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

_BACKEND: Optional[str] = None


def set_image_backend(backend: str) -> None:
    """Choose how datasets and :func:`image_load` return images: ``"pil"`` or ``"cv2"``."""
    global _BACKEND
    if backend not in ("pil", "cv2", "tensor"):
        raise ValueError(
            f"set_image_backend: backend must be 'pil', 'cv2' or 'tensor', got {backend!r}"
        )
    _BACKEND = backend


def get_image_backend() -> str:
    """The image backend: as set, else ``"pil"`` when Pillow is installed, else ``"cv2"``."""
    if _BACKEND is not None:
        return _BACKEND
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return "cv2"
    return "pil"


def image_load(path: str, backend: Optional[str] = None) -> Any:
    """Read an image file: a PIL image (``"pil"``, needs Pillow) or a BGR NumPy array
    (``"cv2"``, needs OpenCV); neither is a dependency of ferrograd.
    """
    if backend is None:
        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"image_load: backend must be 'pil' or 'cv2', got {backend!r}")
    if backend == "pil":
        try:
            from PIL import Image
        except ImportError as e:
            raise ImportError("image_load(backend='pil') needs Pillow (pip install pillow)") from e
        return Image.open(path)
    try:
        import cv2  # type: ignore[import-not-found, unused-ignore]
    except ImportError as e:
        raise ImportError(
            "image_load(backend='cv2') needs OpenCV (pip install opencv-python)"
        ) from e
    return cv2.imread(path)
