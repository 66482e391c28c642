"""The op tables (``src/op_defs/unary.rs``, ``src/op_defs/binary.rs``) are the one place
ops are declared: every declared op is a ``Tensor`` method, a module function, a static
``Variable`` method and a stub entry, and the generated Python blocks are fresh."""

import importlib.util
import inspect
import sys
from pathlib import Path

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core

ROOT = Path(__file__).resolve().parents[2]
TABLE = _core._unary_op_table()
BINARY = _core._binary_op_table()
STUB = (ROOT / "python/ferrograd/_core.pyi").read_text()


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_op_bindings", ROOT / "scripts" / "gen_op_bindings.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_op_bindings"] = module
    spec.loader.exec_module(module)
    return module


def test_generated_blocks_are_fresh():
    gen = _generator()
    stale = gen.stale_files(gen.table(), write=False)
    assert not stale, (
        f"{[str(p) for p in stale]} are stale: run `.venv/bin/python scripts/gen_op_bindings.py`"
    )


def test_a_stale_block_is_detected(tmp_path, monkeypatch):
    gen = _generator()
    copy = tmp_path / "api.py"
    copy.write_text(
        (ROOT / "python/ferrograd/_dialect_aliases.py")
        .read_text()
        .replace("tanh = Tensor.tanh\n", "")
    )
    monkeypatch.setattr(gen, "BLOCKS", [(copy, "unary functions", gen.UNARY, gen._api_functions)])
    assert gen.stale_files(gen.table(), write=False) == [copy]


@pytest.mark.parametrize("entry", TABLE, ids=[e[0][0] for e in TABLE])
def test_every_declared_name_is_bound_everywhere(entry):
    methods, functional, doc, rule, differentiable, extra = entry
    for m in methods:
        # the extra keyword (round's decimals=), where declared, before Paddle's name=
        params = list(inspect.signature(getattr(fg.Tensor, m)).parameters)
        assert params[1:] == ([extra, "name"] if extra else ["name"])
        if _check_dialect_wrapper(m):
            continue
        assert getattr(fg.Tensor, m).__doc__.startswith(doc.split("`")[0])
        assert getattr(fg, m).__wrapped__ is getattr(fg.Tensor, m)  # (dispatching on type)
        assert m in fg.__all__ or m in fg._dialect_aliases.__all__
        assert callable(getattr(fg.static.Variable, m))
    for f in functional:
        fn = getattr(fg.nn.functional, f).__wrapped__
        # (a function adding peer arguments, e.g. relu's inplace, names the method it wraps)
        assert getattr(fn, "_table_method", fn) is getattr(fg.Tensor, methods[0])
    assert rule in ("Same", "Float", "Bool", "Modulus", "Integral")


@pytest.mark.parametrize("entry", TABLE, ids=[e[0][0] for e in TABLE])
def test_dtype_rule_and_gradient_flag_hold_eagerly(entry):
    methods, _, _, rule, differentiable, _ = entry
    op = getattr(fg.Tensor, methods[0])
    y = op(fg.tensor([1, 2], dtype="int64")) if rule != "Float" else op(fg.tensor([1, 2]))
    want = {"Same": fg.int64, "Modulus": fg.int64, "Bool": fg.bool, "Float": fg.float32}
    assert y.dtype == {**want, "Integral": fg.int64}[rule]
    if rule == "Integral":  # (integers and bools only: nothing to differentiate)
        with pytest.raises(TypeError, match=methods[0]):
            op(fg.tensor([0.3, 0.7]))
        return
    domain = [1.3, 1.7] if methods[0] == "acosh" else [0.3, 0.7]  # (acosh: x >= 1)
    x = fg.tensor(np.array(domain), requires_grad=True)
    y = op(x)
    if rule == "Bool":
        assert not y.requires_grad
        return
    if "not differentiable" in getattr(fg.Tensor, methods[0]).__doc__:
        # torch.special's Bessel functions (derivatives.yaml: non_differentiable): the
        # backward raises rather than skipping the op
        with pytest.raises(NotImplementedError, match=methods[0]):
            y.sum().backward()
        return
    y.sum().backward()
    assert (np.abs(x.grad.numpy()).max() > 0) == differentiable


