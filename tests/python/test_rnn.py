"""Recurrent cells and layers (``nn.RNN/LSTM/GRU``, Paddle's ``SimpleRNN``, ``RNN(cell)``,
``BiRNN``, ``nn.utils.rnn`` packing) against NumPy float64 reference loops, gradcheck
and gradgradcheck, both dialects' conventions, padded batches and bad input."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.nn import rnn_cells

RNG = np.random.default_rng(5)


def sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def ref_step(mode, x, state, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One step in NumPy; state is a tuple, as in rnn_cells.step."""
    h = state[0]
    gx = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "LSTM":
        n = w_ih.shape[0] // 4
        a = gx + gh
        i, f, g, o = (a[..., k * n : (k + 1) * n] for k in range(4))
        c = sig(f) * state[1] + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        if w_hr is not None:
            h = h @ w_hr.T
        return (h, c)
    if mode == "GRU":
        n = w_ih.shape[0] // 3
        r = sig(gx[..., :n] + gh[..., :n])
        z = sig(gx[..., n : 2 * n] + gh[..., n : 2 * n])
        cand = np.tanh(gx[..., 2 * n :] + r * gh[..., 2 * n :])
        return ((1 - z) * cand + z * h,)
    pre = gx + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0),)


def ref_layers(model, x_tm, h0=None, lengths=None):
    """NumPy reference for a stacked (bi)directional layer on time-major x [T, B, I]."""
    sd = {k: v.numpy() for k, v in model.state_dict().items()}
    mode, nl, nd = model.mode, model.num_layers, model.num_directions
    steps, batch = x_tm.shape[:2]
    hs = model.proj_size or model.hidden_size
    lens = np.full(batch, steps) if lengths is None else np.asarray(lengths)
    finals = []
    inp = x_tm
    for layer in range(nl):
        outs = []
        for d in range(nd):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w = [sd.get(n + sfx) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            w_hr = sd.get("weight_hr" + sfx)
            k = layer * nd + d
            if h0 is None:
                st = [np.zeros((batch, hs))]
                if mode == "LSTM":
                    st.append(np.zeros((batch, model.hidden_size)))
            else:
                st = [h[k].copy() for h in h0]
            out = np.zeros((steps, batch, hs))
            for b in range(batch):
                s = tuple(v[b : b + 1] for v in st)
                order = range(lens[b]) if d == 0 else range(lens[b] - 1, -1, -1)
                for t in order:
                    s = ref_step(mode, inp[t, b : b + 1], s, *w, w_hr)
                    out[t, b] = s[0][0]
                for v, sv in zip(st, s):
                    v[b] = sv[0]
            outs.append(out)
            finals.append(st)
        inp = np.concatenate(outs, -1)
    stacked = [np.stack([f[i] for f in finals]) for i in range(len(finals[0]))]
    return inp, stacked


def t(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.numpy() if hasattr(a, "numpy") else a, b, atol=tol, rtol=tol)


# ----------------------------------------------------------------------------- cells


@pytest.mark.parametrize(
    "cls, mode", [("RNNCell", "RNN_TANH"), ("LSTMCell", "LSTM"), ("GRUCell", "GRU")]
)
def test_torch_cells_match_numpy(cls, mode):
    fg.seed(1)
    cell = getattr(nn, cls)(3, 4).double()
    sd = {k: v.numpy() for k, v in cell.state_dict().items()}
    w = [sd[n] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    x = RNG.standard_normal((2, 3))
    state = tuple(RNG.standard_normal((2, 4)) for _ in range(2 if mode == "LSTM" else 1))
    want = ref_step(mode, x, state, *w)
    hx = tuple(t(s) for s in state) if mode == "LSTM" else t(state[0])
    got = cell(t(x), hx)
    if mode == "LSTM":
        close(got[0], want[0])
        close(got[1], want[1])
    else:
        close(got, want[0])
    # no state: zeros
    zero = tuple(np.zeros((2, 4)) for _ in state)
    got0 = cell(t(x))
    close(got0[0] if mode == "LSTM" else got0, ref_step(mode, x, zero, *w)[0])


def test_cell_relu_nonlinearity_and_no_bias():
    cell = nn.RNNCell(3, 4, bias=False, nonlinearity="relu").double()
    assert cell.bias_ih is None and cell.bias_hh is None
    x, h = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4))
    want = ref_step("RNN_RELU", x, (h,), cell.weight_ih.numpy(), cell.weight_hh.numpy(), None, None)
    close(cell(t(x), t(h)), want[0])


