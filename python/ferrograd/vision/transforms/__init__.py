"""``paddle.vision.transforms``: image preprocessing (NumPy HWC arrays; PIL when installed).

The classes (``Compose``, ``ToTensor``, ``Normalize``, ``Resize`` ...) wrap the functions of
:mod:`.functional`, which are also exported here as in Paddle.
"""

from __future__ import annotations

from . import functional as functional
from .color_transforms import BrightnessTransform as BrightnessTransform
from .color_transforms import ColorJitter as ColorJitter
from .color_transforms import ContrastTransform as ContrastTransform
from .color_transforms import HueTransform as HueTransform
from .color_transforms import SaturationTransform as SaturationTransform
from .functional import adjust_brightness as adjust_brightness
from .functional import adjust_contrast as adjust_contrast
from .functional import adjust_hue as adjust_hue
from .functional import adjust_saturation as adjust_saturation
from .functional import affine as affine
from .functional import center_crop as center_crop
from .functional import crop as crop
from .functional import erase as erase
from .functional import hflip as hflip
from .functional import normalize as normalize
from .functional import pad as pad
from .functional import perspective as perspective
from .functional import resize as resize
from .functional import rotate as rotate
from .functional import to_grayscale as to_grayscale
from .functional import to_tensor as to_tensor
from .functional import vflip as vflip
from .geometry_transforms import RandomAffine as RandomAffine
from .geometry_transforms import RandomErasing as RandomErasing
from .geometry_transforms import RandomPerspective as RandomPerspective
from .geometry_transforms import RandomRotation as RandomRotation
from .transforms import BaseTransform as BaseTransform
from .transforms import CenterCrop as CenterCrop
from .transforms import Compose as Compose
from .transforms import Grayscale as Grayscale
from .transforms import Normalize as Normalize
from .transforms import Pad as Pad
from .transforms import RandomCrop as RandomCrop
from .transforms import RandomHorizontalFlip as RandomHorizontalFlip
from .transforms import RandomResizedCrop as RandomResizedCrop
from .transforms import RandomVerticalFlip as RandomVerticalFlip
from .transforms import Resize as Resize
from .transforms import ToTensor as ToTensor
from .transforms import Transpose as Transpose

__all__ = [
    "functional",
    "center_crop",
    "crop",
    "hflip",
    "normalize",
    "pad",
    "resize",
    "to_grayscale",
    "to_tensor",
    "vflip",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "affine",
    "rotate",
    "perspective",
    "erase",
    "BaseTransform",
    "CenterCrop",
    "Compose",
    "Grayscale",
    "Normalize",
    "Pad",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomResizedCrop",
    "RandomVerticalFlip",
    "Resize",
    "ToTensor",
    "Transpose",
    "BrightnessTransform",
    "ContrastTransform",
    "SaturationTransform",
    "HueTransform",
    "ColorJitter",
    "RandomRotation",
    "RandomAffine",
    "RandomPerspective",
    "RandomErasing",
]
