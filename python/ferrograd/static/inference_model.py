"""Paddle's inference-model functions of ``paddle.static``: ``save_inference_model`` /
``load_inference_model``, ``normalize_program``, ``serialize_program`` /
``deserialize_program``, ``serialize_persistables`` / ``deserialize_persistables``,
``save_to_file`` / ``load_from_file`` (docs/static.md, "Saving an inference model").

The program is pruned to what the fetch variables need from the feed variables
(``static/program_log.py``), in test mode (dropout the identity, batch norm on its
moving statistics), and written in ferrograd's own format: ``<prefix>.pdmodel`` is the
program as UTF-8 JSON (the notes ``jit.save`` writes, ``static/export.py``),
``<prefix>.pdiparams`` the persistable variables' values (``ferrograd.save``: an
``.npz``, no pickle). It is not Paddle's protobuf (nor Paddle 3's PIR ``.json``): a file
written by Paddle cannot be read here, nor the reverse. ``jit.load`` reads these files
too, and ``load_inference_model`` reads ``jit.save``'s.
"""

from __future__ import annotations

import io
import json
import os
import warnings
from collections.abc import Sequence
from typing import Any

from . import program as _program
from . import program_log as _log
from .variable import Variable

_WHERE = "save_inference_model"


def _as_list(v: Any) -> list[Any]:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _check_vars(what: str, items: Any, api: str, error: type[Exception]) -> list[Variable]:
    """``items`` (a Variable or a list of them) as a list; ``error`` otherwise (Paddle:
    ``ValueError`` in ``save_inference_model``, ``TypeError`` in ``normalize_program``)."""
    out = _as_list(items)
    for v in out:
        if not isinstance(v, Variable):
            raise error(
                f"{api}: '{what}' should be a Variable or a list of Variables, got "
                f"{type(v).__name__} (give the static Variables returned by static.data and "
                "the ops)"
            )
    return out


def _valid_program(program: Any, api: str, fetch_vars: Any = None) -> _program.Program:
    """``program=``: a Program (or CompiledProgram); None: the program the fetch vars
    belong to (Paddle takes the default main program, which is that program whenever
    Paddle's call would work; after a ``program_guard`` block it is another one)."""
    from .executor import CompiledProgram

    if program is None:
        first = _as_list(fetch_vars)[0] if _as_list(fetch_vars) else None
        if isinstance(first, Variable):
            return first.block.program
        return _program.default_main_program()
    if isinstance(program, CompiledProgram):
        program = program._program
    if not isinstance(program, _program.Program):
        raise TypeError(f"{api}: program must be a static Program, got {type(program).__name__}")
    return program


def _ids(program: _program.Program, vs: Sequence[Variable], what: str, api: str) -> list[int]:
    """The ids in ``program`` of ``vs`` (a variable of another program by its name)."""
    out = []
    for v in vs:
        if v.block.program is program:
            out.append(v.id)
            continue
        i = program._core.find_var(v.name)
        if i is None:
            raise ValueError(
                f"{api}: the {what} '{v.name}' is not a variable of the program (pass the "
                "program the variables were built in as program=...)"
            )
        out.append(int(i))
    return out


def _normalize(
    program: _program.Program, feed_vars: Any, fetch_vars: Any, api: str, **kwargs: Any
) -> _program.Program:
    error: type[Exception] = ValueError if api != "normalize_program" else TypeError
    feeds = _check_vars("feed_vars", feed_vars, api, error)
    fetches = _check_vars("fetch_vars", fetch_vars, api, error)
    if not fetches:
        raise ValueError(f"{api}: fetch_vars is empty; give the variables the model returns")
    if not program._calls and not program._core.op_types():
        raise ValueError(f"{api}: the program is empty (it has no ops)")
    feed_ids = _ids(program, feeds, "feed var", api)
    for v, i in zip(feeds, feed_ids):
        if program._core.var_info(i)[3] == "parameter":
            raise ValueError(f"{api}: the feed var '{v.name}' is a parameter, which is not fed")
    if len(set(feed_ids)) != len(feed_ids):
        raise ValueError(f"{api}: feed_vars names a variable twice")
    new, names, out_ids = _log.prune(
        program,
        feed_ids,
        _ids(program, fetches, "fetch var", api),
        bool(kwargs.get("skip_prune_program", False)),
        api,
    )
    new._inference = (names, out_ids)  # type: ignore[attr-defined]
    return new


