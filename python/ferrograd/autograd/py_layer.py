"""Custom differentiable layers: ``PyLayer`` (Paddle dialect) and ``Function`` (PyTorch
dialect).

Subclasses define static ``forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``
and call ``Layer.apply(*args, **kwargs)``. ``apply`` runs in Rust: it runs ``forward``
without grad, records one node when an input needs grad, and the Rust backward engine
calls ``backward`` with the GIL held only for that call. The two dialects differ only
where the behaviour contract (``docs/semantics.md``, section A) says so:

* ``PyLayer.backward`` receives one gradient per *Tensor* output and returns one per
  Tensor input (one per argument is accepted too); ``forward`` must return a Tensor.
* ``Function.backward`` receives one gradient per output (``None`` for non-Tensors) and
  returns one per argument (one per Tensor input is accepted too).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from .. import _core
from .._errors import BackwardNotImplementedError
from ..grad_mode import is_grad_enabled, no_grad
from . import _fwd_function

FunctionCtx = _core.FunctionCtx
#: Paddle's name for the context class.
PyLayerContext = _core.FunctionCtx

__all__ = ["PyLayer", "Function", "FunctionCtx", "PyLayerContext", "once_differentiable"]


class _FunctionCtxWithOutputs(FunctionCtx):  # type: ignore[misc]
    """A ctx one of whose attributes holds one of the layer's own outputs: ``apply``
    switches such a ctx to this class (named ``FunctionCtx`` too). The attribute is kept
    outside the instance dict with a weak link to the node (no reference cycle, see
    ``src/python/pylayer/ctx_attrs.rs``), so reading it needs this ``__getattr__``;
    ``FunctionCtx`` itself has none, which keeps every other ``ctx.xxx`` on CPython's
    fast generic lookup."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return _core._ctx_output_attribute(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        _core._ctx_forget_output_attribute(self, name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if not _core._ctx_forget_output_attribute(self, name):
            super().__delattr__(name)


_FunctionCtxWithOutputs.__name__ = _FunctionCtxWithOutputs.__qualname__ = "FunctionCtx"
_FunctionCtxWithOutputs.__module__ = FunctionCtx.__module__


def _is_our_apply(owner: type, value: Any) -> bool:
    """``value``, found in ``owner.__dict__['apply']``, is ferrograd's own ``apply``: a
    base class's classmethod, or the bound builtin ``_install_apply`` gave ``owner``."""
    if value is PyLayer.__dict__["apply"] or value is Function.__dict__["apply"]:
        return True
    return (
        type(value) is type(_core._bind_apply)
        and getattr(value, "__self__", None) is owner
        and getattr(value, "__name__", None) == "apply"
    )


def _install_apply(cls: Any) -> None:
    """Gives ``cls`` an ``apply`` of its own: a builtin function bound to ``cls`` that
    CPython calls without a method object or argument tuple (``src/python/pylayer/
    entry.rs``), unless ``cls`` (or the class it inherits ``apply`` from) brings its own
    ``apply``. A bound ``apply`` is only correct for the class it is bound to, so every
    subclass must get its own here: a class in the hierarchy with an
    ``__init_subclass__`` of its own might not call this one for its subclasses, so
    ``cls`` then gets the base classmethod instead (slower, right for every subclass)."""
    if "apply" in cls.__dict__:
        return
    owner = next(c for c in cls.__mro__ if "apply" in c.__dict__)
    if not _is_our_apply(owner, owner.__dict__["apply"]):
        return
    base = Function if issubclass(cls, Function) else PyLayer
    for c in cls.__mro__:
        if c is base:
            break
        if "__init_subclass__" in c.__dict__:
            cls.apply = base.__dict__["apply"]
            return
    cls.apply = _core._bind_apply(cls, cls._fg_torch_dialect)


