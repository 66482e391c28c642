"""Session 42, second round: Paddle user scripts in new domains (a Fourier Neural
Operator, a BiGRU-CRF tagger, DQN, a 3-D conv video classifier, seq2seq with
``nn.Transformer`` and beam search, STFT / MFCC audio models, a GCN on ``paddle.sparse``,
style transfer by LBFGS and WGAN-GP) run with only the import changed. The
``*_regression`` tests pin what the scripts found missing; the rest are exact values the
scripts print, checked against closed forms or brute force. See docs/user-scripts.md,
"Session 42: a second round of Paddle scripts"."""

from __future__ import annotations

import itertools

import ferrograd as paddle
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest

# ------------------------------------------------ paddle.text: Viterbi decoding


def _brute_viterbi(emit, trans, length, bos_eos):
    """Best path by enumeration, scored as Paddle's kernel scores it
    (paddle/phi/kernels/cpu/viterbi_decode_kernel.cc: start = last row of the
    transitions, stop = second-to-last row, both added only with include_bos_eos_tag)."""
    n = emit.shape[-1]
    best, best_score = None, -np.inf
    for path in itertools.product(range(n), repeat=length):
        s = sum(emit[i, path[i]] for i in range(length))
        s += sum(trans[path[i], path[i + 1]] for i in range(length - 1))
        if bos_eos:
            s += trans[n - 1, path[0]] + trans[n - 2, path[-1]]
        if s > best_score + 1e-9:
            best, best_score = path, s
    return list(best), best_score


@pytest.mark.parametrize("bos_eos", [False, True])
def test_text_viterbi_decode_regression(bos_eos):
    # Paddle: paddle.text.viterbi_decode (python/paddle/text/viterbi_decode.py) and
    # ViterbiDecoder, which PaddleNLP's BiGRU-CRF taggers decode with. ferrograd had no
    # paddle.text ("module 'ferrograd' has no attribute 'text'").
    rng = np.random.RandomState(0)
    n, lens = 4, [5, 2, 1, 3]
    emit = rng.randn(4, 6, n).astype("float32")
    trans = rng.randn(n, n).astype("float32")
    scores, paths = paddle.text.viterbi_decode(
        paddle.to_tensor(emit),
        paddle.to_tensor(trans),
        paddle.to_tensor(lens, dtype="int64"),
        include_bos_eos_tag=bos_eos,
    )
    assert scores.dtype == paddle.float32 and paths.dtype == paddle.int64
    assert paths.shape == [4, max(lens)]  # the kernel sizes the path by max(lengths)
    for b, length in enumerate(lens):
        want, want_score = _brute_viterbi(emit[b], trans, length, bos_eos)
        assert paths.numpy()[b, :length].tolist() == want
        assert (paths.numpy()[b, length:] == 0).all()
        np.testing.assert_allclose(float(scores[b]), want_score, rtol=1e-5)


def test_text_viterbi_decoder_layer_regression():
    # The layer form reads its transitions (a trained CRF parameter) at each call.
    rng = np.random.RandomState(1)
    emit = paddle.to_tensor(rng.randn(2, 4, 3).astype("float64"))
    trans = paddle.create_parameter([3, 3], "float64")
    lengths = paddle.to_tensor([4, 2], dtype="int64")
    dec = paddle.text.ViterbiDecoder(trans, include_bos_eos_tag=False)
    s1, p1 = dec(emit, lengths)
    s2, p2 = paddle.text.viterbi_decode(emit, trans, lengths, False)
    assert s1.dtype == paddle.float64
    assert p1.numpy().tolist() == p2.numpy().tolist()
    trans.set_value(paddle.zeros([3, 3], dtype="float64"))
    _, p3 = dec(emit, lengths)  # zero transitions: each position's own argmax
    want = emit.numpy().argmax(-1)
    assert p3.numpy()[0].tolist() == want[0].tolist()
    assert p3.numpy()[1, :2].tolist() == want[1, :2].tolist()


