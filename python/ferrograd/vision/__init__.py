"""``paddle.vision``: model zoo, image transforms and datasets (docs/vision.md).

``import ferrograd as paddle`` code reaches for ``paddle.vision.models.resnet18()``,
``paddle.vision.transforms.Compose([...])`` and ``paddle.vision.datasets.MNIST``. The
models mirror Paddle's layer structure and parameter names, so a Paddle ``state_dict``
lines up key for key; there are no pretrained weights (nothing is downloaded).
"""

from __future__ import annotations

from . import datasets as datasets
from . import models as models
from . import ops as ops
from . import transforms as transforms
from .image import get_image_backend as get_image_backend
from .image import image_load as image_load
from .image import set_image_backend as set_image_backend
from .models import VGG as VGG
from .models import LeNet as LeNet
from .models import MobileNetV1 as MobileNetV1
from .models import MobileNetV2 as MobileNetV2
from .models import ResNet as ResNet
from .models import mobilenet_v1 as mobilenet_v1
from .models import mobilenet_v2 as mobilenet_v2
from .models import resnet18 as resnet18
from .models import resnet34 as resnet34
from .models import resnet50 as resnet50
from .models import resnet101 as resnet101
from .models import resnet152 as resnet152
from .models import vgg11 as vgg11
from .models import vgg13 as vgg13
from .models import vgg16 as vgg16
from .models import vgg19 as vgg19

__all__ = [
    "datasets",
    "models",
    "ops",
    "transforms",
    "get_image_backend",
    "image_load",
    "set_image_backend",
    "LeNet",
    "ResNet",
    "VGG",
    "MobileNetV1",
    "MobileNetV2",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
    "mobilenet_v1",
    "mobilenet_v2",
]
