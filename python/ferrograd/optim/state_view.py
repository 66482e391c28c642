"""``optimizer.state``: a read-only mapping from each parameter to its state dict."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .._core import Tensor


class StateView(Mapping):  # type: ignore[type-arg]
    """``optimizer.state[param]``: a read-only mapping from each parameter to its state
    dict (``step`` and the named buffers, shared with the optimizer)."""

    def __init__(self, opt: Any) -> None:
        self._opt = opt

    def _locate(self, key: object) -> tuple[int, int] | None:
        for gi, group in enumerate(self._opt.param_groups):
            for pi, p in enumerate(group["params"]):
                if p is key or (isinstance(key, Tensor) and hash(p) == hash(key)):
                    return gi, pi
        return None

    def __getitem__(self, key: object) -> dict[str, Any]:
        loc = self._locate(key)
        if loc is None:
            raise KeyError("this tensor is not a parameter of the optimizer")
        return self._opt._param_state(*loc)

    def __iter__(self) -> Iterator[Tensor]:
        for gi, group in enumerate(self._opt.param_groups):
            for pi, p in enumerate(group["params"]):
                if self._opt._param_state(gi, pi):
                    yield p

    def __len__(self) -> int:
        return sum(1 for _ in self)
