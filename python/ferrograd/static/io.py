"""Saving and loading a static program's state: ``Program.state_dict`` /
``set_state_dict`` and ``static.save`` / ``static.load`` (Paddle's ``paddle.static``
functions of those names).

The state is the values, in a scope, of the program's persistable variables: the
parameters (``create_parameter``, ``static.nn`` layers, ``nn`` layers built in static
mode), the layers' statistics (batch norm's moving mean and variance) and the
optimizer's state (moments, step counts, learning rates; ``minimize`` records their
names in the program). ``save`` writes the first two to ``<path>.pdparams`` and the
optimizer's to ``<path>.pdopt``, with ``ferrograd.save`` (``.npz`` files, no pickle).
The program itself (``.pdmodel`` in Paddle) is not written: build it again with the
same code, then ``load`` its state.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from .. import _core
from . import program as _program

_MODES = ("all", "param", "opt")


def _persistable_names(program: _program.Program, mode: str) -> list[str]:
    if mode not in _MODES:
        raise ValueError(f"state_dict: mode must be one of {_MODES}, got {mode!r}")
    opt = program._optimizer_vars
    names = [v.name for v in program.list_vars() if v.persistable]
    if mode == "param":
        return [n for n in names if n not in opt]
    if mode == "opt":
        return [n for n in names if n in opt]
    return names


def program_state(
    program: _program.Program, mode: str = "all", scope: _program.Scope | None = None
) -> dict[str, Any]:
    """``{name: Tensor}`` of ``program``'s persistable variables (of ``mode``) that have
    a value in ``scope``; run the startup program first to give them one. The tensors
    are copies: later runs (which update some values in place) do not change them."""
    scope = scope if scope is not None else _program.global_scope()
    out = {}
    for name in _persistable_names(program, mode):
        value = scope.find_var(name)
        if value is not None:
            out[name] = value.clone()
    return out


def set_program_state(
    program: _program.Program, state: Any, scope: _program.Scope | None = None
) -> None:
    """Sets ``program``'s persistable variables named in ``state`` (a mapping of names
    to Tensors or arrays) in ``scope``: shapes must match, dtypes are cast."""
    if not hasattr(state, "items"):
        raise TypeError(
            f"set_state_dict: expected a mapping of variable names to values, got "
            f"{type(state).__name__}"
        )
    scope = scope if scope is not None else _program.global_scope()
    block = program.global_block()
    for name, value in state.items():
        if not block.has_var(name) or not block.var(name).persistable:
            warnings.warn(
                f"set_state_dict: skipping '{name}': the program has no persistable "
                "variable of that name",
                stacklevel=3,
            )
            continue
        var = block.var(name)
        t = value if isinstance(value, _core.Tensor) else _core.to_tensor(value)
        if list(t.shape) != list(var.shape):
            raise ValueError(
                f"set_state_dict: '{name}' has shape {list(t.shape)} in the state but "
                f"{var.shape} in the program"
            )
        scope.set(name, t.astype(var.dtype))


def _base(model_path: Any) -> str:
    path = os.fspath(model_path)
    for suffix in (".pdparams", ".pdopt", ".pdmodel"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def save(program: _program.Program, model_path: Any, protocol: int = 4, **configs: Any) -> None:
    """Writes ``program``'s parameters (and layer statistics) to
    ``<model_path>.pdparams`` and its optimizer state, if any, to ``<model_path>.pdopt``
    (values from the global scope)."""
    from ..serialization import save as save_file

    if not isinstance(program, _program.Program):
        raise TypeError(f"static.save: expected a Program, got {type(program).__name__}")
    base = _base(model_path)
    directory = os.path.dirname(base)
    if directory:
        os.makedirs(directory, exist_ok=True)
    params = program_state(program, "param")
    missing = [n for n in _persistable_names(program, "param") if n not in params]
    if missing:
        raise ValueError(
            f"static.save: {missing[:5]} have no value in the scope; run the startup program "
            "(executor.run(startup_program)) before saving"
        )
    save_file(params, base + ".pdparams")
    opt = program_state(program, "opt")
    if opt:
        save_file(opt, base + ".pdopt")


def load(
    program: _program.Program,
    model_path: Any,
    executor: Any = None,
    var_list: Any = None,
) -> None:
    """Reads what ``save`` wrote into the global scope: ``<model_path>.pdparams`` and,
    when it exists, ``<model_path>.pdopt``. ``var_list``: load only those variables."""
    from ..serialization import load as load_file

    if not isinstance(program, _program.Program):
        raise TypeError(f"static.load: expected a Program, got {type(program).__name__}")
    base = _base(model_path)
    if not os.path.exists(base + ".pdparams"):
        raise FileNotFoundError(f"static.load: {base + '.pdparams'} does not exist")
    state = dict(load_file(base + ".pdparams"))
    if os.path.exists(base + ".pdopt"):
        state.update(load_file(base + ".pdopt"))
    if var_list is not None:
        wanted = {v if isinstance(v, str) else v.name for v in var_list}
        state = {k: v for k, v in state.items() if k in wanted}
    set_program_state(program, state)


__all__ = ["load", "program_state", "save", "set_program_state"]
