"""Random sampling under both dialects' names, and ``Generator`` objects.

The generators and samplers are Rust (``src/tensor/random.rs``: xoshiro256** streams,
one lock per draw); this module parses the peers' arguments. Every sampler takes
``generator=`` (a :class:`Generator`; None: :data:`default_generator`, the stream that
``seed`` / ``manual_seed`` seed), so draws are reproducible per generator.

Sampling is not differentiable: the results have no ``grad_fn`` (for reparameterised
samples write ``mean + std * randn_like(mean)``).
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Optional

from . import _core

Tensor = _core.Tensor
Generator = _core.Generator

#: The generator behind ``seed`` / ``manual_seed`` and every sampler given no generator.
default_generator: Generator = _core._default_generator()

__all__ = [
    "Generator",
    "default_generator",
    "seed",
    "manual_seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "normal",
    "standard_normal",
    "uniform",
    "bernoulli",
    "multinomial",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "install_tensor_methods",
]


def manual_seed(seed: int) -> Generator:
    """Seeds the default generator (``rand``, ``randn``, dropout, ...) and returns it."""
    return default_generator.manual_seed(seed)


def seed(seed: Optional[int] = None) -> Any:
    """``seed(n)`` (Paddle) seeds the default generator and returns it; ``seed()`` with no
    argument (torch) seeds it from the OS's randomness and returns that seed."""
    if seed is None:
        return default_generator.seed()
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state, an int64 tensor for :func:`set_rng_state`
    (torch returns a byte tensor and Paddle a list of states; all are opaque)."""
    return default_generator.get_state()


def set_rng_state(state: Any) -> None:
    """Restores a state from :func:`get_rng_state` (also Paddle's one-element list of
    it, or the 4-tuple from ``utils.checkpoint.get_rng_state``)."""
    if isinstance(state, (list, tuple)) and len(state) == 1:
        state = state[0]
    default_generator.set_state(state)


def _gen(generator: Any, op: str) -> Any:
    if generator is None or isinstance(generator, Generator):
        return generator
    raise TypeError(
        f"{op}: generator must be a ferrograd.Generator or None, got {type(generator).__name__}"
    )


def _shape(op: str, size: Any) -> list[int]:
    if isinstance(size, Tensor):
        size = size.tolist()
    if isinstance(size, int) and not isinstance(size, builtins.bool):
        size = [size]
    try:
        dims = [builtins.int(d) for d in size]
    except TypeError:
        raise TypeError(f"{op}: the shape must be a list or tuple of ints, got {size!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{op}: negative dimension in shape {dims}")
    return dims


def _count(op: str, what: str, n: Any) -> int:
    """``n`` as an ``int`` through ``__index__``, as PyTorch reads counts: a Python or
    NumPy integer, or a one-element integer tensor; a bool (or bool tensor) is refused, as
    PyTorch refuses it."""
    is_bool = isinstance(n, builtins.bool) or (isinstance(n, Tensor) and n.dtype == _core.bool)
    try:
        if is_bool:
            raise TypeError
        return operator.index(n)
    except TypeError:
        raise TypeError(
            f"{op}: {what} must be an int (or a NumPy integer / one-element integer tensor), "
            f"got {n!r}"
        ) from None


def _float_dtype(dtype: Any) -> Any:
    return _core._get_default_dtype() if dtype is None else dtype


def _finish(t: Tensor, requires_grad: builtins.bool) -> Tensor:
    if requires_grad:
        t.requires_grad_(True)
    return t


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    size: Any = None,
    *,
    shape: Any = None,
    generator: Any = None,
    dtype: Any = None,
    out: Any = None,
    requires_grad: builtins.bool = False,
    name: Any = None,
    device: Any = None,
) -> Tensor:
    """Normal samples. ``mean`` and ``std`` are numbers (then ``size`` / Paddle's
    ``shape`` gives the shape) or tensors (broadcast together; the result has their
    shape and dtype). Not differentiable in ``mean`` / ``std``."""
    if out is not None:
        raise TypeError("normal: out= is not supported; assign the result instead")
    g = _gen(generator, "normal")
    size = shape if size is None else size
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean if isinstance(mean, Tensor) else None
        s = std if isinstance(std, Tensor) else None
        like = m if m is not None else s
        assert like is not None
        fdt = like.dtype if like.dtype.is_floating_point else _core._get_default_dtype()
        mt = (
            m.detach() if m is not None else _core.tensor(builtins.float(mean), dtype=fdt)
        ).astype(fdt)
        st = (s.detach() if s is not None else _core.tensor(builtins.float(std), dtype=fdt)).astype(
            fdt
        )
        if bool((st < 0).any()):
            raise ValueError("normal: std must be non-negative")
        out_shape = list(_broadcast_shape(mt, st))
        z = _core._normal(out_shape, 0.0, 1.0, fdt, g)
        return _finish(z * st + mt, requires_grad)
    if size is None:
        size = []
    dims = _shape("normal", size)
    return _finish(
        _core._normal(dims, builtins.float(mean), builtins.float(std), _float_dtype(dtype), g),
        requires_grad,
    )


def _broadcast_shape(a: Tensor, b: Tensor) -> tuple[int, ...]:
    import numpy as np

    return tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))


def standard_normal(shape: Any, dtype: Any = None, name: Any = None) -> Tensor:
    """Paddle's ``standard_normal(shape, dtype=None, name=None)``: standard normal draws of
    ``shape`` (a list / tuple of ints or 0-d tensors, or a 1-D integer tensor) in ``dtype``
    (the default dtype, float32 unless changed, when None), as ``paddle.randn``."""
    return _core.randn(shape, dtype=_float_dtype(dtype))


def uniform(
    shape: Any = None,
    dtype: Any = None,
    min: float = 0.0,
    max: float = 1.0,
    seed: int = 0,
    name: Any = None,
    *,
    generator: Any = None,
) -> Tensor:
    """Paddle's ``uniform``: samples in ``[min, max)`` of ``shape`` (``[0, 1)`` by default,
    as Paddle 3.3.1; older Paddle defaulted to ``min=-1``). A non-zero ``seed`` draws from
    a generator seeded with it (the same values on every call, as Paddle)."""
    if shape is None:
        raise TypeError("uniform: expects a shape")
    g = _gen(generator, "uniform")
    if seed:
        g = Generator().manual_seed(seed)
    return _core._uniform(
        _shape("uniform", shape), builtins.float(min), builtins.float(max), _float_dtype(dtype), g
    )


def bernoulli(
    x: Any = None,
    p: Any = None,
    *,
    generator: Any = None,
    out: Any = None,
    input: Any = None,
    name: Any = None,
) -> Tensor:
    """0/1 samples: 1 with probability ``x[i]`` (a tensor of probabilities in [0, 1];
    the result has its shape and dtype), or with the number ``p`` when given (torch's
    ``bernoulli(input, p)``)."""
    if out is not None:
        raise TypeError("bernoulli: out= is not supported; assign the result instead")
    x = input if x is None else x
    if not isinstance(x, Tensor):
        raise TypeError(f"bernoulli: expects a Tensor of probabilities, got {type(x).__name__}")
    g = _gen(generator, "bernoulli")
    if p is not None:
        dt = x.dtype if not x.dtype.is_complex else _core._get_default_dtype()
        return _core._bernoulli_scalar(list(x.shape), builtins.float(p), dt, g)
    return _core._bernoulli(x.detach(), g)


def multinomial(
    x: Any = None,
    num_samples: int = 1,
    replacement: builtins.bool = False,
    name: Any = None,
    *,
    generator: Any = None,
    out: Any = None,
    input: Any = None,
) -> Tensor:
    """``num_samples`` category indices (int64) per row of the 1-D or 2-D weights ``x``
    (non-negative, not necessarily normalised); each row's draws are without
    replacement unless ``replacement=True``."""
    if out is not None:
        raise TypeError("multinomial: out= is not supported; assign the result instead")
    x = input if x is None else x
    if not isinstance(x, Tensor):
        raise TypeError(f"multinomial: expects a Tensor of weights, got {type(x).__name__}")
    num_samples = _count("multinomial", "num_samples", num_samples)
    w = x.detach()
    if not w.dtype.is_floating_point:
        w = w.astype(_core._get_default_dtype())
    return _core._multinomial(
        w, num_samples, builtins.bool(replacement), _gen(generator, "multinomial")
    )


def randperm(
    n: int,
    dtype: Any = None,
    name: Any = None,
    *,
    generator: Any = None,
    out: Any = None,
    requires_grad: builtins.bool = False,
    device: Any = None,
    layout: Any = None,
    pin_memory: builtins.bool = False,
) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype``)."""
    if out is not None:
        raise TypeError("randperm: out= is not supported; assign the result instead")
    n = _count("randperm", "n", n)
    t = _core._randperm(n, "int64" if dtype is None else dtype, _gen(generator, "randperm"))
    return _finish(t, requires_grad)


