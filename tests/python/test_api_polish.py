"""API polish: pickling dtypes, the exported module functions and ``__all__``, docs and
signatures, parameter names and keyword aliases shared by the two dialects
(``test_api_polish_calls.py``: factory keywords, ``sum``'s orders, ``Tensor.to``, tensor
bounds and fills, ``__iter__``)."""

from __future__ import annotations

import ast
import copy
import inspect
import pathlib
import pickle
import subprocess
import sys

import ferrograd as fg
import numpy as np
import pytest
from creation_support import ALL_DTYPES
from ferrograd import _core, _dialect_aliases

# ---------------------------------------------------------------------------------------
# 1. pickling dtypes


@pytest.mark.parametrize("name", ALL_DTYPES)
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_dtype_pickle_round_trip_gives_the_same_object(name, protocol):
    d = getattr(fg, name)
    back = pickle.loads(pickle.dumps(d, protocol=protocol))
    assert back is d
    assert copy.copy(d) is d
    assert copy.deepcopy(d) is d


def test_dtype_reduce_names_the_rebuild_function():
    rebuild, args = fg.float32.__reduce__()
    assert rebuild is fg.dtype_from_name
    assert args == ("float32",)
    # inside containers too
    assert pickle.loads(pickle.dumps({"d": [fg.int64, fg.bool]})) == {"d": [fg.int64, fg.bool]}


def test_dtype_from_name_only_returns_dtypes():
    assert fg.dtype_from_name("complex64") is fg.complex64
    for bad in ["Tensor", "zeros", "no_such_dtype"]:
        with pytest.raises(ValueError, match="not a ferrograd dtype"):
            fg.dtype_from_name(bad)


# ---------------------------------------------------------------------------------------
# 2. exported module functions


def test_core_functions_are_exported():
    # (wrapped to dispatch on the argument type: static Variables record; see
    # test_static_dispatch.py)
    assert fg.where.__wrapped__ is _core.where
    assert fg.concat.__wrapped__ is _core.concat
    assert fg.cat is fg.concat
    assert fg.stack.__wrapped__ is _core.stack
    assert fg.split.__wrapped__ is fg._shared_spellings.split  # (the dialect rule over _core.split)


@pytest.mark.parametrize(
    "name",
    [
        "gather",
        "index_select",
        "take_along_axis",
        "nonzero",
        "masked_select",
        "chunk",
        "unbind",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
    ],
)
def test_method_backed_functions_are_the_method_descriptors(name):
    # (wrapped in an OpFunction that dispatches on the argument type; test_static_dispatch.py)
    assert getattr(fg, name).__wrapped__ is getattr(fg.Tensor, name)


def test_exported_functions_work():
    x = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert fg.where(x > 2, x, 0.0).tolist() == [[0.0, 0.0, 3.0], [4.0, 5.0, 6.0]]
    assert fg.cat([x, x]).shape == (4, 3)
    assert fg.concat([x, x], axis=1).shape == (2, 6)
    assert fg.stack([x, x]).shape == (2, 2, 3)
    assert [p.shape for p in fg.split(x, 3, axis=1)] == [(2, 1)] * 3  # Paddle: 3 sections
    assert fg.index_select(x, fg.tensor([1]), axis=0).tolist() == [[4.0, 5.0, 6.0]]

    idx = fg.tensor([[0], [2]])
    assert fg.take_along_axis(x, idx, 1).tolist() == [[1.0], [6.0]]
    assert fg.gather(x, 1, idx).tolist() == [[1.0], [6.0]]  # torch order
    assert fg.nonzero(x > 4).tolist() == [[1, 1], [1, 2]]
    assert fg.masked_select(x, x > 4).tolist() == [5.0, 6.0]
    assert [c.shape for c in fg.chunk(x, 3, axis=1)] == [(2, 1)] * 3
    assert [r.tolist() for r in fg.unbind(x)] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    a, b = fg.tensor([12, 10]), fg.tensor([10, 6])
    assert fg.bitwise_and(a, b).tolist() == [8, 2]
    assert fg.bitwise_or(a, b).tolist() == [14, 14]
    assert fg.bitwise_xor(a, b).tolist() == [6, 12]


# ---------------------------------------------------------------------------------------
# 3. public names visible to type checkers


def test_all_lists_existing_names_once():
    assert len(fg.__all__) == len(set(fg.__all__))
    for name in fg.__all__:
        assert hasattr(fg, name), name
    for name in ["tensor", "no_grad", "add", "where", "cat", "Tensor", "float32", "Size"]:
        assert name in fg.__all__
    assert set(_dialect_aliases.__all__) <= set(fg.__all__)


