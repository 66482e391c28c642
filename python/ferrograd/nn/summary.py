"""``summary(model, input_size)``: a table of a model's layers with their output shapes
and parameter counts (Paddle's ``paddle.summary``; also usable from the torch dialect)."""

from __future__ import annotations

from typing import Any

from .. import _core
from ..grad_mode import no_grad
from .module import Module


def _shape_of(x: Any) -> Any:
    if isinstance(x, _core.Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shape_of(v) for v in x]
    if isinstance(x, dict):
        return {k: _shape_of(v) for k, v in x.items()}
    return None


def _inputs(input_size: Any, dtypes: Any) -> list[Any]:
    """Zero tensors of the given sizes (None or -1 in a size means a batch of 1)."""
    sizes = input_size
    if isinstance(sizes, tuple) and all(isinstance(s, (int, type(None))) for s in sizes):
        sizes = [sizes]
    elif isinstance(sizes, list) and all(isinstance(s, (int, type(None))) for s in sizes):
        sizes = [sizes]
    if dtypes is None or isinstance(dtypes, str):
        dtypes = [dtypes or "float32"] * len(sizes)
    return [
        _core.zeros([1 if d is None or d == -1 else int(d) for d in size], dtype=dt)
        for size, dt in zip(sizes, dtypes)
    ]


def summary(
    net: Module, input_size: Any = None, dtypes: Any = None, input: Any = None
) -> dict[str, int]:
    """Runs one forward pass (on ``input``, or on zeros of ``input_size``: a shape such as
    ``(1, 28 * 28)`` or a list of them) and prints each leaf layer with its output shape
    and parameter count. Returns ``{"total_params": n, "trainable_params": m}``."""
    if not isinstance(net, Module):
        raise TypeError(f"summary expects a Module (Layer), got {type(net).__name__}")
    if input is None and input_size is None:
        raise ValueError("summary: give input_size (e.g. (1, 784)) or input")
    rows: list[tuple[str, Any, int]] = []
    handles = []

    def hook(name: str) -> Any:
        def record(module: Module, args: Any, output: Any) -> None:
            n = sum(p.numel() for p in module.parameters(recurse=False))
            rows.append((f"{type(module).__name__}-{name}", _shape_of(output), n))

        return record

    for name, m in net.named_modules():
        if m is not net and not m._modules:  # leaf layers only
            handles.append(m.register_forward_post_hook(hook(name)))
    if not handles:
        handles.append(net.register_forward_post_hook(hook(type(net).__name__)))
    was_training = net.training
    net.eval()
    try:
        args = [input] if input is not None and not isinstance(input, (list, tuple)) else input
        if args is None:
            args = _inputs(input_size, dtypes)
        with no_grad():
            net(*args)
    finally:
        for h in handles:
            h.remove()
        net.train(was_training)
    total = sum(p.numel() for p in net.parameters())
    trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
    width = max([len(r[0]) for r in rows] + [14]) + 2
    line = "-" * (width + 40)
    print(line)
    print(f"{'Layer (type)':<{width}}{'Output Shape':<28}{'Param #':>12}")
    print("=" * (width + 40))
    for name, shape, n in rows:
        print(f"{name:<{width}}{str(shape):<28}{n:>12,}")
    print("=" * (width + 40))
    print(f"Total params: {total:,}")
    print(f"Trainable params: {trainable:,}")
    print(f"Non-trainable params: {total - trainable:,}")
    print(line)
    return {"total_params": total, "trainable_params": trainable}
