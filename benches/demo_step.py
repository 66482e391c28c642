"""The training step of the demo's model (``python -m ferrograd.demo``) in ferrograd and
in PyTorch, for ``compare.py``'s ``demo_step_ms`` workload.

The model is ``ferrograd._demo_train.SpiralNet``: Linear(2, H) -> Swish (a custom
PyLayer / autograd.Function) -> LayerNorm -> Linear(H, H) -> Swish -> Dropout(0.05) ->
Linear(H, 3), trained with Adam on softmax cross-entropy. Both libraries start from the
same weights and see the same batch; each step is forward, loss, ``zero_grad``,
backward and ``optimizer.step()``.
"""

from __future__ import annotations

from typing import Any, Callable

HIDDEN = 64
BATCH = 64
CLASSES = 3
LR = 0.01


def _weights(np: Any, rng: Any) -> dict:
    """Initial weights in PyTorch's layout ([out, in]) and a batch."""

    def lin(fan_in: int, fan_out: int) -> tuple:
        bound = 1.0 / fan_in**0.5
        w = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        b = rng.uniform(-bound, bound, fan_out).astype(np.float32)
        return w, b

    return {
        "fc1": lin(2, HIDDEN),
        "fc2": lin(HIDDEN, HIDDEN),
        "head": lin(HIDDEN, CLASSES),
        "x": rng.standard_normal((BATCH, 2)).astype(np.float32),
        "y": rng.integers(0, CLASSES, BATCH),
    }


def ferrograd_step(np: Any, rng: Any) -> Callable[[], Any]:
    """One training step of the demo model in ferrograd (returns the loss tensor)."""
    import ferrograd as fg
    from ferrograd._demo_train import SpiralNet

    init = _weights(np, rng)
    model = SpiralNet(hidden=HIDDEN)
    with fg.no_grad():
        for name in ("fc1", "fc2", "head"):
            layer = getattr(model, name)
            layer.weight.copy_(fg.tensor(init[name][0]))
            layer.bias.copy_(fg.tensor(init[name][1]))
    x, y = fg.tensor(init["x"]), fg.tensor(init["y"])
    optimizer = fg.optim.Adam(model.parameters(), lr=LR)
    cross_entropy = fg.nn.functional.cross_entropy

    def step() -> Any:
        loss = cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return step


def torch_step(np: Any, rng: Any) -> Callable[[], Any]:
    """The same step in PyTorch (``torch.nn`` layers, a custom ``autograd.Function``)."""
    import torch
    from torch import nn

    class Swish(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x.sigmoid()

        @staticmethod
        def backward(ctx: Any, dy: Any) -> Any:
            (x,) = ctx.saved_tensors
            s = x.sigmoid()
            return dy * (s * (1.0 + x * (1.0 - s)))

    class SwishLayer(nn.Module):
        def forward(self, x: Any) -> Any:
            return Swish.apply(x)

    class SpiralNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(2, HIDDEN)
            self.act1 = SwishLayer()
            self.norm = nn.LayerNorm(HIDDEN)
            self.fc2 = nn.Linear(HIDDEN, HIDDEN)
            self.act2 = SwishLayer()
            self.drop = nn.Dropout(0.05)
            self.head = nn.Linear(HIDDEN, CLASSES)

        def forward(self, x: Any) -> Any:
            h = self.norm(self.act1(self.fc1(x)))
            h = self.drop(self.act2(self.fc2(h)))
            return self.head(h)

    init = _weights(np, rng)
    model = SpiralNet()
    with torch.no_grad():
        for name in ("fc1", "fc2", "head"):
            layer = getattr(model, name)
            layer.weight.copy_(torch.from_numpy(init[name][0]))
            layer.bias.copy_(torch.from_numpy(init[name][1]))
    x, y = torch.from_numpy(init["x"]), torch.from_numpy(init["y"])
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    cross_entropy = nn.functional.cross_entropy

    def step() -> Any:
        loss = cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return step
