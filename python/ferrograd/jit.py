"""``paddle.jit`` / ``torch.jit``: ``to_static``, ``script`` and ``trace`` run the function
or layer EAGERLY; ``save`` / ``load`` write and read its forward as a static program.

Paddle's ``to_static`` translates a dygraph function into a static program. ferrograd does
not translate Python code: ``to_static`` returns the layer itself, or a function that
calls the original, so results, gradients and tensor hooks are exactly those of eager
mode (what Paddle does after ``paddle.jit.enable_to_static(False)``). ``input_spec=`` is
noted for ``jit.save``; ``full_graph=``, ``build_strategy=`` and ``backend=`` are accepted
and do not change what runs. Static programs are built with ``ferrograd.static`` instead
(see docs/static.md).

``save(layer, path, input_spec=...)`` captures the layer's evaluation-mode forward as a
static program (``jit_capture.py``) and writes it in ferrograd's own format (JSON and
an ``.npz``; not Paddle's protobuf ``.pdmodel`` nor a TorchScript zip, see
``jit_save.py``); ``load(path)`` returns a ``TranslatedLayer`` that runs it
(``jit_translated.py``). A forward the static layer cannot record is refused at save.

PyTorch's ``torch.jit.script`` / ``trace`` likewise compile nothing here: they hand back
the module itself, or a function that calls the original, so code decorated for
TorchScript runs unchanged with eager results and gradients. ``trace`` does not run its
example inputs (PyTorch does, which also updates e.g. batch-norm statistics in training
mode); it notes their shapes and dtypes, which ``torch.jit.save`` captures the program
with. Data-dependent control flow behaves as written, not as traced.
``is_scripting()`` / ``is_tracing()`` are False, ``ignore`` / ``unused`` / ``export`` /
``annotate`` / ``Final`` are accepted as TorchScript's annotations, and ``fork`` runs the
call at once and returns a finished future for ``wait``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

from ._dialect import caller_dialect
from ._input_spec import InputSpec
from .jit_translated import TranslatedLayer

__all__ = [
    "Final",
    "InputSpec",
    "TranslatedLayer",
    "annotate",
    "enable_to_static",
    "export",
    "fork",
    "freeze",
    "ignore",
    "ignore_module",
    "is_scripting",
    "is_tracing",
    "load",
    "not_to_static",
    "optimize_for_inference",
    "save",
    "script",
    "script_if_tracing",
    "to_static",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

_enabled = True


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Paddle's switch for translating ``to_static`` functions. ferrograd always runs them
    eagerly, so the flag is only recorded."""
    global _enabled
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(
            f"enable_to_static: the argument must be a bool, got {type(enable_to_static_bool).__name__}"
        )
    _enabled = enable_to_static_bool


def _check_specs(input_spec: Any) -> None:
    if input_spec is None:
        return
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(
            f"to_static: input_spec must be a list or tuple of InputSpec, got {type(input_spec).__name__}"
        )


def to_static(
    function: Optional[Callable[..., Any]] = None,
    input_spec: Any = None,
    build_strategy: Any = None,
    backend: Any = None,
    full_graph: Optional[bool] = None,
    **kwargs: Any,
) -> Any:
    """``@to_static`` / ``@to_static(input_spec=...)`` / ``to_static(layer_or_fn, ...)``.

    Runs eagerly (see the module docs): a ``Layer`` comes back as the same layer, a
    function as a wrapper that calls it. ``input_spec`` is noted for ``jit.save``; the
    other keyword arguments are accepted for Paddle compatibility and checked only for
    their type."""
    _check_specs(input_spec)
    del build_strategy, backend, full_graph, kwargs

    def decorate(fn: Callable[..., Any]) -> Any:
        from .nn import Module

        if isinstance(fn, Module):
            if input_spec is not None:
                _note(fn, input_spec, "to_static")
            return fn
        if not callable(fn):
            raise TypeError(f"to_static: expected a function or a Layer, got {type(fn).__name__}")

        @functools.wraps(fn)
        def eager(*args: Any, **kw: Any) -> Any:
            return fn(*args, **kw)

        eager.__wrapped__ = fn  # type: ignore[attr-defined]
        if input_spec is not None:
            _note(eager, input_spec, "to_static")
        return eager

    if function is None:
        return decorate
    return decorate(function)


def _note(obj: Any, specs: Any, what: str) -> None:
    """Notes the inputs for a later ``save`` (an input that cannot be noted is left out:
    the call itself runs eagerly whatever it is given)."""
    from .jit_save import note_inputs

    try:
        note_inputs(obj, specs, what)
    except TypeError:
        pass


def not_to_static(func: Optional[Callable[..., Any]] = None) -> Any:
    """Marks a function to stay dygraph inside ``to_static`` code: a no-op here."""
    if func is None:
        return lambda f: f
    return func


