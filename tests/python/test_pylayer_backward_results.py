"""Custom layers: validation of what ``backward`` returns (counts, shapes, dtypes, None),
[B] of ``docs/semantics.md``."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import PyLayer
from pylayer_support import DIALECTS, assert_values, leaf

# ---------------------------------------------------------------------------------------
# B. Validation of what backward returns
# ---------------------------------------------------------------------------------------


def make_layer(base, backward, name="Custom"):
    """The layer ``2 * x * y * ...`` over its tensor arguments, with the given backward."""

    def forward(ctx, *xs):
        out = xs[0] * 2
        for t in xs[1:]:
            out = out * t
        return out

    return type(
        name, (base,), {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    )


class TestBackwardResultValidation:
    @DIALECTS
    def test_too_few_gradients(self, base):  # [B1]
        layer = make_layer(base, lambda ctx, g: g, name="TooFew")
        y = layer.apply(leaf(), leaf())
        with pytest.raises(RuntimeError, match=r"TooFew.*expected 2.*got 1"):
            y.sum().backward()

    @DIALECTS
    def test_too_many_gradients(self, base):  # [B2]
        layer = make_layer(base, lambda ctx, g: (g, g), name="TooMany")
        y = layer.apply(leaf())
        with pytest.raises(RuntimeError, match=r"TooMany.*expected 1.*got 2"):
            y.sum().backward()

    def test_too_many_counts_name_both_conventions(self):  # [B1, B2]
        class Extra(PyLayer):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, g, g

        y = Extra.apply(leaf(), 2)
        with pytest.raises(RuntimeError, match=r"Extra.*expected 1.*2.*got 3"):
            y.sum().backward()

    @DIALECTS
    @pytest.mark.parametrize(
        "shape, expected",
        [([1, 2], [1.0, 1.0]), ([3, 2], [3.0, 3.0]), ([4, 1, 2], [4.0, 4.0])],
        ids=["1x2", "3x2", "4x1x2"],
    )
    def test_broadcast_compatible_gradient_is_summed(self, base, shape, expected):  # [B4]
        layer = make_layer(base, lambda ctx, g: fg.ones(shape), name="Bcast")
        x = leaf()
        layer.apply(x).sum().backward()
        assert list(x.grad.shape) == [2]
        assert_values(x.grad, expected)

    @DIALECTS
    @pytest.mark.parametrize("shape", [[5], [2, 3]], ids=["5", "2x3"])
    def test_incompatible_gradient_shape_is_an_error(self, base, shape):  # [B4]
        layer = make_layer(base, lambda ctx, g: fg.ones(shape), name="WrongShape")
        x = leaf()
        y = layer.apply(x)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        msg = str(info.value)
        assert "WrongShape" in msg
        assert "index 0" in msg
        assert str(shape) in msg
        assert "[2]" in msg
        assert x.grad is None

    def test_incompatible_shape_names_the_index(self):  # [B4]
        layer = make_layer(PyLayer, lambda ctx, g: (g, fg.ones([4])), name="Two")
        y = layer.apply(leaf(), leaf())
        with pytest.raises(RuntimeError, match=r"Two.*index 1.*\[4\].*\[2\]"):
            y.sum().backward()

    @DIALECTS
    @pytest.mark.parametrize(
        "cast, expected",
        [
            (lambda g: g.astype("float64") * 2, [2.0, 2.0]),
            (lambda g: g.astype("int32"), [1.0, 1.0]),
        ],
        ids=["float64", "int32"],
    )
    def test_gradient_dtype_is_cast_to_the_input_dtype(self, base, cast, expected):  # [B5]
        layer = make_layer(base, lambda ctx, g: cast(g), name="WrongDtype")
        x = leaf()
        assert x.dtype == fg.float32
        layer.apply(x).sum().backward()
        assert x.grad.dtype == fg.float32
        assert_values(x.grad, expected)

    def test_gradient_dtype_is_cast_to_float64_input(self):  # [B5]
        layer = make_layer(PyLayer, lambda ctx, g: g.astype("float32") * 3, name="ToF64")
        x = fg.tensor([1.0, 2.0], dtype=fg.float64, requires_grad=True)
        layer.apply(x).sum().backward()
        assert x.grad.dtype == fg.float64
        assert_values(x.grad, [3.0, 3.0])

    @DIALECTS
    @pytest.mark.parametrize(
        "value, type_name",
        [(1.0, "float"), (np.ones(2, dtype=np.float32), "ndarray"), ([1.0, 1.0], "list")],
        ids=["float", "numpy", "list"],
    )
    def test_non_tensor_gradient_is_a_type_error(self, base, value, type_name):  # [B6]
        layer = make_layer(base, lambda ctx, g: (g, value), name="NonTensor")
        y = layer.apply(leaf(), leaf())
        with pytest.raises(TypeError) as info:
            y.sum().backward()
        msg = str(info.value)
        assert "NonTensor" in msg
        assert "position 1" in msg
        assert type_name in msg

    @DIALECTS
    def test_none_for_an_input_that_needs_grad_means_no_gradient(self, base):  # [B7]
        layer = make_layer(base, lambda ctx, g: None, name="NoneGrad")
        x = leaf()
        layer.apply(x).sum().backward()
        assert x.grad is None
        with pytest.raises(RuntimeError, match="allow_unused=True"):
            fg.grad(layer.apply(x).sum(), x)
        assert fg.grad(layer.apply(x).sum(), x, allow_unused=True) == (None,)

    @DIALECTS
    def test_none_for_one_of_two_inputs(self, base):  # [B7]
        layer = make_layer(base, lambda ctx, g: (None, g), name="NoneOne")
        x, y = leaf(), leaf()
        layer.apply(x, y).sum().backward()
        assert x.grad is None
        assert_values(y.grad, [1.0, 1.0])

    @DIALECTS
    def test_gradient_for_an_input_that_needs_none_is_dropped(self, base):  # [B8]
        layer = make_layer(base, lambda ctx, g: (g, g * 5), name="GradForSG")
        x, y = leaf(), fg.tensor([1.0, 1.0])
        layer.apply(x, y).sum().backward()
        assert_values(x.grad, [1.0, 1.0])
        assert y.grad is None
