"""Differential fuzzer for the ``nn.Module`` machinery and the normalisation layers'
running state.

(1) Random trees of modules (custom modules whose entries are set after ``__init__`` by
attribute assignment or ``register_parameter`` / ``register_buffer`` / ``add_module`` /
``register_module``, ``None`` entries, deleted entries, ``Sequential`` / ``ModuleList`` /
``ModuleDict`` / ``ParameterList`` / ``ParameterDict``, submodules and parameters and
buffers shared between places) are checked against a plain-Python walk of the tree's
specification written from PyTorch's documented (and actual, ``torch/nn/modules/module.py``)
algorithms: ``named_parameters`` / ``named_buffers`` / ``named_modules`` /
``named_children`` (order, dedup of shared ones, ``remove_duplicate``, ``prefix``,
``recurse``), ``state_dict`` (keys, order, ``keep_vars``, non-persistent buffers left
out), ``load_state_dict`` (``strict``, the missing / unexpected keys it returns, shape
errors, ``assign``), ``get_submodule`` / ``get_parameter`` / ``get_buffer``, ``apply``,
``train`` / ``eval``, ``requires_grad_``, ``zero_grad``, the dtype casts, ``__dir__`` and
``repr``; the containers' list operations against a Python list; forward hooks (order,
``prepend``, ``with_kwargs``, ``always_call``, replacements, removable handles), full
backward hooks and pre-hooks against the module's own gradients, and the state-dict hooks.

(2) ``BatchNorm1d/2d/3d``, ``InstanceNorm1d/2d/3d``, ``GroupNorm``, ``LayerNorm``,
``LocalResponseNorm`` and ``RMSNorm`` over several random training steps and then
``eval()``, against float64 NumPy references of PyTorch's formulas (outputs and running
buffers), gradients with ``ferrograd.autograd.gradcheck`` of the training-mode forward in
float64; and Paddle's ``BatchNorm1D/2D`` (``momentum`` the fraction kept, biased running
variance, ``use_global_stats``, ``data_format``), ``LayerNorm``, ``GroupNorm``,
``InstanceNorm2D`` and ``Layer`` machinery names, per docs/layers-norm-act-loss.md.

This module is PyTorch code (``torch = fg`` below, docs/dialects.md). Where ferrograd's
documented choice differs from PyTorch (``to(dtype)`` makes new Parameter objects; a
failed strict load leaves the module unchanged) the test follows ferrograd's docs.
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from fuzz_support import CALLS, FUZZ
from hypothesis import given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's
nn = fg.nn

NAMES = ["a", "b", "c", "w", "x0", "lay", "q"]


def npy(t):
    return np.array(t.detach().numpy())


def join(prefix, name):
    return f"{prefix}.{name}" if prefix else name


# ---------------------------------------------------------------- random module trees
class Custom(nn.Module):
    """A module whose entries are all set after ``__init__``."""

    def __init__(self, tag=""):
        super().__init__()
        self.tag = tag  # a plain attribute

    def extra_repr(self):
        return self.tag


class Tree:
    """A random module tree and its specification: ``spec[nid]`` is the list of
    ``(name, kind, ref)`` entries of node ``nid`` in registration order; ``kind`` is ``p``
    (ref: parameter id), ``b`` (ref: ``(buffer id, persistent)``), ``m`` (ref: node id), or
    ``pN`` / ``bN`` / ``mN`` for a None entry. The root is the last node."""

    def __init__(self, data):
        self.data = data
        self.params, self.buffers, self.nodes, self.spec, self.kinds = [], [], [], [], []
        for _ in range(data.draw(st.integers(1, 6), label="nodes")):
            self._node()
        self.root = self.nodes[-1]
        self.rid = len(self.nodes) - 1

    def _param(self):
        d = self.data
        if self.params and d.draw(st.booleans()):
            return d.draw(st.integers(0, len(self.params) - 1))  # shared
        shape = d.draw(st.lists(st.integers(1, 3), max_size=2))
        dtype = d.draw(st.sampled_from(["float32", "float64"]))
        v = np.random.default_rng(len(self.params)).standard_normal(shape)
        self.params.append(nn.Parameter(fg.tensor(v, dtype=dtype)))
        return len(self.params) - 1

    def _buffer(self):
        d = self.data
        if self.buffers and d.draw(st.booleans()):
            return d.draw(st.integers(0, len(self.buffers) - 1))
        shape = d.draw(st.lists(st.integers(1, 3), max_size=2))
        dtype = d.draw(st.sampled_from(["float32", "float64", "int64"]))
        v = np.random.default_rng(100 + len(self.buffers)).standard_normal(shape) * 5
        self.buffers.append(fg.tensor(v.astype(dtype), dtype=dtype))
        return len(self.buffers) - 1

    def _child(self):
        return self.data.draw(st.integers(0, len(self.nodes) - 1))

    def _node(self):
        d = self.data
        kinds = ["custom", "ParameterList", "ParameterDict"]
        if self.nodes:
            kinds += ["Sequential", "ModuleList", "ModuleDict"]
        kind = d.draw(st.sampled_from(kinds))
        entries = []
        if kind == "custom":
            obj = Custom(d.draw(st.sampled_from(["", "k=1", "tag"])))
            names = d.draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
            for name in names:
                what = d.draw(
                    st.sampled_from(["p", "b", "pN", "bN"] + ["m", "mN"] * bool(self.nodes))
                )
                how = d.draw(st.integers(0, 2))
                if what == "p":
                    ref = self._param()
                    p = self.params[ref]
                    setattr(obj, name, p) if how else obj.register_parameter(name, p)
                elif what == "b":
                    ref = (self._buffer(), d.draw(st.booleans()))
                    obj.register_buffer(name, self.buffers[ref[0]], persistent=ref[1])
                elif what == "m":
                    ref = self._child()
                    m = self.nodes[ref]
                    if how == 0:
                        setattr(obj, name, m)
                    else:
                        (obj.add_module if how == 1 else obj.register_module)(name, m)
                elif what == "pN":
                    ref = None
                    obj.register_parameter(name, None)
                elif what == "bN":
                    ref = None
                    obj.register_buffer(name, None)
                else:
                    ref = None
                    obj.add_module(name, None)
                entries.append((name, what, ref))
            if entries and d.draw(st.booleans()):  # delete one entry again
                i = d.draw(st.integers(0, len(entries) - 1))
                delattr(obj, entries[i][0])
                assert not hasattr(obj, entries[i][0]) or entries[i][1].endswith("N")
                del entries[i]
            if entries and d.draw(st.booleans()):
                self._reregister(obj, entries, d.draw(st.integers(0, len(entries) - 1)))
        elif kind in ("Sequential", "ModuleList"):
            refs = d.draw(st.lists(st.integers(0, len(self.nodes) - 1), min_size=1, max_size=3))
            mods = [self.nodes[r] for r in refs]
            obj = nn.Sequential(*mods) if kind == "Sequential" else nn.ModuleList(mods)
            entries = [(str(i), "m", r) for i, r in enumerate(refs)]
        elif kind == "ModuleDict":
            names = d.draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3))
            refs = [self._child() for _ in names]
            obj = nn.ModuleDict(OrderedDict((n, self.nodes[r]) for n, r in zip(names, refs)))
            entries = [(n, "m", r) for n, r in zip(names, refs)]
        elif kind == "ParameterList":
            refs = [self._param() for _ in range(d.draw(st.integers(0, 3)))]
            obj = nn.ParameterList([self.params[r] for r in refs])
            entries = [(str(i), "p", r) for i, r in enumerate(refs)]
        else:
            names = d.draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
            refs = [self._param() for _ in names]
            obj = nn.ParameterDict(OrderedDict((n, self.params[r]) for n, r in zip(names, refs)))
            entries = [(n, "p", r) for n, r in zip(names, refs)]
        self.nodes.append(obj)
        self.spec.append(entries)
        self.kinds.append(kind)

    def _reregister(self, obj, entries, i):
        """Registers entry ``i`` again, with a new value of its registry: PyTorch keeps it
        in its place. Registering it as another kind (or over the plain attribute
        ``tag``) is a KeyError that changes nothing."""
        d = self.data
        name, what, _ = entries[i]
        how = d.draw(st.booleans())
        with pytest.raises(KeyError, match="already exists"):
            if what[0] == "p":
                obj.register_buffer(name, fg.zeros([1]))
            else:
                obj.register_parameter(name, nn.Parameter(fg.zeros([1])))
        with pytest.raises(KeyError, match="already exists"):
            obj.add_module("tag", None)
        if what[0] == "p":
            ref = self._param()
            setattr(obj, name, self.params[ref]) if how else obj.register_parameter(
                name, self.params[ref]
            )
        elif what[0] == "b":
            persistent = d.draw(st.booleans())
            ref = (self._buffer(), persistent)
            obj.register_buffer(name, self.buffers[ref[0]], persistent=persistent)
        else:
            if not self.nodes:
                return
            ref = self._child()
            setattr(obj, name, self.nodes[ref]) if how else obj.add_module(name, self.nodes[ref])
        entries[i] = (name, what[0], ref)

    # ---- the reference walks (PyTorch's algorithms on the specification)
    def named_modules(self, nid=None, prefix="", remove_duplicate=True, memo=None):
        nid = self.rid if nid is None else nid
        memo = set() if memo is None else memo
        if remove_duplicate:
            if nid in memo:
                return
            memo.add(nid)
        yield prefix, nid
        for name, kind, ref in self.spec[nid]:
            if kind == "m":
                yield from self.named_modules(ref, join(prefix, name), remove_duplicate, memo)

    def named_members(self, what, prefix="", recurse=True, remove_duplicate=True, nid=None):
        nid = self.rid if nid is None else nid
        mods = self.named_modules(nid, prefix, remove_duplicate) if recurse else [(prefix, nid)]
        memo = set()
        for mp, m in mods:
            for name, kind, ref in self.spec[m]:
                if kind != what:
                    continue
                key = ref if what == "p" else ref[0]
                if key in memo:
                    continue
                if remove_duplicate:
                    memo.add(key)
                yield join(mp, name), key

    def named_children(self, nid):
        seen = set()
        for name, kind, ref in self.spec[nid]:
            if kind == "m" and ref not in seen:
                seen.add(ref)
                yield name, ref

    def state_walk(self, nid=None, prefix=""):
        """``(key, nid, name, kind, id)`` of every state_dict entry, in order."""
        nid = self.rid if nid is None else nid
        for name, kind, ref in self.spec[nid]:
            if kind == "p":
                yield prefix + name, nid, name, "p", ref
        for name, kind, ref in self.spec[nid]:
            if kind == "b" and ref[1]:
                yield prefix + name, nid, name, "b", ref[0]
        for name, kind, ref in self.spec[nid]:
            if kind == "m":
                yield from self.state_walk(ref, f"{prefix}{name}.")

    def reach(self, nid):
        return {m for _, m in self.named_modules(nid)}

    def tensor(self, kind, i):
        return self.params[i] if kind == "p" else self.buffers[i]


def same_items(got, want, what):
    """``got``: (name, object) pairs; ``want``: (name, object) pairs; same names, order
    and identities."""
    got = list(got)
    assert [n for n, _ in got] == [n for n, _ in want], what
    for (n, g), (_, w) in zip(got, want):
        assert g is w, f"{what}: {n}"


def repr_ref(tree, nid):
    """PyTorch's ``Module.__repr__`` (torch/nn/modules/module.py), on the specification."""
    obj = tree.nodes[nid]
    if tree.kinds[nid] == "ModuleList":  # ModuleList.__repr__: runs of equal reprs once
        runs = []
        for i, (_, _, ref) in enumerate(tree.spec[nid]):
            r = repr_ref(tree, ref)
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}" for a, b, r in runs]
        body = "\n  ".join(line.replace("\n", "\n  ") for line in lines)
        return f"ModuleList(\n  {body}\n)"
    extra = obj.extra_repr()
    extra_lines = extra.split("\n") if extra else []
    child = []
    for name, kind, ref in tree.spec[nid]:
        if kind in ("m", "mN"):
            body = "None" if kind == "mN" else repr_ref(tree, ref)
            child.append(f"({name}): " + body.replace("\n", "\n  "))
    lines = extra_lines + child
    main = type(obj).__name__ + "("
    if lines:
        if len(extra_lines) == 1 and not child:
            main += extra_lines[0]
        else:
            main += "\n  " + "\n  ".join(lines) + "\n"
    return main + ")"


