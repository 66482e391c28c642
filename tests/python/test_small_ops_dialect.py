"""Session 41's small-op fast paths (benches/small_ops.py) keep every answer:

* ``ferrograd._core._caller_dialect(depth)`` (the rule in Rust, src/python/dialect.rs, now
  used by the wrappers of ``max(x, 1)``, ``F.linear``, ``split`` and ``clamp``) gives
  ``ferrograd._dialect.caller_dialect(depth)``'s answer in every case the rule
  distinguishes (docs/dialects.md): the module's import name, both names, neither with
  and without a process-wide alias, ferrograd's own modules, a transparent wrapper in
  between, fewer frames than asked;
* ``clamp`` / ``clip`` with number bounds skip the dialect only where it cannot change the
  result (a floating tensor that needs no gradient);
* the sparse-aware ``matmul`` / ``mm`` / ``bmm`` / ``addmm`` wrappers still hand a sparse
  operand to the sparse product;
* a plain ``int`` / ``float`` scalar read directly in Rust (``clip`` bounds, ``full``'s
  fill value) gives the value the generic conversion gave, large ints included.
"""

from __future__ import annotations

import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, _dialect

# a function of the "user module" that asks both rules at the same depth, directly (1)
# and through a helper of the same module (2)
SRC = """
def ask(depth):
    return _core._caller_dialect(depth), _dialect.caller_dialect(depth)

def helper(depth):
    return ask(depth)

def both():
    return _core._caller_dialect(1), _dialect.caller_dialect(1)
"""


def _module(names: dict, module: str = "user_script") -> dict:
    g: dict = {"__name__": module, "_core": _core, "_dialect": _dialect, **names}
    exec(compile(SRC, f"<{module}>", "exec"), g)
    return g


@pytest.fixture
def no_aliases():
    saved = {k: sys.modules.pop(k) for k in ("torch", "paddle") if k in sys.modules}
    yield
    for k in ("torch", "paddle"):
        sys.modules.pop(k, None)
    sys.modules.update(saved)


@pytest.mark.parametrize(
    "names, module, expected",
    [
        ({"torch": fg}, "user_script", "torch"),
        ({"paddle": fg}, "user_script", "paddle"),
        ({"torch": fg, "paddle": fg}, "user_script", None),
        ({}, "user_script", None),
        ({"torch": fg}, "ferrograd.some_module", None),
        ({"torch": object()}, "user_script", None),
    ],
)
@pytest.mark.parametrize("aliases", [{}, {"torch": fg}, {"paddle": fg}])
def test_rust_rule_matches_python_rule(no_aliases, names, module, expected, aliases):
    sys.modules.update(aliases)
    g = _module(names, module)
    rust, py = g["both"]()
    assert rust == py
    if not aliases:
        assert rust == expected
    # depth 2: the caller of the asking function (the same module here)
    rust2, py2 = g["helper"](2)
    assert rust2 == py2 == rust


def test_depth_reaches_the_calling_module(no_aliases):
    torch_mod = _module({"torch": fg}, "torch_code")
    paddle_mod = _module({"paddle": fg}, "paddle_code")
    # paddle_code's helper called from torch_code: depth 2 sees paddle_code's frame,
    # depth 3 torch_code's
    torch_mod["call"] = paddle_mod["helper"]
    exec("def outer(d):\n    return call(d)\n", torch_mod)
    assert torch_mod["outer"](2) == ("paddle", "paddle")
    assert torch_mod["outer"](3) == ("torch", "torch")


def test_more_frames_than_the_stack_has(no_aliases):
    g = _module({"torch": fg})
    rust, py = g["ask"](10_000)
    assert rust == py is None
    sys.modules["paddle"] = fg
    rust, py = g["ask"](10_000)
    assert rust == py == "paddle"


def test_transparent_wrapper_is_looked_through(no_aliases):
    # a function of a transparent module (the split wrapper's) asking at depth 1 gets the
    # dialect of its caller, as the Python rule
    g = _module({}, "ferrograd._split_spelling")
    user = _module({"torch": fg}, "user_torch")
    user["ask_t"] = g["ask"]
    exec("def go():\n    return ask_t(1)\n", user)
    assert user["go"]() == ("torch", "torch")


