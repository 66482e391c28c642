"""The unary op table (``src/op_defs/unary.rs``) is the one place ops are declared: every
declared op is a ``Tensor`` method, a module function, a static ``Variable`` method and a
stub entry, and the generated Python blocks are fresh."""

import importlib.util
import sys
from pathlib import Path

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core

ROOT = Path(__file__).resolve().parents[2]
TABLE = _core._unary_op_table()


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
    monkeypatch.setattr(gen, "BLOCKS", [(copy, "unary functions", gen._api_functions)])
    assert gen.stale_files(gen.table(), write=False) == [copy]


@pytest.mark.parametrize("entry", TABLE, ids=[e[0][0] for e in TABLE])
def test_every_declared_name_is_bound_everywhere(entry):
    methods, functional, doc, rule, differentiable = entry
    for m in methods:
        assert getattr(fg.Tensor, m).__doc__.startswith(doc.split("`")[0])
        assert getattr(fg, m).__wrapped__ is getattr(fg.Tensor, m)  # (dispatching on type)
        assert m in fg.__all__ or m in fg._dialect_aliases.__all__
        assert callable(getattr(fg.static.Variable, m))
    for f in functional:
        assert getattr(fg.nn.functional, f).__wrapped__ is getattr(fg.Tensor, methods[0])
    assert rule in ("Same", "Float", "Bool", "Modulus", "Integral")


@pytest.mark.parametrize("entry", TABLE, ids=[e[0][0] for e in TABLE])
def test_dtype_rule_and_gradient_flag_hold_eagerly(entry):
    methods, _, _, rule, differentiable = entry
    op = getattr(fg.Tensor, methods[0])
    y = op(fg.tensor([1, 2], dtype="int64")) if rule != "Float" else op(fg.tensor([1, 2]))
    want = {"Same": fg.int64, "Modulus": fg.int64, "Bool": fg.bool, "Float": fg.float32}
    assert y.dtype == {**want, "Integral": fg.int64}[rule]
    if rule == "Integral":  # (integers and bools only: nothing to differentiate)
        with pytest.raises(TypeError, match=methods[0]):
            op(fg.tensor([0.3, 0.7]))
        return
    x = fg.tensor(np.array([0.3, 0.7]), requires_grad=True)
    y = op(x)
    if rule == "Bool":
        assert not y.requires_grad
        return
    y.sum().backward()
    assert (np.abs(x.grad.numpy()).max() > 0) == differentiable


@pytest.mark.parametrize("entry", TABLE, ids=[e[0][0] for e in TABLE])
def test_every_declared_op_records_and_runs_in_static_graphs(entry):
    methods, _, _, rule, _ = entry
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
