"""Differential fuzzer for ferrograd's padded-sequence utilities, transformer layers and
weight re-parametrizations, on random small shapes, lengths, options and parameters:

- ``nn.utils.rnn``: ``pad_sequence`` (``batch_first``, ``padding_value``,
  ``padding_side``), ``pack_padded_sequence`` (``enforce_sorted``, lengths as a list, a
  tensor or an array), ``pad_packed_sequence`` (``total_length``), ``pack_sequence``,
  ``unpad_sequence`` / ``unpack_sequence`` against NumPy layouts written from PyTorch's
  documented packing (time-major rows of the sequences still running, sorted longest
  first, stably); a ``PackedSequence`` through ``nn.RNN`` / ``LSTM`` / ``GRU`` (layers,
  directions, ``proj_size``, given states) against running each sequence alone, final
  states at each sequence's own last step;
- ``nn.TransformerEncoderLayer`` / ``TransformerDecoderLayer`` / ``TransformerEncoder`` /
  ``TransformerDecoder`` / ``Transformer`` (``norm_first``, relu / gelu / callable
  activation, ``batch_first``, unbatched input, bool / float / 3-D masks, key padding
  masks, ``is_causal`` with the causal mask, ``bias=False``, final norms, dropout 0)
  against a float64 NumPy reference of PyTorch's documented math with the modules' own
  (randomised) parameters; ``Transformer.generate_square_subsequent_mask``; Paddle's
  ``TransformerEncoderLayer`` / ``TransformerEncoder`` (``normalize_before``, Paddle's
  keep-where-True bool masks, ``[in, out]`` weights) in Paddle code; ``gradcheck`` of the
  layers in float64;
- ``nn.utils.weight_norm`` and ``parametrizations.weight_norm`` (every ``dim``, ``None``),
  ``spectral_norm`` of both APIs (values after ``n`` power iterations from a fixed ``u``
  / ``v`` against a NumPy power iteration, train and eval), ``parametrizations.orthogonal``
  (orthonormality, the QR factor of an assigned value, the maps' closed forms, gradients),
  ``parametrize.register_parametrization`` chains / assignment / ``cached()`` /
  ``remove_parametrizations(leave_parametrized=)``, ``parameters_to_vector`` /
  ``vector_to_parameters``, ``clip_grad_value_`` and ``fuse_conv_bn_eval`` /
  ``fuse_linear_bn_eval``.

This module is PyTorch code (``torch = fg`` below, docs/dialects.md); the Paddle layers
are built and called in functions compiled with a ``paddle`` global only (``PADDLE``
below). A query whose keys are all masked gets zero attention weights (ferrograd's
documented choice, docs/layers-sequence.md; PyTorch gives NaN, Paddle's additive -1e9
gives the unmasked softmax), so the Paddle cases keep one key per query.
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from ferrograd.nn.utils import parametrizations as P
from ferrograd.nn.utils import parametrize
from ferrograd.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)
from fuzz_support import CALLS, FUZZ, assert_same, grad_ok, viewed
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.linalg import expm
from scipy.special import erf

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's
nn = torch.nn

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`), so
# ferrograd answers them as Paddle (docs/dialects.md).
_PADDLE_SRC = """
def encoder_layer(*args, **kw):
    return paddle.nn.TransformerEncoderLayer(*args, **kw).to(dtype="float64")

def encoder(layer, n, norm):
    return paddle.nn.TransformerEncoder(layer, n, norm)

def layer_norm(d):
    return paddle.nn.LayerNorm(d).to(dtype="float64")

def call(layer, *args):
    return layer(*args)
