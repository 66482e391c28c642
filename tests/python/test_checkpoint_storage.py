"""Checkpoint format version 2 (``ferrograd.save`` / ``load``): each memory a saved tensor
lies in is stored once, and each tensor as a layout over it, so tensors that shared memory
share it again after loading and views keep their strides, as ``torch.save`` /
``torch.load`` do; one tensor object saved twice loads as one object. Crafted layouts are
refused with a ValueError before a tensor is made. Version 1 files still load."""

from __future__ import annotations

import gc
import io
import json
import zipfile

import ferrograd as torch
import numpy as np
import pytest
from ferrograd import nn


def round_trip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf), buf


def manifest(buf) -> dict:
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as z:
        return json.loads(bytes(z["__ferrograd__"]).decode())


def test_views_of_one_tensor_share_memory_after_loading():
    x = torch.arange(6.0).reshape(2, 3)
    (a, b, c), buf = round_trip([x, x.T, x[:, ::2]])
    assert b.stride() == (1, 3) and c.stride() == (3, 2)
    np.testing.assert_array_equal(b.numpy(), x.T.numpy())
    np.testing.assert_array_equal(c.numpy(), x[:, ::2].numpy())
    a[0, 0] = 100.0
    assert b[0, 0].item() == 100.0 and c[0, 0].item() == 100.0
    doc = manifest(buf)
    assert doc["version"] == 2
    assert {n["storage"] for n in doc["root"]["items"]} == {"t0"}  # the memory stored once


def test_expanded_and_reversed_views_keep_their_strides():
    e = torch.tensor([[1.0], [2.0], [3.0]]).expand(3, 4)
    r = torch.from_numpy(np.arange(5.0)[::-1])  # NumPy's negative stride
    (e2, r2), buf = round_trip([e, r])
    assert e2.stride() == (1, 0) and r2.stride() == (-1,)
    np.testing.assert_array_equal(e2.numpy(), e.numpy())
    np.testing.assert_array_equal(r2.numpy(), [4.0, 3.0, 2.0, 1.0, 0.0])
    with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as z:
        assert z["t0"].shape == (3,)  # the expanded tensor's 3 elements, not 12
    with pytest.raises(RuntimeError, match="more than one element"):
        e2.add_(torch.ones(3, 4))  # PyTorch's refusal, as for the saved view


def test_a_slice_saves_its_whole_memory_as_pytorch_does():
    big = torch.arange(1000.0)
    (s,), buf = round_trip([big[10:12]])
    assert s.storage_offset() == 10 and s.tolist() == [10.0, 11.0]
    (c,), buf2 = round_trip([big[10:12].clone()])  # clone() to save only the slice
    assert len(buf.getvalue()) - len(buf2.getvalue()) >= 998 * 4  # 1000 floats, not 2


def test_one_object_saved_twice_loads_as_one_object():
    shared = nn.Linear(3, 3)
    model = nn.Sequential(shared, nn.Tanh(), shared)
    sd = model.state_dict()
    back, _ = round_trip(sd)
    # state_dict() holds detached tensors (distinct objects, as in PyTorch) on one memory
    back["0.weight"][0, 0] = 7.0
    assert back["2.weight"][0, 0].item() == 7.0
    back["0.weight"][0, 0] = sd["0.weight"][0, 0]
    fresh = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3))
    fresh.load_state_dict(back)
    x = torch.randn(2, 3)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())
    p = nn.Parameter(torch.ones(2))
    (q1, q2, q3), _ = round_trip([p, p, p.detach()])
    assert q1 is q2 and isinstance(q1, nn.Parameter) and q1.requires_grad
    assert q3 is not q1 and not q3.requires_grad and not isinstance(q3, nn.Parameter)
    q3[0] = 5.0  # p.detach() shared p's memory, so q3 shares q1's
    assert q1[0].item() == 5.0


@pytest.mark.parametrize(
    "dtype",
    ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
     "float32", "float64", "complex64", "complex128"],
)  # fmt: skip
def test_every_dtype_bit_exact_through_its_storage(dtype):
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 256, size=96, dtype=np.uint8)
    if dtype == "bool":
        bits = bits & 1
    x = torch.from_numpy(bits.copy()).view(getattr(torch, dtype)).reshape(2, -1)
    (y, yt), _ = round_trip([x, x.T])
    assert y.dtype == x.dtype and yt.stride() == x.T.stride()
    assert y.view(torch.uint8).numpy().tobytes() == bits.tobytes()