def normalize_program(
    program: _program.Program, feed_vars: Any, fetch_vars: Any, **kwargs: Any
) -> _program.Program:
    """Paddle's ``normalize_program``: a new test-mode program holding what
    ``fetch_vars`` need from ``feed_vars`` (``skip_prune_program=True``: every forward op).
    A feed var the fetch vars do not need is an error; a ``data`` variable they need that
    is not among ``feed_vars`` stays an input of the program."""
    for key in kwargs:
        if key != "skip_prune_program":
            raise TypeError(f"normalize_program: unexpected keyword argument {key!r}")
    if not isinstance(program, _program.Program):
        raise TypeError(
            f"normalize_program: program must be a static Program, got {type(program).__name__}"
        )
    return _normalize(program, feed_vars, fetch_vars, "normalize_program", **kwargs)


def _program_json(p: _program.Program, api: str) -> dict[str, Any]:
    """A normalized program as the JSON object ``jit.save`` also writes."""
    from . import export

    names, out_ids = p._inference  # type: ignore[attr-defined]
    calls, constants = _log.encode(p, api)
    block = p.global_block()
    inputs = [
        {"name": n, "dtype": block.var(n)._dtype_name, "shape": block.var(n).shape} for n in names
    ]
    persist = [
        {
            "name": v.name,
            "kind": "parameter" if v.trainable else "buffer",
            "requires_grad": bool(v.trainable),
            "names": [v.name],
        }
        for v in p.list_vars()
        if v.persistable
    ]
    return {
        "format": export.FORMAT,
        "version": export.VERSION,
        "inputs": inputs,
        "outputs": {"kind": "single" if len(out_ids) == 1 else "list", "ids": out_ids},
        "persistables": persist,
        "calls": calls,
        "constants": constants,
    }


def _persistable_values(p: _program.Program, api: str) -> dict[str, Any]:
    scope = _program.global_scope()
    out = {}
    for v in p.list_vars():
        if not v.persistable:
            continue
        value = scope.find_var(v.name)
        if value is None:
            raise ValueError(
                f"{api}: the persistable variable '{v.name}' has no value in the scope; run "
                "the startup program (exe.run(startup_program)) first"
            )
        out[v.name] = value.detach().clone()
    return out


def _to_bytes(values: dict[str, Any]) -> bytes:
    from ..serialization import save as save_file

    buf = io.BytesIO()
    save_file(values, buf)
    return buf.getvalue()


def _from_bytes(data: bytes) -> dict[str, Any]:
    from ..serialization import load as load_file

    values = load_file(io.BytesIO(data))
    if not isinstance(values, dict):
        raise ValueError("the parameters data is not a dict of tensors written by ferrograd")
    return values


def serialize_program(feed_vars: Any, fetch_vars: Any, **kwargs: Any) -> bytes:
    """Paddle's ``serialize_program``: the normalized program (``program=``, default the
    default main program) as bytes (ferrograd's JSON, see the module docs)."""
    api = "serialize_program"
    program = _valid_program(kwargs.pop("program", None), api, fetch_vars)
    kwargs.pop("legacy_format", None)
    p = _normalize(program, feed_vars, fetch_vars, api, **kwargs)
    return json.dumps(_program_json(p, api)).encode("utf-8")


def serialize_persistables(feed_vars: Any, fetch_vars: Any, executor: Any, **kwargs: Any) -> bytes:
    """Paddle's ``serialize_persistables``: the values (from the global scope) of the
    normalized program's persistable variables, as bytes (``ferrograd.save``'s ``.npz``)."""
    api = "serialize_persistables"
    program = _valid_program(kwargs.pop("program", None), api, fetch_vars)
    p = _normalize(program, feed_vars, fetch_vars, api, **kwargs)
    return _to_bytes(_persistable_values(p, api))


def save_to_file(path: str, content: bytes) -> None:
    """Paddle's ``save_to_file``: writes ``content`` (bytes) to ``path``."""
    if not isinstance(content, bytes):
        raise ValueError(f"save_to_file: 'content' should be bytes, got {type(content).__name__}")
    with open(path, "wb") as f:
        f.write(content)


