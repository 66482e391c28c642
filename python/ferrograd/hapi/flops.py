"""``paddle.flops(net, input_size, custom_ops=None, print_detail=False)``: the
floating-point operations of one forward pass, counted per leaf layer.

The counting rules are Paddle's (python/paddle/hapi/dynamic_flops.py): a convolution
costs ``numel(out) * (in_channels / groups * prod(kernel) + bias)``, a linear layer
``numel(out) * in_features``, batch norm ``2 * numel(in)`` (counted in eval mode, where
the net is run), average pooling ``numel(out)``, adaptive average pooling ``numel(out) *
(prod(in_size // out_size) + 1)``, leaky ReLU ``numel(in)``, ReLU / ReLU6 / dropout 0;
any other leaf layer counts 0 unless ``custom_ops`` maps its class to a function
``f(layer, inputs, output)`` that adds to ``layer.total_ops``. The same counts apply to
the PyTorch-spelled classes (``nn.Conv2d``, ``nn.BatchNorm2d``, ...). One difference:
a net that is itself a leaf layer (``flops(nn.Linear(4, 2), [1, 4])``) is counted,
where Paddle, looking at sublayers only, reports 0.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

__all__ = ["flops"]


def _numel(t: Any) -> int:
    return int(math.prod(t.shape))


def _conv(m: Any, x: tuple, y: Any) -> None:
    kernel = math.prod(m.weight.shape[2:])
    bias = 1 if m.bias is not None else 0
    m.total_ops += abs(int(_numel(y) * (x[0].shape[1] / m.groups * kernel + bias)))


def _leaky_relu(m: Any, x: tuple, y: Any) -> None:
    m.total_ops += _numel(x[0])


def _bn(m: Any, x: tuple, y: Any) -> None:
    m.total_ops += 2 * _numel(x[0])


def _linear(m: Any, x: tuple, y: Any) -> None:
    # Paddle's weight is [in, out] and PyTorch's [out, in]: the input's last dimension
    # is the multiplications per output element in both
    m.total_ops += _numel(y) * int(x[0].shape[-1])


def _avgpool(m: Any, x: tuple, y: Any) -> None:
    m.total_ops += _numel(y)


def _adaptive_avgpool(m: Any, x: tuple, y: Any) -> None:
    kernel = math.prod(i // o for i, o in zip(x[0].shape[2:], y.shape[2:]))
    m.total_ops += abs(int(float(kernel + 1) * _numel(y)))


def _zero(m: Any, x: tuple, y: Any) -> None:
    m.total_ops += 0


def _rules() -> dict[type, Callable[..., None]]:
    from .. import nn

    rules: dict[type, Callable[..., None]] = {}
    groups = [
        (_conv, "Conv1D Conv2D Conv3D Conv1DTranspose Conv2DTranspose Conv3DTranspose "
                "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d"),
        (_bn, "BatchNorm2D BatchNorm BatchNorm2d"),
        (_zero, "ReLU ReLU6 Dropout"),
        (_leaky_relu, "LeakyReLU"),
        (_linear, "Linear"),
        (_avgpool, "AvgPool1D AvgPool2D AvgPool3D AvgPool1d AvgPool2d AvgPool3d"),
        (_adaptive_avgpool, "AdaptiveAvgPool1D AdaptiveAvgPool2D AdaptiveAvgPool3D "
                            "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d"),
    ]  # fmt: skip
    for fn, names in groups:
        for name in names.split():
            cls = getattr(nn, name, None)
            if isinstance(cls, type):
                rules[cls] = fn
    return rules


def _table(rows: list[list[Any]]) -> str:
    """Paddle's table: each column as wide as its widest cell plus two, centred."""
    head = ["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    cells = [head] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) + 2 for i in range(len(head))]
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    lines = [rule]
    for k, r in enumerate(cells):
        lines.append("|" + "|".join(c.center(w) for c, w in zip(r, widths)) + "|")
        if k == 0:
            lines.append(rule)
    lines.append(rule)
    return "\n".join(lines)


def flops(
    net: Any,
    input_size: Any,
    custom_ops: Optional[dict] = None,
    print_detail: bool = False,
) -> int:
    """The FLOPs of one forward pass of ``net`` on a random input of ``input_size``
    (Paddle's counting rules, see the module docstring); prints the total, and with
    ``print_detail`` a table per leaf layer. ``custom_ops`` maps a layer class to a
    counting function ``f(layer, inputs, output)`` adding to ``layer.total_ops``."""
    from .. import no_grad, randn
    from ..nn import Module

    if not isinstance(net, Module):
        raise TypeError(
            f"flops: net must be an nn.Layer / nn.Module, got {type(net).__name__} "
            "(ferrograd has no static Program to count)"
        )
    rules = _rules()
    custom = dict(custom_ops or {})
    leaves = [(n, m) for n, m in net.named_sublayers(include_self=True) if not list(m.children())]
    seen: set[type] = set()
    info: dict[int, list[Any]] = {}
    handles = []

    def record(m: Any, x: tuple, y: Any) -> None:
        info[id(m)] = [list(x[0].shape), list(y.shape)]

    for _, m in leaves:
        kind = type(m)
        fn = custom.get(kind) or rules.get(kind)
        if kind not in seen:
            if kind in custom:
                print(f"Customize Function has been applied to {kind}")
            elif fn is not None:
                print(f"{kind}'s flops has been counted")
            else:
                print(f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")
            seen.add(kind)
        m.total_ops = 0
        if fn is not None:
            handles.append(m.register_forward_post_hook(fn))
        handles.append(m.register_forward_post_hook(record))
    training = net.training
    net.eval()
    try:
        with no_grad():
            net(randn(list(input_size)))
        rows, total_ops, total_params = [], 0, 0
        for _, m in leaves:
            if id(m) not in info:
                continue  # not called by this forward
            params = sum(int(math.prod(p.shape)) for p in m.parameters())
            ops = int(m.total_ops)
            total_ops += ops
            total_params += params
            rows.append([m.full_name(), *info[id(m)], params, ops])
    finally:
        for h in handles:
            h.remove()
        for _, m in leaves:
            m.__dict__.pop("total_ops", None)
        if training:
            net.train()
    if print_detail:
        print(_table(rows))
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops
