"""NumPy interop can never change a gradient unnoticed (issue 16, item 2).

The rule (docs/reliability.md, "NumPy interop and aliasing"): ``np.asarray(t)`` and
``memoryview(t)`` share memory, read-only when ``t`` requires grad or its memory is saved
for backward; a save made while a writable export is alive keeps a copy. ``t.numpy()``
is always a writable copy; ``from_numpy`` shares memory by request."""

import ferrograd as fg
import numpy as np
import pytest


def test_export_of_tensor_requiring_grad_is_read_only():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    arr = np.asarray(a)
    assert not arr.flags.writeable
    assert memoryview(a).readonly
    with pytest.raises(ValueError):
        arr[0] = 5.0
    np.testing.assert_array_equal(arr, [1.0, 2.0])  # still a view: no copy
    assert arr.ctypes.data == a.data_ptr()


def test_export_of_memory_saved_for_backward_is_read_only():
    x = fg.tensor([1.0, 2.0])
    w = fg.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()  # saves x for w's gradient
    arr = np.asarray(x)
    assert not arr.flags.writeable
    with pytest.raises((TypeError, ValueError, BufferError)):
        arr[0] = 9.0
    with pytest.raises((TypeError, ValueError, BufferError)):
        memoryview(x)[0] = 9.0
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])
    # the saved slot is freed by backward: the memory is writable through NumPy again
    assert np.asarray(x).flags.writeable


def test_write_through_earlier_writable_export_does_not_change_gradient():
    x = fg.tensor([1.0, 2.0])
    w = fg.tensor([3.0, 4.0], requires_grad=True)
    arr = np.asarray(x)  # writable alias taken before the forward
    assert arr.flags.writeable
    y = (x * w).sum()
    arr[:] = 100.0  # the tensor changes, the saved forward value does not
    np.testing.assert_array_equal(x.numpy(), [100.0, 100.0])
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


def test_write_through_memoryview_taken_before_forward():
    x = fg.tensor([1.0, 2.0], dtype="float64")
    w = fg.tensor([3.0, 4.0], dtype="float64", requires_grad=True)
    m = memoryview(x).cast("B").cast("d")
    y = (x * w).sum()
    m[0] = -7.0
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


def test_detached_leaf_alias_of_saved_leaf_is_read_only():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    assert not np.asarray(a.detach()).flags.writeable
    y.backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0])


def test_dlpack_of_saved_memory_is_read_only_or_refused():
    x = fg.tensor([1.0, 2.0])
    w = fg.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    try:
        arr = np.from_dlpack(x)
    except BufferError as e:
        assert "saved for backward" in str(e)
    else:
        assert not arr.flags.writeable
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


def test_numpy_is_a_writable_copy_and_from_numpy_shares():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    c = a.numpy()
    c[0] = 9.0
    assert a.numpy()[0] == 1.0
    src = np.zeros(2)
    t = fg.from_numpy(src)
    src[0] = 3.0
    assert t.numpy()[0] == 3.0


def test_write_to_from_numpy_source_after_forward_does_not_change_gradient():
    src = np.array([1.0, 2.0])
    x = fg.from_numpy(src)
    w = fg.tensor([3.0, 4.0], dtype="float64", requires_grad=True)
    y = (x * w).sum()
    src[:] = 50.0  # NumPy can always write the array it shares: x was saved as a copy
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])
    assert x.numpy()[0] == 50.0
