"""Python object identity the peers' tests check: ``view._base is x`` and
``y.grad_fn._saved_self is x`` (a saved input that is a leaf or not an output of the
node), without keeping the objects alive."""

import gc
import weakref

import ferrograd as fg


def test_base_of_a_view_is_the_same_object():
    x = fg.randn([4, 4], requires_grad=True)
    v = x.narrow(0, 1, 2)
    assert v._base is x
    assert v[0]._base is x  # the root of a chain of views
    assert x._base is None
    assert (x * 2)._base is None
    assert v.detach()._base is None


def test_base_without_grad_and_after_detach_():
    x = fg.randn([10, 10], requires_grad=True)
    view = x.narrow(0, 1, 4)
    x.detach_()
    assert not x.requires_grad
    assert view.requires_grad and view.grad_fn is not None
    assert view._base is x
    plain = fg.zeros([3])
    assert plain[1:]._base is plain


def test_base_of_a_dead_object_is_a_new_equal_object():
    x = fg.randn([3])
    v = x[1:]
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None  # the view keeps the tensor, not its Python object
    b = v._base
    assert b is not None and b.shape == [3]
    assert v._base is b


def test_saved_inputs_are_the_callers_objects():
    a = fg.randn([5], requires_grad=True)
    b = a * a
    c = a * b
    d = fg.exp(a)
    assert b.grad_fn._saved_self is a
    assert b.grad_fn._saved_other is a
    assert c.grad_fn._saved_self is a
    assert c.grad_fn._saved_other is b  # not an output of c's node
    assert d.grad_fn._saved_result is not d  # an output: a new object, equal values
    assert (d.grad_fn._saved_result.numpy() == d.numpy()).all()


def test_saving_does_not_keep_the_python_object_alive():
    a = fg.randn([3], requires_grad=True)
    y = a * a
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None
    assert y.grad_fn._saved_self.shape == [3]


def test_is_view_answers_for_views_and_plain_tensors():
    x = fg.ones(2, 3)
    assert not x._is_view()
    assert x[0]._is_view() and x.view(3, 2)._is_view() and x.transpose(0, 1)._is_view()
    assert not x.clone()._is_view()