"""
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_paddle_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)

TOL = {"float64": (1e-10, 1e-12), "float32": (2e-5, 1e-5)}
DTYPES = st.sampled_from(["float32", "float64"])


def check(got, want, dtype, what, scale=1.0):
    """`got` (tensor) equals `want` (float64 NumPy): shape, dtype, values within rtol and
    an atol scaled by `scale`."""
    g = npy(got)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name} != {dtype}"
    g = g.astype(np.float64)
    assert np.isfinite(g).all(), f"{what}: not finite\n{g}"
    rtol, atol = TOL[dtype]
    bound = atol * (1 + np.broadcast_to(scale, w.shape)) + rtol * np.abs(w)
    bad = np.abs(g - w) > bound
    assert not bad.any(), f"{what}: got {g[bad]}, expected {w[bad]}"


def npy(t):
    return np.array(t.detach().numpy())


def arr(draw, shape, lo=-2.0, hi=2.0):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def tt(v, dtype="float64"):
    return None if v is None else fg.tensor(np.array(v), dtype=dtype)


def randomise(module, draw, lo=-1.0, hi=1.0):
    """Random values in every parameter (not the initialisation's zeros and ones)."""
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(fg.tensor(arr(draw, list(p.shape), lo, hi), dtype=p.dtype))


def params(module):
    return {n: npy(p) for n, p in module.named_parameters()}


# ---------------------------------------------------------------- padding and packing
def lengths_strategy(batch, steps, sort):
    lens = st.lists(st.integers(1, steps), min_size=batch, max_size=batch)
    return lens.map(lambda v: sorted(v, reverse=True)) if sort else lens


def as_lengths(draw, lens):
    """The lengths as PyTorch takes them: a list, an int64 tensor or a NumPy array."""
    kind = draw(st.sampled_from(["list", "tensor", "array"]))
    if kind == "tensor":
        return fg.tensor(np.array(lens, np.int64))
    return np.array(lens) if kind == "array" else list(lens)


def packed_ref(xt, lens, enforce_sorted):
    """PyTorch's packing of the time-major `xt` [T, B, *]: (data, batch_sizes,
    sorted_indices, unsorted_indices); sorted longest first, ties in batch order."""
    lens = np.asarray(lens)
    order = np.arange(len(lens)) if enforce_sorted else np.argsort(-lens, kind="stable")
    rows = [xt[t, b] for t in range(lens.max()) for b in order if lens[b] > t]
    sizes = np.array([(lens > t).sum() for t in range(lens.max())], np.int64)
    if enforce_sorted:
        return np.stack(rows), sizes, None, None
    return np.stack(rows), sizes, order, np.argsort(order)


def padded_ref(xt, lens, value, steps):
    """Time-major [steps, B, *]: `xt`'s first lens[b] steps, `value` after."""
    out = np.full((steps,) + xt.shape[1:], value, dtype=np.float64)
    for b, n in enumerate(lens):
        out[:n, b] = xt[:n, b]
    return out


def check_packed(got, want, dtype, what):
    data, sizes, sidx, uidx = want
    assert isinstance(got, PackedSequence), f"{what}: {type(got).__name__}"
    assert_same(got.data, data.astype(dtype), dtype, what + " data")
    assert_same(got.batch_sizes, sizes, "int64", what + " batch_sizes")
    for t, w, name in (
        (got.sorted_indices, sidx, "sorted"),
        (got.unsorted_indices, uidx, "unsorted"),
    ):
        if w is None:
            assert t is None, f"{what}: {name}_indices {t} for a sorted batch"
        else:
            assert_same(t, w, "int64", f"{what} {name}_indices")


@FUZZ
@given(st.sampled_from(["float32", "float64", "int64"]), st.data())
def test_pad_sequence(dtype, data):
    batch = data.draw(st.integers(1, 4))
    trail = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    lens = [data.draw(st.integers(0, 4)) for _ in range(batch)]
    pairs = [data.draw(viewed(dtype, shape=[n, *trail], special=False)) for n in lens]
    bf, side = data.draw(st.booleans()), data.draw(st.sampled_from(["right", "left", None]))
    value = data.draw(st.sampled_from([0, -1, 7]) if dtype == "int64" else st.floats(-9, 9))
    longest = max(lens)
    want = np.full((batch, longest, *trail), value, dtype=dtype)
    for b, (a, _) in enumerate(pairs):
        n = a.shape[0]
        if n:
            if side == "left":
                want[b, longest - n :] = a
            else:
                want[b, :n] = a
    kw = {} if side is None else {"padding_side": side}
    CALLS["pad_sequence"] += 1
    got = pad_sequence([t for _, t in pairs], batch_first=bf, padding_value=value, **kw)
    assert_same(got, want if bf else np.swapaxes(want, 0, 1), dtype, f"pad_sequence {bf} {kw}")
    if dtype == "float64" and 0 < sum(lens) * max(1, int(np.prod(trail))) <= 20:
        arrays = [np.asarray(a, np.float64) for a, _ in pairs]

        def fn(*u):
            return pad_sequence(list(u), batch_first=bf, padding_value=value, **kw)

        grad_ok(fn, *arrays)


@FUZZ
@given(DTYPES, st.data())
def test_pack_pad_roundtrip(dtype, data):
    steps, batch = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5))
    trail = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    sort = data.draw(st.booleans())
    lens = data.draw(lengths_strategy(batch, steps, sort))
    bf = data.draw(st.booleans())
    shape = [batch, steps, *trail] if bf else [steps, batch, *trail]
    a, x = data.draw(viewed(dtype, shape=shape, special=False))
    xt = np.swapaxes(np.asarray(a, np.float64), 0, 1) if bf else np.asarray(a, np.float64)
    what = f"pack_padded_sequence lens={lens} bf={bf} sorted={sort}"
    CALLS["pack_padded_sequence"] += 1
    packed = pack_padded_sequence(
        x, as_lengths(data.draw, lens), batch_first=bf, enforce_sorted=sort
    )
    check_packed(packed, packed_ref(xt, lens, sort), dtype, what)
    # back to a padded batch
    bf2 = data.draw(st.booleans())
    total = data.draw(st.one_of(st.none(), st.integers(max(lens), max(lens) + 2)))
    value = data.draw(st.sampled_from([0.0, -1.5, 3.0]))
    CALLS["pad_packed_sequence"] += 1
    padded, got_lens = pad_packed_sequence(packed, bf2, value, total)
    want = padded_ref(xt, lens, value, max(lens) if total is None else total)
    assert_same(padded, (np.swapaxes(want, 0, 1) if bf2 else want).astype(dtype), dtype, what)
    assert_same(got_lens, np.array(lens, np.int64), "int64", what + " lengths")
    CALLS["unpad_sequence"] += 1
    pieces = unpad_sequence(padded, got_lens, batch_first=bf2)
    assert len(pieces) == batch
    for b, p in enumerate(pieces):
        assert_same(p, xt[: lens[b], b].astype(dtype), dtype, what + f" unpad {b}")
    if dtype == "float64" and xt.size <= 24:

        def fn(u):
            p = pack_padded_sequence(u, lens, batch_first=bf, enforce_sorted=sort)
            return p.data, pad_packed_sequence(p, bf2, value, total)[0]

        grad_ok(fn, np.asarray(a, np.float64))


@FUZZ
@given(DTYPES, st.data())
def test_pack_sequence_roundtrip(dtype, data):
    batch = data.draw(st.integers(1, 5))
    trail = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    sort = data.draw(st.booleans())
    lens = data.draw(lengths_strategy(batch, 5, sort))
    pairs = [data.draw(viewed(dtype, shape=[n, *trail], special=False)) for n in lens]
    xt = np.zeros((max(lens), batch, *trail))
    for b, (a, _) in enumerate(pairs):
        xt[: lens[b], b] = a
    CALLS["pack_sequence"] += 1
    packed = pack_sequence([t for _, t in pairs], enforce_sorted=sort)
    check_packed(packed, packed_ref(xt, lens, sort), dtype, f"pack_sequence {lens} {sort}")
    CALLS["unpack_sequence"] += 1
    back = unpack_sequence(packed)
    assert len(back) == batch
    for b, (a, _) in enumerate(pairs):
        assert_same(back[b], np.asarray(a), dtype, f"unpack_sequence {lens} [{b}]")


@FUZZ
@given(st.sampled_from(["RNN", "LSTM", "GRU"]), DTYPES, st.data())
def test_packed_rnn_equals_each_sequence_alone(kind, dtype, data):
    nin, H = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    layers = data.draw(st.integers(1, 2))
    bidir, bf, bias = (data.draw(st.booleans()) for _ in range(3))
    kw = dict(num_layers=layers, bias=bias, batch_first=bf, bidirectional=bidir)
    if kind == "RNN":
        kw["nonlinearity"] = data.draw(st.sampled_from(["tanh", "relu"]))
    if kind == "LSTM" and H > 1 and data.draw(st.booleans()):
        kw["proj_size"] = data.draw(st.integers(1, H - 1))
    m = getattr(nn, kind)(nin, H, dtype=getattr(torch, dtype), **kw)
    hout, D = kw.get("proj_size", H), 2 if bidir else 1
    steps, batch = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    sort = data.draw(st.booleans())
    lens = data.draw(lengths_strategy(batch, steps, sort))
    x = arr(data.draw, [steps, batch, nin]).astype(dtype)
    given_h = data.draw(st.booleans())
    h0 = arr(data.draw, [layers * D, batch, hout]).astype(dtype)
    c0 = arr(data.draw, [layers * D, batch, H]).astype(dtype)

    def state(b=None):
        sl = slice(None) if b is None else slice(b, b + 1)
        if kind == "LSTM":
            return (tt(h0[:, sl], dtype), tt(c0[:, sl], dtype))
        return tt(h0[:, sl], dtype)

    xin = np.swapaxes(x, 0, 1) if bf else x
    packed = pack_padded_sequence(tt(xin, dtype), lens, batch_first=bf, enforce_sorted=sort)
    CALLS["packed_rnn"] += 1
    out, hn = m(packed, state()) if given_h else m(packed)
    what = f"{kind} {kw} lens={lens} sorted={sort} h0={given_h}"
    assert isinstance(out, PackedSequence), what
    assert_same(out.batch_sizes, npy(packed.batch_sizes), "int64", what + " batch_sizes")
    if not sort:
        assert_same(out.sorted_indices, npy(packed.sorted_indices), "int64", what)
    padded, got_lens = pad_packed_sequence(out)  # time-major
    assert list(padded.shape) == [max(lens), batch, D * hout], what
    assert_same(got_lens, np.array(lens), "int64", what)
    hs = hn if kind != "LSTM" else hn[0]
    for b, n in enumerate(lens):
        seq = x[:n, b : b + 1]
        seq = np.swapaxes(seq, 0, 1) if bf else seq
        CALLS["packed_rnn"] += 1
        alone, hb = m(tt(seq, dtype), state(b)) if given_h else m(tt(seq, dtype))
        alone = npy(alone)[0] if bf else npy(alone)[:, 0]
        check(padded[:n, b], alone, dtype, what + f" output of sequence {b}", 10)
        check(padded[n:, b], np.zeros((max(lens) - n, D * hout)), dtype, what + " padding")
        hb_h = hb if kind != "LSTM" else hb[0]
        check(hs[:, b], npy(hb_h)[:, 0], dtype, what + f" h_n of sequence {b}", 10)
        if kind == "LSTM":
            check(hn[1][:, b], npy(hb[1])[:, 0], dtype, what + f" c_n of sequence {b}", 10)
    if dtype == "float64" and kw.get("nonlinearity") != "relu" and x.size <= 8 and layers == 1:

        def fn(u):
            o, h = m(pack_padded_sequence(u, lens, batch_first=bf, enforce_sorted=sort))
            return (o.data, h) if kind != "LSTM" else (o.data, h[0], h[1])

        grad_ok(fn, xin)


