"""``state_dict`` / ``load_state_dict`` as PyTorch 2.x's per-module walks: the
overridable ``_save_to_state_dict`` / ``_load_from_state_dict``, ``_metadata`` with each
module's ``_version`` (kept through copy, pickle and ``save`` / ``load``), BatchNorm's
version-1 checkpoints, hook order, extra state, PyTorch's error texts, and Paddle code's
``set_state_dict`` unchanged.

This module is PyTorch code (``import ferrograd as torch``, docs/dialects.md). The
expected behaviour is read from PyTorch's ``torch/nn/modules/module.py`` (``state_dict``,
``_save_to_state_dict``, ``load_state_dict`` and its inner ``load``,
``_load_from_state_dict``) and ``torch/nn/modules/batchnorm.py``
(``_NormBase._load_from_state_dict``), cited per test.
"""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import ferrograd as torch
import numpy as np
import pytest

nn = torch.nn


def _run(src: str, name: str, **names) -> dict:
    """Runs ``src`` as a module whose globals name ferrograd ``name`` (its dialect)."""
    g: dict = {"__name__": "user_script", "np": np, **names}
    g[name] = torch
    exec(compile(src, "<user_script>", "exec"), g)
    return g


class Recorder(nn.Module):
    """Records the arguments of its overridden state-dict methods, then does the base
    work through ``super()``."""

    _version = 3

    def __init__(self, log):
        super().__init__()
        self.log = log
        self.w = nn.Parameter(torch.ones(2))

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        self.log.append(("save", prefix, keep_vars, sorted(destination)))
        super()._save_to_state_dict(destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, meta, strict, missing, unexp, errs):
        self.log.append(("load", prefix, dict(meta), strict, sorted(state_dict)))
        super()._load_from_state_dict(state_dict, prefix, meta, strict, missing, unexp, errs)


# ------------------------------------------------------------------ overrides


def test_overrides_called_per_module_with_prefix_and_metadata():
    # module.py: state_dict calls self._save_to_state_dict(destination, prefix,
    # keep_vars) per module before its children; load's inner `load` calls
    # module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, ...)
    # with the entries under the module's prefix and metadata.get(prefix[:-1], {})
    log = []
    net = nn.Sequential(Recorder(log), nn.Sequential(nn.Linear(2, 2), Recorder(log)))
    sd = net.state_dict(keep_vars=True)
    assert list(sd) == ["0.w", "1.0.weight", "1.0.bias", "1.1.w"]
    assert log == [
        ("save", "0.", True, []),
        ("save", "1.1.", True, ["0.w", "1.0.bias", "1.0.weight"]),
    ]
    assert sd._metadata == OrderedDict(
        [("", {"version": 1}), ("0", {"version": 3}), ("1", {"version": 1}),
         ("1.0", {"version": 1}), ("1.1", {"version": 3})]
    )  # fmt: skip
    log.clear()
    res = net.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert log == [
        ("load", "0.", {"version": 3}, True, ["0.w"]),
        ("load", "1.1.", {"version": 3}, True, ["1.1.w"]),
    ]
    # a plain dict has no metadata: {} is passed; assign adds PyTorch's flag (on a copy)
    log.clear()
    net.load_state_dict(dict(sd), assign=True)
    assert log[0][2] == {"assign_to_params_buffers": True}
    log.clear()
    net.load_state_dict(sd, assign=True)
    assert log[0][2] == {"version": 3, "assign_to_params_buffers": True}
    assert sd._metadata["0"] == {"version": 3}  # the caller's metadata is unchanged


