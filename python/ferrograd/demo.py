"""A tour of ferrograd ending in a trained classifier: ``python -m ferrograd.demo``.

Each section is one function that prints what it does:

1. tensors and ops, written in both dialects (Paddle's and PyTorch's);
2. NumPy interop: ``from_numpy`` shares memory, ``np.asarray`` copies;
3. autograd: ``backward``, ``grad``, a second derivative, ``no_grad``, a hook;
4. fitting ``y = 3x + 2`` to noisy points by gradient descent;
5. checking the classifier's custom PyLayer activation with ``gradcheck``;
6. training that classifier (``nn`` layers, Adam) on generated spirals, with a tqdm bar
   per epoch when tqdm is installed, test accuracy under ``no_grad``, saved tensors on
   disk with ``--offload`` or recomputed in backward with ``--checkpoint``, and a
   loss/accuracy plot with ``--plot PATH`` (matplotlib);
7. a checkpoint round trip with ``ferrograd.save`` / ``ferrograd.load``.

Options: ``--epochs``, ``--hidden``, ``--samples``, ``--offload``, ``--checkpoint``,
``--seed``, ``--plot PATH``, ``--steps`` (section 4), ``--no-tour`` (sections 5-7 only),
``--no-progress``; ``--cnn`` (with ``--cnn-epochs``, ``--cnn-samples``, ``--plot``)
trains a small CNN on scikit-learn's 8x8 digits instead (``_demo_cnn.py``). ``main`` returns the results in a dict (fitted line, accuracies,
...), so tests can check them without parsing the printed text.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from typing import Any, Optional, Sequence

import numpy as np

import ferrograd as fg

from . import _demo_train as cls

TRUE_SLOPE = 3.0
TRUE_INTERCEPT = 2.0


def section(title: str) -> None:
    """Prints a section header."""
    print()
    print(f"== {title} " + "=" * max(0, 70 - len(title)))


def show_tensors() -> None:
    """The same computation in the Paddle dialect and in the PyTorch dialect."""
    section("1. Tensors and ops, in both dialects")

    # Paddle: to_tensor + stop_gradient; module functions named like paddle's.
    xp = fg.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float32", stop_gradient=False)
    yp = fg.multiply(xp, xp).sum(axis=1)
    print("paddle style: to_tensor(...), multiply(x, x).sum(axis=1) ->", yp)

    # PyTorch: tensor + requires_grad; operators, and torch's keyword dim= for the axis.
    xt = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    yt = (xt * xt).sum(dim=1)
    print("torch style:  tensor(...),    (x * x).sum(dim=1)        ->", yt)

    # One flag, two spellings: stop_gradient is always `not requires_grad`.
    print("stop_gradient:", xp.stop_gradient, "| requires_grad:", xt.requires_grad)

    # Shapes compare equal to lists (Paddle) and to tuples (PyTorch).
    shape = xt.shape
    print(f"x.shape = {shape}  | == [2, 2]: {shape == [2, 2]}  | == (2, 2): {shape == (2, 2)}")

    # A few more ops: broadcasting, matmul, reductions, dtype conversion, indexing.
    a = fg.arange(6).reshape(2, 3).astype(fg.float32)
    print("a =", a)
    print("a + [10, 20, 30] =", a + fg.tensor([10.0, 20.0, 30.0]))
    print("a @ a.T =", a @ a.T)
    print("a.mean(), a.max(axis=0), a.argmax(dim=1):", a.mean(), a.max(axis=0), a.argmax(dim=1))
    print("a[:, 1:], a[a > 2]:", a[:, 1:], a[a > 2])


def show_numpy_interop() -> None:
    """``from_numpy`` shares memory with the array; ``np.asarray`` and ``.numpy()`` copy."""
    section("2. NumPy interop")

    arr = np.zeros(4)
    t = fg.from_numpy(arr)  # no copy: t is a view of arr's memory (float64)
    t[0] = 5.0  # a write through the tensor...
    arr[1] = 7.0  # ...and one through the array
    print("array  after both writes:", arr)
    print("tensor after both writes:", t)

    copy = t.numpy()  # a fresh array (np.asarray(t) would share t's memory)
    copy[2] = -1.0
    print("t.numpy() is a copy; writing it leaves t as it was:", t)
    print("t.numpy().dtype =", t.numpy().dtype, "| t.dtype =", t.dtype)


def show_autograd() -> dict[str, float]:
    """Gradients by ``backward`` and by ``grad``, a second derivative, ``no_grad``, a hook."""
    section("3. Autograd")

    # backward() fills .grad of the leaves: d/dx sum(x^2) = 2x
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    print("x =", x)
    print("d sum(x^2)/dx, by backward() =", x.grad)

    # grad() returns the gradients instead of accumulating them into .grad;
    # create_graph=True records the backward pass too, so it can be differentiated again.
    s = fg.tensor(2.0, requires_grad=True)
    y = s**3
    (dy,) = fg.grad(y, [s], create_graph=True)  # 3 s^2 = 12
    (d2y,) = fg.grad(dy, [s])  # 6 s = 12
    print(f"y = s^3 at s = 2: dy/ds = {dy.item():g}, d2y/ds2 = {d2y.item():g}")

    # Under no_grad nothing is recorded: the result does not require grad.
    with fg.no_grad():
        z = x * 2
    print("under no_grad, (x * 2).requires_grad =", z.requires_grad)

    # A hook sees (and may replace) a gradient as it flows back; here it doubles it.
    w = fg.tensor([1.0, 1.0], requires_grad=True)
    handle = w.register_hook(lambda g: g * 2)
    (w * 3).sum().backward()
    print("with a doubling hook, d sum(3w)/dw =", w.grad)
    handle.remove()
    w.clear_grad(set_to_zero=False)  # drop .grad (torch: w.grad = None)
    (w * 3).sum().backward()
    print("after handle.remove(),  d sum(3w)/dw =", w.grad)

    return {"dy_ds": float(dy.item()), "d2y_ds2": float(d2y.item())}


def make_data(seed: int, n: int = 200, noise: float = 0.1) -> tuple[fg.Tensor, fg.Tensor]:
    """``n`` points ``x`` uniform in [-1, 1] and ``y = 3x + 2 + noise`` (float32)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=n)
    y = TRUE_SLOPE * x + TRUE_INTERCEPT + noise * rng.standard_normal(n)
    return fg.tensor(x, dtype=fg.float32), fg.tensor(y, dtype=fg.float32)


