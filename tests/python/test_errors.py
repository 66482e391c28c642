"""Bad inputs raise clear Python exceptions: the right class, and a message that names
the op and the offending shapes/dtypes/values. Nothing may abort the interpreter."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import ferrograd as fg
import numpy as np
import pytest


def raises(exc, *fragments):
    """``pytest.raises`` requiring every fragment (literal text) in the message."""
    return pytest.raises(exc, match="(?s)" + "".join(f"(?=.*{re.escape(f)})" for f in fragments))


# ---------------------------------------------------------------------------------------
# shapes
# ---------------------------------------------------------------------------------------

BROADCAST_OPS = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "maximum": fg.maximum,
    "minimum": fg.minimum,
    "remainder": lambda a, b: a % b,
    "equal": lambda a, b: a == b,
    "greater_than": lambda a, b: a > b,
    "logical_and": fg.logical_and,
}


@pytest.mark.parametrize("name", list(BROADCAST_OPS))
def test_incompatible_broadcast(name):
    with raises(ValueError, name, "[2, 3]", "[3, 2]", "broadcast"):
        BROADCAST_OPS[name](fg.ones(2, 3), fg.ones(3, 2))
    with raises(ValueError, name, "[2, 3]", "[4]"):
        BROADCAST_OPS[name](fg.ones(2, 3), fg.ones(4))


def test_inplace_cannot_grow_by_broadcasting():
    t = fg.ones(2, 3)
    with raises(ValueError, "add_", "[2, 2, 3]", "[2, 3]"):
        t.add_(fg.ones(2, 1, 3))
    with raises(ValueError, "mul", "[2, 3]", "[4]"):
        t.mul_(fg.ones(4))
    assert t._version == 0
    assert t.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize(
    ("a", "b", "fragments"),
    [
        ((2, 3), (2, 3), ["matmul", "[2, 3]", "not aligned"]),
        ((3, 4), (3, 4), ["matmul", "[3, 4]", "size 4", "size 3"]),
        ((4,), (3,), ["matmul", "[4]", "[3]"]),
        ((2, 2, 3), (3, 3, 2), ["matmul", "[2, 2, 3]", "[3, 3, 2]", "batch"]),
        ((), (4,), ["matmul", "[]", "[4]"]),
    ],
)
def test_matmul_shape_mismatch(a, b, fragments):
    with raises(ValueError, *fragments):
        fg.ones(*a) @ fg.ones(*b)
    with raises(ValueError, *fragments):
        fg.matmul(fg.ones(*a), fg.ones(*b))


def test_dot_outer_shape_errors():
    with raises(ValueError, "dot", "[2]", "[3]"):
        fg.ones(2).dot(fg.ones(3))
    with raises(ValueError, "dot", "[3, 4]"):
        fg.ones(3, 4).dot(fg.ones(3, 4))
    with raises(ValueError, "outer", "[2, 2]"):
        fg.ones(3).outer(fg.ones(2, 2))
    with raises(ValueError, "matmul", "[2, 3]"):
        fg.mm(fg.ones(2, 3), fg.ones(2, 3))


@pytest.mark.parametrize(
    ("call", "fragments"),
    [
        (lambda t: t.reshape(5, -1), ["reshape", "24 elements", "[5, -1]"]),
        (lambda t: t.reshape(4), ["reshape", "24 elements", "[4]"]),
        (lambda t: t.reshape([7, 3]), ["reshape", "24", "[7, 3]"]),
        (lambda t: t.view(-1, 5), ["reshape", "24", "[-1, 5]"]),
        (lambda t: t.reshape(-1, -1), ["reshape", "only one dimension can be -1"]),
        (lambda t: t.reshape(2, -3, 4), ["reshape", "-3"]),
        (lambda t: t[:0].reshape(0, -1), ["reshape", "[0, -1]"]),  # empty: 0 is a size
    ],
)
def test_reshape_to_wrong_size(call, fragments):
    with raises(ValueError, *fragments):
        call(fg.zeros(2, 3, 4))


def test_expand_errors():
    with raises(ValueError, "expand", "[3, 1]", "[2, 2]"):
        fg.ones(3, 1).expand(2, 2)
    with raises(ValueError, "expand", "[2]", "[2, 3]", "fewer dimensions"):
        fg.ones(2, 3).expand(2)
    with raises(ValueError, "expand", "[2, 3]", "[4, 3, 3]"):
        fg.ones(2, 3).broadcast_to([4, 3, 3])
    with raises(ValueError, "expand", "-2"):
        fg.ones(3, 1).expand(-2, 3)


def test_permute_transpose_errors():
    with raises(ValueError, "permute", "[0, 0, 1]", "[2, 3, 4]"):
        fg.zeros(2, 3, 4).permute(0, 0, 1)
    with raises(ValueError, "permute", "[0, 1]"):
        fg.zeros(2, 3, 4).permute(0, 1)
    with raises(ValueError, "permute"):
        fg.zeros(2, 3, 4).transpose([2, 1])
    with raises(TypeError, "transpose"):
        fg.zeros(2, 3, 4).transpose(0, 1, 2)
    with raises(ValueError, "t()", "3"):
        fg.zeros(2, 3, 4).t()
    with raises(ValueError, "mT"):
        _ = fg.zeros(3).mT


# ---------------------------------------------------------------------------------------
# dims
# ---------------------------------------------------------------------------------------

OUT_OF_RANGE = {
    "sum": lambda t: t.sum(2),
    "mean": lambda t: t.mean(dim=-3),
    "prod": lambda t: t.prod(5),
    "max": lambda t: t.max(axis=2),
    "min": lambda t: t.min(-3),
    "argmax": lambda t: t.argmax(2),
    "argmin": lambda t: t.argmin(dim=-3),
    "var": lambda t: t.var(2),
    "std": lambda t: t.std(dim=[0, 7]),
    "logsumexp": lambda t: t.logsumexp(2),
    "all": lambda t: t.all(3),
    "any": lambda t: t.any(-4),
    "softmax": lambda t: t.softmax(2),
    "log_softmax": lambda t: t.log_softmax(-3),
    "transpose": lambda t: t.transpose(0, 9),
    "unsqueeze": lambda t: t.unsqueeze(4),
    "squeeze": lambda t: t.squeeze(3),
    "flatten": lambda t: t.flatten(0, 5),
    "size": lambda t: t.size(2),
}


@pytest.mark.parametrize(
    "name",
    list(OUT_OF_RANGE),
)
def test_out_of_range_dims(name):
    with pytest.raises(IndexError, match=rf"{name}: dimension -?\d+ is out of range") as info:
        OUT_OF_RANGE[name](fg.zeros(2, 3))
    assert "2 dimension(s)" in str(info.value) or "3 dimension(s)" in str(info.value)


def test_duplicate_axes_and_bad_axis_types():
    with raises(ValueError, "sum", "more than once"):
        fg.zeros(2, 3).sum([0, 0])
    with raises(TypeError, "axis"):
        fg.zeros(2, 3).sum(axis="a")
    with raises(TypeError, "unsqueeze", "axis"):
        fg.zeros(3).unsqueeze()


def test_reduction_over_empty_without_identity():
    for name in ("max", "min", "argmax", "argmin"):
        with raises(ValueError, name, "zero-size", "[0, 3]"):
            getattr(fg.zeros(0, 3), name)(0)
    with raises(ValueError, "max", "[0]"):
        fg.zeros(0).max()


# ---------------------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: fg.zeros(2, dtype="float31"),
        lambda: fg.tensor([1], dtype="float31"),
        lambda: fg.ones(2).astype("float31"),
        lambda: fg.ones(2).to("float31"),
    ],
)
def test_bad_dtype_name(call):
    with pytest.raises((TypeError, ValueError), match="float31"):
        call()


@pytest.mark.parametrize("name", ["uint16", "int128", "float128", "complex256", ""])
def test_unsupported_dtype_names_list_the_supported_ones(name):
    with raises(TypeError, f"'{name}'", "float32", "int64"):
        fg.ones(2, dtype=name)
    if name:
        with raises(TypeError, "uint8", "int16"):  # the list names the narrow ints too
            fg.ones(2, dtype=name)


def test_bad_dtype_objects():
    with raises(TypeError, "42", "dtype"):
        fg.ones(2).astype(42)
    with raises(TypeError, "None"):
        fg.ones(2).astype(None)
    with raises(ValueError, "cuda", "CPU"):
        fg.ones(2).to("cuda")
    with raises(TypeError, "rand", "int64"):
        fg.rand(2, dtype="int64")
    with raises(TypeError, "randn", "bool"):
        fg.randn(2, dtype="bool")


@pytest.mark.parametrize(
    "call",
    [
        lambda: fg.tensor([1, 2], requires_grad=True),
        lambda: fg.to_tensor([1, 2], stop_gradient=False),
        lambda: fg.zeros(2, dtype="int64", requires_grad=True),
        lambda: fg.ones(2, dtype="int32", stop_gradient=False),
        lambda: fg.arange(3, requires_grad=True),
        lambda: fg.tensor([True], requires_grad=True),
    ],
)
def test_integer_tensor_cannot_require_grad(call):
    with pytest.raises(RuntimeError, match="floating point or complex") as info:
        call()
    assert re.search(r"int32|int64|bool", str(info.value))


def test_integer_tensor_requires_grad_setters():
    t = fg.tensor([1, 2])
    with raises(RuntimeError, "int64", "floating point"):
        t.requires_grad = True
    with raises(RuntimeError, "int64"):
        t.stop_gradient = False
    with raises(RuntimeError, "int64"):
        t.requires_grad_()
    assert not t.requires_grad
    t.requires_grad = False  # switching it off is fine


def test_ops_unsupported_for_dtype():
    with raises(TypeError, "less_than", "complex64"):
        _ = fg.tensor([1 + 1j]) < fg.tensor([1 + 0j])
    with raises(TypeError, "maximum", "complex"):
        fg.maximum(fg.tensor([1j]), fg.tensor([1j]))
    with raises(TypeError, "floor_divide", "complex"):
        fg.tensor([1j]) // fg.tensor([1j])
    with raises(TypeError, "subtract", "bool"):
        fg.tensor([True]) - fg.tensor([True])
    with raises(TypeError, "neg", "bool"):
        -fg.tensor([True])
    with raises(TypeError, "bitwise_not", "integer or bool", "float32"):  # (~ of a float)
        ~fg.tensor([1.0])
    with raises(TypeError, "index", "float32"):
        [1, 2][fg.tensor(0.0)]


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.div_(2),
        lambda t: t.add_(1.5),
        lambda t: t.mul_(0.5),
        lambda t: t.sub_(fg.tensor([0.5, 0.5])),
        lambda t: t.exp_(),
    ],
    ids=["div_", "add_", "mul_", "sub_", "exp_"],
)
def test_inplace_result_dtype_must_fit(op):
    t = fg.tensor([1, 2])
    with pytest.raises((TypeError, RuntimeError), match="int64"):
        op(t)
    assert t.tolist() == [1, 2]


def test_inplace_complex_into_float_raises():
    t = fg.tensor([1.0, 2.0])
    with pytest.raises((TypeError, RuntimeError), match="complex"):
        t.add_(fg.tensor([1j, 1j]))


# ---------------------------------------------------------------------------------------
# Python conversions
# ---------------------------------------------------------------------------------------


def test_item_on_many_elements():
    with raises(ValueError, "one element", "[2, 3]", "6 elements"):
        fg.ones(2, 3).item()
    with raises(ValueError, "one element", "[0]"):
        fg.zeros(0).item()
    with raises(ValueError, "one-element", "[2]"):
        float(fg.ones(2))
    with raises(ValueError, "one-element", "[2]"):
        int(fg.ones(2))
    with raises(ValueError, "2 elements", "ambiguous", ".any()"):
        bool(fg.ones(2))
    with raises(TypeError, "0-d"):
        len(fg.tensor(1.0))
    with raises(ValueError, "NaN"):
        int(fg.tensor(float("nan")))
    with raises(ValueError, "inf"):
        int(fg.tensor(float("inf")))


def test_numpy_copy_false_is_refused_for_bfloat16_only():
    with raises(ValueError, "copy=False", "bfloat16"):
        np.asarray(fg.ones(2, dtype="bfloat16"), copy=False)
    t = fg.ones(2)  # other dtypes share memory through the buffer protocol
    assert np.asarray(t, copy=False).ctypes.data == t.data_ptr()


# ---------------------------------------------------------------------------------------
# building tensors from bad data
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([[1, 2], [3]], "expected length 2 at depth 1, got 1"),
        ([[1, 2], (3, 4, 5)], "expected length 2 at depth 1, got 3"),
        ([[1, 2], 3], "a scalar appears at depth 1"),
        ([1, [2, 3]], "a sequence appears at depth 1"),
        ([[[1]], [2]], "a scalar appears at depth 2"),
        ([[1, 2], [3, [4]]], "depth 2"),
    ],
)
def test_ragged_nested_lists(data, fragment):
    for factory in (fg.tensor, fg.to_tensor):
        with raises(ValueError, "ragged", fragment):
            factory(data)


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ([1, "x"], ["'x'", "str"]),
        ([1, None, 3], ["None", "NoneType"]),
        ([[1, 2], [3, object()]], ["object"]),
        ([1.0, {}], ["dict"]),
    ],
)
def test_non_numeric_list_entries(data, fragments):
    with raises(TypeError, "cannot make a tensor", *fragments):
        fg.tensor(data)


def test_non_numeric_data():
    with raises(TypeError, "str"):
        fg.tensor("abc")
    with raises(TypeError, "dict"):
        fg.tensor({1: 2})
    with raises(TypeError, "numpy.ndarray", "list"):
        fg.from_numpy([1, 2])
    with raises(TypeError, "object"):
        fg.tensor(np.array(["a", None], dtype=object))
    with raises(ValueError, "1180591620717411303424", "int64"):
        fg.tensor([2**70])
    with raises(ValueError, "int64"):
        fg.tensor(2**63)
    with raises(ValueError, "deeper than 64"):
        deep = 1
        for _ in range(70):
            deep = [deep]
        fg.tensor(deep)


def test_read_only_from_numpy_rejects_writes():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = fg.from_numpy(a)
    for op in (lambda: t.add_(1.0), lambda: t.zero_(), lambda: t.copy_(fg.ones(3))):
        with raises(ValueError, "read-only"):
            op()
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


# ---------------------------------------------------------------------------------------
# sizes
# ---------------------------------------------------------------------------------------

NEGATIVE_SIZE = {
    "zeros": lambda: fg.zeros(-1),
    "ones": lambda: fg.ones(2, -3),
    "empty": lambda: fg.empty([-5]),
    "full": lambda: fg.full([-1], 2.0),
    "rand": lambda: fg.rand(-2),
    "randn": lambda: fg.randn((3, -1)),
    "randint": lambda: fg.randint(0, 2, [-1]),
    "eye": lambda: fg.eye(-1),
    "linspace": lambda: fg.linspace(0, 1, -1),
}


@pytest.mark.parametrize("name", list(NEGATIVE_SIZE))
def test_negative_sizes(name):
    with pytest.raises(ValueError, match=rf"{name}: .*(negative|non-negative).*-\d"):
        NEGATIVE_SIZE[name]()


def test_non_integer_sizes():
    with raises(TypeError, "shape entries must be integers", "1.5"):
        fg.zeros(1.5)
    with raises(TypeError, "shape entries must be integers", "'a'"):
        fg.ones("a")
    with raises(TypeError, "shape entries must be integers"):
        fg.zeros(2**70)


@pytest.mark.parametrize(
    "call",
    [
        lambda: fg.zeros(2**40, 2**40),
        lambda: fg.ones(2**33, 2**33, dtype="float64"),
        lambda: fg.empty(2**31, 2**31),
        lambda: fg.randn(2**40, 2**40),
        lambda: fg.full([2**40, 2**40], 1.0),
        lambda: fg.zeros(2**62, 2**62),
        lambda: fg.zeros(2**56),
        lambda: fg.rand(2**56),
        lambda: fg.eye(2**30),
        lambda: fg.ones(1).expand(2**28, 2**30).contiguous(),
        lambda: fg.ones(1).expand(2**28, 2**30) + 1,
        lambda: fg.ones(1).expand(2**28, 2**30).exp(),
    ],
)
def test_huge_allocations_raise_memory_error(call):
    # every size here needs more bytes than any 64-bit address space (2**57) offers, or
    # overflows the element count, so the outcome does not depend on overcommit settings
    with pytest.raises(MemoryError, match="memory"):
        call()


def _survives(code):
    """Runs ``code`` in a fresh interpreter: True when it exits normally (an abort from
    Rust's out-of-memory handler would take the test process down with it)."""
    prog = "import ferrograd as fg\n" + textwrap.dedent(code)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60)
    return r.returncode == 0 and "MemoryError raised" in r.stdout


