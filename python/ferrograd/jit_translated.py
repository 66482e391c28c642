"""``TranslatedLayer``: what ``jit.load`` returns — a saved program run as a Layer.

The program (``static/export.py`` rebuilds it from the file) runs with an ``Executor``
in a scope of its own; its parameters and buffers are this layer's, under the names of
the saved layer's ``state_dict`` (``0.weight``, ``fc.bias``, ...), so ``state_dict()``,
``parameters()``, ``set_state_dict`` / ``load_state_dict`` work as on any Layer and a
change to them is what the next call computes with. The layer is for inference: it
computes the saved layer's evaluation-mode forward, its outputs carry no gradient, and
``train()`` raises (the file holds no training-mode ops and no backward).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from .nn import Module
from .nn.parameter import Parameter


class _Holder(Module):
    """An empty Layer that holds a saved layer's sublayer's parameters and buffers."""

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """A holder computes nothing."""
        raise RuntimeError("this sublayer of a loaded program only holds its parameters")


def _owner(root: Module, dotted: str) -> tuple[Module, str]:
    """The (new if needed) holder of ``dotted``'s last part, under ``root``."""
    *path, leaf = dotted.split(".")
    m = root
    for part in path:
        child = m._modules.get(part)
        if child is None:
            child = _Holder()
            m.add_module(part, child)
        m = child
    return m, leaf


