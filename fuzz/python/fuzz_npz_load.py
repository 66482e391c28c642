"""Coverage-guided fuzzing (atheris, libFuzzer for Python) of ``ferrograd.load``: the
.npz manifest reader and the checks on archive members. Every input must load or raise
ValueError; anything else (another exception, a crash, a hang) is a finding.

    pip install atheris
    python fuzz/python/fuzz_npz_load.py -max_total_time=600 fuzz/corpus/npz

Half the inputs are whole archives (byte-mutated from the seeds in the corpus); the other
half are manifests, wrapped in a valid archive with two small array members, so the
mutations reach the manifest checks rather than dying in the zip reader.
"""

from __future__ import annotations

import io
import sys
import zipfile

import atheris

with atheris.instrument_imports():
    import ferrograd as fg
    import numpy as np

ARRAYS = {}
for key, array in {"t0": np.arange(4, dtype=np.float32), "t1": np.ones((2, 2))}.items():
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array)
    ARRAYS[key + ".npy"] = buf.getvalue()


def wrap_manifest(text: bytes) -> bytes:
    buf = io.BytesIO()
    member = io.BytesIO()
    np.lib.format.write_array(member, np.frombuffer(text, dtype=np.uint8))
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in ARRAYS.items():
            zf.writestr(name, data)
        zf.writestr("__ferrograd__.npy", member.getvalue())
    return buf.getvalue()


def one_input(data: bytes) -> None:
    if not data:
        return
    payload = data[1:] if data[0] & 1 else wrap_manifest(data[1:])
    try:
        fg.load(io.BytesIO(payload), max_bytes=1 << 20)
    except ValueError:
        pass


def seeds(directory: str) -> None:
    """Writes a few valid files as the starting corpus."""
    import os

    os.makedirs(directory, exist_ok=True)
    objs = [
        {"w": fg.ones([2, 3]), "n": 3, "s": "x", "f": float("inf")},
        [fg.zeros([0]), (1, None), {"0": np.arange(3)}],
    ]
    for i, obj in enumerate(objs):
        buf = io.BytesIO()
        fg.save(obj, buf)
        with open(os.path.join(directory, f"seed{i}"), "wb") as f:
            f.write(b"\x01" + buf.getvalue())
        with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
            manifest = np.load(io.BytesIO(zf.read("__ferrograd__.npy")))
        with open(os.path.join(directory, f"manifest{i}"), "wb") as f:
            f.write(b"\x00" + manifest.tobytes())


if __name__ == "__main__":
    corpus = [a for a in sys.argv[1:] if not a.startswith("-")]
    for c in corpus:
        seeds(c)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
