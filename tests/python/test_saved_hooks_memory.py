"""Packed saved tensors really leave memory: the tensor a pack hook received is freed once
nothing else holds it, and the buffer cache keeps no freed buffer while packed tensors
are alive (it resumes once their graph is gone)."""

from __future__ import annotations

import gc
import weakref

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.graph import save_compressed, save_lossless, save_on_cpu, save_on_disk
from ferrograd.utils.checkpoint import checkpoint

BIG = 1 << 19  # float32 elements: 2 MiB, above the cache's 1 MiB minimum


@pytest.fixture
def cache_on():
    gc.collect()
    if fg.buffer_cache_info()["suspended_by"]:
        pytest.skip("another test left a graph with packed saved tensors alive")
    previous = fg.set_buffer_cache_limit(64 << 20)
    fg.empty_buffer_cache()
    yield
    fg.set_buffer_cache_limit(previous)


def free_a_big_buffer() -> None:
    t = fg.ones(BIG) * 2.0
    del t


def test_the_cache_keeps_nothing_while_packed_tensors_live(cache_on):
    free_a_big_buffer()
    assert fg.buffer_cache_info()["bytes"] >= 4 * BIG, "the cache works when nothing is packed"
    x = fg.randn(BIG, requires_grad=True)
    with save_on_cpu():
        y = (x * 2.0).tanh()  # tanh saves its output: one packed tensor
    info = fg.buffer_cache_info()
    assert info["suspended_by"] == 1
    assert info["bytes"] == 0, "packing gave back what the cache held"
    free_a_big_buffer()
    assert fg.buffer_cache_info()["bytes"] == 0
    y.sum().backward()  # releases the packed tensor
    assert fg.buffer_cache_info()["suspended_by"] == 0
    free_a_big_buffer()
    assert fg.buffer_cache_info()["bytes"] >= 4 * BIG, "caching resumed after backward"
    np.testing.assert_allclose(
        x.grad.numpy(), 2 * (1 - np.tanh(2 * x.numpy()) ** 2), rtol=1e-5, atol=1e-6
    )


def test_a_graph_dropped_without_backward_ends_the_suspension(cache_on):
    x = fg.randn(8, requires_grad=True)
    with save_on_cpu():
        y = x.exp() * x  # exp saves its output, mul both operands: three packed
    assert fg.buffer_cache_info()["suspended_by"] == 3
    del y
    assert fg.buffer_cache_info()["suspended_by"] == 0
    free_a_big_buffer()
    assert fg.buffer_cache_info()["bytes"] >= 4 * BIG


def test_retain_graph_keeps_the_suspension_until_the_graph_goes(cache_on):
    x = fg.randn(8, requires_grad=True)
    with save_on_cpu():
        y = x.tanh().sum()
    y.backward(retain_graph=True)
    assert fg.buffer_cache_info()["suspended_by"] == 1
    y.backward()
    assert fg.buffer_cache_info()["suspended_by"] == 0


@pytest.mark.parametrize("hooks", [save_on_disk, save_on_cpu], ids=["disk", "cpu"])
def test_the_packed_tensors_memory_is_freed(tmp_path, hooks):
    # `h` shares its memory with a NumPy array: the array lives exactly as long as the
    # tensor's storage, so a weak reference to it shows when that memory is freed
    array = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    probe = weakref.ref(array)
    h = fg.from_numpy(array)
    w = fg.randn(32, 16, requires_grad=True)
    with hooks(tmp_path) if hooks is save_on_disk else hooks():
        out = h @ w  # saves h for w's gradient: packed
    expected_grad = array.T @ np.ones((64, 16), np.float32)
    del h, array
    gc.collect()
    assert probe() is None, "the graph still holds the packed tensor's memory"
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), expected_grad, rtol=1e-5)


def test_without_hooks_the_saved_tensor_is_kept():
    array = np.ones((4, 3), np.float32)
    # read-only: a save of memory NumPy can still write keeps a copy instead (see
    # test_numpy_alias_grad.py), which would not keep the array alive
    array.flags.writeable = False
    probe = weakref.ref(array)
    h = fg.from_numpy(array)
    w = fg.randn(3, 2, requires_grad=True)
    out = h @ w
    del h, array
    gc.collect()
    assert probe() is not None, "an unhooked save keeps its tensor (the control case)"
    del out
    gc.collect()
    assert probe() is None


@pytest.mark.parametrize("name", ["bf16", "checkpoint"])
def test_hooks_that_keep_their_packs_in_memory_leave_the_cache_on(cache_on, name):
    # what these pack stays in RAM, so suspending the cache would buy no memory and
    # turn every large tensor of the step into fresh, page-faulting pages
    x = fg.randn(BIG, requires_grad=True)
    if name == "checkpoint":
        y = checkpoint(lambda x: (x * 2.0).tanh().sin(), x)
    else:
        with save_compressed("bfloat16"):
            y = (x * 2.0).tanh().sin()  # tanh and sin save tensors: packed
    assert fg.buffer_cache_info()["suspended_by"] == 0
    free_a_big_buffer()
    assert fg.buffer_cache_info()["bytes"] >= 4 * BIG, "the cache still works"
    y.sum().backward()
    want = np.cos(np.tanh(2 * x.numpy())) * 2 * (1 - np.tanh(2 * x.numpy()) ** 2)
    tol = 2e-2 if name == "bf16" else 1e-5
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=tol, atol=tol)


def test_lossless_and_kept_budget_regions_leave_the_cache_on(cache_on):
    # these keep what they pack in RAM too (exact copies, or the tensors themselves); they
    # suspended the cache until the heap growth behind their higher peak was found (large
    # scratch blocks outside the cache, docs/memory.md)
    from ferrograd.autograd.graph import memory_budget

    x = fg.randn(8, requires_grad=True)
    with save_lossless():
        y = x.exp()
    assert fg.buffer_cache_info()["suspended_by"] == 0
    with memory_budget(1 << 20):
        z = checkpoint(lambda x: x.exp(), x)  # room in the budget: kept, not recomputed
    assert fg.buffer_cache_info()["suspended_by"] == 0
    free_a_big_buffer()
    assert fg.buffer_cache_info()["bytes"] >= 4 * BIG, "the cache still works"
    (y + z).sum().backward()
    assert fg.buffer_cache_info()["suspended_by"] == 0


def test_offloading_around_or_inside_an_in_memory_region_still_suspends(cache_on, tmp_path):
    x = fg.randn(8, requires_grad=True)

    def region(x):
        with save_on_disk(tmp_path):
            a = x.exp()  # exp saves its output: on disk
        return a.tanh()  # the region's own save: a handle in memory

    with save_on_cpu():
        b = x.sin()  # sin saves its input: a NumPy copy
        y = checkpoint(region, b)
        c = y.cos()  # after the region, the outer offloading hook again
    assert fg.buffer_cache_info()["suspended_by"] == 3  # x for sin, y for cos, exp's output
    (b + c).sum().backward()
    assert fg.buffer_cache_info()["suspended_by"] == 0