# ---------------------------------------------------------------- transformer reference
#: the smallest variance a reference LayerNorm saw (gradcheck needs LayerNorm inputs
#: away from constant rows, where the derivative is of order 1/sqrt(eps))
LN_VAR = [np.inf]


def layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    LN_VAR[0] = min(LN_VAR[0], float(var.min()))
    y = (x - mu) / np.sqrt(var + eps)
    return y * (1.0 if w is None else w) + (0.0 if b is None else b)


def softmax_rows(s, keep):
    """Softmax over the last axis of `s` where `keep`; a row with nothing kept is zeros
    (ferrograd's documented choice)."""
    z = np.where(keep, s, -np.inf)
    m = np.max(np.where(keep, s, -1e300), -1, keepdims=True)
    e = np.where(keep, np.exp(z - m), 0.0)
    tot = e.sum(-1, keepdims=True)
    return np.where(tot > 0, e / np.where(tot > 0, tot, 1.0), 0.0)


def attend_np(q, k, v, heads, keep, add):
    """Scaled dot-product attention of the projected q [N, L, E], k / v [N, S, E] split
    into `heads` heads; `keep` (bool) and `add` (float) broadcast to [N, H, L, S]."""
    N, L, E = q.shape
    S, hd = k.shape[1], E // heads

    def split(a, n):
        return a.reshape(N, n, heads, hd).transpose(0, 2, 1, 3)

    s = split(q, L) @ split(k, S).transpose(0, 1, 3, 2) / np.sqrt(hd) + add
    p = softmax_rows(s, keep & ~np.isneginf(add))
    return (p @ split(v, S)).transpose(0, 2, 1, 3).reshape(N, L, E)


def torch_masks(attn_mask, kpm, N, H, L, S):
    """PyTorch's masks (bool True = leave out, float added; attn_mask [L, S] or
    [N*H, L, S], key padding [N, S]) as (keep, add) of shape [N, H, L, S]."""
    keep, add = np.ones((N, H, L, S), bool), np.zeros((N, H, L, S))
    if attn_mask is not None:
        am = attn_mask if attn_mask.ndim == 2 else attn_mask.reshape(N, H, L, S)
        if am.dtype == bool:
            keep = keep & ~am
        else:
            add = add + am
    if kpm is not None:
        km = kpm[:, None, None, :]
        if km.dtype == bool:
            keep = keep & ~km
        else:
            add = add + km
    return keep, add


def lin(x, p, name):
    """PyTorch's Linear ([out, in] weight) of `p`'s `name.weight` / `name.bias`."""
    b = p.get(name + ".bias")
    return x @ p[name + ".weight"].T + (0.0 if b is None else b)


def mha_np(x, mem, p, name, heads, masks):
    E = x.shape[-1]
    w = p[name + ".in_proj_weight"]
    b = p.get(name + ".in_proj_bias", np.zeros(3 * E))
    q = x @ w[:E].T + b[:E]
    k = mem @ w[E : 2 * E].T + b[E : 2 * E]
    v = mem @ w[2 * E :].T + b[2 * E :]
    return lin(attend_np(q, k, v, heads, *masks), p, name + ".out_proj")


