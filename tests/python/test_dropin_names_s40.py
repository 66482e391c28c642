"""Everyday PyTorch names scripts and tests import (session 40): torch.testing
(assert_close, assert_allclose, make_tensor), torch.mps / torch.xpu, torch.nn.modules.utils,
nn.DataParallel, torch.utils._pytree, torch.multiprocessing (spawn) and
torch.nn.utils.prune. Expected texts and rules are PyTorch's, read from its source (each
test names the file and function)."""

import collections
import math
import warnings

import ferrograd as torch
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.testing import assert_allclose, assert_close, make_tensor

# ------------------------------------------------------------------ testing.assert_close


def test_assert_close_passes_and_report_matches_pytorch_docstring():
    # torch/testing/_comparison.py assert_close docstring: the msg-callable example
    expected = torch.tensor([1.0, 2.0, 3.0])
    assert_close(expected.clone(), expected)
    actual = torch.tensor([1.0, 4.0, 5.0])
    with pytest.raises(AssertionError) as info:
        assert_close(actual, expected, msg=lambda m: f"Header\n\n{m}\n\nFooter")
    assert str(info.value) == (
        "Header\n\nTensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)\n\nFooter"
    )
    with pytest.raises(AssertionError, match=r"^Argh, the tensors are not close!$"):
        assert_close(actual, expected, msg="Argh, the tensors are not close!")


def test_assert_close_one_mismatch_report():
    # make_tensor_mismatch_msg: differences in the tensors' dtype, indices of the maxima
    with pytest.raises(AssertionError) as info:
        assert_close(torch.tensor([1.0, 2.0, 3.5]), torch.tensor([1.0, 2.0, 3.0]))
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (2,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.1666666716337204 at index (2,) (up to 1.3e-06 allowed)"
    )
    with pytest.raises(AssertionError, match=r"at index \(1, 0\)"):
        assert_close(torch.tensor([[1.0, 2.0], [9.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))


def test_assert_close_scalar_reports():
    # assert_close docstring: "Expected 1e-10 but got 1e-09." and the NaN example
    with pytest.raises(AssertionError) as info:
        assert_close(1e-9, 1e-10, rtol=0, atol=0)
    assert str(info.value) == (
        "Scalars are not equal!\n\nExpected 1e-10 but got 1e-09.\n"
        "Absolute difference: 9.000000000000001e-10\nRelative difference: 9.0"
    )
    nan = torch.tensor(float("nan"))
    with pytest.raises(AssertionError) as info:
        assert_close(nan, nan.clone())
    assert str(info.value) == (
        "Scalars are not close!\n\nExpected nan but got nan.\n"
        "Absolute difference: nan (up to 1e-05 allowed)\n"
        "Relative difference: nan (up to 1.3e-06 allowed)"
    )
    assert_close(nan, nan.clone(), equal_nan=True)
    assert_close(float("nan"), float("nan"), equal_nan=True)


@pytest.mark.parametrize(
    "dtype, rtol, atol",
    [
        (torch.float16, 1e-3, 1e-5),
        (torch.bfloat16, 1.6e-2, 1e-5),
        (torch.float32, 1.3e-6, 1e-5),
        (torch.float64, 1e-7, 1e-7),
        (torch.complex64, 1.3e-6, 1e-5),
        (torch.complex128, 1e-7, 1e-7),
    ],
)
def test_assert_close_default_tolerances(dtype, rtol, atol):
    # _comparison.py _DTYPE_PRECISIONS: the report states the tolerance used; a difference
    # well inside it passes
    base = torch.tensor([256.0, 1.0], dtype=dtype)
    inside = torch.tensor([256.0, 1.0 + atol / 4], dtype=torch.float64).to(dtype)
    if dtype in (torch.float16, torch.bfloat16):  # the step is coarser than atol there
        inside = base.clone()
    assert_close(inside, base)
    with pytest.raises(
        AssertionError, match=rf"\(up to {atol} allowed\)[\s\S]*\(up to {rtol} allowed\)"
    ):
        assert_close(torch.tensor([300.0, 1.0], dtype=dtype), base)


def test_assert_close_boundaries_float32_and_integers():
    # |a - e| <= atol + rtol * |e|: 1e-5 absolute is allowed at 0, 2e-5 is not
    assert_close(torch.tensor([1e-5]), torch.tensor([0.0]))
    with pytest.raises(AssertionError):
        assert_close(torch.tensor([2e-5]), torch.tensor([0.0]))
    # integers compare exactly ("other" dtypes: 0.0 / 0.0): the report says "equal"
    with pytest.raises(AssertionError) as info:
        assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))
    assert str(info.value) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 1 at index (2,)\nGreatest relative difference: 0.25 at index (2,)"
    )
    assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]), rtol=0, atol=1)
    # infinities match only themselves
    assert_close(torch.tensor([float("inf")]), torch.tensor([float("inf")]))
    with pytest.raises(AssertionError):
        assert_close(torch.tensor([float("inf")]), torch.tensor([-float("inf")]))


