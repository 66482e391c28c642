"""``ferrograd.save`` / ``ferrograd.load``: NumPy ``.npz`` files, no pickle."""

from __future__ import annotations

import io
import json
import math
import pickle

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def test_state_dict_round_trip_through_a_file(tmp_path):
    fg.seed(0)
    src = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    path = tmp_path / "model.pdparams"
    fg.save(src.state_dict(), path)
    assert path.exists()  # the name is used as given: no ".npz" appended
    loaded = fg.load(path)
    assert list(loaded) == list(src.state_dict())
    dst = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    dst.load_state_dict(loaded)
    x = fg.randn(5, 3)
    np.testing.assert_array_equal(src(x).detach().numpy(), dst(x).detach().numpy())


def test_file_is_plain_npz_readable_without_pickle(tmp_path):
    path = tmp_path / "w.npz"
    fg.save({"w": fg.tensor([[1.0, 2.0]]), "n": 3}, str(path))
    with np.load(path, allow_pickle=False) as z:
        np.testing.assert_array_equal(z["t0"], [1.0, 2.0])  # the tensor's memory, 1-D
        manifest = json.loads(bytes(z["__ferrograd__"]).decode())
    assert manifest["format"] == "ferrograd.npz" and manifest["version"] == 2
    w = manifest["root"]["items"][0][1]
    assert (w["storage"], w["shape"], w["strides"], w["offset"]) == ("t0", [1, 2], [2, 1], 0)


def test_nested_structures_dtypes_and_flags(tmp_path):
    obj = {
        "state": {0: {"exp_avg": fg.ones(2, dtype=fg.float64), "step": 7}},
        "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "params": [0, 1], "name": None}],
        "half": fg.tensor([1.5], dtype=fg.float16),
        "bf": fg.tensor([2.5], dtype=fg.bfloat16),
        "ints": fg.tensor([1, 2, 3]),
        "array": np.arange(4, dtype=np.int32),
        "flag": True,
        "inf": math.inf,
        "leaf": fg.tensor([1.0], requires_grad=True),
    }
    path = tmp_path / "opt.npz"
    fg.save(obj, path)
    back = fg.load(path)
    assert back["state"][0]["step"] == 7
    assert back["state"][0]["exp_avg"].dtype == fg.float64
    assert back["param_groups"][0]["betas"] == (0.9, 0.999)
    assert back["param_groups"][0]["name"] is None
    assert back["half"].dtype == fg.float16 and float(back["half"]) == 1.5
    assert back["bf"].dtype == fg.bfloat16 and float(back["bf"]) == 2.5
    assert back["ints"].dtype == fg.int64
    assert back["array"].dtype == np.int32
    assert back["flag"] is True and back["inf"] == math.inf
    assert back["leaf"].requires_grad and not back["ints"].requires_grad


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    fg.save({"a": fg.ones(3)}, buf)
    buf.seek(0)
    assert float(fg.load(buf)["a"].sum()) == 3.0


def test_objects_the_manifest_cannot_hold_load_only_with_weights_only_false(tmp_path):
    # as torch.save pickles them and torch.load (>= 2.6) refuses them by default
    # (torch/serialization.py, load: pickle.UnpicklingError); tests/python/
    # test_save_whole_model.py covers whole models
    for i, obj in enumerate([{"x": 1 + 2j}, {(1, 2): fg.ones(1)}, {"x": np.array([None])}]):
        fg.save(obj, tmp_path / f"{i}.npz")
        with pytest.raises(pickle.UnpicklingError, match="weights_only"):
            fg.load(tmp_path / f"{i}.npz")
        back = fg.load(tmp_path / f"{i}.npz", weights_only=False)
        assert repr(back) == repr(obj)
    with pytest.raises(TypeError, match="lambda"):
        fg.save({"x": lambda: 0}, tmp_path / "d.npz")


def test_foreign_files_are_refused(tmp_path):
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.ones(2))
    with pytest.raises(ValueError, match="not written by ferrograd.save"):
        fg.load(plain)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match="not a ferrograd .npz file"):
        fg.load(junk)
    with pytest.raises(ValueError, match="CPU"):
        fg.load(plain, map_location="cuda:0")


def test_a_zero_dim_tensor_keeps_its_shape(tmp_path):
    # np.ascontiguousarray turns 0-d arrays into shape (1,): the writer must not
    path = tmp_path / "scalars.npz"
    fg.save({"s": fg.to_tensor(3.0), "i": fg.to_tensor(7)}, path)
    back = fg.load(path)
    assert list(back["s"].shape) == [] and float(back["s"]) == 3.0
    assert list(back["i"].shape) == [] and int(back["i"]) == 7