def fit_line(seed: int, steps: int = 200, lr: float = 0.1) -> dict[str, float]:
    """Fits ``y = w x + b`` by gradient descent on the mean squared error."""
    section("4. Least squares by gradient descent")

    x, y = make_data(seed)
    fg.seed(seed)  # the starting point is random too, reproducibly
    w = fg.randn(1, requires_grad=True)
    b = fg.zeros(1, requires_grad=True)
    print(f"data: {len(x)} points of y = {TRUE_SLOPE:g}x + {TRUE_INTERCEPT:g} + noise")
    print(f"start: w = {w.item():+.4f}, b = {b.item():+.4f}")

    loss = fg.tensor(0.0)
    for step in range(1, steps + 1):
        loss = ((w * x + b - y) ** 2).mean()
        loss.backward()
        # The update itself must not be recorded: parameters stay leaves.
        with fg.no_grad():
            for p in (w, b):
                assert p.grad is not None
                p -= lr * p.grad
                p.clear_grad()  # zero .grad in place for the next step
        if step == 1 or step % 50 == 0:
            print(
                f"step {step:4d}: loss = {loss.item():.6f}  w = {w.item():+.4f}  b = {b.item():+.4f}"
            )

    slope, intercept = float(w.item()), float(b.item())
    print(f"recovered: y = {slope:.3f}x + {intercept:.3f}   (true: y = 3x + 2)")
    return {"slope": slope, "intercept": intercept, "final_loss": float(loss.item())}


def check_custom_layer(seed: int) -> dict[str, Any]:
    """``gradcheck`` and ``gradgradcheck`` of the Swish PyLayer in float64."""
    section("5. Checking the custom activation with gradcheck")
    fg.seed(seed)
    x = fg.randn(4, 3, dtype=fg.float64, requires_grad=True)
    first = fg.autograd.gradcheck(cls.Swish.apply, (x,))
    second = fg.autograd.gradgradcheck(cls.Swish.apply, (x,))
    print(f"gradcheck(Swish): {first}   gradgradcheck(Swish): {second}")
    return {"gradcheck": bool(first), "gradgradcheck": bool(second)}


