"""Findings of session 42's run of PyTorch's own ``test/nn`` and ``test/optim`` files
(``test_init.py``, ``test_module_hooks.py``, ``test_packed_sequence.py``,
``test_load_state_dict.py``, ``test_swa_utils.py``), each pinned by a test of
ferrograd's own. The expected behaviour is PyTorch 2.x's, read from its sources (cited
per test).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

import ferrograd as torch
import ferrograd.nn as nn
import ferrograd.nn.utils.rnn as rnn_utils
import pytest
from ferrograd.nn.modules import module as global_hooks

# ------------------------------------------------------------------ nn.init


def test_calculate_gain_refuses_non_numbers_regression():
    # torch/nn/init.py, calculate_gain: negative_slope must be an int (not a bool) or a
    # float, else ValueError; before, True counted as 1.0 and [1] raised TypeError
    for param in (True, [1], {"a": "b"}):
        with pytest.raises(ValueError, match="not a valid number"):
            nn.init.calculate_gain("leaky_relu", param)
    assert nn.init.calculate_gain("leaky_relu", 10) == pytest.approx(0.14071950894605836)
    assert nn.init.calculate_gain("leaky_relu", 0) == pytest.approx(2**0.5)


# ------------------------------------------------------------------ hook handles


def test_hook_handle_context_manager_regression():
    # torch/utils/hooks.py, RemovableHandle.__enter__/__exit__: `with handle:` removes
    # the hook on leaving; hooks_dict_ref() gives the registry
    m = nn.Sigmoid()
    calls = []
    with m.register_forward_hook(lambda *a: calls.append(1)) as handle:
        assert handle.id in handle.hooks_dict_ref()
        m(torch.ones(2))
    m(torch.ones(2))
    assert calls == [1]
    assert handle.id not in handle.hooks_dict_ref()


# ------------------------------------------------------------------ backward hooks


def test_full_backward_hook_grad_output_per_output_regression():
    # torch/utils/hooks.py, BackwardHook: grad_output has one entry per output of a
    # tuple result, None for one that is not a tensor; before, only the tensors' entries
    class M(nn.Module):
        def forward(self, flag, t):
            return t.clone(), flag

    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["in"], seen["out"] = grad_input, grad_output

    m = M()
    m.register_full_backward_hook(hook)
    x = torch.rand(2, requires_grad=True)
    out, _ = m(True, x)
    out.sum().backward()
    assert seen["in"][0] is None and seen["in"][1] is not None
    assert len(seen["out"]) == 2 and seen["out"][1] is None
    assert seen["out"][0].tolist() == [1.0, 1.0]


def test_backward_hook_wrong_count_words_regression():
    # torch/utils/hooks.py: "Backward hook returned an invalid number of grad_input, got
    # 0, but expected 1" (and the pre-hook's "... grad_output ...")
    m = nn.Sigmoid()
    x = torch.randn(3, requires_grad=True)
    with m.register_full_backward_hook(lambda mod, gi, go: gi[:-1]):
        with pytest.raises(RuntimeError, match="got 0, but expected 1"):
            m(x).sum().backward()
    with m.register_full_backward_pre_hook(lambda mod, go: go + (torch.ones(3),)):
        with pytest.raises(RuntimeError, match="grad_output, got 2, but expected 1"):
            m(x).sum().backward()


def test_backward_hook_no_input_requires_grad_must_return_none_regression():
    # torch/utils/hooks.py, BackwardHook: when no input requires grad the hook may only
    # return None (or all-None); before, a returned tensor was silently dropped
    lin = nn.Linear(2, 3)
    inp = torch.rand(1, 2)
    result = {"value": None}
    lin.register_full_backward_hook(lambda mod, gi, go: result["value"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lin(inp).sum().backward()  # None: fine
        result["value"] = (None,)
        lin(inp).sum().backward()  # all None: fine
        result["value"] = inp
        with pytest.raises(RuntimeError, match="where no input requires gradient"):
            lin(inp).sum().backward()


def test_backward_hook_dict_output_warns_regression():
    # torch/nn/modules/module.py, _call_impl: a module with backward hooks whose output
    # is not a Tensor or tuple warns (the hooks cannot run); before, silent
    class M(nn.Module):
        def forward(self, d):
            return {"x": d["x"] * 2}

    m = M()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.warns(UserWarning, match="should be a Tensor or a tuple of Tensors"):
        m({"x": torch.ones(2, requires_grad=True)})


# ------------------------------------------------------------------ global module hooks


@pytest.fixture
def clean_globals():
    yield
    # as PyTorch's TestModuleGlobalHooks.tearDown: the registries reassigned
    global_hooks._global_forward_pre_hooks = OrderedDict()
    global_hooks._global_forward_hooks = OrderedDict()
    global_hooks._global_backward_hooks = OrderedDict()
    global_hooks._global_backward_pre_hooks = OrderedDict()
    global_hooks._global_is_full_backward_hook = None


def test_global_forward_hooks_run_first_regression(clean_globals):
    # torch/nn/modules/module.py, register_module_forward_pre_hook / _forward_hook: run
    # for every module, before the module's own; a result replaces args / output
    order = []
    m = nn.Sigmoid()
    global_hooks.register_module_forward_pre_hook(lambda mod, a: order.append("gpre"))
    m.register_forward_pre_hook(lambda mod, a: order.append("pre"))
    h = nn.modules.module.register_module_forward_hook(lambda mod, a, out: -out)
    m.register_forward_hook(lambda mod, a, out: order.append("post"))
    out = m(torch.zeros(2))
    assert order == ["gpre", "pre", "post"]
    assert out.tolist() == [-0.5, -0.5]
    h.remove()
    assert m(torch.zeros(2)).tolist() == [0.5, 0.5]


def test_global_backward_hooks_regression(clean_globals):
    # register_module_full_backward_hook / register_module_backward_hook: global hooks
    # before the module's own; the two kinds cannot be mixed (PyTorch's RuntimeError)
    order = []
    m = nn.Sigmoid()
    x = torch.randn(3, requires_grad=True)
    g = global_hooks.register_module_full_backward_hook(lambda mod, gi, go: order.append("global"))
    m.register_full_backward_hook(lambda mod, gi, go: order.append("local"))
    m(x).sum().backward()
    assert order == ["global", "local"]
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        global_hooks.register_module_backward_hook(lambda *a: None)
    g.remove()
    # a reassigned registry (PyTorch's tests reset it so) is the one read
    global_hooks._global_backward_hooks = OrderedDict()
    order.clear()
    m(x).sum().backward()
    assert order == ["local"]


def test_global_registration_hooks_regression():
    # register_module_{buffer,module,parameter}_registration_hook: hook(module, name,
    # value) on every registration; a non-None result is registered instead
    seen = []
    replacement = nn.Parameter(torch.zeros(2))

    def on_param(module, name, param):
        seen.append(("param", name))
        return replacement if name == "swapped" else None

    handles = [
        global_hooks.register_module_parameter_registration_hook(on_param),
        global_hooks.register_module_buffer_registration_hook(
            lambda m, n, b: seen.append(("buffer", n))
        ),
        global_hooks.register_module_module_registration_hook(
            lambda m, n, s: seen.append(("module", n))
        ),
    ]
    try:
        holder = nn.Module()
        holder.swapped = nn.Parameter(torch.ones(2))
        holder.register_buffer("buf", torch.ones(1))
        holder.child = nn.Identity()
    finally:
        for h in handles:
            h.remove()
    assert holder.swapped is replacement
    assert ("param", "swapped") in seen and ("buffer", "buf") in seen
    assert ("module", "child") in seen
    seen.clear()
    nn.Module().register_buffer("later", torch.ones(1))
    assert seen == []


def test_batchnorm_base_class_regression():
    # torch/nn/modules/batchnorm.py: _BatchNorm, the base class update_bn looks for
    from ferrograd.nn.modules.batchnorm import _BatchNorm

    for cls in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d):
        assert isinstance(cls(3), _BatchNorm)
    assert not isinstance(nn.LayerNorm(3), _BatchNorm)


# ------------------------------------------------------------------ packed sequences


def test_packed_sequence_conversions_regression():
    # torch/nn/utils/rnn.py, PackedSequence.to / cpu / double / ...: data converted, the
    # same object back when nothing changes, the index tensors keep their dtype
    packed = rnn_utils.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])])
    assert packed.to("cpu") is packed and packed.cpu() is packed
    assert packed.to("cpu", dtype=torch.int64) is packed
    as_double = packed.double()
    assert as_double.data.dtype == torch.float64
    assert as_double.batch_sizes.tolist() == packed.batch_sizes.tolist()
    assert packed.byte().data.dtype == torch.uint8
    unpacked, _ = rnn_utils.pad_packed_sequence(packed.float())
    assert unpacked.type() == "torch.FloatTensor"


def test_packing_errors_are_runtime_errors_regression():
    # PyTorch raises RuntimeError for unsorted lengths with enforce_sorted=True and for
    # empty batches (aten _pack_padded_sequence), and for a non-iterable pad_sequence
    # argument (torch/nn/utils/rnn.py, pad_sequence)
    b_a = rnn_utils.pad_sequence([torch.ones(2, 3), torch.ones(3, 3)])
    with pytest.raises(RuntimeError, match="You can pass `enforce_sorted=False`"):
        rnn_utils.pack_padded_sequence(b_a, [2, 3], enforce_sorted=True)
    with pytest.raises(ValueError):  # ferrograd's earlier type still catches it
        rnn_utils.pack_padded_sequence(b_a, [2, 3], enforce_sorted=True)
    with pytest.raises(RuntimeError, match="empty tensor"):
        rnn_utils.pack_padded_sequence(torch.randn(0, 0), [])
    with pytest.raises(RuntimeError, match="Expected iterable for input sequences"):
        rnn_utils.pad_sequence(5)
    packed = rnn_utils.pack_sequence([torch.ones(3), torch.ones(2)])
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        rnn_utils.pad_packed_sequence(packed, total_length=2)


# ------------------------------------------------------------------ load_state_dict


def test_load_state_dict_strict_words_regression():
    # torch/nn/modules/module.py, load_state_dict: "Error(s) in loading state_dict for
    # X:\n\tMissing key(s) in state_dict: "bias". \n\tUnexpected key(s) ..." (the
    # missing keys first: each line is inserted at the front of the list)
    m = nn.Linear(2, 2)
    sd = m.state_dict()
    del sd["bias"]
    sd["extra"] = torch.ones(1)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
        m.load_state_dict(sd)
    with pytest.raises(RuntimeError, match='"bias".*\n.*"extra"'):
        m.load_state_dict(sd)
    with pytest.raises(RuntimeError, match="missing keys \\['bias'\\]"):  # ferrograd's
        m.load_state_dict(sd)


def test_load_state_dict_size_and_type_words_regression():
    # torch/nn/modules/module.py: "size mismatch for fc1.weight: copying a param with
    # shape ..." and "Expected state_dict to be dict-like, got <class 'str'>."
    m = nn.Linear(3, 5)
    sd = m.state_dict()
    sd["weight"] = torch.randn(2, 4)
    with pytest.raises(RuntimeError, match="size mismatch for weight: copying a param"):
        m.load_state_dict(sd)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        m.load_state_dict("")


def test_save_and_load_from_state_dict_overrides_regression():
    # torch/nn/modules/module.py: state_dict calls self._save_to_state_dict(destination,
    # prefix, keep_vars) and load_state_dict self._load_from_state_dict(...), which
    # modules override (test/nn/test_load_state_dict.py, test_load_state_dict_custom)
    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(torch.ones(1))

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            destination[prefix + "serialized"] = self.param.data + 1

        def _load_from_state_dict(self, state_dict, prefix, *rest):
            self.param.data.copy_(state_dict[prefix + "serialized"] - 1)

    m = nn.Sequential(Custom())
    sd = m.state_dict()
    assert list(sd) == ["0.serialized"]
    fresh = nn.Sequential(Custom())
    sd["0.serialized"] = torch.tensor([11.0])
    fresh.load_state_dict(sd)
    assert fresh[0].param.item() == 10.0


def test_state_dict_metadata_batchnorm_version_regression():
    # torch/nn/modules/batchnorm.py, _NormBase._load_from_state_dict: version None or
    # < 2 without num_batches_tracked loads it as 0 (test_load_state_dict_BC)
    bn = nn.BatchNorm2d(3)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    bn.load_state_dict(sd)
    assert bn.num_batches_tracked.item() == 0