def _like_dtype(x: Tensor, dtype: Any) -> Any:
    return x.dtype if dtype is None else dtype


def rand_like(
    input: Tensor,
    *,
    dtype: Any = None,
    generator: Any = None,
    requires_grad: builtins.bool = False,
    **_: Any,
) -> Tensor:
    """Uniform samples in [0, 1) with ``input``'s shape and dtype (or ``dtype``)."""
    t = _core._uniform(
        list(input.shape), 0.0, 1.0, _like_dtype(input, dtype), _gen(generator, "rand_like")
    )
    return _finish(t, requires_grad)


def randn_like(
    input: Tensor,
    *,
    dtype: Any = None,
    generator: Any = None,
    requires_grad: builtins.bool = False,
    **_: Any,
) -> Tensor:
    """Standard normal samples with ``input``'s shape and dtype (or ``dtype``)."""
    t = _core._normal(
        list(input.shape), 0.0, 1.0, _like_dtype(input, dtype), _gen(generator, "randn_like")
    )
    return _finish(t, requires_grad)


def randint_like(
    input: Tensor,
    low: int = 0,
    high: Optional[int] = None,
    dtype: Any = None,
    name: Any = None,
    *,
    generator: Any = None,
    requires_grad: builtins.bool = False,
    **_: Any,
) -> Tensor:
    """Integers uniform in ``[low, high)`` (``randint_like(x, high)`` means ``[0, high)``)
    with ``input``'s shape and dtype (or ``dtype``). The positional ``dtype`` and ``name``
    are Paddle's ``randint_like(x, low=0, high=None, dtype=None, name=None)``; PyTorch
    passes ``dtype=`` by keyword."""
    if high is None:
        low, high = 0, low
    t = _core._randint(
        builtins.int(low),
        builtins.int(high),
        list(input.shape),
        _like_dtype(input, dtype),
        _gen(generator, "randint_like"),
    )
    return _finish(t, requires_grad)


