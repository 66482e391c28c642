"""Paddle's ``InputSpec``: the shape / dtype / name of an input, as ``paddle.jit.to_static``
and ``paddle.static`` take it. ferrograd runs ``to_static`` functions eagerly, so a spec
only describes the input (and checks it when asked to)."""

from __future__ import annotations

from typing import Any, Optional, Sequence


class InputSpec:
    """``InputSpec(shape, dtype='float32', name=None, stop_gradient=False)``: ``None`` or
    ``-1`` in ``shape`` is a dimension of any size."""

    def __init__(
        self,
        shape: Sequence[Optional[int]],
        dtype: Any = "float32",
        name: Optional[str] = None,
        stop_gradient: bool = False,
    ) -> None:
        if isinstance(shape, int):
            shape = [shape]
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = dtype
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> InputSpec:
        """The spec of ``tensor`` (its shape and dtype)."""
        return cls(
            list(tensor.shape), tensor.dtype, name, bool(getattr(tensor, "stop_gradient", False))
        )

    def batch(self, batch_size: int) -> InputSpec:
        """This spec with a leading batch dimension."""
        return InputSpec([batch_size, *self.shape], self.dtype, self.name, self.stop_gradient)

    def unbatch(self) -> InputSpec:
        """This spec without its leading dimension."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the spec has no dimension to remove")
        return InputSpec(list(self.shape[1:]), self.dtype, self.name, self.stop_gradient)

    def __repr__(self) -> str:
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, stop_gradient={self.stop_gradient})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InputSpec) and (self.shape, str(self.dtype), self.name) == (
            other.shape,
            str(other.dtype),
            other.name,
        )

    __hash__ = None  # type: ignore[assignment]
