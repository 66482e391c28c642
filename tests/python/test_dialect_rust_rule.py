"""The Rust side answers the dialect rule itself (src/python/dialect.rs reads the calling
module's globals instead of calling `ferrograd._dialect.caller_dialect`): it must give the
Python rule's answer in every case the rule distinguishes (docs/dialects.md). Observed
through `x.data`, whose version counter is its own in PyTorch code and `x`'s elsewhere."""

from __future__ import annotations

import sys

import ferrograd as fg
import pytest

# `x.data.add_(1)` bumps x's version only outside PyTorch code
SRC = "x = fg.ones([2]); x.data.add_(1.0); v = x._version; y = x.data"


def _run(names: dict, module: str = "user_script") -> dict:
    g: dict = {"__name__": module, "fg": fg, **names}
    exec(compile(SRC, "<user_script>", "exec"), g)
    return g


@pytest.fixture
def no_aliases():
    saved = {k: sys.modules.pop(k) for k in ("torch", "paddle") if k in sys.modules}
    yield
    for k in ("torch", "paddle"):
        sys.modules.pop(k, None)
    sys.modules.update(saved)


@pytest.mark.parametrize(
    "names, module, torch",
    [
        ({"torch": fg}, "user_script", True),
        ({"paddle": fg}, "user_script", False),
        ({"torch": fg, "paddle": fg}, "user_script", False),  # both: no dialect
        ({}, "user_script", False),  # neither, no alias: no dialect
        ({"torch": fg}, "ferrograd.some_module", False),  # ferrograd's own code
        ({"torch": object()}, "user_script", False),  # `torch` is not ferrograd
    ],
)
def test_module_names_decide(no_aliases, names, module, torch):
    g = _run(names, module)
    assert g["v"] == (0 if torch else 1)
    assert g["x"].data.tolist() == [2.0, 2.0]


@pytest.mark.parametrize(
    "aliases, torch",
    [({"torch": fg}, True), ({"paddle": fg}, False), ({"torch": fg, "paddle": fg}, False)],
)
def test_process_alias_decides_for_a_module_naming_neither(no_aliases, aliases, torch):
    sys.modules.update(aliases)
    assert _run({})["v"] == (0 if torch else 1)
    # a module's own name still wins over the process alias
    assert _run({"paddle": fg})["v"] == 1


def test_data_assignment_follows_the_dialect(no_aliases):
    src = "x = fg.ones([2]); z = fg.zeros([3]); x.data = z; z.add_(1.0); v = x._version"
    g = {"__name__": "user_script", "fg": fg, "torch": fg}
    exec(compile(src, "<user_script>", "exec"), g)
    assert g["v"] == 0 and g["x"].tolist() == [1.0, 1.0, 1.0]  # keeps its own counter
    g = {"__name__": "user_script", "fg": fg, "paddle": fg}
    exec(compile(src, "<user_script>", "exec"), g)
    assert g["v"] == 1  # counts with z's memory


def test_data_assignment_refuses_a_non_tensor():
    x = fg.ones([2])
    with pytest.raises(TypeError, match="data: expects a Tensor, got list"):
        x.data = [1.0, 2.0]
    with pytest.raises(AttributeError):  # PyTorch: RuntimeError; both refuse
        del x.data
