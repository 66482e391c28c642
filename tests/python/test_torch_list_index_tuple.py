"""A list index that holds a sequence or a tensor (``y[[[0, 1], [1, 0]]]``) in PyTorch code
is read as PyTorch 2.15 reads it: a tuple of indices, with PyTorch's deprecation warning
(its rule: a non-tuple list shorter than 32 holding a tensor, a sequence, a slice, ``...``
or None). Paddle code (and code of no dialect) keeps Paddle's and NumPy's reading: one
index array. Expected values were checked on torch 2.15 and Paddle 3.3.1 and are written
here with NumPy."""

from __future__ import annotations

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.gradcheck import gradcheck
from test_shared_spellings import _run as _run_with

A = np.arange(25.0).reshape(5, 5)


def _run(src: str, name: str | None) -> dict:
    """Runs `src` as a module that names ferrograd `name`, with this file's `A`."""
    return _run_with(src, name, A=A)


TORCH_WARNING = (
    r"non-tuple sequence for multidimensional indexing is deprecated and will be changed"
)


def test_torch_list_of_lists_is_a_tuple_with_pytorch_warning():
    with pytest.warns(UserWarning, match=TORCH_WARNING):
        g = _run("y = torch.tensor(A); r = y[[[0, 1], [1, 0]]]", "torch")
    np.testing.assert_array_equal(g["r"].numpy(), A[[0, 1], [1, 0]])  # [1, 5]
    assert list(g["r"].shape) == [2]


def test_torch_ragged_list_broadcasts_as_a_tuple():
    with pytest.warns(UserWarning, match=TORCH_WARNING):
        g = _run(
            "y = torch.tensor(A, requires_grad=True); r = y[[[1, 1, 3, 2, 1, 2], [0]]]\n"
            "r.sum().backward()",
            "torch",
        )
    np.testing.assert_array_equal(g["r"].detach().numpy(), [5.0, 5.0, 15.0, 10.0, 5.0, 10.0])
    want = np.zeros((5, 5))
    for i in [1, 1, 3, 2, 1, 2]:
        want[i, 0] += 1
    np.testing.assert_array_equal(g["y"].grad.numpy(), want)


def test_torch_nested_index_arrays_gradient():
    # upstream test_indexing_duplicates: two 2x2 index arrays, duplicates accumulate
    with pytest.warns(UserWarning, match=TORCH_WARNING):
        g = _run(
            "y = torch.arange(1.0, 17).view(4, 4).requires_grad_()\n"
            "y[[[[1, 2], [0, 0]], [[0, 1], [1, 1]]]].sum().backward()",
            "torch",
        )
    want = np.array([[0, 2, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]], np.float32)
    np.testing.assert_array_equal(g["y"].grad.numpy(), want)


def test_torch_elements_that_make_a_tuple():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = _run(
            "y = torch.tensor(A)\n"
            "a = y[[(0, 1), (1, 0)]]\n"
            "b = y[[torch.tensor([0, 1]), [1, 0]]]\n"
            "c = y[[np.array([0, 1]), [1, 0]]]\n"
            "d = y[[1, [0, 2]]]\n"
            "e = y[[torch.tensor(1), 2]]",
            "torch",
        )
    for k in "abc":
        np.testing.assert_array_equal(g[k].numpy(), [1.0, 5.0])
    np.testing.assert_array_equal(g["d"].numpy(), A[1, [0, 2]])
    assert g["e"].item() == A[1, 2]


def test_torch_long_lists_and_lists_of_ints_stay_index_arrays():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: these are not read as tuples
        g = _run(
            "t = torch.arange(40.0); r = t[[[i] for i in range(32)]]\n"
            "y = torch.tensor(A); s = y[[[0, 1]] * 32]; u = y[[0, 2]]",
            "torch",
        )
    assert list(g["r"].shape) == [32, 1]
    assert list(g["s"].shape) == [32, 2, 5]
    np.testing.assert_array_equal(g["u"].numpy(), A[[0, 2]])
    with pytest.warns(UserWarning, match=TORCH_WARNING):
        with pytest.raises(IndexError):
            # 31 lists: a tuple of 31 indices, too many for a 1-D tensor (as in torch)
            _run("t = torch.arange(40.0); r = t[[[0]] * 31]", "torch")