class TranslatedLayer(Module):
    """A layer saved by ``jit.save`` and loaded by ``jit.load``: calling it runs the
    saved program on the given tensors (see the module docs)."""

    def __init__(self, program: dict[str, Any], params: dict[str, Any]) -> None:
        super().__init__()
        from .static import Executor, Scope, export

        self.__dict__["_fg_program"] = export.replay(program["calls"], program["constants"])
        self.__dict__["_fg_inputs"] = list(program["inputs"])
        self.__dict__["_fg_outputs"] = dict(program["outputs"])
        self.__dict__["_fg_scope"] = Scope()
        self.__dict__["_fg_exe"] = Executor()
        self.__dict__["_fg_vars"] = []  # (variable name, owner layer, attribute, registry)
        block = self._fg_program.global_block()
        for p in program["persistables"]:
            name, kind = p["name"], p["kind"]
            if name not in params:
                raise ValueError(f"jit.load: the parameters file has no value for '{name}'")
            var = block.var(name)
            value = params[name]
            if list(value.shape) != list(var.shape):
                raise ValueError(
                    f"jit.load: '{name}' has shape {list(value.shape)} in the parameters file but "
                    f"{var.shape} in the program"
                )
            if not isinstance(value, _core.Tensor) or (
                value.is_complex() and "complex" not in str(var.dtype)
            ):
                # (a complex value cast to the program's real dtype lost its imaginary part)
                raise ValueError(
                    f"jit.load: '{name}' in the parameters file is "
                    f"{getattr(value, 'dtype', type(value).__name__)}, which does not fit the "
                    f"program's {var.dtype}"
                )
            value = value.detach().astype(var.dtype)
            if kind == "parameter":
                value = Parameter(value, requires_grad=bool(p.get("requires_grad", True)))
            for alias in p.get("names", [name]):
                owner, leaf = _owner(self, alias)
                if kind == "parameter":
                    owner.register_parameter(leaf, value)
                else:
                    owner.register_buffer(leaf, value, persistent=kind == "buffer")
                if alias == name:
                    registry = "_parameters" if kind == "parameter" else "_buffers"
                    self._fg_vars.append((name, owner, leaf, registry))
        self._set_training_flags(False)

    # ---- running ------------------------------------------------------------------

    def forward(self, *inputs: Any, **named: Any) -> Any:
        """Runs the program on ``inputs`` (tensors or arrays, in the saved order; or by
        input name). Returns the saved forward's result structure."""
        if self.training:
            raise RuntimeError(_TRAIN_ERROR)
        specs = self._fg_inputs
        if len(inputs) > len(specs):
            raise TypeError(
                f"the loaded program takes {len(specs)} input(s) "
                f"({', '.join(s['name'] for s in specs) or 'none'}), got {len(inputs)}"
            )
        feed: dict[str, Any] = {}
        for s, x in zip(specs, inputs):
            feed[s["name"]] = x
        for k, x in named.items():
            if k not in {s["name"] for s in specs} or k in feed:
                raise TypeError(f"the loaded program has no input '{k}' left to give")
            feed[k] = x
        missing = [s["name"] for s in specs if s["name"] not in feed]
        if missing:
            raise TypeError(f"the loaded program needs the input(s) {missing}")
        for s in specs:
            feed[s["name"]] = self._check_input(s, feed[s["name"]])
        scope = self._fg_scope
        for name, owner, leaf, registry in self._fg_vars:
            scope.set(name, owner.__dict__[registry][leaf].detach())
        from .grad_mode import no_grad

        with no_grad():
            outs = self._fg_exe.run(
                self._fg_program,
                feed=feed,
                fetch_list=[
                    self._fg_program.global_block()._wrap(i) for i in self._fg_outputs["ids"]
                ],
                scope=scope,
                return_numpy=False,
            )
        kind = self._fg_outputs["kind"]
        if kind == "single":
            return outs[0]
        if kind == "dict":
            return dict(zip(self._fg_outputs["keys"], outs))
        return list(outs) if kind == "list" else tuple(outs)

    @staticmethod
    def _check_input(spec: dict[str, Any], x: Any) -> Any:
        """``x`` as a tensor of the input's dtype and rank (sizes are checked by the
        executor; ``-1`` dimensions take any size)."""
        t = x if isinstance(x, _core.Tensor) else _core.to_tensor(np.asarray(x))
        if t.dtype.name != spec["dtype"]:
            raise TypeError(
                f"input '{spec['name']}' of the loaded program is {spec['dtype']}, got "
                f"{t.dtype.name} (cast it with .astype('{spec['dtype']}'))"
            )
        shape = list(t.shape)
        want = spec["shape"]
        if len(shape) != len(want) or any(w >= 0 and w != d for w, d in zip(want, shape)):
            raise ValueError(
                f"input '{spec['name']}' of the loaded program has shape {want} (-1: any size), "
                f"got {shape}"
            )
        return t.detach()

    # ---- modes --------------------------------------------------------------------

    def train(self, mode: bool = True) -> TranslatedLayer:
        """``train(False)`` is ``eval()``; training mode raises (inference only)."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(mode): mode must be a bool, got {type(mode).__name__}")
        if mode:
            raise RuntimeError(_TRAIN_ERROR)
        self._set_training_flags(False)
        return self

    def eval(self) -> TranslatedLayer:
        """Evaluation mode (the only one a loaded program has)."""
        return self.train(False)

    def program(self, method_name: str = "forward") -> Any:
        """The static ``Program`` this layer runs (Paddle's ``TranslatedLayer.program``)."""
        if method_name != "forward":
            raise ValueError(f"the loaded layer has only 'forward', not '{method_name}'")
        return self._fg_program

    def extra_repr(self) -> str:
        """The inputs and the number of ops."""
        ins = ", ".join(f"{s['name']}: {s['dtype']}{s['shape']}" for s in self._fg_inputs)
        return f"inputs=[{ins}], ops={len(self._fg_program.global_block().ops)}"


_TRAIN_ERROR = (
    "a layer loaded by jit.load runs the saved evaluation-mode program without gradients, "
    "so it cannot train: the file holds neither training-mode ops (dropout, batch-norm "
    "statistics updates) nor a backward. To train, build the Python layer again and load "
    "the weights: layer.set_state_dict(loaded.state_dict()) / "
    "layer.load_state_dict(loaded.state_dict())"
)

__all__ = ["TranslatedLayer"]
