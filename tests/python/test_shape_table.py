"""The shape-op table (``src/op_defs/shape.rs``): every row drives the eager op (its rule,
view marking and inverse as backward), the static op (``ExtOp::TableShape``: the same
rule over run-time dimensions, the same parser for the attributes) and the generated
``Tensor`` method (its signature from the row's ``params``/``keywords``); errors name
the op and the bad argument."""

import inspect

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, static
from ferrograd.autograd import gradcheck, gradgradcheck

# name -> (name, doc, params, keywords, view kind, has static rule, node, varargs, arity,
# signature)
SHAPE = {row[0]: row for row in _core._shape_op_table()}

# one call per row, in both dialects' spellings: (paddle kwargs, torch kwargs)
CALLS = {
    "squeeze": [({"axis": 1}, {"dim": 1}), ({"axis": [1, 3]}, {"dim": (1, 3)}), ({}, {})],
    "unsqueeze": [({"axis": 0}, {"dim": 0}), ({"axis": [0, -1]}, {"dim": [0, -1]})],
    "flatten": [
        ({"start_axis": 1}, {"start_dim": 1}),
        ({"start_axis": 0, "stop_axis": 2}, {"start_dim": 0, "end_dim": 2}),
        ({}, {}),
    ],
}


def _x(shape=(2, 1, 3, 1)):
    a = np.random.default_rng(13).standard_normal(shape)
    return fg.tensor(a, requires_grad=True)


def test_the_table_lists_the_migrated_ops():
    # (the ops taking *args are tested in test_shape_table_permute.py and _reshape.py)
    # (and the broadcasts in test_shape_table_expand.py)
    assert set(SHAPE) == set(CALLS) | {"reshape", "permute", "transpose"} | {
        "expand",
        "broadcast_to",
        "expand_as",
    }
    assert SHAPE["squeeze"][4] == "Always" and SHAPE["unsqueeze"][4] == "Always"
    assert SHAPE["flatten"][4] == "WhenPossible"
    # only squeeze resolves its arguments against the recorded shape when building
    assert [n for n, r in SHAPE.items() if r[5]] == ["squeeze"]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_generated_method_has_the_declared_signature(name):
    _, doc, params, keywords, *_ = SHAPE[name]
    sig = inspect.signature(getattr(fg.Tensor, name))
    ps = list(sig.parameters.values())[1:]  # without self
    assert [p.name for p in ps] == params + keywords
    # the parameters default to None; the signature shows each role's default
    defaults = {"start_axis": 0, "stop_axis": -1}
    assert all(p.default == defaults.get(p.name) for p in ps)
    assert all(p.kind is p.KEYWORD_ONLY for p in ps[len(params) :])
    assert getattr(fg.Tensor, name).__doc__.startswith(doc.split("`")[0])
    # the module functions of both dialects are the method
    assert (
        getattr(fg, name)(_x(), **CALLS[name][0][0]).shape
        == getattr(_x(), name)(**CALLS[name][0][0]).shape
    )


@pytest.mark.parametrize("name", sorted(CALLS))
def test_eager_row_values_view_node_and_both_dialects(name):
    for paddle_kw, torch_kw in CALLS[name]:
        x = _x()
        y = getattr(x, name)(**paddle_kw)
        assert getattr(x, name)(**torch_kw).shape == y.shape
        ref = {
            "squeeze": lambda a, kw: np.squeeze(
                a,
                axis=None
                if not kw
                else tuple(i for i in np.atleast_1d(kw["axis"]) if a.shape[i] == 1),
            ),
            "unsqueeze": lambda a, kw: np.expand_dims(a, kw["axis"]),
            "flatten": lambda a, kw: a.reshape(
                a.shape[: kw.get("start_axis", 0)]
                + (-1,)
                + a.shape[kw.get("stop_axis", a.ndim - 1) + 1 :]
            ),
        }[name](x.detach().numpy(), paddle_kw)
        np.testing.assert_array_equal(y.detach().numpy(), ref)
        node = "ViewBackward0" if list(y.shape) == list(x.shape) else SHAPE[name][6] + "0"
        assert y.grad_fn.name() == node
        # a view: same memory, marked for the version checks of in-place writes
        assert y.data_ptr() == x.data_ptr() and y._base is x
        assert gradcheck(lambda t, kw=paddle_kw: getattr(t, name)(**kw), (x,))
        assert gradgradcheck(lambda t, kw=paddle_kw: getattr(t, name)(**kw), (x,))