def test_assert_close_attribute_and_tolerance_errors():
    # TensorLikePair._compare_attributes / get_tolerances
    t = torch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(
        AssertionError,
        match=r"^The values for attribute 'shape' do not match: .*\[3\].* != .*\[2\]",
    ):
        assert_close(t, torch.tensor([1.0, 2.0]))
    with pytest.raises(
        AssertionError,
        match=r"^The values for attribute 'dtype' do not match: .*float32 != .*float64\.$",
    ):
        assert_close(t, t.double())
    assert_close(t, t.double(), check_dtype=False)
    with pytest.raises(
        ValueError,
        match=r"Both 'rtol' and 'atol' must be either specified or omitted, but got no atol\.",
    ):
        assert_close(t, t, rtol=1e-3)
    with pytest.raises(ValueError, match="but got no rtol"):
        assert_close(1.0, 1.0, atol=1e-3)
    view = torch.arange(6.0).reshape([2, 3])[:, ::2]
    assert_close(view, view.contiguous())
    with pytest.raises(AssertionError, match=r"attribute 'stride\(\)'"):
        assert_close(view, view.contiguous(), check_stride=True)


def test_assert_close_inputs_pytorch_accepts_and_refuses():
    # assert_close docstring examples: scalars, NumPy arrays, sequences, mappings
    assert_close(2.0 / math.sqrt(2.0), math.sqrt(2.0))
    assert_close(np.arccos(np.cos(np.array([1e0, 1e-1, 1e-2]))), np.array([1e0, 1e-1, 1e-2]))
    seq = [torch.tensor([1.0]), 2.0, np.array(3.0)]
    assert_close(tuple(seq), seq)
    foo, bar, baz = torch.tensor(1.0), 2.0, np.array(3.0)
    assert_close(
        {"baz": baz, "bar": bar, "foo": foo},
        collections.OrderedDict([("foo", foo), ("bar", bar), ("baz", baz)]),
    )
    t = torch.tensor([1.0, 2.0, 3.0])
    assert_close(nn.Parameter(t.clone()), t)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(nn.Parameter(t.clone()), t, allow_subclasses=False)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        assert_close(t.numpy(), t)
    with pytest.raises(TypeError):
        assert_close(t, 1.0)
    with pytest.raises(
        AssertionError, match=r"The \(d\)types do not match: <class 'float'> != <class 'int'>\."
    ):
        assert_close(1.0, 1)
    assert_close(1.0, 1, check_dtype=False)
    assert_close(np.float32(0.5), 0.5)
    with pytest.raises(AssertionError, match="^None mismatch: None is not 1$"):
        assert_close(None, 1)
    with pytest.raises(AssertionError, match="^Booleans mismatch: True is not False$"):
        assert_close(True, np.bool_(False))
    assert_close(None, None)


def test_assert_close_structure_errors_and_item_path():
    # originate_pairs: lengths, keys, and "The failure occurred for item [...]"
    with pytest.raises(AssertionError, match=r"The length of the sequences mismatch: 2 != 1"):
        assert_close([1, 2], [1])
    with pytest.raises(
        AssertionError,
        match=r"Missing keys in the actual mapping: \['b'\]\nAdditional keys in the actual mapping: \['a'\]",
    ):
        assert_close({"a": 1}, {"b": 1})
    with pytest.raises(AssertionError) as info:
        assert_close(
            {"w": [torch.tensor([1.0]), torch.tensor([2.0])]},
            {"w": [torch.tensor([1.0]), torch.tensor([2.5])]},
        )
    assert str(info.value).endswith("\n\nThe failure occurred for item ['w'][1]")


