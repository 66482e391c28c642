"""Anomaly mode (PyTorch's ``detect_anomaly`` / ``set_detect_anomaly``): NaN checks after
each node's backward, the forward traceback in ``grad_fn.metadata`` and in the warning
that reports a failing node, nested nodes' parents, ``check_nan=False``, the mode being
process-wide, and ``set_warn_always`` with the ``backward(create_graph=True)`` warning.
Messages are PyTorch 2.x's (checked against it)."""

import gc
import inspect
import io
import sys
import threading
import warnings
import weakref

import ferrograd as fg
import numpy as np
import pytest

NO_INFO = "No forward pass information available"


@pytest.fixture(autouse=True)
def _mode_off():
    """Every test starts and ends with the mode off (it is process-wide)."""
    fg.set_anomaly_enabled(False)
    yield
    fg.set_anomaly_enabled(False)


def _line() -> int:
    """The caller's line number."""
    return inspect.currentframe().f_back.f_lineno


def _here(line: int) -> str:
    return f'File "{__file__}", line {line}'


class NanIn(fg.autograd.Function):
    """Sum forward; backward puts a NaN into the gradient of input ``which``."""

    @staticmethod
    def forward(ctx, a, b, which):
        ctx.which = which
        return (a + b).sum()

    @staticmethod
    def backward(ctx, g):
        bad = g * fg.ones(3, dtype=fg.float64)
        bad[0] = float("nan")
        good = g * fg.ones(3, dtype=fg.float64)
        return (bad, good, None) if ctx.which == 0 else (good, bad, None)


def _leaf():
    return fg.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)


def _messages(ws):
    return [str(w.message) for w in ws]


def test_builtin_node_nan_raises_with_pytorch_message_and_traceback_warning():
    x = fg.tensor(np.array([0.0, 4.0]), requires_grad=True)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with fg.autograd.detect_anomaly():
            y = x.sqrt()  # d/dx at 0 is inf; times the 0 from below: NaN
            line = _line() - 1
            z = (y * 0.0).sum()
            with pytest.raises(
                RuntimeError,
                match=r"Function 'SqrtBackward0' returned nan values in its 0th output\.",
            ):
                z.backward()
    msgs = _messages(ws)
    assert "Anomaly Detection has been enabled" in msgs[0]
    (report,) = [m for m in msgs if "Error detected in" in m]
    assert report.startswith(
        "Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n"
    )
    assert _here(line) in report and "y = x.sqrt()" in report


def test_custom_function_nan_names_the_output_and_the_apply_line():
    x = _leaf()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with fg.autograd.detect_anomaly():
            out = NanIn.apply(x, x, 1)
            line = _line() - 1
            with pytest.raises(
                RuntimeError,
                match=r"Function 'NanInBackward' returned nan values in its 1th output\.",
            ):
                out.backward()
    (report,) = [m for m in _messages(ws) if "Error detected in" in m]
    assert report.startswith("Error detected in NanInBackward. Traceback of forward call")
    assert _here(line) in report and "NanIn.apply" in report


def test_forward_outside_the_mode_reports_no_forward_information():
    x = _leaf()
    out = NanIn.apply(x, x, 0)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"'NanInBackward' returned nan values in its 0th"):
            with fg.autograd.detect_anomaly():
                out.backward()
    (report,) = [m for m in _messages(ws) if "Error detected in" in m]
    assert report.startswith(  # (PyTorch appends where in its C++ it warned)
        "Error detected in NanInBackward. No forward pass information available. Enable detect "
        "anomaly during forward pass for more information."
    )


def test_mode_off_leaves_nan_gradients_alone():
    x = _leaf()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        NanIn.apply(x, x, 0).backward()
    assert ws == []
    assert np.isnan(x.grad.numpy()[0]) and x.grad.numpy()[1] == 2.0
    assert dict(x.sqrt().grad_fn.metadata) == {}


def test_check_nan_false_lets_nan_through_and_nesting_restores_it():
    x = _leaf()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fg.autograd.detect_anomaly(check_nan=False):
            assert fg.is_anomaly_enabled() and not fg.is_anomaly_check_nan_enabled()
            out = NanIn.apply(x, x, 0)
            out.backward(retain_graph=True)
            with fg.autograd.detect_anomaly(check_nan=True):
                with pytest.raises(RuntimeError, match="returned nan values in its 0th output"):
                    out.backward(retain_graph=True)
            assert not fg.is_anomaly_check_nan_enabled()
            out.backward()
    assert not fg.is_anomaly_enabled() and fg.is_anomaly_check_nan_enabled()


def test_an_error_in_backward_keeps_its_class_and_is_reported():
    class Boom(fg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = _leaf()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="boom"):
            with fg.autograd.detect_anomaly():
                line = _line() + 1
                Boom.apply(x).sum().backward()
    (report,) = [m for m in _messages(ws) if "Error detected in" in m]
    assert report.startswith("Error detected in BoomBackward. Traceback of forward call")
    assert _here(line) in report


