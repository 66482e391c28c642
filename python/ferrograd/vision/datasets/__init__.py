"""``paddle.vision.datasets``: MNIST, FashionMNIST, Cifar10 / Cifar100, folders; local files only.

ferrograd downloads nothing: pass the paths of local copies (``image_path`` /
``label_path`` for the MNIST idx files, ``data_file`` for the CIFAR archives, ``root``
for the folder datasets).
"""

from __future__ import annotations

from .cifar import Cifar10 as Cifar10
from .cifar import Cifar100 as Cifar100
from .folder import DatasetFolder as DatasetFolder
from .folder import ImageFolder as ImageFolder
from .mnist import MNIST as MNIST
from .mnist import FashionMNIST as FashionMNIST

__all__ = ["Cifar10", "Cifar100", "DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST"]
