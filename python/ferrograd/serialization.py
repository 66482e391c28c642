"""``ferrograd.save(obj, path)`` / ``ferrograd.load(path)``: state dicts in a NumPy
``.npz`` file described by a JSON manifest; whole models and other objects pickled, and
unpickled only by ``load(path, weights_only=False)``.

Format (readable with ``numpy.load(path, allow_pickle=False)`` alone):

* every memory (storage) that a saved tensor lies in is stored once, whole, as a 1-D array
  member named ``t0``, ``t1``, ... (as PyTorch's ``torch.save`` stores each storage once);
  every NumPy array in ``obj`` is one array member too;
* the member ``__ferrograd__`` is a UTF-8 JSON document (stored as a uint8 array) that
  describes the structure: ``{"format": "ferrograd.npz", "version": 2, "root": NODE}``
  where a NODE is one of

  - ``{"kind": "tensor", "storage": "t3", "dtype": "float32", "shape": [2, 3],
    "strides": [1, 2], "offset": 0, "requires_grad": false, "object": 0}``: the tensor's
    elements in its storage's member, as sizes, strides (in elements, negative ones
    allowed) and the offset of its first element; with ``"parameter": true`` for an
    ``nn.Parameter`` (loaded back as one, as PyTorch does). Nodes with one ``object``
    number were one tensor object (saved twice: tied weights) and load as one object. Tensors that shared memory when saved name one
    storage and share memory again when loaded; each keeps its strides (a transposed or an
    expanded tensor loads as such a view). Version 1 files (``{"kind": "tensor", "key":
    "t3", "dtype": ..., "requires_grad": ...}``, each tensor its own contiguous array)
    load as before.
  - ``{"kind": "ndarray", "key": "t4"}``
  - ``{"kind": "dict", "items": [[KEY, NODE], ...]}`` with KEY ``["str", "w"]`` or
    ``["int", 0]`` (dict keys of other types are refused), and ``"ordered": true`` when
    saved from an ``OrderedDict`` (loaded back as one in PyTorch code, as a ``dict`` in
    Paddle code, as the peers do); ``"metadata": [[PREFIX, {NAME: VALUE}], ...]`` when
    it had a ``_metadata`` attribute (``state_dict()``'s per-module versions), set again
    on the ``OrderedDict`` (values None, bools, ints, finite floats, strings; other
    metadata makes the dict a pickle node)
  - ``{"kind": "list", "items": [NODE, ...]}`` and ``{"kind": "tuple", ...}``
  - ``{"kind": "value", "value": V}`` for ``None``, bools, ints, floats and strings.
  - ``{"kind": "sparse", "layout": "sparse_coo", "shape": [...], "coalesced": false,
    "requires_grad": false, "parts": [NODE, ...]}`` for a sparse tensor (docs/sparse.md):
    the parts are tensor nodes, ``[indices, values]`` for COO and ``[compressed_indices,
    plain_indices, values]`` for the compressed layouts; loading re-validates them.

  - ``{"kind": "pickle", "key": "p0", "type": "__main__.Net", "tensors": [NODE, ...]}``
    when ``obj`` holds anything else (a ``Module``, an optimizer, any user class, a set,
    complex numbers, an object array, a dict with other keys): then all of ``obj`` is
    pickled, as ``torch.save`` pickles it (so objects shared by its parts stay shared),
    into the uint8 member ``p0``; its tensors, Parameters and sparse tensors are not in the
    pickle but are the tensor / sparse nodes of ``tensors`` (storages written once, tied
    weights one object, strides kept), the pickle holding their indices (see
    ``_pickled_objects``). ``type`` names the first class that needed pickle, for
    messages. ``load`` refuses such a file with ``pickle.UnpicklingError`` unless given
    ``weights_only=False`` (PyTorch >= 2.6's rule): unpickling can run arbitrary code.

A bfloat16 storage (NumPy has no bfloat16) is stored as its bits, a uint16 array (version 1
stored bfloat16 tensors as float32). State dicts are written as before pickle nodes existed.
What pickle itself cannot store (a lambda) is a ``TypeError`` at save time.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import zipfile
from collections import OrderedDict
from typing import Any, BinaryIO, Union

import numpy as np

from . import _core, _npz_reader, _pickled_objects
from ._dialect import caller_dialect

Tensor = _core.Tensor

_MANIFEST = _npz_reader.MANIFEST
_FORMAT = _npz_reader.FORMAT
_VERSION = _npz_reader.VERSION

PathLike = Union[str, "os.PathLike[str]", BinaryIO]


class _Writer:
    """Turns an object tree into a JSON node tree plus a dict of arrays."""

    def __init__(self, pickle_module: Any = pickle, protocol: Any = None) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.pickle_module, self.protocol = pickle_module, protocol
        # every tensor written (temporaries included), kept alive while saving so that
        # no other tensor can take its id() in ``objects``
        self.kept: list[Any] = []
        # storage identity -> (member key, a tensor on it); the tensor keeps the storage
        # alive while saving, so no temporary's memory can be reused under the same identity
        self.storages: dict[int, tuple[str, Tensor]] = {}
        # id() of each tensor object written -> its number ("object" in its node)
        self.objects: dict[int, int] = {}

    def keep(self, obj: Any) -> None:
        """Keeps ``obj`` alive until the file is written."""
        self.kept.append(obj)

    def _store(self, array: np.ndarray) -> str:
        key = f"t{len(self.arrays)}"
        # (np.ascontiguousarray would turn a 0-d array into shape (1,))
        self.arrays[key] = np.asarray(array, order="C")
        return key

    def _storage(self, t: Tensor) -> str:
        """The member holding ``t``'s whole memory, written the first time it is seen."""
        ident, length = t._storage_key()
        seen = self.storages.get(ident)
        if seen is not None:
            return seen[0]
        flat = t._storage_tensor([length], [1], 0)
        if flat.dtype.name == "bfloat16":
            array = np.asarray(flat.view(_core.int16)).view(np.uint16)
        else:
            array = np.array(flat, copy=True)
        key = self._store(array)
        self.storages[ident] = (key, t)
        return key

    def node(self, obj: Any, where: str) -> dict:
        if isinstance(obj, Tensor):
            tnode: dict = {
                "kind": "tensor",
                "storage": self._storage(obj),
                "dtype": obj.dtype.name,
                "shape": list(obj.shape),
                "strides": list(obj.stride()),
                "offset": obj.storage_offset(),
                "requires_grad": bool(obj.requires_grad),
            }
            if _is_parameter(obj):
                tnode["parameter"] = True
            # one object saved twice (tied weights) loads as one object, as pickle's memo
            # makes torch.load give it; kept alive so that no temporary (a sparse tensor's
            # detached parts) can take its id() later in the save
            tnode["object"] = self.objects.setdefault(id(obj), len(self.objects))
            self.keep(obj)
            return tnode
        from .sparse._base import SparseTensor

        if isinstance(obj, SparseTensor):
            return self._sparse(obj, where)
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                return self._pickle(obj, where)
            return {"kind": "ndarray", "key": self._store(obj)}
        if isinstance(obj, dict):
            if not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in obj):
                return self._pickle(obj, where)  # the manifest's keys are str or int
            meta = _state_metadata(obj)
            if meta is False:  # a _metadata the manifest cannot hold: pickled, as torch
                return self._pickle(obj, where)
            items = []
            for k, v in obj.items():
                tag = "str" if isinstance(k, str) else "int"
                items.append([[tag, k], self.node(v, f"{where}[{k!r}]")])
            node: dict = {"kind": "dict", "items": items}
            if isinstance(obj, OrderedDict):
                node["ordered"] = True  # a state_dict: torch.load gives an OrderedDict back
            if meta is not None:
                node["metadata"] = meta
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
        return self._pickle(obj, where)

    def _pickle(self, obj: Any, where: str, reason: Any = None) -> dict:
        """A ``pickle`` node: ``obj`` pickled, its tensors as nodes of this file;
        ``reason`` (default ``obj``), the first thing in it that needs pickle, names the
        class in the node's ``type``."""
        return _pickled_objects.pickle_node(
            self, obj, where, self.pickle_module, self.protocol, obj if reason is None else reason
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
    """Saves ``obj`` to ``path`` as an ``.npz`` file. ``path`` is used as given (no
    suffix is added); a binary file object works too.

    A state dict (tensors, sparse tensors, arrays, numbers, strings, None, nested in
    dicts/lists/tuples) is described by the JSON manifest alone; any other object (a whole
    ``Module``, an optimizer...) is pickled with its tensors stored as the file's tensors
    (``protocol`` / ``pickle_protocol``, default ``pickle.DEFAULT_PROTOCOL``;
    ``pickle_module``), and loads only with ``load(path, weights_only=False)``. What
    pickle cannot store (a lambda) is a ``TypeError`` naming it."""
    module, protocol = _pickled_objects.pickle_settings(protocol, kwargs)
    writer = _Writer(module, protocol)
    try:
        unfit = _pickled_objects.unfit(obj)
    except RecursionError:  # nested too deeply, or a list holding itself: pickle copes
        unfit = (obj,)
    # anything the manifest cannot hold makes the whole object one pickle, as torch.save
    # pickles it: objects shared by its parts (an optimizer and its scheduler) stay shared
    root = writer._pickle(obj, "obj", unfit[0]) if unfit else writer.node(obj, "obj")
    manifest = json.dumps({"format": _FORMAT, "version": _VERSION, "root": root})
    arrays = dict(writer.arrays)
    arrays[_MANIFEST] = np.frombuffer(manifest.encode("utf-8"), dtype=np.uint8)
    if hasattr(path, "write"):
        np.savez(path, **arrays)  # type: ignore[arg-type]
        return
    with open(os.fspath(path), "wb") as f:  # type: ignore[arg-type]
        np.savez(f, **arrays)  # type: ignore[arg-type]


def _state_metadata(obj: dict) -> Any:
    """A state dict's ``_metadata`` (PyTorch's per-module ``{"version": 1}`` entries) as
    the manifest's ``[[prefix, {name: value}], ...]``; None when ``obj`` has none, False
    when it is not a dict of str to dicts of str to None / bool / int / finite float /
    str."""
    meta = getattr(obj, "_metadata", None)
    if meta is None:
        return None
    if not isinstance(meta, dict):
        return False
    out = []
    for prefix, entry in meta.items():
        if not isinstance(prefix, str) or not isinstance(entry, dict):
            return False
        for k, v in entry.items():
            if not isinstance(k, str) or not isinstance(v, (type(None), bool, int, float, str)):
                return False
            if isinstance(v, float) and not math.isfinite(v):
                return False
        out.append([prefix, dict(entry)])
    return out


def _is_parameter(obj: Any) -> bool:
    from .nn.parameter import Parameter

    return isinstance(obj, Parameter)


def _make_tensor(array: np.ndarray, dtype: str, requires_grad: bool, parameter: bool) -> Any:
    """A version 1 tensor: its own contiguous array, cast to ``dtype``."""
    t = _core.tensor(array)
    if t.dtype.name != dtype:
        t = t.astype(dtype)
    return _finish(t, requires_grad, parameter)


def _make_storage(array: np.ndarray, dtype: str) -> Any:
    """A version 2 storage: the 1-D member of exactly ``dtype``'s NumPy type (bfloat16:
    its bits as uint16) as a 1-D tensor that the storage's tensors share."""
    want = _npz_reader.STORAGE_NUMPY_TYPES.get(dtype)
    if want is None:
        raise ValueError(f"unknown dtype {dtype!r}")
    if array.ndim != 1 or array.dtype != np.dtype(want):
        raise ValueError(
            f"its storage is a {array.dtype} array of shape {array.shape}, not a 1-D {want} "
            f"array of {dtype} elements"
        )
    if dtype == "bfloat16":
        return _core.tensor(array.view(np.int16)).view(_core.bfloat16)
    return _core.tensor(array)


def _make_view(
    storage: Any, shape: list, strides: list, offset: int, requires_grad: bool, parameter: bool
) -> Any:
    """A version 2 tensor: ``shape`` / ``strides`` / ``offset`` over ``storage``, checked
    to lie inside it (``RuntimeError`` otherwise, which the reader turns into its
    ``ValueError``)."""
    return _finish(storage._storage_tensor(shape, strides, offset), requires_grad, parameter)


def _finish(t: Any, requires_grad: bool, parameter: bool) -> Any:
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
    saved), the structure as saved. Every malformed file is a ``ValueError`` naming what
    is wrong, found before anything large is allocated (see docs/reliability.md);
    ``max_bytes`` caps the total size of the arrays, pickled objects included (for files
    from untrusted sources).

    A file holding a pickled object (``save`` of a whole ``Module``, an optimizer...) is
    refused with ``pickle.UnpicklingError`` unless ``weights_only=False`` is passed (as
    PyTorch >= 2.6 does; also in Paddle code, whose ``paddle.load`` has no such switch),
    since unpickling can run arbitrary code: pass it only for files from a trusted
    source. As ``torch.load``, a ``pickle_module`` given without ``weights_only`` unpickles
    with it; ``encoding`` is passed to the unpickler."""
    if not _on_cpu(map_location):
        raise ValueError(f"load: map_location={map_location!r}; ferrograd runs on the CPU only")
    weights_only, pickle_module = _pickled_objects.load_settings(weights_only, kwargs)
    name = repr(path) if not hasattr(path, "read") else "the file object"
    paddle = caller_dialect() == "paddle"
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
                reader = _npz_reader.Reader(
                    zf, size, max_bytes, _make_tensor, _make_sparse, _make_storage, _make_view
                )
                reader.ordered = not paddle
                if not weights_only:
                    encoding = kwargs.get("encoding", "utf-8")
                    reader.unpickle = lambda tensors: _pickled_objects.unpickler(
                        tensors, _npz_reader._Bad, pickle_module, encoding
                    )
                return reader.build(reader.manifest_root())
            except _npz_reader._Bad as e:
                raise ValueError(f"load: {name} is not a valid ferrograd .npz file: {e}") from None
            except _npz_reader.PickleRefused as e:
                raise _pickled_objects.refusal(name, e.where, e.type_name, paddle) from None
    finally:
        if opened is not None:
            opened.close()


__all__ = ["save", "load"]