def test_custom_entries_renamed_by_overrides():
    # test/nn/test_load_state_dict.py, test_load_state_dict_custom: an override that
    # writes its own key and reads it back; the children are saved and loaded as usual
    class CustomState(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(torch.ones(1))
            self.sub = nn.Linear(5, 5)

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            destination[prefix + "serialized"] = self.param.data + 1

        def _load_from_state_dict(self, state_dict, prefix, *rest):
            self.param.data.copy_(state_dict[prefix + "serialized"] - 1)

    m = nn.Sequential(CustomState())
    with torch.no_grad():
        m[0].param[0] = 10
        m[0].sub.weight[0, 0] = 555
    sd = m.state_dict()
    assert sd["0.serialized"].item() == 11 and "0.sub.weight" in sd and "0.param" not in sd
    mm = nn.Sequential(CustomState())
    mm.load_state_dict(sd)  # the override reports no unexpected "0.serialized"
    assert mm[0].param.item() == 10 and mm[0].sub.weight[0, 0].item() == 555


def test_version_upgrade_in_an_override():
    # the pattern of library modules: a key renamed in version 2, read from local_metadata
    class Scaled(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(3))

        def _load_from_state_dict(self, sd, prefix, meta, *rest):
            if meta.get("version", 1) < 2 and prefix + "gain" in sd:
                sd[prefix + "scale"] = sd.pop(prefix + "gain")
            super()._load_from_state_dict(sd, prefix, meta, *rest)

    old = OrderedDict([("blk.gain", torch.full([3], 4.0))])
    old._metadata = OrderedDict([("", {"version": 1}), ("blk", {"version": 1})])
    net = nn.Module()
    net.blk = Scaled()
    assert net.load_state_dict(old).missing_keys == []
    assert net.blk.scale.tolist() == [4.0, 4.0, 4.0]
    # a version-2 checkpoint is taken as it is: "gain" is then unexpected
    old._metadata["blk"]["version"] = 2
    res = net.load_state_dict(old, strict=False)
    assert res.missing_keys == ["blk.scale"] and res.unexpected_keys == ["blk.gain"]


def test_override_values_are_copied_at_once():
    # an override may read its loaded values right after super() (PyTorch copies inside
    # _load_from_state_dict), so its module is not deferred
    seen = []

    class Derived(nn.Linear):
        def _load_from_state_dict(self, *args):
            super()._load_from_state_dict(*args)
            seen.append(self.weight.sum().item())

    m = Derived(2, 2)
    m.load_state_dict({"weight": torch.ones(2, 2), "bias": torch.zeros(2)})
    assert seen == [4.0]


# ------------------------------------------------------------------ metadata


def test_metadata_round_trip_copy_pickle_save_load(tmp_path):
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.InstanceNorm1d(3))
    sd = net.state_dict()
    want = OrderedDict(
        [("", {"version": 1}), ("0", {"version": 1}), ("1", {"version": 2}),
         ("2", {"version": 2})]
    )  # fmt: skip
    assert sd._metadata == want
    assert copy.deepcopy(sd)._metadata == want and copy.copy(sd)._metadata == want
    assert pickle.loads(pickle.dumps(sd))._metadata == want
    torch.save(sd, tmp_path / "sd.pt")
    back = torch.load(tmp_path / "sd.pt")
    assert isinstance(back, OrderedDict) and back._metadata == want
    torch.save({"model": sd, "epoch": 3}, tmp_path / "ckpt.pt")
    assert torch.load(tmp_path / "ckpt.pt")["model"]._metadata == want
    # metadata the manifest cannot hold: the dict is pickled, as torch.save pickles it
    sd._metadata["0"]["note"] = {1, 2}
    torch.save(sd, tmp_path / "odd.pt")
    with pytest.raises(pickle.UnpicklingError):
        torch.load(tmp_path / "odd.pt")
    assert torch.load(tmp_path / "odd.pt", weights_only=False)._metadata["0"]["note"] == {1, 2}


def test_metadata_with_prefix_and_destination():
    # module.py: _metadata[prefix[:-1]]; a destination without _metadata gets none
    m = nn.Sequential(nn.Linear(1, 1))
    assert list(m.state_dict(prefix="p.")._metadata) == ["p", "p.0"]
    dest = OrderedDict()
    out = m.state_dict(destination=dest)
    assert out is dest and not hasattr(dest, "_metadata") and list(dest) == ["0.weight", "0.bias"]
    dest._metadata = OrderedDict()
    m.state_dict(destination=dest)
    assert list(dest._metadata) == ["", "0"]


def test_post_hook_gets_the_metadata_entry():
    got = []
    m = nn.BatchNorm2d(2)
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: got.append(meta))
    sd = m.state_dict()
    assert got == [{"version": 2}] and got[0] is sd._metadata[""]