# ---- in-place samplers (Tensor methods) ---------------------------------------------------


def _fill(self: Tensor, sample: Tensor) -> Tensor:
    # copy_ keeps the autograd rules of in-place ops (a leaf that requires grad refuses
    # outside no_grad, as in the peers) and bumps the version counter
    self.copy_(sample)
    return self


def _normal_(
    self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None, name: Any = None
) -> Tensor:
    """Fills ``self`` with normal samples (``mean``, ``std``)."""
    s = _core._normal(
        list(self.shape),
        builtins.float(mean),
        builtins.float(std),
        self.dtype,
        _gen(generator, "normal_"),
    )
    return _fill(self, s)


def _uniform_(
    self: Tensor,
    *args: Any,
    generator: Any = None,
    seed: int = 0,
    name: Any = None,
    **bounds: Any,
) -> Tensor:
    """Fills ``self`` with samples uniform in ``[from, to)`` (torch's names; Paddle's
    ``min=`` / ``max=`` keywords and ``seed=`` also accepted; both peers default to 0 and 1
    — Paddle 3.3.1's defaults, older Paddle's ``min`` was -1)."""
    lo: Any = bounds.pop("from", bounds.pop("min", None))
    hi: Any = bounds.pop("to", bounds.pop("max", None))
    if bounds:
        raise TypeError(f"uniform_: unexpected keyword arguments {sorted(bounds)}")
    if len(args) > 2:
        raise TypeError("uniform_: expects at most two bounds (from, to)")
    if args:
        lo = args[0]
    if len(args) > 1:
        hi = args[1]
    g = _gen(generator, "uniform_")
    if seed:
        g = Generator().manual_seed(seed)
    lo = 0.0 if lo is None else builtins.float(lo)
    hi = 1.0 if hi is None else builtins.float(hi)
    return _fill(self, _core._uniform(list(self.shape), lo, hi, self.dtype, g))


