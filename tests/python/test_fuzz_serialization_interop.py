"""Differential fuzzer for checkpoints and NumPy interop.

Serialization: ``torch.save`` / ``torch.load``, ``paddle.save`` / ``paddle.load`` and
``ferrograd.serialization`` round trips of random nested structures (dicts with str/int
keys, OrderedDicts, lists, tuples) of tensors of every dtype (bool, uint8, int8, int16,
int32, int64, float16, bfloat16, float32, float64, complex64, complex128; random bit
patterns, NaN payloads included), 0-d, size-0 and large-ish, seen through random views
(transposed, stepped or reversed slices, expanded), several views of one base, tensors
that require grad, NumPy arrays and Python scalars / strings / None; to files in
``tmp_path`` and to ``io.BytesIO``, with the original deleted and garbage-collected before
loading, each file loaded twice, ``map_location`` / ``weights_only`` passed. Values are
compared bit for bit (bytes through NumPy ``.view``), with dtype, shape, ``requires_grad``
and the container types of docs/nn-optim.md ("Checkpoint format"). Model and optimizer
state dicts round trip and keep training identically.

NumPy interop, against docs/interop.md, docs/reliability.md ("NumPy interop and aliasing")
and docs/dialects.md (``x.numpy()``): ``from_numpy`` / ``as_tensor`` share memory both ways
(C, Fortran, stepped, reversed, broadcast, 0-d, size-0, read-only arrays), ``tensor`` /
``to_tensor`` copy (big-endian arrays too), ``t.numpy()`` shares in PyTorch code and copies
in Paddle code, ``np.asarray`` / ``memoryview`` / DLPack share, ``np.array`` copies, objects
with ``__array__`` / ``__array_interface__`` convert; object, structured, string and
datetime arrays are a ``TypeError``. A NumPy alias never changes a gradient: exports of
memory autograd needs are read-only (or refused), and memory a writable alias can reach is
saved for backward as a copy; gradients are compared with a float64 reference and
``gradcheck``.

This module is PyTorch code (``torch = fg`` below, docs/dialects.md); the Paddle calls run
in functions compiled with a ``paddle`` global only (``PADDLE`` below), so the dialect rule
reads them as Paddle code. Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import gc
import io
import math
import pathlib
import pickle
import struct
import warnings
from collections import OrderedDict

import ferrograd as fg
import ferrograd.serialization as fg_serialization
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from fuzz_support import CALLS, FUZZ
from hypothesis import given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's
nn = fg.nn

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`), so
# ferrograd answers them as Paddle (docs/dialects.md): plain dicts from `load`, copies
# from `numpy()`.
_PADDLE_SRC = """
def save(obj, f, **kw):
    paddle.save(obj, f, **kw)

def load(f, **kw):
    return paddle.load(f, **kw)

def numpy(t):
    return t.numpy()

def to_tensor(a, **kw):
    return paddle.to_tensor(a, **kw)