def test_api_functions_are_static_and_match_the_methods():
    for name in _dialect_aliases.__all__:
        # (OpFunctions dispatching on the argument type, but clip/clamp, which
        # _ops_math replaces with Python functions, wrapped again at the package level)
        # (and the calls the dialects answer differently, _shared_spellings.py: the
        # function is the wrapper, the method the same wrapper as a method)
        wrapped = name in fg._shared_spellings.__all__
        want = getattr(fg._shared_spellings, name) if wrapped else getattr(fg.Tensor, name, None)
        if name in {row[0] for row in fg._core._creation_op_table()}:
            want = getattr(fg._core, name)  # (the table-declared factories: no method)
        # (the methods _memory_format_api wraps: the functions wrap the native method)
        want = fg._memory_format_api._native.get(name, want)
        for f in (getattr(_dialect_aliases, name), getattr(fg, name)):
            # (through every wrapper: out=, memory_format= (_memory_format_api) ...)
            while f is not want and hasattr(f, "__wrapped__"):
                f = f.__wrapped__
            assert f is want, name
        if wrapped:
            assert getattr(fg.Tensor, name).__doc__ == want.__doc__
    # spelled out one by one, so type checkers see them
    tree = ast.parse(pathlib.Path(_dialect_aliases.__file__).read_text())
    assigned = {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    assert set(_dialect_aliases.__all__) <= assigned


def test_init_binds_every_public_name_statically():
    """Every name in ``__all__`` is bound by an explicit re-export (``import x as x``), an
    assignment or a definition in ``__init__.py``, or comes from the star import of
    ``_dialect_aliases``, ``_namespace_composed``, ``_namespace_sparse``,
    ``_namespace_anomaly`` or ``_namespace_linalg`` (whose own names are explicit
    re-exports or assignments, checked here the same way)."""
    spread = (
        fg._namespace_composed,
        fg._namespace_sparse,
        fg._namespace_anomaly,
        fg._namespace_linalg,
    )
    for module in spread:
        tree = ast.parse(pathlib.Path(module.__file__).read_text())
        reexported = {
            a.asname
            for n in tree.body
            if isinstance(n, ast.ImportFrom)
            for a in n.names
            if a.asname == a.name
        }
        reexported |= {
            t.id
            for n in tree.body
            if isinstance(n, ast.Assign)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        assert set(module.__all__) <= reexported, module.__name__
    tree = ast.parse(pathlib.Path(fg.__file__).read_text())
    bound = set(_dialect_aliases.__all__).union(*(m.__all__ for m in spread))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            bound |= {a.asname for a in node.names if a.asname == a.name}
            if node.module is None:  # from . import autograd as autograd
                bound |= {a.asname for a in node.names if a.asname}
        elif isinstance(node, ast.Assign):
            bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
    missing = [n for n in fg.__all__ if n not in bound]
    assert not missing


def test_mypy_strict_sees_the_public_names(tmp_path):
    pytest.importorskip("mypy")
    src = tmp_path / "use_fg.py"
    src.write_text(
        "import ferrograd as fg\n"
        "\n"
        "x = fg.tensor([1.0, 2.0], requires_grad=True)\n"
        "with fg.no_grad():\n"
        "    y = fg.add(x, x)\n"
        "z = fg.cat([fg.where(x > 1.0, x, y), fg.zeros(2)])\n"
        "d = fg.float32\n"
        "print(y, z, d, fg.manual_seed, fg.Tensor)\n"
    )
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(src)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout + r.stderr


# ---------------------------------------------------------------------------------------
# 4. seed


def test_seed_parameter_is_named_seed():
    assert list(inspect.signature(fg.seed).parameters) == ["seed"]
    fg.seed(seed=5)
    a = fg.rand(4).tolist()
    fg.manual_seed(seed=5)
    assert fg.rand(4).tolist() == a
    fg.manual_seed(5)
    assert fg.rand(4).tolist() == a


# ---------------------------------------------------------------------------------------
# 5. docs and signatures

MACRO_BINARY = [
    "add",
    "subtract",
    "sub",
    "multiply",
    "mul",
    "divide",
    "div",
    "true_divide",
    "floor_divide",
    "remainder",
    "mod",
    "maximum",
    "minimum",
    "equal",
    "eq",
    "not_equal",
    "ne",
    "less_than",
    "lt",
    "less_equal",
    "le",
    "greater_than",
    "gt",
    "greater_equal",
    "ge",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
]
MACRO_UNARY = [
    "neg",
    "negative",
    "abs",
    "sign",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "square",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "gelu",
    "softplus",
    "erf",
    "floor",
    "ceil",
    "round",
    "logical_not",
]


@pytest.mark.parametrize("name", MACRO_BINARY + MACRO_UNARY)
def test_macro_generated_methods_have_docs(name):
    doc = inspect.getdoc(getattr(fg.Tensor, name))
    assert doc
    first = doc.splitlines()[0]
    assert first.strip() and not first.startswith(name + "(")


@pytest.mark.parametrize(
    ("name", "param"),
    [("flatten", "stop_axis"), ("softmax", "axis"), ("log_softmax", "axis")],
)
def test_negative_defaults_show_in_signatures(name, param):
    sig = inspect.signature(getattr(fg.Tensor, name))
    assert sig.parameters[param].default == -1
    assert "Ellipsis" not in str(sig)


def test_flatten_and_softmax_still_use_their_defaults():
    x = fg.ones(2, 3, 4)
    assert x.flatten(1).shape == (2, 12)
    assert np.allclose(x.softmax().numpy(), 0.25)
    assert np.allclose(x.log_softmax().numpy(), np.log(0.25))


# ---------------------------------------------------------------------------------------
# 6. parameter names of binary methods


@pytest.mark.parametrize("name", MACRO_BINARY)
def test_binary_methods_take_other_or_y(name):
    params = list(inspect.signature(getattr(fg.Tensor, name)).parameters)
    assert params[1] == "other"
    assert "y" in params and "name" in params
    a = fg.tensor([6, 3]) if name.startswith("bitwise") else fg.tensor([6.0, 3.0])
    b = fg.tensor([4, 5]) if name.startswith("bitwise") else fg.tensor([4.0, 5.0])
    m = getattr(fg.Tensor, name)
    expected = m(a, b).tolist()
    assert m(a, other=b).tolist() == expected
    assert m(a, y=b).tolist() == expected
    assert getattr(fg, name, m)(a, y=b).tolist() == expected
    with pytest.raises(TypeError, match="twice"):
        m(a, b, y=b)
    with pytest.raises(TypeError, match="missing"):
        m(a)


def test_pow_accepts_exponent_and_y():
    x = fg.tensor([2.0, 3.0])
    assert list(inspect.signature(fg.Tensor.pow).parameters)[1] == "other"
    for r in (x.pow(2), x.pow(other=2), x.pow(exponent=2), x.pow(y=2), fg.pow(x, y=2)):
        assert r.tolist() == [4.0, 9.0]
    with pytest.raises(TypeError, match="'exponent' and as 'y'"):
        x.pow(exponent=2, y=2)


def test_matmul_family_takes_other_or_y():
    a = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    expected = (a @ a).tolist()
    assert a.matmul(a).tolist() == expected
    assert a.matmul(other=a).tolist() == expected
    assert a.matmul(y=a, transpose_y=True).tolist() == (a @ a.t()).tolist()
    assert fg.matmul(a, y=a).tolist() == expected
    assert a.mm(y=a).tolist() == expected
    assert a.unsqueeze(0).bmm(y=a.unsqueeze(0)).squeeze(0).tolist() == expected
    v = fg.tensor([1.0, 2.0])
    assert v.dot(y=v).item() == 5.0
    assert v.outer(y=v).tolist() == [[1.0, 2.0], [2.0, 4.0]]
    with pytest.raises(TypeError, match="twice"):
        a.matmul(a, y=a)


@pytest.mark.parametrize("name", ["clamp", "amax", "amin", "mm", "bmm", "dot", "outer"])
def test_name_keyword_is_accepted(name):
    params = inspect.signature(getattr(fg.Tensor, name)).parameters
    assert params["name"].default is None
    x = fg.ones(1, 2, 2) if name == "bmm" else fg.ones(2, 2) if name == "mm" else fg.ones(2)
    args = {"clamp": (), "amax": (), "amin": ()}.get(name, (x,))
    getattr(x, name)(*args, name="op")


def test_inplace_binary_methods_take_y():
    x = fg.tensor([1.0, 2.0])
    x.add_(y=1.0).mul_(y=2.0).sub_(y=1.0).div_(y=3.0)
    assert x.tolist() == [1.0, pytest.approx(5.0 / 3.0)]