def test_the_wrappers_follow_the_calling_module():
    # max(x, 1): PyTorch's pair in torch code, Paddle's values in paddle code
    for name, pair in (("torch", True), ("paddle", False)):
        g: dict = {"__name__": f"user_{name}", name: fg}
        exec(f"m = {name}.to_tensor([[1.0, 3.0], [4.0, 2.0]])\nr = m.max(1)\n", g)
        assert isinstance(g["r"], tuple) == pair
    # F.linear: Paddle's [in, out] weight in paddle code, PyTorch's [out, in] in torch code
    g = {"__name__": "user_paddle", "paddle": fg}
    exec("y = paddle.nn.functional.linear(paddle.ones([2, 4]), paddle.ones([4, 3]))\n", g)
    assert list(g["y"].shape) == [2, 3]
    g = {"__name__": "user_torch", "torch": fg}
    exec("y = torch.nn.functional.linear(torch.ones(2, 4), torch.ones(3, 4))\n", g)
    assert list(g["y"].shape) == [2, 3]
    # split(4) of 8 elements: torch's sections of size 4 / paddle's 4 sections
    g = {"__name__": "user_torch", "torch": fg}
    exec("s = torch.ones(8).split(4)\nt = torch.split(torch.ones(8), 4)\n", g)
    assert [len(p) for p in g["s"]] == [len(p) for p in g["t"]] == [4, 4]
    g = {"__name__": "user_paddle", "paddle": fg}
    exec("s = paddle.ones([8]).split(4)\nt = paddle.split(paddle.ones([8]), 4)\n", g)
    assert [len(p) for p in g["s"]] == [len(p) for p in g["t"]] == [2, 2, 2, 2]


def test_clamp_number_bounds_fast_path_keeps_the_dialect_rules():
    # PyTorch code: no gradient where x equals a number bound (the tie rule) needs the
    # dialect, so a tensor that requires grad still asks it
    g: dict = {"__name__": "user_torch", "torch": fg}
    exec(
        "x = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)\n"
        "x.clamp(0, 1).sum().backward()\n"
        "z = torch.tensor([-1.0, 0.5, 2.0]).clamp(0, 1)\n"
        "i = torch.tensor([1, 5]).clamp(0, 2.5)\n",
        g,
    )
    assert g["x"].grad.tolist() == [0.0, 1.0, 0.0]
    assert g["z"].tolist() == [0.0, 0.5, 1.0]
    assert g["i"].dtype == fg.float32  # an int tensor with a float bound: result_type
    # no dialect: the core's gradient at the bounds (ties pass it)
    x = fg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    x.clamp(0, 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    # a bool / numpy bound goes the long way and gives the same values
    y = fg.tensor([-1.0, 0.5, 2.0])
    assert y.clamp(np.float32(0), 1).tolist() == y.clamp(False, True).tolist() == [0, 0.5, 1]
    assert fg.clip(y, max=0.25).tolist() == [-1.0, 0.25, 0.25]


def test_sparse_operands_still_reach_the_sparse_product():
    a = fg.tensor([[0.0, 2.0], [3.0, 0.0]])
    s = a.to_sparse()
    d = fg.tensor([[1.0, 1.0], [1.0, 1.0]])
    want = (a @ d).tolist()
    assert fg.matmul(s, d).tolist() == want
    assert fg.mm(s, d).tolist() == want
    assert fg.matmul(a, d).tolist() == want
    assert fg.matmul(a, d, transpose_y=True).tolist() == (a @ d.t()).tolist()


@pytest.mark.parametrize("v", [2, -3, 2**53 + 1, 2**63 - 1, 2**70, 0.1, -2.5, True])
def test_plain_number_scalars_read_exactly(v):
    # full(): the value the generic conversion (int.__float__) gives, for every size
    t = fg.full([2], v, dtype=fg.float64)
    assert t.tolist() == [float(v), float(v)]
    # clip bounds: the same number (float64, so no float32 rounding hides a difference)
    x = fg.tensor([-(2.0**80), 2.0**80], dtype=fg.float64)
    assert x.clip(min=v).tolist()[0] == float(v)
