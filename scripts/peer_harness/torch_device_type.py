"""A stand-in for ``torch.testing._internal.common_device_type``: its
``instantiate_device_type_tests``, for the one device ferrograd has, the CPU.

As PyTorch's, it removes the generic class from the caller's scope and adds, for each
device not excluded by ``only_for`` / ``except_for``, a subclass named ``<Class>CPU``
whose tests receive the device string (``"cpu"``) and are named ``test_x_cpu``; a
test's ``parametrize`` marks are expanded too, and its ``dtypes`` marks (one test per
dtype, ``test_x_cpu_float32``, called with ``dtype=``; see ``torch_device_decorators``,
whose decorators this module re-exports).
"""

from __future__ import annotations

import functools

from peer_harness.torch_device_decorators import *  # noqa: F403  (upstream's names)
from peer_harness.torch_device_decorators import __all__ as _decorator_names
from peer_harness.torch_device_decorators import dtype_suffix
from peer_harness.torch_parametrize import expand

__all__ = ["expectedFailureXLA", "instantiate_device_type_tests", *_decorator_names]

DEVICES = ("cpu",)


def expectedFailureXLA(fn):  # noqa: N802  (torch's name)
    """Expected to fail on XLA devices only: on the CPU the test runs normally."""
    return fn


def _as_list(x) -> list[str]:
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


def _dtype_cases(fn, device: str):
    """(name suffix, keyword arguments, precision or None) per dtype case of ``fn``."""
    table = getattr(fn, "dtypes", None) or {}
    chosen = table.get(device, table.get("all"))
    if chosen is None:
        return [("", {}, None)]
    overrides = getattr(fn, "precision_overrides", {})
    cases = []
    for dtype in chosen:
        key = "dtypes" if isinstance(dtype, (list, tuple)) else "dtype"
        precision = None if key == "dtypes" else overrides.get(dtype)
        cases.append((dtype_suffix(dtype), {key: dtype}, precision))
    return cases


def instantiate_device_type_tests(
    generic_test_class, scope, except_for=None, only_for=None, **kwargs
):
    """Adds ``<Class>CPU`` to ``scope`` unless the CPU is excluded; removes the generic
    class from ``scope`` either way (its tests take a ``device`` argument)."""
    scope.pop(generic_test_class.__name__, None)
    excluded = set(_as_list(except_for))
    only = set(_as_list(only_for))
    for device in DEVICES:
        if device in excluded or (only and device not in only):
            continue
        members: dict = {}
        for attr, fn in vars(generic_test_class).items():
            if not (attr.startswith("test") and callable(fn)):
                continue
            for name, method in expand(attr, fn):
                for suffix, kwargs, precision in _dtype_cases(fn, device):

                    def with_device(
                        self, *args, _m=method, _d=device, _k=kwargs, _p=precision, **kw
                    ):
                        if _p is not None:
                            self.precision = _p
                        return _m(self, _d, *args, **_k, **kw)

                    functools.update_wrapper(with_device, method)
                    del with_device.__wrapped__
                    members[f"{name}_{device}{suffix}"] = with_device
        cls_name = generic_test_class.__name__ + device.upper()
        # the generic tests are replaced by the per-device ones
        blank = {attr: None for attr in vars(generic_test_class) if attr.startswith("test")}
        # upstream's device classes carry their device type (tests read self.device_type)
        members["device_type"] = device
        scope[cls_name] = type(cls_name, (generic_test_class,), {**blank, **members})