def _exponential_(
    self: Tensor,
    lambd: float = 1.0,
    *,
    generator: Any = None,
    lam: Optional[float] = None,
    name: Any = None,
) -> Tensor:
    """Fills ``self`` with exponential samples of rate ``lambd`` (Paddle: ``lam``)."""
    rate = builtins.float(lambd if lam is None else lam)
    return _fill(
        self,
        _core._exponential(list(self.shape), rate, self.dtype, _gen(generator, "exponential_")),
    )


def _bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fills ``self`` with 0/1 samples, 1 with probability ``p`` (a number or a tensor
    broadcast to ``self``'s shape)."""
    g = _gen(generator, "bernoulli_")
    if isinstance(p, Tensor):
        probs = p.detach().astype("float64").broadcast_to(list(self.shape))
        sample = _core._bernoulli(probs.contiguous(), g).astype(self.dtype)
    else:
        sample = _core._bernoulli_scalar(list(self.shape), builtins.float(p), self.dtype, g)
    return _fill(self, sample)


def _random_(self: Tensor, *args: Any, generator: Any = None, **kw: Any) -> Tensor:
    """Fills ``self`` with integers uniform in ``[from, to)``: ``random_(to)`` means
    ``[0, to)``; with no bounds, ``[0, 2**mantissa]`` for floats (every integer the dtype
    holds exactly) and ``[0, max]`` for integers, as torch."""
    lo = kw.pop("from", None)
    hi = kw.pop("to", None)
    if kw:
        raise TypeError(f"random_: unexpected keyword arguments {sorted(kw)}")
    if len(args) == 1:
        if lo is None and hi is None:
            hi = args[0]
        else:
            lo = args[0]
    elif len(args) == 2:
        lo, hi = args
    elif len(args) > 2:
        raise TypeError("random_: expects at most two bounds (from, to)")
    lo = 0 if lo is None else builtins.int(lo)
    if hi is None:
        # one past the largest integer the dtype holds exactly (int64: 2**63 - 1 is the
        # largest exclusive bound an int64 holds, so 2**63 - 1 itself is never drawn)
        exclusive = {
            "float16": 2**11 + 1,
            "bfloat16": 2**8 + 1,
            "float32": 2**24 + 1,
            "float64": 2**53 + 1,
            "uint8": 2**8,
            "int8": 2**7,
            "int16": 2**15,
            "int32": 2**31,
            "int64": 2**63 - 1,
            "bool": 2,
        }
        hi = exclusive.get(str(self.dtype).replace("ferrograd.", ""), 2**31)
    return _fill(
        self,
        _core._randint(
            lo, builtins.int(hi), list(self.shape), self.dtype, _gen(generator, "random_")
        ),
    )


def _bernoulli_method(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """``bernoulli(self)``: 0/1 samples with the probabilities in ``self`` (or ``p``)."""
    return bernoulli(self, p, generator=generator)


def _multinomial_method(
    self: Tensor, num_samples: int, replacement: builtins.bool = False, *, generator: Any = None
) -> Tensor:
    """``multinomial(self, num_samples, replacement)``."""
    return multinomial(self, num_samples, replacement, generator=generator)


def install_tensor_methods() -> None:
    """Adds ``normal_``, ``uniform_``, ``exponential_``, ``bernoulli_``, ``random_``,
    ``bernoulli`` and ``multinomial`` to ``Tensor``."""
    # methods added to the native class on purpose (the stub lists them as methods)
    Tensor.normal_ = _normal_  # type: ignore[method-assign,assignment]
    Tensor.uniform_ = _uniform_  # type: ignore[method-assign,assignment]
    Tensor.exponential_ = _exponential_  # type: ignore[method-assign,assignment]
    Tensor.bernoulli_ = _bernoulli_  # type: ignore[method-assign,assignment]
    Tensor.random_ = _random_  # type: ignore[method-assign,assignment]
    Tensor.bernoulli = _bernoulli_method  # type: ignore[method-assign,assignment]
    Tensor.multinomial = _multinomial_method  # type: ignore[method-assign,assignment]