def test_unbatched_cell_input():
    cell = nn.GRUCell(3, 4).double()
    x = RNG.standard_normal(3)
    close(cell(t(x)), cell(t(x[None]))[0].numpy())


def test_paddle_cells_return_outputs_and_states():
    fg.seed(2)
    x, h, c = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)), RNG.standard_normal((2, 4))
    lstm = nn.LSTMCell(3, 4, weight_ih_attr=None).double()  # a Paddle argument
    y, (h1, c1) = lstm(t(x), (t(h), t(c)))
    sd = {k: v.numpy() for k, v in lstm.state_dict().items()}
    w = [sd[n] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    want = ref_step("LSTM", x, (h, c), *w)
    close(y, want[0])
    close(h1, want[0])
    close(c1, want[1])
    # torch-built cell called with Paddle's keyword: Paddle's return convention
    gru = nn.GRUCell(3, 4).double()
    y, h1 = gru(t(x), states=t(h))
    close(y, h1.numpy())
    simple = nn.SimpleRNNCell(3, 4, activation="relu").double()
    y, h1 = simple(t(x), t(h))
    sd = {k: v.numpy() for k, v in simple.state_dict().items()}
    w = [sd[n] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    close(y, ref_step("RNN_RELU", x, (h,), *w)[0])
    assert simple.state_shape == (4,)
    assert lstm.state_shape == ((4,), (4,))


def test_paddle_lstm_cell_proj_size():
    cell = nn.LSTMCell(3, 4, proj_size=2, name="c").double()
    assert list(cell.weight_hh.shape) == [16, 2] and list(cell.weight_ho.shape) == [4, 2]
    x, h, c = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2)), RNG.standard_normal((2, 4))
    y, (h1, c1) = cell(t(x), (t(h), t(c)))
    sd = {k: v.numpy() for k, v in cell.state_dict().items()}
    w = [sd[n] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    want = ref_step("LSTM", x, (h, c), *w)
    close(y, want[0] @ sd["weight_ho"])
    close(c1, want[1])


def test_cell_init_bounds_and_shapes():
    fg.seed(0)
    cell = nn.LSTMCell(10, 25)
    assert list(cell.weight_ih.shape) == [100, 10] and list(cell.weight_hh.shape) == [100, 25]
    bound = 1 / np.sqrt(25)
    for p in cell.parameters():
        v = p.numpy()
        assert v.min() >= -bound and v.max() <= bound and v.std() > bound / 4


# ----------------------------------------------------------------------------- layers


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_torch_layers_match_numpy(kind, bidirectional, batch_first):
    fg.seed(3)
    model = getattr(nn, kind)(
        3, 4, num_layers=2, bidirectional=bidirectional, batch_first=batch_first
    ).double()
    x_tm = RNG.standard_normal((5, 2, 3))
    nd = 2 if bidirectional else 1
    h0 = [RNG.standard_normal((2 * nd, 2, 4)) for _ in range(2 if kind == "LSTM" else 1)]
    want_out, want_states = ref_layers(model, x_tm, h0)
    x = x_tm.transpose(1, 0, 2) if batch_first else x_tm
    hx = tuple(t(h) for h in h0) if kind == "LSTM" else t(h0[0])
    out, hn = model(t(x), hx)
    close(out, want_out.transpose(1, 0, 2) if batch_first else want_out)
    if kind == "LSTM":
        close(hn[0], want_states[0])
        close(hn[1], want_states[1])
    else:
        close(hn, want_states[0])
    assert list(out.shape[-1:]) == [4 * nd]


def test_parameter_names_and_shapes():
    m = nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2)
    shapes = {k: list(v.shape) for k, v in m.state_dict().items()}
    assert shapes["weight_ih_l0"] == [20, 3]
    assert shapes["weight_hh_l0"] == [20, 2]
    assert shapes["weight_hr_l0"] == [2, 5]
    assert shapes["weight_ih_l1_reverse"] == [20, 4]
    assert shapes["bias_hh_l1_reverse"] == [20]
    assert len(shapes) == 20
    g = nn.GRU(3, 5, bias=False)
    assert sorted(g.state_dict()) == ["weight_hh_l0", "weight_ih_l0"]


def test_lstm_proj_size_matches_numpy():
    model = nn.LSTM(3, 5, 2, proj_size=2).double()
    x = RNG.standard_normal((4, 2, 3))
    out, (h, c) = model(t(x))
    want, (wh, wc) = ref_layers(model, x)
    close(out, want)
    close(h, wh)
    close(c, wc)
    assert list(h.shape) == [2, 2, 2] and list(c.shape) == [2, 2, 5]