def ignore_module(modules: Any) -> None:
    """Modules ``to_static`` should not translate: a no-op here (nothing is translated)."""
    del modules


def save(layer: Any, path: Any = None, input_spec: Any = None, **configs: Any) -> None:
    """``paddle.jit.save(layer, path, input_spec=None, **configs)`` writes
    ``path.pdmodel`` (the program, ferrograd's JSON) and ``path.pdiparams`` (the
    parameters); ``torch.jit.save(m, f, _extra_files=None)`` writes one file ``f``. The
    inputs come from ``input_spec`` (InputSpecs or example tensors), else from
    ``to_static(input_spec=)`` / ``trace(m, example_inputs)``. See ``jit_save.py``."""
    from . import jit_save

    jit_save.save(layer, path, input_spec, dialect=caller_dialect(2), **configs)


def load(path: Any, *args: Any, **configs: Any) -> TranslatedLayer:
    """``paddle.jit.load(path)`` / ``torch.jit.load(f)``: the program saved by ``save`` as
    a ``TranslatedLayer`` (inference only: evaluation mode, no gradients)."""
    from . import jit_save

    loaded: TranslatedLayer = jit_save.load(path, *args, **configs)
    return loaded


# ---- PyTorch's torch.jit ---------------------------------------------------------------


def _eager(fn: Any, what: str) -> Any:
    """The module itself, or a function that calls ``fn`` (keeping its name and docs)."""
    from .nn import Module

    if isinstance(fn, Module):
        return fn
    if not callable(fn):
        raise TypeError(f"{what}: expected a function or a Module, got {type(fn).__name__}")

    @functools.wraps(fn)
    def eager(*args: Any, **kw: Any) -> Any:
        return fn(*args, **kw)

    return eager


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:  # fmt: skip
    """``torch.jit.script``: compiles nothing; the module itself, or a function calling
    ``obj`` (see the module docs). A class is returned unchanged."""
    del optimize, _frames_up, _rcb
    if isinstance(obj, type):
        return obj
    out = _eager(obj, "jit.script")
    if example_inputs is not None:
        _note(out, example_inputs, "jit.script")
    return out


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``torch.jit.trace``: does not run ``example_inputs``; the module itself, or a
    function calling ``func``, with the examples' shapes and dtypes noted for
    ``torch.jit.save`` (see the module docs)."""
    del args, kwargs
    out = _eager(func, "jit.trace")
    if example_inputs is not None:
        _note(out, example_inputs, "jit.trace")
    return out


def trace_module(mod: Any, inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``torch.jit.trace_module``: the module itself (see ``trace``; the ``forward``
    entry of ``inputs`` is noted for ``torch.jit.save``)."""
    del args, kwargs
    out = _eager(mod, "jit.trace_module")
    if isinstance(inputs, dict) and inputs.get("forward") is not None:
        _note(out, inputs["forward"], "jit.trace_module")
    return out


def script_if_tracing(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``torch.jit.script_if_tracing``: the function unchanged (nothing is traced)."""
    return fn


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    """``torch.jit.freeze``: the module itself (there is no scripted graph to inline)."""
    del preserved_attrs, optimize_numerics
    return mod


def optimize_for_inference(mod: Any, other_methods: Any = None) -> Any:
    """``torch.jit.optimize_for_inference``: the module itself."""
    del other_methods
    return mod


def is_scripting() -> bool:
    """``torch.jit.is_scripting``: False (code always runs eagerly)."""
    return False


def is_tracing() -> bool:
    """``torch.jit.is_tracing``: False (code always runs eagerly)."""
    return False


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: the function unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``@torch.jit.unused``: the function unchanged."""
    return fn


def export(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``@torch.jit.export``: the method unchanged."""
    return fn


def annotate(the_type: Any, the_value: Any) -> Any:
    """``torch.jit.annotate``: the value unchanged (a type hint for the compiler)."""
    del the_type
    return the_value


class _FinalType:
    """``torch.jit.Final[T]``: marks a constant attribute for TorchScript; here
    subscripting gives back ``T``."""

    def __getitem__(self, item: Any) -> Any:
        return item

    def __repr__(self) -> str:
        return "ferrograd.jit.Final"


Final = _FinalType()


class Future:
    """The result of ``fork``: already finished (the call ran at once)."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        """The call's result."""
        return self._value

    def done(self) -> bool:
        """Always True."""
        return True

    def value(self) -> Any:
        """The call's result."""
        return self._value


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    """``torch.jit.fork``: runs ``func(*args, **kwargs)`` now (exceptions propagate here)
    and returns a finished :class:`Future`."""
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    """``torch.jit.wait``: the forked call's result."""
    return future.wait()


# names of the peers' jit that ferrograd lacks get a clear AttributeError (see _missing.py)
from ._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