ACTS = {
    "relu": (lambda: "relu", lambda x: np.maximum(x, 0)),
    "gelu": (lambda: "gelu", lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    "callable": (lambda: torch.tanh, np.tanh),
}


def norm_np(x, p, name, eps=1e-5):
    return layer_norm(x, p.get(name + ".weight"), p.get(name + ".bias"), eps)


def ff_np(x, p, pre, act):
    return lin(act(lin(x, p, pre + "linear1")), p, pre + "linear2")


def enc_layer_np(x, p, pre, heads, act, norm_first, masks):
    def sa(h):
        return mha_np(h, h, p, pre + "self_attn", heads, masks)

    if norm_first:
        x = x + sa(norm_np(x, p, pre + "norm1"))
        return x + ff_np(norm_np(x, p, pre + "norm2"), p, pre, act)
    x = norm_np(x + sa(x), p, pre + "norm1")
    return norm_np(x + ff_np(x, p, pre, act), p, pre + "norm2")


def dec_layer_np(x, mem, p, pre, heads, act, norm_first, self_masks, cross_masks):
    def sa(h):
        return mha_np(h, h, p, pre + "self_attn", heads, self_masks)

    def ca(h):
        return mha_np(h, mem, p, pre + "multihead_attn", heads, cross_masks)

    if norm_first:
        x = x + sa(norm_np(x, p, pre + "norm1"))
        x = x + ca(norm_np(x, p, pre + "norm2"))
        return x + ff_np(norm_np(x, p, pre + "norm3"), p, pre, act)
    x = norm_np(x + sa(x), p, pre + "norm1")
    x = norm_np(x + ca(x), p, pre + "norm2")
    return norm_np(x + ff_np(x, p, pre, act), p, pre + "norm3")


@st.composite
def layer_config(draw):
    heads = draw(st.integers(1, 3))
    return dict(
        heads=heads,
        E=heads * draw(st.integers(1, 2)),
        ff=draw(st.integers(1, 4)),
        act=draw(st.sampled_from(sorted(ACTS))),
        norm_first=draw(st.booleans()),
        batch_first=draw(st.booleans()),
        bias=draw(st.booleans()),
        batched=draw(st.booleans()),
    )


def build_kw(cfg):
    return dict(
        dim_feedforward=cfg["ff"],
        dropout=0.0,
        activation=ACTS[cfg["act"]][0](),
        batch_first=cfg["batch_first"],
        norm_first=cfg["norm_first"],
        bias=cfg["bias"],
        dtype=torch.float64,
    )


@st.composite
def mask_case(draw, N, H, L, S, batched, causal_ok):
    """(tensor attn_mask or None, its NumPy value, is_causal flag)."""
    kind = draw(st.sampled_from(["none", "bool", "float", "bool3d", "causal"]))
    if kind == "causal" and causal_ok and L == S:
        m = nn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
        return m, npy(m), draw(st.booleans())
    if kind == "bool3d" and batched:
        a = draw(hnp.arrays(bool, (N * H, L, S)))
        return fg.tensor(a), a, False
    if kind == "bool":
        a = draw(hnp.arrays(bool, (L, S)))
        return fg.tensor(a), a, False
    if kind == "float":
        a = arr(draw, [L, S])
        return tt(a), a, False
    return None, None, False


@st.composite
def kpm_case(draw, N, S, batched):
    """(tensor key padding mask or None, its NumPy value [N, S])."""
    kind = draw(st.sampled_from(["none", "bool", "float"]))
    if kind == "bool":
        a = draw(hnp.arrays(bool, (N, S)))
    elif kind == "float":
        a = arr(draw, [N, S])
    else:
        return None, None
    return fg.tensor(a if batched else a[0]), a


def lay(a, cfg):
    """[N, L, E] (the reference's layout) -> the layer's."""
    if not cfg["batched"]:
        return a[0]
    return a if cfg["batch_first"] else a.transpose(1, 0, 2)


@FUZZ
@given(layer_config(), st.data())
def test_transformer_encoder_layer(cfg, data):
    m = nn.TransformerEncoderLayer(cfg["E"], cfg["heads"], **build_kw(cfg))
    randomise(m, data.draw)
    p = params(m)
    N = data.draw(st.integers(1, 3)) if cfg["batched"] else 1
    L, H = data.draw(st.integers(1, 4)), cfg["heads"]
    x = arr(data.draw, [N, L, cfg["E"]])
    mask, am, causal = data.draw(mask_case(N, H, L, L, cfg["batched"], True))
    kpm, km = data.draw(kpm_case(N, L, cfg["batched"]))
    act = ACTS[cfg["act"]][1]
    LN_VAR[0] = np.inf
    want = enc_layer_np(x, p, "", H, act, cfg["norm_first"], torch_masks(am, km, N, H, L, L))
    what = f"TransformerEncoderLayer {cfg} mask={None if am is None else am.shape} causal={causal}"
    CALLS["transformer_encoder_layer"] += 1
    got = m(tt(lay(x, cfg)), mask, kpm, is_causal=causal)
    check(got, lay(want, cfg), "float64", what, 100)
    smooth = cfg["act"] != "relu" and LN_VAR[0] > 1e-2
    if not cfg["batched"] and smooth and L * cfg["E"] <= 8:
        names = list(p)

        def fn(u, *pw):
            return fg.func.functional_call(m, dict(zip(names, pw)), (u, mask, kpm))

        grad_ok(fn, lay(x, cfg), *p.values())


@FUZZ
@given(layer_config(), st.data())
def test_transformer_decoder_layer(cfg, data):
    m = nn.TransformerDecoderLayer(cfg["E"], cfg["heads"], **build_kw(cfg))
    randomise(m, data.draw)
    p = params(m)
    N = data.draw(st.integers(1, 3)) if cfg["batched"] else 1
    T, S, H = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)), cfg["heads"]
    x, mem = arr(data.draw, [N, T, cfg["E"]]), arr(data.draw, [N, S, cfg["E"]])
    tmask, tam, tcausal = data.draw(mask_case(N, H, T, T, cfg["batched"], True))
    mmask, mam, _ = data.draw(mask_case(N, H, T, S, cfg["batched"], False))
    tkpm, tkm = data.draw(kpm_case(N, T, cfg["batched"]))
    mkpm, mkm = data.draw(kpm_case(N, S, cfg["batched"]))
    act = ACTS[cfg["act"]][1]
    LN_VAR[0] = np.inf
    want = dec_layer_np(
        x, mem, p, "", H, act, cfg["norm_first"],
        torch_masks(tam, tkm, N, H, T, T), torch_masks(mam, mkm, N, H, T, S),
    )  # fmt: skip
    what = f"TransformerDecoderLayer {cfg} causal={tcausal}"
    CALLS["transformer_decoder_layer"] += 1
    args = (tt(lay(x, cfg)), tt(lay(mem, cfg)), tmask, mmask, tkpm, mkpm)
    got = m(*args, tgt_is_causal=tcausal)
    check(got, lay(want, cfg), "float64", what, 100)
    smooth = cfg["act"] != "relu" and LN_VAR[0] > 1e-2
    if not cfg["batched"] and smooth and (T + S) * cfg["E"] <= 8:
        names = list(p)

        def fn(u, w, *pw):
            a = (u, w, tmask, mmask, tkpm, mkpm)
            return fg.func.functional_call(m, dict(zip(names, pw)), a)

        grad_ok(fn, lay(x, cfg), lay(mem, cfg), *p.values())


@FUZZ
@given(layer_config(), st.integers(1, 3), st.booleans(), st.data())
def test_transformer_encoder_decoder_stacks(cfg, layers, final_norm, data):
    H, E = cfg["heads"], cfg["E"]
    enc = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(E, H, **build_kw(cfg)),
        layers,
        nn.LayerNorm(E, dtype=torch.float64) if final_norm else None,
    )
    dec = nn.TransformerDecoder(
        nn.TransformerDecoderLayer(E, H, **build_kw(cfg)),
        layers,
        nn.LayerNorm(E, dtype=torch.float64) if final_norm else None,
    )
    assert len(enc.layers) == layers and len(dec.layers) == layers
    randomise(enc, data.draw)
    randomise(dec, data.draw)
    pe, pd = params(enc), params(dec)
    N = data.draw(st.integers(1, 3)) if cfg["batched"] else 1
    S, T = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    src, tgt = arr(data.draw, [N, S, E]), arr(data.draw, [N, T, E])
    smask, sam, scausal = data.draw(mask_case(N, H, S, S, cfg["batched"], True))
    skpm, skm = data.draw(kpm_case(N, S, cfg["batched"]))
    tmask, tam, tcausal = data.draw(mask_case(N, H, T, T, cfg["batched"], True))
    act, nf = ACTS[cfg["act"]][1], cfg["norm_first"]
    masks = torch_masks(sam, skm, N, H, S, S)
    mem = src
    for i in range(layers):
        mem = enc_layer_np(mem, pe, f"layers.{i}.", H, act, nf, masks)
    if final_norm:
        mem = norm_np(mem, pe, "norm")
    what = f"TransformerEncoder x{layers} {cfg} norm={final_norm} causal={scausal}"
    CALLS["transformer_encoder"] += 1
    got_mem = enc(tt(lay(src, cfg)), smask, skpm, is_causal=scausal or None)
    check(got_mem, lay(mem, cfg), "float64", what, 100 * layers)
    self_masks = torch_masks(tam, None, N, H, T, T)
    cross = torch_masks(None, skm, N, H, T, S)
    out = tgt
    for i in range(layers):
        out = dec_layer_np(out, mem, pd, f"layers.{i}.", H, act, nf, self_masks, cross)
    if final_norm:
        out = norm_np(out, pd, "norm")
    CALLS["transformer_decoder"] += 1
    got = dec(tt(lay(tgt, cfg)), tt(lay(mem, cfg)), tmask, None, None, skpm, tgt_is_causal=tcausal)
    check(got, lay(out, cfg), "float64", what.replace("Encoder", "Decoder"), 100 * layers)