@pytest.mark.parametrize(
    "expr", ["fg.arange(2**56)", "fg.linspace(0, 1, 2**56)", "fg.arange(2**60)"]
)
def test_huge_arange_linspace_raise_memory_error(expr):
    assert _survives(
        f"""
        try:
            {expr}
        except MemoryError:
            print("MemoryError raised")
        """
    )


def test_memory_error_subprocess_harness_works():
    # the harness used above, on a factory that behaves
    assert _survives(
        """
        try:
            fg.zeros(2**56)
        except MemoryError:
            print("MemoryError raised")
        """
    )


# ---------------------------------------------------------------------------------------
# autograd misuse
# ---------------------------------------------------------------------------------------


def test_backward_twice_without_retain_graph():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with raises(RuntimeError, "second time", "retain_graph=True"):
        y.backward()
    z = (x.exp()).sum()
    fg.grad(z, [x])
    with raises(RuntimeError, "retain_graph=True"):
        fg.grad(z, [x])


def test_backward_twice_with_retain_graph_accumulates():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])


@pytest.mark.parametrize(
    "call",
    [
        lambda y: y.backward(fg.ones(3)),
        lambda y: y.backward(grad_tensor=fg.ones(2, 1)),
        lambda y: y.backward(gradient=fg.ones(1, 2)),
        lambda y: fg.autograd.backward([y], [fg.ones(3)]),
        lambda y: fg.grad(y, [fg.ones(1)], grad_outputs=fg.ones(3)),
    ],
)
def test_wrong_shaped_grad_tensor(call):
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape.*\[2\]") as info:
        call(y)
    assert re.search(r"\[3\]|\[2, 1\]|\[1, 2\]", str(info.value))
    assert x.grad is None


