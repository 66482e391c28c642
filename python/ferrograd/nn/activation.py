"""Activation layers of both dialects; each forwards to ``nn.functional``.

torch spellings (``SiLU``, ``CELU``, ``RReLU``, ``Threshold``...) and Paddle spellings
(``Silu``, ``Swish``, ``ThresholdedReLU``...) are aliases of one class where the two
agree. Constructors accept both peers' argument names (``dim``/``axis``,
``min_val``/``min``, ``lambd``/``threshold``); ``inplace=True`` writes the result into the
input, as in the peers (``_inplace.py``: same meaning, no memory saved).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .. import _core
from . import fn_activation as A
from . import functional as F
from ._inplace import run_inplace
from ._layouts import construction_dialect
from .module import Module
from .param_attr import apply_param_attr
from .parameter import Parameter

Tensor = _core.Tensor


def _run(layer: Module, x: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """``fn(x)``, written into ``x`` when the layer was made with ``inplace=True``."""
    if getattr(layer, "inplace", False):
        return run_inplace(x, fn, type(layer).__name__)
    return fn(x)


class _Unary(Module):
    """An activation without parameters: ``forward`` is ``_fn(x)``."""

    _what = ""

    def __init__(self, inplace: bool = False, name: Optional[str] = None) -> None:
        super().__init__()
        self.inplace = inplace is True

    def forward(self, x: Tensor) -> Tensor:
        """The activation of ``x``."""
        return _run(self, x, lambda v: getattr(v, self._what)())


class SiLU(_Unary):
    """``x * sigmoid(x)`` (Paddle: ``Silu``, ``Swish``)."""

    _what = "silu"


class Mish(_Unary):
    """``x * tanh(softplus(x))``."""

    _what = "mish"


class Hardswish(_Unary):
    """``x * relu6(x + 3) / 6``."""

    _what = "hardswish"


class ReLU6(_Unary):
    """``min(max(x, 0), 6)``."""

    _what = "relu6"


class Softsign(_Unary):
    """``x / (1 + |x|)``."""

    _what = "softsign"


class Tanhshrink(_Unary):
    """``x - tanh(x)``."""

    _what = "tanhshrink"


class LogSigmoid(_Unary):
    """``log(sigmoid(x))``, computed stably."""

    _what = "log_sigmoid"


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6``; Paddle's ``slope``/``offset`` give ``clip(slope*x+offset, 0, 1)``."""

    def __init__(
        self,
        inplace: bool = False,
        name: Optional[str] = None,
        *,
        slope: Optional[float] = None,
        offset: Optional[float] = None,
    ) -> None:
        super().__init__()
        self.inplace = inplace is True
        self.slope = slope
        self.offset = offset

    def forward(self, x: Tensor) -> Tensor:
        """Hard sigmoid of ``x``."""
        return _run(self, x, lambda v: A.hardsigmoid(v, self.slope, self.offset))


class SELU(Module):
    """``scale * (x if x > 0 else alpha * (exp(x) - 1))`` (Paddle may set ``scale`` and
    ``alpha``)."""

    def __init__(
        self,
        inplace: Any = False,
        alpha: float = A.SELU_ALPHA,
        name: Optional[str] = None,
        *,
        scale: float = A.SELU_SCALE,
    ) -> None:
        super().__init__()
        if not isinstance(inplace, bool):  # Paddle: SELU(scale, alpha)
            scale, inplace = inplace, False
        self.inplace = inplace is True
        self.scale = scale
        self.alpha = alpha

    def forward(self, x: Tensor) -> Tensor:
        """SELU of ``x``."""
        return _run(self, x, lambda v: A.selu(v, self.scale, self.alpha))