def load_from_file(path: str) -> bytes:
    """Paddle's ``load_from_file``: the bytes of the file ``path``."""
    with open(path, "rb") as f:
        return f.read()


def _normalize_prefix(path_prefix: Any, api: str) -> str:
    if not isinstance(path_prefix, (str, os.PathLike)):
        raise ValueError(
            f"{api}: 'path_prefix' should be a string, got {type(path_prefix).__name__}"
        )
    p = os.fspath(path_prefix)
    if isinstance(p, bytes) or not p or p.endswith(("/", os.sep)):
        raise ValueError(
            f"{api}: 'path_prefix' should be dirname/file_prefix, not a directory: {p!r}"
        )
    return os.path.abspath(os.path.normpath(p))


def save_inference_model(
    path_prefix: Any, feed_vars: Any, fetch_vars: Any, executor: Any, **kwargs: Any
) -> None:
    """Paddle's ``save_inference_model(path_prefix, feed_vars, fetch_vars, executor,
    program=None)``: writes the program pruned to what ``fetch_vars`` need from
    ``feed_vars`` to ``<path_prefix>.pdmodel`` and its persistable variables' values
    (from the global scope) to ``<path_prefix>.pdiparams``, in ferrograd's format (see the
    module docs). An op the format cannot hold (a ``py_func``, a gradient) is an error
    naming it, and nothing is written."""
    for key in kwargs:
        if key not in ("program", "clip_extra", "legacy_format", "skip_prune_program"):
            raise TypeError(f"save_inference_model: unexpected keyword argument {key!r}")
    prefix = _normalize_prefix(path_prefix, _WHERE)
    model_path, params_path = prefix + ".pdmodel", prefix + ".pdiparams"
    for path in (model_path, params_path):
        if os.path.isdir(path):
            raise ValueError(f"{_WHERE}: '{path}' is an existing directory")
    program = _valid_program(kwargs.get("program"), _WHERE, fetch_vars)
    skip = bool(kwargs.get("skip_prune_program", False))
    p = _normalize(program, feed_vars, fetch_vars, _WHERE, skip_prune_program=skip)
    text = json.dumps(_program_json(p, _WHERE))
    values = _persistable_values(p, _WHERE)
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    with open(model_path, "w", encoding="utf-8") as f:
        f.write(text)
    if not values:
        warnings.warn(
            "save_inference_model: no persistable variable in the model, so no .pdiparams "
            "file was written",
            stacklevel=2,
        )
        return
    save_to_file(params_path, _to_bytes(values))


def deserialize_program(data: bytes) -> _program.Program:
    """Paddle's ``deserialize_program``: the program ``serialize_program`` (or a
    ``.pdmodel`` file written by ``save_inference_model`` / ``jit.save``) holds, in test
    mode. Its feed names and fetch variables: ``load_inference_model``."""
    from . import export

    try:
        program = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except (UnicodeDecodeError, ValueError):
        program = None
    if not isinstance(program, dict) or program.get("format") != export.FORMAT:
        raise ValueError(
            "deserialize_program: not a program written by ferrograd (ferrograd writes its "
            "own JSON format; Paddle's protobuf .pdmodel and PIR .json cannot be read): save "
            "the model with ferrograd's save_inference_model or jit.save"
        )
    if program.get("version") != export.VERSION:
        raise ValueError(
            f"deserialize_program: the program has format version {program.get('version')}, "
            f"this ferrograd reads version {export.VERSION}"
        )
    p = export.replay(program["calls"], program["constants"])
    p._for_test = True
    block = p.global_block()
    names = [str(i["name"]) for i in program["inputs"]]
    p._inference = (names, [int(i) for i in program["outputs"]["ids"]])  # type: ignore[attr-defined]
    for item in program.get("persistables", []):
        if item.get("kind") != "parameter":
            block.var(item["name"]).trainable = False
    return p


def deserialize_persistables(program: _program.Program, data: bytes, executor: Any) -> None:
    """Paddle's ``deserialize_persistables``: sets ``program``'s persistable variables in
    the global scope from ``data`` (``serialize_persistables``'s bytes); shapes must
    match, dtypes are cast."""
    _set_persistables(program, _from_bytes(data), "deserialize_persistables")


