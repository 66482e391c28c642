"""``paddle.vision.datasets.DatasetFolder`` / ``ImageFolder`` over a local directory.

Images are read with Pillow or OpenCV (whichever ``vision.get_image_backend()`` names;
neither is a dependency) and ``.npy`` files with NumPy, so a folder of NumPy arrays works
with no imaging library at all.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ...utils.data import Dataset

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader"]

#: File suffixes the folders pick up by default (Paddle's image suffixes plus ``.npy``).
IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp", ".npy")


def default_loader(path: str) -> Any:
    """A ``.npy`` file as its array; an image as an RGB PIL image (``"pil"`` backend) or a
    BGR array (``"cv2"``), as in Paddle.
    """
    if path.lower().endswith(".npy"):
        return np.load(path, allow_pickle=False)
    from ..image import get_image_backend, image_load

    img = image_load(path)
    return img.convert("RGB") if get_image_backend() == "pil" else img


def _is_valid(
    path: str, extensions: Optional[Sequence[str]], is_valid_file: Optional[Callable[[str], bool]]
) -> bool:
    if is_valid_file is not None:
        return bool(is_valid_file(path))
    return path.lower().endswith(tuple(e.lower() for e in (extensions or ())))


def _check_args(extensions: Any, is_valid_file: Any, what: str) -> None:
    if extensions is not None and is_valid_file is not None:
        raise ValueError(f"{what}: pass extensions or is_valid_file, not both")


class DatasetFolder(Dataset):
    """Samples in ``root/<class>/**/<file>``: classes are the sorted sub-directory names.

    ``DatasetFolder(root, loader=None, extensions=None, transform=None, is_valid_file=None)``;
    an item is ``[sample, target]`` (``sample`` loaded by ``loader``, then ``transform``;
    ``target`` the class index), with ``classes``, ``class_to_idx``, ``samples`` and
    ``targets`` as in Paddle.
    """

    def __init__(
        self,
        root: str,
        loader: Optional[Callable[[str], Any]] = None,
        extensions: Optional[Sequence[str]] = None,
        transform: Optional[Callable[[Any], Any]] = None,
        is_valid_file: Optional[Callable[[str], bool]] = None,
    ) -> None:
        _check_args(extensions, is_valid_file, "DatasetFolder")
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        self.root = root
        self.transform = transform
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        if not os.path.isdir(root):
            raise FileNotFoundError(f"DatasetFolder: root {root!r} is not a directory")
        classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
        if not classes:
            raise RuntimeError(f"DatasetFolder: found 0 class directories in {root!r}")
        self.classes = classes
        self.class_to_idx = {c: i for i, c in enumerate(classes)}
        samples: list[tuple[str, int]] = []
        for cls in classes:
            base = os.path.join(root, cls)
            for dirpath, _, files in sorted(os.walk(base, followlinks=True)):
                for name in sorted(files):
                    path = os.path.join(dirpath, name)
                    if _is_valid(path, extensions, is_valid_file):
                        samples.append((path, self.class_to_idx[cls]))
        if not samples:
            raise RuntimeError(f"DatasetFolder: found 0 files in the class directories of {root!r}")
        self.samples = samples
        self.targets = [t for _, t in samples]

    def __getitem__(self, index: int) -> list[Any]:
        """``[sample, target]`` number ``index``."""
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample, target]

    def __len__(self) -> int:
        """The number of samples."""
        return len(self.samples)


class ImageFolder(Dataset):
    """Every matching file under ``root`` (recursively, sorted), without labels: an item is
    ``[sample]``, as in Paddle. Arguments as :class:`DatasetFolder`.
    """

    def __init__(
        self,
        root: str,
        loader: Optional[Callable[[str], Any]] = None,
        extensions: Optional[Sequence[str]] = None,
        transform: Optional[Callable[[Any], Any]] = None,
        is_valid_file: Optional[Callable[[str], bool]] = None,
    ) -> None:
        _check_args(extensions, is_valid_file, "ImageFolder")
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        self.root = root
        self.transform = transform
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        if not os.path.isdir(root):
            raise FileNotFoundError(f"ImageFolder: root {root!r} is not a directory")
        samples: list[str] = []
        for dirpath, _, files in sorted(os.walk(root, followlinks=True)):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                if _is_valid(path, extensions, is_valid_file):
                    samples.append(path)
        if not samples:
            raise RuntimeError(f"ImageFolder: found 0 files in {root!r}")
        self.samples = samples

    def __getitem__(self, index: int) -> list[Any]:
        """``[sample]`` number ``index``."""
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self) -> int:
        """The number of samples."""
        return len(self.samples)
