"""Module state-dict hooks (PyTorch's four kinds and Paddle's register_state_dict_hook),
load_state_dict(assign=), Module.to_empty / compile, nn.utils.skip_init,
nn.utils.stateless.functional_call and EmbeddingBag.from_pretrained. The expected event
logs and numbers were recorded on torch 2.15 / Paddle 3.3.1 running the same code."""

from __future__ import annotations

import warnings

import ferrograd as torch
import numpy as np
import pytest


def scenario():
    nn = torch.nn
    log = []

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            nn_ = nn
            self.a = nn_.Linear(2, 2)
            self.b = nn_.Sequential(nn_.Linear(2, 1))
            self.register_buffer("scale", torch.ones(1))

    torch.manual_seed(0)
    m = Net()
    hs = []
    hs.append(
        m.register_state_dict_pre_hook(
            lambda mod, prefix, kv: log.append(("pre", type(mod).__name__, prefix, kv))
        )
    )
    hs.append(
        m.b.register_state_dict_pre_hook(
            lambda mod, prefix, kv: log.append(("pre", type(mod).__name__, prefix, kv))
        )
    )
    hs.append(
        m.b[0].register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: log.append(
                ("post", type(mod).__name__, prefix, sorted(sd), meta)
            )
        )
    )

    def post_root(mod, sd, prefix, meta):
        log.append(("post", type(mod).__name__, prefix, sorted(sd)))
        sd["extra"] = torch.zeros(1)

    hs.append(m.register_state_dict_post_hook(post_root))
    sd = m.state_dict()
    log.append(("keys", list(sd)))
    sd2 = m.state_dict(prefix="p.", keep_vars=True)
    log.append(("keys", list(sd2)))
    # private hook replacing the result: at the root the result is replaced, in a child not
    h = m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})
    h2 = m.a._register_state_dict_hook(lambda mod, sd, prefix, meta: {"child": 1})
    log.append(("replaced", list(m.state_dict())))
    h.remove()
    h2.remove()
    for x in hs:
        x.remove()
    log.append(("removed", list(m.state_dict())))
    # a public post hook returning a value
    h = m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd)
    try:
        m.state_dict()
    except RuntimeError as e:
        log.append(("err", str(e)))
    h.remove()
    # load: pre hook renames old keys, post hook forgives a missing key
    sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
    old = dict(sd)
    old["a.w_old"] = old.pop("a.weight")
    del old["scale"]

    def lpre(mod, state, prefix, meta, strict, missing, unexpected, errors):
        log.append(
            (
                "lpre",
                type(mod).__name__,
                prefix,
                sorted(state),
                strict,
                list(missing),
                list(unexpected),
            )
        )
        if prefix + "w_old" in state:
            state[prefix + "weight"] = state.pop(prefix + "w_old")

    def lpost(mod, keys):
        log.append(
            ("lpost", type(mod).__name__, list(keys.missing_keys), list(keys.unexpected_keys))
        )
        if "scale" in keys.missing_keys:
            keys.missing_keys.remove("scale")

    m.register_load_state_dict_pre_hook(lpre)
    m.a.register_load_state_dict_pre_hook(lpre)
    m.b.register_load_state_dict_post_hook(lpost)
    m.register_load_state_dict_post_hook(lpost)
    res = m.load_state_dict(old)
    log.append(("result", list(res.missing_keys), list(res.unexpected_keys)))
    log.append(
        (
            "loaded",
            [round(float(v), 6) for v in m.a.weight.detach().reshape(-1)]
            == [round(float(v), 6) for v in sd["a.weight"].reshape(-1)],
        )
    )
    # private pre hook without the module
    m2 = nn.Linear(2, 2)
    m2._register_load_state_dict_pre_hook(
        lambda state, prefix, *rest: log.append(("priv", prefix, len(rest)))
    )
    m2.load_state_dict(m2.state_dict())
    # error_msgs appended by a hook
    m3 = nn.Linear(2, 2)
    m3.register_load_state_dict_pre_hook(
        lambda mod, st, prefix, meta, strict, mi, un, errs: errs.append("bad thing")
    )
    try:
        m3.load_state_dict(m3.state_dict())
    except RuntimeError as e:
        log.append(("errmsg", "bad thing" in str(e)))
    # post-hook returning non-None
    m4 = nn.Linear(2, 2)
    m4.register_load_state_dict_post_hook(lambda mod, keys: 1)
    try:
        m4.load_state_dict(m4.state_dict())
    except (RuntimeError, AssertionError) as e:
        log.append(("posterr", type(e).__name__))
    # strict failure with a post hook: values were copied before the error
    m5 = nn.Linear(2, 2)
    m5.register_load_state_dict_post_hook(lambda mod, keys: None)
    new = {"weight": torch.full((2, 2), 7.0)}
    try:
        m5.load_state_dict(new)
    except RuntimeError:
        log.append(("strict-copied", float(m5.weight.detach()[0, 0])))
    return log