@pytest.mark.parametrize("entry", TABLE, ids=[e[0][0] for e in TABLE])
def test_every_declared_op_records_and_runs_in_static_graphs(entry):
    methods, _, _, rule, _, _ = entry
    st = fg.static
    main, startup = st.Program(), st.Program()
    dtype = "int64" if rule == "Integral" else "float64"
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [2], dtype)
            y = getattr(fg, methods[-1])(x)
    finally:
        fg.disable_static()
    xv = np.array([3, -7]) if rule == "Integral" else np.array([0.3, 0.7])
    (got,) = st.Executor().run(main, feed={"x": xv}, fetch_list=[y])
    want = getattr(fg.Tensor, methods[0])(fg.tensor(xv)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("entry", BINARY, ids=[e[0][0] for e in BINARY])
def test_every_declared_binary_name_is_bound_everywhere(entry):
    methods, operators, keywords, doc, rule, differentiable, extra = entry
    for m in methods:
        if _check_dialect_wrapper(m):
            continue
        assert getattr(fg.Tensor, m).__doc__.startswith(doc.split("`")[0])
        assert getattr(fg, m).__wrapped__ is getattr(fg.Tensor, m)  # (dispatching on type)
        assert m in fg.__all__ or m in fg._dialect_aliases.__all__
        assert callable(getattr(fg.static.Variable, m))
        assert f"    def {m}(" in STUB
    for d in operators:
        assert callable(getattr(fg.Tensor, d))
        assert f"    def {d}(self, other: _Operand, /) -> Tensor: ..." in STUB
    x = fg.tensor([1, 2], dtype="int64")
    for k in keywords:  # the second operand by keyword, in each spelling
        np.testing.assert_array_equal(
            getattr(x, methods[0])(**{k: x}).numpy(), getattr(x, methods[0])(x).numpy()
        )
    for m in methods:  # torch's extra keyword (alpha=, rounding_mode=), where declared
        params = inspect.signature(getattr(fg.Tensor, m)).parameters
        assert (extra in params) if extra else not {"alpha", "rounding_mode"} & set(params)
    if extra == "alpha":  # scales the second operand first
        y = fg.tensor([10, 20], dtype="int64")
        np.testing.assert_array_equal(
            getattr(x, methods[0])(y, alpha=3).numpy(), getattr(x, methods[0])(y * 3).numpy()
        )
    assert rule in ("Promote", "PromoteNotBool", "PromoteBoolToInt", "Float", "Bool", "IntOrBool")


@pytest.mark.parametrize("entry", BINARY, ids=[e[0][0] for e in BINARY])
def test_binary_dtype_rule_and_gradient_flag_hold_eagerly(entry):
    methods, _, _, _, rule, differentiable, _ = entry
    op = getattr(fg.Tensor, methods[0])
    i = fg.tensor([1, 2], dtype="int64")
    want = {"Float": fg.float32, "Bool": fg.bool}.get(rule, fg.int64)
    assert op(i, i).dtype == want
    b = fg.tensor([True, True])  # (no zero divisor for floor_divide and remainder)
    if rule == "PromoteNotBool":
        with pytest.raises(TypeError, match=methods[0]):
            op(b, b)
    else:
        want = {"Float": fg.float32, "PromoteBoolToInt": fg.int64}.get(rule, fg.bool)
        assert op(b, b).dtype == want
    if rule == "IntOrBool":
        with pytest.raises(TypeError, match=methods[0]):
            op(fg.tensor([1.0]), fg.tensor([2.0]))
        return
    x = fg.tensor(np.array([0.3, 0.7]), requires_grad=True)
    y = op(x, fg.tensor(np.array([0.5, 0.2])))
    assert y.requires_grad == differentiable
    if methods[0] == "zeta":  # differentiable in its second operand only (as PyTorch)
        with pytest.raises(NotImplementedError, match="zeta"):
            y.sum().backward()
        q = fg.tensor(np.array([0.5, 0.2]), requires_grad=True)
        op(fg.tensor(np.array([2.0, 3.0])), q).sum().backward()
        assert np.abs(q.grad.numpy()).max() > 0
        return
    if "not differentiable" in getattr(fg.Tensor, methods[0]).__doc__:
        # torch.special's orthogonal polynomials (derivatives.yaml: non_differentiable)
        with pytest.raises(NotImplementedError, match=methods[0]):
            y.sum().backward()
        return
    if differentiable:
        y.sum().backward()
        assert np.abs(x.grad.numpy()).max() > 0


@pytest.mark.parametrize("entry", BINARY, ids=[e[0][0] for e in BINARY])
def test_every_declared_binary_op_records_and_runs_in_static_graphs(entry):
    methods, _, _, _, rule, _, _ = entry
    dtype = "int64" if rule == "IntOrBool" else "float64"
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [2], dtype)
            w = st.data("w", [1], dtype)
            y = getattr(fg, methods[-1])(x, w)
    finally:
        fg.disable_static()
    xv, wv = np.array([3, 7]).astype(dtype), np.array([2]).astype(dtype)
    (got,) = st.Executor().run(main, feed={"x": xv, "w": wv}, fetch_list=[y])
    want = getattr(fg.Tensor, methods[0])(fg.tensor(xv), fg.tensor(wv)).numpy()
    np.testing.assert_array_equal(got, want)


