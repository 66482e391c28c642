"""``ferrograd.save(obj, path)`` / ``ferrograd.load(path)``: state dicts in a NumPy
``.npz`` file, never pickle.

Format (readable with ``numpy.load(path, allow_pickle=False)`` alone):

* every tensor or array in ``obj`` is one array member named ``t0``, ``t1``, ...;
* the member ``__ferrograd__`` is a UTF-8 JSON document (stored as a uint8 array) that
  describes the structure: ``{"format": "ferrograd.npz", "version": 1, "root": NODE}``
  where a NODE is one of

  - ``{"kind": "tensor", "key": "t3", "dtype": "float32", "requires_grad": false}``, with
    ``"parameter": true`` for an ``nn.Parameter`` (loaded back as one, as PyTorch does)
  - ``{"kind": "ndarray", "key": "t4"}``
  - ``{"kind": "dict", "items": [[KEY, NODE], ...]}`` with KEY ``["str", "w"]`` or
    ``["int", 0]`` (dict keys of other types are refused), and ``"ordered": true`` when
    saved from an ``OrderedDict`` (loaded back as one in PyTorch code, as a ``dict`` in
    Paddle code, as the peers do)
  - ``{"kind": "list", "items": [NODE, ...]}`` and ``{"kind": "tuple", ...}``
  - ``{"kind": "value", "value": V}`` for ``None``, bools, ints, floats and strings.
  - ``{"kind": "sparse", "layout": "sparse_coo", "shape": [...], "coalesced": false,
    "requires_grad": false, "parts": [NODE, ...]}`` for a sparse tensor (docs/sparse.md):
    the parts are tensor nodes, ``[indices, values]`` for COO and ``[compressed_indices,
    plain_indices, values]`` for the compressed layouts; loading re-validates them.

bfloat16 tensors (which NumPy lacks) are stored as float32 and cast back on load.
Anything else (arbitrary objects) is a ``TypeError`` at save time.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections import OrderedDict
from typing import Any, BinaryIO, Union

import numpy as np

from . import _core, _npz_reader
from ._dialect import caller_dialect

Tensor = _core.Tensor

_MANIFEST = _npz_reader.MANIFEST
_FORMAT = _npz_reader.FORMAT
_VERSION = _npz_reader.VERSION

PathLike = Union[str, "os.PathLike[str]", BinaryIO]


class _Writer:
    """Turns an object tree into a JSON node tree plus a dict of arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def _store(self, array: np.ndarray) -> str:
        key = f"t{len(self.arrays)}"
        # (np.ascontiguousarray would turn a 0-d array into shape (1,))
        self.arrays[key] = np.asarray(array, order="C")
        return key

    def node(self, obj: Any, where: str) -> dict:
        if isinstance(obj, Tensor):
            dtype = obj.dtype.name
            t = obj.detach()
            if dtype == "bfloat16":
                t = t.astype("float32")
            tnode: dict = {
                "kind": "tensor",
                "key": self._store(t.numpy()),
                "dtype": dtype,
                "requires_grad": bool(obj.requires_grad),
            }
            if _is_parameter(obj):
                tnode["parameter"] = True
            return tnode
        from .sparse._base import SparseTensor

        if isinstance(obj, SparseTensor):
            return self._sparse(obj, where)
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
            node: dict = {"kind": "dict", "items": items}
            if isinstance(obj, OrderedDict):
                node["ordered"] = True  # a state_dict: torch.load gives an OrderedDict back
            return node
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

    def _sparse(self, obj: Any, where: str) -> dict:
        from .sparse._coo import SparseCooTensor
        from .sparse._csr import SparseCsrTensor

        if isinstance(obj, SparseCooTensor):
            parts = [obj.indices(), obj.values()]
        elif isinstance(obj, SparseCsrTensor):
            parts = [obj.crow_indices(), obj.col_indices(), obj.values()]
        else:  # CSC / BSR / BSC / batched CSR: compressed and plain indices, values
            parts = [obj._cidx, obj._pidx, obj.values()]
        return {
            "kind": "sparse",
            "layout": repr(obj.layout).replace("ferrograd.", ""),
            "shape": list(obj.shape),
            "coalesced": bool(isinstance(obj, SparseCooTensor) and obj.is_coalesced()),
            "requires_grad": bool(obj.requires_grad),
            "parts": [self.node(p.detach(), f"{where}.parts[{i}]") for i, p in enumerate(parts)],
        }


