"""``paddle.utils.run_check()``: the check Paddle's users run after installing — a short
training run that must work, then Paddle's success message (naming ferrograd)."""

from __future__ import annotations

__all__ = ["run_check"]


def run_check() -> None:
    """Trains a small linear model for a few steps and checks the result: the
    gradient of one step against central finite differences in float64, and the loss
    falling under SGD. Prints that ferrograd works on the CPU, or raises
    ``RuntimeError`` naming what failed."""
    import ferrograd as fg

    print("Running verify ferrograd program ... ")
    gen = fg.Generator().manual_seed(0)
    x = fg.randn([16, 4], dtype=fg.float64, generator=gen)
    target = x @ fg.tensor([[1.0], [-2.0], [0.5], [3.0]], dtype=fg.float64)
    w = fg.zeros([4, 1], dtype=fg.float64, requires_grad=True)

    def loss_of(weight: fg.Tensor) -> fg.Tensor:
        return ((x @ weight - target) ** 2).mean()

    loss = loss_of(w)
    (grad,) = fg.autograd.grad(loss, [w])
    eps = 1e-6
    with fg.no_grad():
        for i in range(4):
            step = fg.zeros([4, 1], dtype=fg.float64)
            step[i, 0] = eps
            numeric = (loss_of(w + step) - loss_of(w - step)).item() / (2 * eps)
            if abs(numeric - grad[i, 0].item()) > 1e-5 * max(1.0, abs(numeric)):
                raise RuntimeError(
                    f"run_check: the gradient of weight {i} is {grad[i, 0].item()}, finite "
                    f"differences give {numeric}: ferrograd's autograd is broken here"
                )
    first = loss.item()
    opt = fg.optim.SGD([w], lr=0.1)
    for _ in range(20):
        opt.zero_grad()
        step_loss = loss_of(w)
        step_loss.backward()
        opt.step()
    last = loss_of(w).item()
    if not last < 0.5 * first:
        raise RuntimeError(
            f"run_check: 20 SGD steps took the loss from {first} to {last} only; "
            "ferrograd's training step is broken here"
        )
    print("ferrograd works well on 1 CPU.")
    print(
        "ferrograd is installed successfully! Let's start deep learning with "
        "ferrograd (Paddle and PyTorch APIs) now."
    )