def test_assert_close_sparse_and_half_precision():
    dense = torch.tensor([[0.0, 1.0], [2.0, 0.0]])
    assert_close(dense.to_sparse(), dense.to_sparse())
    with pytest.raises(AssertionError, match="attribute 'layout'"):
        assert_close(dense.to_sparse(), dense)
    assert_close(dense.to_sparse(), dense, check_layout=False)
    other = torch.tensor([[0.0, 1.0], [3.0, 0.0]])
    with pytest.raises(AssertionError, match="^Sparse COO values are not close!"):
        assert_close(dense.to_sparse(), other.to_sparse())
    # bfloat16: 3.1 is stored as 3.09375; the report's numbers are bfloat16 values
    with pytest.raises(
        AssertionError,
        match=r"absolute difference: 0\.09375 at index \(2,\)[\s\S]*relative difference: 0\.03125",
    ):
        assert_close(
            torch.tensor([1.0, 2.0, 3.1], dtype=torch.bfloat16),
            torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16),
        )


def test_assert_allclose_is_deprecated_and_looser():
    # _comparison.py assert_allclose: FutureWarning, equal_nan=True, float32 (1e-4, 1e-5)
    with pytest.warns(FutureWarning, match="assert_allclose"):
        assert_allclose(torch.tensor([1.0, float("nan")]), [1.00005, float("nan")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(AssertionError):
            assert_allclose(torch.tensor([1.0]), [1.001])


# ------------------------------------------------------------------ testing.make_tensor


@pytest.mark.parametrize(
    "dtype, low, high",
    [
        (torch.bool, 0, 1),
        (torch.uint8, 0, 9),
        (torch.int8, -9, 9),
        (torch.int64, -9, 9),
        (torch.float32, -9, 9),
        (torch.float64, -9, 9),
        (torch.bfloat16, -9, 9),
    ],
)
def test_make_tensor_default_ranges(dtype, low, high):
    # torch/testing/_creation.py make_tensor: the documented table of default ranges
    torch.manual_seed(0)
    t = make_tensor(400, dtype=dtype, device="cpu")
    assert t.dtype == dtype and tuple(t.shape) == (400,)
    values = t.to(torch.float64).numpy()
    assert values.min() >= low and values.max() <= high
    assert len(np.unique(values)) > 1


def test_make_tensor_options():
    torch.manual_seed(1)
    t = make_tensor((3, 4), dtype=torch.float32, device="cpu", low=-1, high=1, requires_grad=True)
    assert tuple(t.shape) == (3, 4) and t.requires_grad and t.is_leaf
    assert float(t.abs().max()) < 1
    c = make_tensor(2, 3, dtype=torch.complex64, device="cpu")
    assert c.dtype == torch.complex64 and float(c.real.abs().max()) <= 9
    nc = make_tensor(2, 3, dtype=torch.float32, device="cpu", noncontiguous=True)
    assert tuple(nc.shape) == (2, 3) and not nc.is_contiguous()
    z = make_tensor(200, dtype=torch.int8, device="cpu", low=-1, high=2, exclude_zero=True)
    assert 0 not in z.tolist()
    f = make_tensor(50, dtype=torch.float32, device="cpu", low=0, high=1e-30, exclude_zero=True)
    assert float(f.min()) > 0
    # integer bounds are rounded up: [0.5, 2.5) draws 1 and 2
    assert set(make_tensor(100, dtype=torch.int64, device="cpu", low=0.5, high=2.5).tolist()) <= {
        1,
        2,
    }


def test_make_tensor_errors():
    with pytest.raises(ValueError, match="`low` must be less than `high`"):
        make_tensor(2, dtype=torch.int64, device="cpu", low=3, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(2, dtype=torch.float32, device="cpu", low=float("nan"))
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported"):
        make_tensor(2, dtype=torch.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match=r"only supports \[0, 256\)"):
        make_tensor(2, dtype=torch.uint8, device="cpu", low=-5, high=-1)
    with pytest.raises(ValueError, match="CPU only"):
        make_tensor(2, dtype=torch.float32, device="cuda")


# ------------------------------------------------------------------ torch.mps / torch.xpu


def test_mps_and_xpu_answer_as_a_cpu_build():
    # torch/mps/__init__.py: is_available() is device_count() > 0; manual_seed returns quietly
    assert torch.mps.is_available() is False and torch.mps.device_count() == 0
    torch.mps.manual_seed(0)
    assert torch.backends.mps.is_available() is False
    assert torch.xpu.is_available() is False and torch.xpu.device_count() == 0
    torch.xpu.manual_seed_all(0)
    torch.xpu.empty_cache()
    for call in (torch.mps.synchronize, torch.xpu.synchronize, torch.xpu.current_device):
        with pytest.raises(RuntimeError, match="CPU"):
            call()


# ------------------------------------------------------------------ torch.nn.modules.utils


def test_nn_modules_utils_helpers():
    # torch/nn/modules/utils.py: an iterable becomes a tuple, a scalar is repeated
    import ferrograd.nn.modules.utils as mod_utils
    from ferrograd.nn.modules.utils import _ntuple, _pair, _quadruple, _single, _triple

    assert _single(3) == (3,) and _pair(3) == (3, 3) and _triple(1) == (1, 1, 1)
    assert (
        _quadruple(0) == (0, 0, 0, 0) and _pair((1, 2)) == (1, 2) and _pair([4, 5, 6]) == (4, 5, 6)
    )
    assert _ntuple(5, "_five")(2) == (2,) * 5 and _ntuple(5, "_five").__name__ == "_five"
    assert mod_utils._reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
    assert torch.nn.modules.utils is mod_utils and torch.nn.modules.Linear is nn.Linear
    sd = collections.OrderedDict([("module.w", 1), ("b", 2)])
    mod_utils.consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd) == ["b", "w"]


# ------------------------------------------------------------------ nn.DataParallel


def test_data_parallel_runs_the_module_on_the_cpu():
    # torch/nn/parallel/data_parallel.py: without GPUs, device_ids = [] and forward is
    # self.module(*inputs, **kwargs); state_dict keys get the "module." prefix
    torch.manual_seed(0)
    inner = nn.Linear(3, 2)
    dp = nn.DataParallel(inner)
    assert dp.module is inner and dp.device_ids == []
    x = torch.randn([4, 3])
    assert_close(dp(x), inner(x))
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert nn.parallel.DataParallel is nn.DataParallel
    loaded = nn.DataParallel(nn.Linear(3, 2))
    loaded.load_state_dict(dp.state_dict())
    assert_close(loaded(x), dp(x))
    nn.DataParallel(inner, device_ids=["cpu"])


def test_data_parallel_gpu_device_ids_raise():
    # ferrograd's choice (a CPU-only PyTorch ignores them silently): say GPUs are not used
    with pytest.raises(ValueError, match="CPU only"):
        nn.DataParallel(nn.Linear(2, 2), device_ids=[0, 1])
    with pytest.raises(ValueError, match="CPU only"):
        nn.DataParallel(nn.Linear(2, 2), output_device=0)
    with pytest.raises(TypeError, match="nn.Module"):
        nn.DataParallel(lambda x: x)


# ------------------------------------------------------------------ torch.utils._pytree


def test_pytree_flatten_unflatten_map():
    # torch/utils/_pytree.py: None is a leaf (tree_is_leaf(None) is True); dict children in
    # insertion order; TreeSpec's repr
    import ferrograd.utils._pytree as pytree

    Point = collections.namedtuple("Point", "x y")
    tree = {"b": [1, (2, None)], "a": Point(3, 4), "o": collections.OrderedDict(k=5)}
    leaves, spec = pytree.tree_flatten(tree)
    assert leaves == [1, 2, None, 3, 4, 5]
    assert pytree.tree_unflatten(leaves, spec) == tree
    assert isinstance(pytree.tree_unflatten(leaves, spec)["a"], Point)
    assert pytree.tree_leaves(tree) == leaves and pytree.tree_structure(tree) == spec
    assert spec.num_leaves == 6
    assert repr(pytree.tree_structure([1, 2])) == "TreeSpec(list, None, [*,\n  *])"
    assert pytree.tree_map(lambda x: x is None, {"x": 7, "y": (42, 64), "z": None}) == {
        "x": False,
        "y": (False, False),
        "z": True,
    }
    assert pytree.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]) == [[5, 7, 9], [6, 1, 2]]
    t = torch.ones([2])
    mapped = pytree.tree_map_only(torch.Tensor, lambda v: v * 2, {"t": t, "n": 3})
    assert mapped["n"] == 3 and mapped["t"].tolist() == [2.0, 2.0]
    assert pytree.tree_all(lambda v: v > 0, [1, (2, 3)]) and not pytree.tree_any(
        lambda v: v > 5, [1, 2]
    )
    assert pytree.tree_leaves([1, [2]], is_leaf=lambda n: isinstance(n, list) and n == [2]) == [
        1,
        [2],
    ]
    with pytest.raises(ValueError, match="`leaves` has length 1"):
        pytree.tree_unflatten([1], spec)
    with pytest.raises(TypeError, match="Expected `treespec` to be instance of TreeSpec"):
        pytree.tree_unflatten([1], [1])
    with pytest.raises(ValueError, match="Node arity mismatch"):
        pytree.tree_map(lambda a, b: a, [1, 2], [1])
    assert torch.utils._pytree is pytree


