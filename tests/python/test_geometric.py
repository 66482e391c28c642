"""``paddle.geometric``'s message passing and segment reductions against NumPy loops
(float64): values, gradients (gradcheck away from ties; Paddle's tie rule at ties),
Paddle's docstring examples and the input checks.

References: python/paddle/geometric/message_passing/send_recv.py and math.py (Paddle
3.3.1); the gradient rules are those of paddle/phi/kernels/cpu/send_u_recv_grad_kernel.cc
(``x_grad += g * (out == x)``: every tied message gets the whole gradient),
send_ue_recv_grad_kernel.cc (``CalculateXEGradForMinMax``) and
paddle/phi/kernels/funcs/segment_pooling.cc (``SegmentPoolGradFunctor``).
"""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

G = paddle.geometric
REDUCES = ("sum", "mean", "max", "min")
MESSAGES = ("add", "sub", "mul", "div")


# ------------------------------------------------------------------ NumPy references
def ref_reduce(msg, dst, n, reduce):
    """Paddle's reduction of the rows ``msg[e]`` into ``out[dst[e]]`` (0 where none)."""
    out = np.zeros((n,) + msg.shape[1:])
    for r in range(n):
        rows = msg[dst == r]
        if len(rows):
            out[r] = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[reduce](
                rows, axis=0
            )
    return out


def ref_msg_grad(msg, dst, n, reduce, g):
    """Paddle's gradient of each message: ``g[dst]`` (sum), ``g[dst] / count`` (mean),
    ``g[dst] * (msg == out[dst])`` (max / min: ties all get the whole gradient)."""
    out = ref_reduce(msg, dst, n, reduce)
    cnt = np.bincount(dst, minlength=n).reshape((n,) + (1,) * (msg.ndim - 1))
    gm = g[dst]
    if reduce == "mean":
        gm = gm / cnt[dst]
    if reduce in ("max", "min"):
        gm = gm * (msg == out[dst])
    return gm


def ref_message(xs, ys, op):
    return {"add": xs + ys, "sub": xs - ys, "mul": xs * ys, "div": xs * (1 / (ys + 1e-12))}[op]


def t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def graph(rng, n_nodes, n_edges, unique=False):
    if unique:
        pairs = rng.permutation(n_nodes * n_nodes)[:n_edges]
        return pairs // n_nodes, pairs % n_nodes
    return rng.integers(0, n_nodes, n_edges), rng.integers(0, n_nodes, n_edges)


# ------------------------------------------------------------------ Paddle's examples
def test_docstring_examples():
    x = paddle.to_tensor([[0, 2, 3], [1, 4, 5], [2, 6, 7]], dtype="float32")
    idx = paddle.to_tensor([[0, 1], [1, 2], [2, 1], [0, 0]], dtype="int32")
    src, dst = idx[:, 0], idx[:, 1]
    out = G.send_u_recv(x, src, dst, reduce_op="sum")
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 3], [2, 8, 10], [1, 4, 5]])
    y = paddle.to_tensor([1, 1, 1, 1], dtype="float32")
    out = G.send_ue_recv(x, y, src, dst, message_op="add", reduce_op="sum")
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 4], [4, 10, 12], [2, 5, 6]])
    yv = paddle.to_tensor([[0, 1, 2], [2, 3, 4], [4, 5, 6]], dtype="float32")
    out = G.send_uv(x, yv, src, dst, message_op="add")
    np.testing.assert_array_equal(out.numpy(), [[2, 5, 7], [5, 9, 11], [4, 9, 11], [0, 3, 5]])
    idx = paddle.to_tensor([[0, 1], [2, 1], [0, 0]], dtype="int32")
    src, dst = idx[:, 0], idx[:, 1]
    out_size = paddle.max(dst) + 1
    out = G.send_u_recv(x, src, dst, reduce_op="sum", out_size=out_size)
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 3], [2, 8, 10]])
    out = G.send_u_recv(x, src, dst, reduce_op="sum")
    np.testing.assert_array_equal(out.numpy(), [[0, 2, 3], [2, 8, 10], [0, 0, 0]])
    y3 = paddle.to_tensor([1, 1, 1], dtype="float32")
    out = G.send_ue_recv(x, y3, src, dst, "add", "sum", out_size=out_size)
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 4], [4, 10, 12]])
    out = G.send_ue_recv(x, y3, src, dst, message_op="add", reduce_op="sum")
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 4], [4, 10, 12], [0, 0, 0]])
    assert out.dtype == paddle.float32

    data = paddle.to_tensor([[1, 2, 3], [3, 2, 1], [4, 5, 6]], dtype="float32")
    ids = paddle.to_tensor([0, 0, 1], dtype="int32")
    expect = {
        "sum": [[4, 4, 4], [4, 5, 6]],
        "mean": [[2, 2, 2], [4, 5, 6]],
        "max": [[3, 2, 3], [4, 5, 6]],
        "min": [[1, 2, 1], [4, 5, 6]],
    }
    for op, want in expect.items():
        np.testing.assert_array_equal(getattr(G, f"segment_{op}")(data, ids).numpy(), want)