@FUZZ
@given(layer_config(), st.data())
def test_transformer(cfg, data):
    H, E = cfg["heads"], cfg["E"]
    ne, nd = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    kw = build_kw(cfg)
    kw.pop("dim_feedforward")
    m = nn.Transformer(E, H, ne, nd, cfg["ff"], **kw)
    randomise(m, data.draw)
    p = params(m)
    N = data.draw(st.integers(1, 3)) if cfg["batched"] else 1
    S, T = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    src, tgt = arr(data.draw, [N, S, E]), arr(data.draw, [N, T, E])
    smask, sam, _ = data.draw(mask_case(N, H, S, S, cfg["batched"], True))
    tmask, tam, _ = data.draw(mask_case(N, H, T, T, cfg["batched"], True))
    mmask, mam, _ = data.draw(mask_case(N, H, T, S, cfg["batched"], False))
    skpm, skm = data.draw(kpm_case(N, S, cfg["batched"]))
    tkpm, tkm = data.draw(kpm_case(N, T, cfg["batched"]))
    mkpm, mkm = data.draw(kpm_case(N, S, cfg["batched"]))
    act, nf = ACTS[cfg["act"]][1], cfg["norm_first"]
    mem = src
    for i in range(ne):
        mem = enc_layer_np(
            mem, p, f"encoder.layers.{i}.", H, act, nf, torch_masks(sam, skm, N, H, S, S)
        )
    mem = norm_np(mem, p, "encoder.norm")
    out = tgt
    sm, cm = torch_masks(tam, tkm, N, H, T, T), torch_masks(mam, mkm, N, H, T, S)
    for i in range(nd):
        out = dec_layer_np(out, mem, p, f"decoder.layers.{i}.", H, act, nf, sm, cm)
    out = norm_np(out, p, "decoder.norm")
    CALLS["transformer"] += 1
    got = m(tt(lay(src, cfg)), tt(lay(tgt, cfg)), smask, tmask, mmask, skpm, tkpm, mkpm)
    check(got, lay(out, cfg), "float64", f"Transformer {ne}/{nd} {cfg}", 100 * (ne + nd))


@FUZZ
@given(st.integers(0, 6), st.sampled_from([None, "float32", "float64"]))
def test_generate_square_subsequent_mask(sz, dtype):
    CALLS["generate_square_subsequent_mask"] += 1
    kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    got = nn.Transformer.generate_square_subsequent_mask(sz, **kw)
    want = np.triu(np.full((sz, sz), -np.inf), 1)
    assert_same(got, want, dtype or "float32", f"generate_square_subsequent_mask({sz})")


# ---------------------------------------------------------------- Paddle's layers
def paddle_masks(mask, N, H, L, S):
    """Paddle's attn_mask (bool True = keep, float added; broadcast to [N, H, L, S])."""
    keep, add = np.ones((N, H, L, S), bool), np.zeros((N, H, L, S))
    if mask is None:
        return keep, add
    if mask.dtype == bool:
        return keep & mask, add
    return keep, add + mask


def paddle_lin(x, p, name):
    """Paddle's Linear: [in, out] weight, ``x @ W + b``."""
    return x @ p[name + ".weight"] + p[name + ".bias"]


def paddle_enc_layer_np(x, p, pre, heads, act, before, masks):
    def sa(h):
        q, k, v = (paddle_lin(h, p, f"{pre}self_attn.{n}_proj") for n in "qkv")
        return paddle_lin(attend_np(q, k, v, heads, *masks), p, pre + "self_attn.out_proj")

    def ff(h):
        return paddle_lin(act(paddle_lin(h, p, pre + "linear1")), p, pre + "linear2")

    if before:
        x = x + sa(norm_np(x, p, pre + "norm1"))
        return x + ff(norm_np(x, p, pre + "norm2"))
    x = norm_np(x + sa(x), p, pre + "norm1")
    return norm_np(x + ff(x), p, pre + "norm2")


@FUZZ
@given(st.sampled_from(["relu", "gelu"]), st.booleans(), st.integers(0, 2), st.data())
def test_paddle_transformer_encoder(act, before, layers, data):
    H = data.draw(st.integers(1, 3))
    E, ff = H * data.draw(st.integers(1, 2)), data.draw(st.integers(1, 4))
    kw = {"normalize_before": before} if data.draw(st.booleans()) or before else {}
    layer = PADDLE["encoder_layer"](E, H, ff, 0.0, act, **kw)
    assert layer.self_attn.q_proj.weight.shape == [E, E] and layer.linear1.weight.shape == [E, ff]
    N, L = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    kind = data.draw(st.sampled_from(["none", "bool", "float"]))
    mshape = data.draw(st.sampled_from([[L, L], [N, 1, L, L], [N, H, L, L], [1, 1, 1, L]]))
    mask = am = None
    if kind == "bool":  # True keeps; every query keeps one key (see the module doc)
        am = data.draw(hnp.arrays(bool, tuple(mshape)))
        am[..., :, data.draw(st.integers(0, L - 1))] = True
        mask = fg.tensor(am)
    elif kind == "float":
        am = arr(data.draw, mshape)
        mask = tt(am)
    x = arr(data.draw, [N, L, E])
    fn = {"relu": lambda v: np.maximum(v, 0), "gelu": ACTS["gelu"][1]}[act]
    masks = paddle_masks(am, N, H, L, L)
    what = f"paddle TransformerEncoderLayer {act} before={before} {kind} {mshape}"
    if layers == 0:
        randomise(layer, data.draw)
        want = paddle_enc_layer_np(x, params(layer), "", H, fn, before, masks)
        CALLS["paddle_transformer_encoder_layer"] += 1
        check(PADDLE["call"](layer, tt(x), mask), want, "float64", what, 100)
        return
    norm = PADDLE["layer_norm"](E) if data.draw(st.booleans()) else None
    enc = PADDLE["encoder"](layer, layers, norm)
    randomise(enc, data.draw)
    p = params(enc)
    want = x
    for i in range(layers):
        want = paddle_enc_layer_np(want, p, f"layers.{i}.", H, fn, before, masks)
    if norm is not None:
        want = norm_np(want, p, "norm")
    CALLS["paddle_transformer_encoder"] += 1
    check(PADDLE["call"](enc, tt(x), mask), want, "float64", f"{what} x{layers}", 100 * layers)