@FUZZ
@given(st.data())
def test_module_tree_traversal(data):
    t = Tree(data)
    root = t.root
    P = t.params
    CALLS["module.walk"] += 1
    same_items(root.named_modules(), [(n, t.nodes[i]) for n, i in t.named_modules()], "modules")
    assert [m for m in root.modules()] == [t.nodes[i] for _, i in t.named_modules()]
    ref = [(n, t.nodes[i]) for n, i in t.named_modules(prefix="pre")]
    same_items(root.named_modules(prefix="pre"), ref, "named_modules(prefix)")
    ref = [(n, t.nodes[i]) for n, i in t.named_modules(remove_duplicate=False)]
    same_items(root.named_modules(remove_duplicate=False), ref, "named_modules(dup)")

    CALLS["module.parameters"] += 1
    same_items(root.named_parameters(), [(n, P[i]) for n, i in t.named_members("p")], "np")
    assert list(root.parameters()) == [P[i] for _, i in t.named_members("p")]
    for prefix in ("", "top"):
        for recurse in (True, False):
            want = [(n, P[i]) for n, i in t.named_members("p", prefix, recurse)]
            same_items(root.named_parameters(prefix, recurse), want, f"np {prefix} {recurse}")
            assert list(root.parameters(recurse)) == [p for _, p in want]
    want = [(n, P[i]) for n, i in t.named_members("p", remove_duplicate=False)]
    same_items(root.named_parameters(remove_duplicate=False), want, "np(dup)")

    CALLS["module.buffers"] += 1
    B = t.buffers
    same_items(root.named_buffers(), [(n, B[i]) for n, i in t.named_members("b")], "nb")
    want = [(n, B[i]) for n, i in t.named_members("b", "pp", False)]
    same_items(root.named_buffers("pp", False), want, "nb(prefix, recurse=False)")
    want = [(n, B[i]) for n, i in t.named_members("b", remove_duplicate=False)]
    same_items(root.named_buffers(remove_duplicate=False), want, "nb(dup)")
    assert list(root.buffers()) == [B[i] for _, i in t.named_members("b")]

    CALLS["module.children"] += 1
    ref = [(n, t.nodes[i]) for n, i in t.named_children(t.rid)]
    same_items(root.named_children(), ref, "named_children")
    assert list(root.children()) == [m for _, m in ref]

    CALLS["module.state_dict"] += 1
    walk = list(t.state_walk())
    sd = root.state_dict()
    assert list(sd) == [k for k, *_ in walk]
    for key, _, _, kind, i in walk:
        src = t.tensor(kind, i)
        assert not sd[key].requires_grad, key
        assert sd[key].dtype == src.dtype and list(sd[key].shape) == list(src.shape)
        np.testing.assert_array_equal(npy(sd[key]), npy(src))
    kv = root.state_dict(keep_vars=True)
    for key, _, _, kind, i in walk:
        assert kv[key] is t.tensor(kind, i), key
    assert list(root.state_dict(prefix="m.")) == ["m." + k for k, *_ in walk]

    CALLS["module.get"] += 1
    for name, i in t.named_modules():
        assert root.get_submodule(name) is t.nodes[i]
    for name, i in t.named_members("p"):
        assert root.get_parameter(name) is P[i]
    for name, i in t.named_members("b"):
        assert root.get_buffer(name) is B[i]
        with pytest.raises(AttributeError):
            root.get_parameter(name)
    for name, _ in t.named_members("p"):
        with pytest.raises(AttributeError):
            root.get_buffer(name)
    for bad in ("zz_missing", "a.zz_missing.b"):
        for fn in (root.get_submodule, root.get_parameter, root.get_buffer):
            with pytest.raises(AttributeError):
                fn(bad)

    CALLS["module.apply"] += 1
    order = []
    assert root.apply(lambda m: order.append(m)) is root

    def apply_ref(nid):
        for _, c in t.named_children(nid):
            yield from apply_ref(c)
        yield t.nodes[nid]

    assert order == list(apply_ref(t.rid))

    CALLS["module.dir"] += 1
    for i, obj in enumerate(t.nodes):
        if t.kinds[i] == "custom":
            assert {n for n, _, _ in t.spec[i]} <= set(dir(obj))

    # repr: PyTorch's layout; the parameter containers print in their own way
    def plain(nid):
        if t.kinds[nid] in ("ParameterList", "ParameterDict"):
            return False
        return all(plain(r) for _, k, r in t.spec[nid] if k == "m")

    if plain(t.rid):
        CALLS["module.repr"] += 1
        assert repr(root) == repr_ref(t, t.rid)


