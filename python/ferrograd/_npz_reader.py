"""The checked reader behind ``ferrograd.load``: opens a ``.npz`` archive, validates the
manifest and every array member against the archive *before* allocating anything, and
turns every malformed file into a ``ValueError`` that names what is wrong.

Rules (see docs/reliability.md, "Loading files: limits"):

* the archive must be a readable zip whose members are stored or deflated, each member's
  compressed size inside the file, its declared size no larger than deflate can produce
  from it (1032:1) — so a member cannot announce more than the file could hold;
* the manifest is at most ``MAX_MANIFEST_BYTES``, UTF-8 JSON, nested at most
  ``MAX_DEPTH`` levels, made of the documented node kinds only;
* every array member is read once: an array (version 1 tensor, NumPy array) member is
  referenced once (a manifest naming one big member 200 times does not make 200 copies),
  a storage member (version 2) is read and made a tensor once, however many tensors lie
  in it, and never also used as an array; each is a version 1-3 ``.npy`` of a
  non-object dtype whose header's shape and dtype account exactly for the member's
  declared size; a storage member is 1-D, of its tensors' dtype;
* a version 2 tensor's shape, strides and offset are ints whose elements all lie inside
  its storage (checked with exact arithmetic before the tensor is made);
* a tensor node's ``object`` number names one object: a second node with that number
  has its dtype and shape;
* a dict node's optional ``metadata`` (a state dict's ``_metadata``) is a list of
  ``[prefix, {name: value}]`` pairs with JSON scalar values;
* a ``pickle`` node names a uint8 member and lists tensor / sparse nodes; it is refused
  (``PickleRefused``) before anything of it is read unless the reader may unpickle, and
  then its tensors are built and checked as any others before the member is unpickled; a
  pickle that does not unpickle, or names a tensor it does not list, is malformed;
* the arrays together (pickle members included) are at most ``max_bytes`` bytes when a
  limit is given.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections import OrderedDict
from typing import Any, Callable, cast

import numpy as np

MANIFEST = "__ferrograd__"
FORMAT = "ferrograd.npz"
VERSION = 2
MAX_MANIFEST_BYTES = 64 << 20
MAX_DEPTH = 100
# deflate emits at least one bit per 258-byte match: no member inflates more than 1032:1
_MAX_DEFLATE_RATIO = 1032
_NODE_KINDS = ("tensor", "ndarray", "dict", "list", "tuple", "value", "float", "sparse", "pickle")
_VALUE_TYPES = (type(None), bool, int, float, str)
# each dtype's storage member type (NumPy has no bfloat16: its bits, as uint16)
STORAGE_NUMPY_TYPES = {
    "bool": "bool",
    "uint8": "uint8",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "float16": "float16",
    "bfloat16": "uint16",
    "float32": "float32",
    "float64": "float64",
    "complex64": "complex64",
    "complex128": "complex128",
}


class _Bad(ValueError):
    """A malformed file; ``load`` adds the path to the message."""


class PickleRefused(Exception):
    """A ``pickle`` node met by a reader that may not unpickle (``load`` without
    ``weights_only=False``); ``load`` turns it into its ``pickle.UnpicklingError``."""

    def __init__(self, where: str, type_name: Any) -> None:
        super().__init__(where)
        self.where, self.type_name = where, type_name


def _member_checks(zf: zipfile.ZipFile, archive_size: int) -> dict[str, zipfile.ZipInfo]:
    infos: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        if info.filename in infos:
            raise _Bad(f"the archive has two members named {info.filename!r}")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _Bad(
                f"member {info.filename!r} uses zip compression method {info.compress_type}; "
                f"ferrograd files are stored or deflated"
            )
        if info.compress_size > archive_size or info.header_offset > archive_size:
            raise _Bad(f"member {info.filename!r} claims to lie beyond the end of the file")
        limit = info.compress_size
        if info.compress_type == zipfile.ZIP_DEFLATED:
            limit = info.compress_size * _MAX_DEFLATE_RATIO + 1024
        if info.file_size > limit:
            raise _Bad(
                f"member {info.filename!r} declares {info.file_size} bytes from "
                f"{info.compress_size} compressed bytes, more than its compression can produce"
            )
        infos[info.filename] = info
    return infos


def _read_manifest(zf: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo]) -> dict:
    key = MANIFEST + ".npy"
    if key not in infos:
        raise _Bad(f"it has no {MANIFEST} member; it was not written by ferrograd.save")
    if infos[key].file_size > MAX_MANIFEST_BYTES:
        raise _Bad(f"its manifest is {infos[key].file_size} bytes (at most {MAX_MANIFEST_BYTES})")
    raw = _read_array(zf, infos[key])
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise _Bad(f"its manifest is a {raw.dtype} array of shape {raw.shape}, not uint8 bytes")
    try:
        manifest = json.loads(raw.tobytes().decode("utf-8"))
    except UnicodeDecodeError as e:
        raise _Bad(f"its manifest is not UTF-8 ({e})") from None
    except RecursionError:
        raise _Bad("its manifest nests too deeply") from None
    except ValueError as e:  # json.JSONDecodeError
        raise _Bad(f"its manifest is not JSON ({e})") from None
    if not isinstance(manifest, dict):
        raise _Bad(f"its manifest is a JSON {type(manifest).__name__}, not an object")
    fmt, version = manifest.get("format"), manifest.get("version", 0)
    if fmt != FORMAT or not isinstance(version, int) or version > VERSION:
        raise _Bad(
            f"it holds format {fmt!r} version {version!r}; this ferrograd reads {FORMAT} "
            f"up to {VERSION}"
        )
    if "root" not in manifest:
        raise _Bad("its manifest has no root node")
    return manifest


def _array_header(f: Any, name: str) -> tuple[tuple, np.dtype, bool, int]:
    """Reads a member's .npy header: (shape, dtype, fortran_order, header length)."""
    try:
        version = np.lib.format.read_magic(f)
        if version not in ((1, 0), (2, 0), (3, 0)):
            raise ValueError(f"unknown .npy version {version}")
        read_header: Any = getattr(np.lib.format, f"read_array_header_{version[0]}_0", None)
        if version == (3, 0):  # same layout as 2.0, UTF-8 field names
            read_header = np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(f, max_header_size=1 << 20)
    except (ValueError, TypeError, SyntaxError, EOFError, OSError) as e:
        raise _Bad(f"member {name!r} is not a valid .npy array ({e})") from None
    if dtype.hasobject:
        raise _Bad(f"member {name!r} holds Python objects, which need pickle")
    return shape, dtype, fortran, f.tell()


