"""``ferrograd.save(obj, path)`` / ``ferrograd.load(path)``: state dicts in a NumPy
``.npz`` file, never pickle.

Format (readable with ``numpy.load(path, allow_pickle=False)`` alone):

* every tensor or array in ``obj`` is one array member named ``t0``, ``t1``, ...;
* the member ``__ferrograd__`` is a UTF-8 JSON document (stored as a uint8 array) that
  describes the structure: ``{"format": "ferrograd.npz", "version": 1, "root": NODE}``
  where a NODE is one of

  - ``{"kind": "tensor", "key": "t3", "dtype": "float32", "requires_grad": false}``
  - ``{"kind": "ndarray", "key": "t4"}``
  - ``{"kind": "dict", "items": [[KEY, NODE], ...]}`` with KEY ``["str", "w"]`` or
    ``["int", 0]`` (dict keys of other types are refused)
  - ``{"kind": "list", "items": [NODE, ...]}`` and ``{"kind": "tuple", ...}``
  - ``{"kind": "value", "value": V}`` for ``None``, bools, ints, floats and strings.

bfloat16 tensors (which NumPy lacks) are stored as float32 and cast back on load.
Anything else (arbitrary objects) is a ``TypeError`` at save time.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, BinaryIO, Union

import numpy as np

from . import _core

Tensor = _core.Tensor

_MANIFEST = "__ferrograd__"
_FORMAT = "ferrograd.npz"
_VERSION = 1

PathLike = Union[str, "os.PathLike[str]", BinaryIO]


class _Writer:
    """Turns an object tree into a JSON node tree plus a dict of arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def _store(self, array: np.ndarray) -> str:
        key = f"t{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(array)
        return key

    def node(self, obj: Any, where: str) -> dict:
        if isinstance(obj, Tensor):
            dtype = obj.dtype.name
            t = obj.detach()
            if dtype == "bfloat16":
                t = t.astype("float32")
            return {
                "kind": "tensor",
                "key": self._store(t.numpy()),
                "dtype": dtype,
                "requires_grad": bool(obj.requires_grad),
            }
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                raise TypeError(f"save: {where} is an object array, which needs pickle")
            return {"kind": "ndarray", "key": self._store(obj)}
        if isinstance(obj, dict):
            items = []
            for k, v in obj.items():
                if isinstance(k, bool) or not isinstance(k, (str, int)):
                    raise TypeError(
                        f"save: dict keys must be str or int, got {type(k).__name__} at {where}"
                    )
                tag = "str" if isinstance(k, str) else "int"
                items.append([[tag, k], self.node(v, f"{where}[{k!r}]")])
            return {"kind": "dict", "items": items}
        if isinstance(obj, (list, tuple)):
            kind = "list" if isinstance(obj, list) else "tuple"
            return {
                "kind": kind,
                "items": [self.node(v, f"{where}[{i}]") for i, v in enumerate(obj)],
            }
        if obj is None or isinstance(obj, (bool, int, str)):
            return {"kind": "value", "value": obj}
        if isinstance(obj, float):
            # JSON has no inf/nan: keep them as strings
            if math.isfinite(obj):
                return {"kind": "value", "value": obj}
            return {"kind": "float", "value": repr(obj)}
        if isinstance(obj, np.generic):
            return self.node(obj.item(), where)
        raise TypeError(
            f"save: cannot store {type(obj).__name__} at {where}; ferrograd.save takes "
            f"tensors, arrays, numbers, strings, None and dicts/lists/tuples of them "
            f"(no pickle)"
        )


def save(obj: Any, path: PathLike, protocol: Any = None, **kwargs: Any) -> None:
    """Saves ``obj`` (a state dict: tensors, arrays, numbers, strings, None, nested in
    dicts/lists/tuples) to ``path`` as an ``.npz`` file. ``path`` is used as given (no
    suffix is added); a binary file object works too."""
    writer = _Writer()
    root = writer.node(obj, "obj")
    manifest = json.dumps({"format": _FORMAT, "version": _VERSION, "root": root})
    arrays = dict(writer.arrays)
    arrays[_MANIFEST] = np.frombuffer(manifest.encode("utf-8"), dtype=np.uint8)
    if hasattr(path, "write"):
        np.savez(path, **arrays)  # type: ignore[arg-type]
        return
    with open(os.fspath(path), "wb") as f:  # type: ignore[arg-type]
        np.savez(f, **arrays)  # type: ignore[arg-type]


def _build(node: dict, arrays: Any) -> Any:
    kind = node.get("kind")
    if kind == "tensor":
        t = _core.tensor(arrays[node["key"]])
        if t.dtype.name != node["dtype"]:
            t = t.astype(node["dtype"])
        if node.get("requires_grad"):
            t.requires_grad_(True)
        return t
    if kind == "ndarray":
        return arrays[node["key"]]
    if kind == "dict":
        out = {}
        for (tag, k), v in node["items"]:
            out[int(k) if tag == "int" else str(k)] = _build(v, arrays)
        return out
    if kind == "list":
        return [_build(v, arrays) for v in node["items"]]
    if kind == "tuple":
        return tuple(_build(v, arrays) for v in node["items"])
    if kind == "value":
        return node["value"]
    if kind == "float":
        return float(node["value"])
    raise ValueError(f"load: unknown node kind {kind!r} in the file's manifest")


def load(path: PathLike, map_location: Any = None, weights_only: Any = None, **kwargs: Any) -> Any:
    """Loads what ``save`` wrote: tensors come back as Tensors (``requires_grad`` as
    saved), the structure as saved. Reads with ``allow_pickle=False``."""
    if map_location not in (None, "cpu") and not callable(map_location):
        raise ValueError(f"load: map_location={map_location!r}; ferrograd runs on the CPU only")
    source = path if hasattr(path, "read") else os.fspath(path)  # type: ignore[arg-type]
    try:
        archive = np.load(source, allow_pickle=False)
    except ValueError as e:
        raise ValueError(f"load: {path!r} is not a ferrograd .npz file ({e})") from e
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"load: {path!r} holds a single .npy array, not a ferrograd .npz file")
    with archive as arrays:
        if _MANIFEST not in arrays.files:
            raise ValueError(
                f"load: {path!r} has no {_MANIFEST} member; it was not written by ferrograd.save"
            )
        manifest = json.loads(bytes(arrays[_MANIFEST]).decode("utf-8"))
        if manifest.get("format") != _FORMAT or manifest.get("version", 0) > _VERSION:
            raise ValueError(
                f"load: {path!r} holds format {manifest.get('format')!r} version "
                f"{manifest.get('version')!r}; this ferrograd reads {_FORMAT} up to {_VERSION}"
            )
        return _build(manifest["root"], arrays)


__all__ = ["save", "load"]
