"""``print(tensor)`` in Paddle code prints Paddle's look (python/paddle/tensor/to_string.py
``tensor_to_string``: a ``Tensor(shape=..., dtype=..., place=..., stop_gradient=...,``
header, then the values with 8 digits, whole numbers as ``2.``, columns padded to the
widest item); PyTorch code keeps ``tensor([...])``. Also ``format(t, spec)`` of a 0-d
tensor (both peers format its value) and ``str(parameter)``."""

import ferrograd as paddle
import pytest

HEAD = "Tensor(shape={}, dtype={}, place=Place(cpu), stop_gradient={},\n       "


def test_matrix_with_signs_and_whole_numbers():
    x = paddle.to_tensor([[1.5, 2.0], [-3.25, 4.0]], stop_gradient=False)
    assert repr(x) == HEAD.format("[2, 2]", "float32", False) + (
        "[[ 1.50000000,  2.        ],\n        [-3.25000000,  4.        ]])"
    )
    assert str(x) == repr(x)


def test_zero_d_int_bool_and_empty():
    assert repr(paddle.to_tensor(2.0)) == HEAD.format("[]", "float32", True) + "2.)"
    assert repr(paddle.to_tensor([1, 2, 3])) == HEAD.format("[3]", "int64", True) + "[1, 2, 3])"
    # Paddle pads every item to the widest one, "True" too
    assert repr(paddle.to_tensor([True, False])) == (
        HEAD.format("[2]", "bool", True) + "[True , False])"
    )
    assert repr(paddle.zeros([0, 2])) == HEAD.format("[0, 2]", "float32", True) + "[])"
    assert repr(paddle.zeros([2, 0], dtype="float64")) == (
        HEAD.format("[2, 0]", "float64", True) + "[[],\n        []])"
    )


def test_summary_and_line_wrapping():
    x = paddle.arange(2000, dtype="float32").reshape([40, 50])
    lines = repr(x).split("\n")
    assert lines[1] == "       [[0.   , 1.   , 2.   , ..., 47.  , 48.  , 49.  ],"
    assert lines[4] == "        ...,"
    assert lines[-1] == "        [1950., 1951., 1952., ..., 1997., 1998., 1999.]])"
    # a row longer than the line width wraps under its bracket
    y = paddle.full([12], 0.5)
    body = repr(y).split("\n")[1:]
    assert body[0] == "       [" + ", ".join(["0.50000000"] * 6) + ","
    assert body[1] == "        " + ", ".join(["0.50000000"] * 6) + "])"


def test_printoptions_apply():
    try:
        paddle.set_printoptions(precision=2)
        assert repr(paddle.to_tensor([0.125])).endswith("[0.12])")
    finally:
        paddle.set_printoptions(profile="default")
    assert repr(paddle.to_tensor([0.125])).endswith("[0.12500000])")


def test_parameter_header_in_str_and_repr():
    w = paddle.nn.Linear(1, 2).weight
    assert str(w) == repr(w)
    assert repr(w).startswith(
        "Parameter containing:\nTensor(shape=[1, 2], dtype=float32, place=Place(cpu), "
        "stop_gradient=False,\n       [["
    )


def test_format_spec_of_zero_d_and_others():
    assert f"{paddle.to_tensor(3.14159):.2f}" == "3.14"
    assert f"{paddle.to_tensor(7):>4d}" == "   7"
    assert format(paddle.ones([2]), "") == str(paddle.ones([2]))
    with pytest.raises(TypeError, match="only 0-d tensors"):
        format(paddle.ones([2]), ".2f")


def test_shape_prints_as_a_list_in_paddle_code():
    # Paddle's ``x.shape`` is a list: ``print(x.shape)`` shows ``[2, 3]``
    x = paddle.zeros([2, 3])
    assert repr(x.shape) == str(x.shape) == f"{x.shape}" == "[2, 3]"
    assert str([x.shape]) == "[[2, 3]]"
