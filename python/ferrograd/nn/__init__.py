"""``ferrograd.nn``: parameters, modules (Paddle: layers), layers, losses, ``functional``
and ``init``.

Written for both dialects: ``nn.Module`` is ``nn.Layer``, ``nn.ModuleList`` is
``nn.LayerList``, ``nn.init`` is ``nn.initializer``. ``nn.Linear`` stores its weight as
``[out_features, in_features]`` (PyTorch's layout).
"""

from __future__ import annotations

from . import functional as functional
from . import init as init
from . import parallel as parallel

# containers, gradient clipping, nn.utils, summary
from . import utils as utils  # noqa: E402
from .clip import ClipGradByGlobalNorm as ClipGradByGlobalNorm  # noqa: E402
from .clip import ClipGradByNorm as ClipGradByNorm  # noqa: E402
from .clip import ClipGradByValue as ClipGradByValue  # noqa: E402
from .containers import LayerDict as LayerDict  # noqa: E402
from .containers import ModuleDict as ModuleDict  # noqa: E402
from .containers import ParameterDict as ParameterDict  # noqa: E402
from .containers import ParameterList as ParameterList  # noqa: E402
from .layers import GELU as GELU
from .layers import CrossEntropyLoss as CrossEntropyLoss
from .layers import Dropout as Dropout
from .layers import Embedding as Embedding
from .layers import Flatten as Flatten
from .layers import Identity as Identity
from .layers import LayerList as LayerList
from .layers import LayerNorm as LayerNorm
from .layers import Linear as Linear
from .layers import LogSoftmax as LogSoftmax
from .layers import ModuleList as ModuleList
from .layers import MSELoss as MSELoss
from .layers import NLLLoss as NLLLoss
from .layers import ReLU as ReLU
from .layers import Sequential as Sequential
from .layers import Sigmoid as Sigmoid
from .layers import Softmax as Softmax
from .layers import Tanh as Tanh
from .module import Layer as Layer
from .module import Module as Module
from .param_attr import ParamAttr as ParamAttr
from .parameter import Parameter as Parameter

initializer = init

__all__ = [
    "Parameter",
    "ParamAttr",
    "Module",
    "Layer",
    "Linear",
    "Sequential",
    "ModuleList",
    "LayerList",
    "Identity",
    "Flatten",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "GELU",
    "Softmax",
    "LogSoftmax",
    "Dropout",
    "LayerNorm",
    "Embedding",
    "CrossEntropyLoss",
    "NLLLoss",
    "MSELoss",
    "functional",
    "init",
    "initializer",
    "ModuleDict",
    "LayerDict",
    "ParameterList",
    "ParameterDict",
    "ClipGradByGlobalNorm",
    "ClipGradByNorm",
    "ClipGradByValue",
    "utils",
]

# PyTorch / Paddle names ferrograd lacks raise an AttributeError that says so (reached only
# for names this module does not define; see ferrograd/_missing.py).
from .._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)

# convolution and pooling layers (conv.py, pooling.py)
from .conv import *  # noqa: E402,F403
from .conv import __all__ as _conv_all  # noqa: E402
from .pooling import *  # noqa: E402,F403
from .pooling import __all__ as _pool_all  # noqa: E402

__all__ += list(_conv_all) + list(_pool_all)