def test_malformed_metadata_in_a_file_is_refused(tmp_path):
    import json

    torch.save(nn.Linear(1, 1).state_dict(), tmp_path / "ok.pt")
    with np.load(tmp_path / "ok.pt") as z:
        arrays = {k: z[k] for k in z.files}
    doc = json.loads(arrays["__ferrograd__"].tobytes().decode())
    assert doc["root"]["kind"] == "dict" and doc["root"]["metadata"][0] == ["", {"version": 1}]
    doc["root"]["metadata"] = [["", [1, 2]]]
    arrays["__ferrograd__"] = np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)
    with open(tmp_path / "bad.pt", "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ValueError, match="metadata item"):
        torch.load(tmp_path / "bad.pt")


# ------------------------------------------------------------------ BatchNorm


def test_batchnorm_version_1_checkpoint_without_num_batches_tracked():
    # batchnorm.py, _NormBase._load_from_state_dict: version None or < 2 and
    # track_running_stats: a missing num_batches_tracked takes the module's count
    # (test/nn/test_load_state_dict.py, test_load_state_dict_BC)
    bn = nn.BatchNorm2d(3)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd["running_mean"] = torch.full([3], 2.0)
    sd._metadata[""]["version"] = 1
    assert bn.load_state_dict(sd).missing_keys == []
    assert bn.num_batches_tracked.dtype == torch.long and bn.num_batches_tracked.item() == 0
    assert bn.running_mean.tolist() == [2.0, 2.0, 2.0]
    del sd._metadata[""]["version"]  # no version
    bn.load_state_dict(sd)
    assert bn.num_batches_tracked.item() == 0
    # PyTorch 2.x keeps a trained module's count (not reset to 0)
    bn.train()
    bn(torch.randn(4, 3, 2, 2))
    bn.load_state_dict(dict(sd))  # a plain dict: no metadata, version None
    assert bn.num_batches_tracked.item() == 1
    # a version-2 checkpoint must have it
    sd._metadata[""]["version"] = 2
    with pytest.raises(
        RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'
    ):
        bn.load_state_dict(sd)


def test_batchnorm_nested_and_instance_norm_versions():
    net = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2))
    sd = net.state_dict()
    del sd["1.num_batches_tracked"]
    sd._metadata["1"] = {"version": 1}
    net.load_state_dict(sd)
    inorm = nn.InstanceNorm1d(2, track_running_stats=True)
    sd = inorm.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    assert inorm.load_state_dict(sd).missing_keys == []
    # without running statistics nothing is added
    plain = nn.BatchNorm1d(2, track_running_stats=False)
    assert list(plain.state_dict()) == ["weight", "bias"]
    assert (
        plain.load_state_dict({"weight": torch.ones(2), "bias": torch.zeros(2)}).missing_keys == []
    )


def test_failed_load_leaves_batchnorm_unchanged():
    # ferrograd's documented difference: the norms' override only edits the state dict
    # before the base method, so their copies wait for an error-free walk too
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    sd = {k: torch.full_like(v, 5) for k, v in net.state_dict().items()}
    sd["zz"] = torch.ones(1)
    before = [v.clone() for v in net.state_dict().values()]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "zz"'):
        net.load_state_dict(sd)
    assert all(a.equal(b) for a, b in zip(before, net.state_dict().values()))
    del sd["zz"]
    net.load_state_dict(sd)
    assert net[1].running_var.tolist() == [5.0, 5.0] and net[1].num_batches_tracked.item() == 5


# ------------------------------------------------------------------ hooks


def test_hook_order_with_overrides():
    # module.py: state_dict runs the pre-hooks, then _save_to_state_dict, the children,
    # the post-hooks; load pre-hooks run inside the base _load_from_state_dict, post-hooks
    # after the module's children
    log = []
    outer = nn.Sequential(Recorder(log))
    inner = outer[0]
    inner.register_state_dict_pre_hook(lambda m, p, kv: log.append(("pre", p)))
    outer.register_state_dict_post_hook(lambda m, sd, p, meta: log.append(("post", p)))
    inner.register_load_state_dict_pre_hook(lambda m, sd, p, *r: log.append(("lpre", p)))
    inner.register_load_state_dict_post_hook(lambda m, keys: log.append(("lpost-in",)))
    outer.register_load_state_dict_post_hook(lambda m, keys: log.append(("lpost-out",)))
    sd = outer.state_dict()
    outer.load_state_dict(sd)
    assert [e[0] for e in log] == [
        "pre", "save", "post", "load", "lpre", "lpost-in", "lpost-out",
    ]  # fmt: skip