def test_text_viterbi_decode_ties_and_errors():
    # ties go to the lowest tag (the kernel's argmax keeps the first strict maximum)
    s, p = paddle.text.viterbi_decode(
        paddle.zeros([1, 3, 3]), paddle.zeros([3, 3]), paddle.to_tensor([3], dtype="int64"), False
    )
    assert p.numpy().tolist() == [[0, 0, 0]] and float(s[0]) == 0.0
    with pytest.raises(TypeError, match="lengths must be int64"):
        paddle.text.viterbi_decode(
            paddle.zeros([1, 3, 3]), paddle.zeros([3, 3]), paddle.to_tensor([3], dtype="int32")
        )
    with pytest.raises(ValueError, match="every length must be in"):
        paddle.text.viterbi_decode(
            paddle.zeros([1, 3, 3]), paddle.zeros([3, 3]), paddle.to_tensor([4], dtype="int64")
        )
    with pytest.raises(ValueError, match="transition_params must be"):
        paddle.text.viterbi_decode(
            paddle.zeros([1, 3, 3]), paddle.zeros([2, 2]), paddle.to_tensor([3], dtype="int64")
        )


def test_crf_partition_function_by_logsumexp_equals_brute_force():
    # the script's LinearChainCrf forward algorithm (logsumexp over the previous tag)
    rng = np.random.RandomState(2)
    emit = rng.randn(4, 3).astype("float64")
    trans = rng.randn(3, 3).astype("float64")
    alpha = paddle.to_tensor(emit[0])
    t = paddle.to_tensor(trans)
    for i in range(1, 4):
        alpha = paddle.logsumexp(alpha.unsqueeze(-1) + t + paddle.to_tensor(emit[i]), axis=0)
    logz = float(paddle.logsumexp(alpha, axis=0))
    total = np.logaddexp.reduce(
        [
            sum(emit[i, q[i]] for i in range(4)) + sum(trans[q[i], q[i + 1]] for i in range(3))
            for q in itertools.product(range(3), repeat=4)
        ]
    )
    assert abs(logz - total) < 1e-12


# ------------------------------------------------ nn.BeamSearchDecoder / dynamic_decode


def test_beam_search_decoder_docstring_example_regression():
    # Paddle's example (python/paddle/nn/decode.py, dynamic_decode): max_step_num=10 runs
    # 11 steps, outputs [batch, time, beam]. ferrograd had no nn.BeamSearchDecoder,
    # nn.dynamic_decode, nor RNNCellBase.get_initial_states. (The end token's logit is
    # pushed down so that no beam ends early whatever the random weights.)
    paddle.seed(0)
    emb = nn.Embedding(100, 32)
    out_layer = nn.Linear(32, 32)
    bias = out_layer.bias.numpy()
    bias[1] = -100.0
    out_layer.bias.set_value(bias)
    cell = nn.GRUCell(input_size=32, hidden_size=32)
    decoder = nn.BeamSearchDecoder(
        cell, start_token=0, end_token=1, beam_size=4, embedding_fn=emb, output_fn=out_layer
    )
    enc = paddle.ones((4, 8, 32), dtype=paddle.get_default_dtype())
    outputs = nn.dynamic_decode(
        decoder=decoder, inits=cell.get_initial_states(enc), max_step_num=10
    )
    assert outputs[0].shape == [4, 11, 4]
    assert outputs[0].dtype == paddle.int64
    assert type(outputs[1]).__name__ == "StateWrapper"