def _make_sparse(node: dict, parts: list) -> Any:
    """A sparse tensor from a ``sparse`` node, through the validating constructors."""
    from . import sparse
    from .sparse import _layout
    from .sparse._create_compressed import sparse_compressed_tensor

    layout = node.get("layout")
    shape = node.get("shape")
    if not isinstance(shape, list) or not all(isinstance(s, int) for s in shape):
        raise ValueError("its shape is not a list of ints")
    grad = bool(node.get("requires_grad"))
    if layout == "sparse_coo" and len(parts) == 2:
        return sparse.sparse_coo_tensor(
            parts[0], parts[1], shape, requires_grad=grad,
            is_coalesced=bool(node.get("coalesced")),
        )  # fmt: skip
    names = ("sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")
    kind = getattr(_layout, layout) if layout in names else None
    if kind is None or len(parts) != 3:
        raise ValueError(f"unknown sparse layout {layout!r} with {len(parts)} parts")
    return sparse_compressed_tensor(
        parts[0], parts[1], parts[2], shape, layout=kind, requires_grad=grad
    )


def save(obj: Any, path: PathLike, protocol: Any = None, **kwargs: Any) -> None:
    """Saves ``obj`` (a state dict: tensors, sparse tensors, arrays, numbers, strings,
    None, nested in dicts/lists/tuples) to ``path`` as an ``.npz`` file. ``path`` is used as given (no
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


def _is_parameter(obj: Any) -> bool:
    from .nn.parameter import Parameter

    return isinstance(obj, Parameter)


def _make_tensor(array: np.ndarray, dtype: str, requires_grad: bool, parameter: bool) -> Any:
    t = _core.tensor(array)
    if t.dtype.name != dtype:
        t = t.astype(dtype)
    if parameter:
        from .nn.parameter import Parameter

        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _on_cpu(map_location: Any) -> bool:
    """Whether ``map_location`` (None, a device or its name, a callable, or a dict from
    saved to target devices, e.g. ``{"cuda:0": "cpu"}``) asks for nothing but the CPU,
    which is where every tensor loads."""
    if map_location is None or callable(map_location):
        return True
    if isinstance(map_location, dict):
        return all(_on_cpu(v) for v in map_location.values())
    return str(map_location).split(":")[0] == "cpu"


def load(
    path: PathLike,
    map_location: Any = None,
    weights_only: Any = None,
    *,
    max_bytes: int | None = None,
    **kwargs: Any,
) -> Any:
    """Loads what ``save`` wrote: tensors come back as Tensors (``requires_grad`` as
    saved), the structure as saved. Never unpickles. Every malformed file is a
    ``ValueError`` naming what is wrong, found before anything large is allocated (see
    docs/reliability.md); ``max_bytes`` caps the total size of the arrays (for files from
    untrusted sources)."""
    if not _on_cpu(map_location):
        raise ValueError(f"load: map_location={map_location!r}; ferrograd runs on the CPU only")
    name = repr(path) if not hasattr(path, "read") else "the file object"
    opened = None
    try:
        if hasattr(path, "read"):
            source: Any = path
            start = source.tell() if source.seekable() else 0
            size = source.seek(0, os.SEEK_END) - start if source.seekable() else 1 << 62
            if source.seekable():
                source.seek(start)
        else:
            opened = source = open(os.fspath(path), "rb")  # type: ignore[arg-type]  # noqa: SIM115
            size = os.fstat(source.fileno()).st_size
        try:
            zf = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as e:
            raise ValueError(f"load: {name} is not a ferrograd .npz file ({e})") from None
        with zf:
            try:
                reader = _npz_reader.Reader(zf, size, max_bytes, _make_tensor, _make_sparse)
                reader.ordered = caller_dialect() != "paddle"
                return reader.build(reader.manifest_root())
            except _npz_reader._Bad as e:
                raise ValueError(f"load: {name} is not a valid ferrograd .npz file: {e}") from None
    finally:
        if opened is not None:
            opened.close()


__all__ = ["save", "load"]
