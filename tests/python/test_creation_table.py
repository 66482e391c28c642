"""The table-declared factories (``creation_factories!`` in src/python/creation.rs): every
row is a public function with the shape keywords of both peers, and nothing else lists
them by hand (the generator writes the stubs and the package's names from the table)."""

import re
from pathlib import Path

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, _dialect_aliases

ROOT = Path(__file__).resolve().parents[2]
ROWS = _core._creation_op_table()
SHAPED = [name for name, family, _ in ROWS if family != "like_factory"]


def test_rows_name_known_families_and_public_functions():
    assert {name for name, _, _ in ROWS} >= {"zeros", "ones", "empty", "rand", "randn"}
    for name, family, doc in ROWS:
        assert family in ("filled_factory", "like_factory", "random_factory")
        # the native function behind the static-graph dispatcher, itself behind the wrapper
        # that records it into a program in static mode (static/creation.py: Paddle's
        # creation functions return Variables there)
        native = getattr(getattr(fg, name), "__wrapped__", None)
        assert isinstance(native, _core.OpFunction)
        assert native.__wrapped__ is getattr(_core, name)
        assert name in fg.__all__ and name in _dialect_aliases.__all__
        assert doc and doc.split("(")[0].strip() in getattr(fg, name).__doc__


def test_no_hand_written_copy_outside_the_generated_blocks():
    for rel in ("python/ferrograd/_core.pyi", "python/ferrograd/__init__.py"):
        text = Path(ROOT, rel).read_text()
        outside = re.sub(
            r"# BEGIN generated: creation.*?# END generated: creation[^\n]*", "", text, flags=re.S
        )
        for name, _, _ in ROWS:
            assert not re.search(rf'^def {name}\(|"{name}",|import {name} as', outside, re.M), (
                rel,
                name,
            )


@pytest.mark.parametrize("name", SHAPED)
def test_shape_by_keyword_in_both_spellings(name):
    f = getattr(fg, name)
    assert list(f(shape=[2, 3]).shape) == [2, 3]  # Paddle's keyword
    assert list(f(size=(2, 3)).shape) == [2, 3]  # PyTorch's keyword
    assert list(f(shape=4, dtype="float64").shape) == [4]
    assert f(size=[2], dtype=fg.float64).dtype == fg.float64
    assert list(f(2, 3).shape) == [2, 3] and list(f([2, 3]).shape) == [2, 3]
    assert list(f(()).shape) == [] and list(f(shape=[]).shape) == []


@pytest.mark.parametrize("name", SHAPED)
def test_shape_given_twice_is_a_type_error(name):
    f = getattr(fg, name)
    with pytest.raises(TypeError, match="both positionally"):
        f([2], shape=[2])
    with pytest.raises(TypeError, match="both positionally"):
        f(2, size=(2,))
    with pytest.raises(TypeError, match="both shape= and size="):
        f(shape=[2], size=[2])


def test_keyword_shape_values_and_flags():
    np.testing.assert_array_equal(fg.ones(size=(2, 2)).numpy(), np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(fg.zeros(shape=[3], dtype="int64").numpy(), np.zeros(3, np.int64))
    x = fg.ones(size=[2], requires_grad=True)
    assert x.requires_grad and x.is_leaf
    assert not fg.zeros(shape=[2], stop_gradient=True).requires_grad


def test_random_factories_take_the_generator_with_a_keyword_shape():
    a = fg.rand(size=[5], generator=fg.Generator().manual_seed(3))
    b = fg.rand(5, generator=fg.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(TypeError, match="dtype must be floating"):
        fg.randn(shape=[2], dtype="int32")


def test_static_variable_records_a_like_factory():
    # Paddle's zeros_like of a static Variable appends an op (tensor/creation.py): so does
    # ferrograd's (static/creation.py, tests/python/test_static_creation.py)
    fg.enable_static()
    try:
        with fg.static.program_guard(fg.static.Program()):
            x = fg.static.data("x", [2, 3], "float32")
            z = fg.zeros_like(x)
            assert isinstance(z, fg.static.Variable) and z.shape == [2, 3]
    finally:
        fg.disable_static()


def test_bad_keyword_shape_is_a_clear_error():
    with pytest.raises((TypeError, ValueError)):
        fg.zeros(shape="ab")
    with pytest.raises((TypeError, ValueError)):
        fg.ones(size=[-1, 2])