# ------------------------------------------------------------------ values
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("out_size", [None, 0, 9])
def test_send_u_recv_values(reduce, out_size):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 2, 3))
    src, dst = graph(rng, 6, 15)  # repeated edges, some rows receive nothing
    n = out_size if out_size else 6
    out = G.send_u_recv(t(x), t(src), t(dst), reduce, out_size=out_size)
    np.testing.assert_allclose(out.numpy(), ref_reduce(x[src], dst, n, reduce), rtol=1e-12)
    assert out.dtype == paddle.float64


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("message", MESSAGES)
def test_send_ue_recv_values(reduce, message):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4))
    src, dst = graph(rng, 5, 12)
    y = rng.uniform(0.5, 2.0, (12, 1))  # one feature per edge, broadcast over x's 4
    out = G.send_ue_recv(t(x), t(y), t(src), t(dst), message, reduce, out_size=7)
    want = ref_reduce(ref_message(x[src], y, message), dst, 7, reduce)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("message", MESSAGES)
def test_send_uv_values_and_shapes(message):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 1))
    y = rng.uniform(0.5, 2.0, (5, 2))  # padded to [5, 1, 2] (Paddle's reshape_lhs_rhs)
    src, dst = rng.integers(0, 4, 9), rng.integers(0, 5, 9)
    out = G.send_uv(t(x), t(y), t(src), t(dst), message)
    want = ref_message(x[src], y[dst][:, None, :], message)
    assert list(out.shape) == [9, 3, 2]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    # 1-D operands are one column each: the result is [E, 1]
    out = G.send_uv(t(x[:, 0, 0]), t(y[:, 0]), t(src), t(dst), message)
    assert list(out.shape) == [9, 1]


def test_send_ue_recv_one_dim_operands_give_a_column():
    out = G.send_ue_recv(t([1.0, 2.0]), t([10.0, 20.0]), t([0, 1]), t([1, 1]))
    np.testing.assert_array_equal(out.numpy(), [[0.0], [33.0]])


def test_integer_values_and_mean_truncates_toward_zero():
    x = np.array([[-7, 5], [2, 4], [0, 1]], dtype=np.int64)
    src, dst = np.array([0, 1, 2, 0]), np.array([0, 0, 0, 2])
    out = G.send_u_recv(t(x), t(src), t(dst), "mean")
    assert out.dtype == paddle.int64
    np.testing.assert_array_equal(out.numpy(), [[-1, 3], [0, 0], [-7, 5]])
    out = G.segment_mean(t(x.astype(np.int32)), t([0, 0, 1]))
    np.testing.assert_array_equal(out.numpy(), [[-2, 4], [0, 1]])
    out = G.send_u_recv(t(x), t(src), t(dst), "max")
    np.testing.assert_array_equal(out.numpy(), [[2, 5], [0, 0], [-7, 5]])


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_values_with_empty_segments(reduce):
    rng = np.random.default_rng(3)
    ids = np.sort(rng.choice([0, 2, 3, 6], 10))
    data = rng.standard_normal((10, 3))
    out = getattr(G, f"segment_{reduce}")(t(data), t(ids))
    want = ref_reduce(data, ids, ids[-1] + 1, reduce)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


