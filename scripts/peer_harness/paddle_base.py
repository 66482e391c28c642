"""A stand-in for the test-scaffolding part of ``paddle.base`` (Paddle's internal
framework package).

Paddle's legacy unit tests wrap their bodies in ``base.dygraph.guard()`` and build inputs
with ``base.dygraph.to_variable``; in eager (dygraph) mode, Paddle's default and
ferrograd's only eager mode, these are a no-op context and ``to_tensor``
(``base.dygraph.grad`` is ``paddle.grad``). Only such
scaffolding is provided, plus Paddle's public static-graph names under their old package
(``base.Program``, ``program_guard``, ``scope_guard``, ``Executor``, the default
programs, ``compiler.CompiledProgram``, ``core.Scope``: ``paddle.static``'s classes and
functions) and ``base.set_flags`` (the public ``paddle.set_flags``, which knows only the
flags ferrograd's behaviour already satisfies). Names that reach into Paddle's engine
(``base.core``'s other C++ bindings, ``framework._dygraph_tracer``) and
``base.DataFeeder`` are absent, so the tests that need them fail with an AttributeError
naming what is missing.
"""

from __future__ import annotations

import contextlib
import functools
import types

import ferrograd


@contextlib.contextmanager
def _guard(place=None):
    """``base.dygraph.guard``: the block in eager mode (since session 42's second round:
    static mode, if on, is left for the block and restored after it, as upstream's
    ``dygraph.base.guard`` does)."""
    static = not ferrograd.in_dynamic_mode()
    if static:
        ferrograd.disable_static()
    try:
        yield
    finally:
        if static:
            ferrograd.enable_static()


dygraph = types.SimpleNamespace(
    guard=_guard,
    to_variable=lambda value, name=None, zero_copy=None, dtype=None: ferrograd.to_tensor(
        value, dtype=dtype
    ),
    no_grad=ferrograd.no_grad,
    # ``base.dygraph.grad`` is Paddle's public ``paddle.grad`` under its old package
    grad=ferrograd.grad,
)
#: ``base.dygraph.base``, the module upstream's ``guard`` lives in
dygraph.base = types.SimpleNamespace(guard=_guard, to_variable=dygraph.to_variable)


def wrap_decorator(decorator_func):
    """``base.wrapped_decorator.wrap_decorator``: applies ``decorator_func`` keeping the
    wrapped function's name and docstring."""

    def __impl__(func):
        return functools.wraps(func)(decorator_func(func))

    return __impl__


wrapped_decorator = types.SimpleNamespace(wrap_decorator=wrap_decorator)


def in_dygraph_mode() -> bool:
    """True outside ``paddle.enable_static()``."""
    return ferrograd.in_dynamic_mode()


class CPUPlace:
    """``base.CPUPlace()``: the only place ferrograd has."""

    def __repr__(self) -> str:
        return "Place(cpu)"


#: ``base.core`` holds Paddle's C++ bindings; none of them exist here.
core = types.ModuleType("paddle.base.core")
# except the device queries tests use to pick the dtypes and places they cover
core.is_compiled_with_cuda = ferrograd.is_compiled_with_cuda  # type: ignore[attr-defined]
core.is_compiled_with_xpu = ferrograd.is_compiled_with_xpu  # type: ignore[attr-defined]
core.is_compiled_with_rocm = ferrograd.is_compiled_with_rocm  # type: ignore[attr-defined]
#: ``base.is_compiled_with_cuda`` is Paddle's public ``paddle.is_compiled_with_cuda``
is_compiled_with_cuda = ferrograd.is_compiled_with_cuda
# ``core.Scope`` is the class ``paddle.static.Scope`` exports
core.Scope = ferrograd.static.Scope  # type: ignore[attr-defined]
framework = types.ModuleType("paddle.base.framework")
framework.in_dygraph_mode = in_dygraph_mode


def dygraph_not_support(func):
    """``base.framework.dygraph_not_support``: a decorator for functions that only work
    while a static program is being built; calling one in eager mode is an
    AssertionError, as in Paddle."""

    @functools.wraps(func)
    def __impl__(*args, **kwargs):
        assert not in_dygraph_mode(), f"We don't support {func.__name__} in dynamic mode"
        return func(*args, **kwargs)

    return __impl__


framework.dygraph_not_support = dygraph_not_support


def in_pir_mode() -> bool:
    """``base.framework.in_pir_mode``: whether static programs are being built in Paddle's
    PIR form. ferrograd's static graph has one form, which tests treat as the legacy one
    (PIR-only branches are not taken): True only while static mode is on would send them
    to PIR's file names (``.json`` programs), so always False."""
    return False


framework.in_pir_mode = in_pir_mode


def use_pir_api() -> bool:
    """``base.framework.use_pir_api`` (also ``paddle.framework.use_pir_api``): whether
    static programs are built in PIR form; False, as ``in_pir_mode``."""
    return False


framework.use_pir_api = use_pir_api
# ``core.CPUPlace`` is the public ``paddle.CPUPlace`` under Paddle's C++ module
core.CPUPlace = CPUPlace  # type: ignore[attr-defined]

#: ``base.ParamAttr`` is Paddle's public ``paddle.ParamAttr`` under its old package
ParamAttr = ferrograd.ParamAttr
#: ``base.set_flags`` is Paddle's public ``paddle.set_flags`` under its old package
set_flags = ferrograd.set_flags

# Paddle's public static-graph API (``paddle.static``) under its old package
Program = ferrograd.static.Program
program_guard = ferrograd.static.program_guard
scope_guard = ferrograd.static.scope_guard
default_main_program = ferrograd.static.default_main_program
default_startup_program = ferrograd.static.default_startup_program
Executor = ferrograd.static.Executor
compiler = types.ModuleType("paddle.base.compiler")
compiler.CompiledProgram = ferrograd.static.CompiledProgram  # type: ignore[attr-defined]