class PyLayer:
    """Base class of a custom layer in Paddle's dialect (see the module docs)."""

    apply: Any = classmethod(_core._apply_paddle)
    _fg_node_name = "PyLayerBackward"
    _fg_torch_dialect = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # the graph node's name, computed once per class rather than per apply
        cls._fg_node_name = f"{cls.__name__}Backward"
        _install_apply(cls)

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Computes the outputs; runs without grad."""
        raise NotImplementedError("You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        """Computes the gradients of the inputs from those of the outputs."""
        raise BackwardNotImplementedError(
            "You must implement the backward function for PyLayer (a staticmethod "
            "backward(ctx, *grads) returning one gradient per forward input)."
        )


class Function(PyLayer):
    """Base class of a custom layer in PyTorch's dialect (see the module docs).

    ``forward(*args)`` without ``ctx`` plus ``setup_context(ctx, inputs, output)`` is
    supported too.
    """

    apply: Any = classmethod(_core._apply_torch)
    _fg_torch_dialect = True
    _fg_uses_setup_context = False
    #: bit 1: ``setup_context`` style; bit 2: ``clear_saved_tensors_on_access``. Set once
    #: per class by ``__init_subclass__`` so ``apply`` reads one attribute per call.
    _fg_torch_flags = 0
    #: PyTorch 2.11: ``True`` on a subclass makes ``ctx.saved_tensors`` hand the saved
    #: tensors over and drop the ctx's references to them (they can be freed as soon as
    #: backward's locals go); a second read raises. Read when the class is defined.
    clear_saved_tensors_on_access = False
    #: PyTorch's request that ``torch.func.vmap`` derive a batching rule for this
    #: Function. ferrograd's ``vmap`` maps by running the Function once per sample, so it
    #: needs no rule: it reads neither this flag nor a ``vmap`` staticmethod.
    generate_vmap_rule = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fg_uses_setup_context = cls.setup_context is not Function.setup_context
        cls._fg_torch_flags = int(cls._fg_uses_setup_context) | (
            2 if cls.clear_saved_tensors_on_access else 0
        )
        # forward-mode AD: jvp answers for backward in unpack_dual's pass (_fwd_function)
        _fwd_function.install(cls)

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Computes the outputs; runs without grad."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """Saves what backward needs, for ``forward`` written without ``ctx``."""
        raise NotImplementedError("setup_context is not defined for this Function")

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        """Computes the gradients of the inputs from those of the outputs."""
        raise BackwardNotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Computes the outputs' forward-mode tangents from the inputs' (one per forward
        argument, None for those without); define it to use the Function with
        ``autograd.forward_ad`` (this default raises PyTorch's "You must implement the jvp
        function ...")."""
        return _fwd_function.default_jvp(ctx, *grad_inputs)

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """PyTorch's hook for a hand-written batching rule. ferrograd's
        ``torch.func.vmap`` never calls it (it runs the Function once per sample, which
        gives the same values); called directly, the default raises, as PyTorch's does."""
        raise NotImplementedError(
            "autograd.Function.vmap: this Function defines no batching rule; "
            "ferrograd's torch.func.vmap does not need one (it maps by running the "
            "Function once per sample)"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # PyTorch's error for the pre-1.3 style (``MyFunction()(x)`` with instance methods)
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method, and call it as "
            f"{type(self).__name__}.apply(...)."
        )


_SIGNATURES: dict = {}


def _ordered_arguments(cls, args: tuple, kwargs: dict, with_ctx: bool) -> list:
    """The forward arguments in ``forward``'s parameter order (called by ``apply`` when
    keywords are used), with ``*args``/``**kwargs`` parameters flattened."""
    forward = cls.forward
    sig = _SIGNATURES.get(forward)
    if sig is None:
        sig = _SIGNATURES[forward] = inspect.signature(forward)
    bound = sig.bind(None, *args, **kwargs) if with_ctx else sig.bind(*args, **kwargs)
    values = []
    for i, (name, value) in enumerate(bound.arguments.items()):
        if with_ctx and i == 0:
            continue
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            values.extend(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            values.extend(value.values())
        else:
            values.append(value)
    return values


def once_differentiable(backward):
    """Decorates a ``backward`` that is not itself differentiable: it runs without grad,
    and differentiating its result again (``create_graph=True``) raises a clear error
    instead of silently giving a wrong higher-order gradient."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        recording = is_grad_enabled()
        with no_grad():
            outputs = backward(ctx, *grads)
        if not recording:
            return outputs
        needing = [g for g in grads if isinstance(g, _core.Tensor) and g.requires_grad]
        # the layer's saved inputs too, so differentiating w.r.t. them also hits the error
        needing += [t for t in ctx.saved_tensors if isinstance(t, _core.Tensor) and t.requires_grad]
        if not needing:
            return outputs
        message = (
            f"trying to differentiate twice a function that was marked with "
            f"@once_differentiable ({getattr(backward, '__qualname__', 'backward')})"
        )
        single = not isinstance(outputs, (tuple, list))
        wrapped = _core._delayed_error([outputs] if single else list(outputs), needing, message)
        if single:
            return wrapped[0]
        return type(outputs)(wrapped) if isinstance(outputs, tuple) else wrapped

    return wrapper


Function.jvp._fg_default_jvp = True  # type: ignore[attr-defined]  # (_fwd_function)