# ---------------------------------------------------------------- weight norm
def wn_norm(v, dim):
    """||v|| over every dim but `dim` (kept, size 1), or over all (dim None)."""
    if dim is None:
        return np.sqrt((v * v).sum())
    others = tuple(d for d in range(v.ndim) if d != dim)
    return np.sqrt((v * v).sum(axis=others, keepdims=True))


def weighted_module(draw, dtype):
    kind = draw(st.sampled_from(["Linear", "Conv1d", "Conv2d"]))
    i, o = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dt = getattr(torch, dtype)
    if kind == "Linear":
        return nn.Linear(i, o, dtype=dt), [draw(st.integers(1, 3)), i]
    k = [draw(st.integers(1, 2)) for _ in range(int(kind[-2]))]
    m = getattr(nn, kind)(i, o, k, dtype=dt)
    return m, [draw(st.integers(1, 2)), i] + [draw(st.integers(2, 3)) for _ in k]


@FUZZ
@given(st.sampled_from(["hook", "parametrization"]), DTYPES, st.data())
def test_weight_norm(api, dtype, data):
    m, xshape = weighted_module(data.draw, dtype)
    w0 = npy(m.weight).astype(np.float64)
    nd = w0.ndim
    dim = data.draw(st.sampled_from([None, -1] + list(range(-nd, nd))))
    d = None if dim is None or dim == -1 else dim % nd  # -1: the whole tensor (both peers)
    if api == "hook":
        nn.utils.weight_norm(m, dim=dim)
        g, v = m.weight_g, m.weight_v
    else:
        P.weight_norm(m, dim=dim)
        g = m.parametrizations.weight.original0
        v = m.parametrizations.weight.original1
    what = f"weight_norm[{api}] {type(m).__name__} {list(w0.shape)} dim={dim}"
    gshape = () if d is None else tuple(n if i == d else 1 for i, n in enumerate(w0.shape))
    CALLS["weight_norm"] += 1
    check(g, wn_norm(w0, d).reshape(gshape), dtype, what + " g")
    check(v, w0, dtype, what + " v")
    check(m.weight, w0, dtype, what + " weight at registration", 1)
    # new g and v: the weight follows on the next forward (hook) / access (parametrization)
    ga = arr(data.draw, gshape, 0.5, 2.0).astype(dtype).astype(np.float64)
    va = arr(data.draw, w0.shape, -2.0, 2.0).astype(dtype).astype(np.float64)
    va[np.abs(va) < 0.1] = 0.5  # no slice of zeros
    with torch.no_grad():
        g.copy_(tt(ga, dtype))
        v.copy_(tt(va, dtype))
    want_w = ga * va / wn_norm(va, d)
    x = arr(data.draw, xshape).astype(dtype).astype(np.float64)
    xl = tt(x, dtype)
    out = m(xl)
    CALLS["weight_norm"] += 1
    check(m.weight, want_w, dtype, what + " weight", 1)
    fwd = {2: F.linear, 3: F.conv1d, 4: F.conv2d}[nd]
    want_out = fwd(xl, tt(want_w, dtype), m.bias)
    check(out, npy(want_out), dtype, what + " forward", 10)
    if dtype == "float64":  # gradients of sum(weight * R) with respect to g and v
        r = arr(data.draw, w0.shape)
        g.grad = v.grad = None
        wt = m.weight if api == "parametrization" else (m(xl), m.weight)[1]
        (wt * tt(r)).sum().backward()
        nrm = wn_norm(va, d)
        u = va / nrm
        axes = None if d is None else tuple(i for i in range(nd) if i != d)
        dg = (r * u).sum(axis=axes, keepdims=d is not None)
        dv = ga / nrm * (r - u * (r * u).sum(axis=axes, keepdims=d is not None))
        CALLS["weight_norm_backward"] += 1
        check(g.grad, np.reshape(dg, gshape), dtype, what + " dg", 10)
        check(v.grad, dv, dtype, what + " dv", 10)
    # back to a plain parameter holding the current weight
    if api == "hook":
        nn.utils.remove_weight_norm(m)
    else:
        parametrize.remove_parametrizations(m, "weight")
    names = [n for n, _ in m.named_parameters()]
    assert "weight" in names and not any(
        n.startswith(("weight_", "parametrizations")) for n in names
    )
    check(m.weight, want_w, dtype, what + " after remove", 1)


# ---------------------------------------------------------------- spectral norm
def unit(a):
    return a / max(np.linalg.norm(a), 1e-12)


def spectral_module(draw):
    kind = draw(st.sampled_from(["Linear", "Conv2d", "ConvTranspose2d"]))
    i, o = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    if kind == "Linear":
        return nn.Linear(i, o, dtype=torch.float64), 0
    k = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    return getattr(nn, kind)(i, o, k, dtype=torch.float64), 1 if kind.startswith("ConvT") else 0


@FUZZ
@given(st.sampled_from(["hook", "parametrization"]), st.integers(1, 4), st.data())
def test_spectral_norm_power_iteration(api, n_iter, data):
    m, default_dim = spectral_module(data.draw)
    randomise(m, data.draw)
    w = npy(m.weight)
    dim = data.draw(st.one_of(st.none(), st.integers(-w.ndim, w.ndim - 1)))
    d = default_dim if dim is None else dim % w.ndim
    mat = np.moveaxis(w, d, 0).reshape(w.shape[d], -1)
    u0, v0 = unit(arr(data.draw, [mat.shape[0]]) + 0.1), unit(arr(data.draw, [mat.shape[1]]) + 0.1)
    what = f"spectral_norm[{api}] {type(m).__name__} {list(w.shape)} dim={dim} n={n_iter}"
    if api == "hook":
        nn.utils.spectral_norm(m, n_power_iterations=n_iter, dim=dim)
        ub, vb, orig = m.weight_u, m.weight_v, m.weight_orig
    else:
        P.spectral_norm(m, n_power_iterations=n_iter, dim=dim)
        sn = m.parametrizations.weight[0]
        ub, vb, orig = sn._u, sn._v, m.parametrizations.weight.original
    check(orig, w, "float64", what + " original")
    with torch.no_grad():
        ub.copy_(tt(u0))
        vb.copy_(tt(v0))
    u, v = u0, v0
    for _ in range(n_iter):  # the hook refines v first, the parametrization u first
        if api == "hook":
            v = unit(mat.T @ u)
            u = unit(mat @ v)
        else:
            u = unit(mat @ v)
            v = unit(mat.T @ u)
    sigma = u @ mat @ v
    assume(abs(sigma) > 1e-3)  # a zero estimate divides by zero (inf in both peers)
    CALLS["spectral_norm"] += 1
    if api == "hook":
        _forward(m, data)  # the hook refines before the forward
        got = m.weight
    else:
        got = m.weight  # one access, one refinement in training mode
    check(ub, u, "float64", what + " u", 10)
    check(vb, v, "float64", what + " v", 10)
    check(got, w / sigma, "float64", what + " weight", 10)
    # eval mode: no refinement, the same sigma
    m.eval()
    CALLS["spectral_norm"] += 1
    if api == "hook":
        _forward(m, data)
    check(m.weight, w / sigma, "float64", what + " eval weight", 10)
    check(ub, u, "float64", what + " eval u", 10)
    if api == "parametrization" and w.ndim == 2:
        # d/dW of sum(W / sigma * R), sigma = u . W v with u, v constants
        r = arr(data.draw, w.shape)
        orig.grad = None
        (m.weight * tt(r)).sum().backward()
        moved = np.moveaxis(w, d, 0).shape
        uv = np.moveaxis(np.outer(u, v).reshape(moved), 0, d)
        dw = r / sigma - (r * w).sum() / sigma**2 * uv
        CALLS["spectral_norm_backward"] += 1
        check(orig.grad, dw, "float64", what + " dW", 10)