def test_flatten_copies_when_the_strides_forbid_a_view():
    x = fg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    t = x.t()
    y = t.flatten()
    assert y._base is None and y.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(y.detach().numpy(), [0, 3, 1, 4, 2, 5])
    assert y.grad_fn.name() == "ReshapeBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


def test_an_inplace_write_through_a_table_view_is_seen_by_its_base():
    x = _x().detach().clone()
    v = x.squeeze()
    before = x._version
    v.add_(1.0)
    assert x._version > before
    w = fg.tensor(np.ones((2, 3)), requires_grad=True)
    y = w * 2
    u = y.unsqueeze(0)
    z = u.sin()  # saves its input (a view of y), then y changes through another view
    y.flatten().mul_(3.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_static_row_matches_eager_with_a_run_time_dimension(name):
    a = np.random.default_rng(5).standard_normal((4, 1, 3, 1))
    b = np.random.default_rng(6).standard_normal((7, 1, 3, 1))
    for paddle_kw, torch_kw in CALLS[name]:
        if name == "squeeze" and not paddle_kw:
            continue  # all dims: in a static program only those known to be 1 go
        with static.program_guard(static.Program(), static.Program()):
            x = static.data("x", [-1, 1, 3, 1], "float64")
            y = getattr(x, name)(**paddle_kw)
            y2 = getattr(x, name)(**torch_kw)
            assert y.shape == y2.shape
            (g,) = static.gradients([(y * y).sum()], [x])
            exe, main = static.Executor(), static.default_main_program()
            for arr in (a, b):
                got, gx = exe.run(main, feed={"x": arr}, fetch_list=[y, g])
                want = getattr(fg.tensor(arr), name)(**paddle_kw).numpy()
                np.testing.assert_array_equal(got, want)
                np.testing.assert_allclose(gx, 2 * arr)
                assert len(y.shape) == want.ndim
                assert all(d in (-1, w) for d, w in zip(y.shape, want.shape))


def test_static_squeeze_of_all_dims_keeps_run_time_ones():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 1, 3], "float32")
        y = x.squeeze()
        assert y.shape == [-1, 3]
        feed = {"x": np.ones((1, 1, 3), "float32")}
        (got,) = static.Executor().run(static.default_main_program(), feed=feed, fetch_list=[y])
        assert got.shape == (1, 3)  # the run-time 1 stays: the rank does not follow the feed


def test_static_unsqueeze_of_a_repeated_axis_matches_eager():
    # one rule: eager and static agree (static used to reject what eager accepted)
    want = fg.zeros(3).unsqueeze([0, 0]).shape
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [3], "float32")
        assert x.unsqueeze([0, 0]).shape == want == [1, 1, 3]


@pytest.mark.parametrize(
    "call,exc,pattern",
    [
        (lambda t: t.squeeze(5), IndexError, r"squeeze: dimension 5 is out of range"),
        (lambda t: t.squeeze(dim="a"), TypeError, r"squeeze\(\): dim must be an int"),
        (lambda t: t.unsqueeze(), TypeError, r"unsqueeze\(\) needs an axis"),
        (lambda t: t.unsqueeze(-6), IndexError, r"unsqueeze: dimension -6 is out of range"),
        (lambda t: t.flatten(2, 1), ValueError, r"flatten: start dim 2 comes after end dim 1"),
        (lambda t: t.flatten(end_dim=1.5), TypeError, r"flatten\(\): end_dim must be an int"),
        (lambda t: t.flatten("x"), TypeError, r"flatten\(\): start_axis must be an int"),
    ],
)
def test_eager_errors_name_the_op_and_the_argument(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(fg.zeros(2, 1, 3, 1))


@pytest.mark.parametrize(
    "call,exc,pattern",
    [
        (lambda v: v.squeeze(4), IndexError, r"squeeze: axis 4 is out of range .*'x'"),
        (lambda v: v.squeeze(0), ValueError, r"squeeze: axis 0 of 'x' .* known only at run time"),
        (lambda v: v.unsqueeze(), TypeError, r"unsqueeze\(\) needs an axis"),
        (lambda v: v.unsqueeze(6), IndexError, r"unsqueeze: axis 6 is out of range"),
        (lambda v: v.flatten(3, 1), ValueError, r"flatten: start axis 3 comes after stop axis 1"),
        (lambda v: v.flatten(start_dim="a"), TypeError, r"flatten\(\): start_dim must be an int"),
    ],
)
def test_static_errors_name_the_op_the_argument_and_the_variable(call, exc, pattern):
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 1, 3, 1], "float32")
        with pytest.raises(exc, match=pattern):
            call(x)