@FUZZ
@given(st.data())
def test_module_tree_modes_grads_casts(data):
    t = Tree(data)
    root, P = t.root, t.params
    reach_p = lambda nid: {i for _, i in t.named_members("p", nid=nid)}  # noqa: E731
    nid = data.draw(st.sampled_from(sorted(t.reach(t.rid))))

    CALLS["module.train"] += 1
    assert root.eval() is root
    assert all(not t.nodes[i].training for i in t.reach(t.rid))
    t.nodes[nid].train()
    for i in t.reach(t.rid):
        assert t.nodes[i].training == (i in t.reach(nid)), i
    with pytest.raises(ValueError):
        root.train("yes")
    root.train(False)
    assert not t.nodes[nid].training

    CALLS["module.requires_grad_"] += 1
    assert t.nodes[nid].requires_grad_(False) is t.nodes[nid]
    for _, i in t.named_members("p"):
        assert P[i].requires_grad == (i not in reach_p(nid))
    root.requires_grad_()
    assert all(P[i].requires_grad for _, i in t.named_members("p"))

    CALLS["module.zero_grad"] += 1
    ids = [i for _, i in t.named_members("p")]
    if ids:
        loss = sum(((P[i] * (k + 1.0)).sum() for k, i in enumerate(ids)), fg.tensor(0.0))
        loss.backward()
    set_to_none = data.draw(st.booleans())
    t.nodes[nid].zero_grad(set_to_none=set_to_none)
    for k, i in enumerate(ids):
        g = P[i].grad
        if i in reach_p(nid):
            if set_to_none:
                assert g is None
            else:
                np.testing.assert_array_equal(npy(g), np.zeros(P[i].shape))
        else:
            np.testing.assert_array_equal(npy(g), np.full(P[i].shape, k + 1.0))

    CALLS["module.cast"] += 1
    before_p = [(n, i, npy(P[i]), P[i].requires_grad) for n, i in t.named_members("p")]
    bvals = [(npy(b), b.dtype.name) for b in t.buffers]
    before_b = [(n, i) for n, i in t.named_members("b", remove_duplicate=False)]
    how = data.draw(st.sampled_from(["double", "float", "half", "to"]))
    want = {"double": "float64", "float": "float32", "half": "float16", "to": "float64"}[how]
    out = root.to(fg.float64) if how == "to" else getattr(root, how)()
    assert out is root
    got = list(root.named_parameters())
    # documented: the casts make new Parameter objects; sharing is kept
    assert [n for n, _ in got] == [n for n, *_ in before_p]
    for (n, p), (_, _, v, rg) in zip(got, before_p):
        assert isinstance(p, nn.Parameter) and p.dtype.name == want, n
        assert p.requires_grad == rg
        np.testing.assert_array_equal(npy(p), v.astype(want))
    for name, _ in t.named_members("p"):
        assert root.get_parameter(name) is dict(got)[name]
    shared = {}
    for key, nid2, name, kind, i in t.state_walk():
        if kind == "p":
            obj = t.nodes[nid2]._parameters[name]
            assert shared.setdefault(i, obj) is obj, f"{key}: sharing lost"
    # PyTorch converts each buffer entry on its own: a shared floating buffer becomes one
    # tensor per entry; an int64 one (or one already of the target dtype) stays shared
    ref_b, memo = [], set()
    for mp, m in t.named_modules():
        for name, kind, ref in t.spec[m]:
            if kind == "b":
                key = ref[0] if bvals[ref[0]][1] in ("int64", want) else (m, name)
                if key not in memo:
                    memo.add(key)
                    ref_b.append((join(mp, name), ref[0]))
    gotb = list(root.named_buffers())
    assert [n for n, _ in gotb] == [n for n, _ in ref_b]
    for n, b in gotb:
        v, dt = bvals[dict(ref_b)[n]] if n in dict(ref_b) else bvals[dict(before_b)[n]]
        dt2 = dt if dt == "int64" else want
        assert b.dtype.name == dt2, n
        np.testing.assert_array_equal(npy(b), v.astype(dt2))


@FUZZ
@given(st.data())
def test_load_state_dict(data):
    t = Tree(data)
    root = t.root
    walk = list(t.state_walk())
    keys = [k for k, *_ in walk]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    sd = OrderedDict()
    for key, _, _, kind, i in walk:
        src = t.tensor(kind, i)
        v = (npy(src) + rng.integers(1, 9, size=src.shape)).astype(src.dtype.name)
        sd[key] = fg.tensor(v, dtype=src.dtype.name)
    drop = data.draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []
    for k in drop:
        del sd[k]
    extra = data.draw(st.lists(st.sampled_from(["zz", "a.zz", "0.zz", "lay.q.zz"]), unique=True))
    # a non-persistent buffer's key is unexpected too
    extra += [n for n, i in t.named_members("b") if n not in keys][:1]
    for k in extra:
        sd[k] = fg.zeros([1])
    # PyTorch's load walk: missing keys per module in walk order; unexpected keys per
    # module (state dict order) for names that are neither entries nor children
    missing = [k for k in keys if k not in sd]
    unexpected = []

    def unexp(nid, prefix, local):
        own = {n for n, k, r in t.spec[nid] if k == "p" or (k == "b" and r[1])}
        mods = {n for n, k, _ in t.spec[nid] if k in ("m", "mN")}
        for key in local:
            head, dot, _ = key[len(prefix) :].partition(".")
            if (head not in mods) if dot else (head not in own):
                unexpected.append(key)
        for name, kind, ref in t.spec[nid]:
            if kind == "m":
                cp = f"{prefix}{name}."
                unexp(ref, cp, [k for k in local if k.startswith(cp)])

    unexp(t.rid, "", list(sd))
    strict = data.draw(st.booleans())
    assign = data.draw(st.booleans())
    CALLS["module.load_state_dict"] += 1
    if strict and (missing or unexpected):
        with pytest.raises(RuntimeError):
            root.load_state_dict(sd, strict=True, assign=assign)
        return  # documented: the module is left as it was
    res = root.load_state_dict(sd, strict=strict, assign=assign)
    assert res.missing_keys == missing and res.unexpected_keys == unexpected
    assert tuple(res) == (missing, unexpected)
    # the value each entry ends with: copies write the shared tensor (the last key
    # loaded wins); assign replaces each owner's entry (its last key wins)
    last, last_key = {}, {}
    for key, nid, name, kind, i in walk:
        if key in sd:
            last[(nid, name) if assign else (kind, i)] = npy(sd[key])
            last_key[(nid, name)] = key
    for key, nid, name, kind, i in walk:
        owner = t.nodes[nid]
        cur = (owner._parameters if kind == "p" else owner._buffers)[name]
        want = last.get((nid, name) if assign else (kind, i))
        if want is None:
            continue
        np.testing.assert_array_equal(npy(cur), want, err_msg=key)
        if kind == "p":
            assert isinstance(cur, nn.Parameter) and cur.requires_grad, key
        if assign and kind == "b" and (nid, name) in last_key:
            assert cur is sd[last_key[(nid, name)]], key  # the given tensor itself
        if not assign:
            assert cur is t.tensor(kind, i), key
    # a shape mismatch raises, strict or not (PyTorch: RuntimeError)
    if walk:
        key, _, _, kind, i = walk[data.draw(st.integers(0, len(walk) - 1))]
        bad = dict(sd)
        bad[key] = fg.zeros(list(t.tensor(kind, i).shape) + [2])
        with pytest.raises(RuntimeError):
            root.load_state_dict(bad, strict=data.draw(st.booleans()))


