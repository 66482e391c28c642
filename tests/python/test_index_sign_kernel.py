"""PyTorch code's refusal of an index below 0, made inside the index kernels
(``NegIndex::Refuse``, src/kernels/index.rs): the Python ops decide once per call
(``_index_sign.refusal``) and pass the op name to the raw core methods as ``refuse``.

PyTorch refuses in its kernels' own pass too (aten/src/ATen/native/cpu/
ScatterGatherKernel.cpp ``cpu_scatter_gather_base_kernel``: "index {} is out of bounds for
dimension {} with size {}", the first bad index met); Paddle 3.x counts ``[-size, 0)``
from the end (see tests/python/test_edges_s40.py for the per-op citations).
"""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

REFUSED = "negative ones are not counted from the end"


def _run(src: str, dialect: str, **names):
    """Runs ``src`` as a user module importing ferrograd as ``dialect``; returns ``out``."""
    g = {"__name__": "user_script", dialect: fg, **names}
    exec(compile(src, "<user_script>", "exec"), g)
    return g.get("out")


def test_raw_methods_refuse_when_given_an_op_name():
    x = fg.zeros([2, 3])
    idx = fg.tensor([[0, -1, 2], [1, 1, 0]])
    src = fg.ones([2, 3])
    core_gather = fg._gather_sparse._core_gather  # the core's gather, under the wrapper
    for call in (
        lambda: x._scatter_add(1, idx, src, "my_op"),
        lambda: x._scatter_set(1, idx, src, "my_op"),
        lambda: x._scatter_reduce_raw(1, idx, src, "amax", True, "my_op"),
        lambda: core_gather(x, 1, idx, refuse="my_op"),
    ):
        with pytest.raises(IndexError) as e:
            call()
        msg = str(e.value)
        assert msg == (
            "my_op: index -1 is out of bounds for dimension 1 with size 3: PyTorch's my_op "
            "takes indices in [0, 3) (negative ones are not counted from the end; add the "
            "size first)"
        ), msg
    # without a name the same index counts from the end
    got = x._scatter_add(1, idx, src)
    np.testing.assert_array_equal(got.numpy(), [[1, 0, 2], [1, 2, 0]])
    got = core_gather(fg.arange(6.0).reshape([2, 3]), 1, idx)
    np.testing.assert_array_equal(got.numpy(), [[0, 2, 2], [4, 4, 3]])


def test_index_select_refuses_in_its_binding_for_pytorch_code_only():
    names = {"m": fg.arange(6.0).reshape([2, 3]), "i": fg.tensor([2, -1, -3])}
    with pytest.raises(IndexError, match=r"^index_select: index -1 .*\[0, 3\)"):
        _run("out = torch.index_select(m, 1, i)", "torch", **names)
    got = _run("out = paddle.index_select(m, i, axis=1)", "paddle", **names)
    np.testing.assert_array_equal(got.numpy(), [[2, 2, 0], [5, 5, 3]])


def test_the_first_negative_index_in_row_major_order_is_named():
    m = fg.arange(12.0).reshape([3, 4])
    names = {"m": m, "i": fg.tensor([[0, 1], [-3, 2], [-1, 0]])}
    with pytest.raises(IndexError, match=r"^gather: index -3 is out of bounds for dim"):
        _run("out = m.gather(1, i)", "torch", **names)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_gather_paths_refuse_in_pytorch_code(dtype):
    m = fg.arange(12.0).reshape([3, 4])
    i = fg.tensor([[0, -2]], dtype=getattr(fg, dtype))
    # the row kernel (index no larger than m), and the general path (0-d source)
    for src in ("out = m.gather(1, i)", "out = torch.gather(s, 0, i[0, 1:])"):
        with pytest.raises(IndexError, match=REFUSED):
            _run(src, "torch", m=m, i=i, s=fg.tensor(1.0))
    got = _run("out = m.gather(1, i)", "paddle", m=m, i=i)
    np.testing.assert_array_equal(got.numpy(), [[0.0, 2.0]])


