"""``vmap(out_dims=None)`` and ``vmap(randomness="same")`` (issue #17): an output that
does not depend on the mapped inputs is returned once, not stacked (PyTorch's
``torch.func.vmap``), one that does raises ``ValueError`` as in PyTorch; with
``randomness="same"`` every entry draws the same random values."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.func import vmap

X = torch.tensor(np.arange(6.0).reshape(3, 2))
C = torch.tensor([1.0, 2.0])


def test_vmap_unmapped_outputs():
    mapped, const = vmap(lambda x: (x * 2, C * 3), out_dims=(0, None))(X)
    np.testing.assert_array_equal(mapped.numpy(), X.numpy() * 2)
    np.testing.assert_array_equal(const.numpy(), [3.0, 6.0])  # once, not [3, 2]
    assert vmap(lambda x: C, out_dims=None)(X) is C
    np.testing.assert_array_equal(vmap(lambda x: torch.ones(2), out_dims=None)(X).numpy(), [1, 1])
    out, three = vmap(lambda x: (x, 3), out_dims=(0, None))(X)
    assert three == 3 and list(out.shape) == [3, 2]


def test_vmap_unmapped_output_keeps_the_gradient_of_unmapped_inputs():
    x = X.clone().requires_grad_(True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = vmap(lambda x, w: (x * w, w * 2), in_dims=(0, None), out_dims=(0, None))(x, w)
    (a.sum() + b.sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), X.numpy().sum(0) + 2)
    np.testing.assert_array_equal(x.grad.numpy(), np.tile([1.0, 2.0], (3, 1)))


def test_vmap_unmapped_output_that_depends_on_the_mapped_input_raises():
    with pytest.raises(ValueError, match="must not depend on the mapped inputs"):
        vmap(lambda x: x, out_dims=None)(X)
    with pytest.raises(ValueError, match="must not depend on the mapped inputs"):
        vmap(lambda x: (x, x.sum()), out_dims=(0, None))(X)
    # equal values for every entry, but the graph reaches the mapped input
    x = X.clone().requires_grad_(True)
    with pytest.raises(ValueError, match="must not depend on the mapped inputs"):
        vmap(lambda x: x.sum() * 0 + 1, out_dims=None)(x)


def test_vmap_randomness_same_and_different():
    """randomness='same' (issue #17): every entry draws the same values (PyTorch's)."""
    x = torch.zeros(4, 3)
    torch.manual_seed(0)
    same = vmap(lambda x: x + torch.rand(3), randomness="same")(x).numpy()
    assert (same == same[0]).all() and len(set(same[0].tolist())) == 3
    torch.manual_seed(0)
    assert (torch.rand(3).numpy() == same[0]).all()  # the first draw after the seed
    masks = vmap(lambda x: torch.nn.functional.dropout(x + 1, 0.5), randomness="same")(
        torch.zeros(3, 50)
    ).numpy()
    assert (masks == masks[0]).all() and 0 < (masks[0] == 0).sum() < 50
    diff = vmap(lambda x: x + torch.rand(3), randomness="different")(x).numpy()
    assert len({tuple(r) for r in diff.tolist()}) == 4