def test_no_edges_gives_zero_rows_on_the_graph():
    x = t(np.ones((3, 2)), grad=True)
    empty = paddle.to_tensor(np.zeros(0, dtype=np.int64))
    for reduce in REDUCES:
        out = G.send_u_recv(x, empty, empty, reduce, out_size=5)
        assert list(out.shape) == [5, 2] and not out.numpy().any()
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 2)))


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("reduce", REDUCES)
def test_gradcheck_send_u_recv(reduce):
    rng = np.random.default_rng(4)
    src, dst = graph(rng, 5, 11, unique=True)  # continuous values: no ties
    x = t(rng.standard_normal((5, 3)), grad=True)
    assert gradcheck(lambda a: G.send_u_recv(a, t(src), t(dst), reduce, out_size=6), [x])


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("message", MESSAGES)
def test_gradcheck_send_ue_recv(reduce, message):
    rng = np.random.default_rng(5)
    src, dst = graph(rng, 4, 9, unique=True)
    x = t(rng.standard_normal((4, 1, 3)), grad=True)
    y = t(rng.uniform(0.5, 2.0, (9, 2, 1)), grad=True)
    fn = lambda a, b: G.send_ue_recv(a, b, t(src), t(dst), message, reduce)  # noqa: E731
    assert gradcheck(fn, [x, y])


@pytest.mark.parametrize("message", MESSAGES)
def test_gradcheck_send_uv(message):
    rng = np.random.default_rng(6)
    src, dst = graph(rng, 4, 10)
    x = t(rng.standard_normal((4, 3)), grad=True)
    y = t(rng.uniform(0.5, 2.0, (4, 1)), grad=True)
    assert gradcheck(lambda a, b: G.send_uv(a, b, t(src), t(dst), message), [x, y])


@pytest.mark.parametrize("reduce", REDUCES)
def test_gradcheck_segment(reduce):
    rng = np.random.default_rng(7)
    data = t(rng.standard_normal((8, 2)), grad=True)
    ids = t(np.array([0, 0, 0, 2, 2, 3, 5, 5]))
    assert gradcheck(lambda d: getattr(G, f"segment_{reduce}")(d, ids), [data])


# ------------------------------------------------------------------ Paddle's tie rule
@pytest.mark.parametrize("reduce", REDUCES)
def test_send_u_recv_grad_at_ties_is_paddles(reduce):
    rng = np.random.default_rng(8)
    x = rng.integers(0, 3, (6, 4)).astype(np.float64)  # many equal values
    src, dst = graph(rng, 6, 20)  # and repeated edges (exact ties)
    g = rng.standard_normal((6, 4))
    xt = t(x, grad=True)
    out = G.send_u_recv(xt, t(src), t(dst), reduce)
    (out * t(g)).sum().backward()
    gm = ref_msg_grad(x[src], dst, 6, reduce, g)
    want = np.zeros_like(x)
    np.add.at(want, src, gm)
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("message", ["add", "mul"])
def test_send_ue_recv_grad_at_ties_is_paddles(reduce, message):
    # two messages into row 0 tie (2 * 1 == 1 * 2, 2 + 1 == 1 + 2): both get g whole
    x = t([[2.0], [1.0]], grad=True)
    y = t([[1.0], [2.0]], grad=True)
    out = G.send_ue_recv(x, y, t([0, 1]), t([0, 0]), message, reduce)
    (out * 3.0).sum().backward()
    if message == "mul":  # x_grad += g * e, e_grad += g * x (CalculateXEGradForMinMax)
        np.testing.assert_array_equal(x.grad.numpy(), [[3.0], [6.0]])
        np.testing.assert_array_equal(y.grad.numpy(), [[6.0], [3.0]])
    else:
        np.testing.assert_array_equal(x.grad.numpy(), [[3.0], [3.0]])
        np.testing.assert_array_equal(y.grad.numpy(), [[3.0], [3.0]])


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_segment_grad_at_ties_is_paddles(reduce):
    data = np.array([[1.0, 5.0], [1.0, 2.0], [1.0, 5.0], [4.0, 4.0]])
    ids = np.array([0, 0, 0, 1])
    d = t(data, grad=True)
    g = np.array([[2.0, 3.0], [5.0, 7.0]])
    (getattr(G, f"segment_{reduce}")(d, t(ids)) * t(g)).sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), ref_msg_grad(data, ids, 2, reduce, g))