# recorded on torch 2.15 with the same scenario
TORCH_LOG = [
    ("pre", "Net", "", False),
    ("pre", "Sequential", "b.", False),
    (
        "post",
        "Linear",
        "b.0.",
        ["a.bias", "a.weight", "b.0.bias", "b.0.weight", "scale"],
        {"version": 1},
    ),
    ("post", "Net", "", ["a.bias", "a.weight", "b.0.bias", "b.0.weight", "scale"]),
    ("keys", ["scale", "a.weight", "a.bias", "b.0.weight", "b.0.bias", "extra"]),
    ("pre", "Net", "p.", True),
    ("pre", "Sequential", "p.b.", True),
    (
        "post",
        "Linear",
        "p.b.0.",
        ["p.a.bias", "p.a.weight", "p.b.0.bias", "p.b.0.weight", "p.scale"],
        {"version": 1},
    ),
    ("post", "Net", "p.", ["p.a.bias", "p.a.weight", "p.b.0.bias", "p.b.0.weight", "p.scale"]),
    ("keys", ["p.scale", "p.a.weight", "p.a.bias", "p.b.0.weight", "p.b.0.bias", "extra"]),
    ("pre", "Net", "", False),
    ("pre", "Sequential", "b.", False),
    (
        "post",
        "Linear",
        "b.0.",
        ["a.bias", "a.weight", "b.0.bias", "b.0.weight", "scale"],
        {"version": 1},
    ),
    ("post", "Net", "", ["a.bias", "a.weight", "b.0.bias", "b.0.weight", "scale"]),
    ("replaced", ["only"]),
    ("removed", ["scale", "a.weight", "a.bias", "b.0.weight", "b.0.bias"]),
    ("err", "state_dict post-hook must return None"),
    ("lpre", "Net", "", ["a.bias", "a.w_old", "b.0.bias", "b.0.weight"], True, [], []),
    ("lpre", "Linear", "a.", ["a.bias", "a.w_old"], True, ["scale"], []),
    ("lpost", "Sequential", ["scale"], []),
    ("lpost", "Net", [], []),
    ("result", [], []),
    ("loaded", True),
    ("priv", "", 5),
    ("errmsg", True),
    ("posterr", "AssertionError"),
    ("strict-copied", 7.0),
]


def test_state_dict_hooks_match_torch_event_by_event():
    assert scenario() == TORCH_LOG


