"""``paddle.vision.datasets.VOC2012``: PASCAL VOC 2012 segmentation from the local tar."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ...utils.data import Dataset
from ._local import TarMembers, check_mode, open_image, require_file, resolve_backend

__all__ = ["VOC2012"]

_ROOT = "VOCdevkit/VOC2012/"
# Paddle's split names: 'train' reads trainval.txt, 'test' train.txt, 'valid' val.txt
_SPLIT = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """VOC 2012 semantic segmentation: ``VOC2012(data_file, mode='train', transform=None,
    download=True, backend=None)``.

    ``data_file`` is ``VOCtrainval_11-May-2012.tar`` (nothing is downloaded; a missing
    path raises a ``FileNotFoundError``). ``mode`` picks Paddle's split (``'train'``:
    ``trainval``, ``'valid'``: ``val``, ``'test'``: ``train``). An item is ``(image,
    label)``: the JPEG image and its class-index PNG mask, PIL images with
    ``backend="pil"``, float32 arrays with ``"cv2"``; ``transform`` applies to the image.
    """

    def __init__(
        self,
        data_file: Optional[str] = None,
        mode: str = "train",
        transform: Optional[Callable[[Any], Any]] = None,
        download: bool = True,
        backend: Optional[str] = None,
    ) -> None:
        self.mode = check_mode("VOC2012", mode, ("train", "valid", "test"))
        self.backend = resolve_backend("VOC2012", backend)
        self.data_file = require_file(
            "VOC2012", "data_file", data_file, "VOCtrainval_11-May-2012.tar"
        )
        self.transform = transform
        self.dtype = "float32"
        self._archive = TarMembers(self.data_file)
        listing = self._archive.read(f"{_ROOT}ImageSets/Segmentation/{_SPLIT[self.mode]}.txt")
        ids = [line.strip() for line in listing.decode("utf-8").splitlines() if line.strip()]
        self.data = [f"{_ROOT}JPEGImages/{i}.jpg" for i in ids]
        self.labels = [f"{_ROOT}SegmentationClass/{i}.png" for i in ids]

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        """``(image, mask)`` number ``idx`` of the split."""
        data: Any = open_image(self._archive.read(self.data[idx]), "VOC2012")
        label: Any = open_image(self._archive.read(self.labels[idx]), "VOC2012")
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return np.asarray(data).astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self) -> int:
        """The number of images in the split."""
        return len(self.data)
