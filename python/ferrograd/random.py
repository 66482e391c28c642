"""``torch.random`` (and Paddle's ``paddle.random``): the default generator's seeding and
state functions, and ``fork_rng``.

The functions are the top-level ones (``ferrograd.manual_seed`` is
``ferrograd.random.manual_seed``; see random_gen.py); ``fork_rng`` saves the default
generator's state and restores it on exit. ferrograd runs on the CPU only, so there are
no device generators to fork: ``devices`` and ``device_type`` are accepted and ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Optional

from .random_gen import Generator as Generator
from .random_gen import default_generator as default_generator
from .random_gen import get_rng_state as get_rng_state
from .random_gen import initial_seed as initial_seed
from .random_gen import manual_seed as manual_seed
from .random_gen import seed as seed
from .random_gen import set_rng_state as set_rng_state

__all__ = [
    "set_rng_state",
    "get_rng_state",
    "manual_seed",
    "seed",
    "initial_seed",
    "fork_rng",
    "thread_safe_generator",
]


@contextlib.contextmanager
def fork_rng(
    devices: Any = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: Optional[str] = None,
) -> Iterator[None]:
    """PyTorch's ``torch.random.fork_rng``: a context manager that restores the default
    generator's state on exit (draws inside it do not advance the stream outside).
    ``enabled=False`` forks nothing. ``devices`` / ``device_type`` name accelerator
    generators, which ferrograd (CPU only) does not have: they are accepted and ignored
    (an iterable of device ids, or None)."""
    if devices is not None:
        try:
            list(devices)
        except TypeError:
            raise TypeError(
                f"{_caller}: {_devices_kw} must be an iterable of device ids or None, "
                f"got {devices!r}"
            ) from None
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> Optional[Generator]:
    """PyTorch's ``torch.random.thread_safe_generator``: the generator of a DataLoader
    thread worker, or None (the default generator). ferrograd's DataLoader workers are
    processes (or the main process), so it is always None, as PyTorch answers there."""
    return None