def test_unbatched_torch_input():
    model = nn.GRU(3, 4, 2).double()
    x = RNG.standard_normal((5, 3))
    out, h = model(t(x))
    want, (wh,) = ref_layers(model, x[:, None])
    close(out, want[:, 0])
    close(h, wh[:, 0])


@pytest.mark.parametrize("cls", ["SimpleRNN", "LSTM", "GRU"])
def test_paddle_layers_batch_major_with_sequence_length(cls):
    fg.seed(4)
    model = getattr(nn, cls)(3, 4, 2, direction="bidirect").double()
    assert model.time_major is False
    x_bm = RNG.standard_normal((3, 6, 3))
    lens = np.array([6, 2, 4])
    out, final = model(t(x_bm), sequence_length=fg.tensor(lens))
    want, states = ref_layers(model, x_bm.transpose(1, 0, 2), lengths=lens)
    close(out, want.transpose(1, 0, 2))
    finals = final if isinstance(final, tuple) else (final,)
    for got, w in zip(finals, states):
        close(got, w)
    # padded steps output zeros
    assert np.all(out.numpy()[1, 2:] == 0)


def test_paddle_time_major_and_initial_states():
    model = nn.LSTM(3, 4, time_major=True).double()
    x = RNG.standard_normal((5, 2, 3))
    h0 = [RNG.standard_normal((1, 2, 4)) for _ in range(2)]
    out, (h, c) = model(t(x), (t(h0[0]), t(h0[1])))
    want, (wh, wc) = ref_layers(model, x, h0)
    close(out, want)
    close(h, wh)
    close(c, wc)


def test_paddle_forward_keywords_pick_paddle_layout():
    # a layer built without layout arguments, called Paddle's way: batch-major input
    model = nn.GRU(3, 4).double()
    x_bm = RNG.standard_normal((2, 5, 3))
    out, _ = model(inputs=t(x_bm), initial_states=None, sequence_length=[5, 3])
    want, _ = ref_layers(model, x_bm.transpose(1, 0, 2), lengths=[5, 3])
    close(out, want.transpose(1, 0, 2))


