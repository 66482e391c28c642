"""API polish: pickling dtypes, the exported module functions and ``__all__``, parameter
names and keyword aliases shared by the two dialects, factory keywords, ``sum``'s two
argument orders, ``Tensor.to``'s flags, tensor-valued bounds and fill values, and
``Tensor.__iter__``."""

from __future__ import annotations

import ast
import copy
import inspect
import operator
import pathlib
import pickle
import subprocess
import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, _dialect_aliases

ALL_DTYPES = [
    "bool",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


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
        want = getattr(fg._shared_spellings, name) if wrapped else getattr(fg.Tensor, name)
        for f in (getattr(_dialect_aliases, name), getattr(fg, name)):
            assert getattr(f, "__wrapped__", f) is want, name
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
    ``_dialect_aliases``, ``_namespace_composed`` or ``_namespace_sparse`` (whose own
    names are explicit re-exports, checked here the same way)."""
    spread = (fg._namespace_composed, fg._namespace_sparse)
    for module in spread:
        tree = ast.parse(pathlib.Path(module.__file__).read_text())
        reexported = {
            a.asname
            for n in tree.body
            if isinstance(n, ast.ImportFrom)
            for a in n.names
            if a.asname == a.name
        }
        assert set(module.__all__) <= reexported
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


# ---------------------------------------------------------------------------------------
# 7. factory keywords

FACTORIES = {
    "zeros": lambda **kw: fg.zeros(2, 3, **kw),
    "ones": lambda **kw: fg.ones([2, 3], **kw),
    "empty": lambda **kw: fg.empty(2, **kw),
    "full": lambda **kw: fg.full([2], 1.5, **kw),
    "rand": lambda **kw: fg.rand(2, 3, **kw),
    "randn": lambda **kw: fg.randn([4], **kw),
    "arange": lambda **kw: fg.arange(0, 4, **kw),
    "linspace": lambda **kw: fg.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: fg.eye(3, **kw),
    "randint": lambda **kw: fg.randint(0, 5, [3], **kw),
    "zeros_like": lambda **kw: fg.zeros_like(fg.ones(2), **kw),
    "ones_like": lambda **kw: fg.ones_like(fg.ones(2), **kw),
    "full_like": lambda **kw: fg.full_like(fg.ones(2), 7, **kw),
    "tensor": lambda **kw: fg.tensor([1, 2], **kw),
    "to_tensor": lambda **kw: fg.to_tensor([1, 2], **kw),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_accept_the_common_keywords(name):
    make = FACTORIES[name]
    t = make(dtype="float64", requires_grad=True, device="cpu", name="t")
    assert t.dtype == fg.float64 and t.requires_grad and not t.stop_gradient
    t = make(dtype=fg.float32, stop_gradient=False, name=None)
    assert t.dtype == fg.float32 and t.requires_grad
    t = make(dtype="float32", stop_gradient=True)
    assert not t.requires_grad
    with pytest.raises(ValueError, match="contradict"):
        make(dtype="float32", requires_grad=True, stop_gradient=True)
    with pytest.raises(ValueError, match="CPU only"):
        make(dtype="float32", device="cuda")


@pytest.mark.parametrize("name", sorted(set(FACTORIES) - {"rand", "randn"}))
def test_only_floating_factories_may_require_grad(name):
    with pytest.raises(RuntimeError, match="floating point"):
        FACTORIES[name](dtype="int64", requires_grad=True)
    assert not FACTORIES[name](dtype="int64", stop_gradient=True).requires_grad


def test_randint_honours_dtype_and_grad_flags():
    fg.seed(11)
    t = fg.randint(2, 9, [50], dtype="float32", requires_grad=True)
    assert t.dtype == fg.float32 and t.requires_grad and t.is_leaf
    v = t.numpy()
    assert (v >= 2).all() and (v < 9).all() and (v == np.round(v)).all()
    assert fg.randint(5, [2], dtype="int32").dtype == fg.int32
    assert not fg.randint(5, [2]).requires_grad


def test_factories_take_paddle_positional_dtype_and_name():
    assert fg.zeros([2, 3], "int64").dtype == fg.int64
    assert fg.ones((2,), "float64", "name").dtype == fg.float64
    assert fg.rand([2], "float64").dtype == fg.float64
    assert fg.full([2], 3, "float32", "name").dtype == fg.float32
    assert fg.arange(0, 3, 1, "float64", "name").dtype == fg.float64
    assert fg.eye(2, 2, "int32", "name").dtype == fg.int32
    assert fg.zeros_like(fg.ones(2), "int32", "name").dtype == fg.int32
    with pytest.raises(TypeError, match="multiple values for argument 'dtype'"):
        fg.zeros([2], "int64", dtype="int32")


# ---------------------------------------------------------------------------------------
# 8. sum's two argument orders


def test_sum_torch_and_paddle_orders():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    torch_order = x.sum(0, True)  # sum(dim, keepdim)
    assert torch_order.shape == (1, 2) and torch_order.dtype == fg.float32
    for r in (
        x.sum(0, "float64", True),  # Paddle: sum(axis, dtype, keepdim)
        x.sum(0, fg.float64, True),
        x.sum(0, np.float64, True),
        x.sum(0, np.dtype("float64"), True),
        fg.sum(x, 0, "float64", True),
        x.sum(0, True, "float64"),  # torch positions, dtype third
        x.sum(axis=0, dtype="float64", keepdim=True),
        x.sum(dim=0, keepdim=True, dtype="float64"),
    ):
        assert r.shape == (1, 2) and r.dtype == fg.float64
        assert r.tolist() == [[4.0, 6.0]]
    assert x.sum(0, None, True).shape == (1, 2)  # Paddle: dtype=None, keepdim=True
    assert x.sum(0, "int64").tolist() == [4, 6]  # Paddle: dtype, keepdim default
    assert x.sum(1, False).tolist() == [3.0, 7.0]


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda x: x.sum(0, 5), "keepdim"),
        (lambda x: x.sum(0, "float64", "yes"), "keepdim"),
        (lambda x: x.sum(0, True, 3), "dtype"),
        (lambda x: x.sum(0, "flaot64", True), "dtype"),
        (lambda x: x.sum(0, keepdim=[1]), "keepdim"),
        (lambda x: x.mean(0, "float64"), "keepdim"),
        (lambda x: x.mean(0, 1), "keepdim"),
        (lambda x: x.mean(0, dtype=42), "dtype"),
        (lambda x: x.softmax(dtype=object()), "dtype"),
    ],
)
def test_reduction_argument_errors_name_the_parameter(call, param):
    with pytest.raises(TypeError, match=param):
        call(fg.ones(2, 2))


def test_mean_orders_agree():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.mean(1, True).tolist() == [[1.5], [3.5]]
    assert fg.mean(x, axis=1, keepdim=True).tolist() == [[1.5], [3.5]]
    assert x.mean(dim=0, dtype="float64").dtype == fg.float64


# ---------------------------------------------------------------------------------------
# 9. Tensor.to flags


def test_to_copy_and_non_blocking():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    assert x.to(non_blocking=True) is x
    assert x.to(copy=False) is x
    assert x.to("cpu", fg.float32, non_blocking=True) is x
    c = x.to(copy=True)
    assert c is not x and c.data_ptr() != x.data_ptr()
    assert c.tolist() == [1.0, 2.0] and c.dtype == fg.float32
    c.sum().backward()  # the copy is differentiable, like clone()
    assert x.grad.tolist() == [1.0, 1.0]
    c2 = x.to(fg.float32, False, True)  # torch: to(dtype, non_blocking, copy)
    assert c2 is not x and c2.data_ptr() != x.data_ptr()
    c3 = x.to(device="cpu", dtype="float64", copy=True)
    assert c3.dtype == fg.float64
    with pytest.raises(ValueError, match="CPU only"):
        x.to(device="cuda:0")


@pytest.mark.parametrize("kw", ["memory_format", "blocking", "place"])
def test_to_rejects_other_keywords(kw):
    with pytest.raises(TypeError, match=kw):
        fg.ones(2).to(**{kw: None})


# ---------------------------------------------------------------------------------------
# 10. tensor-valued bounds and fill values


@pytest.mark.parametrize("method", ["clip", "clamp"])
def test_clip_bounds_may_be_one_element_tensors(method):
    x = fg.tensor([-2.0, 0.5, 3.0])
    lo, hi = fg.tensor(-1.0), fg.tensor([1.0])
    assert getattr(x, method)(lo, hi).tolist() == [-1.0, 0.5, 1.0]
    assert getattr(fg, method)(x, min=lo).tolist() == [-1.0, 0.5, 3.0]
    assert getattr(x, method)(max=fg.tensor(0, dtype="int64")).tolist() == [-2.0, 0.0, 0.0]
    y = x.clone()
    getattr(y, method + "_")(lo, hi)
    assert y.tolist() == [-1.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="one-element"):
        getattr(x, method)(fg.tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="max"):
        getattr(x, method)(max="1")


def test_clip_with_tensor_bounds_keeps_gradients():
    x = fg.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    x.clip(fg.tensor(-1.0), fg.tensor(1.0)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_fill_takes_one_element_tensors():
    x = fg.zeros(3)
    x.fill_(fg.tensor(2.5))
    assert x.tolist() == [2.5] * 3
    x.fill_(fg.tensor([[4]]))
    assert x.tolist() == [4.0] * 3
    with pytest.raises(ValueError, match="one-element"):
        x.fill_(fg.ones(2))
    with pytest.raises(TypeError, match="value"):
        x.fill_("1")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_fill_complex_tensors_with_complex_values(dtype):
    c = fg.zeros(2, dtype=dtype)
    c.fill_(1 + 2j)
    assert c.tolist() == [1 + 2j, 1 + 2j]
    c.fill_(fg.tensor(-3j))
    assert c.tolist() == [-3j, -3j]
    c.fill_(0.5)
    assert c.tolist() == [0.5, 0.5]
    assert c.dtype == getattr(fg, dtype)
    with pytest.raises(TypeError, match="complex value"):
        fg.zeros(2).fill_(1 + 1j)


def test_fill_cuts_the_gradient_to_the_old_values():
    for dtype, value in [("float32", fg.tensor(3.0)), ("complex64", 2 + 1j)]:
        x = fg.ones(2, dtype=dtype, requires_grad=True)
        y = x * 2
        y.fill_(value)
        loss = y.abs().sum() if dtype == "complex64" else y.sum()
        loss.backward()
        assert np.all(x.grad.numpy() == 0)


# ---------------------------------------------------------------------------------------
# 11. grad with a single input


def test_grad_of_a_single_input_is_a_one_tuple():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = fg.grad((x * x).sum(), x)
    assert g.tolist() == [2.0, 4.0]
    gs = fg.grad((x * x).sum(), [x])
    assert isinstance(gs, tuple) and len(gs) == 1


# ---------------------------------------------------------------------------------------
# 12. iteration


def test_iter_yields_the_first_dimension():
    assert "__iter__" in vars(fg.Tensor)
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    rows = list(x)
    assert len(rows) == 3
    assert all(isinstance(r, fg.Tensor) and r.shape == (2,) for r in rows)
    assert [r.tolist() for r in rows] == x.tolist()
    assert [v.item() for v in fg.tensor([7, 8])] == [7, 8]
    assert list(fg.zeros(0, 3)) == []
    a, b = fg.tensor([1.0, 2.0])  # unpacking
    assert (a.item(), b.item()) == (1.0, 2.0)
    it = iter(x)
    assert operator.length_hint(it) == 3
    next(it)
    assert operator.length_hint(it) == 2
    assert iter(it) is it


def test_iter_over_0d_is_a_type_error():
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(fg.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(fg.tensor(1.0))


def test_iter_rows_are_differentiable():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    total = None
    for i, row in enumerate(x):
        term = row.sum() * (i + 1)
        total = term if total is None else total + term
    total.backward()
    assert x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0]]


def test_index_select_with_a_one_element_index_in_either_dialect():
    # a one-element index tensor converts to an int: it must still be read as the index
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert x.index_select(0, fg.tensor([1])).tolist() == [[3.0, 4.0]]  # torch (dim, index)
    assert x.index_select(fg.tensor([1]), 0).tolist() == [[3.0, 4.0]]  # Paddle (index, axis)
    assert x.index_select(fg.tensor([1]), axis=1).tolist() == [[2.0], [4.0], [6.0]]
    assert fg.index_select(x, 1, fg.tensor([0])).tolist() == [[1.0], [3.0], [5.0]]