def _read_array(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    name = info.filename
    try:
        with zf.open(info) as f:
            shape, dtype, fortran, header_len = _array_header(f, name)
            if not all(isinstance(d, int) and d >= 0 for d in shape):
                raise _Bad(f"member {name!r} declares shape {shape}")
            count = math.prod(shape)
            if count * dtype.itemsize != info.file_size - header_len:
                raise _Bad(
                    f"member {name!r} declares shape {shape} of {dtype} "
                    f"({count * dtype.itemsize} bytes) but holds {info.file_size - header_len}"
                )
            # allocated only now that the header agrees with the archive's declared size
            raw = np.empty(count * dtype.itemsize, dtype=np.uint8)
            # (zf.open gives a ZipExtFile, which has readinto; typeshed says IO[bytes])
            got = cast(Any, f).readinto(raw) if count else 0
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError) as e:
        raise _Bad(f"member {name!r} cannot be read ({e})") from None
    except RuntimeError as e:  # zipfile: encrypted member
        raise _Bad(f"member {name!r} cannot be read ({e})") from None
    if got != count * dtype.itemsize:
        raise _Bad(f"member {name!r} ends early")
    return raw.view(dtype).reshape(shape, order="F" if fortran else "C")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Reader:
    """Builds the object tree of an opened archive, checking each node."""

    def __init__(
        self,
        zf: zipfile.ZipFile,
        archive_size: int,
        max_bytes: int | None,
        make_tensor: Callable[[np.ndarray, str, bool, bool], Any],
        make_sparse: Callable[[dict, list], Any] | None = None,
        make_storage: Callable[[np.ndarray, str], Any] | None = None,
        make_view: Callable[[Any, list, list, int, bool, bool], Any] | None = None,
    ) -> None:
        self.zf = zf
        self.make_tensor = make_tensor
        self.make_sparse = make_sparse
        self.make_storage = make_storage
        self.make_view = make_view
        # storage member -> (its dtype, the tensor made from it)
        self.storages: dict[str, tuple[str, Any]] = {}
        # a version 2 tensor node's "object" number -> the tensor made for it
        self.objects: dict[int, Any] = {}
        self.infos = _member_checks(zf, archive_size)
        self.max_bytes = max_bytes
        # dicts saved from an OrderedDict come back as one (PyTorch's torch.load)
        self.ordered = True
        self.used: set[str] = set()
        self.total = 0
        # pickle nodes: None refuses them (PickleRefused); else a function of the node's
        # built tensors giving the function that unpickles its member
        self.unpickle: Callable[[list], Callable[[np.ndarray, str], Any]] | None = None

    def manifest_root(self) -> Any:
        return _read_manifest(self.zf, self.infos)["root"]

    def array(self, key: Any, where: str) -> np.ndarray:
        if not isinstance(key, str) or key == MANIFEST:
            raise _Bad(f"{where} names array {key!r}, which is not an array member")
        if key in self.used:
            raise _Bad(f"{where} names array {key!r} a second time; each array is stored once")
        info = self.infos.get(key + ".npy")
        if info is None:
            raise _Bad(f"{where} names array {key!r}, which the archive does not hold")
        self.used.add(key)
        self.total += info.file_size
        if self.max_bytes is not None and self.total > self.max_bytes:
            raise _Bad(
                f"its arrays hold more than max_bytes={self.max_bytes} bytes (pass a larger "
                f"max_bytes to load it)"
            )
        return _read_array(self.zf, info)

    def storage(self, key: Any, dtype: str, where: str) -> Any:
        """The tensor made from storage member ``key``, read and made once."""
        seen = self.storages.get(key) if isinstance(key, str) else None
        if seen is not None:
            if seen[0] != dtype:
                raise _Bad(f"{where} reads storage {key!r} as {dtype}, another tensor as {seen[0]}")
            return seen[1]
        array = self.array(key, where)
        if self.make_storage is None:
            raise _Bad(f"{where}: this reader makes no version 2 tensors")
        try:
            made = self.make_storage(array, dtype)
        except (TypeError, ValueError) as e:
            raise _Bad(f"tensor at {where} cannot be made ({e})") from None
        self.storages[key] = (dtype, made)
        return made

    def view(self, node: dict, where: str) -> Any:
        """A version 2 tensor node: a layout over a storage member."""
        dtype = node.get("dtype")
        if not isinstance(dtype, str):
            raise _Bad(f"tensor at {where} has no dtype name")
        shape, strides, offset = node.get("shape"), node.get("strides"), node.get("offset")
        ints = (shape, strides)
        if not all(isinstance(v, list) and all(_is_int(i) for i in v) for v in ints) or not (
            _is_int(offset)
        ):
            raise _Bad(f"tensor at {where} has no int lists shape and strides and int offset")
        number = node.get("object")
        if number is not None and not _is_int(number):
            raise _Bad(f"tensor at {where} has object number {number!r}, not an int")
        storage = self.storage(node.get("storage"), dtype, where)
        if number in self.objects:
            seen = self.objects[number]
            if seen.dtype.name != dtype or list(seen.shape) != shape:
                raise _Bad(f"tensor at {where} is object {number}, saved with another layout")
            return seen
        assert self.make_view is not None  # self.storage checked the makers
        try:
            grad, param = bool(node.get("requires_grad")), bool(node.get("parameter"))
            made = self.make_view(
                storage, cast(list, shape), cast(list, strides), cast(int, offset), grad, param
            )
        except (TypeError, ValueError, RuntimeError, OverflowError) as e:
            raise _Bad(f"tensor at {where} cannot be made ({e})") from None
        if number is not None:
            self.objects[number] = made
        return made

    def pickled(self, node: dict, where: str, depth: int) -> Any:
        """A ``pickle`` node: refused unless unpickling is allowed; then its tensors are
        built (checked as every tensor node) and its member unpickled with them."""
        key, tensors, type_name = node.get("key"), node.get("tensors"), node.get("type")
        if not isinstance(key, str) or not isinstance(tensors, list):
            raise _Bad(f"pickle node at {where} has no member key and list of tensors")
        if not all(isinstance(t, dict) and t.get("kind") in ("tensor", "sparse") for t in tensors):
            raise _Bad(f"pickle node at {where} lists tensors that are not tensor nodes")
        if type_name is not None and not isinstance(type_name, str):
            raise _Bad(f"pickle node at {where} has type {type_name!r}, not a class name")
        if self.unpickle is None:
            raise PickleRefused(where, type_name)
        built = [self.build(t, f"{where}.tensors[{i}]", depth + 1) for i, t in enumerate(tensors)]
        raw = self.array(key, where)
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise _Bad(f"pickle node at {where} names a {raw.dtype} array of shape {raw.shape}")
        return self.unpickle(built)(raw, where)

    def build(self, node: Any, where: str = "root", depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise _Bad(f"its manifest nests deeper than {MAX_DEPTH} levels at {where}")
        if not isinstance(node, dict) or node.get("kind") not in _NODE_KINDS:
            kind = node.get("kind") if isinstance(node, dict) else type(node).__name__
            raise _Bad(f"unknown node kind {kind!r} at {where} in the file's manifest")
        kind = node["kind"]
        if kind == "tensor" and "storage" in node:
            return self.view(node, where)
        if kind in ("tensor", "ndarray"):
            array = self.array(node.get("key"), where)
            if kind == "ndarray":
                return array
            dtype = node.get("dtype")
            if not isinstance(dtype, str):
                raise _Bad(f"tensor at {where} has no dtype name")
            try:
                grad, param = bool(node.get("requires_grad")), bool(node.get("parameter"))
                return self.make_tensor(array, dtype, grad, param)
            except (TypeError, ValueError) as e:
                raise _Bad(f"tensor at {where} cannot be made ({e})") from None
        if kind == "sparse":
            parts = node.get("parts")
            if not isinstance(parts, list) or not all(
                isinstance(p, dict) and p.get("kind") == "tensor" for p in parts
            ):
                raise _Bad(f"sparse node at {where} has no list of tensor parts")
            built = [self.build(p, f"{where}.parts[{i}]", depth + 1) for i, p in enumerate(parts)]
            if self.make_sparse is None:
                raise _Bad(f"sparse node at {where}: this reader builds no sparse tensors")
            try:
                return self.make_sparse(node, built)
            except (TypeError, ValueError, IndexError, KeyError) as e:
                raise _Bad(f"sparse tensor at {where} cannot be made ({e})") from None
        if kind == "pickle":
            return self.pickled(node, where, depth)
        items = node.get("items")
        if kind in ("dict", "list", "tuple") and not isinstance(items, list):
            raise _Bad(f"{kind} node at {where} has no list of items")
        if kind == "dict":
            assert isinstance(items, list)  # checked just above
            out: dict = OrderedDict() if node.get("ordered") is True and self.ordered else {}
            for i, item in enumerate(items):
                if not (isinstance(item, list) and len(item) == 2):
                    raise _Bad(f"dict item {i} at {where} is not a [key, node] pair")
                key, value = item
                if not (isinstance(key, list) and len(key) == 2 and key[0] in ("str", "int")):
                    raise _Bad(f'dict key {key!r} at {where} is not ["str"|"int", value]')
                tag, k = key
                if (tag == "int") != (isinstance(k, int) and not isinstance(k, bool)) or (
                    tag == "str" and not isinstance(k, str)
                ):
                    raise _Bad(f"dict key {key!r} at {where} does not match its tag")
                out[k] = self.build(value, f"{where}[{k!r}]", depth + 1)
            meta = node.get("metadata")
            if meta is not None:
                parsed = _metadata(meta, where)
                if isinstance(out, OrderedDict):  # (a plain dict takes no attribute)
                    out._metadata = parsed  # type: ignore[attr-defined]
            return out
        if kind in ("list", "tuple"):
            assert isinstance(items, list)  # checked just above
            built = [self.build(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items)]
            return built if kind == "list" else tuple(built)
        value = node.get("value")
        if kind == "value":
            if not isinstance(value, _VALUE_TYPES):
                raise _Bad(f"value at {where} is a JSON {type(value).__name__}")
            return value
        if value not in ("inf", "-inf", "nan"):
            raise _Bad(f"float at {where} is {value!r}, not 'inf', '-inf' or 'nan'")
        return float(value)


def _metadata(meta: Any, where: str) -> OrderedDict:
    """A dict node's ``metadata`` (``[[prefix, {name: value}], ...]``) as the state
    dict's ``_metadata``; ``_Bad`` when it has another form."""
    if not isinstance(meta, list):
        raise _Bad(f"metadata at {where} is not a list")
    out: OrderedDict = OrderedDict()
    for item in meta:
        ok = isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
        entry = item[1] if ok else None
        if (
            not ok
            or not isinstance(entry, dict)
            or not all(isinstance(v, _VALUE_TYPES) for v in entry.values())
        ):
            raise _Bad(f"metadata item {item!r:.80} at {where} is not [prefix, {{name: value}}]")
        out[item[0]] = dict(entry)
    return out
