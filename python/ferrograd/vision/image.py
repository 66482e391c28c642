"""``paddle.vision.set_image_backend`` / ``get_image_backend`` / ``image_load``."""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["set_image_backend", "get_image_backend", "image_load", "read_file", "decode_jpeg"]

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


def read_file(filename: str, name: Optional[str] = None) -> Any:
    """The bytes of ``filename`` as a 1-D uint8 Tensor, as ``paddle.vision.ops.read_file``."""
    import numpy as np

    from .. import to_tensor

    with open(filename, "rb") as f:
        data = f.read()
    return to_tensor(np.frombuffer(data, dtype=np.uint8).copy())


def decode_jpeg(x: Any, mode: str = "unchanged", name: Optional[str] = None) -> Any:
    """Decode the JPEG bytes in the 1-D uint8 Tensor ``x`` (from :func:`read_file`) into a
    ``[C, H, W]`` uint8 Tensor, as ``paddle.vision.ops.decode_jpeg``.

    ``mode`` is ``"unchanged"`` (the file's channels), ``"gray"`` (1 channel) or ``"rgb"``
    (3 channels). Decoding uses Pillow (not a dependency of ferrograd); Paddle's own
    kernel runs on GPUs only.
    """
    import io

    import numpy as np

    from .. import to_tensor

    if mode not in ("unchanged", "gray", "rgb"):
        raise ValueError(f"decode_jpeg: mode must be 'unchanged', 'gray' or 'rgb', got {mode!r}")
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("decode_jpeg needs Pillow (pip install pillow)") from e
    raw = x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ValueError(
            "decode_jpeg: x must be the file's bytes as a 1-D uint8 Tensor (see read_file), "
            f"got dtype {raw.dtype} and shape {list(raw.shape)}"
        )
    img: Any = Image.open(io.BytesIO(raw.tobytes()))
    if mode == "gray":
        img = img.convert("L")
    elif mode == "rgb":
        img = img.convert("RGB")
    arr = np.asarray(img)
    arr = arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)
    return to_tensor(np.ascontiguousarray(arr))