class ELU(Module):
    """``x if x > 0 else alpha * (exp(x) - 1)``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False, name: Optional[str] = None):
        super().__init__()
        self.inplace = inplace is True
        self.alpha = alpha

    def forward(self, x: Tensor) -> Tensor:
        """ELU of ``x``."""
        # a static Variable records through nn.functional's dispatching elu
        fn = A.elu if isinstance(x, Tensor) else F.elu
        return _run(self, x, lambda v: fn(v, self.alpha))

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False, name: Optional[str] = None):
        super().__init__()
        self.inplace = inplace is True
        self.alpha = alpha

    def forward(self, x: Tensor) -> Tensor:
        """CELU of ``x``."""
        # a static Variable records through nn.functional's dispatching celu
        fn = A.celu if isinstance(x, Tensor) else F.celu
        return _run(self, x, lambda v: fn(v, self.alpha))

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0, name: Optional[str] = None):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x: Tensor) -> Tensor:
        """Softplus of ``x``."""
        return A.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """``x`` clipped to ``[min_val, max_val]`` (Paddle: ``min``, ``max``)."""

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        name: Optional[str] = None,
        **paddle_names: float,
    ) -> None:
        super().__init__()
        self.inplace = inplace is True
        unknown = set(paddle_names) - {"min", "max"}
        if unknown:
            raise TypeError(f"Hardtanh() got unexpected keyword arguments {sorted(unknown)}")
        self.min_val = float(paddle_names.get("min", min_val))
        self.max_val = float(paddle_names.get("max", max_val))
        if self.min_val > self.max_val:
            raise ValueError(
                f"Hardtanh: min_val ({self.min_val}) must not exceed max_val ({self.max_val})"
            )

    def forward(self, x: Tensor) -> Tensor:
        """``x`` clipped."""
        # a static Variable records through nn.functional's dispatching hardtanh
        fn = A.hardtanh if isinstance(x, Tensor) else F.hardtanh
        return _run(self, x, lambda v: fn(v, self.min_val, self.max_val))

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    def __init__(
        self, negative_slope: float = 0.01, inplace: bool = False, name: Optional[str] = None
    ):
        super().__init__()
        self.inplace = inplace is True
        self.negative_slope = negative_slope

    def forward(self, x: Tensor) -> Tensor:
        """Leaky ReLU of ``x``."""
        return _run(self, x, lambda v: F.leaky_relu(v, self.negative_slope))

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class GLU(Module):
    """Gated linear unit over ``dim`` (Paddle: ``axis``), default the last."""

    def __init__(self, dim: int = -1, name: Optional[str] = None, *, axis: Optional[int] = None):
        super().__init__()
        self.dim = dim if axis is None else axis

    def forward(self, x: Tensor) -> Tensor:
        """``a * sigmoid(b)`` of the halves of ``x``."""
        return A.glu(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """Leaky ReLU with learned slopes: ``weight`` of shape ``[num_parameters]`` (one, or one
    per channel), filled with ``init`` (0.25). Paddle's ``data_format`` says where the
    channels are; ``weight_attr`` is applied as in other layers. Built by Paddle code, the
    parameter is named ``_weight``, as in Paddle's ``state_dict``."""

    def __init__(
        self,
        num_parameters: int = 1,
        init: float = 0.25,
        weight_attr: Any = None,
        data_format: str = "NCHW",
        name: Optional[str] = None,
        *,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int):
            raise TypeError(f"PReLU: num_parameters must be an int, got {num_parameters!r}")
        if num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be >= 1, got {num_parameters}")
        self.num_parameters = num_parameters
        self.data_format = data_format
        d = dtype if dtype is not None else _core._get_default_dtype()
        w = Parameter(_core.full([num_parameters], float(init), dtype=d))
        self._paddle_names = construction_dialect() == "paddle"
        if self._paddle_names:
            self._weight = w
        else:
            self.weight = w
        apply_param_attr(w, weight_attr)

    def forward(self, x: Tensor) -> Tensor:
        """PReLU of ``x``."""
        # a static Variable records through nn.functional's dispatching prelu
        fn = A.prelu if isinstance(x, Tensor) else F.prelu
        return fn(x, self._weight if self._paddle_names else self.weight, self.data_format)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU: random slopes in ``[lower, upper]`` in training, their mean in
    eval mode."""

    #: why static programs cannot record this layer, and what to use (nn/static_build.py)
    _static_unsupported = (
        "its random slopes are not recorded",
        "nn.LeakyReLU (a fixed slope) or dynamic mode",
    )

    def __init__(
        self,
        lower: float = 1.0 / 8.0,
        upper: float = 1.0 / 3.0,
        inplace: bool = False,
        name: Optional[str] = None,
    ):
        super().__init__()
        self.inplace = inplace is True
        self.lower = lower
        self.upper = upper

    def forward(self, x: Tensor) -> Tensor:
        """RReLU of ``x`` (random in training mode)."""
        return _run(self, x, lambda v: A.rrelu(v, self.lower, self.upper, self.training))

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}"


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value`` (Paddle: ``ThresholdedReLU`` with
    ``value`` defaulting to 0 and ``threshold`` to 1)."""

    def __init__(
        self,
        threshold: float = 1.0,
        value: float = 0.0,
        inplace: bool = False,
        name: Optional[str] = None,
    ):
        super().__init__()
        self.inplace = inplace is True
        self.threshold = threshold
        self.value = value

    def forward(self, x: Tensor) -> Tensor:
        """Thresholded ``x``."""
        # a static Variable records through nn.functional's dispatching threshold
        fn = A.threshold if isinstance(x, Tensor) else F.threshold
        return _run(self, x, lambda v: fn(v, self.threshold, self.value))

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}"


class Hardshrink(Module):
    """``x`` where ``|x| > lambd`` (Paddle: ``threshold``), else 0."""

    def __init__(self, lambd: float = 0.5, name: Optional[str] = None, **kw: float) -> None:
        super().__init__()
        self.lambd = kw.pop("threshold", lambd)
        if kw:
            raise TypeError(f"Hardshrink() got unexpected keyword arguments {sorted(kw)}")

    def forward(self, x: Tensor) -> Tensor:
        """Hard-shrunk ``x``."""
        # a static Variable records through nn.functional's dispatching hardshrink
        fn = A.hardshrink if isinstance(x, Tensor) else F.hardshrink
        return fn(x, self.lambd)


class Softshrink(Module):
    """``x`` moved ``lambd`` towards 0 (Paddle: ``threshold``), 0 within ``±lambd``."""

    def __init__(self, lambd: float = 0.5, name: Optional[str] = None, **kw: float) -> None:
        super().__init__()
        self.lambd = kw.pop("threshold", lambd)
        if kw:
            raise TypeError(f"Softshrink() got unexpected keyword arguments {sorted(kw)}")

    def forward(self, x: Tensor) -> Tensor:
        """Soft-shrunk ``x``."""
        # a static Variable records through nn.functional's dispatching softshrink
        fn = A.softshrink if isinstance(x, Tensor) else F.softshrink
        return fn(x, self.lambd)


# Paddle's spellings of the same layers
Silu = SiLU
Swish = SiLU
ThresholdedReLU = Threshold

__all__ = [
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
]
