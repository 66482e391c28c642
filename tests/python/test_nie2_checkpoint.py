"""``torch.utils.checkpoint.checkpoint(..., use_reentrant=False, context_fn=...)``, which
ferrograd refused with NotImplementedError until session 24 (issue #17). The expected
event orders and messages are PyTorch 2.15's."""

from __future__ import annotations

import contextlib

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.utils.checkpoint import checkpoint, noop_context_fn


class _Log:
    def __init__(self):
        self.events = []

    @contextlib.contextmanager
    def tag(self, name):
        self.events.append(name + "+")
        try:
            yield
        finally:
            self.events.append(name + "-")

    def context_fn(self):
        self.events.append("ctx_fn")
        return self.tag("fwd"), self.tag("re")

    def f(self, x):
        self.events.append("f")
        return (x.sin() * x).exp()


X = np.array([0.5, -1.0])


def _want_grad(x):
    # d/dx exp(x sin x) = exp(x sin x) (sin x + x cos x)
    return np.exp(x * np.sin(x)) * (np.sin(x) + x * np.cos(x))


def test_context_fn_forward_and_recompute_contexts():
    log = _Log()
    x = torch.tensor(X, requires_grad=True)
    y = checkpoint(log.f, x, use_reentrant=False, context_fn=log.context_fn)
    log.events.append("fwd done")
    y.sum().backward()
    assert log.events == ["ctx_fn", "fwd+", "f", "fwd-", "fwd done", "re+", "f", "re-"]
    np.testing.assert_allclose(x.grad.numpy(), _want_grad(X), rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), [1.1669471204851183, -3.2054056567216307])


def test_context_fn_with_create_graph_and_gradcheck():
    log = _Log()
    x = torch.tensor(X, requires_grad=True)
    y = checkpoint(log.f, x, use_reentrant=False, context_fn=log.context_fn)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert log.events == ["ctx_fn", "fwd+", "f", "fwd-", "re+", "f", "re-"]
    np.testing.assert_allclose(g.detach().numpy(), _want_grad(X), rtol=1e-14)

    # gradcheck runs backward once per output through one forward: reusable contexts
    # (a @contextmanager one cannot be entered twice, in PyTorch neither)
    def pair():
        return contextlib.nullcontext(), contextlib.nullcontext()

    def region(t):
        return checkpoint(log.f, t, use_reentrant=False, context_fn=pair)

    assert torch.autograd.gradcheck(region, (x,))
    assert torch.autograd.gradgradcheck(region, (x,))


def test_context_fn_without_grad_is_called_not_entered():
    log = _Log()
    x = torch.tensor(X, requires_grad=True)
    with torch.no_grad():
        checkpoint(log.f, x, use_reentrant=False, context_fn=log.context_fn)
    assert log.events == ["ctx_fn", "f"]


@pytest.mark.parametrize("use_reentrant", [None, True])
def test_context_fn_needs_use_reentrant_false(use_reentrant):
    log = _Log()
    x = torch.tensor(X, requires_grad=True)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(log.f, x, use_reentrant=use_reentrant, context_fn=log.context_fn)
    assert log.events == []


def test_noop_context_fn_is_the_default():
    pair = noop_context_fn()
    assert len(pair) == 2 and all(isinstance(c, contextlib.nullcontext) for c in pair)
    x = torch.tensor(X, requires_grad=True)
    checkpoint(torch.sin, x, use_reentrant=True, context_fn=noop_context_fn).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(X))


def test_context_fn_must_return_two_context_managers():
    x = torch.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match="two context managers"):
        checkpoint(torch.sin, x, use_reentrant=False, context_fn=lambda: None)


def test_forward_context_that_swallows_the_error():
    class Swallow:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return True

    def bad(x):
        raise ValueError("boom")

    x = torch.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match="suppressed an exception"):
        checkpoint(
            bad, x, use_reentrant=False, context_fn=lambda: (Swallow(), contextlib.nullcontext())
        )


def test_selective_checkpointing_names_say_they_are_missing():
    for name in ("create_selective_checkpoint_contexts", "CheckpointPolicy"):
        with pytest.raises(AttributeError, match="selective checkpointing"):
            getattr(torch.utils.checkpoint, name)