def _forward(m, data):
    """One forward of `m` on a small random input of the right channel count."""
    if isinstance(m, nn.Linear):
        x = arr(data.draw, [2, m.in_features])
    elif isinstance(m, nn.Conv2d):
        x = arr(data.draw, [1, m.in_channels, 3, 3])
    else:
        x = arr(data.draw, [1, m.in_channels, 2, 2])
    return m(tt(x))


# ---------------------------------------------------------------- orthogonal
def qr_pos(a):
    """The Q of a = QR (a tall) with diag(R) > 0."""
    q, r = np.linalg.qr(a)
    s = np.sign(np.diagonal(r))
    s[s == 0] = 1
    return q * s


def orth_map_np(x, kind):
    """The 'matrix_exp' / 'cayley' map of PyTorch's orthogonal parametrization."""
    n, k = x.shape
    wide = n < k
    if wide:
        x, (n, k) = x.T, (k, n)
    a = np.zeros((n, n))
    a[:, :k] = np.tril(x)
    a = a - a.T
    eye = np.eye(n)
    q = expm(a) if kind == "matrix_exp" else np.linalg.solve(eye - a / 2, eye + a / 2)
    q = q[:, :k]
    return q.T if wide else q


@FUZZ
@given(st.sampled_from(["matrix_exp", "cayley", "householder", None]), st.booleans(), st.data())
def test_orthogonal(orth_map, trivial, data):
    n, k = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    m = nn.Linear(k, n, bias=False, dtype=torch.float64)  # weight [n, k]
    w = arr(data.draw, [n, k])
    with torch.no_grad():
        m.weight.copy_(tt(w))
    P.orthogonal(m, orthogonal_map=orth_map, use_trivialization=trivial)
    kind = orth_map or ("matrix_exp" if n == k else "householder")
    what = f"orthogonal {kind} trivialization={trivial} [{n}, {k}]"
    q = m.weight
    CALLS["orthogonal"] += 1
    gram = npy(q).T @ npy(q) if n >= k else npy(q) @ npy(q).T
    np.testing.assert_allclose(gram, np.eye(min(n, k)), atol=1e-10, err_msg=what)
    if not trivial and kind != "householder":
        check(q, orth_map_np(w, kind), "float64", what + " map of the weight", 10)
    # gradients reach the stored original
    orig = m.parametrizations.weight.original
    r = arr(data.draw, [n, k])
    (m.weight * tt(r)).sum().backward()
    assert orig.grad is not None and np.isfinite(npy(orig.grad)).all(), what
    if kind != "householder" and n * k <= 9:  # householder's diagonal is read as signs
        fn = m.parametrizations.weight[0]
        grad_ok(lambda a: fn(a), npy(orig))
    # assigning a value: its orthonormal QR factor (trivialization), or the reflectors
    # of its QR (householder without); matrix_exp / cayley without refuse
    a = arr(data.draw, [n, k])
    tall = a if n >= k else a.T
    assume_full = (
        np.linalg.matrix_rank(tall) == min(n, k)
        and abs(np.linalg.det(tall[:, : min(n, k)].T @ tall[:, : min(n, k)])) > 1e-6
    )
    if not assume_full:
        return
    if not trivial and kind != "householder":
        with pytest.raises(NotImplementedError):
            m.weight = tt(a)
        return
    m.weight = tt(a)
    want = qr_pos(tall)
    CALLS["orthogonal"] += 1
    check(m.weight, want if n >= k else want.T, "float64", what + " assigned", 10)