def test_inplace_error_warns_and_a_raising_warning_goes_to_stderr():
    def run():
        a = fg.randn(5, requires_grad=True)
        d1 = a + 1
        d2 = d1**2
        d1 += 1
        fg.autograd.grad(d2.sum(), a)

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            with fg.autograd.detect_anomaly():
                run()
    assert len(ws) == 2 and "Error detected in PowBackward0" in str(ws[1].message)

    err = io.StringIO()
    with warnings.catch_warnings(record=True) as ws:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            with fg.autograd.detect_anomaly():
                warnings.simplefilter("error")
                old, sys.stderr = sys.stderr, err
                try:
                    run()
                finally:
                    sys.stderr = old
    assert len(ws) == 1
    assert "Error detected in PowBackward0" in err.getvalue()


class Outer(fg.autograd.Function):
    @staticmethod
    def forward(ctx, a, which):
        ctx.which = which
        ctx.save_for_backward(a)
        return a.sum(0, keepdim=True)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        g = g.expand(3)
        return Inner.apply(g * a, g + a, ctx.which), None


class Inner(fg.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, which):
        ctx.which = which
        return a * 2.0 + b

    @staticmethod
    def backward(ctx, g):
        g1, g2 = g.clone(), g.clone()
        (g1 if ctx.which == 0 else g2)[0] = float("nan")
        return g1, g2, None


def test_nested_node_reports_its_parent_forward_call():
    x = _leaf()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"'InnerBackward' returned nan values in its 1th"):
            with fg.autograd.detect_anomaly():
                out = Outer.apply(x, 1)
                line = _line() - 1
                (gx,) = fg.autograd.grad(out, (x,), create_graph=True)
                meta = gx.grad_fn.metadata
                assert meta["parent_"] is out.grad_fn
                assert "Inner.apply" in "".join(meta["traceback_"])
                gx.sum().backward()
    msgs = _messages(ws)
    assert "Anomaly Detection has been enabled" in msgs[0]
    assert msgs[1].startswith("Error detected in InnerBackward. Traceback of forward call")
    assert "Inner.apply" in msgs[1]
    assert msgs[2].startswith(
        "\n\nPrevious calculation was induced by OuterBackward. Traceback of forward call that "
        "induced the previous calculation:\n"
    )
    assert _here(line) in msgs[2] and "Outer.apply" in msgs[2]


def test_nested_node_whose_parent_has_no_traceback():
    x = _leaf()
    out = Outer.apply(x, 0)
    (gx,) = fg.autograd.grad(out, (x,), create_graph=True)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"'InnerBackward' returned nan values in its 0th"):
            with fg.autograd.detect_anomaly():
                gx.sum().backward()
    assert NO_INFO in _messages(ws)[1]


def test_metadata_is_one_dict_per_node_with_the_forward_stack():
    x = _leaf()
    y = x * 2.0
    assert y.grad_fn.metadata == {}
    y.grad_fn.metadata["k"] = 1
    assert y.grad_fn.metadata == {"k": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fg.autograd.set_detect_anomaly(True):
            z = x * 3.0
            line = _line() - 1
    tb = z.grad_fn.metadata["traceback_"]
    assert isinstance(tb, list) and all(isinstance(s, str) for s in tb)
    assert _here(line) in tb[-1] and "z = x * 3.0" in tb[-1]
    assert "parent_" not in z.grad_fn.metadata


def test_metadata_dies_with_its_node():
    class Foo:
        pass

    def make():
        x = fg.randn(2, 2, requires_grad=True)
        t = x.exp()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with fg.autograd.detect_anomaly():
                fg.autograd.grad(t, x, fg.ones_like(t), create_graph=True)
        obj = Foo()
        t.grad_fn.metadata[0] = obj
        return t, weakref.ref(obj)

    t, ref = make()
    assert ref() is not None
    del t
    gc.collect()
    assert ref() is None


def test_mode_is_process_wide_like_pytorch():
    seen = []
    fg.autograd.set_detect_anomaly(True, check_nan=False)
    th = threading.Thread(
        target=lambda: seen.append((fg.is_anomaly_enabled(), fg.is_anomaly_check_nan_enabled()))
    )
    th.start()
    th.join()
    assert seen == [(True, False)]


def test_set_detect_anomaly_is_a_function_and_a_context_manager():
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        fg.autograd.set_detect_anomaly(True)
        assert fg.is_anomaly_enabled()
        with fg.autograd.set_detect_anomaly(False):
            assert not fg.is_anomaly_enabled()
        assert fg.is_anomaly_enabled()
    assert ws == []  # only detect_anomaly() warns


def test_paddle_pylayer_nan_is_checked_too():
    class Layer(fg.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = _leaf()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fg.autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match=r"returned nan values in its 0th output"):
                Layer.apply(x).sum().backward()


def test_backward_create_graph_warns_under_warn_always():
    assert not fg.is_warn_always_enabled()
    fg.set_warn_always(True)
    try:
        b = fg.randn(3, requires_grad=True, dtype=fg.float64)
        c = b * b
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            c.backward(fg.ones_like(c), create_graph=True)
            fg.autograd.backward([c], [fg.ones_like(c)], create_graph=True)
        assert sum("Using backward() with create_graph=True" in str(w.message) for w in ws) == 2
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            fg.autograd.grad(c, b, fg.ones_like(c), create_graph=True)
        assert ws == []
    finally:
        fg.set_warn_always(False)