# ---------------------------------------------------------------- containers
class Affine(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * 2.0 + self.k


def compose(mods, x):
    for m in mods:
        x = x * 2.0 + m.k
    return x


@FUZZ
@given(st.sampled_from(["Sequential", "ModuleList"]), st.data())
def test_sequential_modulelist_ops(kind, data):
    counter = iter(range(1000))
    new = lambda: Affine(float(next(counter)))  # noqa: E731
    n0 = data.draw(st.integers(0, 4))
    mods = [new() for _ in range(n0)]
    named = kind == "Sequential" and n0 and data.draw(st.booleans())
    if named:
        names = [f"m{i}" for i in range(n0)]
        obj = nn.Sequential(OrderedDict(zip(names, mods)))
    else:
        names = [str(i) for i in range(n0)]
        obj = nn.Sequential(*mods) if kind == "Sequential" else nn.ModuleList(mods)

    def numeric():
        return names == [str(i) for i in range(len(names))]

    def put(m):
        # PyTorch's append: add_module(str(len(self)), m); in a named Sequential that
        # name may exist already, and the entry is then replaced in its place
        key = str(len(mods))
        if key in names:
            mods[names.index(key)] = m
        else:
            mods.append(m)
            names.append(key)

    ops = ["append", "extend", "insert", "del", "delslice", "set", "pop"]
    for _ in range(data.draw(st.integers(1, 8))):
        n = len(mods)
        op = data.draw(st.sampled_from(ops))
        CALLS[f"{kind}.{op}"] += 1
        if op == "append":
            m = new()
            assert obj.append(m) is obj
            put(m)
        elif op == "extend":
            more = [new() for _ in range(data.draw(st.integers(0, 2)))]
            obj.extend(more)
            for m in more:
                put(m)
        elif op == "pop" and n:
            i = data.draw(st.integers(-n, n - 1))
            assert obj.pop(i) is mods.pop(i)
            names = [str(j) for j in range(n - 1)]
        elif op == "insert":
            if not numeric():
                continue  # PyTorch's insert assumes the names "0", "1", ...
            lo = -n if kind == "Sequential" else 0  # (ModuleList: non-negative only)
            i = data.draw(st.integers(lo, n))
            m = new()
            obj.insert(i, m)
            mods.insert(i, m)
            names = [str(j) for j in range(n + 1)]
        elif op == "del" and n:
            i = data.draw(st.integers(-n, n - 1))
            del obj[i]
            del mods[i]
            names = [str(j) for j in range(n - 1)]
        elif op == "delslice":
            a, b = data.draw(st.integers(-n - 1, n + 1)), data.draw(st.integers(-n - 1, n + 1))
            s = slice(a, b, data.draw(st.sampled_from([None, 1, 2, -1])))
            del obj[s]
            del mods[s]
            names = [str(j) for j in range(len(mods))]
        elif op == "set" and n:
            i = data.draw(st.integers(-n, n - 1))
            m = new()
            obj[i] = m
            mods[i] = m
        assert len(obj) == len(mods)
        assert list(obj) == mods
        assert list(obj._modules) == names
        assert [k for k, _ in obj.named_children()] == names
        for i in range(-len(mods), len(mods)):
            assert obj[i] is mods[i]
        with pytest.raises(IndexError):
            obj[len(mods)]
        a, b = data.draw(st.integers(-5, 5)), data.draw(st.integers(-5, 5))
        s = slice(a, b, data.draw(st.sampled_from([None, 1, 2, -1])))
        sub = obj[s]
        assert type(sub) is type(obj) and list(sub) == mods[s]
        # Sequential slices keep the names, ModuleList slices renumber
        want = names[s] if kind == "Sequential" else [str(j) for j in range(len(mods[s]))]
        assert list(sub._modules) == want
        if kind == "Sequential":
            x = fg.tensor([1.0, -2.0], dtype="float64")
            np.testing.assert_array_equal(npy(obj(x)), compose(mods, npy(x)))


# ---------------------------------------------------------------- forward hooks
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(fg.tensor([1.5, -0.5], dtype="float64"))
        self.fail = False

    def forward(self, x, scale=1.0):
        if self.fail:
            raise KeyError("forward failed")
        return x * self.w * scale


@FUZZ
@given(st.data())
def test_forward_hooks(data):
    m = Scaled()
    log = []
    pre, post = [], []  # reference registries: [hid, fn-spec], in call order
    handles = {}
    n_hooks = data.draw(st.integers(0, 6))
    for hid in range(n_hooks):
        is_pre = data.draw(st.booleans())
        prepend = data.draw(st.booleans())
        kw = data.draw(st.booleans())
        ret = data.draw(st.sampled_from([None, "add", "kw"] if is_pre else [None, "mul"]))
        always = (not is_pre) and data.draw(st.booleans())
        spec = dict(hid=hid, kw=kw, ret=ret, always=always)
        if is_pre:

            def hook(mod, args, *rest, spec=spec):
                log.append(("pre", spec["hid"], len(rest)))
                assert mod is m
                if spec["ret"] == "add":
                    new = (args[0] + 1.0,)
                    return (new, rest[0]) if spec["kw"] else new[0]
                if spec["ret"] == "kw" and spec["kw"]:
                    return args, {**rest[0], "scale": rest[0].get("scale", 1.0) * 3.0}
                return None

            handles[hid] = m.register_forward_pre_hook(hook, prepend=prepend, with_kwargs=kw)
            (pre.insert(0, spec) if prepend else pre.append(spec))
        else:

            def hook(mod, args, *rest, spec=spec):
                out = rest[-1]
                log.append(("post", spec["hid"], len(rest)))
                if spec["ret"] == "mul" and out is not None:
                    return out * 2.0
                return None

            handles[hid] = m.register_forward_hook(
                hook, prepend=prepend, with_kwargs=kw, always_call=always
            )
            (post.insert(0, spec) if prepend else post.append(spec))
    for hid in data.draw(
        st.lists(st.sampled_from(range(n_hooks)), unique=True) if n_hooks else st.just([])
    ):
        handles[hid].remove()
        handles[hid].remove()  # a second remove does nothing
        pre = [s for s in pre if s["hid"] != hid]
        post = [s for s in post if s["hid"] != hid]
    x0 = np.array([0.5, 2.0])
    scale = data.draw(st.sampled_from([None, 2.0]))
    fail = data.draw(st.booleans())
    m.fail = fail
    # the reference run
    x, kwargs, want_log = x0.copy(), ({} if scale is None else {"scale": scale}), []
    for s in pre:
        want_log.append(("pre", s["hid"], 1 if s["kw"] else 0))
        if s["ret"] == "add":
            x = x + 1.0
        elif s["ret"] == "kw" and s["kw"]:
            kwargs = {**kwargs, "scale": kwargs.get("scale", 1.0) * 3.0}
    CALLS["module.forward_hooks"] += 1
    call_kw = {} if scale is None else {"scale": scale}
    if fail:
        for s in post:
            if s["always"]:
                want_log.append(("post", s["hid"], 2 if s["kw"] else 1))
        with pytest.raises(KeyError):
            m(fg.tensor(x0, dtype="float64"), **call_kw)
        assert log == want_log
        return
    out = x * np.array([1.5, -0.5]) * kwargs.get("scale", 1.0)
    for s in post:
        want_log.append(("post", s["hid"], 2 if s["kw"] else 1))
        if s["ret"] == "mul":
            out = out * 2.0
    got = m(fg.tensor(x0, dtype="float64"), **call_kw)
    assert log == want_log
    np.testing.assert_allclose(npy(got), out, rtol=1e-15)


# ---------------------------------------------------------------- backward hooks
class TwoIn(nn.Module):
    """``(x * w + y.sin(), x * y)`` with a parameter ``w``."""

    def __init__(self, w):
        super().__init__()
        self.w = nn.Parameter(fg.tensor(w, dtype="float64"))

    def forward(self, x, y):
        return x * self.w + y.sin(), x * y


@FUZZ
@given(st.data())
def test_full_backward_hooks(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(1, 4))
    w, xv, yv, g0, g1 = (rng.standard_normal(n) for _ in range(5))
    m = TwoIn(w)
    x = fg.tensor(xv, dtype="float64", requires_grad=True)
    y_grad = data.draw(st.booleans())
    y = fg.tensor(yv, dtype="float64", requires_grad=y_grad)
    pre_mult = data.draw(st.sampled_from([None, 3.0]))
    post_mult = data.draw(st.sampled_from([None, -2.0]))
    seen = {}

    def pre_hook(mod, grad_output):
        assert mod is m
        seen["pre"] = [npy(g) for g in grad_output]
        if pre_mult is not None:
            return tuple(g * pre_mult for g in grad_output)

    def full_hook(mod, grad_input, grad_output):
        seen["gi"] = [None if g is None else npy(g) for g in grad_input]
        seen["go"] = [npy(g) for g in grad_output]
        if post_mult is not None:
            return tuple(None if g is None else g * post_mult for g in grad_input)

    h1 = m.register_full_backward_pre_hook(pre_hook)
    h2 = m.register_full_backward_hook(full_hook)
    removed = data.draw(st.booleans())
    if removed:
        h1.remove()
        h2.remove()
        h2.remove()
    a, b = m(x, y)
    ((a * fg.tensor(g0)).sum() + (b * fg.tensor(g1)).sum()).backward()
    CALLS["module.backward_hooks"] += 1
    k = 1.0 if removed or pre_mult is None else pre_mult
    q = 1.0 if removed or post_mult is None else post_mult
    G0, G1 = g0 * k, g1 * k  # grad_output after the pre-hook
    dx = G0 * w + G1 * yv
    dy = G0 * np.cos(yv) + G1 * xv
    np.testing.assert_allclose(npy(x.grad), dx * q, rtol=1e-12, atol=1e-14)
    if y_grad:
        np.testing.assert_allclose(npy(y.grad), dy * q, rtol=1e-12, atol=1e-14)
    # the parameter's gradient sees the pre-hook's replacement only
    np.testing.assert_allclose(npy(m.w.grad), G0 * xv, rtol=1e-12, atol=1e-14)
    if removed:
        assert not seen
        return
    np.testing.assert_allclose(seen["pre"][0], g0, rtol=1e-15)
    np.testing.assert_allclose(seen["pre"][1], g1, rtol=1e-15)
    np.testing.assert_allclose(seen["go"][0], G0, rtol=1e-15)
    np.testing.assert_allclose(seen["go"][1], G1, rtol=1e-15)
    np.testing.assert_allclose(seen["gi"][0], dx, rtol=1e-12, atol=1e-14)
    if y_grad:
        np.testing.assert_allclose(seen["gi"][1], dy, rtol=1e-12, atol=1e-14)
    else:
        assert seen["gi"][1] is None


def test_backward_hook_no_input_requires_grad():
    m = TwoIn(np.array([2.0]))
    got = {}
    m.register_full_backward_hook(lambda mod, gi, go: got.update(gi=gi, go=go))
    a, _ = m(fg.tensor([1.0], dtype="float64"), fg.tensor([0.5], dtype="float64"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a.sum().backward()
    assert got["gi"] == (None, None)
    np.testing.assert_array_equal(npy(m.w.grad), [1.0])


# ---------------------------------------------------------------- state-dict hooks
def test_state_dict_hooks():
    CALLS["module.state_dict_hooks"] += 1
    inner = nn.Linear(2, 2)
    outer = nn.Sequential(OrderedDict(lin=inner, act=nn.ReLU()))
    calls = []
    h = inner.register_state_dict_pre_hook(lambda m, prefix, kv: calls.append((prefix, kv)))
    outer.state_dict(keep_vars=True)
    assert calls == [("lin.", True)]
    h.remove()
    h.remove()
    outer.state_dict()
    assert calls == [("lin.", True)]

    def post(m, sd, prefix, meta):
        sd[prefix + "extra"] = fg.zeros([1])

    inner.register_state_dict_post_hook(post)
    assert list(outer.state_dict()) == ["lin.weight", "lin.bias", "lin.extra"]
    if hasattr(outer, "_register_state_dict_hook"):
        outer._register_state_dict_hook(lambda m, sd, prefix, meta: {"only": fg.zeros([1])})
        assert list(outer.state_dict()) == ["only"]

    # a load pre-hook renames an old key; a post-hook clears the missing keys
    target = nn.Sequential(OrderedDict(lin=nn.Linear(2, 2)))
    seen = []

    def rename(sd, prefix, meta, strict, missing, unexpected, errors):
        seen.append(prefix)
        if prefix + "old_w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "old_w")

    if hasattr(target.lin, "_register_load_state_dict_pre_hook"):
        target.lin._register_load_state_dict_pre_hook(rename)
        w = fg.tensor(np.arange(4.0).reshape(2, 2), dtype="float32")
        res = target.load_state_dict({"lin.old_w": w}, strict=False)
        assert seen == ["lin."]
        assert res.missing_keys == ["lin.bias"] and res.unexpected_keys == []
        np.testing.assert_array_equal(npy(target.lin.weight), np.arange(4.0).reshape(2, 2))
    target.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
    res = target.load_state_dict({"lin.weight": fg.zeros([2, 2])}, strict=True)
    assert res.missing_keys == []


def test_registration_none_and_errors():
    CALLS["module.register"] += 1
    m = Custom()
    m.register_parameter("p", None)
    m.register_buffer("b", None)
    m.add_module("c", None)
    assert m.p is None and m.b is None and m.c is None
    assert list(m.state_dict()) == [] and list(m.named_parameters()) == []
    m.p = nn.Parameter(fg.zeros([2]))
    m.b = fg.ones([1])
    assert list(m.state_dict()) == ["p", "b"]
    with pytest.raises(TypeError):
        m.p = fg.zeros([2])  # a plain tensor for a parameter entry
    with pytest.raises(TypeError):
        m.c = 3
    for bad in ("", "x.y"):
        with pytest.raises(KeyError):
            m.register_parameter(bad, None)
        with pytest.raises(KeyError):
            m.register_buffer(bad, None)
        with pytest.raises(KeyError):
            m.add_module(bad, None)
    with pytest.raises(TypeError):
        m.register_parameter("q", fg.zeros([1]))
    del m.p
    assert not hasattr(m, "p") and list(m.state_dict()) == ["b"]


# ---------------------------------------------------------------- normalisation: references
def affine(y, w, b, shape):
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def ref_batch(x, eps, w, b, cdim=1):
    """PyTorch's training batch norm: ``(y, batch mean, biased var, count)``."""
    axes = tuple(d for d in range(x.ndim) if d != cdim)
    shape = [1] * x.ndim
    shape[cdim] = x.shape[cdim]
    mean, var = x.mean(axes), x.var(axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return affine(y, w, b, shape), mean, var, x.size // x.shape[cdim]


def ref_with(x, mean, var, eps, w, b, cdim=1):
    shape = [1] * x.ndim
    shape[cdim] = x.shape[cdim]
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return affine(y, w, b, shape)


TOL = {"float64": dict(rtol=1e-9, atol=1e-10), "float32": dict(rtol=2e-4, atol=2e-4)}


def close(got, want, dtype, what):
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}"
    np.testing.assert_allclose(npy(got).astype(np.float64), want, err_msg=what, **TOL[dtype])


def set_affine(mod, rng, names=("weight", "bias")):
    """Random values into the module's affine parameters; returns them (None if absent)."""
    out = []
    for name in names:
        p = getattr(mod, name, None)
        if p is None:
            out.append(None)
            continue
        v = rng.standard_normal(list(p.shape)) + (1.0 if name in ("weight", "scale") else 0)
        with fg.no_grad():
            p.copy_(fg.tensor(v.astype(p.dtype.name), dtype=p.dtype.name))
        out.append(npy(p).astype(np.float64))
    return out


def batch(rng, shape, dtype):
    offs = rng.standard_normal([1, shape[1]] + [1] * (len(shape) - 2)) * 2
    x = (rng.standard_normal(shape) * rng.uniform(0.5, 2) + offs).astype(dtype)
    return x, fg.tensor(x, dtype=dtype)


# ---------------------------------------------------------------- batch norm
@FUZZ
@given(st.sampled_from([1, 2, 3]), st.sampled_from(["float32", "float64"]), st.data())
def test_batch_norm_running_state(nd, dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    c = data.draw(st.integers(1, 3))
    momentum = data.draw(st.sampled_from([0.1, 0.5, 1.0, 0.0, None]))
    aff = data.draw(st.booleans())
    track = data.draw(st.booleans())
    use_bias = data.draw(st.booleans())
    eps = data.draw(st.sampled_from([1e-5, 1e-3]))
    cls = {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d}[nd]
    bn = cls(c, eps, momentum, aff, track, dtype=dtype, bias=use_bias)
    keys = ["weight"] * aff + ["bias"] * (aff and use_bias)
    keys += ["running_mean", "running_var", "num_batches_tracked"] * track
    assert list(bn.state_dict()) == keys
    w, b = set_affine(bn, rng)
    rm, rv, nbt = np.zeros(c), np.ones(c), 0
    for step in range(data.draw(st.integers(1, 5))):
        train = data.draw(st.booleans()) if step else True
        bn.train(train)
        spatial = [] if nd == 1 and data.draw(st.booleans()) else [data.draw(st.integers(1, 3))]
        spatial = spatial * (1 if nd == 1 else nd)
        x, t = batch(rng, [data.draw(st.integers(1, 4)), c] + spatial, dtype)
        x64 = x.astype(np.float64)
        if (train or not track) and x.size // c == 1:  # batch statistics of one value
            with pytest.raises(ValueError):
                bn(t)
            nbt += train and track  # PyTorch counts the batch before the check raises
            continue
        CALLS["BatchNorm"] += 1
        if train or not track:
            want, mean, var, n = ref_batch(x64, eps, w, b)
        else:
            want = ref_with(x64, rm, rv, eps, w, b)
        close(bn(t), want, dtype, f"BatchNorm{nd}d step {step}")
        if train and track:
            nbt += 1
            f = 1.0 / nbt if momentum is None else momentum
            rm = (1 - f) * rm + f * mean
            rv = (1 - f) * rv + f * var * n / (n - 1)
        if track:
            close(bn.running_mean, rm, dtype, "running_mean")
            close(bn.running_var, rv, dtype, "running_var")
            assert bn.num_batches_tracked.dtype.name == "int64"
            assert int(bn.num_batches_tracked) == nbt
        else:
            assert bn.running_mean is None and bn.num_batches_tracked is None
    # gradients of the training-mode forward (float64), input and affine parameters
    bn64 = cls(c, eps, momentum, True, track).double().train()
    shape = [2, c] + [2] * (nd if nd > 1 else data.draw(st.integers(0, 1)))
    xg = fg.tensor(batch(rng, shape, "float64")[0], requires_grad=True)
    wg = fg.tensor(rng.standard_normal(c) + 1, requires_grad=True)
    bg = fg.tensor(rng.standard_normal(c), requires_grad=True)
    CALLS["gradcheck"] += 1
    assert gradcheck(lambda u: bn64(u), (xg,), eps=1e-6, atol=1e-6, rtol=1e-4)
    CALLS["gradcheck"] += 1
    fn = lambda u, v, s: F.batch_norm(u, None, None, v, s, True, 0.1, eps)  # noqa: E731
    assert gradcheck(fn, (xg, wg, bg), eps=1e-6, atol=1e-6, rtol=1e-4)


# ---------------------------------------------------------------- instance norm
@FUZZ
@given(st.sampled_from([1, 2, 3]), st.sampled_from(["float32", "float64"]), st.data())
def test_instance_norm_running_state(nd, dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    c = data.draw(st.integers(1, 3))
    momentum = data.draw(st.sampled_from([0.1, 0.5, 1.0, None]))
    f = 0.0 if momentum is None else momentum  # PyTorch passes None on as 0.0
    aff = data.draw(st.booleans())
    track = data.draw(st.booleans())
    eps = data.draw(st.sampled_from([1e-5, 1e-3]))
    cls = {1: nn.InstanceNorm1d, 2: nn.InstanceNorm2d, 3: nn.InstanceNorm3d}[nd]
    m = cls(c, eps, momentum, aff, track, dtype=dtype)
    keys = ["weight", "bias"] * aff + ["running_mean", "running_var", "num_batches_tracked"] * track
    assert list(m.state_dict()) == keys
    w, b = set_affine(m, rng)
    rm, rv = np.zeros(c), np.ones(c)
    for step in range(data.draw(st.integers(1, 4))):
        train = data.draw(st.booleans()) if step else True
        m.train(train)
        spatial = [data.draw(st.integers(2, 3)) for _ in range(nd)]
        unbatched = data.draw(st.booleans())  # PyTorch's [C, *spatial]: a batch of one
        n = 1 if unbatched else data.draw(st.integers(1, 3))
        x, t = batch(rng, [n, c] + spatial, dtype)
        x64 = x.astype(np.float64)
        axes = tuple(range(2, x.ndim))
        shp = [n, c] + [1] * nd
        mean_nc, var_nc = x64.mean(axes), x64.var(axes)
        cnt = x64.size // (n * c)
        CALLS["InstanceNorm"] += 1
        if train or not track:
            want = (x64 - mean_nc.reshape(shp)) / np.sqrt(var_nc.reshape(shp) + eps)
            want = affine(want, w, b, [1, c] + [1] * nd)
        else:
            want = ref_with(x64, rm, rv, eps, w, b)
        if unbatched:
            close(m(t[0]), want[0], dtype, f"InstanceNorm{nd}d unbatched step {step}")
        else:
            close(m(t), want, dtype, f"InstanceNorm{nd}d step {step}")
        if train and track:
            rm = (1 - f) * rm + f * mean_nc.mean(0)
            rv = (1 - f) * rv + f * (var_nc * cnt / (cnt - 1)).mean(0)
        if track:
            close(m.running_mean, rm, dtype, "running_mean")
            close(m.running_var, rv, dtype, "running_var")
            assert int(m.num_batches_tracked) == 0  # PyTorch's instance norms never count
    xg = fg.tensor(batch(rng, [2, c] + [3] * nd if nd == 1 else [2, c] + [2] * nd, "float64")[0])
    xg.requires_grad = True
    wg = fg.tensor(rng.standard_normal(c) + 1, requires_grad=True)
    bg = fg.tensor(rng.standard_normal(c), requires_grad=True)
    CALLS["gradcheck"] += 1
    fn = lambda u, v, s: F.instance_norm(u, None, None, v, s, True, 0.1, eps)  # noqa: E731
    assert gradcheck(fn, (xg, wg, bg), eps=1e-6, atol=1e-6, rtol=1e-4)


# ---------------------------------------------------------------- group / layer / rms / lrn
@FUZZ
@given(st.sampled_from(["float32", "float64"]), st.data())
def test_group_norm(dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    g = data.draw(st.integers(1, 3))
    c = g * data.draw(st.integers(1, 3))
    aff, use_bias = data.draw(st.booleans()), data.draw(st.booleans())
    eps = data.draw(st.sampled_from([1e-5, 1e-2]))
    m = nn.GroupNorm(g, c, eps, aff, dtype=dtype, bias=use_bias)
    assert list(m.state_dict()) == ["weight"] * aff + ["bias"] * (aff and use_bias)
    w, b = set_affine(m, rng)
    for train in (True, False):
        m.train(train)
        spatial = data.draw(st.lists(st.integers(1, 3), max_size=2))
        n = data.draw(st.integers(1, 3))
        x, t = batch(rng, [n, c] + spatial, dtype)
        xg = x.astype(np.float64).reshape(n, g, -1)
        y = (xg - xg.mean(2, keepdims=True)) / np.sqrt(xg.var(2, keepdims=True) + eps)
        want = affine(y.reshape(x.shape), w, b, [1, c] + [1] * len(spatial))
        CALLS["GroupNorm"] += 1
        close(m(t), want, dtype, "GroupNorm")
    x = batch(rng, [2, c, 2], "float64")[0]
    CALLS["gradcheck"] += 1
    args = (fg.tensor(x), fg.tensor(rng.standard_normal(c) + 1), fg.tensor(rng.standard_normal(c)))
    for a in args:
        a.requires_grad = True
    assert gradcheck(lambda u, v, s: F.group_norm(u, g, v, s, eps), args, atol=1e-6, rtol=1e-4)


@FUZZ
@given(
    st.sampled_from(["LayerNorm", "RMSNorm"]), st.sampled_from(["float32", "float64"]), st.data()
)
def test_layer_rms_norm(name, dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    norm_shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    lead = data.draw(st.lists(st.integers(1, 3), max_size=2))
    ew = data.draw(st.booleans())
    if name == "LayerNorm":
        use_bias = data.draw(st.booleans())
        eps = data.draw(st.sampled_from([1e-5, 1e-2]))
        m = nn.LayerNorm(norm_shape, eps, ew, use_bias, dtype=dtype)
        assert list(m.state_dict()) == ["weight"] * ew + ["bias"] * (ew and use_bias)
    else:
        eps = data.draw(st.sampled_from([None, 1e-5, 1e-2]))
        m = nn.RMSNorm(norm_shape, eps, ew, dtype=dtype)
        assert list(m.state_dict()) == ["weight"] * ew
    w, b = set_affine(m, rng)
    axes = tuple(range(len(lead), len(lead) + len(norm_shape)))
    for train in (True, False):
        m.train(train)
        x, t = batch(rng, lead + norm_shape if lead else [1] + norm_shape, dtype)
        x64 = x.astype(np.float64)
        axes = tuple(range(x.ndim - len(norm_shape), x.ndim))
        if name == "LayerNorm":
            y = (x64 - x64.mean(axes, keepdims=True)) / np.sqrt(x64.var(axes, keepdims=True) + eps)
        else:
            e = np.finfo(dtype).eps if eps is None else eps
            y = x64 / np.sqrt((x64 * x64).mean(axes, keepdims=True) + e)
        want = affine(y, w, b, norm_shape)
        CALLS[name] += 1
        close(m(t), want, dtype, name)
    x = batch(rng, [2] + norm_shape, "float64")[0]
    CALLS["gradcheck"] += 1
    xs = fg.tensor(x, requires_grad=True)
    ws = fg.tensor(rng.standard_normal(norm_shape) + 1, requires_grad=True)
    bs = fg.tensor(rng.standard_normal(norm_shape), requires_grad=True)
    if name == "LayerNorm":
        fn = lambda u, v, s: F.layer_norm(u, norm_shape, v, s, 1e-3)  # noqa: E731
        assert gradcheck(fn, (xs, ws, bs), atol=1e-6, rtol=1e-4)
    else:
        assert gradcheck(lambda u, v: F.rms_norm(u, norm_shape, v, 1e-3), (xs, ws), atol=1e-6)


@FUZZ
@given(st.sampled_from(["float32", "float64"]), st.data())
def test_local_response_norm(dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    size = data.draw(st.integers(1, 5))
    alpha = data.draw(st.sampled_from([1e-4, 0.5, 2.0]))
    beta = data.draw(st.sampled_from([0.75, 0.5, 1.0]))
    k = data.draw(st.sampled_from([1.0, 2.0]))
    m = nn.LocalResponseNorm(size, alpha, beta, k)
    assert list(m.state_dict()) == []
    c = data.draw(st.integers(1, 5))
    spatial = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    x, t = batch(rng, [data.draw(st.integers(1, 2)), c] + spatial, dtype)
    x64 = x.astype(np.float64)
    sq = np.pad(x64 * x64, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * len(spatial))
    s = sum(sq[:, i : i + c] for i in range(size))
    want = x64 / (k + alpha * s / size) ** beta
    CALLS["LocalResponseNorm"] += 1
    close(m(t), want, dtype, "LocalResponseNorm")
    xg = fg.tensor(batch(rng, [1, c, 2], "float64")[0], requires_grad=True)
    CALLS["gradcheck"] += 1
    assert gradcheck(lambda u: m(u), (xg,), atol=1e-6, rtol=1e-4)


# ---------------------------------------------------------------- Paddle's norms
@FUZZ
@given(st.sampled_from([1, 2]), st.sampled_from(["float32", "float64"]), st.data())
def test_paddle_batch_norm(nd, dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    c = data.draw(st.integers(1, 3))
    momentum = data.draw(st.sampled_from([0.9, 0.5, 0.99, None]))
    eps = data.draw(st.sampled_from([1e-5, 1e-3]))
    ugs = data.draw(st.sampled_from([None, True, False]))
    last = data.draw(st.booleans())
    fmt = ("NLC" if last else "NCL") if nd == 1 else ("NHWC" if last else "NCHW")
    cls = nn.BatchNorm1D if nd == 1 else nn.BatchNorm2D
    kw = dict(epsilon=eps, data_format=fmt, use_global_stats=ugs, dtype=dtype)
    m = cls(c, **kw) if momentum is None else cls(c, momentum, **kw)
    keep = 0.9 if momentum is None else momentum
    assert list(m.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    w, b = set_affine(m, rng)
    rm, rv = np.zeros(c), np.ones(c)
    for step in range(data.draw(st.integers(1, 4))):
        train = data.draw(st.booleans()) if step else True
        m.train(train)
        n = data.draw(st.integers(1, 3))
        spatial = [data.draw(st.integers(1, 3))] * (nd if nd == 2 else data.draw(st.integers(0, 1)))
        if nd == 1 and not spatial:
            shape = [n, c]
            cdim = 1
        else:
            shape = [n] + spatial + [c] if last else [n, c] + spatial
            cdim = len(shape) - 1 if last else 1
        x, t = batch(rng, shape if cdim == 1 else [n, c] + spatial, dtype)
        if cdim != 1:
            x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
            t = fg.tensor(x, dtype=dtype)
        x64 = x.astype(np.float64)
        use_batch = (not ugs) if ugs is not None else train
        CALLS["paddle.BatchNorm"] += 1
        if use_batch and x.size // c == 1:
            if train:  # documented: Paddle's layer returns the input unchanged
                np.testing.assert_array_equal(npy(m(t)), x)
            continue
        if use_batch:
            want, mean, var, _ = ref_batch(x64, eps, w, b, cdim)
            if train:
                rm = keep * rm + (1 - keep) * mean
                rv = keep * rv + (1 - keep) * var  # Paddle's: the biased variance
        else:
            want = ref_with(x64, rm, rv, eps, w, b, cdim)
        close(m(t), want, dtype, f"paddle BatchNorm {fmt} step {step}")
        close(m._mean, rm, dtype, "_mean")
        close(m._variance, rv, dtype, "_variance")


@FUZZ
@given(st.sampled_from(["LayerNorm", "GroupNorm", "InstanceNorm2D"]), st.data())
def test_paddle_norm_layers(name, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    eps = data.draw(st.sampled_from([1e-5, 1e-2]))
    with_w = data.draw(st.booleans())
    n = data.draw(st.integers(1, 3))
    if name == "LayerNorm":
        ns = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
        m = nn.LayerNorm(ns, epsilon=eps, weight_attr=None if with_w else False, dtype=dtype)
        x, t = batch(rng, [n] + ns, dtype)
        x64 = x.astype(np.float64)
        axes = tuple(range(1, x.ndim))
        y = (x64 - x64.mean(axes, keepdims=True)) / np.sqrt(x64.var(axes, keepdims=True) + eps)
        keys = ["weight"] * with_w + ["bias"]
        assert list(m.state_dict()) == keys
        w, b = set_affine(m, rng)
        want = affine(y, w, b, ns)
    elif name == "GroupNorm":
        g = data.draw(st.integers(1, 2))
        c = g * data.draw(st.integers(1, 2))
        m = nn.GroupNorm(g, c, epsilon=eps, weight_attr=None if with_w else False)
        m = m.astype(dtype)
        assert list(m.state_dict()) == ["weight"] * with_w + ["bias"]
        w, b = set_affine(m, rng)
        x, t = batch(rng, [n, c, 2, 2], dtype)
        xg = x.astype(np.float64).reshape(n, g, -1)
        y = (xg - xg.mean(2, keepdims=True)) / np.sqrt(xg.var(2, keepdims=True) + eps)
        want = affine(y.reshape(x.shape), w, b, [1, c, 1, 1])
    else:
        c = data.draw(st.integers(1, 3))
        last = data.draw(st.booleans())
        fmt = "NHWC" if last else "NCHW"
        m = nn.InstanceNorm2D(c, epsilon=eps, data_format=fmt, dtype=dtype)
        assert list(m.state_dict()) == ["scale", "bias"]
        w, b = set_affine(m, rng, ("scale", "bias"))
        x, t = batch(rng, [n, c, 2, 3], dtype)
        x64 = x.astype(np.float64)
        mu, var = x64.mean((2, 3), keepdims=True), x64.var((2, 3), keepdims=True)
        want = affine((x64 - mu) / np.sqrt(var + eps), w, b, [1, c, 1, 1])
        if last:
            x, want = np.moveaxis(x, 1, -1), np.moveaxis(want, 1, -1)
            t = fg.tensor(np.ascontiguousarray(x), dtype=dtype)
    CALLS[f"paddle.{name}"] += 1
    for train in (True, False):  # no running statistics: the same in both modes
        m.train(train)
        close(m(t), want, dtype, f"paddle {name}")


@FUZZ
@given(st.data())
def test_paddle_layer_machinery(data):
    t = Tree(data)
    root = t.root
    P = t.params
    CALLS["paddle.Layer"] += 1
    dedup = [(n, t.nodes[i]) for n, i in t.named_modules()]
    same_items(root.named_sublayers(), dedup[1:], "named_sublayers")
    same_items(root.named_sublayers(include_self=True), dedup, "named_sublayers(self)")
    assert root.sublayers() == [m for _, m in dedup[1:]]
    assert root.sublayers(include_self=True) == [m for _, m in dedup]
    ps = root.parameters()
    assert isinstance(ps, list) and ps == [P[i] for _, i in t.named_members("p")]
    assert root.parameters(include_sublayers=False) == [
        P[i] for _, i in t.named_members("p", recurse=False)
    ]
    walk = list(t.state_walk())
    assert list(root.state_dict()) == [k for k, *_ in walk]
    sd = OrderedDict((k, fg.ones_like(t.tensor(kind, i))) for k, _, _, kind, i in walk[1:])
    sd["zz"] = fg.zeros([1])
    missing, unexpected = root.set_state_dict(sd)
    assert list(missing) == [k for k, *_ in walk[:1]] and list(unexpected) == ["zz"]
    for _, _, _, kind, i in walk[1:]:
        np.testing.assert_array_equal(npy(t.tensor(kind, i)), 1)
    root.eval()
    assert all(not m.training for m in root.sublayers(include_self=True))
    root.train()
    assert all(m.training for m in root.sublayers(include_self=True))
    # Paddle's forward hooks on a leaf layer
    lay = Scaled()
    log = []
    h1 = lay.register_forward_pre_hook(lambda mod, inp: (inp[0] * 2.0,))
    h2 = lay.register_forward_post_hook(lambda mod, inp, out: log.append(npy(inp[0])) or out + 1)
    out = lay(fg.tensor([1.0, 2.0], dtype="float64"))
    np.testing.assert_array_equal(npy(out), np.array([2.0, 4.0]) * [1.5, -0.5] + 1)
    np.testing.assert_array_equal(log[0], [2.0, 4.0])
    h1.remove()
    h2.remove()
    np.testing.assert_array_equal(npy(lay(fg.tensor([1.0, 2.0], dtype="float64"))), [1.5, -1.0])


# ---------------------------------------------------------------- regressions
def test_named_parameters_remove_duplicate_shared_module_regression():
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    names = [n for n, _ in m.named_parameters(remove_duplicate=False)]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]  # PyTorch's


def test_named_buffers_remove_duplicate_regression():
    bn = nn.BatchNorm1d(2)
    m = nn.Sequential(bn, bn)
    names = [n for n, _ in m.named_buffers(remove_duplicate=False)]
    assert names[:3] == ["0.running_mean", "0.running_var", "0.num_batches_tracked"]
    assert len(names) == 6


def test_reregister_keeps_position_regression():
    lin = nn.Linear(2, 2)
    lin.weight = nn.Parameter(fg.zeros([2, 2]))
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    s = nn.Sequential(nn.ReLU(), nn.Tanh())
    s.add_module("0", nn.Sigmoid())
    assert list(s._modules) == ["0", "1"] and isinstance(s[0], nn.Sigmoid)


def test_register_over_existing_attribute_regression():
    m = Custom()
    m.a = nn.Linear(1, 1)
    with pytest.raises(KeyError):
        m.register_parameter("tag", nn.Parameter(fg.zeros([1])))  # a plain attribute
    with pytest.raises(KeyError):
        m.register_buffer("a", fg.zeros([1]))  # a child module


def test_train_calls_children_train_regression():
    class Frozen(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(2)

        def train(self, mode=True):
            super().train(mode)
            self.bn.eval()  # a frozen batch norm stays in eval mode
            return self

    outer = nn.Sequential(Frozen())
    outer.train()
    assert not outer[0].bn.training


def test_repr_extra_and_children_regression():
    m = Custom("k=1")
    m.lin = nn.ReLU()
    assert repr(m) == "Custom(\n  k=1\n  (lin): ReLU()\n)"
    assert repr(Custom("l1\nl2")) == "Custom(\n  l1\n  l2\n)"


def test_backward_hook_grad_output_after_forward_hook_regression():
    lin = nn.Linear(2, 2)
    got = {}
    lin.register_forward_hook(lambda mod, args, out: out * 3)
    lin.register_full_backward_hook(lambda mod, gi, go: got.update(go=npy(go[0])))
    lin(fg.ones([1, 2], requires_grad=True)).sum().backward()
    np.testing.assert_array_equal(got["go"], [[1.0, 1.0]])  # PyTorch's: of the final output


def test_load_state_dict_shape_error_type_regression():
    with pytest.raises(RuntimeError):
        nn.Linear(2, 2).load_state_dict({"weight": fg.zeros([3, 2]), "bias": fg.zeros([2])})


def test_sequential_pop_regression():
    a, b = nn.ReLU(), nn.Tanh()
    s = nn.Sequential(a, b)
    assert s.pop(0) is a and list(s) == [b] and list(s._modules) == ["0"]
    ml = nn.ModuleList([a, b])
    assert ml.pop(1) is b and list(ml) == [a]


def test_modulelist_add_regression():
    a, b = nn.ReLU(), nn.Tanh()
    both = nn.ModuleList([a]) + nn.ModuleList([b])
    assert isinstance(both, nn.ModuleList) and list(both) == [a, b]


def test_instance_norm_unbatched_regression():
    x = np.arange(10.0).reshape(2, 5)
    m = nn.InstanceNorm1d(2)
    y = m(fg.tensor(x, dtype="float64"))
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(npy(y), want, rtol=1e-10)


def test_instance_norm_momentum_none_regression():
    m = nn.InstanceNorm1d(2, momentum=None, track_running_stats=True)
    m(fg.tensor(np.arange(12.0).reshape(2, 2, 3), dtype="float32"))
    # PyTorch passes momentum 0.0 for None: the running statistics stay as they were
    np.testing.assert_array_equal(npy(m.running_mean), [0.0, 0.0])
    np.testing.assert_array_equal(npy(m.running_var), [1.0, 1.0])


def test_cast_same_dtype_keeps_buffer_regression():
    bn = nn.BatchNorm1d(2).double()
    rm = bn.running_mean
    bn.double()
    assert bn.running_mean is rm  # PyTorch's t.double() of a float64 tensor is t itself
