"""Session 24 (issue #17), Paddle side: a view made under no_grad of a tensor that does
not stop gradient, written in place there, reads as Paddle 3.3.1 reads it (``grad_fn``
None, a leaf); only PyTorch code gets PyTorch's refusal (see test_leakview.py)."""

import ferrograd as paddle


def test_stale_no_grad_view_reads_in_paddle_code():
    a = paddle.ones([2])
    a.stop_gradient = False
    with paddle.no_grad():
        c = a[:]
        c *= 2
    assert c.grad_fn is None
    assert c.is_leaf
    assert c.tolist() == [2.0, 2.0]