def train_classifier(args: argparse.Namespace) -> dict[str, Any]:
    """Trains ``SpiralNet`` on generated spirals; prints per-epoch lines and a summary."""
    section("6. Training a classifier with a custom activation")
    x, y = cls.make_spirals(args.samples, args.seed)
    split = int(0.8 * len(y))
    data = (x[:split], y[:split], x[split:], y[split:])
    fg.seed(args.seed)  # initial weights and dropout masks
    model = cls.SpiralNet(hidden=args.hidden)
    n_params = sum(p.numel() for p in model.parameters())
    print(model)
    print(
        f"{len(y)} points on {cls.NUM_CLASSES} spiral arms ({split} train / {len(y) - split} "
        f"test), {n_params} parameters, offload={args.offload}, checkpoint={args.checkpoint}"
    )
    start = time.perf_counter()
    history = cls.train(
        model,
        data,
        args.epochs,
        args.seed,
        offload=args.offload,
        progress=args.progress,
        checkpoint=args.checkpoint,
    )
    seconds = time.perf_counter() - start
    test_acc = history.test_accuracy[-1]
    print(
        f"summary: {args.epochs} epochs in {seconds:.2f} s, final loss "
        f"{history.train_loss[-1]:.4f}, train accuracy {history.train_accuracy[-1]:.3f}, "
        f"test accuracy {test_acc:.3f} (best {max(history.test_accuracy):.3f})"
    )
    results: dict[str, Any] = {
        "epochs": args.epochs,
        "train_seconds": seconds,
        "train_loss": history.train_loss[-1],
        "train_accuracy": history.train_accuracy[-1],
        "test_accuracy": test_acc,
        "history": history,
        "plot": None,
    }
    if args.plot:
        written = cls.plot(history, args.plot, model, data)
        if written is None:
            print("--plot: matplotlib is not installed; no plot written")
        else:
            print(f"loss, accuracy and decision regions written to {written}")
        results["plot"] = written
    results["reloaded_test_accuracy"] = checkpoint_round_trip(model, args, data)
    return results


def checkpoint_round_trip(model: fg.nn.Module, args: argparse.Namespace, data: tuple) -> float:
    """Saves the trained weights, loads them into a fresh model, re-evaluates."""
    section("7. Checkpoint round trip: ferrograd.save / ferrograd.load")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "spiral.npz")
        fg.save(model.state_dict(), path)
        size = os.path.getsize(path)
        fresh = cls.SpiralNet(hidden=args.hidden)
        fresh.load_state_dict(fg.load(path))
    acc = cls.accuracy(fresh, fg.tensor(data[2]), fg.tensor(data[3]))
    print(
        f"saved {len(model.state_dict())} tensors ({size} bytes); reloaded model's test accuracy {acc:.3f}"
    )
    return acc


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m ferrograd.demo", description="A short tour of ferrograd."
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--steps", type=int, default=200, help="gradient-descent steps of section 4 (default: 200)"
    )
    parser.add_argument(
        "--epochs", type=positive_int, default=30, help="classifier epochs (default: 30)"
    )
    parser.add_argument(
        "--hidden", type=positive_int, default=64, help="hidden width (default: 64)"
    )
    parser.add_argument(
        "--samples", type=positive_int, default=3000, help="generated points (default: 3000)"
    )
    parser.add_argument(
        "--offload", action="store_true", help="keep saved activations on disk (save_on_disk)"
    )
    parser.add_argument(
        "--checkpoint",
        action="store_true",
        help="recompute the classifier's activations in backward (utils.checkpoint)",
    )
    parser.add_argument(
        "--plot",
        metavar="PATH",
        help="write loss/accuracy curves and the decision regions to a PNG",
    )
    parser.add_argument("--no-tour", dest="tour", action="store_false", help="skip sections 1-4")
    parser.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no tqdm progress bars"
    )
    # --distributed: data-parallel training under mpiexec (ferrograd.distributed)
    parser.add_argument(
        "--distributed",
        action="store_true",
        help="train data-parallel on the ranks of mpiexec -n N (needs '.[distributed]')",
    )
    # --cnn: a small CNN on scikit-learn's 8x8 digits instead of the tour (_demo_cnn.py)
    parser.add_argument(
        "--cnn",
        action="store_true",
        help="train a small CNN on sklearn's 8x8 digits (needs '.[demo]')",
    )
    parser.add_argument(
        "--cnn-epochs", type=positive_int, default=12, help="CNN epochs (default: 12)"
    )
    parser.add_argument(
        "--cnn-samples",
        type=int,
        default=0,
        help="use only this many digits (default: 0 = all 1797)",
    )
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> dict[str, Any]:
    """Runs every section; returns the results (fitted line, accuracies, ...)."""
    args = parse_args(argv)
    if args.distributed:  # mpiexec -n 2 python -m ferrograd.demo --distributed
        from . import _demo_distributed

        return _demo_distributed.run(args)
    if args.cnn:  # python -m ferrograd.demo --cnn [--plot cnn.png]
        from . import _demo_cnn

        return _demo_cnn.run(args)
    start = time.perf_counter()
    print(f"ferrograd {fg.__version__} demo (seed {args.seed})")

    results: dict[str, Any] = {"seed": args.seed, "steps": args.steps}
    if args.tour:
        show_tensors()
        show_numpy_interop()
        results.update(show_autograd())
        results.update(fit_line(args.seed, steps=args.steps))
    results.update(check_custom_layer(args.seed))
    results.update(train_classifier(args))

    results["seconds"] = time.perf_counter() - start
    print(f"\ndone in {results['seconds']:.2f} s")
    return results


if __name__ == "__main__":
    main()