"""
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_paddle_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)

NUMPY_DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "complex64", "complex128",
]  # fmt: skip
ALL_DTYPES = NUMPY_DTYPES + ["bfloat16"]
GRAD_DTYPES = {"float16", "bfloat16", "float32", "float64", "complex64", "complex128"}
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, 5e-324, 65504.0, 6e-8, 1e300]
BUFFER_FORMAT = {
    "bool": "?", "uint8": "B", "int8": "b", "int16": "h", "int32": "i", "int64": "q",
    "float16": "e", "float32": "f", "float64": "d", "complex64": "Zf", "complex128": "Zd",
}  # fmt: skip


# ---------------------------------------------------------------- values and bits
def random_values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """`n` values of `dtype` as a 1-D NumPy array (bfloat16: float32 holding bfloat16
    values): random bit patterns (NaN payloads, signalling NaNs, subnormals) plus
    special values for the float kinds."""
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype == "bfloat16":
        hi = rng.integers(0, 1 << 16, n, dtype=np.uint32)
        # a float32 -> bfloat16 cast quiets a signalling NaN (PyTorch's cast too), and no
        # other way makes a bfloat16 tensor from bits (view(dtype) converts by value,
        # docs/contributing.md): keep the NaNs quiet
        nan = ((hi & 0x7F80) == 0x7F80) & ((hi & 0x7F) != 0)
        hi[nan] |= 0x40
        return (hi << 16).view(np.float32)
    dt = np.dtype(dtype)
    a = np.frombuffer(rng.bytes(n * dt.itemsize), dtype=dt).copy()
    if dt.kind in "fc" and n:
        k = int(rng.integers(0, n + 1))
        with np.errstate(all="ignore"):
            a[rng.integers(0, n, k)] = np.asarray(rng.choice(SPECIAL, k)).astype(dt)
    return a


def ordinary_values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    """`n` plain (finite, non-NaN) values of a NumPy dtype, for writes that compare."""
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
    v = rng.standard_normal(n) * 100
    if dt.kind == "c":
        v = v + 1j * rng.standard_normal(n)
    return v.astype(dt)


def make(rng: np.random.Generator, dtype: str, shape: tuple) -> fg.Tensor:
    """A contiguous tensor of random bits of `dtype` and `shape` (a copy of NumPy's)."""
    vals = random_values(rng, dtype, math.prod(shape)).reshape(shape)
    return fg.tensor(vals, dtype=dtype)


def bits(x) -> np.ndarray:
    """The values of a tensor or array, in C order, as raw bytes (bfloat16: its 16-bit
    patterns), for bit-exact comparisons."""
    if isinstance(x, fg.Tensor):
        x = x.detach()
        if x.dtype == fg.bfloat16:
            wide = np.ascontiguousarray(np.asarray(x)).reshape(-1)  # float32 copy, exact
            return (wide.view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
        x = np.asarray(x)
    a = np.ascontiguousarray(x)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a.reshape(-1).view(np.uint8)


def c_strides(shape) -> tuple:
    """PyTorch's contiguous strides (sizes of 0 count as 1)."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(out))


# ---------------------------------------------------------------- tensors and structures
@st.composite
def shapes_for(draw, size_kind: str) -> tuple:
    if size_kind == "0d":
        return ()
    if size_kind == "empty":
        nd = draw(st.integers(1, 3))
        shape = [draw(st.integers(0, 3)) for _ in range(nd)]
        shape[draw(st.integers(0, nd - 1))] = 0
        return tuple(shape)
    if size_kind == "large":
        return draw(st.sampled_from([(2048,), (37, 61), (3, 17, 29)]))
    nd = draw(st.integers(1, 3))
    return tuple(draw(st.integers(1, 4)) for _ in range(nd))


@st.composite
def tensors(draw, dtypes=tuple(ALL_DTYPES), grad: bool = True):
    """A tensor of random bits seen through a random view: plain, transposed, a stepped
    or reversed slice of a larger base, or a size-1 dim expanded (stride 0); floats and
    complexes require grad sometimes (a view then has history)."""
    dtype = draw(st.sampled_from(list(dtypes)))
    size_kind = draw(st.sampled_from(["small"] * 5 + ["0d", "empty", "large"]))
    shape = draw(shapes_for(size_kind))
    nd = len(shape)
    kind = draw(st.sampled_from(["plain", "transposed", "sliced", "expanded"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rg = grad and dtype in GRAD_DTYPES and draw(st.integers(0, 3)) == 0

    def base(shp):
        b = make(rng, dtype, shp)
        return b.requires_grad_(True) if rg else b

    if kind == "transposed" and nd >= 2:
        return base(shape[::-1]).permute(*range(nd - 1, -1, -1))
    if kind == "sliced" and nd >= 1:
        if draw(st.booleans()):
            big = base(tuple(max(2 * d - 1, 0) for d in shape))
            return big[tuple(slice(None, None, -2) for _ in shape)]
        big = base(tuple(2 * d + 1 for d in shape))
        return big[tuple(slice(1, 1 + 2 * d, 2) for d in shape)]
    if kind == "expanded" and nd >= 1:
        d = draw(st.integers(0, nd - 1))
        small = list(shape)
        small[d] = 1
        return base(tuple(small)).expand(*shape)
    return base(shape)


@st.composite
def families(draw):
    """Several views of one base (in PyTorch they share its storage after a load)."""
    dtype = draw(st.sampled_from(ALL_DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, m = draw(st.integers(1, 4)), draw(st.integers(1, 5))
    b = make(rng, dtype, (n, m))
    views = {
        "T": lambda: b.T,
        "step": lambda: b[:, ::2],
        "rev": lambda: b[::-1],
        "row": lambda: b[n - 1],
        "flat": lambda: b.reshape(-1),
        "expand": lambda: b[:1].expand(3, m),
        "diag": lambda: b.diagonal(),
    }
    names = draw(st.lists(st.sampled_from(sorted(views)), max_size=4, unique=True))
    return {"base": b, **{k: views[k]() for k in names}}


@st.composite
def numpy_leaves(draw):
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = draw(shapes_for(draw(st.sampled_from(["small", "0d", "empty"]))))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = random_values(rng, dtype, math.prod(shape)).reshape(shape)
    return a.T if draw(st.booleans()) else a


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
)
dict_keys = st.one_of(st.text(max_size=4), st.integers(-4, 4))


def _containers(children):
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(dict_keys, children, max_size=4),
        st.dictionaries(dict_keys, children, max_size=4).map(OrderedDict),
    )


structures = st.recursive(
    st.one_of(tensors(), tensors(), scalars, numpy_leaves(), families()),
    _containers,
    max_leaves=8,
)


def describe(obj, paddle: bool = False):
    """A hashable description of `obj`, to compare a loaded structure with the saved one:
    container types (an OrderedDict is a plain dict in Paddle code) and keys; tensors by
    dtype, shape, requires_grad and bits; arrays by dtype, shape and bits; floats by
    their bits (NaN by name: JSON keeps no payload)."""
    if isinstance(obj, fg.Tensor):
        return ("tensor", obj.dtype.name, tuple(obj.shape), obj.requires_grad, bits(obj).tobytes())
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.shape, bits(obj).tobytes())
    if isinstance(obj, dict):
        ordered = isinstance(obj, OrderedDict) and not paddle
        items = tuple((type(k).__name__, k, describe(v, paddle)) for k, v in obj.items())
        return ("OrderedDict" if ordered else "dict", items)
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(describe(v, paddle) for v in obj))
    if isinstance(obj, float):
        return ("float", "nan" if math.isnan(obj) else struct.pack("<d", obj))
    return (type(obj).__name__, obj)


def leaves(obj):
    """The tensors in `obj`, depth first."""
    if isinstance(obj, fg.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from leaves(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from leaves(v)


# ---------------------------------------------------------------- save / load
APIS = ["torch", "serialization", "paddle"]


def save_with(api: str, obj, target) -> None:
    if api == "torch":
        torch.save(obj, target)
    elif api == "serialization":
        fg_serialization.save(obj, target)
    else:
        PADDLE["save"](obj, target)


def load_with(api: str, target, **kw):
    if api == "torch":
        return torch.load(target, **kw)
    if api == "serialization":
        return fg_serialization.load(target, **kw)
    return PADDLE["load"](target, **kw)


def targets(draw, tmp_path: pathlib.Path):
    """Where to save (a path, or an open binary file object) and a function giving what
    to load from (a fresh view of it)."""
    where = draw(st.sampled_from(["str", "pathlib", "bytesio", "file", "offset"]))
    path = tmp_path / "ckpt.pt"
    if where == "str":
        return str(path), lambda: str(path)
    if where == "pathlib":
        return path, lambda: path
    if where == "file":
        return "file", lambda: open(path, "rb")  # noqa: SIM115 (closed by open_and_load)
    buf = io.BytesIO()
    start = 0
    if where == "offset":  # a file object positioned after other data
        buf.write(b"prefix bytes")
        start = buf.tell()

    def reopen():
        buf.seek(start)
        return buf

    return buf, reopen


def save_to(api: str, obj, target, tmp_path: pathlib.Path) -> None:
    if target == "file":
        with open(tmp_path / "ckpt.pt", "wb") as f:
            save_with(api, obj, f)
    else:
        save_with(api, obj, target)


LOAD_KW = st.fixed_dictionaries(
    {},
    optional={
        "map_location": st.sampled_from([None, "cpu", "device", "callable"]),
        "weights_only": st.sampled_from([None, True, False]),
    },
)


def load_kwargs(draw) -> dict:
    kw = draw(LOAD_KW)
    if kw.get("map_location") == "device":
        kw["map_location"] = fg.device("cpu")
    elif kw.get("map_location") == "callable":
        kw["map_location"] = lambda storage, location: storage
    return kw


def open_and_load(api, reopen, kw):
    src = reopen()
    try:
        return load_with(api, src, **kw)
    finally:
        if hasattr(src, "close") and not isinstance(src, io.BytesIO):
            src.close()


@FUZZ
@given(st.data())
def test_save_load_roundtrip(tmp_path, data):
    obj = data.draw(structures)
    if data.draw(st.booleans()):  # a small float64 leaf, for gradcheck after the load
        w = data.draw(st.lists(st.floats(-2, 2), min_size=1, max_size=5))
        obj = (obj, torch.tensor(w, dtype=torch.float64, requires_grad=True))
    api = data.draw(st.sampled_from(APIS))
    paddle = api == "paddle"
    want = describe(obj, paddle)
    before = describe(obj)
    # every tensor comes back with its strides and storage offset, as in PyTorch
    layouts = [(t.stride(), t.storage_offset()) for t in leaves(obj)]
    target, reopen = targets(data.draw, tmp_path)
    save_to(api, obj, target, tmp_path)
    CALLS["save"] += 1
    assert describe(obj) == before, "save changed what it saved"
    del obj
    gc.collect()
    kw = load_kwargs(data.draw)
    first = open_and_load(api, reopen, kw)
    gc.collect()
    second = open_and_load(api, reopen, kw)
    CALLS["load"] += 2
    assert describe(first, paddle) == want
    assert describe(second, paddle) == want
    for t, layout in zip(leaves(first), layouts):
        assert t.grad_fn is None, "a loaded tensor is a leaf"
        assert (t.stride(), t.storage_offset()) == layout
    # the two loads are independent: zero the first, the second keeps its values
    with fg.no_grad():
        for t in leaves(first):
            if t.numel() and t.dtype.name != "bool":
                t.zero_()
    assert describe(second, paddle) == want
    # a loaded float64 leaf that requires grad is a working leaf
    for t in leaves(second):
        if t.dtype == fg.float64 and t.requires_grad and 0 < t.numel() <= 16:
            (t * 3).sum().backward()  # a loaded tensor that requires grad is a leaf
            assert np.array_equal(t.grad.numpy(), np.full(tuple(t.shape), 3.0))
            u = t.detach().nan_to_num(0.0, 0.0, 0.0).clamp(-3, 3).requires_grad_(True)
            CALLS["gradcheck"] += 1
            assert gradcheck(lambda x: (x * x).sin(), (u,))
            break


@FUZZ
@given(st.data())
def test_save_load_views_of_one_base(tmp_path, data):
    """Views of one base keep their values and strides and share memory again after
    the load, as the originals did (PyTorch's storage sharing)."""
    fam = data.draw(families())
    api = data.draw(st.sampled_from(APIS))
    want = describe(fam, api == "paddle")
    groups = sharing(leaves(fam))
    layouts = [(t.stride(), t.storage_offset()) for t in leaves(fam)]
    target, reopen = targets(data.draw, tmp_path)
    save_to(api, fam, target, tmp_path)
    del fam
    gc.collect()
    got = open_and_load(api, reopen, load_kwargs(data.draw))
    CALLS["load"] += 1
    assert describe(got, api == "paddle") == want
    assert sharing(leaves(got)) == groups
    assert [(t.stride(), t.storage_offset()) for t in leaves(got)] == layouts


def sharing(tensors) -> list:
    """Which of ``tensors`` lie in one memory: each one's first index with its memory."""
    first: dict = {}
    return [first.setdefault(t._storage_key()[0], i) for i, t in enumerate(tensors)]


# ---------------------------------------------------------------- state dicts
def _net(dtype: str):
    net = nn.Sequential(
        nn.Linear(3, 5), nn.BatchNorm1d(5), nn.Tanh(), nn.LayerNorm(5), nn.Linear(5, 2)
    )
    return net.double() if dtype == "float64" else net


@FUZZ
@given(st.data())
def test_state_dict_roundtrip(tmp_path, data):
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    api = data.draw(st.sampled_from(APIS))
    opt_name = data.draw(st.sampled_from(["SGD", "Adam", "AdamW", "RMSprop"]))
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    x = fg.tensor(rng.standard_normal((6, 3)), dtype=dtype)

    def optim(params):
        if opt_name == "SGD":
            return fg.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True)
        return getattr(fg.optim, opt_name)(params, lr=0.01)

    def step(net, opt):
        opt.zero_grad()
        loss = net(x).square().mean()
        loss.backward()
        opt.step()

    fg.manual_seed(seed)
    net = _net(dtype)
    opt = optim(net.parameters())
    for _ in range(data.draw(st.integers(1, 3))):
        step(net, opt)
    ckpt = {"model": net.state_dict(), "optim": opt.state_dict(), "epoch": 7, "tag": "run"}
    want_model = {k: (v.dtype.name, bits(v).tobytes()) for k, v in net.state_dict().items()}
    want_optim = describe(opt.state_dict(), api == "paddle")
    target, reopen = targets(data.draw, tmp_path)
    save_to(api, ckpt, target, tmp_path)
    del ckpt
    gc.collect()
    got = open_and_load(api, reopen, load_kwargs(data.draw))
    CALLS["state_dict"] += 1
    model = got["model"]
    assert type(model) is (dict if api == "paddle" else OrderedDict)
    assert {k: (v.dtype.name, bits(v).tobytes()) for k, v in model.items()} == want_model
    assert not any(v.requires_grad for v in model.values())
    assert describe(got["optim"], api == "paddle") == want_optim
    assert (got["epoch"], got["tag"]) == (7, "run")
    fg.manual_seed(seed + 1)  # a different initialisation, replaced by the checkpoint
    net2 = _net(dtype)
    net2.load_state_dict(model)
    opt2 = optim(net2.parameters())
    opt2.load_state_dict(got["optim"])
    step(net, opt)
    step(net2, opt2)
    for (k, a), b in zip(net.state_dict().items(), net2.state_dict().values()):
        assert bits(a).tobytes() == bits(b).tobytes(), f"{k} differs after resuming"


# ---------------------------------------------------------------- NumPy -> tensor
LAYOUTS = ["c", "fortran", "stepped", "reversed", "transposed", "broadcast", "0d", "empty"]


@st.composite
def arrays(draw, dtypes=tuple(NUMPY_DTYPES)):
    """A NumPy array of random bits with a random layout (C, Fortran, stepped, reversed,
    transposed, broadcast (stride 0, read-only), 0-d, size-0), read-only sometimes."""
    dtype = draw(st.sampled_from(list(dtypes)))
    layout = draw(st.sampled_from(LAYOUTS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = draw(shapes_for("0d" if layout == "0d" else "empty" if layout == "empty" else "small"))
    nd = len(shape)
    if layout == "fortran":
        a = np.asfortranarray(random_values(rng, dtype, math.prod(shape)).reshape(shape))
    elif layout == "stepped" and nd:
        big = random_values(rng, dtype, math.prod(2 * d + 1 for d in shape))
        a = big.reshape(tuple(2 * d + 1 for d in shape))[tuple(slice(1, None, 2) for _ in shape)]
    elif layout == "reversed" and nd:
        a = random_values(rng, dtype, math.prod(shape)).reshape(shape)[..., ::-1]
    elif layout == "transposed" and nd >= 2:
        a = random_values(rng, dtype, math.prod(shape)).reshape(shape[::-1]).T
    elif layout == "broadcast" and nd:
        small = (1,) + shape[1:]
        a = np.broadcast_to(random_values(rng, dtype, math.prod(small)).reshape(small), shape)
    else:
        a = random_values(rng, dtype, math.prod(shape)).reshape(shape)
    if draw(st.integers(0, 4)) == 0:
        a.flags.writeable = False
    return a


def _index(rng, shape):
    return tuple(int(rng.integers(0, d)) for d in shape)


@FUZZ
@given(arrays(), st.integers(0, 2**32 - 1), st.booleans())
def test_from_numpy_shares_both_ways(a, seed, via_as_tensor):
    rng = np.random.default_rng(seed)
    t = torch.as_tensor(a) if via_as_tensor else torch.from_numpy(a)
    CALLS["from_numpy"] += 1
    assert t.dtype.name == a.dtype.name
    assert tuple(t.shape) == a.shape
    assert bits(t).tobytes() == bits(a).tobytes()
    if a.size == 0:
        return
    # PyTorch keeps NumPy's strides (in elements)
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    assert np.shares_memory(np.asarray(t), a)
    if not a.flags.writeable:
        # a read-only array gives a read-only tensor (docs/interop.md)
        with pytest.raises(ValueError, match="read-only"):
            t[_index(rng, a.shape)] = ordinary_values(rng, a.dtype.name, 1)[0].item()
        assert not np.asarray(t).flags.writeable
        return
    # a write into the tensor is seen in the array, and one into the array in the tensor
    idx = _index(rng, a.shape)
    v = ordinary_values(rng, a.dtype.name, 1)[0]
    t[idx] = v.item()
    assert bits(a[idx]).tobytes() == bits(np.asarray(v)).tobytes()
    idx = _index(rng, a.shape)
    a[idx] = ordinary_values(rng, a.dtype.name, 1)[0]
    assert bits(t).tobytes() == bits(a).tobytes()
    # an in-place op through the tensor reaches the array too
    if a.dtype.kind in "fc":
        t.mul_(2)
        with np.errstate(all="ignore"):
            assert np.array_equal(np.asarray(t), a, equal_nan=True)


@FUZZ
@given(st.data())
def test_tensor_copies_numpy(data):
    """tensor / to_tensor copy any array (big-endian, read-only, strided, Fortran); an
    as_tensor that cannot share (another byte order, another dtype) copies too."""
    a = data.draw(arrays())
    order = data.draw(st.sampled_from(["native", "native", "swapped"]))
    if order == "swapped":
        a = a.astype(a.dtype.newbyteorder("S"))  # astype keeps the layout, not the flags
    how = data.draw(st.sampled_from(["tensor", "to_tensor", "as_tensor", "as_tensor_dtype"]))
    native = a.dtype.newbyteorder("=")
    if how == "tensor":
        t = torch.tensor(a)
    elif how == "to_tensor":
        t = PADDLE["to_tensor"](a)
    elif how == "as_tensor":
        t = torch.as_tensor(a)
    else:
        other = data.draw(st.sampled_from([d for d in NUMPY_DTYPES if d != native.name]))
        t = torch.as_tensor(a, dtype=getattr(fg, other))
        CALLS["to_tensor"] += 1
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            want = a.astype(other)  # complex -> real drops the imaginary part, as ferrograd
        assert t.dtype.name == other
        if np.dtype(other).kind in "fc" and native.kind in "fc":
            assert np.array_equal(np.asarray(t), want, equal_nan=True)
        elif native.kind not in "fc":  # float -> int casts of NaN/inf differ by library
            assert bits(t).tobytes() == bits(want).tobytes()
        return
    CALLS["to_tensor"] += 1
    assert t.dtype.name == native.name
    assert tuple(t.shape) == a.shape
    assert bits(t).tobytes() == bits(a).tobytes()
    # as_tensor shares a native-order array (one-byte dtypes have no byte order)
    shared = how == "as_tensor" and (order == "native" or a.itemsize == 1)
    assert np.shares_memory(np.asarray(t), a) == (shared and a.size > 0)
    if not shared:
        if a.size:
            assert t.is_contiguous()
            assert t.stride() == c_strides(a.shape)
        # a copy: writable even from a read-only array; writes do not reach the array
        keep = bits(a).tobytes()
        with fg.no_grad():
            t.zero_()
        assert bits(a).tobytes() == keep


class _ArrayInterface:
    def __init__(self, a):
        self.a = a
        self.__array_interface__ = a.__array_interface__


class _ArrayProtocol:
    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a if dtype is None else self.a.astype(dtype)


@FUZZ
@given(arrays(), st.sampled_from(["interface", "protocol"]))
def test_array_like_objects_convert(a, kind):
    obj = _ArrayInterface(a) if kind == "interface" else _ArrayProtocol(a)
    for t in (torch.tensor(obj), torch.as_tensor(obj), PADDLE["to_tensor"](obj)):
        CALLS["array_like"] += 1
        assert t.dtype.name == a.dtype.name
        assert tuple(t.shape) == a.shape
        assert bits(t).tobytes() == bits(a).tobytes()


BAD_ARRAYS = {
    "object": lambda: np.array([1, "a", None], dtype=object),
    "structured": lambda: np.zeros(3, dtype=[("a", "f4"), ("b", "i4")]),
    "str": lambda: np.array(["ab", "c"]),
    "bytes": lambda: np.array([b"ab", b"c"]),
    "datetime": lambda: np.array(["2020-01-01", "2021-02-03"], dtype="datetime64[D]"),
    "timedelta": lambda: np.array([1, 2], dtype="timedelta64[s]"),
    "void": lambda: np.zeros(2, dtype="V4"),
}


@FUZZ
@given(st.sampled_from(sorted(BAD_ARRAYS)), st.sampled_from(["from_numpy", "tensor", "as", "to"]))
def test_unsupported_numpy_dtypes_raise_type_error(kind, how):
    a = BAD_ARRAYS[kind]()
    call = {
        "from_numpy": torch.from_numpy,
        "tensor": torch.tensor,
        "as": torch.as_tensor,
        "to": PADDLE["to_tensor"],
    }[how]
    CALLS["bad_dtype"] += 1
    with pytest.raises(TypeError, match=r"\S"):
        call(a)
    # the checkpoint writer pickles what needs pickle; a weights-only load refuses it
    # (torch.load >= 2.6: pickle.UnpicklingError, torch/serialization.py)
    if kind == "object":
        buf = io.BytesIO()
        torch.save({"a": a}, buf)
        with pytest.raises(pickle.UnpicklingError, match="weights_only"):
            torch.load(io.BytesIO(buf.getvalue()))


@FUZZ
@given(st.sampled_from(["set", "object", "tuple_key", "bool_key", "lambda", "bytes", "complex"]))
def test_save_pickles_what_the_manifest_cannot_hold(kind):
    """As torch.save: what the JSON manifest cannot hold is pickled; torch.load (>= 2.6)
    refuses it unless weights_only=False (torch/serialization.py, load); what pickle
    itself cannot store (a lambda) is an error at save time."""
    obj = {
        "set": {1, 2},
        "object": object(),
        "tuple_key": {(1, 2): fg.ones(1)},
        "bool_key": {True: 1},
        "lambda": lambda: 0,
        "bytes": b"raw",
        "complex": 1 + 2j,
    }[kind]
    CALLS["save_pickled"] += 1
    buf = io.BytesIO()
    if kind == "lambda":
        with pytest.raises(TypeError, match="save"):
            torch.save({"x": [obj]}, buf)
        return
    torch.save({"x": [obj]}, buf)
    with pytest.raises(pickle.UnpicklingError, match="weights_only"):
        torch.load(io.BytesIO(buf.getvalue()))
    back = torch.load(io.BytesIO(buf.getvalue()), weights_only=False)["x"][0]
    assert type(back) is type(obj)
    if kind != "object":
        assert repr(back) == repr(obj)


@FUZZ
@given(st.sampled_from(["big-endian", "unaligned", "uint16", "float128"]))
def test_from_numpy_refuses_what_it_cannot_share(kind):
    """from_numpy never silently copies: another byte order, unaligned memory or a dtype
    ferrograd does not hold is an exception (PyTorch: ValueError / TypeError)."""
    if kind == "big-endian":
        a = np.arange(6.0).astype(">f4")
    elif kind == "unaligned":
        a = np.ndarray((4,), np.float64, np.zeros(40, np.uint8).data, 1)
    elif kind == "uint16":
        a = np.arange(3, dtype=np.uint16)
    else:
        a = np.arange(3, dtype=np.longdouble)
    CALLS["from_numpy"] += 1
    with pytest.raises((TypeError, ValueError), match=r"\S"):
        torch.from_numpy(a)


# ---------------------------------------------------------------- tensor -> NumPy
def _write_and_compare(arr: np.ndarray, t, rng) -> None:
    """Writes one element through a shared array and checks the tensor sees it."""
    if arr.size == 0 or not arr.flags.writeable:
        return
    idx = _index(rng, arr.shape)
    arr[idx] = ordinary_values(rng, arr.dtype.name, 1)[0]
    assert bits(t).tobytes() == bits(arr).tobytes()


@FUZZ
@given(tensors(grad=False), st.integers(0, 2**32 - 1))
def test_tensor_to_numpy_exports(t, seed):
    rng = np.random.default_rng(seed)
    dtype = t.dtype.name
    want = bits(t).tobytes()
    n = t.numel()
    # Paddle code's numpy() and np.array copy
    for copy in (PADDLE["numpy"](t), np.array(t)):
        CALLS["to_numpy"] += 1
        assert copy.shape == tuple(t.shape)
        if dtype == "bfloat16":  # a float32 copy, exact
            assert copy.dtype == np.float32
            copy = fg.tensor(copy, dtype="bfloat16")
        assert bits(copy).tobytes() == want
        if n:
            assert not np.shares_memory(copy, np.asarray(t))
    if dtype == "bfloat16":
        # NumPy lacks bfloat16: float32 copies, no buffer format; DLPack still shares
        assert np.asarray(t).dtype == np.float32
        with pytest.raises(BufferError, match="bfloat16"):
            memoryview(t)
        with pytest.raises(ValueError, match="bfloat16"):
            np.asarray(t, copy=False)
        u = fg.from_dlpack(t)
        CALLS["dlpack"] += 1
        assert u.dtype == fg.bfloat16 and bits(u).tobytes() == want
        if n:
            u.zero_()
            assert not bits(t).any()
        return
    # np.asarray, PyTorch code's numpy(), memoryview and DLPack share the tensor's memory
    strides = tuple(s * t.element_size() for s in t.stride())
    exports = {
        "asarray": lambda: np.asarray(t),
        "numpy": lambda: t.numpy(),
        "memoryview": lambda: np.asarray(memoryview(t)),
        "np.from_dlpack": lambda: np.from_dlpack(t),
    }
    for name, export in exports.items():
        arr = export()
        CALLS["to_numpy"] += 1
        assert arr.dtype.name == dtype, name
        assert arr.shape == tuple(t.shape), name
        assert bits(arr).tobytes() == bits(t).tobytes(), name
        if n:
            assert arr.strides == strides, name
            assert arr.flags.writeable, name
            assert np.shares_memory(arr, np.asarray(t)), name
        _write_and_compare(arr, t, rng)
    m = memoryview(t)
    assert (m.format, m.shape, m.readonly) == (BUFFER_FORMAT[dtype], tuple(t.shape), False)
    # ferrograd's DLPack both ways, and NumPy's arrays back through from_numpy
    backs = [fg.from_dlpack(t)]
    backs.append(fg.from_numpy(np.asarray(t)))
    for back in backs:
        CALLS["dlpack"] += 1
        assert back.dtype == t.dtype and tuple(back.shape) == tuple(t.shape)
        assert back.stride() == t.stride() or not n
        assert bits(back).tobytes() == bits(t).tobytes()
        if n:
            idx = _index(rng, tuple(t.shape))
            back[idx] = ordinary_values(rng, dtype, 1)[0].item()
            assert bits(back).tobytes() == bits(t).tobytes()
    a = np.ascontiguousarray(np.asarray(t))
    u = fg.from_dlpack(a)
    assert bits(u).tobytes() == bits(a).tobytes()
    if n:
        _write_and_compare(a, u, rng)


# ---------------------------------------------------------------- aliases and gradients
OPS = {
    # name: (ferrograd op of x (no grad) and w (grad), float64 gradient of sum() in w)
    "mul": (lambda x, w: x * w, lambda x, w: x),
    "div": (lambda x, w: w / x, lambda x, w: 1 / x),
    "addcmul": (lambda x, w: torch.addcmul(w, x, w), lambda x, w: 1 + x),
    "pow": (lambda x, w: w**x, lambda x, w: x * w ** (x - 1)),
    "dot": (lambda x, w: torch.dot(x, w), lambda x, w: x),
}
ALIASES = ["asarray", "numpy", "memoryview", "np.from_dlpack", "from_numpy", "as_tensor"]


@FUZZ
@given(st.data())
def test_numpy_alias_never_changes_a_gradient(data):
    n = data.draw(st.integers(1, 6))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x0 = rng.uniform(0.5, 2.0, n)
    w0 = rng.uniform(0.5, 2.0, n)
    op_name = data.draw(st.sampled_from(sorted(OPS)))
    op, grad_ref = OPS[op_name]
    alias = data.draw(st.sampled_from(ALIASES))
    when = data.draw(st.sampled_from(["before", "after"]))
    view = data.draw(st.sampled_from(["whole", "head", "step", "rev", "reshape"]))
    source = x0.copy()
    if alias == "from_numpy":
        x = torch.from_numpy(source)
    elif alias == "as_tensor":
        x = torch.as_tensor(source)
    else:
        x = torch.tensor(x0)
    w = torch.tensor(w0, requires_grad=True)

    def take():
        if alias in ("from_numpy", "as_tensor"):
            return source
        v = {
            "whole": lambda: x,
            "head": lambda: x[: max(1, n // 2)],
            "step": lambda: x[::2],
            "rev": lambda: x[::-1],
            "reshape": lambda: x.reshape(1, n),
        }[view]()
        return {
            "asarray": lambda: np.asarray(v),
            "numpy": lambda: v.numpy(),
            "memoryview": lambda: np.asarray(memoryview(v)),
            "np.from_dlpack": lambda: np.from_dlpack(v),
        }[alias]()

    arr = take() if when == "before" else None
    y = op(x, w).sum()
    if arr is None:
        arr = take()
    CALLS["alias_grad"] += 1
    if arr.flags.writeable:
        arr[...] = -7.25  # the tensor changes; the saved values must not
        assert (np.asarray(x) == -7.25).any()
    else:
        # memory autograd saved is exported read-only (docs/reliability.md)
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = -7.25
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), grad_ref(x0, w0), rtol=1e-13, atol=0)
    # the tensor that requires grad is never handed out writable
    assert not np.asarray(w).flags.writeable
    assert memoryview(w).readonly
    with pytest.raises(RuntimeError, match="requires grad"):
        w.numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        np.from_dlpack(w)
    copy = PADDLE["numpy"](w)  # Paddle code: a copy, writable and apart
    copy[...] = 0
    assert np.array_equal(w.detach().numpy(), w0)
    xs = torch.tensor(x0)
    CALLS["gradcheck"] += 1
    assert gradcheck(lambda u: op(xs, u), (torch.tensor(w0, requires_grad=True),))


# ---------------------------------------------------------------- regressions
def test_save_load_shared_storage_regression():
    # PyTorch: views saved together share one storage after torch.load
    x = torch.arange(6.0).reshape(2, 3)
    buf = io.BytesIO()
    torch.save([x, x.T, x[:, ::2]], buf)
    buf.seek(0)
    a, b, c = torch.load(buf)
    a[0, 0] = 100.0
    assert b[0, 0].item() == 100.0 and c[0, 0].item() == 100.0


def test_save_load_view_strides_regression():
    # PyTorch keeps a view's strides: (1, 3) for a transpose, (1, 0) for an expand
    buf = io.BytesIO()
    torch.save([torch.zeros(2, 3).T, torch.zeros(3, 1).expand(3, 4)], buf)
    buf.seek(0)
    t, e = torch.load(buf)
    assert t.stride() == (1, 3) and e.stride() == (1, 0)


def test_tensor_from_unaligned_array_regression():
    # a float64 array at an odd address: a copy (PyTorch) must work
    a = np.ndarray((4,), np.float64, np.zeros(40, np.uint8).data, 1)
    a[:] = [1.0, 2.0, 3.0, 4.0]
    for make_copy in (torch.tensor, torch.as_tensor, PADDLE["to_tensor"]):
        assert make_copy(a).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_tensor_list_of_float64_numpy_regression():
    # PyTorch: float64, as tensor(np.float64(1e300)) already is
    t = torch.tensor([np.float64(1e300), np.float64(0.1)])
    assert t.dtype == torch.float64 and t.tolist() == [1e300, 0.1]
    assert torch.tensor([np.arange(3.0), np.arange(3.0)]).dtype == torch.float64


def test_empty_tensor_is_contiguous_regression():
    # PyTorch: a tensor with no elements is contiguous
    for t in (torch.zeros(3, 0), torch.zeros(2, 0, 3), torch.zeros(3, 0).contiguous()):
        assert t.is_contiguous(), tuple(t.shape)


def test_load_map_location_dict_regression():
    # PyTorch takes a dict of device names; every value here is the CPU
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf)
    buf.seek(0)
    assert torch.load(buf, map_location={"cuda:0": "cpu"})["w"].tolist() == [1.0, 1.0]


def test_save_load_parameter_type_regression():
    # PyTorch: torch.load gives the Parameter back (state_dict(keep_vars=True) too)
    buf = io.BytesIO()
    torch.save(nn.Linear(2, 2).weight, buf)
    buf.seek(0)
    assert isinstance(torch.load(buf), nn.Parameter)


def test_from_numpy_complex_alignment_regression():
    # NumPy calls these aligned (complex64 needs 4-byte alignment); PyTorch shares them.
    # An empty complex tensor's own np.asarray() is one (its address is 4 / 8).
    for dtype in (torch.complex64, torch.complex128):
        empty = np.asarray(torch.zeros(0, dtype=dtype))
        assert torch.from_numpy(empty).shape == (0,)
    a = np.ndarray((2,), np.complex64, np.zeros(40, np.uint8).data, 4)
    t = torch.from_numpy(a)
    a[0] = 1 + 2j
    assert t.tolist() == [1 + 2j, 0j]
