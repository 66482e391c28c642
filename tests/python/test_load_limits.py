"""ferrograd.load on crafted files (issue 16 item 14): sizes are checked against the
archive before anything is allocated, each array member is used once, and every
malformed file is a ValueError naming what is wrong."""

from __future__ import annotations

import io
import json
import zipfile

import ferrograd as fg
import numpy as np
import pytest


def npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def manifest_bytes(root, **extra) -> bytes:
    doc = {"format": "ferrograd.npz", "version": 1, "root": root, **extra}
    return npy_bytes(np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8))


def archive(path, members: dict, compression=zipfile.ZIP_STORED) -> str:
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return str(path)


def tensor_node(key="t0"):
    return {"kind": "tensor", "key": key, "dtype": "float32", "requires_grad": False}


def test_a_member_referenced_many_times_is_refused(tmp_path):
    big = npy_bytes(np.zeros(1 << 16, dtype=np.float32))
    root = {"kind": "list", "items": [tensor_node()] * 200}
    p = archive(
        tmp_path / "r.npz",
        {"t0.npy": big, "__ferrograd__.npy": manifest_bytes(root)},
        zipfile.ZIP_DEFLATED,
    )
    with pytest.raises(ValueError, match="second time"):
        fg.load(p)


def test_a_member_declaring_more_than_it_can_hold_is_refused_before_reading(tmp_path):
    p = archive(
        tmp_path / "bomb.npz",
        {
            "t0.npy": npy_bytes(np.zeros(4, np.float32)),
            "__ferrograd__.npy": manifest_bytes(tensor_node()),
        },
    )
    raw = bytearray(open(p, "rb").read())
    # rewrite the declared uncompressed size of t0.npy in the central directory to 4 GiB
    cd = raw.rfind(b"PK\x01\x02", 0, raw.rfind(b"__ferrograd__"))
    raw[cd + 24 : cd + 28] = (0xFFFF_FFF0).to_bytes(4, "little")
    (tmp_path / "bomb.npz").write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="more than its compression can produce"):
        fg.load(p)


def test_an_npy_header_that_disagrees_with_the_member_size_is_refused(tmp_path):
    honest = npy_bytes(np.zeros(0, np.float32))
    big = b"'shape': (1099511627776,)"  # 2**40 elements in a member of a few bytes
    lying = honest.replace(b"'shape': (0,)", big).replace(b" " * 12 + b"\n", b"\n")
    assert len(lying) == len(honest)
    p = archive(
        tmp_path / "h.npz", {"t0.npy": lying, "__ferrograd__.npy": manifest_bytes(tensor_node())}
    )
    with pytest.raises(ValueError, match="declares shape"):
        fg.load(p)


def test_max_bytes_caps_the_total(tmp_path):
    fg.save({"a": fg.zeros([1000]), "b": fg.zeros([1000])}, tmp_path / "s.npz")
    assert fg.load(tmp_path / "s.npz", max_bytes=10_000)["a"].shape == [1000]
    with pytest.raises(ValueError, match="max_bytes=5000"):
        fg.load(tmp_path / "s.npz", max_bytes=5000)


BAD_ROOTS = {
    "missing key": {"kind": "tensor", "dtype": "float32"},
    "unknown member": tensor_node("t9"),
    "manifest as array": {"kind": "ndarray", "key": "__ferrograd__"},
    "not a dict": ["kind", "tensor"],
    "unknown kind": {"kind": "pickle"},
    "items not a list": {"kind": "list", "items": 3},
    "bad dict item": {"kind": "dict", "items": [[1, 2, 3]]},
    "bad dict key tag": {"kind": "dict", "items": [[["obj", 1], {"kind": "value", "value": 1}]]},
    "int tag with str": {"kind": "dict", "items": [[["int", "x"], {"kind": "value", "value": 1}]]},
    "value is a list": {"kind": "value", "value": [1]},
    "float not special": {"kind": "float", "value": "1e999x"},
    "dtype missing": {"kind": "tensor", "key": "t0"},
    "dtype unknown": {"kind": "tensor", "key": "t0", "dtype": "float99"},
}


@pytest.mark.parametrize("root", list(BAD_ROOTS.values()), ids=list(BAD_ROOTS))
def test_every_malformed_manifest_is_a_value_error(tmp_path, root):
    p = archive(
        tmp_path / "m.npz",
        {"t0.npy": npy_bytes(np.ones(2, np.float32)), "__ferrograd__.npy": manifest_bytes(root)},
    )
    with pytest.raises(ValueError, match="not a valid ferrograd .npz file"):
        fg.load(p)


def deep(n: int) -> bytes:
    """A manifest whose root nests ``n`` lists (built as text: json.dumps would recurse)."""
    body = b'{"kind": "list", "items": [' * n + b'{"kind": "value", "value": 1}' + b"]}" * n
    return b'{"format": "ferrograd.npz", "version": 1, "root": ' + body + b"}"


@pytest.mark.parametrize(
    "manifest",
    [
        b"\xff\xfe not utf-8",
        b"{not json",
        b"[1, 2]",
        json.dumps({"format": "other", "version": 1, "root": None}).encode(),
        json.dumps({"format": "ferrograd.npz", "version": 1}).encode(),
        b"[" * 100_000 + b"]" * 100_000,
        deep(900),
    ],
    ids=["utf8", "json", "array", "format", "no-root", "json-depth", "node-depth"],
)
def test_malformed_manifests_are_value_errors(tmp_path, manifest):
    member = npy_bytes(np.frombuffer(manifest, dtype=np.uint8))
    p = archive(tmp_path / "j.npz", {"__ferrograd__.npy": member})
    with pytest.raises(ValueError):
        fg.load(p)


def test_damaged_archives_are_value_errors(tmp_path):
    fg.save({"w": fg.ones([64])}, tmp_path / "ok.npz")
    raw = (tmp_path / "ok.npz").read_bytes()
    data_at = raw.find(b"\x93NUMPY") + 130  # inside the first member's array data
    cases = {
        "truncated": raw[: len(raw) // 2],
        "empty": b"",
        "crc": raw[:data_at] + bytes([raw[data_at] ^ 0xFF]) + raw[data_at + 1 :],
        "object array": None,
        # "version needed to extract" 22.0 in the central directory: zipfile raises
        # NotImplementedError (found by fuzz/python/fuzz_npz_load.py)
        "zip version": bytearray(raw),
    }
    cd = raw.find(b"PK\x01\x02")
    cases["zip version"][cd + 6 : cd + 8] = (220).to_bytes(2, "little")
    for name, data in cases.items():
        path = tmp_path / f"{name}.npz"
        if data is None:
            archive(
                path,
                {
                    "t0.npy": npy_bytes(np.array([1], dtype=np.float32)).replace(b"<f4", b"|O "),
                    "__ferrograd__.npy": manifest_bytes({"kind": "ndarray", "key": "t0"}),
                },
            )
        else:
            path.write_bytes(bytes(data))
        with pytest.raises(ValueError):
            fg.load(path)
    assert fg.load(tmp_path / "ok.npz")["w"].shape == [64]
