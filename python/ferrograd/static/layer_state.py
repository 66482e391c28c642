"""``nn.Layer`` state in static mode: a layer built while ``enable_static()`` is in
effect keeps static parameters and persistable variables instead of eager tensors.

``Module`` calls ``static_parameter`` for each ``Parameter`` it registers and
``static_buffer`` for each buffer while the static flag is on. The layer's own
initialiser has already filled the eager tensor (from ferrograd's seeded generator, as
in dynamic mode), so the new variable of the default main program is initialised by
the default startup program with exactly those values: a model built in static mode
after ``seed(n)`` starts from the parameters the same model built eagerly after
``seed(n)`` has. ``trainable=False`` parameters (``ParamAttr(trainable=False)``,
``requires_grad=False``) and buffers are persistable but not trained; buffers that the
layer's forward updates (batch norm's running statistics) are written back into the
scope each time a training program runs.

``check_not_eager_parameter`` is the other half: an eager ``Parameter`` (of a layer built
in dynamic mode) given to a static op would be recorded as a constant and silently
never train, so it is refused with a message saying how to build the layer instead.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import defaultdict
from typing import Any

from .. import _core
from ..grad_mode import no_grad
from . import program as _program
from .variable import Variable

#: per layer class: the next instance number in the parameter names (``linear_0.w_0``)
_layer_counters: defaultdict[str, itertools.count[int]] = defaultdict(itertools.count)


def _snake(name: str) -> str:
    """``BatchNorm2D`` -> ``batch_norm2d`` (Paddle's layer name scopes)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()


def _prefix(layer: Any) -> str:
    """The layer's name scope, chosen once per layer instance."""
    d = layer.__dict__
    prefix = d.get("_static_name_scope")
    if prefix is None:
        cls = _snake(type(layer).__name__)
        prefix = d["_static_name_scope"] = f"{cls}_{next(_layer_counters[cls])}"
        d["_static_counts"] = {"w": 0, "b": 0}
    return str(prefix)


def _unique_name(layer: Any, attr: str, is_bias: bool) -> str:
    """``<layer>_<n>.w_<k>`` / ``.b_<k>`` as Paddle names a layer's parameters, made
    unique in the default main program."""
    prefix = _prefix(layer)
    counts = layer.__dict__["_static_counts"]
    block = _program.default_main_program().current_block()
    kind = "b" if is_bias else "w"
    while True:
        name = f"{prefix}.{kind}_{counts[kind]}"
        counts[kind] += 1
        if not block.has_var(name):
            return name


def _given_name(param: Any) -> str | None:
    """The name set by ``ParamAttr(name=...)`` (or assigned), not an automatic one."""
    name = param.__dict__.get("_fg_name")
    if name is None or re.fullmatch(r"param_\d+", name):
        return None
    return str(name)


def _values(t: Any) -> Any:
    """A detached copy of the eager tensor's values (the startup program keeps it)."""
    with no_grad():
        return t.detach().clone()


def static_parameter(layer: Any, attr: str, param: Any) -> Variable:
    """The static parameter standing for the eager ``param`` that ``layer`` registers
    as ``attr``: created in the default main program, initialised by the default
    startup program to ``param``'s values; not trained when ``param`` does not
    require grad."""
    is_bias = "bias" in attr
    scale = (param.__dict__.get("optimize_attr") or {}).get("learning_rate", 1.0)
    if scale != 1.0:
        raise NotImplementedError(
            f"{type(layer).__name__}.{attr}: ParamAttr(learning_rate={scale}) is not carried into "
            "static programs; give the optimizer a parameter group instead: "
            "parameters=[{'params': [...], 'learning_rate': scale}, ...]"
        )
    if param.__dict__.get("regularizer") is not None:
        raise NotImplementedError(
            f"{type(layer).__name__}.{attr}: ParamAttr(regularizer=...) is not carried into "
            "static programs yet; give the optimizer weight_decay= (per parameter group), "
            "or train eagerly"
        )
    name = _given_name(param) or _unique_name(layer, attr, is_bias)
    var = _program.create_parameter(
        list(param.shape),
        param.dtype.name,
        name=name,
        is_bias=is_bias,
        default_initializer=_values(param),
    )
    if not param.requires_grad:
        _untrained(var)
    return var


def static_buffer(layer: Any, attr: str, tensor: Any) -> Variable:
    """A persistable, non-trainable variable for the buffer ``attr`` of ``layer``,
    initialised by the default startup program to ``tensor``'s values. Named on from the
    layer's weights, as Paddle names batch norm's statistics (``batch_norm2d_0.w_1``
    and ``.w_2`` after the scale ``w_0`` and the bias ``b_0``)."""
    var = _program.create_parameter(
        list(tensor.shape),
        tensor.dtype.name,
        name=_unique_name(layer, attr, False),
        default_initializer=_values(tensor),
    )
    _untrained(var)
    return var


def _untrained(var: Variable) -> None:
    """Marks ``var`` (and its startup twin) persistable but not trained."""
    var.trainable = False
    var._stop_gradient_default = True  # (a default: gradients are not cut here)
    startup = _program.default_startup_program().current_block()
    if startup.has_var(var.name):
        twin = startup.var(var.name)
        twin.trainable = False
        twin._stop_gradient_default = True


def check_not_eager_parameter(value: Any, where: str) -> None:
    """Refuses an eager ``nn.Parameter`` used in a static program: recorded as a
    constant it would never be trained (and an optimizer's ``minimize`` would not see
    it)."""
    parameter = sys.modules.get("ferrograd.nn.parameter")
    if parameter is not None and isinstance(value, parameter.Parameter):
        raise TypeError(
            f"{where}: got an eager Parameter ({value.name}, shape {list(value.shape)}) in a "
            "static program, where it would be a constant that training never updates. Build "
            "the layer after paddle.enable_static() (its parameters are then static parameters "
            "of the program), or pass param.detach() to use the values as a constant"
        )


def set_value(var: Variable, value: Any) -> None:
    """Sets the static parameter ``var`` to ``value`` in the global scope (a static
    layer's ``set_state_dict``/``load_state_dict``; run the startup program first, or
    it overwrites the value)."""
    _program.global_scope().set(var.name, value.astype(var.dtype))


def make_static(layer: Any) -> None:
    """Replaces the eager parameters and buffers ``layer`` itself registered by static
    ones; a layer class that static programs cannot run (``_static_unsupported =
    (why, instead)``) is refused here, when it is built."""
    refused = getattr(type(layer), "_static_unsupported", None)
    if refused is not None:
        why, instead = refused
        raise NotImplementedError(
            f"{type(layer).__name__} cannot be built in a static program: {why}. Instead: {instead}"
        )
    parameter = sys.modules["ferrograd.nn.parameter"].Parameter
    d = layer.__dict__
    for name, p in list(layer._parameters.items()):
        if isinstance(p, parameter):
            var = static_parameter(layer, name, p)
            layer._parameters[name] = var
            if d.get(name) is p:
                d[name] = var
    for name, b in list(layer._buffers.items()):
        if isinstance(b, _core.Tensor):
            var = static_buffer(layer, name, b)
            layer._buffers[name] = var
            if d.get(name) is b:
                d[name] = var


__all__ = ["check_not_eager_parameter", "make_static", "static_buffer", "static_parameter"]
