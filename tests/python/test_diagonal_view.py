"""``diagonal`` is a view of its input, as PyTorch's: in-place writes into it reach the
input (``x.diagonal().fill_(0)``, a common idiom, did nothing while it was a copy), it sees
later writes into the input, and gradients flow through in-place ops on it. ``diag`` and
``trace`` still copy (``torch.diag`` is not a view either)."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.linalg as fl
import numpy as np
import pytest
from ferrograd.autograd import gradcheck


def test_fill_through_the_diagonal_writes_the_matrix():
    x = fg.zeros([3, 3])
    x.diagonal().fill_(1.0)
    assert x.tolist() == np.eye(3).tolist()


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3, 7])
@pytest.mark.parametrize("dims", [(0, 1), (1, 2), (2, 0), (-1, -3)])
def test_views_of_every_plane_and_offset_match_numpy(offset, dims):
    a = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)
    x = fg.tensor(a)
    d = x.diagonal(offset, *dims)
    want = np.diagonal(a, offset, *dims)
    assert d.tolist() == want.tolist()
    # writing through the view changes exactly those elements of x
    d.add_(100.0)
    b = a.copy()
    idx = np.arange(a.size).reshape(a.shape)
    b.reshape(-1)[np.diagonal(idx, offset, *dims).reshape(-1)] += 100.0
    assert x.tolist() == b.tolist()


def test_the_view_sees_later_writes_into_the_input():
    x = fg.zeros([3, 3])
    d = x.diagonal()
    x.add_(2.0)
    assert d.tolist() == [2.0, 2.0, 2.0]


def test_views_of_transposed_and_sliced_inputs():
    a = np.arange(20.0).reshape(4, 5)
    x = fg.tensor(a)
    assert x.t().diagonal(1).tolist() == np.diagonal(a.T, 1).tolist()
    assert x[1:, ::2].diagonal().tolist() == np.diagonal(a[1:, ::2]).tolist()
    x[1:, ::2].diagonal().zero_()
    a[1:, ::2][np.arange(3), np.arange(3)] = 0
    assert x.tolist() == a.tolist()


def test_a_reversed_input_gives_a_copy_with_the_right_values():
    a = np.arange(9.0).reshape(3, 3)
    x = fg.tensor(a)[::-1]  # a negative stride: no strided view can express its diagonal
    assert x.diagonal().tolist() == np.diagonal(a[::-1]).tolist()


def test_linalg_diagonal_is_the_same_view():
    x = fg.zeros([2, 2, 2])
    fl.diagonal(x).fill_(5.0)
    assert x.tolist() == [[[5.0, 0.0], [0.0, 5.0]]] * 2


def test_diag_and_trace_still_copy():
    x = fg.zeros([3, 3])
    fg.diag(x).fill_(1.0)
    assert x.sum().item() == 0.0
    assert fg.trace(fg.eye(3)).item() == 3.0


def test_in_place_on_a_leafs_diagonal_is_refused_as_in_pytorch():
    w = fg.randn([3, 3], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.diagonal().fill_(0.0)
    with fg.no_grad():
        w.diagonal().fill_(0.0)
    assert np.diagonal(w.detach().numpy()).tolist() == [0.0, 0.0, 0.0]


def test_gradients_through_the_view_and_through_in_place_on_it():
    def read(w):
        return (w * 2.0).diagonal(1, 0, 1) * 3.0

    def write(w):
        z = w * 1.0
        z.diagonal(-1).mul_(w.diagonal(-1) + 1.0)
        return z

    w = fg.tensor(np.random.default_rng(0).normal(size=(3, 4)), requires_grad=True)
    assert gradcheck(read, (w,))
    assert gradcheck(write, (w,))
    z = w * 1.0
    z.diagonal().mul_(3.0)
    z.sum().backward()
    want = np.ones((3, 4))
    want[np.arange(3), np.arange(3)] = 3.0
    assert w.grad.tolist() == want.tolist()


# (a view of a ferrograd tensor, and the same view of a NumPy array)
VIEWS = {
    "merged": (lambda z: z, lambda z: z),  # the plane merges: a strided slice of it
    "transposed": (lambda z: z.t(), lambda z: z.T),  # the transpose's plane merges
    "strided": (lambda z: z[::2, 1:], lambda z: z[::2, 1:]),  # neither: as_strided
}


@pytest.mark.parametrize("name", sorted(VIEWS))
@pytest.mark.parametrize("offset", [-1, 0, 2])
def test_every_view_path_writes_through_and_differentiates(name, offset):
    view, np_view = VIEWS[name]
    a = np.arange(30.0).reshape(5, 6)
    x = fg.tensor(a)
    view(x).diagonal(offset).fill_(-1.0)
    idx = np.arange(30).reshape(5, 6)
    b = a.copy()
    b.reshape(-1)[np.diagonal(np_view(idx), offset)] = -1.0
    assert x.tolist() == b.tolist()
    w = fg.tensor(np.random.default_rng(1).normal(size=(5, 6)), requires_grad=True)
    assert gradcheck(lambda t: view(t * 1.0).diagonal(offset) * 2.0, (w,))
