"""``paddle.set_flags`` / ``paddle.get_flags`` (found missing by Paddle's
``test_imperative_double_grad.py``, ``test_imperative_auto_prune.py``): the flags whose
request ferrograd always satisfies are recorded; any other flag, or a value of the wrong
type, is refused with an error naming it."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _restore_flags():
    saved = fg.get_flags(["FLAGS_sort_sum_gradient", "FLAGS_call_stack_level"])
    yield
    fg.set_flags(saved)


def test_known_flags_are_recorded():
    assert fg.get_flags("FLAGS_sort_sum_gradient") == {"FLAGS_sort_sum_gradient": False}
    fg.set_flags({"FLAGS_sort_sum_gradient": True, "FLAGS_call_stack_level": 3})
    assert fg.get_flags(["FLAGS_sort_sum_gradient", "FLAGS_call_stack_level"]) == {
        "FLAGS_sort_sum_gradient": True,
        "FLAGS_call_stack_level": 3,
    }


@pytest.mark.parametrize("sort", [False, True])
def test_summed_gradients_do_not_depend_on_the_sort_flag(sort):
    # a tensor used ten times: its gradient is the same sum, in the same order, either way
    fg.set_flags({"FLAGS_sort_sum_gradient": sort})
    rng = np.random.default_rng(7)
    x = fg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    w = fg.tensor(rng.standard_normal((3, 2)))
    out = sum((x * (k + 1)) @ w for k in range(10))
    out.sum().backward()
    expected = 55.0 * np.tile(w.numpy().sum(1), (4, 1))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_unknown_flags_and_bad_values_are_refused():
    with pytest.raises(ValueError, match="FLAGS_retain_grad_for_all_tensor"):
        fg.set_flags({"FLAGS_retain_grad_for_all_tensor": True})
    with pytest.raises(ValueError, match="FLAGS_nope"):
        fg.get_flags("FLAGS_nope")
    with pytest.raises(TypeError, match="must be a dict"):
        fg.set_flags("FLAGS_sort_sum_gradient")
    with pytest.raises(TypeError, match="takes a bool"):
        fg.set_flags({"FLAGS_sort_sum_gradient": "yes"})
    with pytest.raises(TypeError, match="takes an int"):
        fg.set_flags({"FLAGS_call_stack_level": True})
    # a refused call sets nothing, also the valid flags it held
    with pytest.raises(ValueError):
        fg.set_flags({"FLAGS_sort_sum_gradient": True, "FLAGS_nope": 1})
    assert fg.get_flags("FLAGS_sort_sum_gradient")["FLAGS_sort_sum_gradient"] is False
