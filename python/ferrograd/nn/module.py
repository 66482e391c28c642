"""``Module`` (Paddle: ``Layer``): a container of parameters, buffers and sub-modules.

Assigning a ``Parameter`` to an attribute registers it, assigning a ``Module`` registers
a child; ``parameters()``, ``state_dict()``, ``train()``/``eval()`` walk the tree.
Calling a module runs its ``forward`` (with forward hooks, when any are registered).

Registered objects are also kept in the instance ``__dict__`` so that reading
``self.weight`` in ``forward`` is a plain attribute lookup (no ``__getattr__`` frame).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterator, Optional

from .. import _core
from .._dialect import caller_dialect
from . import module_hooks as _module_hooks
from .module_access import ModuleAccess
from .module_casts import ModuleCasts
from .module_names import ModuleNames, snake_name, unique_full_name
from .module_state import ModuleState
from .module_state import _IncompatibleKeys as _IncompatibleKeys  # noqa: F401 (old home)
from .modules import module as _global_hooks
from .parameter import Buffer, Parameter
from .static_build import converter as _static_converter
from .static_build import tracking_construction as _tracking_construction

Tensor = _core.Tensor


_HookHandle = _module_hooks.HookHandle
_KINDS = (("_parameters", "a parameter"), ("_buffers", "a buffer"), ("_modules", "a child module"))


class _ParameterSequence(list):
    """What ``parameters()`` returns: a list (Paddle's type) that also works as the
    iterator PyTorch returns, so ``next(model.parameters())`` gives the first one."""

    def __next__(self) -> Any:
        cursor = self.__dict__.get("_cursor", 0)
        if cursor >= len(self):
            raise StopIteration
        self.__dict__["_cursor"] = cursor + 1
        return self[cursor]


def create_eager_parameter(
    shape: Any,
    dtype: Any = None,
    attr: Any = None,
    is_bias: bool = False,
    default_initializer: Optional[Callable] = None,
) -> Parameter:
    """A new Parameter of ``shape``: zeros for a bias, Xavier-uniform otherwise, unless
    ``default_initializer``; then ``attr`` (``ParamAttr`` or a name) is applied."""
    from . import init
    from .param_attr import ParamAttr, apply_param_attr

    p = Parameter(_core.zeros(list(shape), dtype=dtype or _core._get_default_dtype()))
    if isinstance(attr, ParamAttr) and attr.initializer is not None:
        pass  # apply_param_attr runs the attribute's initializer
    elif default_initializer is not None:
        default_initializer(p)
    elif not is_bias and p.ndim >= 2:
        init.xavier_uniform_(p)
    elif not is_bias:  # Paddle's fans for 0-d/1-d: fan_in = fan_out = numel
        bound = (6.0 / (2 * max(p.numel(), 1))) ** 0.5
        init.uniform_(p, -bound, bound)
    apply_param_attr(p, attr, is_bias)
    return p


class Module(ModuleState, ModuleAccess, ModuleNames, ModuleCasts):
    """Base class of all layers (``ferrograd.nn.Layer`` is the same class)."""

    training: bool
    _parameters: OrderedDict[str, Optional[Parameter]]
    _buffers: OrderedDict[str, Optional[Tensor]]
    _non_persistent: set
    _modules: OrderedDict[str, Any]
    _forward_pre_hooks: OrderedDict[int, Callable]
    _forward_hooks: OrderedDict[int, Callable]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Paddle's Layer(name_scope=None, dtype="float32"): the name scope names the layer
        # (full_name()); dtype is unused
        d = self.__dict__
        scope = args[0] if args and isinstance(args[0], str) else kwargs.get("name_scope")
        d["_full_name"] = unique_full_name(scope or snake_name(type(self).__name__))
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # a layer built in static mode gets static parameters once constructed
        # (nn/static_build.py; the wrapper runs at construction only, calls are unchanged)
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_fg_tracks_construction", False):
            cls.__init__ = _tracking_construction(init)  # type: ignore[method-assign]

    # ------------------------------------------------------------------ calling

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; subclasses override it."""
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # (a backward hook registers a no-op forward pre-hook, so one check covers all;
        # the global hooks of nn.modules.module are read where they live, at each call)
        if (
            not self._forward_pre_hooks
            and not self._forward_hooks
            and not (_global_hooks.active and _global_hooks.has_forward_hooks())
        ):
            return self.forward(*args, **kwargs)
        return _module_hooks.call_with_hooks(self, args, kwargs)

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> _HookHandle:
        """``hook(module, args)`` runs before ``forward``; a non-None result replaces args
        (options: see ``nn/module_hooks.py``)."""
        return _module_hooks.register(self, hook, True, prepend, with_kwargs)

    def register_forward_post_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> _HookHandle:
        """``hook(module, args, output)`` runs after ``forward``; non-None replaces output
        (options: see ``nn/module_hooks.py``)."""
        return _module_hooks.register(self, hook, False, prepend, with_kwargs, always_call)

    register_forward_hook = register_forward_post_hook

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> _HookHandle:
        """``hook(module, grad_output)`` runs when the gradients of the outputs are known;
        a non-None result replaces them (see ``nn/module_backward_hooks.py``)."""
        return _module_hooks.register_backward(self, hook, True, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> _HookHandle:
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the
        positional tensor arguments are known; a non-None result replaces them."""
        return _module_hooks.register_backward(self, hook, False, prepend)

    # PyTorch's deprecated spelling; here it has the full hook's (well-defined) behaviour
    register_backward_hook = register_full_backward_hook

    # ------------------------------------------------------------------ registration

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() is called; call "
                f"super().__init__() first in {type(self).__name__}.__init__"
            )
        if isinstance(value, Parameter):
            static = _static_converter(self)
            if static is not None:
                value = static.static_parameter(self, name, value)
            self._put("_parameters", name, value)
            return
        # PyTorch's and Paddle's order: a parameter's name takes only a Parameter or None
        # (a Module or Buffer assigned over it is an error, not a silent replacement)
        if name in self._parameters:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} as parameter {name!r} of "
                    f"{type(self).__name__}: use a Parameter (or None), or delete the "
                    f"parameter first (del module.{name})"
                )
            self._parameters[name] = None
            d[name] = value  # the registries are mirrored in __dict__ (fast attribute reads)
            return
        if isinstance(value, Module):
            self._put("_modules", name, value)
            return
        if name in self._modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} as child module {name!r} of "
                    f"{type(self).__name__}: use a Module (or None)"
                )
            self._modules[name] = None
            d[name] = value
            return
        if isinstance(value, Buffer):  # PyTorch's nn.Buffer declares a buffer
            self._put_buffer(name, value, value.persistent)  # type: ignore[arg-type]
            return
        if name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign {type(value).__name__} as buffer {name!r}: use a Tensor"
                )
            static = _static_converter(self)
            if static is not None and value is not None:
                value = static.static_buffer(self, name, value)
            value = _global_hooks.run_registration_hooks("_buffers", self, name, value)
            self._buffers[name] = value
        else:
            # a plain attribute: the normal protocol (property setters run)
            object.__setattr__(self, name, value)
            return
        d[name] = value

    def __getattr__(self, name: str) -> Any:
        # only reached when normal lookup fails: entries put straight into a registry
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters or name in self._buffers or name in self._modules:
            self._forget(name)
            self.__dict__.pop(name, None)
        else:
            object.__delattr__(self, name)

    def _forget(self, name: str, keep: str = "") -> None:
        """Drops ``name`` from every registry but ``keep``."""
        for registry in ("_parameters", "_modules", "_buffers"):
            if registry != keep:
                self.__dict__[registry].pop(name, None)
        if keep != "_buffers":
            self._non_persistent.discard(name)

    def _put(self, registry: str, name: str, value: Any) -> None:
        """Registers ``value`` as ``name`` in ``registry``, dropping ``name`` from the other
        registries. A name already in ``registry`` keeps its position (PyTorch's dict
        assignment): ``Sequential.add_module("0", m)`` replaces layer 0 in place. The
        global registration hooks (``nn.modules.module``) may replace ``value`` (as
        PyTorch, not a None parameter)."""
        if value is not None or registry != "_parameters":
            value = _global_hooks.run_registration_hooks(registry, self, name, value)
        self._forget(name, keep=registry)
        self.__dict__[registry][name] = value
        self.__dict__[name] = value

    def _put_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool) -> None:
        static = _static_converter(self)
        if static is not None and tensor is not None:
            tensor = static.static_buffer(self, name, tensor)
        self._put("_buffers", name, tensor)
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def _check_free(self, name: str, registry: str) -> None:
        """PyTorch's rule for ``register_*`` / ``add_module``: ``name`` may be new or an
        entry of ``registry`` itself, not another attribute (a plain one, a method, or an
        entry of another registry)."""
        d = self.__dict__
        if hasattr(self, name) and name not in d[registry]:
            what = "a plain attribute" if name in d else "a class attribute"
            what = next((k for r, k in _KINDS if name in d[r]), what)
            raise KeyError(
                f"attribute '{name}' already exists ({what} of {type(self).__name__}); "
                f"delete it first (del module.{name}) or choose another name"
            )

    @staticmethod
    def _check_name(name: str, kind: str) -> None:
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"{kind} name must be a non-empty string without '.', got {name!r}")

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Registers ``param`` (a ``Parameter`` or None) under ``name``; re-registering a
        parameter keeps its place, another attribute of that name is a ``KeyError``."""
        self._check_name(name, "parameter")
        self._check_free(name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"register_parameter({name!r}): expected a Parameter or None, got "
                f"{type(param).__name__}; wrap tensors with nn.Parameter(t)"
            )
        static = _static_converter(self)
        if static is not None and param is not None:
            param = static.static_parameter(self, name, param)
        self._put("_parameters", name, param)

    def add_parameter(self, name: str, parameter: Optional[Parameter]) -> Any:
        """Paddle: registers ``parameter`` under ``name`` and returns what was registered
        (in static mode, the static parameter made from it)."""
        self.register_parameter(name, parameter)
        return self._parameters[name]

    def register_buffer(
        self,
        name: str,
        tensor: Optional[Tensor],
        persistent: bool = True,
        *,
        persistable: Optional[bool] = None,
    ) -> None:
        """Registers a non-trainable tensor (in ``state_dict`` unless ``persistent=False``,
        or Paddle's spelling ``persistable=False``); re-registering a buffer keeps its
        place, another attribute of that name is a ``KeyError``."""
        if persistable is not None:
            persistent = bool(persistable)
        self._check_name(name, "buffer")
        self._check_free(name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer({name!r}): expected a Tensor or None")
        self._put_buffer(name, tensor, persistent)

    def add_module(self, name: str, module: Optional[Module]) -> Optional[Module]:
        """Registers ``module`` as a child called ``name``; returns it. Re-registering a
        child keeps its place, another attribute of that name is a ``KeyError``."""
        self._check_name(name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module({name!r}): expected a Module, got {type(module).__name__}")
        self._check_free(name, "_modules")
        self._put("_modules", name, module)
        return module

    def add_sublayer(self, name: str, sublayer: Optional[Module]) -> Optional[Module]:
        """Paddle's ``add_module``: as Paddle, an attribute of that name is replaced (not
        refused); returns ``sublayer``."""
        self._check_name(name, "sublayer")
        if sublayer is not None and not isinstance(sublayer, Module):
            raise TypeError(
                f"add_sublayer({name!r}): expected a Layer, got {type(sublayer).__name__}"
            )
        self._put("_modules", name, sublayer)
        return sublayer

    register_module = add_module

    def create_parameter(
        self,
        shape: Any,
        attr: Any = None,
        dtype: Any = None,
        is_bias: bool = False,
        default_initializer: Optional[Callable] = None,
    ) -> Parameter:
        """Paddle's ``Layer.create_parameter``: a new (unregistered) Parameter of ``shape``;
        zeros for a bias, Xavier-uniform otherwise, unless ``default_initializer``; ``attr``
        (a ``ParamAttr`` or a name) is applied last, so its initializer wins."""
        return create_eager_parameter(shape, dtype, attr, is_bias, default_initializer)

    # ------------------------------------------------------------------ traversal

    def named_modules(
        self, memo: Optional[set] = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                sub = f"{prefix}.{name}" if prefix else name
                yield from child.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every descendant."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, child)`` for the direct children."""
        seen: set = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        """The direct children."""
        for _, child in self.named_children():
            yield child

    def named_sublayers(
        self, prefix: str = "", include_self: bool = False
    ) -> Iterator[tuple[str, Module]]:
        """Paddle: ``(name, layer)`` for every descendant (and self if ``include_self``)."""
        for name, m in self.named_modules(prefix=prefix):
            if m is not self or include_self:
                yield name, m

    def sublayers(self, include_self: bool = False) -> list[Module]:
        """Paddle: every descendant layer (and self if ``include_self``)."""
        return [m for _, m in self.named_sublayers(include_self=include_self)]

    def _named_members(
        self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        # PyTorch's walk: with remove_duplicate=False a submodule reached twice is walked
        # twice, and a tensor held twice is given under each of its names
        seen: set = set()
        owners = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else iter([(prefix, self)])
        )
        for owner_name, owner in owners:
            for name, value in getattr(owner, registry).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (f"{owner_name}.{name}" if owner_name else name), value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted_name, parameter)`` for every parameter (shared ones once)."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)  # type: ignore[misc]

    def parameters(self, recurse: bool = True, include_sublayers: Optional[bool] = None) -> list:
        """Every parameter, in registration order (shared ones once): a list (Paddle) on
        which ``next()`` also works (torch returns an iterator)."""
        if include_sublayers is not None:
            recurse = include_sublayers
        return _ParameterSequence(p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted_name, buffer)`` for every buffer (shared ones once, unless
        ``remove_duplicate=False``)."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> list:
        """Every buffer."""
        return [b for _, b in self.named_buffers(recurse=recurse)]

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Calls ``fn`` on every descendant, then on this module; returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ modes and grads

    def train(self, mode: bool = True) -> Module:
        """Training mode (dropout active) for this module and its descendants. PyTorch's
        walk (PyTorch code and by default) sets this module's flag and calls each child's
        ``train(mode)``, so a child overriding ``train`` runs its own; Paddle code gets
        Paddle's, which sets the flag of every sublayer without calling them."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(mode): mode must be a bool, got {type(mode).__name__}")
        if caller_dialect(2, through_layers=True) == "paddle":
            return self._set_training_flags(mode)
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode (dropout is the identity): ``train(False)`` (Paddle code:
        Paddle's walk, which sets the flags without calling ``train``)."""
        if caller_dialect(2, through_layers=True) == "paddle":
            return self._set_training_flags(False)
        return self.train(False)

    def _set_training_flags(self, mode: bool) -> Module:
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Sets ``requires_grad`` on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears every parameter's ``.grad`` (drops it, or zeros it in place)."""
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.clear_grad(set_to_zero=True)

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        """Paddle: zero every parameter's gradient (``set_to_zero=False`` drops it)."""
        self.zero_grad(set_to_none=not set_to_zero)

    # ------------------------------------------------------------------ printing

    def extra_repr(self) -> str:
        """Text shown inside this module's parentheses by ``repr``."""
        return ""

    def __repr__(self) -> str:
        # PyTorch's layout: the extra_repr lines, then one line per child, indented; a
        # single extra line without children stays on the first line
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({name}): " + repr(child).replace("\n", "\n  ")
            for name, child in self._modules.items()
        ]
        main = f"{type(self).__name__}("
        if len(extra_lines) == 1 and not child_lines:
            main += extra_lines[0]
        elif extra_lines or child_lines:
            main += "\n  " + "\n  ".join(extra_lines + child_lines) + "\n"
        return main + ")"

    def __dir__(self) -> list:
        return sorted(set(super().__dir__()))

    def __getstate__(self) -> dict:
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


Layer = Module