def test_pytree_register_node():
    import ferrograd.utils._pytree as pytree

    class Box:
        def __init__(self, a, b):
            self.a, self.b = a, b

    pytree.register_pytree_node(Box, lambda x: ([x.a, x.b], None), lambda v, c: Box(*v))
    try:
        out = pytree.tree_map(lambda v: v + 1, [Box(1, 2)])
        assert (out[0].a, out[0].b) == (2, 3)
        with pytest.raises(ValueError, match="already registered"):
            pytree.register_pytree_node(Box, lambda x: ([], None), lambda v, c: Box(0, 0))
    finally:
        del pytree.SUPPORTED_NODES[Box]


# ------------------------------------------------------------------ torch.multiprocessing


def _spawn_worker(rank, out_dir, scale):
    # at module level: spawned children import it
    value = torch.full([2], float(rank)) * scale
    np.save(f"{out_dir}/rank{rank}.npy", value.numpy())


def _spawn_failing_worker(rank):
    if rank == 1:
        raise ValueError("worker 1 failed on purpose")


def test_multiprocessing_reexports_and_spawn(tmp_path):
    # torch/multiprocessing/spawn.py: fn(i, *args) in each process; a child's exception is
    # re-raised in the parent as ProcessRaisedException carrying its traceback
    import multiprocessing

    mp = torch.multiprocessing
    assert mp.Process is multiprocessing.Process and mp.get_context is multiprocessing.get_context
    assert mp.cpu_count() >= 1 and "spawn" in mp.get_all_start_methods()
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    assert mp.spawn(_spawn_worker, args=(str(tmp_path), 3.0), nprocs=2) is None
    for rank in range(2):
        assert np.load(tmp_path / f"rank{rank}.npy").tolist() == [3.0 * rank] * 2
    with pytest.raises(mp.ProcessRaisedException, match="worker 1 failed on purpose") as info:
        mp.spawn(_spawn_failing_worker, nprocs=2)
    assert info.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(info.value)