REDUCE = _core._reduce_op_table()


def _check_dialect_wrapper(name):
    """For an op the dialects answer differently (`_shared_spellings.py`, tested in
    test_shared_spellings.py): the module function dispatches to the wrapper and the
    method is the same wrapper as a method. False for every other op."""
    if name not in fg._shared_spellings.__all__:
        return False
    wrapper = getattr(fg._shared_spellings, name)
    assert getattr(fg, name).__wrapped__ is wrapper  # (dispatching on type)
    method = getattr(fg.Tensor, name)
    assert method.__qualname__ == f"Tensor.{name}" and method.__doc__ == wrapper.__doc__
    return True


def _table_op(name):
    """The table's own op: `max`/`min` are wrapped by the dialect rule for PyTorch's
    `(values, indices)` (`_shared_spellings.py`, tested in test_shared_spellings.py)."""
    return fg._shared_spellings._VALUES.get(name, getattr(fg.Tensor, name))


@pytest.mark.parametrize("entry", REDUCE, ids=[e[0] for e in REDUCE])
def test_every_declared_reduction_is_bound_everywhere(entry):
    name, doc, params, keywords, other, rule, axes, differentiable, node = entry
    method = _table_op(name)
    assert method.__doc__.startswith(doc.split("`")[0])
    if not _check_dialect_wrapper(name):
        assert getattr(fg, name).__wrapped__ is method  # (dispatching on type)
    assert name in fg.__all__ or name in fg._dialect_aliases.__all__
    assert callable(getattr(fg.static.Variable, name))
    assert f"    def {name}(" in STUB
    # the method's signature is the declared one, every default None
    sig = inspect.signature(method)
    assert list(sig.parameters)[1:] == [*params, *keywords]
    assert all(p.default is None for p in list(sig.parameters.values())[1:])
    assert sorted(other) in ([], sorted(params))
    assert rule in ("IntToI64", "Same", "Float", "Bool", "Index") and axes in ("Many", "One")


@pytest.mark.parametrize("entry", REDUCE, ids=[e[0] for e in REDUCE])
def test_reduction_dtype_rule_keywords_and_node_hold_eagerly(entry):
    name, _, params, keywords, _, rule, _, differentiable, node = entry
    op = _table_op(name)
    want = {"IntToI64": fg.int64, "Same": fg.int32, "Float": fg.float32}
    want.update({"Bool": fg.bool, "Index": fg.int64})
    assert op(fg.tensor([[1, 2], [3, 4]], dtype="int32")).dtype == want[rule]
    x = fg.tensor(np.array([[0.3, 0.7, -0.2], [1.5, 0.1, 0.4]]), requires_grad=True)
    y = op(x, 1)
    ref = y.detach().numpy()
    # every spelling of the axes and keepdim gives the same result
    for kw in ("axis", "dim"):
        if kw in [*params, *keywords]:
            np.testing.assert_array_equal(op(x, **{kw: 1}).detach().numpy(), ref)
    for kw in ("keepdim", "keepdims"):
        if kw in [*params, *keywords]:
            kept = op(x, 1, **{kw: True})
            assert kept.shape == [2, 1]
            np.testing.assert_array_equal(kept.detach().numpy().reshape(2), ref)
    assert y.requires_grad == differentiable
    if differentiable:
        assert y.grad_fn.name() == node + "0"
        y.sum().backward()
        assert np.abs(x.grad.numpy()).max() > 0
    else:
        assert node == ""


@pytest.mark.parametrize("entry", REDUCE, ids=[e[0] for e in REDUCE])
@pytest.mark.parametrize("keepdim", [False, True])
def test_every_declared_reduction_records_and_runs_in_static_graphs(entry, keepdim):
    name, _, _, _, _, rule, _, _, _ = entry
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [2, 3], "float64")
            y = getattr(fg, name)(x, 1, keepdim=keepdim)
            z = getattr(x, name)()
    finally:
        fg.disable_static()
    xv = np.array([[0.3, -0.7, 2.0], [1.5, 0.0, 0.4]])
    got_y, got_z = st.Executor().run(main, feed={"x": xv}, fetch_list=[y, z])
    t = fg.tensor(xv)
    want_y = getattr(t, name)(1, keepdim=keepdim)
    np.testing.assert_allclose(got_y, want_y.numpy())
    np.testing.assert_allclose(got_z, getattr(t, name)().numpy())
    assert list(y.shape) == want_y.shape and y.dtype == want_y.dtype
