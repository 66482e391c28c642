"""`dense @ sparse` with the `@` operator: the dense tensor's `__matmul__` returns
NotImplemented for an operand it cannot convert, so the sparse tensor's `__rmatmul__`
runs (before, the dense side raised TypeError)."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest


def test_dense_at_sparse_operator_matches_numpy_and_its_gradient():
    d = np.arange(6.0).reshape(2, 3)
    s = np.array([[0.0, 2.0], [1.5, 0.0], [0.0, -1.0]])
    dense = torch.tensor(d, requires_grad=True)
    sp = torch.tensor(s).to_sparse()
    out = dense @ sp
    np.testing.assert_allclose(out.detach().numpy(), d @ s)
    out.sum().backward()
    np.testing.assert_allclose(dense.grad.detach().numpy(), np.ones((2, 2)) @ s.T)


def test_an_operand_of_no_known_kind_still_raises_type_error():
    x = torch.ones(2, 2)
    with pytest.raises(TypeError):
        x @ object()
    with pytest.raises(TypeError):
        object() @ x