def _set_persistables(program: _program.Program, values: dict[str, Any], api: str) -> None:
    scope = _program.global_scope()
    for v in program.list_vars():
        if not v.persistable:
            continue
        if v.name not in values:
            raise ValueError(f"{api}: the parameters hold no value for '{v.name}'")
        value = values[v.name]
        if list(value.shape) != list(v.shape):
            raise ValueError(
                f"{api}: '{v.name}' has shape {list(value.shape)} in the parameters but "
                f"{v.shape} in the program"
            )
        scope.set(v.name, value.detach().astype(v._dtype_name))


def _model_paths(prefix: str, kwargs: dict[str, Any]) -> tuple[str, str]:
    """Paddle's path rules: ``<prefix>.pdmodel`` (or ``.json``) and ``.pdiparams``; with
    ``model_filename`` / ``params_filename``, ``path_prefix`` is their directory."""
    if not kwargs:
        model = prefix + ".pdmodel"
        if not os.path.exists(model) and os.path.exists(prefix + ".json"):
            model = prefix + ".json"
        return model, prefix + ".pdiparams"
    model_filename, params_filename = kwargs.get("model_filename"), kwargs.get("params_filename")
    if model_filename is None:
        model = os.path.join(prefix, "__model__")
    else:
        model = os.path.join(prefix, model_filename + ".pdmodel")
        if not os.path.exists(model):
            model = os.path.join(prefix, model_filename)
    params = os.path.join(prefix, "")
    if params_filename is not None:
        params = os.path.join(prefix, params_filename + ".pdiparams")
        if not os.path.exists(params):
            params = os.path.join(prefix, params_filename)
    return model, params


def load_inference_model(path_prefix: Any, executor: Any, **kwargs: Any) -> list[Any]:
    """Paddle's ``load_inference_model(path_prefix, executor)``: ``[program,
    feed_target_names, fetch_targets]`` of a model saved by ``save_inference_model`` (or
    ``jit.save``); the persistable variables' values are set in the global scope. Run it
    with ``exe.run(program, feed={name: array}, fetch_list=fetch_targets)``."""
    api = "load_inference_model"
    for key in kwargs:
        if key not in ("model_filename", "params_filename"):
            raise ValueError(
                f"{api}: unsupported argument {key!r}; only model_filename and "
                "params_filename are supported"
            )
    if path_prefix is None:  # (from memory: the bytes themselves)
        model_bytes, params_bytes = kwargs.get("model_filename"), kwargs.get("params_filename")
        if params_bytes is None or model_bytes is None:
            raise ValueError(
                f"{api}: with path_prefix=None, give the serialized program and parameters as "
                "model_filename= and params_filename="
            )
        p = deserialize_program(model_bytes)
        values = _from_bytes(params_bytes) if any(v.persistable for v in p.list_vars()) else {}
    else:
        prefix = _normalize_prefix(path_prefix, api)
        directory = os.path.dirname(prefix)
        if not os.path.isdir(directory):
            raise ValueError(f"{api}: there is no directory named {directory}")
        model_path, params_path = _model_paths(prefix, kwargs)
        if not os.path.isfile(model_path):
            raise FileNotFoundError(
                f"{api}: the model file {model_path!r} does not exist (save_inference_model "
                "writes <path_prefix>.pdmodel and <path_prefix>.pdiparams)"
            )
        p = deserialize_program(load_from_file(model_path))
        values = {}
        if any(v.persistable for v in p.list_vars()):
            if not os.path.isfile(params_path):
                raise FileNotFoundError(
                    f"{api}: the parameters file {params_path!r} does not exist"
                )
            values = _from_bytes(load_from_file(params_path))
    _set_persistables(p, values, api)
    names, out_ids = p._inference  # type: ignore[attr-defined]
    block = p.global_block()
    return [p, list(names), [block._wrap(i) for i in out_ids]]


__all__ = [
    "deserialize_persistables",
    "deserialize_program",
    "load_from_file",
    "load_inference_model",
    "normalize_program",
    "save_inference_model",
    "save_to_file",
    "serialize_persistables",
    "serialize_program",
]
