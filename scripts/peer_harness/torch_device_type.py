"""A stand-in for ``torch.testing._internal.common_device_type``: its
``instantiate_device_type_tests``, for the one device ferrograd has, the CPU.

As PyTorch's, it removes the generic class from the caller's scope and adds, for each
device not excluded by ``only_for`` / ``except_for``, a subclass named ``<Class>CPU``
whose tests receive the device string (``"cpu"``) and are named ``test_x_cpu``; a
test's ``parametrize`` marks are expanded too.
"""

from __future__ import annotations

import functools

from peer_harness.torch_parametrize import expand

__all__ = ["expectedFailureXLA", "instantiate_device_type_tests"]

DEVICES = ("cpu",)


def expectedFailureXLA(fn):  # noqa: N802  (torch's name)
    """Expected to fail on XLA devices only: on the CPU the test runs normally."""
    return fn


def _as_list(x) -> list[str]:
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


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

                def with_device(self, *args, _m=method, _d=device, **kw):
                    return _m(self, _d, *args, **kw)

                functools.update_wrapper(with_device, method)
                del with_device.__wrapped__
                members[f"{name}_{device}"] = with_device
        cls_name = generic_test_class.__name__ + device.upper()
        # the generic tests are replaced by the per-device ones
        blank = {attr: None for attr in vars(generic_test_class) if attr.startswith("test")}
        # upstream's device classes carry their device type (tests read self.device_type)
        members["device_type"] = device
        scope[cls_name] = type(cls_name, (generic_test_class,), {**blank, **members})
