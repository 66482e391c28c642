"""Module functions dispatch on their arguments' type: a static Variable records, a
Tensor runs. ``enable_static()`` changes nothing in the package's namespace, the
``__ferrograd_function__`` protocol hands non-tensor calls to the argument's type, and
each optimizer declares its own static update rule."""

from __future__ import annotations

import copy
import pickle
import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static
from ferrograd.nn import functional as F


def _namespaces():
    return {
        name: dict(vars(mod))
        for name, mod in list(sys.modules.items())
        if name == "ferrograd" or name.startswith("ferrograd.")
    }


def _assert_same(before, after):
    for name, d in before.items():
        now = vars(sys.modules[name])
        changed = [k for k in set(d) | set(now) if d.get(k, d) is not now.get(k, now)]
        # (a lazily imported submodule may add itself to its package; nothing else changes)
        changed = [
            k for k in changed if not (k in now and k not in d and f"{name}.{k}" in sys.modules)
        ]
        assert not changed, f"{name}: {sorted(changed)}"


def test_enable_static_sets_no_attribute_anywhere_in_the_package():
    fg.disable_static()
    before = _namespaces()
    fg.enable_static()
    try:
        during = _namespaces()
        _assert_same(before, during)
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [2, 3], "float64")
            fg.tanh(x), fg.add(x, x), F.relu(x), fg.concat([x, x])
        _assert_same(before, _namespaces())
    finally:
        fg.disable_static()
    _assert_same(before, _namespaces())


def test_module_functions_record_on_variables_in_either_mode():
    a = np.array([[0.5, -1.0, 2.0]])
    for enabled in (True, False):
        if enabled:
            fg.enable_static()
        try:
            main = static.Program()
            with static.program_guard(main, static.Program()):
                x = static.data("x", [1, 3], "float64")
                outs = [
                    fg.tanh(x),
                    fg.add(x, 1.0),
                    fg.add(2.0, x),
                    F.swish(x),
                    fg.concat([x, a], axis=0),
                ]
            got = static.Executor().run(main, feed={"x": a}, fetch_list=outs)
        finally:
            fg.disable_static()
        t = fg.to_tensor(a)
        want = [
            fg.tanh(t),
            fg.add(t, 1.0),
            t + 2.0,
            F.swish(t),
            fg.concat([t, fg.to_tensor(a)], axis=0),
        ]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-12)


class _Claims:
    """A type that claims every ferrograd function call it takes part in."""

    calls: list = []

    @staticmethod
    def __ferrograd_function__(name, args, kwargs):
        _Claims.calls.append((name, args, kwargs))
        return ("handled", name)


def test_the_protocol_hands_non_tensor_calls_to_the_argument_type():
    c = _Claims()
    assert fg.tanh(c) == ("handled", "tanh")
    assert fg.add(1.0, c, name="n") == ("handled", "add")
    assert fg.concat([c, c], axis=1) == ("handled", "concat")
    assert F.swish(c) == ("handled", "silu")  # the Variable method name of the op
    assert fg.where(c, 1.0, 2.0) == ("handled", "where")
    name, args, kwargs = _Claims.calls[1]
    assert args == (1.0, c) and kwargs == {"name": "n"}


def test_eager_calls_and_errors_are_unchanged():
    t = fg.to_tensor([0.5, -1.0])
    assert type(fg.tanh(t)) is fg.Tensor
    np.testing.assert_allclose(fg.tanh(t).numpy(), np.tanh([0.5, -1.0]), rtol=1e-6)
    with pytest.raises(TypeError):
        fg.tanh("not a tensor")
    with pytest.raises(TypeError):
        fg.tanh()

    # a handler's exception comes out unchanged
    class Boom:
        @staticmethod
        def __ferrograd_function__(name, args, kwargs):
            raise KeyError("from the handler")

    with pytest.raises(KeyError, match="from the handler"):
        fg.exp(Boom())


def test_dispatching_functions_keep_their_names_and_docs_and_copy():
    assert fg.tanh.__name__ == "tanh" and fg.tanh.__doc__ == fg.Tensor.tanh.__doc__
    assert fg.tanh.__wrapped__ is fg.Tensor.tanh
    assert repr(fg.tanh) == "<ferrograd function tanh>"
    t = fg.to_tensor([0.25, -2.0])
    for f in (copy.deepcopy(F.relu), pickle.loads(pickle.dumps(fg.add))):
        assert isinstance(f, type(fg.tanh))
    np.testing.assert_array_equal(copy.deepcopy(F.relu)(t).numpy(), F.relu(t).numpy())
    with pytest.raises(TypeError, match="callable"):
        fg._core._op_function(3, "three", None)
    with pytest.raises(TypeError, match="_op_function"):
        type(fg.tanh)()


def test_variable_method_missing_is_a_clear_error():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [3], "float64")
        with pytest.raises(TypeError, match="clone.*static"):
            fg.clone(x)


@pytest.mark.parametrize(
    "opt_name, rule",
    [("SGD", "sgd"), ("Momentum", "sgd"), ("Adam", "adam"), ("AdamW", "adam")],
)
def test_each_optimizer_declares_its_static_rule(opt_name, rule):
    p = fg.to_tensor([1.0], stop_gradient=False)
    opt = getattr(fg.optimizer, opt_name)(learning_rate=0.1, parameters=[p])
    name, hyper, buffers = opt._static_rule(dict(opt.defaults))
    assert name == rule and all(isinstance(k, str) for k in hyper)
    assert isinstance(buffers, tuple)


def test_an_optimizer_without_a_static_rule_says_so():
    p = fg.to_tensor([1.0], stop_gradient=False)
    opt = fg.optim.RMSprop([p], lr=0.1)
    with pytest.raises(NotImplementedError, match="RMSprop.*static mode"):
        opt._static_rule(dict(opt.defaults))
