"""``paddle.vision.models``: LeNet, ResNet, VGG, MobileNetV1/V2 and AlexNet, Paddle-named.

The layer structure and parameter names follow Paddle's, so ``model.set_state_dict`` takes
a Paddle checkpoint of the same architecture; ``pretrained=True`` raises (no downloads).
"""

from __future__ import annotations

from .alexnet import AlexNet as AlexNet
from .alexnet import alexnet as alexnet
from .lenet import LeNet as LeNet
from .mobilenetv1 import MobileNetV1 as MobileNetV1
from .mobilenetv1 import mobilenet_v1 as mobilenet_v1
from .mobilenetv2 import MobileNetV2 as MobileNetV2
from .mobilenetv2 import mobilenet_v2 as mobilenet_v2
from .resnet import BasicBlock as BasicBlock
from .resnet import BottleneckBlock as BottleneckBlock
from .resnet import ResNet as ResNet
from .resnet import resnet18 as resnet18
from .resnet import resnet34 as resnet34
from .resnet import resnet50 as resnet50
from .resnet import resnet101 as resnet101
from .resnet import resnet152 as resnet152
from .resnet import resnext50_32x4d as resnext50_32x4d
from .resnet import resnext50_64x4d as resnext50_64x4d
from .resnet import resnext101_32x4d as resnext101_32x4d
from .resnet import resnext101_64x4d as resnext101_64x4d
from .resnet import resnext152_32x4d as resnext152_32x4d
from .resnet import resnext152_64x4d as resnext152_64x4d
from .resnet import wide_resnet50_2 as wide_resnet50_2
from .resnet import wide_resnet101_2 as wide_resnet101_2
from .vgg import VGG as VGG
from .vgg import vgg11 as vgg11
from .vgg import vgg13 as vgg13
from .vgg import vgg16 as vgg16
from .vgg import vgg19 as vgg19

__all__ = [
    "AlexNet",
    "alexnet",
    "LeNet",
    "MobileNetV1",
    "mobilenet_v1",
    "MobileNetV2",
    "mobilenet_v2",
    "BasicBlock",
    "BottleneckBlock",
    "ResNet",
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
    "wide_resnet50_2",
    "wide_resnet101_2",
    "VGG",
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
]
