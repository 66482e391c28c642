"""``paddle.vision.datasets``: MNIST, FashionMNIST, Cifar10 / Cifar100, Flowers, VOC2012,
folders; local files only.

ferrograd downloads nothing: pass the paths of local copies (``image_path`` /
``label_path`` for the MNIST idx files, ``data_file`` for the CIFAR, Flowers and VOC
archives (plus Flowers' ``label_file`` / ``setid_file``), ``root`` for the folder
datasets).
"""

from __future__ import annotations

from .cifar import Cifar10 as Cifar10
from .cifar import Cifar100 as Cifar100
from .flowers import Flowers as Flowers
from .folder import DatasetFolder as DatasetFolder
from .folder import ImageFolder as ImageFolder
from .mnist import MNIST as MNIST
from .mnist import FashionMNIST as FashionMNIST
from .voc2012 import VOC2012 as VOC2012

__all__ = [
    "Cifar10",
    "Cifar100",
    "DatasetFolder",
    "Flowers",
    "ImageFolder",
    "MNIST",
    "FashionMNIST",
    "VOC2012",
]
