"""``paddle.vision.datasets.MNIST`` / ``FashionMNIST`` over local idx ``.gz`` files."""

from __future__ import annotations

import gzip
from typing import Any, Callable, Optional

import numpy as np

from ...utils.data import Dataset
from ._local import check_mode, require_file, resolve_backend

__all__ = ["MNIST", "FashionMNIST"]


def _read_idx(path: str, magic: int) -> np.ndarray:
    """The array in a (gzip-compressed or plain) idx file, checking its magic number."""
    opener: Any = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    head = np.frombuffer(raw[:4], dtype=">u4")[0]
    if head != magic:
        raise ValueError(
            f"{path}: not an idx file of the expected kind (magic {head}, want {magic})"
        )
    ndim = magic & 0xFF
    dims = np.frombuffer(raw[4 : 4 + 4 * ndim], dtype=">u4").astype(np.int64)
    data = np.frombuffer(raw[4 + 4 * ndim :], dtype=np.uint8)
    return data[: int(np.prod(dims))].reshape(tuple(int(d) for d in dims))


class MNIST(Dataset):
    """MNIST from local files: ``MNIST(image_path, label_path, mode='train', transform=None,
    download=True, backend=None)``.

    ``image_path`` / ``label_path`` are the idx files (``train-images-idx3-ubyte.gz`` ...);
    ferrograd cannot download them, so leaving them out raises a ``FileNotFoundError`` that
    names the file. An item is ``(image, label)``: a 28x28 ``"L"`` PIL image (``backend="pil"``,
    the default when Pillow is installed) or a float32 [28, 28] array (``"cv2"``), after
    ``transform``, and an int64 label of shape [1], as in Paddle.
    """

    NAME = "mnist"
    _FILES = {
        "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
        "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
    }

    def __init__(
        self,
        image_path: Optional[str] = None,
        label_path: Optional[str] = None,
        mode: str = "train",
        transform: Optional[Callable[[Any], Any]] = None,
        download: bool = True,
        backend: Optional[str] = None,
    ) -> None:
        name = type(self).__name__
        self.mode = check_mode(name, mode)
        self.backend = resolve_backend(name, backend)
        images_file, labels_file = self._FILES[self.mode]
        self.image_path = require_file(name, "image_path", image_path, f"{self.NAME} {images_file}")
        self.label_path = require_file(name, "label_path", label_path, f"{self.NAME} {labels_file}")
        self.transform = transform
        self.dtype = "float32"
        images = _read_idx(self.image_path, 0x0803)
        labels = _read_idx(self.label_path, 0x0801)
        if len(images) != len(labels):
            raise ValueError(f"{name}: {len(images)} images but {len(labels)} labels")
        self.images = images.reshape(len(images), -1).astype(np.float32)
        self.labels = labels.astype(np.int64).reshape(-1, 1)

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        """``(image, label)`` number ``idx``."""
        image: Any = np.reshape(self.images[idx], [28, 28])
        label = self.labels[idx]
        if self.backend == "pil":
            from PIL import Image

            image = Image.fromarray(image.astype("uint8"), mode="L")
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(self.dtype), label.astype("int64")

    def __len__(self) -> int:
        """The number of images."""
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST from local idx files; same interface and file names as :class:`MNIST`."""

    NAME = "fashion-mnist"
