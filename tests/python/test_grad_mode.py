"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled`` and
``inference_mode`` as context managers and decorators (functions, methods, generators),
exception safety, thread locality, and factories under ``no_grad`` (reference items I1-I10).
"""

from __future__ import annotations

import threading

import ferrograd as fg
import pytest

NAMES = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode"]


def leaf():
    return fg.tensor([1.0, 2.0], requires_grad=True)


def inference_enabled() -> bool:
    return fg._core.is_inference_mode_enabled()


# Each switch, spelled as a decorator with and without parentheses, with the grad mode
# it sets inside and the grad mode to call it from (the opposite one, so that a switch
# that does nothing is caught).
DECORATORS = [
    ("no_grad()", lambda f: fg.no_grad()(f), False),
    ("no_grad", lambda f: fg.no_grad(f), False),
    ("enable_grad()", lambda f: fg.enable_grad()(f), True),
    ("enable_grad", lambda f: fg.enable_grad(f), True),
    ("set_grad_enabled(False)", lambda f: fg.set_grad_enabled(False)(f), False),
    ("set_grad_enabled(True)", lambda f: fg.set_grad_enabled(True)(f), True),
    ("inference_mode()", lambda f: fg.inference_mode()(f), False),
    ("inference_mode", lambda f: fg.inference_mode(f), False),
    ("autograd.no_grad", lambda f: fg.autograd.no_grad(f), False),
    ("autograd.enable_grad()", lambda f: fg.autograd.enable_grad()(f), True),
]
DECORATOR_IDS = [d[0] for d in DECORATORS]


def outer_mode_for(inside: bool):
    """A context that sets the grad mode opposite to ``inside``."""
    return fg.enable_grad() if not inside else fg.no_grad()


class TestApiSurface:
    @pytest.mark.parametrize("name", NAMES)
    def test_reachable_from_both_modules(self, name):
        assert getattr(fg, name) is getattr(fg.autograd, name)

    def test_grad_mode_is_on_by_default(self):
        assert fg.is_grad_enabled() is True
        assert (leaf() * 2).requires_grad


class TestContextManagers:
    def test_no_grad(self):
        x = leaf()
        with fg.no_grad():
            assert fg.is_grad_enabled() is False
            y = x * 2
        assert fg.is_grad_enabled() is True
        assert y.requires_grad is False and y.grad_fn is None
        assert (x * 2).requires_grad

    def test_nesting_restores_each_level(self):
        # [I2]
        x = leaf()
        with fg.no_grad():
            y = x * 2
            e = fg.is_grad_enabled()
            with fg.enable_grad():
                z = x * 2
                e2 = fg.is_grad_enabled()
            assert fg.is_grad_enabled() is False
            w = x * 2
        assert (e, e2) == (False, True)
        assert y.stop_gradient is True
        assert z.requires_grad is True and z.grad_fn is not None
        assert w.requires_grad is False
        assert fg.is_grad_enabled() is True

    def test_enable_grad_when_already_enabled(self):
        with fg.enable_grad():
            assert fg.is_grad_enabled()
        assert fg.is_grad_enabled()

    def test_no_grad_when_already_disabled(self):
        with fg.no_grad():
            with fg.no_grad():
                assert not fg.is_grad_enabled()
            assert not fg.is_grad_enabled()
        assert fg.is_grad_enabled()

    @pytest.mark.parametrize("mode", [False, True])
    def test_set_grad_enabled_as_context_manager(self, mode):
        x = leaf()
        with fg.no_grad() if mode else fg.enable_grad():
            outer = fg.is_grad_enabled()
            with fg.set_grad_enabled(mode):
                assert fg.is_grad_enabled() is mode
                assert (x * 2).requires_grad is mode
            assert fg.is_grad_enabled() is outer
        assert fg.is_grad_enabled()

    def test_set_grad_enabled_as_plain_call_stays_in_force(self):
        # [I5] -> (False, True)
        x = leaf()
        try:
            fg.set_grad_enabled(False)
            first = fg.is_grad_enabled()
            assert (x * 2).requires_grad is False
            with fg.set_grad_enabled(True):
                inner = fg.is_grad_enabled()
            assert fg.is_grad_enabled() is False
            fg.set_grad_enabled(True)
            assert (first, inner) == (False, True)
            assert fg.is_grad_enabled() is True
            assert (x * 2).requires_grad is True
        finally:
            fg.set_grad_enabled(True)

    def test_set_grad_enabled_accepts_truthy_values(self):
        with fg.set_grad_enabled(0):
            assert fg.is_grad_enabled() is False
            with fg.set_grad_enabled(1):
                assert fg.is_grad_enabled() is True
        assert fg.is_grad_enabled() is True

    def test_inference_mode(self):
        x = leaf()
        assert not inference_enabled()
        with fg.inference_mode():
            assert fg.is_grad_enabled() is False
            assert inference_enabled()
            y = x * 2
        assert y.requires_grad is False and y.grad_fn is None
        assert fg.is_grad_enabled() is True
        assert not inference_enabled()

    def test_inference_mode_false_does_not_disable_grad(self):
        x = leaf()
        with fg.inference_mode(False):
            assert fg.is_grad_enabled()
            assert not inference_enabled()
            assert (x * 2).requires_grad

    def test_inference_mode_inside_no_grad_restores_no_grad(self):
        with fg.no_grad():
            with fg.inference_mode():
                assert inference_enabled()
            assert fg.is_grad_enabled() is False
            assert not inference_enabled()
        assert fg.is_grad_enabled()

    @pytest.mark.parametrize(
        "make",
        [
            fg.no_grad,
            fg.enable_grad,
            lambda: fg.set_grad_enabled(False),
            lambda: fg.set_grad_enabled(True),
            fg.inference_mode,
        ],
        ids=["no_grad", "enable_grad", "set_false", "set_true", "inference_mode"],
    )
    @pytest.mark.parametrize("outer", [True, False])
    def test_exception_inside_restores_previous_mode(self, make, outer):
        class Oops(Exception):
            pass

        with fg.set_grad_enabled(outer):
            with pytest.raises(Oops):
                with make():
                    raise Oops
            assert fg.is_grad_enabled() is outer
            assert not inference_enabled()
        assert fg.is_grad_enabled()


class TestDecorators:
    @pytest.mark.parametrize("decorate, inside", [d[1:] for d in DECORATORS], ids=DECORATOR_IDS)
    def test_function(self, decorate, inside):
        x = leaf()

        def f(a, scale=2.0):
            """Doubles."""
            return fg.is_grad_enabled(), (a * scale).requires_grad

        g = decorate(f)
        assert g.__name__ == "f" and g.__doc__ == "Doubles."
        with outer_mode_for(inside):
            outer = fg.is_grad_enabled()
            assert g(x, scale=3.0) == (inside, inside)
            assert fg.is_grad_enabled() is outer

    @pytest.mark.parametrize("decorate, inside", [d[1:] for d in DECORATORS], ids=DECORATOR_IDS)
    def test_decorating_does_not_change_the_current_mode(self, decorate, inside):
        with outer_mode_for(inside):
            outer = fg.is_grad_enabled()
            decorate(lambda: None)
            assert fg.is_grad_enabled() is outer
            assert not inference_enabled()

    @pytest.mark.parametrize("decorate, inside", [d[1:] for d in DECORATORS], ids=DECORATOR_IDS)
    def test_method(self, decorate, inside):
        class Model:
            def __init__(self):
                self.w = leaf()

            def forward(self, a):
                return fg.is_grad_enabled(), (a * self.w).requires_grad

            forward = decorate(forward)

        m = Model()
        with outer_mode_for(inside):
            assert m.forward(leaf()) == (inside, inside)

    @pytest.mark.parametrize("decorate, inside", [d[1:] for d in DECORATORS], ids=DECORATOR_IDS)
    def test_exception_in_decorated_function_restores(self, decorate, inside):
        @decorate
        def f():
            assert fg.is_grad_enabled() is inside
            raise KeyError("inside")

        with outer_mode_for(inside):
            outer = fg.is_grad_enabled()
            with pytest.raises(KeyError, match="inside"):
                f()
            assert fg.is_grad_enabled() is outer
        assert not inference_enabled()

    @pytest.mark.parametrize("decorate, inside", [d[1:] for d in DECORATORS], ids=DECORATOR_IDS)
    def test_generator_only_its_own_steps_run_in_the_mode(self, decorate, inside):
        # [I4] torch behaviour: the consumer between yields keeps its own mode
        x = leaf()

        @decorate
        def gen(n):
            for _ in range(n):
                yield fg.is_grad_enabled(), (x * 2).requires_grad

        with outer_mode_for(inside):
            outer = fg.is_grad_enabled()
            seen = []
            for item in gen(3):
                seen.append(item)
                assert fg.is_grad_enabled() is outer
                assert (x * 2).requires_grad is outer
            assert seen == [(inside, inside)] * 3
            assert fg.is_grad_enabled() is outer
        assert not inference_enabled()

    def test_generator_send_throw_close_and_return(self):
        log = []

        @fg.no_grad
        def gen():
            try:
                got = yield fg.is_grad_enabled()
                log.append(("sent", got, fg.is_grad_enabled()))
                try:
                    yield "second"
                except KeyError:
                    log.append(("caught", fg.is_grad_enabled()))
                    yield "after-throw"
                yield "never"
            finally:
                log.append(("finally", fg.is_grad_enabled()))

        g = gen()
        assert next(g) is False
        assert fg.is_grad_enabled()
        assert g.send("hello") == "second"
        assert fg.is_grad_enabled()
        assert g.throw(KeyError("k")) == "after-throw"
        assert fg.is_grad_enabled()
        g.close()
        assert fg.is_grad_enabled()
        assert log == [("sent", "hello", False), ("caught", False), ("finally", False)]

    def test_generator_return_value_and_yield_from(self):
        @fg.no_grad()
        def inner():
            yield 1
            return fg.is_grad_enabled()

        def outer():
            result = yield from inner()
            yield ("returned", result, fg.is_grad_enabled())

        assert list(outer()) == [1, ("returned", False, True)]

    def test_generator_exception_restores_consumer_mode(self):
        @fg.no_grad
        def gen():
            yield 1
            raise ValueError("from generator")

        g = gen()
        next(g)
        with pytest.raises(ValueError, match="from generator"):
            next(g)
        assert fg.is_grad_enabled()

    def test_generator_uncaught_throw_restores(self):
        @fg.inference_mode
        def gen():
            yield inference_enabled()
            yield "unreached"

        g = gen()
        assert next(g) is True
        assert not inference_enabled()
        with pytest.raises(IndexError):
            g.throw(IndexError("thrown"))
        assert fg.is_grad_enabled() and not inference_enabled()

    def test_decorated_function_reused_many_times(self):
        calls = []

        @fg.no_grad
        def f():
            calls.append(fg.is_grad_enabled())

        f()
        with fg.no_grad():
            f()
        f()
        assert calls == [False, False, False]
        assert fg.is_grad_enabled()

    def test_enable_grad_decorator_inside_no_grad(self):
        # [I3]
        x = leaf()

        @fg.enable_grad()
        def doubler(a):
            return a * 2

        with fg.no_grad():
            z = doubler(x)
        assert z.requires_grad
        z.sum().backward()
        assert x.grad.numpy().tolist() == [2.0, 2.0]

    def test_recursion_keeps_mode(self):
        @fg.no_grad
        def depth(n):
            if n == 0:
                return fg.is_grad_enabled()
            with fg.enable_grad():
                assert fg.is_grad_enabled()
            return depth(n - 1)

        assert depth(5) is False
        assert fg.is_grad_enabled()


class TestThreads:
    def test_worker_is_unaffected_by_main_no_grad(self):
        # [I6]
        x = leaf()
        out = {}

        def worker():
            out["enabled"] = fg.is_grad_enabled()
            out["requires_grad"] = (x * 2).requires_grad

        with fg.no_grad():
            t = threading.Thread(target=worker)
            t.start()
            t.join()
            assert fg.is_grad_enabled() is False
        assert out == {"enabled": True, "requires_grad": True}

    def test_main_is_unaffected_by_worker_no_grad(self):
        x = leaf()
        entered = threading.Event()
        release = threading.Event()
        out = {}

        def worker():
            with fg.no_grad():
                entered.set()
                release.wait(10)
                out["worker"] = fg.is_grad_enabled()
            fg.set_grad_enabled(False)  # a plain call in the worker stays in the worker

        t = threading.Thread(target=worker)
        t.start()
        try:
            assert entered.wait(10)
            assert fg.is_grad_enabled() is True
            y = x * 2
            assert y.stop_gradient is False
        finally:
            release.set()
            t.join()
        assert out == {"worker": False}
        assert fg.is_grad_enabled() is True

    def test_each_thread_starts_with_grad_on(self):
        results = []

        def worker():
            results.append(fg.is_grad_enabled())
            fg.set_grad_enabled(False)

        try:
            fg.set_grad_enabled(False)
            threads = [threading.Thread(target=worker) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            fg.set_grad_enabled(True)
        assert results == [True] * 4

    def test_backward_in_worker_while_main_in_no_grad(self):
        # [I6] -> [2, 4]
        x = leaf()
        z = (x * x).sum()
        out = {}

        def worker():
            z.backward()
            out["grad"] = x.grad.numpy().tolist()

        with fg.no_grad():
            t = threading.Thread(target=worker)
            t.start()
            t.join()
        assert out == {"grad": [2.0, 4.0]}

    def test_decorated_function_in_worker(self):
        @fg.no_grad
        def f():
            return fg.is_grad_enabled()

        out = []
        t = threading.Thread(target=lambda: out.append((f(), fg.is_grad_enabled())))
        t.start()
        t.join()
        assert out == [(False, True)]


class TestFactoriesUnderNoGrad:
    @pytest.mark.parametrize(
        "make",
        [
            lambda: fg.tensor([1.0], requires_grad=True),
            lambda: fg.ones([2], requires_grad=True),
            lambda: fg.zeros([2], requires_grad=True),
            lambda: fg.full([2], 3.0, requires_grad=True),
            lambda: fg.randn(2, requires_grad=True),
            lambda: fg.rand(2, requires_grad=True),
            lambda: fg.eye(2, requires_grad=True),
            lambda: fg.ones_like(fg.ones([2]), requires_grad=True),
            lambda: fg.to_tensor([1.0], stop_gradient=False),
            lambda: fg.ones([2], stop_gradient=False),
        ],
        ids=[
            "tensor",
            "ones",
            "zeros",
            "full",
            "randn",
            "rand",
            "eye",
            "ones_like",
            "to_tensor",
            "ones_stop_gradient",
        ],
    )
    def test_explicit_flag_wins(self, make):
        # [I7]
        with fg.no_grad():
            t = make()
            assert t.requires_grad is True
            assert t.is_leaf
            assert (t * 2).requires_grad is False
        assert (t * 2).requires_grad is True

    def test_default_factories_do_not_require_grad(self):
        with fg.no_grad():
            assert fg.ones([2]).requires_grad is False
            assert fg.to_tensor([1.0]).stop_gradient is True

    def test_requires_grad_underscore_under_no_grad(self):
        with fg.no_grad():
            t = fg.ones([2]).requires_grad_()
        assert t.requires_grad and t.is_leaf
        (t * 3).sum().backward()
        assert t.grad.numpy().tolist() == [3.0, 3.0]

    def test_factory_under_inference_mode(self):
        with fg.inference_mode():
            t = fg.ones([2], requires_grad=True)
            assert (t * 2).requires_grad is False
        assert t.requires_grad
