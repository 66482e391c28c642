"""``ParamAttr`` (Paddle): how a layer creates one of its parameters."""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["ParamAttr", "apply_param_attr", "set_global_initializer"]


class ParamAttr:
    """Paddle's parameter attribute: ``name``, ``initializer`` (an ``nn.initializer``
    object or any callable that fills the parameter), ``learning_rate`` (a factor on the
    optimizer's rate, kept on the parameter as ``optimize_attr``), ``regularizer``
    (``paddle.regularizer.L2Decay(c)`` / ``L1Decay(c)``, kept on the parameter as
    ``regularizer``: the optimizers use it instead of their ``weight_decay`` for this
    parameter, as Paddle's do) and ``trainable`` (``False``: the parameter gets
    ``stop_gradient=True``). Passed as a layer's ``weight_attr``/``bias_attr``."""

    def __init__(
        self,
        name: Optional[str] = None,
        initializer: Any = None,
        learning_rate: float = 1.0,
        regularizer: Any = None,
        trainable: bool = True,
        do_model_average: bool = True,
        need_clip: bool = True,
    ) -> None:
        from ..regularizer import WeightDecayRegularizer

        if regularizer is not None and not isinstance(regularizer, WeightDecayRegularizer):
            raise TypeError(
                "ParamAttr: regularizer must be a regularizer object (paddle.regularizer."
                f"L2Decay(coeff) or L1Decay(coeff)) or None, got {type(regularizer).__name__}"
            )
        if initializer is not None and not callable(initializer):
            raise TypeError(
                f"ParamAttr: initializer must be an nn.initializer object or a callable, "
                f"got {type(initializer).__name__}"
            )
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self) -> str:
        return (
            f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
            f"learning_rate={self.learning_rate}, regularizer={self.regularizer!r}, "
            f"trainable={self.trainable})"
        )


#: Paddle's global initializers (weight, bias), set by ``set_global_initializer``
_GLOBAL: list = [None, None]


def set_global_initializer(weight_init: Any, bias_init: Any = None) -> None:
    """Paddle's ``nn.initializer.set_global_initializer(weight_init, bias_init=None)``:
    the parameters created afterwards (weights with ``weight_init``, biases with
    ``bias_init``) start from these initializers unless their ``ParamAttr`` names one
    (``ParamAttr`` first, then the global one, then the layer's default). ``None`` turns
    one off."""
    for v, what in ((weight_init, "weight_init"), (bias_init, "bias_init")):
        if v is not None and not callable(v):
            raise TypeError(
                f"set_global_initializer: {what} must be an initializer (e.g. "
                f"nn.initializer.Constant) or None, got {type(v).__name__}"
            )
    _GLOBAL[0], _GLOBAL[1] = weight_init, bias_init


def apply_param_attr(param: Any, attr: Any, is_bias: bool = False) -> None:
    """Applies a ``ParamAttr`` (or a parameter name given as a string) to a freshly
    initialised parameter; anything else (``None``, ``True``) leaves it as it is. Without
    an initializer in ``attr``, the global one (``set_global_initializer``) for a weight
    or a bias (``is_bias``) is applied when set."""
    own = attr.initializer if isinstance(attr, ParamAttr) else None
    glob = _GLOBAL[1 if is_bias else 0]
    if own is None and glob is not None:
        glob(param)
    if isinstance(attr, str):
        param.name = attr
        return
    if not isinstance(attr, ParamAttr):
        return
    if attr.initializer is not None:
        attr.initializer(param)
    if attr.name is not None:
        param.name = attr.name
    if not attr.trainable:
        param.stop_gradient = True
    param.optimize_attr = {"learning_rate": attr.learning_rate}
    param.need_clip = bool(attr.need_clip)  # read by the ClipGrad* objects
    if attr.regularizer is not None:
        param.regularizer = attr.regularizer