def test_temporaries_saved_in_one_file_do_not_alias():
    # the writer keeps each storage alive while it saves, so a freed temporary's memory,
    # reused by the next one, is never taken for the same storage
    parts = [torch.sparse_coo_tensor([[i]], [float(i)], (8,)) for i in range(8)]
    back, _ = round_trip(parts)
    for i, t in enumerate(back):
        assert t.to_dense().tolist() == [float(j == i) * i for j in range(8)]
    gc.collect()


def test_requires_grad_views_load_as_leaves_sharing_memory():
    w = torch.randn(2, 3, requires_grad=True)
    (a, b), _ = round_trip([w, w.t()])
    assert a.is_leaf and b.is_leaf and a.requires_grad and b.requires_grad
    with torch.no_grad():
        a.mul_(0.0)
    assert b.abs().sum().item() == 0.0
    (b * b).sum().backward()
    assert b.grad.shape == (3, 2) and a.grad is None


def test_paddle_dialect_round_trip():
    import ferrograd as paddle

    layer = paddle.nn.Linear(2, 3)
    buf = io.BytesIO()
    paddle.save(layer.state_dict(), buf)
    buf.seek(0)
    back = paddle.load(buf)
    layer2 = paddle.nn.Linear(2, 3)
    layer2.set_state_dict(back)
    np.testing.assert_array_equal(layer2.weight.detach().numpy(), layer.weight.detach().numpy())


# --- version 1 files and crafted version 2 files -------------------------------------


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def crafted(root, version=2, **arrays) -> io.BytesIO:
    doc = {"format": "ferrograd.npz", "version": version, "root": root}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, array in arrays.items():
            zf.writestr(name + ".npy", npy(array))
        zf.writestr("__ferrograd__.npy", npy(np.frombuffer(json.dumps(doc).encode(), np.uint8)))
    buf.seek(0)
    return buf


def node(**over):
    n = {"kind": "tensor", "storage": "t0", "dtype": "float32", "shape": [2, 2],
         "strides": [2, 1], "offset": 0, "requires_grad": False}  # fmt: skip
    n.update(over)
    return n


def test_version_1_files_still_load():
    v1 = {"kind": "list", "items": [
        {"kind": "tensor", "key": "t0", "dtype": "bfloat16", "requires_grad": True},
        {"kind": "tensor", "key": "t1", "dtype": "int64", "requires_grad": False},
    ]}  # fmt: skip
    a, b = torch.load(
        crafted(v1, version=1, t0=np.array([[1.5, 2.0]], np.float32), t1=np.arange(3))
    )
    assert a.dtype == torch.bfloat16 and a.requires_grad and a.tolist() == [[1.5, 2.0]]
    assert b.tolist() == [0, 1, 2]


def test_a_valid_crafted_file_loads():
    t = torch.load(crafted(node(strides=[1, 2]), t0=np.arange(4, dtype=np.float32)))
    assert t.tolist() == [[0.0, 2.0], [1.0, 3.0]] and t.stride() == (1, 2)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (node(offset=1), "out of bounds"),
        (node(strides=[-2, 1], offset=1), "before the start"),
        (node(offset=-1), "storage offset"),
        (node(strides=[1]), "mismatch in length"),
        (node(shape=[2, -2]), "non-negative"),
        (node(strides=[2**62, 2**62]), "addressable|out of bounds"),
        (node(shape=[2**70]), "cannot be made"),
        (node(shape=[True, 2]), "int lists"),
        (node(shape="2, 2"), "int lists"),
        (node(offset=None), "int lists"),
        (node(dtype="float64"), "not a 1-D float64"),
        (node(dtype="float99"), "unknown dtype"),
        (node(storage="t9"), "does not hold"),
        (node(object="a"), "object number"),
        ({"kind": "list", "items": [node(), node(dtype="int32", shape=[1], strides=[1])]},
         "another tensor as float32"),
        ({"kind": "list", "items": [node(), {"kind": "ndarray", "key": "t0"}]}, "second time"),
    ],
)  # fmt: skip
def test_crafted_layouts_are_refused_before_a_tensor_is_made(bad, message):
    with pytest.raises(ValueError, match=message):
        torch.load(crafted(bad, t0=np.arange(4, dtype=np.float32)))


def test_a_storage_member_must_be_one_dimensional():
    with pytest.raises(ValueError, match="not a 1-D float32"):
        torch.load(crafted(node(), t0=np.zeros((2, 2), np.float32)))
