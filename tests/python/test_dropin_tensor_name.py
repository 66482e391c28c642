"""Paddle's ``Tensor.name`` and ``Tensor.inplace_version`` (found missing by Paddle's
``test_detach.py``): a name per tensor object, assignable; the in-place write count
shared by a tensor and its detached copies."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


def test_every_tensor_has_its_own_name_and_keeps_it():
    x = fg.ones([2])
    y = x * 2
    assert isinstance(x.name, str) and x.name.startswith("eager_tmp_")
    assert x.name == x.name  # given once, then kept
    assert y.name != x.name


def test_a_name_can_be_assigned_only_as_a_str():
    x = fg.ones([2])
    x.name = "features"
    assert x.name == "features"
    with pytest.raises(TypeError, match="must be a str"):
        x.name = 3


def test_parameters_keep_their_own_names():
    layer = fg.nn.Linear(2, 2)
    assert layer.weight.name.startswith("param_")


def test_inplace_version_counts_writes_shared_with_detached_copies():
    x = fg.tensor(np.ones((4, 2, 3), dtype=np.float32))
    assert x.inplace_version == 0
    before = x.detach()
    x[0] = 1.5
    assert x.inplace_version == 1 and before.inplace_version == 1
    after = x.detach()
    x.add_(1.0)
    assert (x.inplace_version, before.inplace_version, after.inplace_version) == (2, 2, 2)
    assert x.inplace_version == x._version
    np.testing.assert_array_equal(after.numpy()[0], np.full((2, 3), 2.5))