def test_override_without_super_skips_pre_hooks():
    # PyTorch runs the load pre-hooks in the base _load_from_state_dict
    calls = []

    class Own(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.Parameter(torch.zeros(1))

        def _load_from_state_dict(self, sd, prefix, *rest):
            self.p.data.copy_(sd[prefix + "p"])

    m = Own()
    m.register_load_state_dict_pre_hook(lambda *a: calls.append(1))
    m.load_state_dict({"p": torch.ones(1)})
    assert calls == [] and m.p.item() == 1.0


# ------------------------------------------------------------------ extra state


class WithExtra(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(1, 1)
        self.state = {"step": 0}

    def get_extra_state(self):
        return dict(self.state)

    def set_extra_state(self, state):
        self.state = dict(state)


def test_extra_state_round_trip_and_keys():
    m = nn.Sequential(WithExtra())
    m[0].state["step"] = 7
    sd = m.state_dict()
    assert list(sd) == ["0._extra_state", "0.lin.weight", "0.lin.bias"]
    fresh = nn.Sequential(WithExtra())
    fresh.load_state_dict(sd)
    assert fresh[0].state == {"step": 7}
    del sd["0._extra_state"]
    res = fresh.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["0._extra_state"]
    # a module without set_extra_state: the key is unexpected
    plain = nn.Sequential(nn.Linear(1, 1))
    res = plain.load_state_dict(
        {"0.weight": torch.ones(1, 1), "0.bias": torch.ones(1), "0._extra_state": 3},
        strict=False,
    )
    assert res.unexpected_keys == ["0._extra_state"]


def test_failed_load_sets_no_extra_state_and_copies_nothing():
    m = WithExtra()
    before = m.lin.weight.tolist()
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict(
            {"_extra_state": {"step": 5}, "lin.weight": torch.full([1, 1], 9.0),
             "lin.bias": torch.ones(1), "zz": torch.ones(1)}
        )  # fmt: skip
    assert m.state == {"step": 0} and m.lin.weight.tolist() == before


# ------------------------------------------------------------------ errors and values


def test_non_tensor_values_refused_in_pytorch_code():
    # module.py, _load_from_state_dict: "expected torch.Tensor or Tensor-like object from
    # checkpoint but received <class ...>" (test_load_state_dict_invalid)
    m = nn.Linear(2, 2, bias=False)
    for value in (np.random.randn(2, 2), ((1.0, 1.0), (2.0, 2.0))):
        with pytest.raises(RuntimeError, match="expected torch.Tensor or Tensor-like object"):
            m.load_state_dict({"weight": value})


def test_non_tensor_values_taken_in_paddle_and_neutral_code():
    # Paddle's Layer.set_state_dict takes NumPy arrays (python/paddle/nn/layer/layers.py)
    src = (
        "m = paddle.nn.Linear(2, 3)\n"
        "res = m.set_state_dict({'weight': np.full((2, 3), 2.0), 'bias': np.zeros(3)})\n"
        "sd = m.state_dict()\n"
        "keys = list(m.state_dict(structured_name_prefix='x.'))\n"
    )
    g = _run(src, "paddle")
    assert g["m"].weight.tolist() == [[2.0] * 3] * 2
    assert tuple(g["res"]) == ([], [])
    assert g["keys"] == ["x.weight", "x.bias"]
    g = _run("m = fg.nn.Linear(2, 2)\nm.load_state_dict({'weight': np.ones((2, 2)), 'bias': [1.0, 2.0]})", "fg")  # fmt: skip
    assert g["m"].bias.tolist() == [1.0, 2.0]


def test_errors_collected_with_pytorch_texts():
    # module.py, load_state_dict: the missing keys line, then the unexpected keys, then
    # the other errors, raised together; a size mismatch is raised strict or not
    m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    sd = m.state_dict()
    sd["1.weight"] = torch.ones(3, 3)
    del sd["0.bias"]
    sd["extra"] = torch.ones(1)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(sd)
    text = str(info.value)
    assert isinstance(info.value, ValueError)  # StateDictShapeError, ferrograd's
    assert text.startswith("Error(s) in loading state_dict for Sequential:\n\t")
    lines = text.split("\n\t")
    assert lines[1] == 'Missing key(s) in state_dict: "0.bias". '
    assert lines[2] == 'Unexpected key(s) in state_dict: "extra". '
    assert lines[3].startswith(
        "size mismatch for 1.weight: copying a param with shape (3, 3) from checkpoint, "
        "the shape in current model is (1, 2)."
    )
    with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
        m.load_state_dict(sd, strict=False)


def test_zero_dim_entry_from_one_element_checkpoint():
    # module.py: a 0-d entry loads a saved [1] tensor (PyTorch 0.3 checkpoints); ferrograd
    # takes only a one-element value (a longer one is a size mismatch, not its first)
    m = nn.Module()
    m.register_buffer("count", torch.tensor(0))
    m.load_state_dict({"count": torch.tensor([5])})
    assert m.count.shape == () and m.count.item() == 5
    with pytest.raises(RuntimeError, match="size mismatch for count"):
        m.load_state_dict({"count": torch.tensor([5, 6])})


def test_assign_keeps_a_parameter_object():
    # module.py, _load_from_state_dict with assign: a Parameter in the state dict is used
    # itself (its requires_grad set to the module's), a tensor wrapped in a Parameter
    src = nn.Linear(2, 2)
    src.weight.requires_grad_(False)
    dst = nn.Linear(2, 2)
    sd = src.state_dict(keep_vars=True)
    dst.load_state_dict(sd, assign=True)
    assert dst.weight is sd["weight"] and dst.weight.requires_grad
    dst.load_state_dict(nn.Linear(2, 2).state_dict(), assign=True)
    assert isinstance(dst.bias, nn.Parameter) and dst.bias.requires_grad