def test_max_grad_is_differentiable_again():
    x = t([[1.0], [3.0], [2.0]], grad=True)
    out = G.send_u_recv(x, t([0, 1, 2]), t([0, 0, 1]), "max")
    (gx,) = paddle.grad((out * out).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(gx.numpy(), [[0.0], [6.0], [4.0]])
    (ggx,) = paddle.grad(gx.sum(), [x])
    np.testing.assert_array_equal(ggx.numpy(), [[0.0], [2.0], [2.0]])


# ------------------------------------------------------------------ input checks
def test_unknown_ops_raise_value_error():
    x, i = t(np.ones((2, 2))), t([0, 1])
    with pytest.raises(ValueError, match="reduce_op should be"):
        G.send_u_recv(x, i, i, "prod")
    with pytest.raises(ValueError, match="message_op should be"):
        G.send_ue_recv(x, x, i, i, "pow")
    with pytest.raises(ValueError, match="message_op should be"):
        G.send_uv(x, x, i, i, "max")


def test_index_checks():
    x = t(np.ones((3, 2)))
    with pytest.raises(TypeError, match="src_index must be an int32 or int64"):
        G.send_u_recv(x, t([0.0, 1.0]), t([0, 1]))
    with pytest.raises(ValueError, match="shape \\[n\\] or \\[n, 1\\]"):
        G.send_u_recv(x, t([[0, 1]]), t([[0, 1]]))
    with pytest.raises(ValueError, match="same shape"):
        G.send_u_recv(x, t([0, 1]), t([0]))
    with pytest.raises(IndexError, match=r"send_u_recv: src_index holds 3, out of range \[0, 3\)"):
        G.send_u_recv(x, t([0, 3]), t([0, 1]))
    with pytest.raises(IndexError, match=r"dst_index holds -1, out of range \[0, 3\)"):
        G.send_u_recv(x, t([0, 1]), t([0, -1]))
    with pytest.raises(IndexError, match=r"dst_index holds 2, out of range \[0, 2\)"):
        G.send_u_recv(x, t([0, 1]), t([0, 2]), out_size=2)
    with pytest.raises(IndexError, match=r"send_uv: dst_index holds 2, out of range \[0, 2\)"):
        G.send_uv(x, t(np.ones((2, 2))), t([0, 1]), t([0, 2]))
    with pytest.raises(ValueError, match="one row per edge"):
        G.send_ue_recv(x, t(np.ones((3, 2))), t([0, 1]), t([0, 1]))
    with pytest.raises(ValueError, match="do not broadcast"):
        G.send_uv(x, t(np.ones((3, 3))), t([0, 1]), t([0, 1]))
    with pytest.raises(TypeError, match="one dtype"):
        G.send_uv(x, t(np.ones((3, 2), dtype=np.float32)), t([0, 1]), t([0, 1]))
    with pytest.raises(TypeError, match="'div' needs floating-point"):
        G.send_uv(t([[1], [2]]), t([[1], [2]]), t([0, 1]), t([0, 1]), "div")
    # [E, 1] indexes and an int32 tensor out_size are accepted
    out = G.send_u_recv(x, t([[0], [1]]), t([[1], [1]]), out_size=paddle.to_tensor([4]))
    assert list(out.shape) == [4, 2]


def test_segment_checks():
    data = t(np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"should be sorted.*segment_ids\[1\] = 2"):
        G.segment_sum(data, t([0, 2, 1]))
    with pytest.raises(IndexError, match="segment_sum: segment_ids holds -1"):
        G.segment_sum(data, t([-1, 0, 0]))
    with pytest.raises(ValueError, match="same size as dimension 0"):
        G.segment_max(data, t([0, 0]))
    with pytest.raises(TypeError, match="segment_ids must be an int32 or int64"):
        G.segment_min(data, t([0.0, 0.0, 1.0]))
    with pytest.raises(TypeError, match="data must be float16"):
        G.segment_mean(paddle.to_tensor([True, False, True]), t([0, 0, 1]))