# ---------------------------------------------------------------- parametrize
class _Scale(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.c

    def right_inverse(self, y):
        return y / self.c


class _Sym(nn.Module):
    """No right inverse: registering stores the tensor as it is."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x.triu() + x.triu(1).transpose(-1, -2)


class _Split(nn.Module):
    """Two originals: a quarter and three quarters of the value."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, a, b):
        self.calls += 1
        return a + b

    def right_inverse(self, x):
        return x * 0.25, x * 0.75


def sym_np(x):
    return np.triu(x) + np.triu(x, 1).T


def sym_adj(g):
    return np.triu(g) + np.triu(g.T, 1)


@FUZZ
@given(st.lists(st.sampled_from(["scale", "sym", "split"]), min_size=1, max_size=3), st.data())
def test_register_parametrization(chain, data):
    chain = [c for i, c in enumerate(chain) if c != "split" or i == 0]  # split only first
    n = data.draw(st.integers(1, 4))
    m = nn.Linear(n, n, dtype=torch.float64)
    w = arr(data.draw, [n, n])
    with torch.no_grad():
        m.weight.copy_(tt(w))
    mods, value = [], w
    for c in chain:
        pm = {"scale": lambda: _Scale(data.draw(st.sampled_from([0.5, -2.0, 3.0]))),
              "sym": _Sym, "split": _Split}[c]()  # fmt: skip
        parametrize.register_parametrization(m, "weight", pm)
        mods.append(pm)
        value = sym_np(value) if c == "sym" else value  # scale / split: right_inverse
        # (the first one; a later one maps the current value)
        if c == "scale" and len(mods) > 1:
            value = value * pm.c
    what = f"register_parametrization {chain}"
    assert type(m).__name__ == "ParametrizedLinear"
    assert parametrize.is_parametrized(m, "weight") and not parametrize.is_parametrized(m, "bias")
    CALLS["parametrize"] += 1
    check(m.weight, value, "float64", what, 10)
    keys = set(m.state_dict())
    orig_names = ["original0", "original1"] if chain[0] == "split" else ["original"]
    assert {f"parametrizations.weight.{k}" for k in orig_names} <= keys, (what, keys)
    assert "weight" not in keys
    # gradient of sum(weight * R) reaches the originals through the chain's adjoints
    r = arr(data.draw, [n, n])
    (m.weight * tt(r)).sum().backward()
    grad = r
    for c, pm in reversed(list(zip(chain, mods))):
        grad = sym_adj(grad) if c == "sym" else grad * pm.c if c == "scale" else grad
    plist = m.parametrizations.weight
    CALLS["parametrize_backward"] += 1
    if chain[0] == "split":
        check(plist.original0.grad, grad, "float64", what + " d original0", 10)
        check(plist.original1.grad, grad, "float64", what + " d original1", 10)
    else:
        check(plist.original.grad, grad, "float64", what + " d original", 10)
    # cached(): each parametrization runs once inside the block
    before = [pm.calls for pm in mods]
    with parametrize.cached():
        a, b = m.weight, m.weight
        x = arr(data.draw, [2, n])
        m(tt(x))
    assert [pm.calls for pm in mods] == [c + 1 for c in before], what
    np.testing.assert_array_equal(npy(a), npy(b))
    m.weight  # noqa: B018  outside: computed again
    assert [pm.calls for pm in mods] == [c + 2 for c in before], what
    # assignment through the right inverses (refused when one has none)
    y = arr(data.draw, [n, n])
    if "sym" in chain:
        with pytest.raises(RuntimeError):
            m.weight = tt(y)
    else:
        m.weight = tt(y)
        CALLS["parametrize"] += 1
        check(m.weight, y, "float64", what + " assigned", 10)
        value = y
    # removal
    leave = data.draw(st.booleans())
    if not leave and chain[0] == "split":
        with pytest.raises(ValueError):
            parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
        return
    stored = npy(plist.original0 if chain[0] == "split" else plist.original)
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert type(m) is nn.Linear and not parametrize.is_parametrized(m)
    assert isinstance(m.weight, nn.Parameter) and "weight" in dict(m.named_parameters())
    CALLS["parametrize"] += 1
    check(m.weight, value if leave else stored, "float64", what + f" removed leave={leave}", 10)


# ---------------------------------------------------------------- parameter vectors, clipping
@FUZZ
@given(st.data())
def test_parameters_to_vector_roundtrip(data):
    shapes = data.draw(
        st.lists(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), min_size=1, max_size=4)
    )
    arrays = [arr(data.draw, s) for s in shapes]
    ps = [nn.Parameter(tt(a)) for a in arrays]
    CALLS["parameters_to_vector"] += 1
    vec = nn.utils.parameters_to_vector(ps)
    want = np.concatenate([a.ravel() for a in arrays])
    assert_same(vec, want, "float64", "parameters_to_vector")
    r = arr(data.draw, [want.size])
    (vec * tt(r)).sum().backward()
    offset = 0
    for p, a in zip(ps, arrays):
        assert_same(p.grad, r[offset : offset + a.size].reshape(a.shape), "float64", "d p")
        offset += a.size
    new = arr(data.draw, [want.size])
    CALLS["vector_to_parameters"] += 1
    nn.utils.vector_to_parameters(tt(new), ps)
    offset = 0
    for p, a in zip(ps, arrays):
        assert_same(p, new[offset : offset + a.size].reshape(a.shape), "float64", "vector_to")
        offset += a.size
    with pytest.raises(ValueError):
        nn.utils.vector_to_parameters(tt(np.zeros(want.size + 1)), ps)


@FUZZ
@given(DTYPES, st.data())
def test_clip_grad_value(dtype, data):
    shapes = data.draw(
        st.lists(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), min_size=1, max_size=4)
    )
    clip = data.draw(st.floats(0.0, 3.0))
    ps, grads = [], []
    for s in shapes:
        p = nn.Parameter(tt(arr(data.draw, s), dtype))
        if data.draw(st.booleans()):
            g = arr(data.draw, s, -5, 5).astype(dtype)
            p.grad = tt(g, dtype)
        else:
            g = None
        ps.append(p)
        grads.append(g)
    single = len(ps) == 1 and data.draw(st.booleans())
    CALLS["clip_grad_value_"] += 1
    assert nn.utils.clip_grad_value_(ps[0] if single else iter(ps), clip) is None
    for p, g in zip(ps, grads):
        if g is None:
            assert p.grad is None
        else:
            assert_same(
                p.grad,
                np.clip(g, -np.float32(clip) if dtype == "float32" else -clip, clip).astype(dtype),
                dtype,
                f"clip_grad_value_ {clip}",
            )


# ---------------------------------------------------------------- fusion
@FUZZ
@given(st.sampled_from(["Conv1d", "Conv2d", "ConvTranspose2d", "Linear"]), st.booleans(), st.data())
def test_fuse_bn_eval(kind, with_bias, data):
    c, o = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    dt = torch.float64
    if kind == "Linear":
        layer = nn.Linear(c, o, bias=with_bias, dtype=dt)
        bn = nn.BatchNorm1d(o, dtype=dt)
        x = arr(data.draw, [3, c])
    else:
        g = data.draw(st.integers(1, 2)) if kind != "ConvTranspose2d" else 1
        c, o = c * g, o * g
        nd = 1 if kind == "Conv1d" else 2
        layer = getattr(nn, kind)(c, o, 2, groups=g, bias=with_bias, dtype=dt)
        bn = getattr(nn, f"BatchNorm{nd}d")(o, dtype=dt)
        x = arr(data.draw, [2, c] + [3] * nd)
    affine = data.draw(st.booleans())
    randomise(layer, data.draw)
    with torch.no_grad():
        bn.running_mean.copy_(tt(arr(data.draw, [o])))
        bn.running_var.copy_(tt(arr(data.draw, [o], 0.1, 3.0)))
        if affine:
            bn.weight.copy_(tt(arr(data.draw, [o])))
            bn.bias.copy_(tt(arr(data.draw, [o])))
    bn.eps = data.draw(st.sampled_from([1e-5, 1e-3, 0.1]))
    layer.eval()
    bn.eval()
    w, b = npy(layer.weight), npy(layer.bias) if with_bias else np.zeros(o)
    s = npy(bn.weight) / np.sqrt(npy(bn.running_var) + bn.eps)
    if kind == "Linear":
        fused = nn.utils.fusion.fuse_linear_bn_eval(layer, bn)
        want_w = w * s[:, None]
    else:
        transpose = kind == "ConvTranspose2d"
        fused = nn.utils.fusion.fuse_conv_bn_eval(layer, bn, transpose=transpose)
        shape = [1] * w.ndim
        shape[1 if transpose else 0] = -1
        want_w = w * s.reshape(shape)
    want_b = (b - npy(bn.running_mean)) * s + npy(bn.bias)
    what = f"fuse {kind} bias={with_bias} affine={affine}"
    CALLS["fuse_bn_eval"] += 1
    check(fused.weight, want_w, "float64", what + " weight", 10)
    check(fused.bias, want_b, "float64", what + " bias", 10)
    xt = tt(x)
    check(fused(xt), npy(bn(layer(xt))), "float64", what + " forward", 100)
    check(layer.weight, w, "float64", what + " conv left as it was")
