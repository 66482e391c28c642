"""saved_tensors_hooks.__exit__ on another thread than __enter__ is refused clearly
(issue 16 item 16): the hook stack is per thread, so such an exit would pop nothing there
and silently leave the hooks installed on the entering thread."""

from __future__ import annotations

import threading

import ferrograd as fg
import pytest
from ferrograd.autograd.graph import saved_tensors_hooks


def test_exit_on_another_thread_raises_and_the_entering_thread_can_still_exit():
    packed = []
    ctx = saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t)
    ctx.__enter__()
    errors: list[BaseException] = []

    def other():
        try:
            ctx.__exit__(None, None, None)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    th = threading.Thread(target=other)
    th.start()
    th.join()
    assert len(errors) == 1 and isinstance(errors[0], RuntimeError)
    assert "same thread" in str(errors[0])
    fg.randn(2, requires_grad=True).exp()
    assert packed, "the hooks are still installed on the entering thread"
    ctx.__exit__(None, None, None)  # the right thread: pops them
    n = len(packed)
    fg.randn(2, requires_grad=True).exp()
    assert len(packed) == n, "no hook left behind"


def test_exit_without_enter_is_an_error_not_a_silent_pop_of_someone_elses_hooks():
    outer = saved_tensors_hooks(lambda t: t, lambda t: t)
    with outer:
        stray = saved_tensors_hooks(lambda t: t, lambda t: t)
        with pytest.raises(RuntimeError, match="entered on no thread"):
            stray.__exit__(None, None, None)


def test_the_same_object_nests_on_one_thread():
    ctx = saved_tensors_hooks(lambda t: t, lambda t: t)
    with ctx:
        with ctx:
            pass
