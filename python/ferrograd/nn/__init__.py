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

# recurrent layers and cells (rnn.py, rnn_cells.py); nn.utils.rnn packing (rnn_packing.py)
import sys as _sys  # noqa: E402

from . import rnn_packing as _rnn_packing  # noqa: E402
from .rnn import GRU as GRU  # noqa: E402
from .rnn import LSTM as LSTM  # noqa: E402
from .rnn import RNN as RNN  # noqa: E402
from .rnn import BiRNN as BiRNN  # noqa: E402
from .rnn import SimpleRNN as SimpleRNN  # noqa: E402
from .rnn_cells import GRUCell as GRUCell  # noqa: E402
from .rnn_cells import LSTMCell as LSTMCell  # noqa: E402
from .rnn_cells import RNNCell as RNNCell  # noqa: E402
from .rnn_cells import SimpleRNNCell as SimpleRNNCell  # noqa: E402

utils.rnn = _rnn_packing  # type: ignore[attr-defined]
_sys.modules[__name__ + ".utils.rnn"] = _rnn_packing
__all__ += ["RNN", "LSTM", "GRU", "SimpleRNN", "BiRNN"]
__all__ += ["RNNCell", "LSTMCell", "GRUCell", "SimpleRNNCell"]

# attention (attention.py, fn_attention.py)
from .attention import MultiHeadAttention as MultiHeadAttention  # noqa: E402
from .attention import MultiheadAttention as MultiheadAttention  # noqa: E402

__all__ += ["MultiheadAttention", "MultiHeadAttention"]

# transformer layers (transformer.py)
from .transformer import Transformer as Transformer  # noqa: E402
from .transformer import TransformerDecoder as TransformerDecoder  # noqa: E402
from .transformer import TransformerDecoderLayer as TransformerDecoderLayer  # noqa: E402
from .transformer import TransformerEncoder as TransformerEncoder  # noqa: E402
from .transformer import TransformerEncoderLayer as TransformerEncoderLayer  # noqa: E402

__all__ += ["Transformer", "TransformerEncoder", "TransformerEncoderLayer"]
__all__ += ["TransformerDecoder", "TransformerDecoderLayer"]
