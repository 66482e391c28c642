"""``ferrograd.nn``: parameters, modules (Paddle: layers), layers, losses, ``functional``
and ``init``.

Written for both dialects: ``nn.Module`` is ``nn.Layer``, ``nn.ModuleList`` is
``nn.LayerList``, ``nn.init`` is ``nn.initializer``. ``nn.Linear`` stores its weight as
``[out_features, in_features]`` (PyTorch's layout), or as ``[in_features, out_features]``
when Paddle code builds it (Paddle's layout; docs/dialects.md, "Parameter layouts").
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

# activation, loss and normalisation layers (nn/activation.py, nn/loss.py, nn/norm.py)
from .activation import CELU as CELU  # noqa: E402
from .activation import ELU as ELU  # noqa: E402
from .activation import GLU as GLU  # noqa: E402
from .activation import SELU as SELU  # noqa: E402
from .activation import Hardshrink as Hardshrink  # noqa: E402
from .activation import Hardsigmoid as Hardsigmoid  # noqa: E402
from .activation import Hardswish as Hardswish  # noqa: E402
from .activation import Hardtanh as Hardtanh  # noqa: E402
from .activation import LeakyReLU as LeakyReLU  # noqa: E402
from .activation import LogSigmoid as LogSigmoid  # noqa: E402
from .activation import Mish as Mish  # noqa: E402
from .activation import PReLU as PReLU  # noqa: E402
from .activation import ReLU6 as ReLU6  # noqa: E402
from .activation import RReLU as RReLU  # noqa: E402
from .activation import SiLU as SiLU  # noqa: E402
from .activation import Silu as Silu  # noqa: E402
from .activation import Softplus as Softplus  # noqa: E402
from .activation import Softshrink as Softshrink  # noqa: E402
from .activation import Softsign as Softsign  # noqa: E402
from .activation import Swish as Swish  # noqa: E402
from .activation import Tanhshrink as Tanhshrink  # noqa: E402
from .activation import Threshold as Threshold  # noqa: E402
from .activation import ThresholdedReLU as ThresholdedReLU  # noqa: E402
from .loss import BCELoss as BCELoss  # noqa: E402
from .loss import BCEWithLogitsLoss as BCEWithLogitsLoss  # noqa: E402
from .loss import CosineEmbeddingLoss as CosineEmbeddingLoss  # noqa: E402
from .loss import HuberLoss as HuberLoss  # noqa: E402
from .loss import KLDivLoss as KLDivLoss  # noqa: E402
from .loss import L1Loss as L1Loss  # noqa: E402
from .loss import MarginRankingLoss as MarginRankingLoss  # noqa: E402
from .loss import SmoothL1Loss as SmoothL1Loss  # noqa: E402
from .loss import SoftMarginLoss as SoftMarginLoss  # noqa: E402
from .norm import BatchNorm as BatchNorm  # noqa: E402
from .norm import BatchNorm1D as BatchNorm1D  # noqa: E402
from .norm import BatchNorm1d as BatchNorm1d  # noqa: E402
from .norm import BatchNorm2D as BatchNorm2D  # noqa: E402
from .norm import BatchNorm2d as BatchNorm2d  # noqa: E402
from .norm import BatchNorm3D as BatchNorm3D  # noqa: E402
from .norm import BatchNorm3d as BatchNorm3d  # noqa: E402
from .norm import GroupNorm as GroupNorm  # noqa: E402
from .norm import InstanceNorm1D as InstanceNorm1D  # noqa: E402
from .norm import InstanceNorm1d as InstanceNorm1d  # noqa: E402
from .norm import InstanceNorm2D as InstanceNorm2D  # noqa: E402
from .norm import InstanceNorm2d as InstanceNorm2d  # noqa: E402
from .norm import InstanceNorm3D as InstanceNorm3D  # noqa: E402
from .norm import InstanceNorm3d as InstanceNorm3d  # noqa: E402
from .norm import RMSNorm as RMSNorm  # noqa: E402

__all__ += [
    "SiLU",
    "Silu",
    "Swish",
    "Mish",
    "Hardswish",
    "Hardsigmoid",
    "ReLU6",
    "Softsign",
    "Tanhshrink",
    "LogSigmoid",
    "SELU",
    "ELU",
    "CELU",
    "Softplus",
    "Hardtanh",
    "LeakyReLU",
    "GLU",
    "PReLU",
    "RReLU",
    "Threshold",
    "ThresholdedReLU",
    "Hardshrink",
    "Softshrink",
    "L1Loss",
    "HuberLoss",
    "SmoothL1Loss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "SoftMarginLoss",
    "CosineEmbeddingLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "BatchNorm1D",
    "BatchNorm2D",
    "BatchNorm3D",
    "BatchNorm",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "InstanceNorm1D",
    "InstanceNorm2D",
    "InstanceNorm3D",
    "RMSNorm",
]
# resizing layers (issue 19; nn/layers_resize.py)
from .layers_resize import Upsample as Upsample  # noqa: E402
from .layers_resize import UpsamplingBilinear2D as UpsamplingBilinear2D  # noqa: E402
from .layers_resize import UpsamplingBilinear2d as UpsamplingBilinear2d  # noqa: E402
from .layers_resize import UpsamplingNearest2D as UpsamplingNearest2D  # noqa: E402
from .layers_resize import UpsamplingNearest2d as UpsamplingNearest2d  # noqa: E402

__all__ += [
    "Upsample", "UpsamplingBilinear2d", "UpsamplingBilinear2D", "UpsamplingNearest2d",
    "UpsamplingNearest2D",
]  # fmt: skip

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
# nn.utils.fusion / parametrize / parametrizations (fusion.py, parametrize.py, parametrizations.py)
from . import fusion as _fusion  # noqa: E402
from . import parametrizations as _parametrizations  # noqa: E402
from . import parametrize as _parametrize  # noqa: E402

utils.fusion = _fusion  # type: ignore[attr-defined]
_sys.modules[__name__ + ".utils.fusion"] = _fusion
utils.parametrize = _parametrize  # type: ignore[attr-defined]
utils.parametrizations = _parametrizations  # type: ignore[attr-defined]
_sys.modules[__name__ + ".utils.parametrize"] = _parametrize
_sys.modules[__name__ + ".utils.parametrizations"] = _parametrizations
# nn.utils.stateless (stateless.py: PyTorch's older spelling of func.functional_call)
from . import stateless as _stateless  # noqa: E402

utils.stateless = _stateless  # type: ignore[attr-defined]
_sys.modules[__name__ + ".utils.stateless"] = _stateless
# the hook-based weight_norm / spectral_norm (PyTorch's older API; Paddle's nn.utils)
from . import weight_norm_hooks as _weight_norm_hooks  # noqa: E402

for _name in _weight_norm_hooks.__all__:
    setattr(utils, _name, getattr(_weight_norm_hooks, _name))
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
# convolution and pooling layers (conv.py, pooling.py)
from .conv import Conv1D as Conv1D  # noqa: E402
from .conv import Conv1d as Conv1d  # noqa: E402
from .conv import Conv1DTranspose as Conv1DTranspose  # noqa: E402
from .conv import Conv2D as Conv2D  # noqa: E402
from .conv import Conv2d as Conv2d  # noqa: E402
from .conv import Conv2DTranspose as Conv2DTranspose  # noqa: E402
from .conv import Conv3D as Conv3D  # noqa: E402
from .conv import Conv3d as Conv3d  # noqa: E402
from .conv import Conv3DTranspose as Conv3DTranspose  # noqa: E402
from .conv import ConvTranspose1d as ConvTranspose1d  # noqa: E402
from .conv import ConvTranspose2d as ConvTranspose2d  # noqa: E402
from .conv import ConvTranspose3d as ConvTranspose3d  # noqa: E402
from .pooling import AdaptiveAvgPool1D as AdaptiveAvgPool1D  # noqa: E402
from .pooling import AdaptiveAvgPool1d as AdaptiveAvgPool1d  # noqa: E402
from .pooling import AdaptiveAvgPool2D as AdaptiveAvgPool2D  # noqa: E402
from .pooling import AdaptiveAvgPool2d as AdaptiveAvgPool2d  # noqa: E402
from .pooling import AdaptiveAvgPool3D as AdaptiveAvgPool3D  # noqa: E402
from .pooling import AdaptiveAvgPool3d as AdaptiveAvgPool3d  # noqa: E402
from .pooling import AdaptiveMaxPool1D as AdaptiveMaxPool1D  # noqa: E402
from .pooling import AdaptiveMaxPool1d as AdaptiveMaxPool1d  # noqa: E402
from .pooling import AdaptiveMaxPool2D as AdaptiveMaxPool2D  # noqa: E402
from .pooling import AdaptiveMaxPool2d as AdaptiveMaxPool2d  # noqa: E402
from .pooling import AdaptiveMaxPool3D as AdaptiveMaxPool3D  # noqa: E402
from .pooling import AdaptiveMaxPool3d as AdaptiveMaxPool3d  # noqa: E402
from .pooling import AvgPool1D as AvgPool1D  # noqa: E402
from .pooling import AvgPool1d as AvgPool1d  # noqa: E402
from .pooling import AvgPool2D as AvgPool2D  # noqa: E402
from .pooling import AvgPool2d as AvgPool2d  # noqa: E402
from .pooling import AvgPool3D as AvgPool3D  # noqa: E402
from .pooling import AvgPool3d as AvgPool3d  # noqa: E402
from .pooling import MaxPool1D as MaxPool1D  # noqa: E402
from .pooling import MaxPool1d as MaxPool1d  # noqa: E402
from .pooling import MaxPool2D as MaxPool2D  # noqa: E402
from .pooling import MaxPool2d as MaxPool2d  # noqa: E402
from .pooling import MaxPool3D as MaxPool3D  # noqa: E402
from .pooling import MaxPool3d as MaxPool3d  # noqa: E402
from .pooling import MaxUnPool1D as MaxUnPool1D  # noqa: E402
from .pooling import MaxUnpool1d as MaxUnpool1d  # noqa: E402
from .pooling import MaxUnPool2D as MaxUnPool2D  # noqa: E402
from .pooling import MaxUnpool2d as MaxUnpool2d  # noqa: E402
from .pooling import MaxUnPool3D as MaxUnPool3D  # noqa: E402
from .pooling import MaxUnpool3d as MaxUnpool3d  # noqa: E402

__all__ += [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "AdaptiveAvgPool1D",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2D",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3D",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1D",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2D",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3D",
    "AdaptiveMaxPool3d",
    "AvgPool1D",
    "AvgPool1d",
    "AvgPool2D",
    "AvgPool2d",
    "AvgPool3D",
    "AvgPool3d",
    "MaxPool1D",
    "MaxPool1d",
    "MaxPool2D",
    "MaxPool2d",
    "MaxPool3D",
    "MaxPool3d",
    "MaxUnPool1D",
    "MaxUnPool2D",
    "MaxUnPool3D",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]

# BEGIN static dispatch (s10-static): the layers' functions given static Variables record
# a traced op into the Variable's program (a Tensor runs at once; the op runs the eager
# function when the program runs, see ferrograd/static/eager_ops.py). Wrapped once, at
# import.
from .._op_functions import wrap_names as _wrap_names  # noqa: E402
from .._traced_op_names import FUNCTIONAL_OPS as _TRACED_F  # noqa: E402

_wrap_names(vars(functional), _TRACED_F)
# END static dispatch

# issue 17 (drop-in): padding, shape, dropout, pairwise, pooling and loss layers
# (layers_pad.py, layers_shape.py, layers_dropout.py, layers_pairwise.py,
# activation_softmin.py, layers_embedding_bag.py, layers_lp_pool_lrn.py, loss_margin_nll.py)
from .activation_softmin import Softmax2d as Softmax2d  # noqa: E402
from .activation_softmin import Softmin as Softmin  # noqa: E402
from .layers_dropout import AlphaDropout as AlphaDropout  # noqa: E402
from .layers_dropout import Dropout1d as Dropout1d  # noqa: E402
from .layers_dropout import Dropout2D as Dropout2D  # noqa: E402
from .layers_dropout import Dropout2d as Dropout2d  # noqa: E402
from .layers_dropout import Dropout3D as Dropout3D  # noqa: E402
from .layers_dropout import Dropout3d as Dropout3d  # noqa: E402
from .layers_dropout import FeatureAlphaDropout as FeatureAlphaDropout  # noqa: E402
from .layers_embedding_bag import EmbeddingBag as EmbeddingBag  # noqa: E402
from .layers_lp_pool_lrn import LocalResponseNorm as LocalResponseNorm  # noqa: E402
from .layers_lp_pool_lrn import LPPool1D as LPPool1D  # noqa: E402
from .layers_lp_pool_lrn import LPPool1d as LPPool1d  # noqa: E402
from .layers_lp_pool_lrn import LPPool2D as LPPool2D  # noqa: E402
from .layers_lp_pool_lrn import LPPool2d as LPPool2d  # noqa: E402
from .layers_lp_pool_lrn import LPPool3d as LPPool3d  # noqa: E402
from .layers_pad import CircularPad1d as CircularPad1d  # noqa: E402
from .layers_pad import CircularPad2d as CircularPad2d  # noqa: E402
from .layers_pad import CircularPad3d as CircularPad3d  # noqa: E402
from .layers_pad import ConstantPad1d as ConstantPad1d  # noqa: E402
from .layers_pad import ConstantPad2d as ConstantPad2d  # noqa: E402
from .layers_pad import ConstantPad3d as ConstantPad3d  # noqa: E402
from .layers_pad import Pad1D as Pad1D  # noqa: E402
from .layers_pad import Pad2D as Pad2D  # noqa: E402
from .layers_pad import Pad3D as Pad3D  # noqa: E402
from .layers_pad import ReflectionPad1d as ReflectionPad1d  # noqa: E402
from .layers_pad import ReflectionPad2d as ReflectionPad2d  # noqa: E402
from .layers_pad import ReflectionPad3d as ReflectionPad3d  # noqa: E402
from .layers_pad import ReplicationPad1d as ReplicationPad1d  # noqa: E402
from .layers_pad import ReplicationPad2d as ReplicationPad2d  # noqa: E402
from .layers_pad import ReplicationPad3d as ReplicationPad3d  # noqa: E402
from .layers_pad import ZeroPad1D as ZeroPad1D  # noqa: E402
from .layers_pad import ZeroPad1d as ZeroPad1d  # noqa: E402
from .layers_pad import ZeroPad2D as ZeroPad2D  # noqa: E402
from .layers_pad import ZeroPad2d as ZeroPad2d  # noqa: E402
from .layers_pad import ZeroPad3D as ZeroPad3D  # noqa: E402
from .layers_pad import ZeroPad3d as ZeroPad3d  # noqa: E402
from .layers_pairwise import Bilinear as Bilinear  # noqa: E402
from .layers_pairwise import CosineSimilarity as CosineSimilarity  # noqa: E402
from .layers_pairwise import PairwiseDistance as PairwiseDistance  # noqa: E402
from .layers_shape import ChannelShuffle as ChannelShuffle  # noqa: E402
from .layers_shape import Fold as Fold  # noqa: E402
from .layers_shape import PixelShuffle as PixelShuffle  # noqa: E402
from .layers_shape import PixelUnshuffle as PixelUnshuffle  # noqa: E402
from .layers_shape import Unflatten as Unflatten  # noqa: E402
from .layers_shape import Unfold as Unfold  # noqa: E402
from .loss_margin_nll import GaussianNLLLoss as GaussianNLLLoss  # noqa: E402
from .loss_margin_nll import HingeEmbeddingLoss as HingeEmbeddingLoss  # noqa: E402
from .loss_margin_nll import MultiLabelSoftMarginLoss as MultiLabelSoftMarginLoss  # noqa: E402
from .loss_margin_nll import MultiMarginLoss as MultiMarginLoss  # noqa: E402
from .loss_margin_nll import PoissonNLLLoss as PoissonNLLLoss  # noqa: E402
from .loss_margin_nll import TripletMarginLoss as TripletMarginLoss  # noqa: E402
from .loss_margin_nll import (  # noqa: E402
    TripletMarginWithDistanceLoss as TripletMarginWithDistanceLoss,
)

__all__ += [
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "Pad1D",
    "Pad2D",
    "Pad3D",
    "ZeroPad1D",
    "ZeroPad2D",
    "ZeroPad3D",
]
__all__ += [
    "Softmin", "Softmax2d", "Dropout1d", "Dropout2d", "Dropout3d", "Dropout2D", "Dropout3D",
    "AlphaDropout", "FeatureAlphaDropout", "EmbeddingBag", "LPPool1d", "LPPool2d", "LPPool3d",
    "LPPool1D", "LPPool2D", "LocalResponseNorm", "Bilinear", "CosineSimilarity",
    "PairwiseDistance", "Unflatten", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
    "Fold", "Unfold", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "HingeEmbeddingLoss", "MultiMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss",
    "GaussianNLLLoss",
]  # fmt: skip

# issue 17 (drop-in): CTC loss (loss_ctc.py; the function is nn/fn_ctc.py)
from .loss_ctc import CTCLoss as CTCLoss  # noqa: E402

__all__ += ["CTCLoss"]

# issue 17 (drop-in): RNN transducer loss (loss_rnnt.py; the function is nn/fn_rnnt.py)
from .loss_rnnt import RNNTLoss as RNNTLoss  # noqa: E402

__all__ += ["RNNTLoss"]

# issue 17 (drop-in): MultiLabelMarginLoss (loss_multilabel.py)
from .loss_hsigmoid import HSigmoidLoss as HSigmoidLoss  # noqa: E402
from .loss_multilabel import MultiLabelMarginLoss as MultiLabelMarginLoss  # noqa: E402

__all__ += ["MultiLabelMarginLoss", "HSigmoidLoss"]

# issue 17 (drop-in): LazyLinear (lazy.py), SyncBatchNorm for one process (sync_batchnorm.py)
from .lazy import LazyLinear as LazyLinear  # noqa: E402
from .lazy import UninitializedParameter as UninitializedParameter  # noqa: E402
from .sync_batchnorm import SyncBatchNorm as SyncBatchNorm  # noqa: E402

__all__ += ["LazyLinear", "UninitializedParameter", "SyncBatchNorm"]

# issue 17 (drop-in): AdaptiveLogSoftmaxWithLoss (adaptive_softmax.py)
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss as AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]

# session 22: nn.Buffer (parameter.py), the RNN base classes (rnn.py / rnn_cells.py), Paddle
# 3's padding layers (layers_pad_paddle.py), Maxout and Softmax2D (layers_peer_names.py)
from .layers_pad_paddle import *  # noqa: E402,F403
from .layers_peer_names import Maxout as Maxout  # noqa: E402
from .layers_peer_names import Softmax2D as Softmax2D  # noqa: E402
from .parameter import Buffer as Buffer  # noqa: E402
from .rnn import _RNNBase as RNNBase  # noqa: E402  (isinstance(nn.LSTM(...), nn.RNNBase))
from .rnn_cells import _CellBase as RNNCellBase  # noqa: E402

__all__ += [
    "Buffer", "RNNBase", "RNNCellBase", "Maxout", "Softmax2D", "ConstantPad1D",  # noqa: F405
    "ConstantPad2D", "ConstantPad3D", "ReflectionPad1D", "ReflectionPad2D", "ReflectionPad3D",  # noqa: F405
    "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D", "CircularPad1D",  # noqa: F405
    "CircularPad2D", "CircularPad3D",  # noqa: F405
]  # fmt: skip

# session 22: the lazy convolution and normalization modules (lazy_more.py), fractional max
# pooling (fractional_pool.py)
from .fractional_pool import FractionalMaxPool2D as FractionalMaxPool2D  # noqa: E402
from .fractional_pool import FractionalMaxPool2d as FractionalMaxPool2d  # noqa: E402
from .fractional_pool import FractionalMaxPool3D as FractionalMaxPool3D  # noqa: E402
from .fractional_pool import FractionalMaxPool3d as FractionalMaxPool3d  # noqa: E402
from .lazy_more import *  # noqa: E402,F403

__all__ += [
    "UninitializedBuffer", "LazyConv1d", "LazyConv2d", "LazyConv3d",  # noqa: F405
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",  # noqa: F405
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",  # noqa: F405
    "LazyInstanceNorm2d", "LazyInstanceNorm3d", "FractionalMaxPool2d",  # noqa: F405
    "FractionalMaxPool3d", "FractionalMaxPool2D", "FractionalMaxPool3D",
]  # fmt: skip

# nn.DataParallel (data_parallel.py), nn.modules.utils (_pair ...; modules/), and
# nn.utils.prune (prune.py)
from . import modules as modules  # noqa: E402
from . import prune as _prune  # noqa: E402
from .data_parallel import DataParallel as DataParallel  # noqa: E402

utils.prune = _prune  # type: ignore[attr-defined]
_sys.modules[__name__ + ".utils.prune"] = _prune
__all__ += ["DataParallel", "modules"]

# session 41: Paddle's nn.SpectralNorm layer (layers_spectral_norm.py)
from .layers_spectral_norm import SpectralNorm as SpectralNorm  # noqa: E402

__all__ += ["SpectralNorm"]

# Paddle's beam-search decoding (decode.py): nn.BeamSearchDecoder, nn.dynamic_decode
from .decode import BeamSearchDecoder as BeamSearchDecoder  # noqa: E402
from .decode import dynamic_decode as dynamic_decode  # noqa: E402

__all__ += ["BeamSearchDecoder", "dynamic_decode"]
