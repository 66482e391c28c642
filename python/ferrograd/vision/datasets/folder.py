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


def _valid_files(
    top: str, extensions: Optional[Sequence[str]], is_valid_file: Optional[Callable[[str], bool]]
) -> list[str]:
    """The files under ``top`` (recursively, following links, sorted) that pass
    ``_is_valid``."""
    out: list[str] = []
    for dirpath, _, files in sorted(os.walk(top, followlinks=True)):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if _is_valid(path, extensions, is_valid_file):
                out.append(path)
    return out


class _Folder(Dataset):
    """What both folder datasets share: the arguments' checks and attributes."""

    def _setup(
        self,
        what: str,
        root: str,
        loader: Optional[Callable[[str], Any]],
        extensions: Optional[Sequence[str]],
        transform: Optional[Callable[[Any], Any]],
        is_valid_file: Optional[Callable[[str], bool]],
    ) -> None:
        """Checks the arguments (``what`` names the class in errors) and sets ``root``,
        ``transform``, ``loader`` and ``extensions`` (``IMG_EXTENSIONS`` unless
        ``is_valid_file`` is given)."""
        if extensions is not None and is_valid_file is not None:
            raise ValueError(f"{what}: pass extensions or is_valid_file, not both")
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        self.root = root
        self.transform = transform
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        if not os.path.isdir(root):
            raise FileNotFoundError(f"{what}: root {root!r} is not a directory")


class DatasetFolder(_Folder):
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
        self._setup("DatasetFolder", root, loader, extensions, transform, is_valid_file)
        classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
        if not classes:
            raise RuntimeError(f"DatasetFolder: found 0 class directories in {root!r}")
        self.classes = classes
        self.class_to_idx = {c: i for i, c in enumerate(classes)}
        samples = [
            (path, self.class_to_idx[cls])
            for cls in classes
            for path in _valid_files(os.path.join(root, cls), self.extensions, is_valid_file)
        ]
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


class ImageFolder(_Folder):
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
        self._setup("ImageFolder", root, loader, extensions, transform, is_valid_file)
        samples = _valid_files(root, self.extensions, is_valid_file)
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
