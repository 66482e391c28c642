"""Rust panics that reached Python as PanicException (issue 16 item 10): empty views with
a storage offset, dims of 0-d tensors, and a fuzzer over every public entry point that
checks each failure is a normal Exception subclass."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import panic_fuzz
import pytest


def empty_views():
    z = fg.zeros([3, 0])
    return {
        "select": z[2],
        "slice": z[1:],
        "slice-2d": fg.zeros([2, 3, 0])[1:, 1:],
        "unbind": fg.unbind(z, 0)[2],
        "chunk": fg.chunk(fg.zeros([4, 0]), 2, 0)[1],
        "split": fg.split(fg.zeros([4, 0]), [1, 3], 0)[1],
        "narrow-t": fg.zeros([0, 3]).t()[1:],
    }


@pytest.mark.parametrize("name", list(empty_views()))
def test_empty_views_with_an_offset_work_everywhere(name):
    v = empty_views()[name]
    assert v.numel() == 0
    assert v.numpy().size == 0
    assert "[]" in repr(v) or "shape" in repr(v)
    for out in (v + 1, v.exp(), v * v, v.sum(), v.contiguous(), v.astype("float64")):
        assert isinstance(out, fg.Tensor)
    np.testing.assert_array_equal((v + 1).numpy(), np.zeros(v.shape) + 1)
    assert float(v.sum().item()) == 0.0


def test_backward_through_an_empty_offset_view():
    x = fg.zeros([3, 0], requires_grad=True)
    x[2].sum().backward()
    assert x.grad.shape == [3, 0]


def test_dims_of_a_0d_tensor():
    s = fg.to_tensor(1.5)
    with pytest.raises(IndexError, match="0-d"):
        fg.split(s, 2, 0)
    with pytest.raises(IndexError, match="0-d"):
        s.split(1)
    with pytest.raises(IndexError, match="0-d"):
        s.size(0)
    with pytest.raises(IndexError, match="0-d"):
        s.stride(0)
    # dims 0 and -1 of a 0-d tensor name the tensor itself (PyTorch's rule)
    assert float(s.transpose(0, -1).item()) == 1.5


def test_split_section_sizes_are_checked():
    with pytest.raises(ValueError, match="overflow"):
        fg.split(fg.zeros([4]), [2**63 - 1, 2**63 - 1, -1], 0)


def test_no_public_entry_point_lets_a_panic_through():
    calls, panics = panic_fuzz.run(6000, seed=1)
    assert calls >= 6000
    assert panics == [], "\n".join(panics[:20])
