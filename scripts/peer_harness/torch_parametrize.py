"""Stand-ins for the test-parametrization helpers of PyTorch's internal test harness
(``torch.testing._internal.common_utils``): ``parametrize``, ``subtest``,
``instantiate_parametrized_tests`` and the ``HardwareClassification`` tag.

Written from their documented behaviour: ``@parametrize("a,b", values)`` marks a test
method; ``instantiate_parametrized_tests(cls)`` replaces each marked method by one method
per combination of values (named ``test_x_<subtest name>``, or ``<arg>_<value>`` for a
plain value), applying a subtest's ``decorators`` to its method. Stacked ``parametrize``
decorators combine as a cartesian product.
"""

from __future__ import annotations

import enum
import functools
import itertools
import re

__all__ = ["HardwareClassification", "instantiate_parametrized_tests", "parametrize", "subtest"]


class HardwareClassification(enum.Enum):
    """The hardware a test class is tagged for (only read by PyTorch's CI sharding)."""

    GENERIC = "generic"
    ACCELERATOR = "accelerator"


class subtest:  # noqa: N801  (torch's name)
    """One value of a ``parametrize`` list, with an optional name and decorators."""

    def __init__(self, arg_values, name=None, decorators=None):
        self.arg_values = arg_values
        self.name = name
        self.decorators = list(decorators or [])


def _value_name(arg_names: list[str], values: tuple, idx: int) -> str:
    # upstream's _formatted_str_repr: a dtype by its name (float32), a number or string
    # as <arg>_<value> (dots as underscores), anything else (a class, a function) as
    # <arg><index in the list>
    parts = []
    for name, value in zip(arg_names, values):
        if type(value).__name__ == "dtype" and hasattr(value, "is_floating_point"):
            parts.append(str(value).split(".")[-1])
        elif isinstance(value, (int, float, str)):
            text = str(value).replace(".", "_")
            parts.append(f"{name}_{re.sub(r'[^0-9A-Za-z_]', '_', text)}")
        else:
            parts.append(f"{name}{idx}")
    return "_".join(parts)


class parametrize:  # noqa: N801  (torch's name)
    """Marks a test to be instantiated once per value (see the module docstring)."""

    def __init__(self, arg_str: str, arg_values, name_fn=None):
        self.arg_names = [s.strip() for s in arg_str.split(",") if s.strip()]
        self.arg_values = list(arg_values)
        self.name_fn = name_fn

    def cases(self):
        """(keyword arguments, name, decorators) for each value."""
        for idx, value in enumerate(self.arg_values):
            decorators: list = []
            name = None
            if isinstance(value, subtest):
                decorators, name, value = value.decorators, value.name, value.arg_values
            values = tuple(value) if len(self.arg_names) > 1 else (value,)
            if name is None:
                if self.name_fn is not None:
                    name = self.name_fn(*values)
                else:
                    name = _value_name(self.arg_names, values, idx)
            yield dict(zip(self.arg_names, values)), name, decorators

    def __call__(self, fn):
        # the innermost decorator is applied first; keep the source order, outermost first
        fn._peer_parametrize = [self] + list(getattr(fn, "_peer_parametrize", []))
        return fn


def expand(name: str, fn):
    """``(method name, method)`` for each combination of ``fn``'s parametrizations."""
    params = getattr(fn, "_peer_parametrize", None)
    if not params:
        yield name, fn
        return
    for combo in itertools.product(*(list(p.cases()) for p in params)):
        kwargs: dict = {}
        names = []
        decorators: list = []
        for case_kwargs, case_name, case_decorators in combo:
            kwargs.update(case_kwargs)
            if case_name:
                names.append(case_name)
            decorators += case_decorators

        def method(self, *args, _fn=fn, _kwargs=kwargs, **kw):
            return _fn(self, *args, **_kwargs, **kw)

        functools.update_wrapper(method, fn)
        del method.__wrapped__  # unittest must not look through to the raw signature
        method._peer_parametrize = None
        for dec in reversed(decorators):
            method = dec(method)
        full = "_".join([name] + names)
        method.__name__ = full
        yield full, method


def instantiate_parametrized_tests(generic_cls):
    """Replaces each parametrized test method of ``generic_cls`` by its instances."""
    for attr in list(vars(generic_cls)):
        fn = getattr(generic_cls, attr)
        if not (attr.startswith("test") and getattr(fn, "_peer_parametrize", None)):
            continue
        delattr(generic_cls, attr)
        for new_name, method in expand(attr, fn):
            if hasattr(generic_cls, new_name):
                raise RuntimeError(f"parametrized test name {new_name} is already taken")
            setattr(generic_cls, new_name, method)
    return generic_cls