def test_torch_setitem_through_a_list_of_lists_and_its_gradients():
    with pytest.warns(UserWarning, match=TORCH_WARNING):
        g = _run(
            "x = torch.ones(5, 5, dtype=torch.float64, requires_grad=True)\n"
            "y = x + 2\n"
            "v = torch.full((2,), 7.0, dtype=torch.float64, requires_grad=True)\n"
            "y[[[0, 1], [1, 0]]] = v\n"
            "y.backward(torch.arange(25.0, dtype=torch.float64).view(5, 5))",
            "torch",
        )
    want_y = np.full((5, 5), 3.0)
    want_y[0, 1] = want_y[1, 0] = 7.0
    np.testing.assert_array_equal(g["y"].detach().numpy(), want_y)
    want_x = A.copy()
    want_x[0, 1] = want_x[1, 0] = 0.0
    np.testing.assert_array_equal(g["x"].grad.numpy(), want_x)
    np.testing.assert_array_equal(g["v"].grad.numpy(), [1.0, 5.0])


def test_torch_gradcheck_through_get_and_set():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = _run(
            "def get(x):\n"
            "    return x[[[1, 1, 3], [0, 2, 2]]] * 2\n"
            "def put(x, v):\n"
            "    y = x * 1\n"
            "    y[[[0, 4], [3, 3]]] = v\n"
            "    return y",
            "torch",
        )
        x = fg.tensor(np.random.default_rng(0).random((5, 5)), requires_grad=True)
        v = fg.tensor(np.array([0.3, -0.7]), requires_grad=True)
        assert gradcheck(g["get"], (x,))
        assert gradcheck(g["put"], (x, v))
        np.testing.assert_array_equal(
            g["get"](x).detach().numpy(), x.numpy()[[1, 1, 3], [0, 2, 2]] * 2
        )


@pytest.mark.parametrize("name", ["paddle", None])
def test_paddle_and_neutral_code_keep_one_index_array(name):
    mod = name or "fg"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = _run(
            f"y = {mod}.to_tensor(A); r = y[[[0, 1], [1, 0]]]\nz = y.clone(); z[[[0, 1], [1, 0]]] = 100.0",
            name,
        )
    np.testing.assert_array_equal(g["r"].numpy(), A[np.array([[0, 1], [1, 0]])])
    assert list(g["r"].shape) == [2, 2, 5]
    want = A.copy()
    want[[0, 1]] = 100.0
    np.testing.assert_array_equal(g["z"].numpy(), want)
    # ragged lists are not an array (Paddle 3.3.1: ValueError)
    with pytest.raises(ValueError):
        _run(f"y = {mod}.to_tensor(A); r = y[[[1, 1, 3, 2, 1, 2], [0]]]", name)


@pytest.mark.parametrize("name", ["torch", "paddle", None])
def test_a_tuple_inside_the_key_is_an_index_array(name):
    # NumPy, Paddle 3.3.1 and torch 2.15: y[(0, 1), (1, 0)] is y[[0, 1], [1, 0]]
    g = _run(
        f"y = {name or 'fg'}.to_tensor(A) if {name!r} != 'torch' else torch.tensor(A)\n"
        "r = y[(0, 1), (1, 0)]\nz = y * 1\nz[(0, 1), (1, 0)] = -1.0",
        name,
    )
    np.testing.assert_array_equal(g["r"].numpy(), [1.0, 5.0])
    want = A.copy()
    want[(0, 1), (1, 0)] = -1.0
    np.testing.assert_array_equal(g["z"].numpy(), want)
