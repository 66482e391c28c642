"""``paddle.vision.datasets.Flowers``: Oxford 102 Flowers from local files."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from ...utils.data import Dataset
from ._local import TarMembers, check_mode, open_image, require_file, resolve_backend

__all__ = ["Flowers"]

# Paddle trains on the dataset's "tstid" split (the largest) and tests on "trnid"
_SPLIT = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _loadmat(path: str, key: str) -> np.ndarray:
    try:
        from scipy.io import loadmat  # type: ignore[import-untyped, unused-ignore]
    except ImportError as e:
        raise ImportError(
            "Flowers reads the .mat label files with SciPy (pip install scipy)"
        ) from e
    return np.asarray(loadmat(path)[key][0])


class Flowers(Dataset):
    """Oxford 102 Flowers: ``Flowers(data_file, label_file, setid_file, mode='train',
    transform=None, download=True, backend=None)``.

    ``data_file`` is ``102flowers.tgz``, ``label_file`` ``imagelabels.mat`` and
    ``setid_file`` ``setid.mat``; nothing is downloaded (a missing path raises a
    ``FileNotFoundError`` naming it). ``mode`` is ``'train'``, ``'valid'`` or ``'test'``
    with Paddle's split (``'train'`` is the set the files call ``tstid``). An item is
    ``(image, label)``: a PIL image (``backend="pil"``) or a float32 HWC array
    (``"cv2"``), after ``transform``, and an int64 label of shape ``[1]`` (1 to 102, as
    in the files). Images are read from the archive as needed (Paddle extracts it).
    """

    def __init__(
        self,
        data_file: Optional[str] = None,
        label_file: Optional[str] = None,
        setid_file: Optional[str] = None,
        mode: str = "train",
        transform: Optional[Callable[[Any], Any]] = None,
        download: bool = True,
        backend: Optional[str] = None,
    ) -> None:
        self.mode = check_mode("Flowers", mode, ("train", "valid", "test"))
        self.backend = resolve_backend("Flowers", backend)
        data_file = require_file("Flowers", "data_file", data_file, "102flowers.tgz")
        label_file = require_file("Flowers", "label_file", label_file, "imagelabels.mat")
        setid_file = require_file("Flowers", "setid_file", setid_file, "setid.mat")
        self.transform = transform
        self.labels = _loadmat(label_file, "labels")
        self.indexes = _loadmat(setid_file, _SPLIT[self.mode])
        self._archive = TarMembers(data_file)

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        """``(image, label)`` number ``idx`` of the split."""
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype("int64")
        image: Any = open_image(self._archive.read(f"jpg/image_{index:05}.jpg"), "Flowers")
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return np.asarray(image).astype("float32"), label

    def __len__(self) -> int:
        """The number of images in the split."""
        return len(self.indexes)
