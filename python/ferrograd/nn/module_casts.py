"""Casting a module's parameters and buffers: ``to``, ``astype``, ``float``,
``double``, ``half``, ``bfloat16``, and the device no-ops ``cpu`` / ``cuda`` (a base
class of ``Module``).

A cast replaces each floating parameter of another dtype by a new ``Parameter`` (one per
shared tensor, so a parameter shared by two layers stays shared) and each such buffer by
its cast; tensors already of the target dtype are kept, as PyTorch's ``t.to(dtype)`` is
``t``.
"""

from __future__ import annotations

from typing import Any, Self

from .. import _core
from .._dialect import caller_dialect
from .._dropin import device as _device
from .parameter import Parameter

Tensor = _core.Tensor


class ModuleCasts:
    """Mixin: the dtype and device conversions of ``Module``."""

    # provided by Module
    parameters: Any
    buffers: Any
    modules: Any

    def _cast(
        self,
        dtype: Any,
        floating_only: bool = True,
        excluded: tuple = (),
        complex_too: bool = False,
    ) -> Self:
        # (complex_too: `to(complex dtype)` casts complex tensors too, as PyTorch's Module.to;
        # a real target leaves them complex: PyTorch would drop the imaginary part)
        complex_too = complex_too and _is_complex_dtype(dtype)
        if any(not isinstance(t, Tensor) for t in [*self.parameters(), *self.buffers()]):
            raise TypeError(
                f"{type(self).__name__}: a layer built in static mode cannot be cast; call "
                f"paddle.set_default_dtype({str(getattr(dtype, 'name', dtype))!r}) before "
                "building it"
            )
        done: dict = {}  # id -> (old, new): a parameter shared by two layers stays shared
        for m in self.modules():
            if excluded and isinstance(m, excluded):
                continue
            # (entries replaced in place keep their order; a tensor already of the target
            # dtype is kept, as PyTorch's t.to(dtype) is t, so a shared buffer stays shared)
            for name, p in list(m._parameters.items()):
                if (
                    p is None
                    or p.dtype == dtype
                    or not (
                        p.is_floating_point()
                        or not floating_only
                        or (complex_too and p.is_complex())
                    )
                ):
                    continue
                if id(p) not in done:
                    done[id(p)] = (p, Parameter(p.astype(dtype), p.requires_grad))
                m._parameters[name] = m.__dict__[name] = done[id(p)][1]
            for name, b in list(m._buffers.items()):
                if (
                    b is None
                    or b.dtype == dtype
                    or not (
                        b.is_floating_point()
                        or not floating_only
                        or (complex_too and b.is_complex())
                    )
                ):
                    continue
                m._buffers[name] = m.__dict__[name] = b.astype(dtype)
        return self

    def to(self, *args: Any, dtype: Any = None, **kwargs: Any) -> Self:
        """Casts floating parameters and buffers to ``dtype`` (new Parameter objects for
        those of another dtype: build optimizers after this). Devices other than the CPU
        are refused."""
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)  # torch's; meaningless on the CPU
        fmt = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if a is None or isinstance(a, bool):  # to(None) / torch's positional non_blocking
                continue
            if isinstance(a, (str, _device)):
                device = a
                continue
            if isinstance(a, _core.Tensor):  # to(other): other's dtype (its device is the CPU)
                a = a.dtype
            dtype = a
        if device is not None:
            _device(device)  # "cpu", "cpu:0", device("cpu"); others raise naming the device
        if dtype is not None:
            self._cast(dtype, complex_too=True)
        return self if fmt is None else self._to_format(fmt)

    def _to_format(self, fmt: Any) -> Self:
        """PyTorch's ``Module.to(memory_format=...)``: each 4-D / 5-D parameter (the same
        ``Parameter`` object, its ``.data`` replaced, its gradient too) and buffer gets
        the layout ``fmt`` (``channels_last`` of a 5-D tensor raises, as in PyTorch)."""
        from .._memory_format import check_format

        check_format(fmt, "to", allow_none=False)
        for m in self.modules():
            for p in m._parameters.values():
                if p is not None and p.ndim in (4, 5):
                    new = p.detach().to(memory_format=fmt)
                    if new is not p and new.stride() != p.stride():
                        p.data = new
                    g = p.grad
                    if g is not None and g.ndim in (4, 5):
                        p.grad = g.to(memory_format=fmt)
            for name, b in list(m._buffers.items()):
                if b is not None and b.ndim in (4, 5):
                    m._buffers[name] = m.__dict__[name] = b.to(memory_format=fmt)
        return self

    def astype(self, dtype: Any) -> Self:
        """Paddle spelling of ``to(dtype)``."""
        return self._cast(dtype)

    def float(self) -> Self:
        """Casts floating parameters and buffers to float32."""
        return self._cast("float32")

    def double(self) -> Self:
        """Casts floating parameters and buffers to float64."""
        return self._cast("float64")

    def half(self) -> Self:
        """PyTorch's: casts floating parameters and buffers to float16."""
        return self._cast("float16")

    def bfloat16(self, excluded_layers: Any = None) -> Self:
        """Casts floating parameters and buffers to bfloat16 (Paddle's
        ``excluded_layers``: layer types left as they are, default ``nn.BatchNorm``)."""
        if excluded_layers is None and caller_dialect(2) != "paddle":
            return self._cast("bfloat16")
        from .module_names import _excluded

        return self._cast("bfloat16", excluded=_excluded(excluded_layers))

    def cpu(self) -> Self:
        """Both peers': moves the module to the CPU, where it already is (returns it)."""
        return self

    def cuda(self, device: Any = None) -> Self:
        """There is no GPU build of ferrograd: always a RuntimeError."""
        raise RuntimeError(
            "cuda(): ferrograd runs on the CPU only (no GPU build); drop the device handling, "
            "or guard it with ferrograd.cuda.is_available(), which is False"
        )


def _is_complex_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` (a dtype object or name) is complex64 / complex128."""
    return "complex" in str(getattr(dtype, "name", dtype)) or str(dtype).endswith(
        ("cfloat", "cdouble")
    )
