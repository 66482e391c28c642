"""``paddle.summary(net, input_size=None, dtypes=None, input=None)``: Paddle's table of a
network's layers, with their input and output shapes and parameter counts, and its size
estimates; usable from PyTorch code too.

The rules are Paddle's (python/paddle/hapi/model_summary.py ``summary`` /
``summary_string``): every layer but the network itself and its ``Sequential`` /
``LayerList`` containers gets a row when its forward runs (inner layers first, as their
forward post-hooks fire), keyed ``<Class>-<n>`` with ``n`` one more than the number at the
end of the layer's ``full_name()`` (so ``Conv2D-1``, ``Conv2D-2``); a layer called twice
keeps one row. ``Param #`` counts the layer's own parameters; the sizes in MB count 4
bytes per input element, per parameter and (twice, for the gradients) per output element.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

from .. import _core
from ..grad_mode import no_grad
from .module import Module


def _shape_of(x: Any) -> Any:
    """Paddle's input shapes: a tensor's shape as a list, lists of them nested."""
    if isinstance(x, _core.Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shape_of(v) for v in x]
    return None


def _output_shape(out: Any) -> Any:
    if isinstance(out, (list, tuple)):
        return [_output_shape(o) for o in out]
    return list(out.shape) if hasattr(out, "shape") else []


def _is_shape(s: Any) -> bool:
    return isinstance(s, (list, tuple)) and all(not isinstance(i, (list, tuple)) for i in s)


def _check_shape(shape: Any) -> tuple:
    """A size with its one unknown (None or -1) dimension set to 1, as Paddle does."""
    unknown, out = 0, []
    for item in shape:
        if item is None or item == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
            item = 1
        elif isinstance(item, (int, float)) and item <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {item}")
        out.append(int(item))
    return tuple(out)


def _check_input(size: Any) -> Any:
    if _is_shape(size):
        return _check_shape(size)
    return [_check_input(i) for i in size]


def _input_size_of(input: Any) -> Any:
    if isinstance(input, _core.Tensor):
        return tuple(input.shape)
    if isinstance(input, (list, tuple)):
        return [tuple(x.shape) for x in input]
    if isinstance(input, dict):
        return [tuple(v.shape) for v in input.values()]
    raise ValueError(
        "Input is not tensor, list, tuple and dict, unable to determine input_size, "
        "please input input_size."
    )


def _normalise_size(input_size: Any) -> Any:
    from .._input_spec import InputSpec

    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, list):
        items = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if isinstance(item, InputSpec):
                item = tuple(item.shape)
            if not isinstance(item, tuple):
                raise TypeError(
                    "summary: when input_size is a list, each item must be a tuple or an "
                    f"InputSpec, got {type(item).__name__}"
                )
            items.append(item)
        return items
    if isinstance(input_size, int):
        return (input_size,)
    return input_size


def _build_input(size: Any, dtypes: Any) -> Any:
    if _is_shape(size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return _core.rand(list(size)).astype(dtype)
    return [_build_input(s, d) for s, d in zip(size, dtypes)]


def _build_dtypes(size: Any, dtype: Any) -> Any:
    if _is_shape(size):
        return [dtype or "float32"]
    return [_build_dtypes(s, dtype) for s in size]


def _input_mb(size: Any) -> float:
    if _is_shape(size):
        return abs(math.prod(size) * 4.0 / 1024**2)
    return sum(_input_mb(s) for s in size)


def _output_elements(shape: Any) -> int:
    """Paddle's ``np.sum(np.prod(output_shape, axis=-1))`` of one row."""
    if not shape:
        return 1
    if all(isinstance(s, int) for s in shape):
        return math.prod(shape)
    return sum(_output_elements(s) for s in shape)


def summary(
    net: Module, input_size: Any = None, dtypes: Any = None, input: Any = None
) -> dict[str, int]:
    """Runs one forward pass (on ``input``, passed as one argument, or on random inputs
    of ``input_size``: a shape such as ``(1, 28 * 28)`` or a list of them, one per
    forward argument, ``None`` / ``-1`` for the batch) in eval mode without gradients,
    prints Paddle's table, and returns ``{"total_params": n, "trainable_params": m}``."""
    if not isinstance(net, Module):
        raise TypeError(f"summary expects a Module (Layer), got {type(net).__name__}")
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        input_size = _input_size_of(input)
    size = _check_input(_normalise_size(input_size))
    training = net.training
    if training:
        net.eval()
    try:
        text, info = _summary_string(net, size, dtypes, input)
    finally:
        if training:
            net.train()
    print(text)
    return info


def _summary_string(net: Module, size: Any, dtypes: Any, input: Any) -> tuple[str, dict]:
    from .layers import ModuleList as LayerList
    from .layers import Sequential

    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(size, dtypes)
    rows: OrderedDict[str, dict[str, Any]] = OrderedDict()
    depth = len(list(net.sublayers()))

    def hook(layer: Module, args: Any, output: Any) -> None:
        try:
            idx = int(layer.full_name().split("_")[-1])
        except ValueError:
            idx = len(rows)
        row: dict[str, Any] = {
            "input_shape": _shape_of(args),
            "output_shape": _output_shape(output),
        }
        own = list(layer._parameters.values())
        row["nb_params"] = sum(math.prod(p.shape) for p in own if p is not None)
        row["trainable_params"] = sum(
            math.prod(p.shape) for p in own if p is not None and not p.stop_gradient
        )
        rows[f"{type(layer).__name__}-{idx + 1}"] = row

    handles = [
        m.register_forward_post_hook(hook)
        for m in net.sublayers(include_self=True)
        if not isinstance(m, (Sequential, LayerList)) and (m is not net or depth < 1)
    ]
    try:
        with no_grad():
            if input is not None:
                net(input)
            else:
                args = _build_input([size] if isinstance(size, tuple) else size, dtypes)
                net(*args)
    finally:
        for h in handles:
            h.remove()
    widths = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for key, row in rows.items():
        widths["layer"] = max(widths["layer"], len(key))
        widths["input"] = max(widths["input"], len(str(row["input_shape"])))
        widths["output"] = max(widths["output"], len(str(row["output_shape"])))
        widths["params"] = max(widths["params"], len(str(row["nb_params"])))
    table = max(75, sum(widths.values()) + 5)

    def line(a: str, b: str, c: str, d: str) -> str:
        w = widths
        return f"{a:^{w['layer']}} {b:^{w['input']}} {c:^{w['output']}} {d:^{w['params']}}"

    out = ["-" * table, line("Layer (type)", "Input Shape", "Output Shape", "Param #"), "=" * table]
    total = trainable = outputs = 0
    for key, row in rows.items():
        out.append(
            line(key, str(row["input_shape"]), str(row["output_shape"]), f"{row['nb_params']:,}")
        )
        total += row["nb_params"]
        trainable += row["trainable_params"]
        outputs += _output_elements(row["output_shape"])
    input_mb = _input_mb([size] if isinstance(size, tuple) else size)
    output_mb = abs(2.0 * outputs * 4.0 / 1024**2)
    params_mb = abs(total * 4.0 / 1024**2)
    out += [
        "=" * table,
        f"Total params: {total:,}",
        f"Trainable params: {trainable:,}",
        f"Non-trainable params: {total - trainable:,}",
        "-" * table,
        f"Input size (MB): {input_mb:0.2f}",
        f"Forward/backward pass size (MB): {output_mb:0.2f}",
        f"Params size (MB): {params_mb:0.2f}",
        f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:0.2f}",
        "-" * table,
    ]
    return "\n".join(out) + "\n", {"total_params": total, "trainable_params": trainable}
