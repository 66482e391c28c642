"""``jit.save`` / ``jit.load``: a layer's forward saved as a static program, loaded back
as a ``TranslatedLayer`` (docs/static.md "Saving a layer as a program").

Two layouts, both ferrograd's own (neither Paddle's protobuf ``.pdmodel`` nor PyTorch's
TorchScript zip is written or read):

* Paddle's (``paddle.jit.save(layer, "dir/prefix", input_spec=[...])``): ``prefix.pdmodel``
  is the program as UTF-8 JSON (``static/export.py`` describes it), ``prefix.pdiparams``
  the parameters and buffers, written by ``ferrograd.save`` (an ``.npz``, no pickle).
* PyTorch's (``torch.jit.save(torch.jit.trace(m, x), "m.pt")``): one file, written by
  ``ferrograd.save``, holding the same JSON text and parameters (and ``_extra_files``).

``save`` writes PyTorch's layout for PyTorch code (``import ferrograd as torch``), a file
object, ``_extra_files``, or a path ending in ``.pt`` / ``.pth`` / ``.ptl`` / ``.zip`` in
code of no dialect; Paddle's otherwise. ``load`` tells them apart by what is on disk.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Any, Optional

from ._input_spec import InputSpec
from .jit_capture import as_specs, capture, required_inputs

_PADDLE_CONFIGS = frozenset(
    {"output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward"}
)
_TORCH_SUFFIXES = (".pt", ".pth", ".ptl", ".zip", ".torchscript")
_KEY = "ferrograd.jit"


def recorded_inputs(obj: Any) -> Optional[list[Any]]:
    """The input specs ``to_static(input_spec=)`` / ``trace(example_inputs)`` noted on
    ``obj`` (or on a layer's wrapped ``forward``), or None."""
    for holder in (obj, getattr(obj, "__dict__", {}).get("forward")):
        if holder is None:
            continue
        d = getattr(holder, "__dict__", {})
        if d.get("_fg_jit_inputs") is not None:
            return list(d["_fg_jit_inputs"])
    return None


def note_inputs(obj: Any, specs: Any, what: str) -> None:
    """Notes ``specs`` on ``obj`` (a Layer or a wrapper function) for a later ``save``."""
    obj.__dict__["_fg_jit_inputs"] = as_specs(specs, what)


def _specs_for(obj: Any, input_spec: Any, api: str) -> list[Any]:
    if input_spec is not None:
        return as_specs(input_spec, api)
    noted = recorded_inputs(obj)
    if noted is not None:
        return noted
    if required_inputs(obj) == 0:
        return []
    name = type(obj).__name__
    if api == "torch.jit.save":
        raise ValueError(
            f"torch.jit.save: ferrograd does not compile Python (torch.jit.script runs {name} "
            "eagerly), so it saves a traced program; trace it with example inputs first: "
            "torch.jit.save(torch.jit.trace(module, example_inputs), path)"
        )
    raise ValueError(
        f"paddle.jit.save: the inputs of {name}'s forward are unknown; give "
        "input_spec=[InputSpec(shape, dtype, name), ...] (or example tensors), here or to "
        "paddle.jit.to_static"
    )


def _torch_style(path: Any, dialect: Optional[str], configs: dict[str, Any]) -> bool:
    if hasattr(path, "write") or "_extra_files" in configs or dialect == "torch":
        return True
    if dialect == "paddle":
        return False
    return isinstance(path, (str, os.PathLike)) and os.fspath(path).endswith(_TORCH_SUFFIXES)


def save(
    layer: Any,
    path: Any = None,
    input_spec: Any = None,
    dialect: Optional[str] = None,
    **configs: Any,
) -> None:
    """``paddle.jit.save(layer, path, input_spec=None, **configs)`` /
    ``torch.jit.save(m, f, _extra_files=None)`` (see the module docs)."""
    if path is None:
        raise TypeError("jit.save: a path is needed (paddle: a prefix, torch: a file)")
    torch_style = _torch_style(path, dialect, configs)
    if torch_style and isinstance(input_spec, dict):  # torch.jit.save(m, f, _extra_files)
        configs["_extra_files"], input_spec = input_spec, None
    api = "torch.jit.save" if torch_style else "paddle.jit.save"
    extra = configs.pop("_extra_files", None)
    for key in configs:
        if key not in _PADDLE_CONFIGS:
            raise ValueError(f"{api}: the config {key!r} is not supported")
    if configs.get("output_spec") is not None:
        raise NotImplementedError(
            f"{api}: output_spec selects outputs by static Variable, which ferrograd's "
            "to_static does not produce; return only the outputs to keep from forward"
        )
    if configs.get("skip_forward"):
        raise NotImplementedError(f"{api}: skip_forward=True (saving no program) is not supported")
    from .static.export import CaptureError

    specs = _specs_for(layer, input_spec, api)
    try:
        saved = capture(layer, specs)
    except CaptureError as e:
        raise type(e)(f"{api}: {e}; nothing was saved") from None  # (its subclass kept)
    except Exception as e:
        note = getattr(e, "add_note", None)  # (Python 3.11+)
        if note is not None:
            note(
                f"(while {api} captured the forward of {type(layer).__name__} as a static program)"
            )
        raise
    text = json.dumps(saved["program"])
    from .serialization import save as save_file

    if torch_style:
        files = {}
        for k, v in (extra or {}).items():
            files[str(k)] = v.decode("latin-1") if isinstance(v, bytes) else str(v)
        save_file({_KEY: text, "params": saved["params"], "extra_files": files}, path)
        return
    prefix = _prefix(path)
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(prefix + ".pdmodel", "w", encoding="utf-8") as f:
        f.write(text)
    save_file(saved["params"], prefix + ".pdiparams")


def _prefix(path: Any) -> str:
    """Paddle's ``dirname/file_prefix`` (a ``.pdmodel`` suffix is dropped)."""
    p = os.fspath(path)
    if p.endswith(".pdmodel"):
        p = p[: -len(".pdmodel")]
    if not os.path.basename(p):
        raise ValueError(
            f"paddle.jit.save/load: the path must be dirname/file_prefix, got {p!r} (its file "
            "prefix is empty)"
        )
    return p


def _read_torch_style(f: Any, extra: Optional[dict[str, Any]]) -> Any:
    from .serialization import load as load_file

    data = load_file(f)
    if not isinstance(data, dict) or _KEY not in data:
        raise ValueError(
            "jit.load: the file is a ferrograd.save file, not a program saved by jit.save"
        )
    if extra is not None:
        files = data.get("extra_files") or {}
        for k in list(extra):
            if k in files:
                extra[k] = files[k].encode("latin-1")
    return data[_KEY], data["params"]


def _refuse_foreign_zip(f: Any, where: str) -> None:
    """A TorchScript archive (a zip without ferrograd's manifest) is refused by name."""
    try:
        names = zipfile.ZipFile(f).namelist()
    except zipfile.BadZipFile:
        raise ValueError(f"jit.load: {where} is not a file saved by ferrograd's jit.save") from None
    finally:
        if hasattr(f, "seek"):
            f.seek(0)
    if not any(n.startswith("__ferrograd__") for n in names):
        if any(n.endswith(("data.pkl", "constants.pkl")) or "/code/" in n for n in names):
            raise ValueError(
                f"jit.load: {where} is a PyTorch TorchScript archive, which ferrograd cannot "
                "read (it runs no TorchScript); export the model's weights with "
                "torch.save(model.state_dict(), ...) in PyTorch, build the model in ferrograd "
                "and load them, then save it with ferrograd's torch.jit.save"
            )
        raise ValueError(f"jit.load: {where} is not a file saved by ferrograd's jit.save")


def load(path: Any, *args: Any, **configs: Any) -> Any:
    """``paddle.jit.load(path)`` / ``torch.jit.load(f, map_location=None,
    _extra_files=None)``: the saved program as a ``TranslatedLayer``."""
    from .jit_translated import TranslatedLayer

    extra = configs.pop("_extra_files", None)
    for key in configs:
        if key not in ("map_location", "model_filename", "params_filename"):
            raise ValueError(f"jit.load: the config {key!r} is not supported")
    if hasattr(path, "read"):
        data = path.read()
        _refuse_foreign_zip(io.BytesIO(data), "the file object")
        text, params = _read_torch_style(io.BytesIO(data), extra)
    else:
        p = os.fspath(path)
        if os.path.isfile(p) and not p.endswith(".pdmodel"):
            _refuse_foreign_zip(p, repr(p))
            text, params = _read_torch_style(p, extra)
        else:
            prefix = _prefix(p)
            model, weights = prefix + ".pdmodel", prefix + ".pdiparams"
            if not os.path.exists(model):
                raise FileNotFoundError(
                    f"jit.load: neither the file {p!r} nor {model!r} exists (paddle.jit.save "
                    "writes <prefix>.pdmodel and <prefix>.pdiparams)"
                )
            with open(model, "rb") as fh:
                raw = fh.read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = ""
            if not os.path.exists(weights):
                raise FileNotFoundError(f"jit.load: {weights!r} (the parameters) does not exist")
            from .serialization import load as load_file

            params = None if not text else load_file(weights)
    try:
        program = json.loads(text)
    except ValueError:
        program = None
    from .static.export import FORMAT, VERSION

    if not isinstance(program, dict) or program.get("format") != FORMAT:
        raise ValueError(
            "jit.load: not a program saved by ferrograd's jit.save (ferrograd writes its "
            "program as JSON; Paddle's protobuf .pdmodel and PyTorch's TorchScript are not "
            "read): save the layer with ferrograd's jit.save"
        )
    if program.get("version") != VERSION:
        raise ValueError(
            f"jit.load: the program has format version {program.get('version')}, this "
            f"ferrograd reads version {VERSION}"
        )
    return TranslatedLayer(program, dict(params or {}))


__all__ = ["InputSpec", "load", "note_inputs", "recorded_inputs", "save"]