def test_an_index_past_the_end_keeps_the_kernels_message():
    names = {"x": fg.arange(4.0)}
    with pytest.raises(IndexError, match="index 4 is out of bounds") as e:
        _run("out = x.gather(0, torch.tensor([1, 4, -1]))", "torch", **names)
    assert REFUSED not in str(e.value)


SCATTER_REDUCTIONS = {
    "scatter_reduce_mean": "out = torch.zeros(4).scatter_reduce(0, i, s, 'mean')",
    "scatter_reduce_prod": "out = torch.zeros(4).scatter_reduce(0, i, s, 'prod')",
    "scatter_reduce_amin_no_self": (
        "out = torch.zeros(4).scatter_reduce(0, i, s, 'amin', include_self=False)"
    ),
    "scatter_reduce_sum_no_self": (
        "out = torch.zeros(4).scatter_reduce(0, i, s, 'sum', include_self=False)"
    ),
    "scatter_multiply": "out = torch.ones(4).scatter(0, i, s, reduce='multiply')",
    "index_reduce_prod": "out = torch.ones(4).index_reduce(0, i, s, 'prod')",
    "index_reduce_mean": "out = torch.ones(4).index_reduce(0, i, s, 'mean')",
    "index_reduce_amax_": "out = torch.ones(4).index_reduce_(0, i, s, 'amax')",
    "index_add_alpha": "out = torch.zeros(4).index_add(0, i, s, alpha=2.0)",
}


@pytest.mark.parametrize("name", sorted(SCATTER_REDUCTIONS))
def test_every_scatter_path_refuses_in_pytorch_code_and_names_the_op(name):
    names = {"i": fg.tensor([1, -1]), "s": fg.ones([2])}
    with pytest.raises(IndexError, match=REFUSED) as e:
        _run(SCATTER_REDUCTIONS[name], "torch", **names)
    called = SCATTER_REDUCTIONS[name].split(").")[1].split("(")[0]
    assert str(e.value).startswith(called + ": index -1 "), str(e.value)


def test_paddle_code_counts_from_the_end_on_the_reduce_paths():
    names = {"i": fg.tensor([1, -1]), "s": fg.full([2], 3.0)}
    got = _run("out = paddle.put_along_axis(paddle.ones([4]), i, s, 0, 'mul')", "paddle", **names)
    np.testing.assert_array_equal(got.numpy(), [1, 3, 1, 3])
    got = _run("out = paddle.ones([4]).scatter_reduce(0, i, s, 'amax')", "paddle", **names)
    np.testing.assert_array_equal(got.numpy(), [1, 3, 1, 3])


def test_gradients_in_pytorch_code_with_valid_indices():
    # the backward passes read the same index again with no refusal (all valid here)
    src = (
        "x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)\n"
        "s = torch.tensor([4.0, 3.0, 7.0], requires_grad=True)\n"
        "y = x.scatter_reduce(0, torch.tensor([0, 0, 2]), s, 'amax')\n"
        "y.sum().backward()\n"
        "g = x.gather(0, torch.tensor([2, 1]), sparse_grad=True)\n"
        "out = (y, x.grad, s.grad, g)\n"
    )
    y, gx, gs, g = _run(src, "torch")
    np.testing.assert_array_equal(y.detach().numpy(), [4, 5, 7])
    np.testing.assert_array_equal(gx.numpy(), [0, 1, 0])
    np.testing.assert_array_equal(gs.numpy(), [1, 0, 1])
    np.testing.assert_array_equal(g.detach().numpy(), [2, 5])


def test_a_refused_inplace_call_leaves_the_tensor_unchanged():
    names = {"t": fg.ones([4]), "i": fg.tensor([0, 2, -1]), "s": fg.full([3], 2.0)}
    for src in ("t.scatter_reduce_(0, i, s, 'prod')", "t.index_reduce_(0, i, s, 'amin')"):
        with pytest.raises(IndexError, match=REFUSED):
            _run(src, "torch", **names)
    np.testing.assert_array_equal(names["t"].numpy(), np.ones(4, np.float32))