def test_paddle_register_state_dict_hook():
    log = []

    class Net(torch.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(2, 2)

    m = Net()
    m.a.register_state_dict_hook(lambda sd: log.append(("a", sorted(sd))) or {"child": 1})
    h = m.register_state_dict_hook(lambda sd: log.append(("root", sorted(sd))))
    assert list(m.state_dict()) == ["a.weight", "a.bias"]  # a child's replacement is unseen
    assert log == [("a", ["a.bias", "a.weight"]), ("root", ["a.bias", "a.weight"])]
    h.remove()
    m.register_state_dict_hook(lambda sd: {"r": 1})
    assert list(m.state_dict()) == ["r"]
    assert list(m.state_dict(use_hook=False)) == ["a.weight", "a.bias"]
    assert list(m.a.state_dict(structured_name_prefix="x.", use_hook=False)) == [
        "x.weight",
        "x.bias",
    ]
    assert list(m.state_dict(include_sublayers=False)) == ["r"]


def test_hooks_must_be_callable_and_prefix_is_concatenated():
    m = torch.nn.Linear(2, 2)
    for reg in (m.register_state_dict_pre_hook, m.register_state_dict_post_hook,
                m.register_load_state_dict_pre_hook, m.register_load_state_dict_post_hook):  # fmt: skip
        with pytest.raises(TypeError, match="callable"):
            reg(3)
    assert list(m.state_dict(prefix="foo")) == ["fooweight", "foobias"]  # as PyTorch


def test_strict_error_without_post_hooks_leaves_the_module_unchanged():
    m = torch.nn.Linear(2, 2)
    before = m.weight.detach().clone()
    with pytest.raises(RuntimeError, match="missing keys"):
        m.load_state_dict({"weight": torch.full([2, 2], 7.0)})
    np.testing.assert_array_equal(m.weight.detach().numpy(), before.detach().numpy())
    with pytest.raises(ValueError, match="has shape"):
        m.load_state_dict({"weight": torch.ones([3, 2]), "bias": torch.ones([2])})


def test_load_state_dict_assign():
    m = torch.nn.Sequential(torch.nn.Linear(2, 2))
    sd = {"0.weight": torch.ones([2, 2], dtype=torch.float64), "0.bias": torch.zeros([2])}
    m.load_state_dict(sd, assign=True)
    w = m[0].weight
    assert isinstance(w, torch.nn.Parameter) and w.dtype == torch.float64 and w.requires_grad
    assert list(m.state_dict()) == ["0.weight", "0.bias"]  # the order is kept
    m[0].weight.requires_grad_(False)
    m.load_state_dict({"0.weight": torch.ones([2, 2]), "0.bias": torch.zeros([2])}, assign=True)
    assert not m[0].weight.requires_grad
    m.register_buffer("b", torch.zeros([3]))
    new = torch.arange(3.0)
    m.load_state_dict({**m.state_dict(), "b": new}, assign=True)
    assert m.b is new


def test_to_empty_keeps_parameters_and_compile_is_a_no_op():
    m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    w = m[0].weight
    assert m.to_empty(device="cpu") is m
    assert m[0].weight is w and list(w.shape) == [2, 3] and w.requires_grad
    assert m[1].running_mean.shape == [2]
    m2 = torch.nn.Sequential(torch.nn.Linear(3, 2))
    m2.to_empty(device=torch.device("cpu"), recurse=False)  # nothing of its own: unchanged
    with pytest.raises(Exception, match="cuda"):
        m2.to_empty(device="cuda")
    with pytest.raises(TypeError):
        m2.to_empty("cpu")  # device is keyword-only (PyTorch's)
    x = torch.ones([1, 3])
    before = m2(x).detach().numpy()
    assert m2.compile(mode="reduce-overhead", fullgraph=True) is None
    np.testing.assert_array_equal(m2(x).detach().numpy(), before)
    with pytest.raises(TypeError, match="keywords"):
        m2.compile("inductor")


def test_skip_init():
    m = torch.nn.utils.skip_init(torch.nn.Linear, 5, 1)
    assert list(m.weight.shape) == [1, 5] and m.weight.requires_grad
    m = torch.nn.utils.skip_init(
        torch.nn.Linear, in_features=6, out_features=2, bias=False, device="cpu"
    )
    assert list(m.weight.shape) == [2, 6] and m.bias is None
    with pytest.raises(RuntimeError, match="'device' arg"):
        torch.nn.utils.skip_init(torch.nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        torch.nn.utils.skip_init(int)


def test_stateless_functional_call():
    from ferrograd.nn.utils import stateless

    m = torch.nn.Linear(2, 1)
    w = torch.tensor([[2.0, -1.0]], requires_grad=True)
    x = torch.tensor([[1.0, 3.0]])
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        y = torch.nn.utils.stateless.functional_call(
            m, {"weight": w, "bias": torch.zeros([1])}, (x,)
        )
    assert y.tolist() == [[-1.0]]
    y.sum().backward()
    assert w.grad.tolist() == [[1.0, 3.0]]
    assert m.weight is not w  # the module is left as it was
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(TypeError, match="dict of tensors"):
            stateless.functional_call(m, ({"weight": w},), (x,))
        with pytest.raises(RuntimeError, match="missing"):
            stateless.functional_call(m, {"weight": w}, (x,), strict=True)


def test_embedding_bag_from_pretrained_matches_torch():
    w0 = np.arange(12.0).reshape(4, 3) / 3 - 1.5
    bag = torch.nn.EmbeddingBag.from_pretrained(
        torch.tensor(w0), freeze=False, max_norm=1.2, mode="sum", padding_idx=1
    )
    assert bag.weight.requires_grad and bag.padding_idx == 1
    out = bag(torch.tensor([0, 1, 3, 3, 2]), torch.tensor([0, 2]))
    # torch 2.15's values: rows 0, 2, 3 renormalised to norm 1.2 in place (1 is padding)
    want = [[-0.8674768334082492, -0.6747042037619717, -0.48193157411569404],
            [1.5165673993726934, 2.0292051814283103, 2.5418429634839264]]  # fmt: skip
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-13)
    out.sum().backward()
    assert bag.weight.grad.tolist() == [[1.0] * 3, [0.0] * 3, [1.0] * 3, [2.0] * 3]
    renormed = [0.5607080447169515, 0.6853098324318296, 0.8099116201467076]
    np.testing.assert_allclose(bag.weight.detach().numpy()[3], renormed, rtol=1e-13)
    np.testing.assert_array_equal(bag.weight.detach().numpy()[1], w0[1])  # not renormalised
    frozen = torch.nn.EmbeddingBag.from_pretrained(
        torch.tensor(w0), include_last_offset=True, mode="max"
    )
    assert not frozen.weight.requires_grad
    got = frozen(torch.tensor([0, 1, 3, 3, 2]), torch.tensor([0, 2, 5]))
    np.testing.assert_allclose(got.detach().numpy(), [w0[1], w0[3]])
    with pytest.raises(ValueError, match="2-dimensional"):
        torch.nn.EmbeddingBag.from_pretrained(torch.ones([3]))
    scaled = torch.nn.EmbeddingBag.from_pretrained(torch.ones([3, 2]), scale_grad_by_freq=True)
    assert scaled.scale_grad_by_freq  # built since session 23 (test_embedding_freq_s23.py)