def test_wrong_number_of_grad_tensors():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with raises(ValueError, "2 gradients", "1 outputs"):
        fg.autograd.backward([x * 2], [fg.ones(2), fg.ones(2)])


@pytest.mark.parametrize("shape", [(3,), (2, 1), ()])
def test_assigning_wrong_shaped_grad(shape):
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with raises(ValueError, "gradient", f"{list(shape)}", "[2]"):
        x.grad = fg.ones(*shape)
    assert x.grad is None
    x.grad = fg.ones(2)
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    x.grad = None
    assert x.grad is None


def test_assigning_non_tensor_grad():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with raises(TypeError, "Tensor or None"):
        x.grad = np.ones(2)


def test_backward_on_tensor_without_grad():
    # a warned no-op (Paddle semantics; Paddle's custom-operator guide relies on it) — never a crash
    with pytest.warns(UserWarning, match="does not require grad"):
        fg.tensor([1.0]).backward()
    with pytest.warns(UserWarning, match="does not require grad"):
        (fg.ones(2) * 2).sum().backward()
    with raises(RuntimeError, "does not require grad", "requires_grad=True"):
        fg.autograd.backward([fg.tensor([1.0])])


def test_grad_of_unused_input():
    x = fg.tensor([1.0], requires_grad=True)
    u = fg.tensor([1.0], requires_grad=True)
    with raises(RuntimeError, "index 1", "allow_unused=True"):
        fg.grad((x * 2).sum(), [x, u])
    gx, gu = fg.grad((x * 2).sum(), [x, u], allow_unused=True)
    assert gu is None
    _, gu = fg.grad((x * 2).sum(), [x, u], materialize_grads=True)
    assert gu.tolist() == [0.0]


def test_hooks_and_retain_grad_need_grad():
    t = fg.ones(2)
    with raises(ValueError, "hook", "requires_grad"):
        t.register_hook(lambda g: g)
    with raises(ValueError, "retain_grad", "does not require grad"):
        t.retain_grad()


def test_inplace_on_leaf_message():
    x = fg.tensor([1.0], requires_grad=True)
    with raises(RuntimeError, "add_", "leaf", "no_grad()"):
        x.add_(1.0)


def test_errors_do_not_corrupt_grad_mode():
    with pytest.raises(ValueError):
        with fg.no_grad():
            fg.ones(2, 3) + fg.ones(3, 2)
    assert fg.is_grad_enabled()
