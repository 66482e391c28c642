"""``paddle.vision.datasets.Cifar10`` / ``Cifar100`` over a local ``cifar-*-python.tar.gz``."""

from __future__ import annotations

import pickle
import tarfile
from typing import Any, Callable, Optional

import numpy as np

from ...utils.data import Dataset
from ._local import check_mode, require_file, resolve_backend

__all__ = ["Cifar10", "Cifar100"]


class Cifar10(Dataset):
    """CIFAR-10 from the local Python-pickle archive: ``Cifar10(data_file, mode='train',
    transform=None, download=True, backend=None)``.

    ``data_file`` is ``cifar-10-python.tar.gz``; without it a ``FileNotFoundError`` says so
    (nothing is downloaded). An item is ``(image, label)``: a 32x32 RGB image (PIL with
    ``backend="pil"``, the default when Pillow is installed, else a float32 HWC array),
    after ``transform``, and an int64 label, as in Paddle.
    """

    _ARCHIVE = "cifar-10-python.tar.gz"
    _TRAIN = "data_batch"
    _TEST = "test_batch"
    _LABEL_KEY = b"labels"

    def __init__(
        self,
        data_file: Optional[str] = None,
        mode: str = "train",
        transform: Optional[Callable[[Any], Any]] = None,
        download: bool = True,
        backend: Optional[str] = None,
    ) -> None:
        name = type(self).__name__
        self.mode = check_mode(name, mode)
        self.backend = resolve_backend(name, backend)
        self.data_file = require_file(name, "data_file", data_file, self._ARCHIVE)
        self.transform = transform
        self.dtype = "float32"
        self.data = self._load()

    def _load(self) -> list[tuple[np.ndarray, int]]:
        flag = self._TRAIN if self.mode == "train" else self._TEST
        data: list[tuple[np.ndarray, int]] = []
        with tarfile.open(self.data_file, mode="r") as f:
            members = sorted((m for m in f.getmembers() if flag in m.name), key=lambda m: m.name)
            for member in members:
                fobj = f.extractfile(member)
                if fobj is None:
                    continue
                batch = pickle.load(fobj, encoding="bytes")
                for image, label in zip(batch[b"data"], batch[self._LABEL_KEY]):
                    data.append((np.asarray(image), int(label)))
        return data

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        """``(image, label)`` number ``idx``."""
        raw, label = self.data[idx]
        image: Any = np.reshape(raw, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == "pil":
            from PIL import Image

            image = Image.fromarray(image.astype("uint8"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, np.array(label).astype("int64")
        return image.astype(self.dtype), np.array(label).astype("int64")

    def __len__(self) -> int:
        """The number of images."""
        return len(self.data)


class Cifar100(Cifar10):
    """CIFAR-100 from ``cifar-100-python.tar.gz`` (fine labels); interface as :class:`Cifar10`."""

    _ARCHIVE = "cifar-100-python.tar.gz"
    _TRAIN = "train"
    _TEST = "test"
    _LABEL_KEY = b"fine_labels"