# ------------------------------------------------------------------ nn.utils.prune


def _linear_with(weight):
    m = nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(weight))
    return m


def test_prune_l1_unstructured_reparametrizes():
    # torch/nn/utils/prune.py BasePruningMethod.apply / L1Unstructured.compute_mask: the k
    # smallest |w| (topk largest=False) are masked; weight_orig is the Parameter,
    # weight_mask a buffer, weight a plain tensor recomputed by a forward pre-hook
    from ferrograd.nn.utils import prune

    m = _linear_with([[0.1, -0.5, 0.3], [0.9, -0.2, 0.05]])
    orig = m.weight
    assert prune.l1_unstructured(m, "weight", amount=0.5) is m
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert m.weight_orig is orig and [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert m.weight_mask.tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
    assert_close(m.weight, torch.tensor([[0.0, -0.5, 0.3], [0.9, 0.0, 0.0]]))
    assert prune.is_pruned(m) and prune.is_pruned(nn.Sequential(m))
    m(torch.ones([1, 3])).sum().backward()
    assert m.weight_orig.grad.tolist() == m.weight_mask.tolist()  # no gradient to pruned entries
    with torch.no_grad():  # the pre-hook recomputes weight from weight_orig on every call
        m.weight_orig.add_(1.0)
    m(torch.ones([1, 3]))
    assert_close(m.weight, torch.tensor([[0.0, 0.5, 1.3], [1.9, 0.0, 0.0]]))


def test_prune_repeated_combines_and_remove():
    # PruningContainer.compute_mask: the new unstructured mask is computed on the entries
    # still unpruned; remove() keeps the pruned values as the parameter
    from ferrograd.nn.utils import prune

    m = _linear_with([[0.1, -0.5, 0.3], [0.9, -0.2, 0.05]])
    prune.l1_unstructured(m, "weight", amount=3)
    prune.l1_unstructured(m, "weight", amount=1)  # of the 3 left, drops 0.3
    hooks = [h for h in m._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer) and len(hooks[0]) == 2
    assert m.weight_mask.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    prune.remove(m, "weight")
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    assert_close(m.weight.detach(), torch.tensor([[0.0, -0.5, 0.0], [0.9, 0.0, 0.0]]))
    assert not prune.is_pruned(m)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(m, "weight")


def test_prune_structured_random_global_custom_identity():
    from ferrograd.nn.utils import prune

    torch.manual_seed(0)
    conv = nn.Conv2d(2, 4, 2)
    with torch.no_grad():
        conv.weight.copy_(torch.arange(1.0, 33.0).reshape([4, 2, 2, 2]))
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)  # keeps the 2 largest filters
    assert conv.weight_mask.sum(dim=[1, 2, 3]).tolist() == [0.0, 0.0, 8.0, 8.0]
    prune.random_structured(conv, "weight", amount=1, dim=0)  # one of the 2 left
    assert sorted(conv.weight_mask.sum(dim=[1, 2, 3]).tolist()) == [0.0, 0.0, 0.0, 8.0]
    lin = nn.Linear(5, 4)
    prune.random_unstructured(lin, "weight", amount=7)
    assert int((lin.weight_mask == 0).sum()) == 7
    net = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    prune.global_unstructured(
        [(net[0], "weight"), (net[1], "weight")], pruning_method=prune.L1Unstructured, amount=10
    )
    assert sum(int((net[i].weight_mask == 0).sum()) for i in range(2)) == 10
    every = torch.cat(
        [
            net[0].weight_orig.detach().abs().reshape([-1]),
            net[1].weight_orig.detach().abs().reshape([-1]),
        ]
    )
    masks = torch.cat([net[0].weight_mask.reshape([-1]), net[1].weight_mask.reshape([-1])])
    assert float(every[masks == 0].max()) <= float(every[masks == 1].min())
    prune.custom_from_mask(net[0], "bias", mask=torch.tensor([0, 1, 0]))
    assert net[0].bias_mask.tolist() == [0.0, 1.0, 0.0]
    prune.identity(lin, "bias")
    assert lin.bias_mask.tolist() == [1.0] * 4


def test_prune_amount_validation():
    # _validate_pruning_amount_init / _validate_pruning_amount / _validate_structured_pruning
    from ferrograd.nn.utils import prune

    m = nn.Linear(3, 2)
    with pytest.raises(ValueError, match=r"should either be a float in the range \[0, 1\]"):
        prune.l1_unstructured(m, "weight", amount=1.5)
    with pytest.raises(ValueError, match="non-negative integer"):
        prune.l1_unstructured(m, "weight", amount=-1)
    with pytest.raises(TypeError, match="Invalid type for amount"):
        prune.l1_unstructured(m, "weight", amount="half")
    with pytest.raises(
        ValueError, match="should be smaller than the number of parameters to prune=6"
    ):
        prune.l1_unstructured(m, "weight", amount=7)
    # rolled back (re-registered last, as PyTorch's apply does on failure)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"] and not m._buffers
    with pytest.raises(ValueError, match="multidimensional"):
        prune.ln_structured(m, "bias", amount=1, n=1, dim=0)
    assert not prune.is_pruned(m)
