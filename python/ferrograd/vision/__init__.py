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
from .datasets import MNIST as MNIST
from .datasets import VOC2012 as VOC2012
from .datasets import Cifar10 as Cifar10
from .datasets import Cifar100 as Cifar100
from .datasets import DatasetFolder as DatasetFolder
from .datasets import FashionMNIST as FashionMNIST
from .datasets import Flowers as Flowers
from .datasets import ImageFolder as ImageFolder
from .image import get_image_backend as get_image_backend
from .image import image_load as image_load
from .image import set_image_backend as set_image_backend
from .models import VGG as VGG
from .models import AlexNet as AlexNet
from .models import DenseNet as DenseNet
from .models import GoogLeNet as GoogLeNet
from .models import InceptionV3 as InceptionV3
from .models import LeNet as LeNet
from .models import MobileNetV1 as MobileNetV1
from .models import MobileNetV2 as MobileNetV2
from .models import MobileNetV3Large as MobileNetV3Large
from .models import MobileNetV3Small as MobileNetV3Small
from .models import ResNet as ResNet
from .models import ShuffleNetV2 as ShuffleNetV2
from .models import SqueezeNet as SqueezeNet
from .models import alexnet as alexnet
from .models import densenet121 as densenet121
from .models import densenet161 as densenet161
from .models import densenet169 as densenet169
from .models import densenet201 as densenet201
from .models import densenet264 as densenet264
from .models import googlenet as googlenet
from .models import inception_v3 as inception_v3
from .models import mobilenet_v1 as mobilenet_v1
from .models import mobilenet_v2 as mobilenet_v2
from .models import mobilenet_v3_large as mobilenet_v3_large
from .models import mobilenet_v3_small as mobilenet_v3_small
from .models import resnet18 as resnet18
from .models import resnet34 as resnet34
from .models import resnet50 as resnet50
from .models import resnet101 as resnet101
from .models import resnet152 as resnet152
from .models import resnext50_32x4d as resnext50_32x4d
from .models import resnext50_64x4d as resnext50_64x4d
from .models import resnext101_32x4d as resnext101_32x4d
from .models import resnext101_64x4d as resnext101_64x4d
from .models import resnext152_32x4d as resnext152_32x4d
from .models import resnext152_64x4d as resnext152_64x4d
from .models import shufflenet_v2_swish as shufflenet_v2_swish
from .models import shufflenet_v2_x0_5 as shufflenet_v2_x0_5
from .models import shufflenet_v2_x0_25 as shufflenet_v2_x0_25
from .models import shufflenet_v2_x0_33 as shufflenet_v2_x0_33
from .models import shufflenet_v2_x1_0 as shufflenet_v2_x1_0
from .models import shufflenet_v2_x1_5 as shufflenet_v2_x1_5
from .models import shufflenet_v2_x2_0 as shufflenet_v2_x2_0
from .models import squeezenet1_0 as squeezenet1_0
from .models import squeezenet1_1 as squeezenet1_1
from .models import vgg11 as vgg11
from .models import vgg13 as vgg13
from .models import vgg16 as vgg16
from .models import vgg19 as vgg19
from .models import wide_resnet50_2 as wide_resnet50_2
from .models import wide_resnet101_2 as wide_resnet101_2
from .transforms import BaseTransform as BaseTransform
from .transforms import BrightnessTransform as BrightnessTransform
from .transforms import CenterCrop as CenterCrop
from .transforms import ColorJitter as ColorJitter
from .transforms import Compose as Compose
from .transforms import ContrastTransform as ContrastTransform
from .transforms import Grayscale as Grayscale
from .transforms import HueTransform as HueTransform
from .transforms import Normalize as Normalize
from .transforms import Pad as Pad
from .transforms import RandomCrop as RandomCrop
from .transforms import RandomHorizontalFlip as RandomHorizontalFlip
from .transforms import RandomResizedCrop as RandomResizedCrop
from .transforms import RandomRotation as RandomRotation
from .transforms import RandomVerticalFlip as RandomVerticalFlip
from .transforms import Resize as Resize
from .transforms import SaturationTransform as SaturationTransform
from .transforms import ToTensor as ToTensor
from .transforms import Transpose as Transpose
from .transforms import adjust_brightness as adjust_brightness
from .transforms import adjust_contrast as adjust_contrast
from .transforms import adjust_hue as adjust_hue
from .transforms import center_crop as center_crop
from .transforms import crop as crop
from .transforms import hflip as hflip
from .transforms import normalize as normalize
from .transforms import pad as pad
from .transforms import resize as resize
from .transforms import rotate as rotate
from .transforms import to_grayscale as to_grayscale
from .transforms import to_tensor as to_tensor
from .transforms import vflip as vflip

# Paddle's paddle.vision re-exports its sub-packages' public names (models, transforms,
# datasets) at the top level; so does this package.
__all__ = [
    "datasets",
    "models",
    "ops",
    "transforms",
    "get_image_backend",
    "image_load",
    "set_image_backend",
    "MNIST",
    "Cifar10",
    "Cifar100",
    "DatasetFolder",
    "FashionMNIST",
    "Flowers",
    "VOC2012",
    "ImageFolder",
    "VGG",
    "AlexNet",
    "DenseNet",
    "GoogLeNet",
    "InceptionV3",
    "LeNet",
    "MobileNetV1",
    "MobileNetV2",
    "MobileNetV3Large",
    "MobileNetV3Small",
    "ResNet",
    "ShuffleNetV2",
    "SqueezeNet",
    "alexnet",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
    "densenet264",
    "googlenet",
    "inception_v3",
    "mobilenet_v1",
    "mobilenet_v2",
    "mobilenet_v3_large",
    "mobilenet_v3_small",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext50_64x4d",
    "resnext101_32x4d",
    "resnext101_64x4d",
    "resnext152_32x4d",
    "resnext152_64x4d",
    "shufflenet_v2_swish",
    "shufflenet_v2_x0_5",
    "shufflenet_v2_x0_25",
    "shufflenet_v2_x0_33",
    "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0",
    "squeezenet1_0",
    "squeezenet1_1",
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
    "wide_resnet50_2",
    "wide_resnet101_2",
    "BaseTransform",
    "BrightnessTransform",
    "CenterCrop",
    "ColorJitter",
    "Compose",
    "ContrastTransform",
    "Grayscale",
    "HueTransform",
    "Normalize",
    "Pad",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomResizedCrop",
    "RandomRotation",
    "RandomVerticalFlip",
    "Resize",
    "SaturationTransform",
    "ToTensor",
    "Transpose",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_hue",
    "center_crop",
    "crop",
    "hflip",
    "normalize",
    "pad",
    "resize",
    "rotate",
    "to_grayscale",
    "to_tensor",
    "vflip",
]
