"""Tensor conveniences: set_default_dtype / get_default_dtype, set_printoptions,
Tensor.type(), .to(device | dtype | tensor | (device, dtype)), .cpu(), .cuda() (a clear
error), device, Paddle's set_value and shape(x), .item() / .tolist() on every dtype."""

import ferrograd as fg
import numpy as np
import pytest


@pytest.fixture
def default_dtype_restored():
    yield
    fg.set_default_dtype(fg.float32)


def test_default_dtype_is_float32_and_settable(default_dtype_restored):
    assert fg.get_default_dtype() == fg.float32
    fg.set_default_dtype("float64")
    assert fg.get_default_dtype() == fg.float64
    assert fg.tensor([1.5]).dtype == fg.float64  # Python floats
    assert fg.tensor(2.5).dtype == fg.float64
    assert fg.zeros([2]).dtype == fg.float64  # factories
    assert fg.rand(2).dtype == fg.float64
    assert fg.randn(2).dtype == fg.float64
    assert fg.arange(0.0, 1.0, 0.5).dtype == fg.float64
    assert fg.tensor([1, 2]).dtype == fg.int64  # integers stay integers
    assert (fg.tensor([1, 2]) / 2).dtype == fg.float64  # int -> float promotion
    assert fg.tensor([1, 2]).mean().dtype == fg.float64
    assert (fg.tensor([1, 2]) * 0.5).dtype == fg.float64
    assert fg.tensor([1j]).dtype == fg.complex128
    assert fg.tensor([1.0], dtype="float32").dtype == fg.float32  # explicit wins
    fg.set_default_dtype(fg.float32)
    assert fg.tensor([1.5]).dtype == fg.float32 and fg.tensor([1j]).dtype == fg.complex64


def test_set_default_dtype_rejects_non_floating(default_dtype_restored):
    with pytest.raises(TypeError, match="floating"):
        fg.set_default_dtype("int64")
    with pytest.raises(TypeError):
        fg.set_default_dtype("complex64")
    assert fg.get_default_dtype() == fg.float32


@pytest.fixture
def printoptions_restored():
    yield
    fg.set_printoptions(profile="default")


def test_set_printoptions_changes_repr(printoptions_restored):
    x = fg.tensor([1.23456789, 2.0])
    # PyTorch's look: four digits for every element, whole numbers as `1.`, and scientific
    # notation by PyTorch's thresholds
    assert repr(x) == "tensor([1.2346, 2.0000])"
    assert repr(fg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(fg.tensor([1e-5, 2.0])) == "tensor([1.0000e-05, 2.0000e+00])"
    fg.set_printoptions(precision=2)
    assert "1.23" in repr(x) and "1.2346" not in repr(x)
    fg.set_printoptions(threshold=5, edgeitems=2)
    r = repr(fg.arange(100))
    assert "..." in r and "99" in r and "50" not in r
    fg.set_printoptions(sci_mode=True)
    assert "e+00" in repr(x)
    fg.set_printoptions(sci_mode=False)
    assert "e-08" not in repr(fg.tensor([1e-8, 1.0], dtype="float64"))
    fg.set_printoptions(linewidth=20, threshold=1000)
    assert max(len(line) for line in repr(fg.arange(30)).splitlines()) <= 22
    assert fg.get_printoptions()["linewidth"] == 20
    fg.set_printoptions(profile="default")
    assert "1.2346" in repr(x) and fg.get_printoptions() == {}
    with pytest.raises(ValueError, match="precision"):
        fg.set_printoptions(precision=-1)
    with pytest.raises(ValueError, match="profile"):
        fg.set_printoptions(profile="huge")


def test_tensor_type_names_and_casts():
    names = {
        "float32": "torch.FloatTensor",
        "float64": "torch.DoubleTensor",
        "float16": "torch.HalfTensor",
        "bfloat16": "torch.BFloat16Tensor",
        "int32": "torch.IntTensor",
        "int64": "torch.LongTensor",
        "bool": "torch.BoolTensor",
        "complex64": "torch.ComplexFloatTensor",
        "complex128": "torch.ComplexDoubleTensor",
    }
    for dt, name in names.items():
        assert fg.zeros([1], dtype=dt).type() == name
    x = fg.tensor([1.5])
    assert x.type(fg.float64).dtype == fg.float64
    assert x.type("torch.LongTensor").dtype == fg.int64
    assert x.type("float16").dtype == fg.float16


def test_to_cpu_and_cuda():
    x = fg.tensor([1.0, 2.0])
    assert x.to(fg.device("cpu"), fg.float64).dtype == fg.float64
    assert x.to("cpu", fg.float64).dtype == fg.float64
    assert x.to(fg.device("cpu")) is x
    assert x.to(device="cpu", dtype="float64").dtype == fg.float64
    assert x.to(fg.ones([1], dtype="int32")).dtype == fg.int32
    assert x.to(fg.float32, non_blocking=True) is x
    assert x.to(fg.float32, copy=True) is not x
    assert x.cpu() is x
    with pytest.raises(ValueError, match="CPU"):
        x.to("cuda")
    with pytest.raises(RuntimeError, match="CPU only"):
        x.cuda()
    assert str(fg.device("cpu")) == "cpu"
    with pytest.raises(ValueError, match="CPU"):
        fg.device("cuda:0")


def test_paddle_set_value_and_shape():
    w = fg.zeros([2, 2], requires_grad=True)
    w.set_value(np.ones((2, 2)))
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 2), dtype="float32"))
    assert w.requires_grad and w.is_leaf and w.dtype == fg.float32
    w.set_value(fg.full([2, 2], 3.0, dtype="float64"))
    assert w.numpy()[0, 0] == 3.0
    w.set_value(5.0)
    assert w.numpy().tolist() == [[5.0, 5.0], [5.0, 5.0]]
    with pytest.raises(ValueError, match="shape"):
        w.set_value(np.ones(3))
    s = fg.shape(fg.zeros([2, 3, 4]))
    assert s.dtype == fg.int64 and s.tolist() == [2, 3, 4]
    assert fg.shape(fg.tensor(1.0)).tolist() == []


@pytest.mark.parametrize(
    "dtype,value,expected",
    [
        ("bool", True, True),
        ("int32", 7, 7),
        ("int64", -3, -3),
        ("float16", 1.5, 1.5),
        ("bfloat16", 1.5, 1.5),
        ("float32", 2.25, 2.25),
        ("float64", 0.1, 0.1),
        ("complex64", 1 + 2j, 1 + 2j),
        ("complex128", 1 - 2j, 1 - 2j),
    ],
)
def test_item_and_tolist_on_every_dtype(dtype, value, expected):
    t = fg.tensor(value, dtype=dtype)
    got = t.item()
    assert got == expected and type(got) is type(expected)
    lst = fg.tensor([value, value], dtype=dtype).tolist()
    assert lst == [expected, expected] and type(lst[0]) is type(expected)
    nested = fg.tensor([[value]], dtype=dtype).tolist()
    assert nested == [[expected]]