def test_paddle_rnn_wrapper_and_birnn():
    fg.seed(6)
    cell = nn.LSTMCell(3, 4).double()
    rnn = nn.RNN(cell)
    assert not isinstance(rnn, nn.LSTM)
    x = RNG.standard_normal((2, 5, 3))
    out, (h, c) = rnn(t(x))
    sd = {k: v.numpy() for k, v in cell.state_dict().items()}
    w = [sd[n] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    s = (np.zeros((2, 4)), np.zeros((2, 4)))
    outs = []
    for step in range(5):
        s = ref_step("LSTM", x[:, step], s, *w)
        outs.append(s[0])
    close(out, np.stack(outs, 1))
    close(h, s[0])
    close(c, s[1])
    # reversed, with lengths: state stays put on padding
    rev = nn.RNN(nn.GRUCell(3, 4).double(), is_reverse=True)
    lens = [5, 2]
    out, h = rev(t(x), sequence_length=lens)
    sd = {k: v.numpy() for k, v in rev.cell.state_dict().items()}
    w = [sd[n] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    for b, n in enumerate(lens):
        s = (np.zeros((1, 4)),)
        for step in range(n - 1, -1, -1):
            s = ref_step("GRU", x[b : b + 1, step], s, *w)
            close(out[b, step], s[0][0])
        close(h[b], s[0][0])
    bi = nn.BiRNN(nn.GRUCell(3, 4).double(), nn.GRUCell(3, 4).double())
    out, (hf, hb) = bi(t(x))
    assert list(out.shape) == [2, 5, 8]
    close(out[:, -1, :4], hf.numpy())
    close(out[:, 0, 4:], hb.numpy())


def test_dropout_between_layers():
    model = nn.GRU(3, 4, 2, dropout=1.0).double()
    x = RNG.standard_normal((4, 2, 3))
    model.train()
    out, _ = model(t(x))
    # dropout(p=1) zeroes layer 0's output: layer 1 runs on zeros
    zero_in = nn.GRU(4, 4).double()
    zero_in.load_state_dict(
        {k.replace("_l1", "_l0"): v for k, v in model.state_dict().items() if "_l1" in k}
    )
    want, _ = zero_in(t(np.zeros((4, 2, 4))))
    close(out, want.numpy())
    model.eval()
    close(model(t(x))[0], ref_layers(model, x)[0])


# ----------------------------------------------------------------------------- packing


def test_pack_pad_roundtrip_and_layout():
    pack = nn.utils.rnn.pack_padded_sequence
    pad = nn.utils.rnn.pad_packed_sequence
    x = RNG.standard_normal((3, 4, 2))  # batch-first
    lens = [2, 4, 1]
    p = pack(t(x), lens, batch_first=True, enforce_sorted=False)
    assert p.batch_sizes.tolist() == [3, 2, 1, 1]
    assert p.sorted_indices.tolist() == [1, 0, 2]
    assert p.unsorted_indices.tolist() == [1, 0, 2]
    # time-major packed rows: t=0 for b=1,0,2, then t=1 for b=1,0, ...
    want = np.stack([x[1, 0], x[0, 0], x[2, 0], x[1, 1], x[0, 1], x[1, 2], x[1, 3]])
    close(p.data, want)
    back, got_lens = pad(p, batch_first=True, padding_value=-1.0)
    assert got_lens.tolist() == lens
    ref = x.copy()
    for b, n in enumerate(lens):
        ref[b, n:] = -1.0
    close(back, ref)
    back, _ = pad(p, total_length=6)
    assert list(back.shape) == [6, 3, 2]
    from ferrograd.nn.utils.rnn import pad_sequence  # importable as a module too

    seqs = [t(RNG.standard_normal((n, 2))) for n in (3, 1)]
    padded = pad_sequence(seqs, batch_first=True)
    assert list(padded.shape) == [2, 3, 2] and np.all(padded.numpy()[1, 1:] == 0)
    packed = nn.utils.rnn.pack_sequence(seqs[::-1], enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [2, 1, 1]
    close(packed.data, np.concatenate([seqs[0].numpy()[:1], seqs[1].numpy(), seqs[0].numpy()[1:]]))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_layers_on_packed_sequences(kind):
    model = getattr(nn, kind)(3, 4, 2, bidirectional=True).double()
    x = RNG.standard_normal((5, 3, 3))
    lens = [3, 5, 1]
    p = nn.utils.rnn.pack_padded_sequence(t(x), lens, enforce_sorted=False)
    out, final = model(p)
    assert isinstance(out, nn.utils.rnn.PackedSequence)
    padded, got_lens = nn.utils.rnn.pad_packed_sequence(out)
    want, states = ref_layers(model, x, lengths=lens)
    assert got_lens.tolist() == lens
    close(padded, want)
    finals = final if isinstance(final, tuple) else (final,)
    for got, w in zip(finals, states):
        close(got, w)


def test_packed_gradient_reaches_only_valid_steps():
    x = t(RNG.standard_normal((4, 2, 3)), grad=True)
    model = nn.LSTM(3, 2).double()
    p = nn.utils.rnn.pack_padded_sequence(x, [4, 2])
    out, (h, c) = model(p)
    (nn.utils.rnn.pad_packed_sequence(out)[0].sum() + h.sum()).backward()
    g = x.grad.numpy()
    assert np.all(g[2:, 1] == 0) and np.all(g[:, 0] != 0)


# ----------------------------------------------------------------------------- gradients


@pytest.mark.parametrize("mode", ["RNN_TANH", "LSTM", "GRU"])
def test_step_gradcheck_and_gradgradcheck(mode):
    g = rnn_cells.GATES[mode]
    x, h = t(RNG.standard_normal((2, 3)), True), t(RNG.standard_normal((2, 2)), True)
    c = t(RNG.standard_normal((2, 2)), True)
    w_ih, w_hh = t(RNG.standard_normal((2 * g, 3)), True), t(RNG.standard_normal((2 * g, 2)), True)
    b_ih, b_hh = t(RNG.standard_normal(2 * g), True), t(RNG.standard_normal(2 * g), True)

    def f(x, h, c, w_ih, w_hh, b_ih, b_hh):
        gx = fg.nn.functional.linear(x, w_ih, b_ih)
        state = (h, c) if mode == "LSTM" else (h,)
        return rnn_cells.step(mode, gx, state, w_hh, b_hh)

    inputs = (x, h, c, w_ih, w_hh, b_ih, b_hh)
    assert fg.autograd.gradcheck(f, inputs)
    assert fg.autograd.gradgradcheck(f, inputs)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_layer_gradcheck(kind):
    model = getattr(nn, kind)(2, 3, 2, bidirectional=True).double()
    x = t(RNG.standard_normal((3, 2, 2)), True)
    h0 = t(RNG.standard_normal((4, 2, 3)), True)
    c0 = t(RNG.standard_normal((4, 2, 3)), True)

    def f(x, h0, c0):
        out, hn = model(x, (h0, c0) if kind == "LSTM" else h0)
        return (out,) + (hn if isinstance(hn, tuple) else (hn,))

    assert fg.autograd.gradcheck(f, (x, h0, c0) if kind == "LSTM" else (x, h0, c0.detach()))


def test_parameter_gradients_match_finite_differences():
    model = nn.GRU(2, 3).double()
    x = RNG.standard_normal((3, 1, 2))
    out, _ = model(t(x))
    out.sum().backward()
    w = model.weight_hh_l0
    analytic = w.grad.numpy()
    base = w.numpy().copy()
    eps = 1e-6
    i, j = 4, 1
    plus, minus = base.copy(), base.copy()
    plus[i, j] += eps
    minus[i, j] -= eps
    with fg.no_grad():
        w.copy_(t(plus))
        fp = model(t(x))[0].sum().item()
        w.copy_(t(minus))
        fm = model(t(x))[0].sum().item()
    assert abs((fp - fm) / (2 * eps) - analytic[i, j]) < 1e-6


# ----------------------------------------------------------------------------- errors


def test_bad_input_raises_clear_errors():
    m = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="3 features"):
        m(fg.randn(5, 2, 7))
    with pytest.raises(ValueError, match="initial state"):
        m(fg.randn(5, 2, 3), (fg.zeros([1, 3, 4]), fg.zeros([1, 2, 4])))
    with pytest.raises(TypeError, match="pair"):
        m(fg.randn(5, 2, 3), fg.zeros([1, 2, 4]))
    with pytest.raises(ValueError, match="no time steps"):
        m(fg.randn(0, 2, 3))
    with pytest.raises(ValueError, match="direction"):
        nn.GRU(3, 4, direction="sideways")
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="hidden_size"):
        nn.GRU(3, 0)
    with pytest.raises(ValueError, match="num_layers"):
        nn.GRU(3, 4, 0)
    with pytest.raises(ValueError, match="proj_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="proj_size"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(TypeError, match="unexpected"):
        nn.GRU(3, 4, batch_frist=True)
    with pytest.raises(ValueError, match="lengths"):
        nn.GRU(3, 4, time_major=True)(fg.randn(5, 2, 3), sequence_length=[6, 1])
    with pytest.raises(ValueError, match="decreasing"):
        nn.utils.rnn.pack_padded_sequence(fg.randn(5, 2, 3), [2, 5])
    with pytest.raises(ValueError, match="state of shape"):
        nn.GRUCell(3, 4)(fg.randn(2, 3), fg.randn(3, 4))
    with pytest.raises(ValueError, match="input of shape"):
        nn.GRUCell(3, 4)(fg.randn(2, 5))
    with pytest.raises(TypeError, match="cell"):
        nn.RNN(nn.Linear(2, 2))


def test_zero_size_batch():
    out, (h, c) = nn.LSTM(3, 4, 2, bidirectional=True)(fg.randn(5, 0, 3))
    assert list(out.shape) == [5, 0, 8] and list(h.shape) == [4, 0, 4]
    out, h = nn.GRU(3, 4)(fg.randn(0, 5, 3), sequence_length=[])
    assert list(out.shape) == [0, 5, 4] and list(h.shape) == [1, 0, 4]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_tiny_layer_gradgradcheck(kind):
    # the steps are split by a PyLayer whose backward is itself differentiable
    model = getattr(nn, kind)(2, 2, bidirectional=True).double()
    x = t(RNG.standard_normal((3, 1, 2)), True)
    assert fg.autograd.gradgradcheck(lambda x: model(x)[0], (x,))
    lens = [3, 1]
    x2 = t(RNG.standard_normal((2, 3, 2)), True)
    paddle_model = getattr(nn, kind)(2, 2, time_major=False).double()
    f = lambda x: paddle_model(x, sequence_length=lens)[0]  # noqa: E731
    assert fg.autograd.gradcheck(f, (x2,))
    assert fg.autograd.gradgradcheck(f, (x2,))


def test_layout_hint_when_a_state_does_not_fit():
    # Paddle's example run without a layout argument: read as time-major, the state
    # does not fit, and the error says how to ask for batch-major input
    lstm = nn.LSTM(16, 32, 2)
    h0 = (fg.zeros([2, 4, 32]), fg.zeros([2, 4, 32]))
    with pytest.raises(ValueError, match="time_major=False"):
        lstm(fg.randn(4, 23, 16), h0)
    out, _ = nn.LSTM(16, 32, 2, time_major=False)(fg.randn(4, 23, 16), h0)
    assert list(out.shape) == [4, 23, 32]
