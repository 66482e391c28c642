"""Tensors and custom-layer contexts are made without an eager instance ``__dict__``
(``src/python/lazy_dict.rs``): attributes set on them must behave exactly as on any
Python object — stored, read, listed, deleted, copied, pickled, collected in cycles."""

from __future__ import annotations

import copy
import gc
import pickle
import weakref

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function


def _fresh():
    a = fg.tensor(np.arange(4.0), requires_grad=True)
    return a * 2.0  # an op's result: made by the fast path


def test_the_lazy_path_is_active():
    # the layout check must pass on this pyo3 / CPython (else every object silently takes
    # the slower ordinary path)
    _fresh()
    _fresh()

    class Id(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            return g

    x = fg.tensor([1.0], requires_grad=True)
    Id.apply(x)
    Id.apply(x)
    assert fg._core._lazy_dict_active() == {"Tensor": True, "FunctionCtx": True}


def test_fresh_result_has_an_empty_dict_and_takes_attributes():
    t = _fresh()
    assert t.__dict__ == {}
    assert vars(t) == {}
    t.tag = "x"
    t.count = 3
    assert t.tag == "x" and t.count == 3
    assert t.__dict__ == {"tag": "x", "count": 3}
    del t.tag
    assert not hasattr(t, "tag")
    with pytest.raises(AttributeError):
        del t.tag
    with pytest.raises(AttributeError):
        _ = t.missing


def test_dict_assigned_and_updated_through_dunder_dict():
    t = _fresh()
    t.__dict__["k"] = 5
    assert t.k == 5
    t.__dict__ = {"j": 1}
    assert t.j == 1 and not hasattr(t, "k")


def test_properties_still_win_over_the_dict():
    t = _fresh().detach()
    t.requires_grad_(False)
    assert t.requires_grad is False
    t.stop_gradient = False
    assert t.requires_grad is True
    assert "stop_gradient" not in t.__dict__


def test_copy_deepcopy_and_pickle_keep_attributes():
    # as PyTorch: copy.copy, copy.deepcopy (deeply) and pickle keep a tensor's attributes
    t = _fresh().detach()
    t.note = [1, 2]
    c = copy.copy(t)
    d = copy.deepcopy(t)
    assert c.note == [1, 2] and d.note == [1, 2]
    assert d.note is not t.note
    p = pickle.loads(pickle.dumps(t))
    assert p.note == [1, 2]
    np.testing.assert_array_equal(p.numpy(), t.numpy())
    plain = pickle.loads(pickle.dumps(_fresh().detach()))
    assert plain.__dict__ == {}


def test_parameter_copy_and_pickle_keep_attributes():
    # PyTorch: pickle and copy.copy keep a Parameter's attributes, deepcopy does not
    p = fg.nn.Parameter(fg.ones([2]))
    p.note = "kept"
    assert pickle.loads(pickle.dumps(p)).note == "kept"
    assert copy.copy(p).note == "kept"
    assert type(pickle.loads(pickle.dumps(p))) is fg.nn.Parameter
    assert not hasattr(copy.deepcopy(p), "note")


def test_cycle_through_the_dict_is_collected():
    t = _fresh()
    t.me = t
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is None


def test_many_results_with_and_without_attributes():
    # results made in a loop (a GC pass runs in between) keep their own dicts
    keep = []
    for i in range(3000):
        t = _fresh()
        if i % 7 == 0:
            t.i = i
            keep.append(t)
    gc.collect()
    assert [t.i for t in keep] == list(range(0, 3000, 7))


def test_ctx_attributes_reach_backward():
    seen = {}

    class Scale(Function):
        @staticmethod
        def forward(ctx, x, k):
            assert ctx.__dict__ == {}
            ctx.k = k
            ctx.tag = "fwd"
            return x * k

        @staticmethod
        def backward(ctx, g):
            seen.update(vars(ctx))
            return g * ctx.k, None

    x = fg.tensor(np.ones(3), requires_grad=True)
    Scale.apply(x, 4.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0, 4.0])
    assert seen == {"k": 4.0, "tag": "fwd"}


def test_ctx_attribute_holding_an_output_is_freed():
    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2.0
            ctx.out = y
            return y

        @staticmethod
        def backward(ctx, g):
            assert ctx.out is not None
            return g * 2.0

    x = fg.tensor(np.ones(2), requires_grad=True)
    y = Keep.apply(x)
    r = weakref.ref(y)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    del y
    gc.collect()
    assert r() is None