class _TableCell(nn.RNNCellBase):
    """Logits that depend only on the step (the state counts the steps)."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, inputs, states):
        t = int(states[0, 0])
        return paddle.tile(self.table[t].unsqueeze(0), [inputs.shape[0], 1]), states + 1


def test_beam_search_equals_brute_force_regression():
    probs = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])
    table = paddle.to_tensor(np.log(probs).astype("float32"))
    dec = nn.BeamSearchDecoder(_TableCell(table), start_token=0, end_token=2, beam_size=3)
    ids, states, lengths = nn.dynamic_decode(
        dec, inits=paddle.zeros([1, 1]), max_step_num=3, return_length=True
    )
    assert ids.shape == [1, 4, 3]
    # beam 0: end at once (0.2); beams 1, 2: 0.5*0.6*0.4*0.8 = 0.096, two ways
    assert ids.numpy()[0].T.tolist() == [[2, 2, 2, 2], [0, 1, 0, 2], [0, 1, 1, 2]]
    np.testing.assert_allclose(states.log_probs.numpy()[0], np.log([0.2, 0.096, 0.096]), rtol=1e-6)
    # a finished beam's length stops growing; the length counts the end token
    assert lengths.numpy()[0].tolist() == [1, 4, 4]
    assert states.finished.numpy()[0].tolist() == [True, True, True]


def test_tile_beam_merge_with_batch_regression():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    y = nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 3)
    assert y.numpy().tolist() == [[1.0, 2.0]] * 3 + [[3.0, 4.0]] * 3


def test_gather_tree_docstring_example_regression():
    # Paddle's example for paddle.nn.functional.gather_tree (gather_tree_kernel.cc)
    ids = paddle.to_tensor([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], dtype="int64")
    parents = paddle.to_tensor(
        [[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], dtype="int64"
    )
    out = F.gather_tree(ids, parents)
    assert out.numpy().tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]
    with pytest.raises(ValueError, match="parents must be in"):
        F.gather_tree(ids, parents + 5)


def test_get_initial_states_regression():
    ref = paddle.ones([3, 7, 4])
    h = nn.GRUCell(4, 5).get_initial_states(ref)
    assert h.shape == [3, 5] and float(h.abs().sum()) == 0.0
    hc = nn.LSTMCell(4, 5).get_initial_states(ref, init_value=0.5)
    assert isinstance(hc, tuple) and [t.shape for t in hc] == [[3, 5], [3, 5]]
    assert float(hc[1].mean()) == 0.5
    assert nn.GRUCell(4, 5).get_initial_states(ref, shape=[2, 6], batch_dim_idx=1).shape == [
        7,
        2,
        6,
    ]


class _CountdownDecoder(nn.decode.Decoder):
    """Entry b finishes at step stop_at[b]; the output is the step number."""

    def __init__(self, stop_at):
        self.stop_at = paddle.to_tensor(stop_at, dtype="int64")

    def initialize(self, inits):
        fin = paddle.zeros([2], dtype="bool")
        return paddle.zeros([2]), paddle.zeros([2]), fin

    def step(self, time, inputs, states, **kwargs):
        t = int(time[0])
        return (paddle.full([2], float(t)), states + 1, inputs, self.stop_at <= t)


def test_dynamic_decode_lengths_and_impute_finished():
    out, states, lengths = nn.dynamic_decode(
        _CountdownDecoder([1, 3]), impute_finished=True, return_length=True
    )
    assert out.shape == [2, 4]  # batch-major; 4 steps until both finish
    assert lengths.numpy().tolist() == [2, 4]  # the step that emits "finished" counts
    # impute_finished: entry 0's state stops at its value when it finished (2 steps)
    assert states.numpy().tolist() == [2.0, 4.0]
    out_t, _ = nn.dynamic_decode(_CountdownDecoder([1, 3]), output_time_major=True)
    assert out_t.shape == [4, 2]


# ------------------------------------------------ paddle.signal.frame / overlap_add


def test_signal_frame_docstring_examples_regression():
    # python/paddle/signal.py `frame`: Paddle's examples. ferrograd had no
    # paddle.signal.frame / overlap_add.
    x = paddle.arange(8)
    assert paddle.signal.frame(x, frame_length=4, hop_length=2, axis=-1).numpy().tolist() == [
        [0, 2, 4],
        [1, 3, 5],
        [2, 4, 6],
        [3, 5, 7],
    ]
    assert paddle.signal.frame(x, 4, 2, axis=0).numpy().tolist() == [
        [0, 1, 2, 3],
        [2, 3, 4, 5],
        [4, 5, 6, 7],
    ]
    assert paddle.signal.frame(paddle.arange(16).reshape([8, 2]), 4, 2, axis=0).shape == [3, 4, 2]
    assert paddle.signal.frame(paddle.arange(32).reshape([2, 2, 8]), 4, 2).shape == [2, 2, 4, 3]
    with pytest.raises(ValueError, match="frame_length should be less than or equal"):
        paddle.signal.frame(x, 9, 2)
    with pytest.raises(ValueError, match="axis"):
        paddle.signal.frame(x, 4, 2, axis=1)


def test_signal_overlap_add_docstring_examples_regression():
    x0 = paddle.arange(16).reshape([8, 2])
    assert paddle.signal.overlap_add(x0, hop_length=2, axis=-1).numpy().tolist() == [
        0, 2, 5, 9, 13, 17, 21, 25, 13, 15,
    ]  # fmt: skip
    x1 = paddle.arange(16).reshape([2, 8])
    assert paddle.signal.overlap_add(x1, hop_length=2, axis=0).numpy().tolist() == [
        0, 1, 10, 12, 14, 16, 18, 20, 14, 15,
    ]  # fmt: skip
    assert paddle.signal.overlap_add(paddle.arange(32).reshape([2, 1, 8, 2]), 2).shape == [2, 1, 10]
    assert paddle.signal.overlap_add(paddle.arange(32).reshape([2, 8, 1, 2]), 2, axis=0).shape == [
        10,
        1,
        2,
    ]
    # frame_length 3 not a multiple of hop 2: columns [0,4,8], [1,5,9], ... added at 0, 2, 4, 6
    y = paddle.signal.overlap_add(paddle.arange(12).reshape([3, 4]), 2)
    assert y.numpy().tolist() == [0, 4, 9, 5, 11, 6, 13, 7, 11]


def test_frame_then_overlap_add_gradient():
    x = paddle.randn([3, 20])
    x.stop_gradient = False
    y = paddle.signal.overlap_add(paddle.signal.frame(x, 6, 4), 4)
    assert y.shape == [3, 18]
    y.sum().backward()
    # each sample's gradient is how many frames cover it (the last two are in none)
    want = [1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 1, 1, 0, 0]
    assert x.grad.numpy()[0].tolist() == want


# ------------------------------------------------ values the scripts print


def test_fno_spectral_conv_gradient_matches_finite_differences():
    # rfft2 -> complex einsum with paddle.complex weights -> irfft2 (the FNO layer)
    paddle.seed(3)
    wr = paddle.rand([2, 2, 2, 2], dtype="float64")
    wi = paddle.rand([2, 2, 2, 2], dtype="float64")
    wr.stop_gradient = False
    x = paddle.randn([1, 2, 8, 8], dtype="float64")

    def layer(wr_):
        xf = paddle.fft.rfft2(x)
        w = paddle.complex(wr_, wi)
        low = paddle.einsum("bixy,ioxy->boxy", xf[:, :, :2, :2], w)
        out = paddle.zeros([1, 2, 8, 5], dtype="complex128")
        out[:, :, :2, :2] = low
        return (paddle.fft.irfft2(out, s=(8, 8)) ** 2).sum()

    layer(wr).backward()
    g = wr.grad.numpy()
    w0 = wr.numpy()
    eps = 1e-6
    for idx in [(0, 1, 1, 0), (1, 0, 0, 1)]:
        wp, wm = w0.copy(), w0.copy()
        wp[idx] += eps
        wm[idx] -= eps
        fd = (float(layer(paddle.to_tensor(wp))) - float(layer(paddle.to_tensor(wm)))) / (2 * eps)
        assert abs(fd - g[idx]) < 1e-6 * max(1.0, abs(fd))
    a = np.random.RandomState(0).randn(2, 5, 7)
    np.testing.assert_allclose(
        paddle.fft.irfft2(paddle.fft.rfft2(paddle.to_tensor(a)), s=(5, 7)).numpy(), a, atol=1e-12
    )


def test_dqn_pieces_exact():
    q = paddle.to_tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])
    a = paddle.to_tensor([1, 0, 1], dtype="int64")
    by_take = paddle.take_along_axis(q, a.unsqueeze(1), axis=1).squeeze(1)
    by_onehot = paddle.sum(q * F.one_hot(a, 2), axis=1)
    assert by_take.numpy().tolist() == [2.0, 3.0, 0.25] == by_onehot.numpy().tolist()
    # Paddle's smooth_l1_loss is the Huber loss with delta (python/paddle/nn/functional/
    # loss.py): 0.5 d^2 for |d| < delta, delta * (|d| - 0.5 delta) otherwise
    x, y = paddle.to_tensor([0.0, 0.5, 2.0, -3.0]), paddle.zeros([4])
    assert float(F.smooth_l1_loss(x, y)) == (0 + 0.125 + 1.5 + 2.5) / 4
    assert F.smooth_l1_loss(x, y, reduction="none", delta=2.0).numpy().tolist() == [0, 0.125, 2, 4]
    # a target net synced by set_state_dict gives the same Q values
    net, target = nn.Linear(3, 2), nn.Linear(3, 2)
    target.set_state_dict(net.state_dict())
    s = paddle.randn([4, 3])
    assert (net(s) - target(s)).abs().max().item() == 0.0


def test_3d_conv_pool_values_exact():
    x = paddle.arange(2 * 4 * 4 * 4, dtype="float32").reshape([1, 2, 4, 4, 4])
    y, mask = F.max_pool3d(x, kernel_size=2, stride=2, return_mask=True)
    assert y.numpy().ravel()[:4].tolist() == [21, 23, 29, 31]
    assert mask.numpy().ravel()[:4].tolist() == [21, 23, 29, 31]  # flat index in D*H*W
    ap = F.adaptive_avg_pool3d(x, output_size=[1, 2, 2])
    assert ap.numpy().ravel().tolist() == [26.5, 28.5, 34.5, 36.5, 90.5, 92.5, 98.5, 100.5]
    bn = nn.BatchNorm3D(2)  # Paddle's momentum 0.9: running = 0.9 * 0 + 0.1 * mean
    bn.train()
    bn(x)
    np.testing.assert_allclose(bn._mean.numpy(), [3.15, 9.55], rtol=1e-6)
    assert float(F.conv3d(x, paddle.ones([1, 2, 2, 2, 2]))[0, 0, 0, 0, 0]) == 680.0
    assert paddle.flatten(paddle.zeros([2, 3, 4, 5]), start_axis=1, stop_axis=2).shape == [2, 12, 5]


def test_stft_istft_round_trip_and_audio_helpers():
    from ferrograd.audio.functional import create_dct, get_window, mel_frequencies

    window = paddle.to_tensor(get_window("hann", 64, dtype="float64"))
    x = paddle.randn([2, 500], dtype="float64")
    spec = paddle.signal.stft(x, n_fft=64, hop_length=16, window=window)
    assert spec.shape == [2, 33, 32] and spec.dtype == paddle.complex128
    rec = paddle.signal.istft(spec, n_fft=64, hop_length=16, window=window, length=500)
    np.testing.assert_allclose(rec.numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(get_window("hann", 8).numpy(), np.hanning(9)[:8], atol=1e-15)
    dct = create_dct(n_mfcc=20, n_mels=32, norm="ortho")
    np.testing.assert_allclose((dct.T @ dct).numpy(), np.eye(20), atol=1e-6)
    mel = mel_frequencies(n_mels=5, f_min=0.0, f_max=8000.0, htk=True).numpy()
    top = 2595 * np.log10(1 + 8000 / 700)
    np.testing.assert_allclose(mel, 700 * (10 ** (np.linspace(0, top, 5) / 2595) - 1), rtol=1e-5)


def test_sparse_gcn_pieces_exact():
    csr = paddle.sparse.sparse_csr_tensor(
        paddle.to_tensor([0, 2, 3, 5]),
        paddle.to_tensor([1, 3, 2, 0, 1]),
        paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0]),
        [3, 4],
    )
    assert paddle.sparse.mv(csr, paddle.ones([4])).numpy().tolist() == [3.0, 3.0, 9.0]
    sm = paddle.sparse.nn.functional.softmax(csr).to_dense().numpy()  # over the stored values
    np.testing.assert_allclose(sm[0, [1, 3]], [1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-6)
    assert sm[1, 2] == 1.0 and sm[0, 0] == 0.0
    out = paddle.sparse.addmm(paddle.ones([3, 2]), csr, paddle.ones([4, 2]), beta=2.0, alpha=0.5)
    assert out.numpy().tolist() == [[3.5, 3.5], [3.5, 3.5], [6.5, 6.5]]
    coo = paddle.sparse.sparse_coo_tensor(
        paddle.to_tensor([[0, 0, 1, 2, 2], [1, 3, 2, 0, 1]]),
        paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0]),
        [3, 4],
        stop_gradient=False,
    )
    w = paddle.randn([4, 2])
    paddle.sparse.matmul(coo, w).sum().backward()
    # d/dA_ij of sum(A @ w) is the row sum of w at column j, for the stored entries only
    np.testing.assert_allclose(
        coo.grad.values().numpy(), w.sum(1).numpy()[[1, 3, 2, 0, 1]], rtol=1e-6
    )
    r = paddle.sparse.nn.functional.relu(
        paddle.sparse.sparse_coo_tensor(
            paddle.to_tensor([[0, 1], [1, 2]]), paddle.to_tensor([-1.0, 2.0]), [3, 3]
        )
    )
    assert r.values().numpy().tolist() == [0.0, 2.0]


def test_gradient_penalty_of_a_linear_critic_exact():
    # WGAN-GP: for D(x) = <w, x>, the input gradient is w, the penalty (|w| - 1)^2 = 16 and
    # its gradient in w is 2 (|w| - 1) w / |w| per sample
    lin = nn.Linear(4, 1, bias_attr=False)
    lin.weight.set_value(paddle.to_tensor([[3.0], [0.0], [4.0], [0.0]]))
    x = paddle.randn([5, 4])
    x.stop_gradient = False
    g = paddle.grad(lin(x), x, grad_outputs=paddle.ones([5, 1]), create_graph=True)[0]
    gp = paddle.mean((paddle.norm(g, p=2, axis=1) - 1) ** 2)
    gp.backward()
    assert float(gp) == 16.0
    np.testing.assert_allclose(lin.weight.grad.numpy().ravel(), [4.8, 0.0, 6.4, 0.0], rtol=1e-6)
